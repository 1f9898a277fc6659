"""The report's output records: one slotted dataclass per gold report table, plus adapters that
read the replay's gold rows back into the replay's own records.

Each record's fields are its table's columns in order (times as UTC epoch milliseconds inside,
``to_row()`` turns them into UTC-aware datetimes for Arrow). ``timeline_from_row``,
``election_from_row`` and ``anomaly_from_row`` accept a ``gold.partition_timeline``,
``gold.elections`` or ``gold.anomalies`` row as any mapping (a dict, a pandas row converted with
``to_dict``, a Spark ``Row.asDict()``), tolerating numpy scalars, arrays and ``NaN``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, ClassVar

from kafkactl_core.replay.rows import LEFT_ISR_AT, AnomalyRow, ElectionRow, TimelineRow
from kafkactl_core.replay.values import (
    as_bool,
    as_int,
    as_ints,
    as_ms,
    as_str,
    as_strs,
    plain_columns,
)

__all__ = [
    "BrokerInterval",
    "ControllerTenure",
    "ImbalanceDailyRow",
    "ImbalanceRow",
    "IsrChurnDailyRow",
    "OfflineInterval",
    "PartitionSpan",
    "Reassignment",
    "TopicLifecycle",
    "UncleanDailyRow",
    "UncleanRow",
    "UnderReplicatedInterval",
    "anomaly_from_row",
    "election_from_row",
    "timeline_from_row",
]


def _float(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if number != number else number


def _day(value: Any) -> date:
    """A UTC day from a date (Spark, Arrow) or its ISO text (JSON)."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value))


