"""Kafka cluster state from ZooKeeper: as of a snapshot, and changed txn by txn by the logs.

``ZkTree`` is an in-memory DataTree that applies transactions with ZooKeeper's own rules
(``DataTree.processTxn`` of 3.8: stat updates, parent cversion/pzxid, ephemeral ownership, a
failed multi applying nothing, closeSession deleting the session's ephemerals), so the state
between two snapshots is known exactly. ``state_rows`` turns a snapshot into
``silver.zk_state``-shaped rows (one per Kafka znode, decoded). ``KafkaReplay`` turns each txn
into ``silver.zk_changes``-shaped rows (zxid, time, op, path, decoded Kafka value, previous
value when the tree knows it, resulting data version, cause). ``broker_liveness`` folds
registrations and session ends into per-broker intervals.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kafkactl_core.zk.jute import (
    CONTAINER_EPHEMERAL_OWNER,
    OPEN_ACL_UNSAFE,
    TTL_MASK,
    Acl,
    CheckVersionTxn,
    CloseSessionTxn,
    CreateContainerTxn,
    CreateSessionTxn,
    CreateTTLTxn,
    CreateTxn,
    DeleteTxn,
    MultiTxn,
    OpCode,
    SetACLTxn,
    SetDataTxn,
    Stat,
    TxnHeader,
    TxnRecord,
    ephemeral_session,
)
from kafkactl_core.zk.snapshot import Snapshot, SnapshotNode, SnapshotReader
from kafkactl_core.zk.txnlog import TxnEntry
from kafkactl_core.zk.znodes import (
    BrokerRegistration,
    KafkaZNode,
    MalformedZNode,
    PartitionStateRecord,
    ZNodeKind,
    ZNodePath,
    classify_path,
    decode_znode,
    record_to_json,
)


class ChangeCause(enum.Enum):
    """Why a znode changed."""

    write = "write"
    """A client wrote it (create, setData, delete, or one op of a multi)."""
    session_closed = "session_closed"
    """An ephemeral removed because its owner closed its session."""
    session_expired = "session_expired"
    """An ephemeral removed because its session expired (server-initiated close, cxid 0)."""


class _Node:
    """A mutable DataTree node."""

    __slots__ = (
        "acl",
        "aversion",
        "ctime",
        "cversion",
        "czxid",
        "data",
        "ephemeral_owner",
        "mtime",
        "mzxid",
        "pzxid",
        "version",
    )

    def __init__(self, data: bytes | None, acl: tuple[Acl, ...] | None, stat: Stat) -> None:
        self.data = data
        self.acl = acl
        self.czxid = stat.czxid
        self.mzxid = stat.mzxid
        self.ctime = stat.ctime
        self.mtime = stat.mtime
        self.version = stat.version
        self.cversion = stat.cversion
        self.aversion = stat.aversion
        self.ephemeral_owner = stat.ephemeral_owner
        self.pzxid = stat.pzxid

    def stat(self) -> Stat:
        return Stat(
            self.czxid,
            self.mzxid,
            self.ctime,
            self.mtime,
            self.version,
            self.cversion,
            self.aversion,
            self.ephemeral_owner,
            self.pzxid,
        )


@dataclass(frozen=True, slots=True)
class NodeState:
    """A znode's data and stat at one moment."""

    data: bytes | None
    stat: Stat
    acl: tuple[Acl, ...] | None = None


@dataclass(frozen=True, slots=True)
class TreeChange:
    """One znode change a txn made to the tree.

    Attributes:
        op: ``create``, ``setData``, ``delete``, ``setACL`` (the sub-op for a multi).
        path: the znode.
        before: the node before (None when it did not exist or the tree did not know it).
        after: the node after (None when deleted).
        multi_index: position inside a multi, None otherwise.
        cause: write, or the session end that removed an ephemeral.
        applied: False when the tree could not apply it (node exists / missing, as during the
            replay of a fuzzy snapshot, where ZooKeeper ignores the same errors).
    """

    op: str
    path: str
    before: NodeState | None
    after: NodeState | None
    multi_index: int | None
    cause: ChangeCause
    applied: bool


