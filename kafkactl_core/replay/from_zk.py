"""Normalize one ``silver.zk_changes`` or ``silver.zk_state`` row into evidence and cluster facts.

Rows mirror ``kafkactl_core.zk.ZkChange.to_row`` / ``ZkStateRow.to_row`` (plus ``cluster``):
decoded partition state is spread into ``leader leader_epoch isr controller_epoch
leader_recovery_state`` columns, every other decoded znode is in ``payload`` (compact JSON of
the record). Columns read from a change row: ``cluster file zxid time session_id op path kind topic
partition broker_id data_version payload cause leader leader_epoch isr controller_epoch
leader_recovery_state malformed_reason``; from a state row: ``cluster file snapshot_zxid path kind
topic partition broker_id czxid mzxid ctime mtime data_version ephemeral_owner payload leader
leader_epoch isr controller_epoch leader_recovery_state malformed_reason``.

A partition-state znode write is the controller's (or, before 2.7, the partition leader's)
authoritative leadership; its data version is the partition epoch (zkVersion). Topic znodes
fan out into one assignment per partition; registrations, sessions, ``/controller``,
``/controller_epoch``, configs and admin paths become cluster facts. A snapshot row is the state
last written at its ``mtime``/``mzxid``, so a snapshot and the logs that cover the same write
give the same epoch and version (the fold merges them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from kafkactl_core.replay.evidence import Fact, PartitionEvidence, Source
from kafkactl_core.replay.facts import ClusterFact, ClusterFactKind
from kafkactl_core.replay.from_logs import Normalized
from kafkactl_core.replay.settings import CONFIG_KEYS
from kafkactl_core.replay.values import as_int, as_ints, as_str
from kafkactl_core.zk.state import PARTITION_STATE_COLUMNS

__all__ = [
    "ZK_CHANGE_COLUMNS",
    "ZK_STATE_COLUMNS",
    "normalize_zk_change",
    "normalize_zk_state",
]

ZK_CHANGE_COLUMNS = (
    "cluster",
    "file",
    "zxid",
    "time",
    "session_id",
    "op",
    "path",
    "kind",
    "topic",
    "partition",
    "broker_id",
    "data_version",
    "payload",
    "cause",
    *PARTITION_STATE_COLUMNS,
    "malformed_reason",
)
"""The ``silver.zk_changes`` columns the normalizer reads."""

ZK_STATE_COLUMNS = (
    "cluster",
    "file",
    "snapshot_zxid",
    "path",
    "kind",
    "topic",
    "partition",
    "broker_id",
    "czxid",
    "mzxid",
    "ctime",
    "mtime",
    "data_version",
    "ephemeral_owner",
    "payload",
    *PARTITION_STATE_COLUMNS,
    "malformed_reason",
)
"""The ``silver.zk_state`` columns the normalizer reads."""

_K = ClusterFactKind


class _Zk:
    """One ZooKeeper row being normalized."""

    __slots__ = ("cluster", "evidence", "facts", "ref", "row", "seq", "source", "time")

    def __init__(self, row: Mapping[str, Any], source: Source, time: int | None, zxid: int) -> None:
        self.row = row
        self.cluster = as_str(row.get("cluster")) or ""
        self.source = source
        self.time = time
        self.seq = zxid
        self.ref = f"{as_str(row.get('file')) or ''}:zxid=0x{zxid:x}"
        self.evidence: list[PartitionEvidence] = []
        self.facts: list[ClusterFact] = []

    def fact(self, kind: ClusterFactKind, **values: Any) -> None:
        self.facts.append(
            ClusterFact(self.cluster, self.time, self.source, kind, self.ref, self.seq, **values)
        )

    def note(self, detail: str) -> None:
        self.fact(_K.note, detail=detail)

    def emit(self, topic: str, partition: int, fact: Fact, **values: Any) -> None:
        self.evidence.append(
            PartitionEvidence(
                self.cluster,
                topic,
                partition,
                self.time,
                self.source,
                fact,
                self.ref,
                self.seq,
                **values,
            )
        )

    def payload(self) -> Any:
        text = as_str(self.row.get("payload"))
        if text is None:
            return None
        try:
            return json.loads(text)
        except ValueError:
            self.note(f"payload is not JSON: {text[:60]!r}")
            return None


def _partition_state(z: _Zk, deleted: bool, version: int | None) -> None:
    topic = as_str(z.row.get("topic"))
    partition = as_int(z.row.get("partition"))
    if topic is None or partition is None:
        z.note("partition state row without topic/partition")
        return
    if deleted:
        z.emit(topic, partition, Fact.deletion, detail="state_znode_deleted")
        return
    leader = as_int(z.row.get("leader"))
    epoch = as_int(z.row.get("leader_epoch"))
    if leader is None or epoch is None:
        reason = as_str(z.row.get("malformed_reason")) or "no leader/leader_epoch"
        z.note(f"partition state {topic}-{partition} unusable: {reason}")
        return
    recovery = as_int(z.row.get("leader_recovery_state"))
    z.emit(
        topic,
        partition,
        Fact.leadership_written,
        leader=leader,
        leader_epoch=epoch,
        partition_epoch=version,
        isr=as_ints(z.row.get("isr")),
        controller_epoch=as_int(z.row.get("controller_epoch")),
        recovering=None if recovery is None else recovery == 1,
        # Version 0 is the znode's first write: the controller creates the state znode only for
        # a new partition (its first leader), in a transaction or as a snapshot still shows it.
        trigger="new_partition" if version == 0 and epoch == 0 else None,
    )


def _replica_map(value: Any) -> dict[int, tuple[int, ...]]:
    out: dict[int, tuple[int, ...]] = {}
    for item in value or ():
        if isinstance(item, list) and len(item) == 2:
            partition, replicas = as_int(item[0]), as_ints(item[1])
            if partition is not None and replicas is not None:
                out[partition] = replicas
    return out


def _topic(z: _Zk, op: str | None) -> None:
    topic = as_str(z.row.get("topic"))
    if topic is None:
        z.note("topic znode row without topic")
        return
    if op == "delete":
        z.fact(_K.topic_deleted, topic=topic, detail="topic_znode_deleted")
        return
    payload = z.payload()
    if not isinstance(payload, dict):
        z.note(f"topic {topic}: undecodable assignment")
        return
    partitions = _replica_map(payload.get("partitions"))
    adding = _replica_map(payload.get("adding_replicas"))
    removing = _replica_map(payload.get("removing_replicas"))
    if op == "create":
        z.fact(_K.topic_created, topic=topic)
    z.fact(
        _K.topic_assignment,
        topic=topic,
        detail=json.dumps(
            {
                "partitions": {str(p): list(r) for p, r in partitions.items()},
                "adding": {str(p): list(r) for p, r in adding.items()},
                "removing": {str(p): list(r) for p, r in removing.items()},
            },
            separators=(",", ":"),
        ),
    )
    for partition, replicas in partitions.items():
        z.emit(
            topic,
            partition,
            Fact.assignment,
            replicas=replicas,
            adding_replicas=adding.get(partition, ()),
            removing_replicas=removing.get(partition, ()),
            detail="topic_znode",
        )


def _config(z: _Zk, deleted: bool) -> None:
    payload = None if deleted else z.payload()
    entity_type, entity_name, config = None, None, {}
    if isinstance(payload, dict):
        entity_type = as_str(payload.get("entity_type"))
        entity_name = as_str(payload.get("entity_name"))
        config = {str(k): str(v) for k, v in (payload.get("config") or ()) if k in CONFIG_KEYS}
    if entity_type is None:
        path = as_str(z.row.get("path")) or ""
        parts = path.rstrip("/").split("/")
        if len(parts) >= 2 and parts[-2] in ("topics", "brokers"):
            entity_type, entity_name = parts[-2], parts[-1]
    if entity_type == "topics":
        scope = "topic"
    elif entity_type == "brokers":
        scope = "broker_default" if entity_name == "<default>" else "broker"
    else:
        return  # users, clients, ips: nothing the replay honours
    for key in CONFIG_KEYS:
        z.fact(_K.config, scope=scope, name=entity_name, key=key, value=config.get(key))


def _broker(z: _Zk, deleted: bool, session: int | None, created: bool = False) -> None:
    """A registration written, created (``created``: the row's zxid is its creation's, the
    broker epoch) or deleted."""
    broker = as_int(z.row.get("broker_id"))
    if broker is None:
        z.note("broker registration row without broker id")
        return
    if deleted:
        z.fact(_K.broker_down, broker=broker, detail=as_str(z.row.get("cause")) or "deleted")
        return
    payload = z.payload()
    if isinstance(payload, dict):
        session = as_int(payload.get("session_id")) or session
    z.fact(_K.broker_up, broker=broker, epoch=z.seq if created else None, detail="registered")
    if session:
        z.fact(_K.session_registered, broker=broker, session=session)


def _admin_partitions(z: _Zk, fact: Fact) -> None:
    payload = z.payload()
    if not isinstance(payload, dict):
        return
    for item in payload.get("partitions") or ():
        if fact is Fact.reassignment and isinstance(item, list) and len(item) == 2:
            tp, replicas = item
            target = as_ints(replicas)
        else:
            tp, target = item, None
        if not isinstance(tp, dict):
            continue
        topic, partition = as_str(tp.get("topic")), as_int(tp.get("partition"))
        if topic is not None and partition is not None:
            detail = "requested" if fact is Fact.reassignment else "zk_admin"
            z.emit(topic, partition, fact, replicas=target, trigger="zk", detail=detail)


def _dispatch(z: _Zk, kind: str | None, op: str | None, version: int | None) -> None:
    deleted = op == "delete"
    if kind == "partition_state":
        _partition_state(z, deleted, version)
    elif kind == "topic":
        _topic(z, op)
    elif kind == "broker":
        _broker(z, deleted, None)
    elif kind == "controller":
        payload = None if deleted else z.payload()
        if deleted:
            z.fact(_K.controller, detail="resigned")
        elif isinstance(payload, dict):
            z.fact(_K.controller, controller_id=as_int(payload.get("broker_id")))
    elif kind == "controller_epoch":
        payload = None if deleted else z.payload()
        if isinstance(payload, dict) and as_int(payload.get("epoch")) is not None:
            z.fact(_K.controller_epoch, epoch=as_int(payload.get("epoch")))
    elif kind == "entity_config":
        _config(z, deleted)
    elif kind == "delete_topic" and op in ("create", "snapshot"):
        z.fact(_K.topic_deletion_started, topic=as_str(z.row.get("topic")))
    elif kind == "reassign_partitions" and not deleted:
        _admin_partitions(z, Fact.reassignment)
    elif kind == "preferred_replica_election" and op in ("create", "snapshot"):
        _admin_partitions(z, Fact.preferred_requested)
    elif kind == "log_dir_event" and not deleted:
        payload = z.payload()
        if isinstance(payload, dict):
            z.fact(_K.log_dir_failure, broker=as_int(payload.get("broker_id")))


def normalize_zk_change(row: Mapping[str, Any]) -> Normalized:
    """Partition evidence and cluster facts of one ``silver.zk_changes`` row.

    Args:
        row: column -> value (``ZK_CHANGE_COLUMNS`` are read).

    Returns:
        The evidence and facts (``time`` is the transaction's time, ``ref`` its file and
        zxid). Session rows give ``session_closed`` facts (the broker whose registration that
        session owned goes down, even without a base snapshot). Never raises.
    """
    zxid = as_int(row.get("zxid")) or 0
    z = _Zk(row, Source.zk_txn, as_int(row.get("time")), zxid)
    op = as_str(row.get("op"))
    try:
        if op == "closeSession":
            z.fact(
                _K.session_closed,
                session=as_int(row.get("session_id")),
                detail=as_str(row.get("cause")),
            )
        elif op == "create" and as_str(row.get("kind")) == "broker":
            _broker(z, False, as_int(row.get("session_id")), created=True)
        else:
            _dispatch(z, as_str(row.get("kind")), op, as_int(row.get("data_version")))
    except (TypeError, ValueError, AttributeError) as exc:
        z.evidence.clear()
        z.facts.clear()
        z.note(f"zk change: {type(exc).__name__}: {exc}")
    return Normalized(z.evidence, z.facts)


def normalize_zk_state(row: Mapping[str, Any]) -> Normalized:
    """Partition evidence and cluster facts of one ``silver.zk_state`` (snapshot) row.

    Args:
        row: column -> value (``ZK_STATE_COLUMNS`` are read).

    Returns:
        The evidence and facts, timed at the znode's last write (``mtime``; a registration at
        its creation, ``ctime``) with ``ref`` naming the snapshot file and ``mzxid``. Never
        raises.
    """
    kind = as_str(row.get("kind"))
    if kind in ("broker", "controller"):
        time, zxid = as_int(row.get("ctime")), as_int(row.get("czxid")) or 0
    else:
        time, zxid = as_int(row.get("mtime")), as_int(row.get("mzxid")) or 0
    z = _Zk(row, Source.zk_snapshot, time, zxid)
    try:
        if kind == "broker":
            _broker(z, False, as_int(row.get("ephemeral_owner")), created=True)
        else:
            _dispatch(z, kind, "snapshot", as_int(row.get("data_version")))
    except (TypeError, ValueError, AttributeError) as exc:
        z.evidence.clear()
        z.facts.clear()
        z.note(f"zk state: {type(exc).__name__}: {exc}")
    return Normalized(z.evidence, z.facts)