@dataclass(slots=True)
class ImbalanceRow:
    """One broker at one observation time (``gold.leader_imbalance``).

    Attributes:
        cluster: the cluster.
        observed_at_ms: the observation time (UTC ms).
        observation: ``change`` (leadership, assignment or deletion changed at that moment; the
            row shows the state after the change) or ``check`` (the controller logged an
            auto-rebalance check then; the row shows the state the check saw, i.e. before any
            change of that same millisecond).
        broker: the broker.
        preferred_partitions: partitions whose preferred replica (first assigned) is the
            broker, topics queued for deletion excluded (Kafka's ``P_b``).
        led_preferred: of those, partitions the broker leads.
        not_led: of those, partitions with leadership whose leader is another broker or -1
            (Kafka's ``N_b``); partitions without leadership (new) count in neither.
        imbalance_ratio: ``not_led / preferred_partitions`` (the controller's per-broker
            ratio), ``None`` when the broker is no partition's preferred replica.
        threshold: ``leader.imbalance.per.broker.percentage / 100``.
        would_trigger: ZooKeeper mode: ``imbalance_ratio > threshold`` (strict), i.e. the
            controller's auto-rebalance acts for this broker; ``None`` for KRaft or no ratio.
        leaders: partitions the broker leads (every topic, deleting ones included).
        leaders_total: partitions of the cluster that have a leader.
        leader_share: ``leaders / leaders_total``.
        preferred_imbalance: partitions preferred to the broker that count in
            ``PreferredReplicaImbalanceCount`` under the version's definition.
        preferred_imbalance_total: the cluster's ``PreferredReplicaImbalanceCount``.
        preferred_imbalance_rule: the definition used: ``zk_before_2_7``, ``zk_2_7`` or
            ``kraft`` (METRICS.md 1.3).
        kraft_candidates: KRaft mode: partitions preferred to the broker not led by it (the
            KRaft controller's imbalanced set, offline ones included); ``None`` for ZooKeeper.
        kraft_candidates_total: KRaft mode: the cluster's imbalanced-partition count.
        logged_ratio: check rows: the ratio the controller logged for the broker.
        logged_matches: check rows: ``logged_ratio == imbalance_ratio`` exactly.
        controller_id: check rows: the controller that logged the check.
        evidence: check rows: the ``file:line`` of the logged ratio.
        check_started_at_ms: check rows: when the check began (its ``Checking need to trigger
            auto leader balancing`` line, else its first ratio line); the counts are the state
            then, and ``observed_at_ms`` is the time of the broker's own ratio line (the check's
            start when it logged none for the broker).
    """

    cluster: str
    observed_at_ms: int
    observation: str
    broker: int
    preferred_partitions: int
    led_preferred: int
    not_led: int
    imbalance_ratio: float | None
    threshold: float
    would_trigger: bool | None
    leaders: int
    leaders_total: int
    leader_share: float | None
    preferred_imbalance: int
    preferred_imbalance_total: int
    preferred_imbalance_rule: str
    kraft_candidates: int | None
    kraft_candidates_total: int | None
    logged_ratio: float | None = None
    logged_matches: bool | None = None
    controller_id: int | None = None
    evidence: str | None = None
    check_started_at_ms: int | None = None

    @property
    def check_ms(self) -> int:
        """Check rows: when the check began (rows of tables written before the column existed:
        the row's own time)."""
        return self.observed_at_ms if self.check_started_at_ms is None else self.check_started_at_ms

    def to_row(self) -> dict[str, Any]:
        """Plain column values (``observed_at`` as a datetime)."""
        return plain_columns(self)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> ImbalanceRow:
        """Rebuild from ``to_row`` columns (or a ``gold.leader_imbalance`` row)."""
        return cls(
            cluster=as_str(row.get("cluster")) or "",
            observed_at_ms=as_ms(row.get("observed_at")) or 0,
            observation=as_str(row.get("observation")) or "change",
            broker=as_int(row.get("broker")) or 0,
            preferred_partitions=as_int(row.get("preferred_partitions")) or 0,
            led_preferred=as_int(row.get("led_preferred")) or 0,
            not_led=as_int(row.get("not_led")) or 0,
            imbalance_ratio=_float(row.get("imbalance_ratio")),
            threshold=_float(row.get("threshold")) or 0.0,
            would_trigger=as_bool(row.get("would_trigger")),
            leaders=as_int(row.get("leaders")) or 0,
            leaders_total=as_int(row.get("leaders_total")) or 0,
            leader_share=_float(row.get("leader_share")),
            preferred_imbalance=as_int(row.get("preferred_imbalance")) or 0,
            preferred_imbalance_total=as_int(row.get("preferred_imbalance_total")) or 0,
            preferred_imbalance_rule=as_str(row.get("preferred_imbalance_rule")) or "",
            kraft_candidates=as_int(row.get("kraft_candidates")),
            kraft_candidates_total=as_int(row.get("kraft_candidates_total")),
            logged_ratio=_float(row.get("logged_ratio")),
            logged_matches=as_bool(row.get("logged_matches")),
            controller_id=as_int(row.get("controller_id")),
            evidence=as_str(row.get("evidence")),
            check_started_at_ms=as_ms(row.get("check_started_at")),
        )


@dataclass(slots=True)
class ImbalanceDailyRow:
    """One broker on one UTC day (``gold.leader_imbalance_daily``).

    Attributes:
        cluster: the cluster.
        day: the UTC day.
        broker: the broker.
        observations: rows of ``gold.leader_imbalance`` that day.
        max_ratio: the highest imbalance ratio in force that day (``None``: never a ratio).
        max_ratio_at_ms: when it was first reached.
        seconds_above_threshold: seconds of the day during which the ratio was strictly above
            the threshold (time-weighted; each row holds until the broker's next row).
        observed_seconds: seconds of the day covered by the evidence.
        checks_logged: auto-rebalance checks the controller logged for the broker.
        checks_over_threshold: of those, checks whose logged ratio exceeded the threshold: the
            checks after which the controller ran a preferred election for the broker.
        check_mismatches: checks whose logged ratio differs from the computed one.
        preferred_elections: preferred-replica elections that moved leadership to the broker
            (auto-rebalance or admin-triggered) that day.
        leaders_min: fewest partitions led at any observation that day.
        leaders_max: most partitions led at any observation that day.
        threshold: the threshold in force.
    """

    cluster: str
    day: date
    broker: int
    observations: int
    max_ratio: float | None
    max_ratio_at_ms: int | None
    seconds_above_threshold: float
    observed_seconds: float
    checks_logged: int
    checks_over_threshold: int
    check_mismatches: int
    preferred_elections: int
    leaders_min: int | None
    leaders_max: int | None
    threshold: float

    def to_row(self) -> dict[str, Any]:
        """Plain column values."""
        return plain_columns(self)


