"""The replay's output records: the gold ``elections``, ``partition_timeline`` and ``anomalies``
rows (columns as ARCHITECTURE.md lists them, plus what the unclean-election report needs), and
the what-if rows.

Each is a slotted dataclass whose fields are the table's columns, in order; ``to_row()`` gives
plain Python values for Arrow: lists (never tuples), UTC-aware datetimes, ``None`` for unknown.
Times are kept as epoch milliseconds inside the fold and converted only here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any, ClassVar

from kafkactl_core.replay.values import ms_to_datetime, plain_columns

__all__ = [
    "ANOMALY_KINDS",
    "LEFT_ISR_AT",
    "AnomalyRow",
    "ElectionRow",
    "ReplayOutput",
    "TimelineRow",
    "WhatIfRow",
]


LEFT_ISR_AT: Mapping[str, str] = MappingProxyType(
    {"new_leader_left_isr_ms": "new_leader_left_isr_at"}
)
"""The one election column whose name is not its field's without ``_ms``."""


@dataclass(slots=True)
class ElectionRow:
    """One leader change or failed election attempt (``gold.elections``).

    A failed attempt (``new_leader`` -1) says what was in ZooKeeper before it (``prev_leader``,
    ``prev_leader_epoch``, ``isr_before``) and what was in force after it: the leadership the
    controller wrote right after (leader -1 with a new leader epoch and znode version, by the
    OfflineReplica step of a broker failure), else the one already in force.

    Attributes:
        cluster: the cluster.
        topic: the topic.
        partition: the partition.
        scenario: ``actual``, or the what-if scenario the row was replayed under.
        elected_at_ms: when (UTC ms; the earliest evidence of the election).
        controller_id: the controller that elected, when known.
        controller_epoch: its epoch, when known.
        trigger: new_partition, offline, reassign, preferred, controlled_shutdown,
            admin_unclean or unknown.
        prev_leader: the leader before (-1 none), ``None`` when unknown.
        new_leader: the leader elected, -1 when the election failed (partition left offline).
        leader_epoch: the new leader epoch; for a failed attempt, the epoch written right
            after it, else the one in force.
        isr_before: the ISR just before the election, ``None`` when unknown.
        isr_after: the ISR written with the new leader; for a failed attempt, the ISR written
            right after it, else the one in force; ``None`` when unknown.
        assignment: the replica assignment in force, ``None`` when unknown.
        live_brokers: live brokers at the time (registered and not shutting down).
        unclean: the new leader was not in ``isr_before`` (``None``: cannot tell).
        expected_leader: the leader Kafka's rules give for this trigger, release and settings
            (-1: no leader can be elected; ``None``: not computable).
        agrees: ``new_leader == expected_leader`` (``None`` when not computable).
        evidence: every line or zxid that showed this election.
        source: the sources that showed it, ``+``-joined (``controller_log+zk_txn``).
        unclean_setting: ``unclean.leader.election.enable`` in force for the topic.
        unclean_setting_source: where it came from: ``what_if``, ``topic_config``,
            ``broker_config``, ``configured_default``, ``version_default`` or ``admin``.
        new_leader_left_isr_ms: unclean elections: when the new leader last left the ISR.
        exposure_seconds: unclean elections: seconds between that and the election.
        high_watermark: the last high watermark a broker logged before the election.
        new_leader_start_offset: the offset at which the new leader started its epoch (its
            ``starts at leader epoch E from offset X`` line), else its log end offset when it
            last left the ISR (the ``Out of sync replicas`` part of a shrink line).
        offsets_at_risk: ``high_watermark - new_leader_start_offset`` when both are known.
        detail: how the trigger and the verdict were inferred.
        prev_leader_epoch: the leader epoch in force before the election, ``None`` when unknown.
        partition_epoch: the state znode's zkVersion (KRaft: the partition epoch) written with
            the new leader; for a failed attempt, written right after it, else in force.
        elr_before: KRaft: the Eligible Leader Replicas just before (KIP-966), when known.
        elr_after: KRaft: the ELR written with the new leader, when known.
        leader_recovery_state: ``RECOVERING`` when the controller marked the new leader as
            elected uncleanly (KIP-704), ``RECOVERED`` when it did not, ``None`` when unknown.
        min_insync_replicas: ``min.insync.replicas`` in force for the topic (KRaft fills the
            ELR from it, capped at the replication factor).
        min_insync_replicas_source: where it came from: ``topic_config``, ``broker_config``,
            ``static_broker_config`` (the controller's printed configuration),
            ``configured_default`` or ``version_default``.
    """

    RENAMED: ClassVar[Mapping[str, str]] = LEFT_ISR_AT
    """Column names of ``_ms`` fields that dropping ``_ms`` does not give (``column_plan``)."""

    cluster: str
    topic: str
    partition: int
    scenario: str
    elected_at_ms: int | None
    controller_id: int | None
    controller_epoch: int | None
    trigger: str
    prev_leader: int | None
    new_leader: int
    leader_epoch: int | None
    isr_before: tuple[int, ...] | None
    isr_after: tuple[int, ...] | None
    assignment: tuple[int, ...] | None
    live_brokers: tuple[int, ...] | None
    unclean: bool | None
    expected_leader: int | None
    agrees: bool | None
    evidence: tuple[str, ...]
    source: str
    unclean_setting: bool | None = None
    unclean_setting_source: str | None = None
    new_leader_left_isr_ms: int | None = None
    exposure_seconds: float | None = None
    high_watermark: int | None = None
    new_leader_start_offset: int | None = None
    offsets_at_risk: int | None = None
    detail: str | None = None
    prev_leader_epoch: int | None = None
    partition_epoch: int | None = None
    elr_before: tuple[int, ...] | None = None
    elr_after: tuple[int, ...] | None = None
    leader_recovery_state: str | None = None
    min_insync_replicas: int | None = None
    min_insync_replicas_source: str | None = None

    @property
    def failed(self) -> bool:
        """Whether no leader was elected."""
        return self.new_leader < 0

    @property
    def elected_at(self) -> datetime | None:
        """``elected_at_ms`` as a UTC datetime."""
        return ms_to_datetime(self.elected_at_ms)

    def to_row(self) -> dict[str, Any]:
        """Plain column values (``elected_at`` and ``new_leader_left_isr_at`` as datetimes)."""
        return plain_columns(self)