_ROOT_STAT = Stat(0, 0, 0, 0, 0, 0, 0, 0, 0)


class ZkTree:
    """ZooKeeper's DataTree in memory, with ``DataTree.processTxn`` semantics.

    Attributes:
        nodes: path → node.
        sessions: live session → timeout.
        zxid: the last zxid applied (or the snapshot's).
    """

    def __init__(self, zxid: int = 0) -> None:
        """An empty tree as a fresh ZooKeeper starts: ``/``, ``/zookeeper``, its quota/config."""
        self.nodes: dict[str, _Node] = {}
        self.sessions: dict[int, int] = {}
        self._ephemerals: dict[int, set[str]] = {}
        self.zxid = zxid
        for path in ("/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"):
            self.nodes[path] = _Node(b"", OPEN_ACL_UNSAFE, _ROOT_STAT)

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot) -> ZkTree:
        """The tree of a decoded snapshot.

        Args:
            snapshot: a snapshot loaded with ``load_snapshot``.

        Returns:
            The tree, its ``zxid`` the snapshot's (0 when unknown).
        """
        tree = cls(snapshot.summary.zxid or 0)
        tree.nodes = {}
        for node in snapshot.nodes.values():
            tree._put(node.path, _Node(node.data, snapshot.acl(node.acl_ref), node.stat))
        tree.sessions = dict(snapshot.sessions)
        return tree

    def _put(self, path: str, node: _Node) -> None:
        self.nodes[path] = node
        owner = ephemeral_session(node.ephemeral_owner)
        if owner is not None:
            self._ephemerals.setdefault(owner, set()).add(path)

    def get(self, path: str) -> NodeState | None:
        """A node's current data and stat, None when absent."""
        node = self.nodes.get(path)
        if node is None:
            return None
        return NodeState(node.data, node.stat(), node.acl)

    def ephemerals(self, session_id: int) -> tuple[str, ...]:
        """Paths of the session's ephemeral znodes, sorted."""
        return tuple(sorted(self._ephemerals.get(session_id, ())))

    def apply(self, header: TxnHeader, record: TxnRecord) -> list[TreeChange]:
        """Apply one transaction.

        Args:
            header: the txn header.
            record: its record.

        Returns:
            The znode changes it made, in order (session bookkeeping gives none).
        """
        changes: list[TreeChange] = []
        op = header.type
        if op == OpCode.multi and isinstance(record, MultiTxn):
            if not record.failed:
                for index, sub in enumerate(record.txns):
                    self._apply_one(header, sub.type, sub.record, index, changes)
        else:
            self._apply_one(header, op, record, None, changes)
        if header.zxid > self.zxid:
            self.zxid = header.zxid
        return changes

    def _apply_one(
        self,
        header: TxnHeader,
        op: int,
        record: TxnRecord,
        index: int | None,
        out: list[TreeChange],
    ) -> None:
        if isinstance(record, (CreateTxn, CreateContainerTxn, CreateTTLTxn)):
            if isinstance(record, CreateTxn):
                owner = header.session_id if record.ephemeral else 0
            elif isinstance(record, CreateContainerTxn):
                owner = CONTAINER_EPHEMERAL_OWNER
            else:
                owner = _signed(TTL_MASK | record.ttl)
            out.append(self._create(header, op, record, owner, index))
        elif isinstance(record, DeleteTxn):
            out.append(self._delete(header.zxid, record.path, index, ChangeCause.write))
        elif isinstance(record, SetDataTxn):
            out.append(self._set_data(header, record, "setData", index))
        elif isinstance(record, SetACLTxn):
            node = self.nodes.get(record.path)
            before = self.get(record.path)
            if node is not None:
                node.acl = record.acl
                node.aversion = record.version
            out.append(
                TreeChange(
                    "setACL",
                    record.path,
                    before,
                    self.get(record.path),
                    index,
                    ChangeCause.write,
                    node is not None,
                )
            )
        elif isinstance(record, CreateSessionTxn):
            self.sessions[header.session_id] = record.timeout
        elif op == OpCode.closeSession and (record is None or isinstance(record, CloseSessionTxn)):
            session = header.session_id
            cause = ChangeCause.session_expired if header.cxid == 0 else ChangeCause.session_closed
            listed = record.paths if isinstance(record, CloseSessionTxn) else None
            paths = listed if listed is not None else self.ephemerals(session)
            for path in paths:
                out.append(self._delete(header.zxid, path, index, cause))
            self.sessions.pop(session, None)
            self._ephemerals.pop(session, None)
        elif isinstance(record, CheckVersionTxn):
            return

    def _create(
        self,
        header: TxnHeader,
        op: int,
        record: CreateTxn | CreateContainerTxn | CreateTTLTxn,
        owner: int,
        index: int | None,
    ) -> TreeChange:
        path = record.path
        parent_path = _parent(path)
        parent = self.nodes.get(parent_path)
        zxid, time = header.zxid, header.time
        stat = Stat(zxid, zxid, time, time, 0, 0, 0, owner, zxid)
        after = NodeState(record.data, stat, record.acl)
        if parent is None or path in self.nodes:
            # ZooKeeper's restore from a fuzzy snapshot: a plain create that finds its node
            # (NODEEXISTS) still gives the parent the txn's cversion and pzxid
            if parent is not None and op == OpCode.create:
                _raise_cversion(parent, record.parent_cversion, zxid)
            return TreeChange("create", path, None, after, index, ChangeCause.write, False)
        _raise_cversion(parent, record.parent_cversion, zxid)
        self._put(path, _Node(record.data, record.acl, stat))
        return TreeChange("create", path, None, after, index, ChangeCause.write, True)

    def _delete(self, zxid: int, path: str, index: int | None, cause: ChangeCause) -> TreeChange:
        node = self.nodes.pop(path, None)
        if node is None:
            return TreeChange("delete", path, None, None, index, cause, False)
        before = NodeState(node.data, node.stat(), node.acl)
        parent = self.nodes.get(_parent(path))
        if parent is not None and zxid > parent.pzxid:
            parent.pzxid = zxid
        owner = ephemeral_session(node.ephemeral_owner)
        if owner is not None:
            self._ephemerals.get(owner, set()).discard(path)
        return TreeChange("delete", path, before, None, index, cause, True)

    def _set_data(
        self, header: TxnHeader, record: SetDataTxn, op: str, index: int | None
    ) -> TreeChange:
        node = self.nodes.get(record.path)
        if node is None:
            return TreeChange(op, record.path, None, None, index, ChangeCause.write, False)
        before = NodeState(node.data, node.stat(), node.acl)
        node.data = record.data
        # A lossy text dump can lose the version; ZooKeeper always writes current + 1.
        node.version = record.version if record.version is not None else node.version + 1
        node.mzxid = header.zxid
        node.mtime = header.time
        after = NodeState(node.data, node.stat(), node.acl)
        return TreeChange(op, record.path, before, after, index, ChangeCause.write, True)

    def snapshot_view(self) -> dict[str, NodeState]:
        """Every node's state (for comparisons with a later snapshot)."""
        return {path: NodeState(n.data, n.stat(), n.acl) for path, n in self.nodes.items()}


