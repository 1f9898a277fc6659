"""Raw dataDir records, one per snapshot znode, txn and multi sub-op (``bronze.zk_records`` rows).

Everything a file holds, Kafka-relevant or not, keyed by file and offset so nothing is lost
before the silver decoding: ``snapshot_records`` streams a snapshot's znodes, ``txn_records``
the transactions of a log (a multi gives one row for itself and one per sub-op). Fields that
only some records have (error code, session timeout, ACLs, the paths a closeSession removed)
go into ``detail`` as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields
from typing import Any

from kafkactl_core.zk import jute
from kafkactl_core.zk.snapshot import Snapshot, SnapshotNode, SnapshotReader
from kafkactl_core.zk.textdump import SnapshotDump
from kafkactl_core.zk.txnlog import TxnEntry


@dataclass(frozen=True, slots=True)
class ZkRecord:
    """One raw record of a dataDir file.

    Attributes:
        file: the file.
        offset: byte offset of the node or txn entry (line number for text dumps).
        kind: ``znode`` (a snapshot node), ``txn`` or ``sub_txn`` (an op inside a multi).
        zxid: the txn's zxid; for a znode, the snapshot's zxid.
        time: the txn's time (ms); for a znode, its mtime.
        op: the op name (``setData``, ``multi`` …); None for znodes.
        path: the znode the record is about, when it has one.
        data: the znode data written or held.
        version: data version: a znode's, the one a setData produced, 0 for creates.
        session: the txn's session; for a znode, its ephemeral owner (None if persistent).
        cxid: the client xid of a txn.
        multi_index: position of a sub-op in its multi.
        detail: JSON with what else the record holds (ACLs, error code, timeout, paths …).
    """

    file: str
    offset: int
    kind: str
    zxid: int | None
    time: int | None
    op: str | None
    path: str | None
    data: bytes | None
    version: int | None
    session: int | None
    cxid: int | None
    multi_index: int | None
    detail: str | None

    def to_row(self) -> dict[str, Any]:
        """Flat columns (the dataclass fields)."""
        return {field.name: getattr(self, field.name) for field in fields(self)}


def snapshot_records(source: SnapshotReader | Snapshot | SnapshotDump) -> Iterator[ZkRecord]:
    """Every znode of a snapshot as a raw record, streamed.

    Args:
        source: a streaming reader (consumed), a loaded snapshot, or a parsed
            ``SnapshotFormatter`` dump (whose ACLs are not printed: ``acl`` is null).

    Yields:
        One record per znode; ``detail`` holds the rest of the stat and the ACL.
    """
    nodes: Iterable[SnapshotNode]
    acl_of: Callable[[int], tuple[jute.Acl, ...] | None]
    if isinstance(source, SnapshotDump):
        file, zxid, nodes = source.summary.file, source.summary.zxid, source.nodes.values()
        acl_of = _no_acl
    elif isinstance(source, Snapshot):
        file, zxid, nodes, acl_of = (
            source.summary.file,
            source.summary.zxid,
            source.nodes.values(),
            source.acl,
        )
    else:
        file, zxid, nodes, acl_of = source.file, source.summary.zxid, source, source.acl
    for node in nodes:
        s = node.stat
        detail = {
            "czxid": s.czxid,
            "mzxid": s.mzxid,
            "ctime": s.ctime,
            "cversion": s.cversion,
            "aversion": s.aversion,
            "pzxid": s.pzxid,
            "ephemeral_owner": s.ephemeral_owner,
            "acl": _acls(acl_of(node.acl_ref)),
        }
        yield ZkRecord(
            file=file,
            offset=node.offset,
            kind="znode",
            zxid=zxid,
            time=s.mtime,
            op=None,
            path=node.path,
            data=node.data,
            version=s.version,
            session=s.ephemeral_session,
            cxid=None,
            multi_index=None,
            detail=json.dumps(detail, separators=(",", ":")),
        )


def txn_records(entries: Iterable[TxnEntry], file: str) -> Iterator[ZkRecord]:
    """Every transaction as raw records (a multi: itself, then one per sub-op).

    Args:
        entries: a ``TxnLogReader`` or parsed dump entries.
        file: the file they come from.

    Yields:
        The records in file order.
    """
    for entry in entries:
        h = entry.header
        record = entry.record
        path, data, version, detail = _fields(record)
        if isinstance(record, jute.MultiTxn):
            detail = json.dumps({"ops": len(record.txns), "failed": record.failed})
        yield ZkRecord(
            file,
            entry.offset,
            "txn",
            h.zxid,
            h.time,
            jute.op_name(h.type),
            path,
            data,
            version,
            h.session_id,
            h.cxid,
            None,
            detail,
        )
        if isinstance(record, jute.MultiTxn):
            for index, sub in enumerate(record.txns):
                path, data, version, detail = _fields(sub.record)
                yield ZkRecord(
                    file,
                    entry.offset,
                    "sub_txn",
                    h.zxid,
                    h.time,
                    jute.op_name(sub.type),
                    path,
                    data,
                    version,
                    h.session_id,
                    h.cxid,
                    index,
                    detail,
                )


def _no_acl(_ref: int) -> None:
    return None


def _acls(acls: tuple[jute.Acl, ...] | None) -> list[str] | None:
    if acls is None:
        return None
    return [f"{a.scheme}:{a.id}:{a.perms}" for a in acls]


def _fields(record: jute.TxnRecord) -> tuple[str | None, bytes | None, int | None, str | None]:
    """(path, data, resulting version, detail JSON) of a txn record."""

    def js(value: dict[str, Any]) -> str:
        return json.dumps(value, separators=(",", ":"))

    if isinstance(record, jute.CreateTxn):
        return (
            record.path,
            record.data,
            0,
            js(
                {
                    "ephemeral": record.ephemeral,
                    "parent_cversion": record.parent_cversion,
                    "acl": _acls(record.acl),
                }
            ),
        )
    if isinstance(record, (jute.CreateContainerTxn, jute.CreateTTLTxn)):
        extra: dict[str, Any] = {"parent_cversion": record.parent_cversion}
        if isinstance(record, jute.CreateTTLTxn):
            extra["ttl"] = record.ttl
        extra["acl"] = _acls(record.acl)
        return record.path, record.data, 0, js(extra)
    if isinstance(record, jute.SetDataTxn):
        return record.path, record.data, record.version, None
    if isinstance(record, jute.DeleteTxn):
        return record.path, None, None, None
    if isinstance(record, jute.CheckVersionTxn):
        return record.path, None, None, js({"checked_version": record.version})
    if isinstance(record, jute.SetACLTxn):
        return record.path, None, None, js({"acl": _acls(record.acl), "aversion": record.version})
    if isinstance(record, jute.CreateSessionTxn):
        return None, None, None, js({"timeout": record.timeout})
    if isinstance(record, jute.CloseSessionTxn):
        paths = None if record.paths is None else list(record.paths)
        return None, None, None, js({"ephemerals": paths})
    if isinstance(record, jute.ErrorTxn):
        return None, None, None, js({"err": record.err})
    if isinstance(record, jute.UnknownTxn):
        return None, record.raw, None, js({"type": record.type, "reason": record.reason})
    return None, None, None, None