@dataclass(slots=True)
class TimelineRow:
    """One interval of a partition's state (``gold.partition_timeline``).

    Attributes:
        cluster: the cluster.
        topic: the topic.
        partition: the partition.
        valid_from_ms: start (UTC ms).
        valid_to_ms: end (UTC ms); ``None`` for the last interval: in force at the end of the
            evidence.
        state: PartitionStateMachine state (``OnlinePartition``, ...), ``None`` when unknown.
        leader: the leader (-1 none, -2 being deleted), ``None`` when unknown.
        isr: the ISR, ``None`` when unknown.
        leader_epoch: the leader epoch, ``None`` when unknown.
        partition_epoch: ZooKeeper znode version (zkVersion) or KRaft partition epoch.
        assignment: the replica assignment, ``None`` when unknown.
        controller_epoch: epoch of the controller that wrote the state, when known.
        evidence: the line or zxid that opened the interval.
    """

    cluster: str
    topic: str
    partition: int
    valid_from_ms: int | None
    valid_to_ms: int | None
    state: str | None
    leader: int | None
    isr: tuple[int, ...] | None
    leader_epoch: int | None
    partition_epoch: int | None
    assignment: tuple[int, ...] | None
    controller_epoch: int | None
    evidence: str

    def to_row(self) -> dict[str, Any]:
        """Plain column values (``valid_from``/``valid_to`` as datetimes)."""
        return plain_columns(self)


ANOMALY_KINDS = (
    "log_gap",
    "epoch_regression",
    "invalid_transition",
    "transition_mismatch",
    "decision_disagreement",
    "evidence_conflict",
    "unknown_assignment",
    "unknown_liveness",
    "unusable_evidence",
    "controller_epoch_regression",
)
"""Every ``AnomalyRow.kind``:

* ``log_gap``: a leader epoch or znode version jumped, or metadata log offsets are missing:
  writes happened that no source shows;
* ``epoch_regression``: an authoritative source went back to a lower leader epoch;
* ``invalid_transition``: a logged state change that the state machines do not allow;
* ``transition_mismatch``: a logged transition starts from another state than the replay's;
* ``decision_disagreement``: the logged new leader is not the one Kafka's rules give;
* ``evidence_conflict``: two sources disagree on the leader (or ISR) of one epoch (version);
* ``unknown_assignment``: an election whose replica assignment no evidence gives;
* ``unknown_liveness``: an election whose outcome depends on brokers of unknown liveness;
* ``unusable_evidence``: a record the normalizers could not use, with why;
* ``controller_epoch_regression``: the controller epoch went backwards.
"""