def _raise_cversion(parent: _Node, cversion: int, zxid: int) -> None:
    """``DataTree.setCversionPzxid``: -1 means one more than now; never lowers it."""
    if cversion == -1:
        cversion = parent.cversion + 1
    if cversion > parent.cversion:
        parent.cversion = cversion
        parent.pzxid = zxid


def _parent(path: str) -> str:
    head = path.rsplit("/", 1)[0]
    return head or "/"


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


PARTITION_STATE_COLUMNS = (
    "leader",
    "leader_epoch",
    "isr",
    "controller_epoch",
    "leader_recovery_state",
)
"""The columns a partition-state znode's value is spread into (null for any other znode)."""


def _partition_fields(record: KafkaZNode | None) -> dict[str, Any]:
    if isinstance(record, PartitionStateRecord):
        return {
            "leader": record.leader,
            "leader_epoch": record.leader_epoch,
            "isr": list(record.isr),
            "controller_epoch": record.controller_epoch,
            "leader_recovery_state": record.leader_recovery_state.value,
        }
    return dict.fromkeys(PARTITION_STATE_COLUMNS)


@dataclass(frozen=True, slots=True)
class ZkStateRow:
    """One Kafka znode of a snapshot, decoded (a ``silver.zk_state`` row).

    Attributes:
        file: the snapshot file.
        snapshot_zxid: the snapshot's zxid.
        path: the znode.
        kind: which Kafka znode.
        topic: for topic-scoped znodes.
        partition: for partition state.
        broker_id: for registrations and broker configs.
        czxid: creation zxid (a registration's broker epoch).
        mzxid: last-modification zxid.
        ctime: creation time, ms.
        mtime: last-modification time, ms.
        data_version: the znode's data version (a partition's zkVersion).
        ephemeral_owner: the owning session of an ephemeral znode.
        record: the decoded value (``MalformedZNode`` with a reason when it did not decode).
    """

    file: str
    snapshot_zxid: int | None
    path: str
    kind: ZNodeKind
    topic: str | None
    partition: int | None
    broker_id: int | None
    czxid: int
    mzxid: int
    ctime: int
    mtime: int
    data_version: int
    ephemeral_owner: int | None
    record: KafkaZNode

    @property
    def reason(self) -> str | None:
        """Why the payload did not decode, None when it did."""
        return self.record.reason if isinstance(self.record, MalformedZNode) else None

    def to_row(self) -> dict[str, Any]:
        """Flat, JSON-able columns (the record as ``payload`` JSON, partition state spread)."""
        row: dict[str, Any] = {
            "file": self.file,
            "snapshot_zxid": self.snapshot_zxid,
            "path": self.path,
            "kind": self.kind.value,
            "topic": self.topic,
            "partition": self.partition,
            "broker_id": self.broker_id,
            "czxid": self.czxid,
            "mzxid": self.mzxid,
            "ctime": self.ctime,
            "mtime": self.mtime,
            "data_version": self.data_version,
            "ephemeral_owner": self.ephemeral_owner,
            "payload": record_to_json(self.record),
            "malformed_reason": self.reason,
        }
        row.update(_partition_fields(self.record))
        return row


