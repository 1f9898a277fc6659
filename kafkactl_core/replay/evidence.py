"""The normalized evidence record the replay fold consumes: one fact about one partition.

Every source (controller.log, state-change.log, server.log, ZooKeeper snapshots and transaction
logs, KRaft controller logs) is normalized into ``PartitionEvidence``: which partition, when
(UTC milliseconds), from which source and where exactly (``ref``: ``file:line`` or a zxid), what
kind of fact (``Fact``) and its values. Values a source does not carry are ``None`` (an empty ISR
captured from a log line is ``None`` too: Kafka renders an absent list and an empty one alike).

Records are slotted and mutable only while a normalizer fills them; the fold never changes them.
``to_row``/``from_row`` move them through Arrow (``EVIDENCE_COLUMNS`` gives the column types) and
``order_key`` is the sort the Spark job applies within a partition (see ``fold`` for why a time
order is enough although clocks are not monotonic: the fold re-attributes by leader epoch).
"""

from __future__ import annotations

import enum
import operator
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kafkactl_core.replay.values import as_bool, as_int, as_ints, as_str

__all__ = [
    "AUTHORITATIVE_FACTS",
    "EVIDENCE_COLUMNS",
    "EVIDENCE_SORT_COLUMNS",
    "EVIDENCE_VALUES",
    "KRAFT_SOURCES",
    "Fact",
    "PartitionEvidence",
    "Source",
]


class Source(enum.IntEnum):
    """Where a piece of evidence comes from; ``tie_rank`` orders sources at equal times."""

    zk_snapshot = 0
    zk_txn = 1
    controller_log = 2
    state_change_log = 3
    kraft_log = 4
    server_log = 5
    kraft_metadata = 6

    @property
    def tie_rank(self) -> int:
        """The rank that breaks ties at equal times (before the position in the source).

        ZooKeeper's snapshot rows and transactions share one: their position is a zxid, and a
        snapshot row is the znode as its last write (``mzxid``) left it, so it comes after the
        transactions before that write even when they were stamped in the same millisecond.
        """
        return int(Source.zk_snapshot) if self is Source.zk_txn else int(self)


class Fact(enum.IntEnum):
    """What a piece of partition evidence says."""

    leadership_written = 0
    """The controller wrote leader/ISR/epochs (ZooKeeper znode, state-change ``LeaderAndIsr``,
    pre-1.1 selector output, ISR removal by the controller, AlterPartition applied, KRaft
    partition change). Authoritative."""
    leadership_observed = 1
    """A copy of the leadership seen elsewhere (LeaderAndIsr/UpdateMetadata sent or received,
    a follower starting). Not authoritative: a stale copy is ignored."""
    leader_started = 2
    """A broker became leader at an epoch (server.log/state-change.log), with its offsets."""
    isr_changed = 3
    """A partition leader shrank, expanded or committed the ISR (broker side, epoch unchanged)."""
    partition_transition = 4
    """A PartitionStateMachine transition (with the new leadership when the line carries it)."""
    replica_transition = 5
    """A ReplicaStateMachine transition of one replica."""
    election_failed = 6
    """A transition to OnlinePartition failed: no leader could be elected."""
    transition_failed = 7
    """Another partition or replica state change failed (or was invalid)."""
    election_started = 8
    """The controller starts an election (the strategy, when logged, is in ``trigger``)."""
    leader_claimed = 9
    """A line names the new leader without its epoch (0.8-1.0 ``elected leader``, preferred
    election completed)."""
    no_live_isr = 10
    """0.8-1.0: no ISR member is alive; ``live_brokers`` lists the live assigned replicas."""
    unclean_warning = 11
    """An explicit unclean-election line (0.8-1.0 WARN, KRaft ``UNCLEAN partition change`` or
    ``using an unclean election``)."""
    assignment = 12
    """The partition's replica assignment (``seq``-independent rank in ``detail``)."""
    reassignment = 13
    """A reassignment step or request (target replicas in ``replicas``, step in ``detail``)."""
    preferred_requested = 14
    """A preferred election was requested for the partition (ZooKeeper admin path)."""
    new_partition = 15
    """The controller creates the partition (creation callback)."""
    deletion = 16
    """The partition (its topic) is being or was deleted."""
    recovered = 17
    """The leader finished KIP-704 recovery (RECOVERING -> RECOVERED)."""
    isr_retained = 18
    """The last ISR member was kept because unclean election is disabled (0.8.2-1.0)."""