@dataclass(slots=True)
class UncleanRow:
    """One unclean election (``gold.unclean_elections``).

    Attributes:
        cluster: the cluster.
        topic: the topic.
        partition: the partition.
        elected_at_ms: when (UTC ms).
        day: its UTC day.
        controller_id: the controller that elected.
        controller_epoch: its epoch.
        trigger: the election's trigger (offline, admin_unclean, ...).
        prev_leader: the leader before (-1 none).
        new_leader: the out-of-sync replica elected.
        leader_epoch: the new leader epoch.
        isr_before: the ISR just before (the new leader is not in it).
        isr_after: the ISR written with the new leader.
        assignment: the replica assignment.
        live_brokers: live brokers at the time.
        unclean_setting: ``unclean.leader.election.enable`` in force for the topic.
        unclean_setting_source: where it came from (topic_config, broker_config,
            configured_default, version_default, admin, what_if).
        new_leader_left_isr_ms: when the new leader last left the ISR.
        exposure_seconds: seconds between that and the election: how far behind the new leader
            may have been (the window of acknowledged writes it may lack).
        exposure_source: ``replay`` (the election row gave it) or ``timeline`` (computed
            here from the partition's ISR history); ``None`` when unknown.
        offline_seconds: how long the partition had no leader before this election (0 when it
            moved straight from another leader).
        high_watermark: the last high watermark a broker logged before the election.
        new_leader_start_offset: the offset the new leader started its epoch at.
        offsets_at_risk: ``high_watermark - new_leader_start_offset`` when both are known.
        expected_leader: the leader Kafka's rules give.
        agrees: whether the evidence agrees with the rules.
        evidence: the election's evidence.
        detail: how the trigger and verdict were inferred.
    """

    RENAMED: ClassVar[Mapping[str, str]] = LEFT_ISR_AT
    """Column names of ``_ms`` fields that dropping ``_ms`` does not give (``column_plan``)."""

    cluster: str
    topic: str
    partition: int
    elected_at_ms: int | None
    day: date | None
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
    unclean_setting: bool | None
    unclean_setting_source: str | None
    new_leader_left_isr_ms: int | None
    exposure_seconds: float | None
    exposure_source: str | None
    offline_seconds: float | None
    high_watermark: int | None
    new_leader_start_offset: int | None
    offsets_at_risk: int | None
    expected_leader: int | None
    agrees: bool | None
    evidence: tuple[str, ...]
    detail: str | None

    def to_row(self) -> dict[str, Any]:
        """Plain column values (times as datetimes)."""
        return plain_columns(self)


@dataclass(slots=True)
class UncleanDailyRow:
    """Unclean elections of one topic on one UTC day (``gold.unclean_elections_daily``).

    Attributes:
        cluster: the cluster.
        day: the UTC day.
        topic: the topic.
        unclean_elections: how many.
        partitions: distinct partitions concerned.
        max_exposure_seconds: the longest exposure (``None``: none known).
        total_exposure_seconds: the sum of known exposures.
        unknown_exposure: elections whose exposure is unknown.
        offsets_at_risk: the sum of known ``offsets_at_risk`` (``None``: none known).
        first_at_ms: the first election that day.
        last_at_ms: the last election that day.
        setting_sources: the distinct ``unclean_setting_source`` values, sorted.
    """

    cluster: str
    day: date
    topic: str
    unclean_elections: int
    partitions: int
    max_exposure_seconds: float | None
    total_exposure_seconds: float
    unknown_exposure: int
    offsets_at_risk: int | None
    first_at_ms: int | None
    last_at_ms: int | None
    setting_sources: tuple[str, ...]

    def to_row(self) -> dict[str, Any]:
        """Plain column values."""
        return plain_columns(self)