def state_row(
    file: str, snapshot_zxid: int | None, node: SnapshotNode, chroot: str = ""
) -> ZkStateRow | None:
    """Decode one snapshot node into a state row; None when it is not a Kafka znode.

    Args:
        file: the snapshot file.
        snapshot_zxid: its zxid.
        node: the node.
        chroot: Kafka's chroot.

    Returns:
        The row or None.
    """
    where = classify_path(node.path, chroot)
    if where is None:
        return None
    stat = node.stat
    owner = stat.ephemeral_session
    record = decode_znode(
        node.path,
        node.data,
        zk_version=stat.version,
        czxid=stat.czxid,
        ephemeral_owner=owner,
        where=where,
    )
    if record is None:
        return None
    return ZkStateRow(
        file=file,
        snapshot_zxid=snapshot_zxid,
        path=node.path,
        kind=where.kind,
        topic=where.topic,
        partition=where.partition,
        broker_id=where.broker_id,
        czxid=stat.czxid,
        mzxid=stat.mzxid,
        ctime=stat.ctime,
        mtime=stat.mtime,
        data_version=stat.version,
        ephemeral_owner=owner,
        record=record,
    )


def state_rows(source: SnapshotReader | Snapshot, chroot: str = "") -> Iterator[ZkStateRow]:
    """Every Kafka znode of a snapshot as a ``silver.zk_state`` row, streamed.

    Args:
        source: a streaming reader (consumed) or a loaded snapshot.
        chroot: Kafka's chroot.

    Yields:
        Rows in file order.
    """
    if isinstance(source, Snapshot):
        file, zxid = source.summary.file, source.summary.zxid
        nodes: Iterable[SnapshotNode] = source.nodes.values()
    else:
        file, zxid, nodes = source.file, source.summary.zxid, source
    for node in nodes:
        row = state_row(file, zxid, node, chroot)
        if row is not None:
            yield row


