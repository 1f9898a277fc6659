"""Cluster-level facts: what is true of the whole cluster at a moment, not of one partition.

Broker liveness and controlled-shutdown sets, controller changes and epochs, configuration
values (``unclean.leader.election.enable`` and the other keys the replay honours), topic
creation and deletion, whole-topic assignments, log-dir failures, KRaft change contexts and
ZooKeeper session ends. Normalizers emit them next to partition evidence; ``ClusterTimelines``
folds them into small time-indexed tables that the Spark job broadcasts.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kafkactl_core.replay.evidence import Source
from kafkactl_core.replay.values import as_int, as_ints, as_str

__all__ = [
    "CLUSTER_FACT_COLUMNS",
    "CLUSTER_FACT_VALUES",
    "STATIC_SCOPE",
    "ClusterFact",
    "ClusterFactKind",
]

STATIC_SCOPE = "broker_static"
"""The config fact scope of a broker's static configuration as it printed it (its name: the
broker id); ``ClusterTimelines`` consults it below every dynamic config."""


class ClusterFactKind(enum.IntEnum):
    """What a cluster fact says."""

    registered_set = 0
    """The complete set of registered brokers (``brokers``), e.g. a broker-change line."""
    live_set = 1
    """The complete set of live brokers excluding shutting-down ones (``brokers``)."""
    broker_up = 2
    """``broker`` registered / started / was unfenced (``detail``: how)."""
    broker_down = 3
    """``broker`` deregistered / failed / was fenced (``detail``: how, e.g. session_expired)."""
    shutting_down_set = 4
    """The complete set of brokers in controlled shutdown (``brokers``)."""
    shutting_down_add = 5
    """``broker`` entered controlled shutdown."""
    shutting_down_remove = 6
    """``brokers`` left the shutting-down set."""
    controller = 7
    """``controller_id`` became (or was seen as) the active controller at ``epoch``."""
    controller_epoch = 8
    """The controller epoch became ``epoch`` (``controller_id`` when known)."""
    config = 9
    """``key`` = ``value`` for ``scope`` (topic / broker / broker_default / broker_static: a
    broker's static config as it printed it) ``name``; ``value`` None = deleted."""
    topic_created = 10
    """``topic`` was created (``value``: its topic ID, KRaft)."""
    topic_deleted = 11
    """``topic`` was deleted, or its deletion completed (``value``: its topic ID, KRaft)."""
    topic_deletion_started = 12
    """``topic`` was queued for deletion."""
    topic_assignment = 13
    """``topic``'s whole assignment (``detail``: ``p:r,r;p:r,r``)."""
    log_dir_failure = 14
    """``broker`` lost a log dir (the partitions on it, as ``t-p`` names, in ``detail``)."""
    kraft_context = 15
    """A KRaft controller changes partitions for a reason (``detail``), about ``broker``."""
    session_registered = 16
    """ZooKeeper ``session`` belongs to ``broker`` (its registration's owner)."""
    session_closed = 17
    """ZooKeeper ``session`` closed or expired (``detail``: the cause)."""
    note = 18
    """A record the normalizer could not fully use (``detail`` says why): becomes an anomaly."""
    records_missing = 19
    """Records of an authoritative log are missing (``detail``: which): a ``log_gap`` anomaly."""


@dataclass(slots=True)
class ClusterFact:
    """One cluster-level fact.

    Attributes:
        cluster: the cluster.
        time_ms: UTC milliseconds since the epoch, ``None`` if unknown.
        source: where it comes from.
        kind: what it says.
        ref: ``file:line`` or ``file:zxid=0x..``.
        seq: position within the source (tie-break).
        broker: the broker it is about.
        brokers: a broker set it lists.
        controller_id: a controller id.
        epoch: a controller epoch (ZooKeeper controller epoch or KRaft quorum epoch); for
            ``broker_up`` and ``broker_down``, the broker epoch of the registration when the
            evidence gives it (ZooKeeper: the registration's creation zxid; KRaft: its
            ``brokerEpoch``).
        topic: a topic.
        scope: a config scope: ``topic``, ``broker``, ``broker_default``, ``broker_static``.
        name: the config entity (topic name or broker id as text).
        key: a config key.
        value: a config value (``None``: removed).
        session: a ZooKeeper session id.
        detail: free text (reason, assignment, cause).
    """

    cluster: str
    time_ms: int | None
    source: Source
    kind: ClusterFactKind
    ref: str
    seq: int = 0
    broker: int | None = None
    brokers: tuple[int, ...] | None = None
    controller_id: int | None = None
    epoch: int | None = None
    topic: str | None = None
    scope: str | None = None
    name: str | None = None
    key: str | None = None
    value: str | None = None
    session: int | None = None
    detail: str | None = None

    def order_key(self) -> tuple[int, int, int, str]:
        """Sort key: time, source rank, position in the source, ref."""
        time = -1 if self.time_ms is None else self.time_ms
        return (time, self.source.tie_rank, self.seq, self.ref)

    def to_row(self) -> dict[str, Any]:
        """Plain column values for Arrow (``CLUSTER_FACT_VALUES``, lists as lists)."""
        row: dict[str, Any] = {}
        for name, read in CLUSTER_FACT_VALUES.items():
            value = read(self)
            row[name] = list(value) if isinstance(value, tuple) else value
        return row

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> ClusterFact | None:
        """Rebuild a fact from ``to_row`` columns; ``None`` when source or kind is unknown."""
        source = _SOURCES.get(as_str(row.get("source")) or "")
        kind = _KINDS.get(as_str(row.get("kind")) or "")
        if source is None or kind is None:
            return None
        return cls(
            cluster=as_str(row.get("cluster")) or "",
            time_ms=as_int(row.get("time_ms")),
            source=source,
            kind=kind,
            ref=as_str(row.get("ref")) or "",
            seq=as_int(row.get("seq")) or 0,
            broker=as_int(row.get("broker")),
            brokers=as_ints(row.get("brokers")),
            controller_id=as_int(row.get("controller_id")),
            epoch=as_int(row.get("epoch")),
            topic=as_str(row.get("topic")),
            scope=as_str(row.get("scope")),
            name=as_str(row.get("name")),
            key=as_str(row.get("key")),
            value=as_str(row.get("value")),
            session=as_int(row.get("session")),
            detail=as_str(row.get("detail")),
        )


_SOURCES = {member.name: member for member in Source}
_KINDS = {member.name: member for member in ClusterFactKind}
_FIELD_NAMES = tuple(ClusterFact.__dataclass_fields__)


def _source_name(fact: ClusterFact) -> str:
    return fact.source.name


def _kind_name(fact: ClusterFact) -> str:
    return fact.kind.name


CLUSTER_FACT_VALUES: Mapping[str, Callable[[ClusterFact], Any]] = {
    **{name: operator.attrgetter(name) for name in _FIELD_NAMES},
    "source": _source_name,
    "kind": _kind_name,
}
"""Column (``CLUSTER_FACT_COLUMNS``) -> its value of a fact: enum names as strings, lists as
tuples; ``to_row`` reads them, and a task reads each column of many facts at once."""

CLUSTER_FACT_COLUMNS: Mapping[str, str] = {
    "cluster": "str",
    "time_ms": "int",
    "source": "str",
    "kind": "str",
    "ref": "str",
    "seq": "int",
    "broker": "int",
    "brokers": "ints",
    "controller_id": "int",
    "epoch": "int",
    "topic": "str",
    "scope": "str",
    "name": "str",
    "key": "str",
    "value": "str",
    "session": "int",
    "detail": "str",
}
"""Column -> type of ``ClusterFact.to_row`` (same type names as ``EVIDENCE_COLUMNS``)."""