@dataclass(slots=True)
class OfflineInterval:
    """A stretch of time a partition had no leader (``gold.offline_intervals``).

    Attributes:
        cluster: the cluster.
        topic: the topic.
        partition: the partition.
        offline_from_ms: when it lost its leader (UTC ms).
        offline_to_ms: when a leader was elected again, ``None`` when still offline at the end
            of the evidence.
        duration_seconds: ``offline_to - offline_from``; for an open interval, up to the end of
            the evidence.
        open_ended: still offline when the evidence ends.
        prev_leader: the leader it lost (``None`` when unknown).
        next_leader: the leader that ended it (``None`` when open or deleted).
        isr_at_start: the ISR while offline (at its start).
        assignment: the replica assignment.
        cause: why: ``leader broker B failed (session_expired)``, ``failed offline election:
            ...``, ``leader -1 written``, ...
        ended_by: what ended it: the election trigger (``offline``, ``admin_unclean``, ...),
            ``unclean offline election``, ``topic deleted``, ``evidence ends``.
        evidence: the lines or zxids that opened and closed it.
    """

    cluster: str
    topic: str
    partition: int
    offline_from_ms: int
    offline_to_ms: int | None
    duration_seconds: float | None
    open_ended: bool
    prev_leader: int | None
    next_leader: int | None
    isr_at_start: tuple[int, ...] | None
    assignment: tuple[int, ...] | None
    cause: str
    ended_by: str
    evidence: tuple[str, ...]

    def to_row(self) -> dict[str, Any]:
        """Plain column values (times as datetimes)."""
        return plain_columns(self)


@dataclass(slots=True)
class UnderReplicatedInterval:
    """A stretch of time a led partition had fewer in-sync replicas than replicas, or fewer than
    ``min.insync.replicas`` (``gold.under_replicated``).

    Attributes:
        cluster: the cluster.
        topic: the topic.
        partition: the partition.
        condition: ``under_replicated`` (ISR smaller than the replicas, Kafka's
            ``UnderReplicatedPartitions``) or ``under_min_isr`` (ISR smaller than
            ``min.insync.replicas`` capped at the replicas, ``UnderMinIsrPartitionCount``:
            producers with ``acks=all`` are refused).
        under_from_ms: when it began (UTC ms).
        under_to_ms: when it ended, ``None`` when it still held at the end of the evidence.
        duration_seconds: ``under_to - under_from``; for an open interval, up to the end of the
            evidence.
        open_ended: still holding when the evidence ends.
        leader_at_start: the leader when it began.
        replicas: the replica assignment when it began.
        isr_at_start: the ISR when it began.
        smallest_isr: the fewest in-sync replicas during it.
        out_of_sync: every replica out of the ISR at some moment during it.
        min_insync_replicas: ``min.insync.replicas`` in force when it began.
        min_insync_replicas_source: where that came from (``topic_config``, ``broker_config``,
            ``configured_default``, ``version_default``).
        evidence: the lines or writes that opened and closed it.
    """

    cluster: str
    topic: str
    partition: int
    condition: str
    under_from_ms: int
    under_to_ms: int | None
    duration_seconds: float | None
    open_ended: bool
    leader_at_start: int | None
    replicas: tuple[int, ...]
    isr_at_start: tuple[int, ...]
    smallest_isr: int
    out_of_sync: tuple[int, ...]
    min_insync_replicas: int
    min_insync_replicas_source: str
    evidence: tuple[str, ...]

    def to_row(self) -> dict[str, Any]:
        """Plain column values (times as datetimes)."""
        return plain_columns(self)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> UnderReplicatedInterval:
        """Rebuild from ``to_row`` columns (or a ``gold.under_replicated`` row)."""
        return cls(
            cluster=as_str(row.get("cluster")) or "",
            topic=as_str(row.get("topic")) or "",
            partition=as_int(row.get("partition")) or 0,
            condition=as_str(row.get("condition")) or "",
            under_from_ms=as_ms(row.get("under_from")) or 0,
            under_to_ms=as_ms(row.get("under_to")),
            duration_seconds=_float(row.get("duration_seconds")),
            open_ended=bool(as_bool(row.get("open_ended"))),
            leader_at_start=as_int(row.get("leader_at_start")),
            replicas=as_ints(row.get("replicas")) or (),
            isr_at_start=as_ints(row.get("isr_at_start")) or (),
            smallest_isr=as_int(row.get("smallest_isr")) or 0,
            out_of_sync=as_ints(row.get("out_of_sync")) or (),
            min_insync_replicas=as_int(row.get("min_insync_replicas")) or 1,
            min_insync_replicas_source=as_str(row.get("min_insync_replicas_source")) or "",
            evidence=as_strs(row.get("evidence")) or (),
        )