@dataclass(frozen=True, slots=True)
class ZkChange:
    """One Kafka-relevant change from a transaction log (a ``silver.zk_changes`` row).

    Attributes:
        file: the log file.
        offset: the entry's byte offset in it.
        zxid: the txn's zxid.
        time: the txn's time, ms (the leader's clock).
        session_id: the session that issued the txn.
        cxid: the client's xid (0 for server-initiated txns such as session expiry).
        op: ``create``, ``setData``, ``delete``, ``createSession``, ``closeSession``.
        multi_index: the op's position inside a multi, None otherwise.
        path: the znode (None for session rows).
        kind: which Kafka znode (None for session rows).
        topic: for topic-scoped znodes.
        partition: for partition state.
        broker_id: for registrations and broker configs.
        data_version: the znode's data version after the change (None after a delete).
        record: the decoded new value (None for deletes and session rows).
        previous: the decoded value before, when known (from the tree).
        cause: write, session_closed or session_expired.
        session_timeout: the negotiated timeout of a createSession.
    """

    file: str
    offset: int
    zxid: int
    time: int
    session_id: int
    cxid: int
    op: str
    multi_index: int | None
    path: str | None
    kind: ZNodeKind | None
    topic: str | None
    partition: int | None
    broker_id: int | None
    data_version: int | None
    record: KafkaZNode | None
    previous: KafkaZNode | None
    cause: ChangeCause
    session_timeout: int | None = None

    def to_row(self) -> dict[str, Any]:
        """Flat, JSON-able columns (records as JSON, the new partition state spread)."""
        row: dict[str, Any] = {
            "file": self.file,
            "offset": self.offset,
            "zxid": self.zxid,
            "time": self.time,
            "session_id": self.session_id,
            "cxid": self.cxid,
            "op": self.op,
            "multi_index": self.multi_index,
            "path": self.path,
            "kind": None if self.kind is None else self.kind.value,
            "topic": self.topic,
            "partition": self.partition,
            "broker_id": self.broker_id,
            "data_version": self.data_version,
            "payload": None if self.record is None else record_to_json(self.record),
            "previous_payload": None if self.previous is None else record_to_json(self.previous),
            "malformed_reason": self.record.reason
            if isinstance(self.record, MalformedZNode)
            else None,
            "cause": self.cause.value,
            "session_timeout": self.session_timeout,
        }
        row.update(_partition_fields(self.record))
        return row