@dataclass(slots=True)
class AnomalyRow:
    """Something in the evidence that is inconsistent or incomplete (``gold.anomalies``).

    Attributes:
        cluster: the cluster.
        topic: the topic (``None`` for cluster-level anomalies).
        partition: the partition (``None`` for cluster-level anomalies).
        observed_at_ms: when (UTC ms).
        kind: one of ``ANOMALY_KINDS``.
        severity: ``error`` (contradiction), ``warning`` (missing evidence), ``info``.
        leader_epoch: the leader epoch concerned, when there is one.
        expected: what the replay expected (rendered).
        observed: what the evidence says (rendered).
        detail: an explanation.
        evidence: lines or zxids involved.
        source: the sources involved, ``+``-joined.
    """

    cluster: str
    topic: str | None
    partition: int | None
    observed_at_ms: int | None
    kind: str
    severity: str
    leader_epoch: int | None
    expected: str | None
    observed: str | None
    detail: str
    evidence: tuple[str, ...]
    source: str

    def to_row(self) -> dict[str, Any]:
        """Plain column values (``observed_at`` as a datetime)."""
        return plain_columns(self)

    @classmethod
    def of_cluster(
        cls,
        cluster: str,
        observed_at_ms: int | None,
        kind: str,
        severity: str,
        detail: str,
        *,
        expected: str | None = None,
        observed: str | None = None,
        evidence: tuple[str, ...] = (),
        source: str,
    ) -> AnomalyRow:
        """A cluster-level anomaly: no topic, partition or leader epoch.

        Args:
            cluster: the cluster.
            observed_at_ms: when (UTC ms).
            kind: one of ``ANOMALY_KINDS``.
            severity: ``error``, ``warning`` or ``info``.
            detail: an explanation.
            expected: what the replay expected (rendered).
            observed: what the evidence says (rendered).
            evidence: lines or zxids involved.
            source: the sources involved, ``+``-joined.

        Returns:
            The row.
        """
        return cls(
            cluster,
            None,
            None,
            observed_at_ms,
            kind,
            severity,
            None,
            expected,
            observed,
            detail,
            evidence,
            source,
        )


@dataclass(slots=True)
class WhatIfRow:
    """How one actual election would have gone under a what-if scenario.

    Attributes:
        cluster: the cluster.
        topic: the topic.
        partition: the partition.
        scenario: the scenario name.
        elected_at_ms: when the actual election happened.
        trigger: the actual election's trigger.
        actual_new_leader: who was elected (-1 none).
        actual_unclean: whether the actual election was unclean.
        scenario_new_leader: who the scenario's rules elect at that moment (-1 none,
            ``None`` not computable).
        would_happen: whether the scenario elects a leader then.
        offline_from_ms: scenario: since when the partition stays without a leader.
        offline_until_ms: scenario: when an ISR member came back live (a clean election
            becomes possible), ``None`` when never within the evidence.
        offline_seconds: ``offline_until - offline_from`` (``None`` when open-ended).
        scenario_leader_then: the leader the scenario elects at ``offline_until``.
        detail: why.
        evidence: the actual election's evidence.
    """

    cluster: str
    topic: str
    partition: int
    scenario: str
    elected_at_ms: int | None
    trigger: str
    actual_new_leader: int
    actual_unclean: bool | None
    scenario_new_leader: int | None
    would_happen: bool | None
    offline_from_ms: int | None
    offline_until_ms: int | None
    offline_seconds: float | None
    scenario_leader_then: int | None
    detail: str
    evidence: tuple[str, ...]

    def to_row(self) -> dict[str, Any]:
        """Plain column values (times as datetimes)."""
        return plain_columns(self)


@dataclass(slots=True)
class ReplayOutput:
    """Rows a fold emitted: elections, closed timeline intervals and anomalies."""

    elections: list[ElectionRow] = field(default_factory=list)
    timeline: list[TimelineRow] = field(default_factory=list)
    anomalies: list[AnomalyRow] = field(default_factory=list)

    def extend(self, other: ReplayOutput) -> None:
        """Append ``other``'s rows to these."""
        self.elections.extend(other.elections)
        self.timeline.extend(other.timeline)
        self.anomalies.extend(other.anomalies)

    def __len__(self) -> int:
        return len(self.elections) + len(self.timeline) + len(self.anomalies)