@dataclass(slots=True)
class IsrChurnDailyRow:
    """A replica's ISR shrinks and expands in one partition on one UTC day
    (``gold.isr_churn_daily``).

    Attributes:
        cluster: the cluster.
        day: the UTC day.
        topic: the topic.
        partition: the partition.
        broker: the replica.
        shrinks: times it left the ISR.
        expands: times it joined the ISR again.
        first_at_ms: the day's first of them (UTC ms).
        last_at_ms: the day's last of them (UTC ms).
    """

    cluster: str
    day: date
    topic: str
    partition: int
    broker: int
    shrinks: int
    expands: int
    first_at_ms: int
    last_at_ms: int

    def to_row(self) -> dict[str, Any]:
        """Plain column values (times as datetimes)."""
        return plain_columns(self)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> IsrChurnDailyRow:
        """Rebuild from ``to_row`` columns (or a ``gold.isr_churn_daily`` row)."""
        return cls(
            cluster=as_str(row.get("cluster")) or "",
            day=_day(row.get("day")),
            topic=as_str(row.get("topic")) or "",
            partition=as_int(row.get("partition")) or 0,
            broker=as_int(row.get("broker")) or 0,
            shrinks=as_int(row.get("shrinks")) or 0,
            expands=as_int(row.get("expands")) or 0,
            first_at_ms=as_ms(row.get("first_at")) or 0,
            last_at_ms=as_ms(row.get("last_at")) or 0,
        )


@dataclass(slots=True)
class BrokerInterval:
    """A stretch of time a broker was online, in controlled shutdown or offline
    (``gold.broker_timeline``).

    Attributes:
        cluster: the cluster.
        broker: the broker.
        state: ``online`` (registered and not shutting down: a live broker the controller elects
            leaders on), ``controlled_shutdown`` (registered, leaderships being moved away) or
            ``offline`` (not registered, or fenced in KRaft).
        state_from_ms: when it began (UTC ms).
        state_to_ms: when it ended, ``None`` when still so at the end of the evidence.
        duration_seconds: ``state_to - state_from``; for an open stretch, up to the end of the
            evidence.
        open_ended: still so when the evidence ends.
        cause: why it began: ``registered``, ``controlled_shutdown``, or for ``offline`` the
            broker-down event (``failed``, ``session_expired``, ``session_closed``,
            ``deregistered``, ``fenced``; in KRaft ``registering`` and ``re-registered``, a
            broker fenced from its registration until it has caught up), ``... after controlled
            shutdown`` when it followed one. A broker not registered before its first
            registration has no row (it had not started).
        broker_epoch: the broker epoch of its registration in force when the stretch began
            (ZooKeeper: the creation zxid of ``/brokers/ids/N``; KRaft: the registration's
            ``brokerEpoch``), ``None`` when no evidence gave it (the text logs of ZooKeeper
            controllers do not).
        evidence: the lines or records that opened and closed it.
    """

    cluster: str
    broker: int
    state: str
    state_from_ms: int
    state_to_ms: int | None
    duration_seconds: float | None
    open_ended: bool
    cause: str
    broker_epoch: int | None
    evidence: tuple[str, ...]

    def to_row(self) -> dict[str, Any]:
        """Plain column values (times as datetimes)."""
        return plain_columns(self)