class KafkaReplay:
    """Turn transactions into Kafka change rows, keeping a ``ZkTree`` when a base is known.

    Without a base snapshot (``tree`` None) rows still carry everything the txn itself holds
    (a setData's new version is in the txn); only ``previous`` values and the ephemerals of
    a pre-3.6 closeSession need the tree.
    """

    def __init__(self, tree: ZkTree | None = None, chroot: str = "") -> None:
        """Start from ``tree`` (None: no base).

        Args:
            tree: the state to apply txns to.
            chroot: Kafka's chroot.
        """
        self.tree = tree
        self.chroot = chroot
        self._scratch = _ScratchTree()

    def apply(self, entry: TxnEntry, file: str) -> list[ZkChange]:
        """Apply one log entry and return its Kafka-relevant changes.

        Args:
            entry: the decoded entry.
            file: the log file it came from.

        Returns:
            Change rows in order: session rows, then znode changes.
        """
        header = entry.header
        tree = self.tree
        tree_changes = tree.apply(header, entry.record) if tree is not None else None
        if tree_changes is None:
            self._scratch.nodes.clear()  # one txn at a time: nothing known beyond it
            tree_changes = self._scratch.apply(header, entry.record)
        rows: list[ZkChange] = []
        op = header.type
        if op == OpCode.createSession:
            timeout = entry.record.timeout if isinstance(entry.record, CreateSessionTxn) else None
            rows.append(self._session_row(entry, file, "createSession", ChangeCause.write, timeout))
        elif op == OpCode.closeSession:
            cause = ChangeCause.session_expired if header.cxid == 0 else ChangeCause.session_closed
            rows.append(self._session_row(entry, file, "closeSession", cause, None))
        for change in tree_changes:
            row = self._znode_row(entry, file, change)
            if row is not None:
                rows.append(row)
        return rows

    def _session_row(
        self, entry: TxnEntry, file: str, op: str, cause: ChangeCause, timeout: int | None
    ) -> ZkChange:
        h = entry.header
        return ZkChange(
            file,
            entry.offset,
            h.zxid,
            h.time,
            h.session_id,
            h.cxid,
            op,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            cause,
            timeout,
        )

    def _znode_row(self, entry: TxnEntry, file: str, change: TreeChange) -> ZkChange | None:
        if change.op == "setACL":
            return None  # ACL changes are not Kafka state (bronze keeps them)
        where = classify_path(change.path, self.chroot)
        if where is None:
            return None
        h = entry.header
        record = _decode_state(change.path, change.after, where)
        previous = _decode_state(change.path, change.before, where)
        version = change.after.stat.version if change.after is not None else None
        if version is not None and version < 0:
            version = None  # a lossy text dump lost it and no tree knew it
        return ZkChange(
            file=file,
            offset=entry.offset,
            zxid=h.zxid,
            time=h.time,
            session_id=h.session_id,
            cxid=h.cxid,
            op=change.op,
            multi_index=change.multi_index,
            path=change.path,
            kind=where.kind,
            topic=where.topic,
            partition=where.partition,
            broker_id=where.broker_id,
            data_version=version,
            record=record,
            previous=previous,
            cause=change.cause,
        )


def _decode_state(path: str, state: NodeState | None, where: ZNodePath) -> KafkaZNode | None:
    if state is None:
        return None
    stat = state.stat
    return decode_znode(
        path,
        state.data,
        zk_version=stat.version if stat.version >= 0 else None,
        czxid=stat.czxid,
        ephemeral_owner=stat.ephemeral_session,
        where=where,
    )


class _ScratchTree(ZkTree):
    """A tree that accepts every op (parents and nodes are assumed to exist as needed)."""

    def __init__(self) -> None:
        self.nodes: dict[str, _Node] = {}
        self.sessions: dict[int, int] = {}
        self._ephemerals: dict[int, set[str]] = {}
        self.zxid = 0

    def _create(
        self,
        header: TxnHeader,
        op: int,
        record: CreateTxn | CreateContainerTxn | CreateTTLTxn,
        owner: int,
        index: int | None,
    ) -> TreeChange:
        zxid, time = header.zxid, header.time
        stat = Stat(zxid, zxid, time, time, 0, 0, 0, owner, zxid)
        node = _Node(record.data, record.acl, stat)
        self.nodes[record.path] = node
        return TreeChange(
            "create",
            record.path,
            None,
            NodeState(record.data, stat, record.acl),
            index,
            ChangeCause.write,
            True,
        )

    def _delete(self, zxid: int, path: str, index: int | None, cause: ChangeCause) -> TreeChange:
        self.nodes.pop(path, None)
        return TreeChange("delete", path, None, None, index, cause, True)

    def _set_data(
        self, header: TxnHeader, record: SetDataTxn, op: str, index: int | None
    ) -> TreeChange:
        node = self.nodes.get(record.path)
        version = record.version
        if version is None:
            version = node.version + 1 if node is not None else -1
        ctime = node.ctime if node is not None else 0
        czxid = node.czxid if node is not None else 0
        owner = node.ephemeral_owner if node is not None else 0
        stat = Stat(czxid, header.zxid, ctime, header.time, version, 0, 0, owner, 0)
        self.nodes[record.path] = _Node(record.data, None, stat)
        after = NodeState(record.data, stat, None)
        return TreeChange(op, record.path, None, after, index, ChangeCause.write, True)