KRAFT_SOURCES = frozenset({Source.kraft_log, Source.kraft_metadata})
"""The sources only a KRaft controller writes."""

AUTHORITATIVE_FACTS = frozenset({Fact.leadership_written})
"""Facts whose leadership values are the controller's own writes."""


@dataclass(slots=True)
class PartitionEvidence:
    """One fact about one partition, normalized from any source.

    Attributes:
        cluster: the cluster the evidence belongs to.
        topic: the topic.
        partition: the partition number.
        time_ms: UTC milliseconds since the epoch (the writer's clock), ``None`` if unknown.
        source: where it comes from.
        fact: what it says.
        ref: where exactly: ``file:line`` for logs, ``file:zxid=0x..`` for ZooKeeper.
        seq: position within the source (line number, zxid), the last sort tie-break.
        leader: leader broker id (-1 none, -2 deleting).
        leader_epoch: leader epoch.
        partition_epoch: ZooKeeper znode version (zkVersion) or KRaft partition epoch.
        isr: the in-sync replicas, in Kafka's order.
        previous_leader: the leader before the change, when the line says it.
        previous_leader_epoch: the leader epoch before the change, when the line says it.
        previous_isr: the ISR before the change, when the line says it.
        elr: the KRaft Eligible Leader Replicas after the change (metadata log).
        previous_elr: the KRaft Eligible Leader Replicas before the change (metadata log).
        previous_last_known_elr: the KRaft last known ELR before the change (metadata log).
        replicas: the assignment (or reassignment target for ``reassignment``).
        adding_replicas: replicas a reassignment adds.
        removing_replicas: replicas a reassignment removes.
        from_state: state-machine state before (``OnlinePartition``, ``OfflineReplica``, ...).
        to_state: state-machine state after.
        replica: the replica a replica-level fact is about.
        controller_id: the controller that acted or wrote.
        controller_epoch: its controller epoch.
        live_brokers: live brokers (or live assigned replicas) the line lists.
        trigger: an election trigger or strategy hint (``offline``, ``preferred``, ...).
        recovering: the leader recovery state is RECOVERING (``None`` unknown).
        high_watermark: the leader's high watermark, when logged.
        end_offset: the leader's log end offset, when logged.
        start_offset: the new leader's start offset of its epoch, when logged.
        broker: the broker that wrote a broker-side line.
        detail: extra text (reassignment phase, out-of-sync replica offsets, ...).
    """

    cluster: str
    topic: str
    partition: int
    time_ms: int | None
    source: Source
    fact: Fact
    ref: str
    seq: int = 0
    leader: int | None = None
    leader_epoch: int | None = None
    partition_epoch: int | None = None
    isr: tuple[int, ...] | None = None
    previous_leader: int | None = None
    previous_leader_epoch: int | None = None
    previous_isr: tuple[int, ...] | None = None
    elr: tuple[int, ...] | None = None
    previous_elr: tuple[int, ...] | None = None
    previous_last_known_elr: tuple[int, ...] | None = None
    replicas: tuple[int, ...] | None = None
    adding_replicas: tuple[int, ...] | None = None
    removing_replicas: tuple[int, ...] | None = None
    from_state: str | None = None
    to_state: str | None = None
    replica: int | None = None
    controller_id: int | None = None
    controller_epoch: int | None = None
    live_brokers: tuple[int, ...] | None = None
    trigger: str | None = None
    recovering: bool | None = None
    high_watermark: int | None = None
    end_offset: int | None = None
    start_offset: int | None = None
    broker: int | None = None
    detail: str | None = None

    def order_key(self) -> tuple[int, int, int, str]:
        """The within-partition sort: time, source rank, position in the source, ref.

        Returns:
            A key; unknown times sort first.
        """
        time = -1 if self.time_ms is None else self.time_ms
        return (time, self.source.tie_rank, self.seq, self.ref)

    def to_row(self) -> dict[str, Any]:
        """Plain column values for Arrow (``EVIDENCE_VALUES``, lists as lists)."""
        row = {name: value(self) for name, value in EVIDENCE_VALUES.items()}
        for name in _LIST_FIELDS:
            value = row[name]
            if value is not None:
                row[name] = list(value)
        return row

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> PartitionEvidence | None:
        """Rebuild a record from ``to_row`` columns (as read back from Arrow or pandas).

        Args:
            row: column -> value.

        Returns:
            The record, ``None`` when the identity columns are missing or not recognised.
        """
        topic = as_str(row.get("topic"))
        partition = as_int(row.get("partition"))
        source = _SOURCES.get(as_str(row.get("source")) or "")
        fact = _FACTS.get(as_str(row.get("fact")) or "")
        if topic is None or partition is None or source is None or fact is None:
            return None
        kwargs: dict[str, Any] = {}
        for name, kind in _COERCE.items():
            value = row.get(name)
            if kind == "int":
                kwargs[name] = as_int(value)
            elif kind == "ints":
                kwargs[name] = as_ints(value)
            elif kind == "bool":
                kwargs[name] = as_bool(value)
            else:
                kwargs[name] = as_str(value)
        return cls(
            cluster=as_str(row.get("cluster")) or "",
            topic=topic,
            partition=partition,
            time_ms=as_int(row.get("time_ms")),
            source=source,
            fact=fact,
            ref=as_str(row.get("ref")) or "",
            seq=as_int(row.get("seq")) or 0,
            **kwargs,
        )