@dataclass(slots=True)
class Reassignment:
    """A change of a partition's replicas (``gold.reassignments``).

    Attributes:
        cluster: the cluster.
        topic: the topic.
        partition: the partition.
        started_ms: when the replicas being added joined the assignment (UTC ms), or when the
            assignment changed in one step.
        finished_ms: when the assignment became the target (or went back), ``None`` while in
            progress at the end of the evidence.
        duration_seconds: ``finished - started``; in progress: up to the end of the evidence.
        replicas_from: the assignment before.
        replicas_to: the assignment after (the target; in progress: the assignment with the
            replicas being added).
        adding: replicas the move added.
        removing: replicas the move removed.
        leader_before: the leader when it started.
        leader_after: the leader when it finished.
        leader_moved: the leader changed between its start and its end.
        outcome: ``completed``, ``cancelled`` (back to the replicas before), ``in_progress`` or
            ``topic_deleted``.
        evidence: the lines or records that started and finished it.
    """

    cluster: str
    topic: str
    partition: int
    started_ms: int
    finished_ms: int | None
    duration_seconds: float | None
    replicas_from: tuple[int, ...]
    replicas_to: tuple[int, ...]
    adding: tuple[int, ...]
    removing: tuple[int, ...]
    leader_before: int | None
    leader_after: int | None
    leader_moved: bool | None
    outcome: str
    evidence: tuple[str, ...]

    def to_row(self) -> dict[str, Any]:
        """Plain column values (times as datetimes)."""
        return plain_columns(self)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Reassignment:
        """Rebuild from ``to_row`` columns (or a ``gold.reassignments`` row)."""
        return cls(
            cluster=as_str(row.get("cluster")) or "",
            topic=as_str(row.get("topic")) or "",
            partition=as_int(row.get("partition")) or 0,
            started_ms=as_ms(row.get("started")) or 0,
            finished_ms=as_ms(row.get("finished")),
            duration_seconds=_float(row.get("duration_seconds")),
            replicas_from=as_ints(row.get("replicas_from")) or (),
            replicas_to=as_ints(row.get("replicas_to")) or (),
            adding=as_ints(row.get("adding")) or (),
            removing=as_ints(row.get("removing")) or (),
            leader_before=as_int(row.get("leader_before")),
            leader_after=as_int(row.get("leader_after")),
            leader_moved=as_bool(row.get("leader_moved")),
            outcome=as_str(row.get("outcome")) or "",
            evidence=as_strs(row.get("evidence")) or (),
        )


@dataclass(slots=True)
class PartitionSpan:
    """A stretch of time one partition existed, from its timeline (the input of
    ``gold.topic_lifecycle``, not a table of its own).

    Attributes:
        cluster: the cluster.
        topic: the topic.
        partition: the partition.
        existed_from_ms: its first interval in a state other than ``NonExistentPartition``.
        existed_to_ms: when it stopped existing, ``None`` when it still existed at the end.
        replicas: its assignment when the stretch began, ``()`` when unknown.
    """

    cluster: str
    topic: str
    partition: int
    existed_from_ms: int | None
    existed_to_ms: int | None
    replicas: tuple[int, ...]

    def to_row(self) -> dict[str, Any]:
        """Plain column values (times as datetimes)."""
        return plain_columns(self)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> PartitionSpan:
        """Rebuild from ``to_row`` columns."""
        return cls(
            cluster=as_str(row.get("cluster")) or "",
            topic=as_str(row.get("topic")) or "",
            partition=as_int(row.get("partition")) or 0,
            existed_from_ms=as_ms(row.get("existed_from")),
            existed_to_ms=as_ms(row.get("existed_to")),
            replicas=as_ints(row.get("replicas")) or (),
        )