@dataclass(frozen=True, slots=True)
class BrokerInterval:
    """A span during which a broker was registered in ZooKeeper (its ephemeral existed).

    Attributes:
        broker_id: the broker.
        session_id: the broker's ZooKeeper session (the znode's ephemeral owner).
        start_zxid: the registration's creation zxid (Kafka's broker epoch).
        start_time: its creation time, ms.
        end_zxid: the zxid that removed it; None while still registered at the end of data.
        end_time: that txn's time, ms.
        end_cause: write (deregistered by a delete), session_closed (clean shutdown) or
            session_expired (the broker stopped heart-beating: crash, pause, partition).
        registration: the registration payload.
    """

    broker_id: int
    session_id: int | None
    start_zxid: int | None
    start_time: int | None
    end_zxid: int | None
    end_time: int | None
    end_cause: ChangeCause | None
    registration: BrokerRegistration | None


def broker_liveness(
    initial: Iterable[ZkStateRow],
    changes: Iterable[ZkChange],
    base_zxid: int | None = None,
) -> list[BrokerInterval]:
    """Per-broker registration intervals from a snapshot's state and the change stream.

    Args:
        initial: state rows of the base snapshot (its registered brokers open intervals).
        changes: change rows (sorted here by zxid).
        base_zxid: the base snapshot's zxid: changes up to it happened before ``initial``.

    Returns:
        Intervals ordered by broker, then start zxid; still-open ones last per broker.
    """
    open_: dict[int, _Open] = {}
    done: list[BrokerInterval] = []

    closed_at: dict[int, int] = {}

    def end(broker: int, zxid: int, time: int, cause: ChangeCause) -> None:
        state = open_.pop(broker, None)
        if state is not None:
            done.append(state.close(broker, zxid, time, cause))
            closed_at[broker] = zxid

    def apply_initial() -> None:
        for row in initial:
            if row.kind is ZNodeKind.broker and row.broker_id is not None:
                current = open_.get(row.broker_id)
                if current is not None and current.session == row.ephemeral_owner:
                    continue
                reg = row.record if isinstance(row.record, BrokerRegistration) else None
                open_[row.broker_id] = _Open(row.ephemeral_owner, row.czxid, row.ctime, reg)

    ordered = sorted(
        changes, key=lambda c: (c.zxid, -1 if c.multi_index is None else c.multi_index)
    )
    initial_done = False
    for change in ordered:
        if not initial_done and (base_zxid is None or change.zxid > base_zxid):
            apply_initial()
            initial_done = True
        if change.kind is ZNodeKind.broker and change.broker_id is not None:
            if change.op == "create" and change.broker_id not in open_:
                reg = change.record if isinstance(change.record, BrokerRegistration) else None
                session = reg.session_id if reg is not None else change.session_id
                open_[change.broker_id] = _Open(session, change.zxid, change.time, reg)
            elif change.op == "delete":
                if closed_at.get(change.broker_id) == change.zxid:
                    continue  # already ended by the closeSession row of the same txn
                if change.broker_id not in open_:
                    # registered before the data starts: the end is known, the start is not
                    prev = (
                        change.previous if isinstance(change.previous, BrokerRegistration) else None
                    )
                    open_[change.broker_id] = _Open(
                        prev.session_id if prev is not None else None, None, None, prev
                    )
                end(change.broker_id, change.zxid, change.time, change.cause)
        elif change.op == "closeSession":
            for broker, state in list(open_.items()):
                if state.session == change.session_id:
                    end(broker, change.zxid, change.time, change.cause)
    if not initial_done:
        apply_initial()
    for broker, state in open_.items():
        done.append(
            BrokerInterval(
                broker, state.session, state.zxid, state.time, None, None, None, state.reg
            )
        )
    done.sort(key=lambda i: (i.broker_id, i.end_zxid is None, i.start_zxid or 0))
    return done


@dataclass(slots=True)
class _Open:
    session: int | None
    zxid: int | None
    time: int | None
    reg: BrokerRegistration | None

    def close(self, broker: int, zxid: int, time: int, cause: ChangeCause) -> BrokerInterval:
        return BrokerInterval(
            broker, self.session, self.zxid, self.time, zxid, time, cause, self.reg
        )