_SOURCES = {member.name: member for member in Source}
_FACTS = {member.name: member for member in Fact}


def _source_name(record: PartitionEvidence) -> str:
    return record.source.name


def _source_rank(record: PartitionEvidence) -> int:
    return record.source.tie_rank


def _fact_name(record: PartitionEvidence) -> str:
    return record.fact.name


_LIST_FIELDS = tuple(
    name
    for name, hint in typing.get_type_hints(PartitionEvidence).items()
    if typing.get_origin(hint) is tuple
    or any(typing.get_origin(arg) is tuple for arg in typing.get_args(hint))
)

EVIDENCE_COLUMNS: Mapping[str, str] = {
    "cluster": "str",
    "topic": "str",
    "partition": "int",
    "time_ms": "int",
    "source": "str",
    "source_rank": "int",
    "fact": "str",
    "ref": "str",
    "seq": "int",
    "leader": "int",
    "leader_epoch": "int",
    "partition_epoch": "int",
    "isr": "ints",
    "previous_leader": "int",
    "previous_leader_epoch": "int",
    "previous_isr": "ints",
    "elr": "ints",
    "previous_elr": "ints",
    "previous_last_known_elr": "ints",
    "replicas": "ints",
    "adding_replicas": "ints",
    "removing_replicas": "ints",
    "from_state": "str",
    "to_state": "str",
    "replica": "int",
    "controller_id": "int",
    "controller_epoch": "int",
    "live_brokers": "ints",
    "trigger": "str",
    "recovering": "bool",
    "high_watermark": "int",
    "end_offset": "int",
    "start_offset": "int",
    "broker": "int",
    "detail": "str",
}
"""Column -> type (``str``, ``int`` 64-bit, ``ints`` list of 64-bit, ``bool``) of ``to_row``."""

_READ_BY_NAME: Mapping[str, Callable[[PartitionEvidence], Any]] = {
    "source": _source_name,
    "source_rank": _source_rank,
    "fact": _fact_name,
}
EVIDENCE_VALUES: Mapping[str, Callable[[PartitionEvidence], Any]] = {
    name: _READ_BY_NAME.get(name) or operator.attrgetter(name) for name in EVIDENCE_COLUMNS
}
"""Column (``EVIDENCE_COLUMNS``, in order) -> its value of a record: enum names as strings,
lists as tuples; ``to_row`` reads them, and a task reads each column of many records at once."""

_IDENTITY = (
    "cluster",
    "topic",
    "partition",
    "time_ms",
    "source",
    "source_rank",
    "fact",
    "ref",
    "seq",
)

EVIDENCE_SORT_COLUMNS = ("cluster", "topic", "partition", "time_ms", "source_rank", "seq", "ref")
"""The Spark job's repartition key (first three) and within-partition sort (``order_key``);
``time_ms`` nulls first."""
_COERCE = {name: kind for name, kind in EVIDENCE_COLUMNS.items() if name not in _IDENTITY}