@dataclass(slots=True)
class TopicLifecycle:
    """One topic's life, from its creation to its deletion (``gold.topic_lifecycle``).

    Attributes:
        cluster: the cluster.
        topic: the topic.
        topic_id: its topic ID (KRaft), ``None`` when no evidence gave it.
        created_ms: when it was created, ``None`` when before the evidence.
        first_seen_ms: its creation, or the first evidence of it.
        partitions: how many partitions it had, ``None`` when no partition evidence.
        replication_factor: its replicas per partition (the largest when they differ).
        assignment: each partition's replicas when first seen, ``p:r,r;p:r,r``.
        configs: its topic overrides in force after its creation, of the keys the replay reads
            (``key=value, ...``).
        deletion_requested_ms: when its deletion was requested (KRaft: when it was removed).
        deleted_ms: when its deletion completed.
        deletion_seconds: ``deleted - deletion_requested``; pending: up to the end of the
            evidence.
        state: ``active``, ``deleting`` (requested, pending at the end for less than
            ``STUCK_AFTER_MS``), ``stuck`` (pending longer) or ``deleted``.
        stuck_reason: why a deletion is pending at the end: ``delete.topic.enable=false``,
            ``replica brokers N,M offline``, or ``not completed by the end of the evidence``.
        evidence: the lines or records of its creation, deletion request and deletion.
    """

    cluster: str
    topic: str
    topic_id: str | None
    created_ms: int | None
    first_seen_ms: int | None
    partitions: int | None
    replication_factor: int | None
    assignment: str | None
    configs: str | None
    deletion_requested_ms: int | None
    deleted_ms: int | None
    deletion_seconds: float | None
    state: str
    stuck_reason: str | None
    evidence: tuple[str, ...]

    def to_row(self) -> dict[str, Any]:
        """Plain column values (times as datetimes)."""
        return plain_columns(self)


@dataclass(slots=True)
class ControllerTenure:
    """One controller's term (``gold.controller_history``).

    Attributes:
        cluster: the cluster.
        controller_id: the active controller (broker id, or KRaft node id).
        controller_epoch: its epoch (ZooKeeper controller epoch, KRaft quorum epoch), ``None``
            when no evidence gave it.
        active_from_ms: when it became (or was first seen as) active.
        active_to_ms: when its term ended, ``None`` when still active at the end.
        duration_seconds: ``active_to - active_from`` (``None`` when open).
        ended_by: ``resigned``, ``session_expired``, ``broker_failed``, ``superseded`` (another
            controller took over without a resignation on record), ``still_active``.
        successor_id: the next controller, when there was one.
        evidence: the lines or zxids that opened and closed the term.
    """

    cluster: str
    controller_id: int | None
    controller_epoch: int | None
    active_from_ms: int | None
    active_to_ms: int | None
    duration_seconds: float | None
    ended_by: str
    successor_id: int | None
    evidence: tuple[str, ...]

    def to_row(self) -> dict[str, Any]:
        """Plain column values (times as datetimes)."""
        return plain_columns(self)


