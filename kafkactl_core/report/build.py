"""The whole report in pure Python: replay outputs and cluster facts in, every report table and
the report's data out. The small-input path (tests, golden files, ``scripts/update_golden.py``);
the Spark job computes the same tables with the same core functions, distributed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kafkactl_core.replay.facts import ClusterFact
from kafkactl_core.replay.rows import AnomalyRow, ElectionRow, TimelineRow
from kafkactl_core.replay.timelines import ClusterTimelines
from kafkactl_core.replay.values import as_ms, as_str
from kafkactl_core.report.brokers import broker_timeline
from kafkactl_core.report.controllers import controller_history
from kafkactl_core.report.daily import imbalance_daily, preferred_elections_by_day
from kafkactl_core.report.document import ReportData, build_report_data
from kafkactl_core.report.imbalance import (
    ImbalanceSettings,
    LoggedRatio,
    assign_checks,
    deletion_steps,
    imbalance_rows,
    logged_ratio_from_row,
    not_preferred_from_row,
    partition_deltas,
    ratio_anomalies,
)
from kafkactl_core.report.offline import broker_events, offline_intervals
from kafkactl_core.report.reassignments import reassignments
from kafkactl_core.report.replication import (
    MinIsrInForce,
    isr_churn_daily,
    under_replicated_intervals,
)
from kafkactl_core.report.rows import (
    BrokerInterval,
    ControllerTenure,
    ImbalanceDailyRow,
    ImbalanceRow,
    IsrChurnDailyRow,
    OfflineInterval,
    Reassignment,
    TopicLifecycle,
    UncleanDailyRow,
    UncleanRow,
    UnderReplicatedInterval,
)
from kafkactl_core.report.topics import partition_spans, topic_lifecycle
from kafkactl_core.report.unclean import unclean_daily, unclean_rows

__all__ = [
    "CHECK_EVENT_TYPES",
    "ReportTables",
    "compute_report",
    "evidence_range",
    "logged_checks",
]

CHECK_EVENT_TYPES = (
    "leader_imbalance_ratio",
    "auto_rebalance_check",
    "preferred_replica_imbalance",
)
"""The ``silver.controller_events`` event types the imbalance comparison reads."""


@dataclass
class ReportTables:
    """Every table the report stage writes, for one cluster.

    Attributes:
        imbalance: ``gold.leader_imbalance``.
        daily: ``gold.leader_imbalance_daily``.
        unclean: ``gold.unclean_elections``.
        unclean_daily: ``gold.unclean_elections_daily``.
        offline: ``gold.offline_intervals``.
        controllers: ``gold.controller_history``.
        anomalies: ``gold.report_anomalies``.
        under_replicated: ``gold.under_replicated``.
        isr_churn: ``gold.isr_churn_daily``.
        brokers: ``gold.broker_timeline``.
        reassignments: ``gold.reassignments``.
        topics: ``gold.topic_lifecycle``.
        logged: the logged ratios, placed in their checks.
        evidence_range: the first and last moment of the evidence.
    """

    imbalance: list[ImbalanceRow] = field(default_factory=list)
    daily: list[ImbalanceDailyRow] = field(default_factory=list)
    unclean: list[UncleanRow] = field(default_factory=list)
    unclean_daily: list[UncleanDailyRow] = field(default_factory=list)
    offline: list[OfflineInterval] = field(default_factory=list)
    controllers: list[ControllerTenure] = field(default_factory=list)
    anomalies: list[AnomalyRow] = field(default_factory=list)
    under_replicated: list[UnderReplicatedInterval] = field(default_factory=list)
    isr_churn: list[IsrChurnDailyRow] = field(default_factory=list)
    brokers: list[BrokerInterval] = field(default_factory=list)
    reassignments: list[Reassignment] = field(default_factory=list)
    topics: list[TopicLifecycle] = field(default_factory=list)
    logged: list[LoggedRatio] = field(default_factory=list)
    evidence_range: tuple[int | None, int | None] = (None, None)


def logged_checks(rows: Iterable[Mapping[str, Any]]) -> list[LoggedRatio]:
    """The logged auto-rebalance ratios of ``silver.controller_events`` rows, in their checks.

    Args:
        rows: controller-event rows (any event types; only ``CHECK_EVENT_TYPES`` are read).

    Returns:
        The ratios with their check start and ``Topics not in preferred replica`` listing.
    """
    ratios: list[LoggedRatio] = []
    starts: list[tuple[int, int | None]] = []
    listings: list[tuple[int, int | None, int, tuple[str, ...]]] = []
    for row in rows:
        kind = as_str(row.get("event_type"))
        if kind == "leader_imbalance_ratio":
            ratio = logged_ratio_from_row(row)
            if ratio is not None:
                ratios.append(ratio)
        elif kind == "auto_rebalance_check" and as_str(row.get("phase")) == "check":
            time = as_ms(row.get("ts") if row.get("ts") is not None else row.get("log_time"))
            if time is not None:
                controller = row.get("controller_id")
                if controller is None:
                    controller = row.get("origin_broker")
                starts.append((time, None if controller is None else int(controller)))
        elif kind == "preferred_replica_imbalance":
            listing = not_preferred_from_row(row)
            if listing is not None:
                listings.append(listing)
    return assign_checks(ratios, starts, listings)


def evidence_range(
    timeline: Iterable[TimelineRow],
    elections: Iterable[ElectionRow],
    logged: Iterable[LoggedRatio] = (),
    facts: Iterable[ClusterFact] = (),
) -> tuple[int | None, int | None]:
    """The first and last moment any of the evidence speaks of.

    Args:
        timeline: partition intervals.
        elections: elections.
        logged: logged ratios.
        facts: cluster facts.

    Returns:
        ``(first, last)`` in UTC ms, ``(None, None)`` when there is nothing.
    """
    times: list[int] = []
    for interval in timeline:
        times.extend(t for t in (interval.valid_from_ms, interval.valid_to_ms) if t is not None)
    times.extend(e.elected_at_ms for e in elections if e.elected_at_ms is not None)
    times.extend(r.time_ms for r in logged)
    times.extend(f.time_ms for f in facts if f.time_ms is not None)
    if not times:
        return None, None
    return min(times), max(times)


def compute_report(
    cluster: str,
    *,
    timeline: Sequence[TimelineRow],
    elections: Sequence[ElectionRow],
    facts: Sequence[ClusterFact] = (),
    controller_events: Iterable[Mapping[str, Any]] = (),
    settings: ImbalanceSettings | None = None,
    min_isr_default: int | None = None,
) -> ReportTables:
    """Every report table of one cluster, from its replay outputs and facts.

    Args:
        cluster: the cluster.
        timeline: its ``gold.partition_timeline`` intervals.
        elections: its ``gold.elections`` rows.
        facts: its cluster facts (controller, brokers, topic deletion).
        controller_events: its ``silver.controller_events`` rows (for the logged checks).
        settings: threshold, mode and release.
        min_isr_default: the configured ``min.insync.replicas`` default (``kafka_defaults``).

    Returns:
        The tables.
    """
    settings = settings or ImbalanceSettings()
    timelines = ClusterTimelines.from_facts(cluster, facts)
    steps = deletion_steps(facts, timelines)
    logged = logged_checks(controller_events)
    start, end = evidence_range(timeline, elections, logged, facts)
    by_partition: dict[tuple[str, int], list[TimelineRow]] = {}
    for interval in timeline:
        by_partition.setdefault((interval.topic, interval.partition), []).append(interval)
    deltas = [
        delta
        for (topic, _), intervals in sorted(by_partition.items())
        for delta in partition_deltas(intervals, settings.rule, steps.get(topic, ()))
    ]
    imbalance = imbalance_rows(cluster, deltas, settings, logged)
    until = end if end is not None else 0
    daily = imbalance_daily(imbalance, until, preferred_elections_by_day(elections))
    unclean = unclean_rows(elections, timeline)
    return ReportTables(
        imbalance=imbalance,
        daily=daily,
        unclean=unclean,
        unclean_daily=unclean_daily(unclean),
        offline=offline_intervals(timeline, elections, broker_events(facts), end, steps),
        controllers=controller_history(cluster, facts, end),
        anomalies=ratio_anomalies(imbalance, logged),
        under_replicated=under_replicated_intervals(
            timeline, MinIsrInForce(timelines, min_isr_default), end
        ),
        isr_churn=isr_churn_daily(timeline, steps),
        brokers=broker_timeline(cluster, timelines, broker_events(facts), end),
        reassignments=reassignments(timeline, end),
        topics=topic_lifecycle(cluster, timelines, partition_spans(timeline), end),
        logged=logged,
        evidence_range=(start, end),
    )


def report_data(
    cluster: str,
    tables: ReportTables,
    *,
    elections: Sequence[ElectionRow],
    anomalies: Sequence[AnomalyRow],
    settings: ImbalanceSettings,
) -> ReportData:
    """The report's data from computed tables (pure-Python path).

    Args:
        cluster: the cluster.
        tables: ``compute_report``'s result.
        elections: the cluster's elections.
        anomalies: its ``gold.anomalies`` rows.
        settings: threshold, mode and release.

    Returns:
        The data the renderers read.
    """
    return build_report_data(
        cluster,
        imbalance=tables.imbalance,
        daily=tables.daily,
        elections=elections,
        unclean=tables.unclean,
        unclean_daily=tables.unclean_daily,
        offline=tables.offline,
        controllers=tables.controllers,
        anomalies=anomalies,
        report_anomalies=tables.anomalies,
        evidence_range=tables.evidence_range,
        kafka_version=None if settings.release is None else str(settings.release),
        mode=settings.mode,
        rule=settings.rule.value,
        threshold_percentage=settings.percentage,
        under_replicated=tables.under_replicated,
        isr_churn=tables.isr_churn,
        broker_history=tables.brokers,
        moves=tables.reassignments,
        topics=tables.topics,
    )