def timeline_from_row(row: Mapping[str, Any]) -> TimelineRow:
    """A ``gold.partition_timeline`` row (or ``TimelineRow.to_row()``) as a ``TimelineRow``.

    Args:
        row: the row's columns.

    Returns:
        The record (missing values become ``None``).
    """
    return TimelineRow(
        cluster=as_str(row.get("cluster")) or "",
        topic=as_str(row.get("topic")) or "",
        partition=as_int(row.get("partition")) or 0,
        valid_from_ms=as_ms(row.get("valid_from")),
        valid_to_ms=as_ms(row.get("valid_to")),
        state=as_str(row.get("state")),
        leader=as_int(row.get("leader")),
        isr=as_ints(row.get("isr")),
        leader_epoch=as_int(row.get("leader_epoch")),
        partition_epoch=as_int(row.get("partition_epoch")),
        assignment=as_ints(row.get("assignment")),
        controller_epoch=as_int(row.get("controller_epoch")),
        evidence=as_str(row.get("evidence")) or "",
    )


def election_from_row(row: Mapping[str, Any]) -> ElectionRow:
    """A ``gold.elections`` row (or ``ElectionRow.to_row()``) as an ``ElectionRow``.

    Args:
        row: the row's columns.

    Returns:
        The record (a missing ``new_leader`` becomes -1, a missing trigger ``unknown``).
    """
    new_leader = as_int(row.get("new_leader"))
    return ElectionRow(
        cluster=as_str(row.get("cluster")) or "",
        topic=as_str(row.get("topic")) or "",
        partition=as_int(row.get("partition")) or 0,
        scenario=as_str(row.get("scenario")) or "actual",
        elected_at_ms=as_ms(row.get("elected_at")),
        controller_id=as_int(row.get("controller_id")),
        controller_epoch=as_int(row.get("controller_epoch")),
        trigger=as_str(row.get("trigger")) or "unknown",
        prev_leader=as_int(row.get("prev_leader")),
        new_leader=-1 if new_leader is None else new_leader,
        leader_epoch=as_int(row.get("leader_epoch")),
        isr_before=as_ints(row.get("isr_before")),
        isr_after=as_ints(row.get("isr_after")),
        assignment=as_ints(row.get("assignment")),
        live_brokers=as_ints(row.get("live_brokers")),
        unclean=as_bool(row.get("unclean")),
        expected_leader=as_int(row.get("expected_leader")),
        agrees=as_bool(row.get("agrees")),
        evidence=as_strs(row.get("evidence")) or (),
        source=as_str(row.get("source")) or "",
        unclean_setting=as_bool(row.get("unclean_setting")),
        unclean_setting_source=as_str(row.get("unclean_setting_source")),
        new_leader_left_isr_ms=as_ms(row.get("new_leader_left_isr_at")),
        exposure_seconds=_float(row.get("exposure_seconds")),
        high_watermark=as_int(row.get("high_watermark")),
        new_leader_start_offset=as_int(row.get("new_leader_start_offset")),
        offsets_at_risk=as_int(row.get("offsets_at_risk")),
        detail=as_str(row.get("detail")),
        prev_leader_epoch=as_int(row.get("prev_leader_epoch")),
        partition_epoch=as_int(row.get("partition_epoch")),
    )


def anomaly_from_row(row: Mapping[str, Any]) -> AnomalyRow:
    """A ``gold.anomalies`` row (or ``AnomalyRow.to_row()``) as an ``AnomalyRow``.

    Args:
        row: the row's columns.

    Returns:
        The record.
    """
    return AnomalyRow(
        cluster=as_str(row.get("cluster")) or "",
        topic=as_str(row.get("topic")),
        partition=as_int(row.get("partition")),
        observed_at_ms=as_ms(row.get("observed_at")),
        kind=as_str(row.get("kind")) or "",
        severity=as_str(row.get("severity")) or "",
        leader_epoch=as_int(row.get("leader_epoch")),
        expected=as_str(row.get("expected")),
        observed=as_str(row.get("observed")),
        detail=as_str(row.get("detail")) or "",
        evidence=as_strs(row.get("evidence")) or (),
        source=as_str(row.get("source")) or "",
    )
