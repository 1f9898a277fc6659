"""What the human-readable report shows, as plain data: ``ReportData`` and its builders.

The Spark job fills ``ReportData`` from the gold tables (small aggregates and the highlights it
collects); the pure-Python path (``build_report_data``) fills it from full row lists, for tests
and small inputs. The renderers (``kafkactl_core.report.render``) only read ``ReportData``, so
both paths produce the same files from the same evidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kafkactl_core.replay.rows import AnomalyRow, ElectionRow
from kafkactl_core.report.daily import ElectionOutcome, preferred_moves
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

__all__ = [
    "BrokerPoint",
    "BrokerSummary",
    "CheckSummary",
    "Rebalance",
    "ReportData",
    "broker_points",
    "broker_summaries",
    "build_report_data",
    "check_summary",
    "downsample",
    "election_bins",
    "election_layer",
    "offline_summary",
    "preferred_times",
    "rebalances",
    "rebalances_after",
    "topic_changes",
]

HOUR_MS = 3_600_000
DAY_MS = 86_400_000
REBALANCE_WINDOW_MS = 60_000
"""Preferred elections this soon after a check over the threshold are that check's work."""


@dataclass(frozen=True, slots=True)
class BrokerPoint:
    """A broker's imbalance at a moment it changed (the charts' points).

    Attributes:
        time_ms: when.
        broker: the broker.
        ratio: the imbalance ratio (``None``: no preferred partitions).
        would_trigger: above the threshold (ZooKeeper mode).
        leaders: partitions it leads.
        leaders_total: partitions with a leader in the cluster.
    """

    time_ms: int
    broker: int
    ratio: float | None
    would_trigger: bool | None
    leaders: int
    leaders_total: int


@dataclass(frozen=True, slots=True)
class Rebalance:
    """An auto-rebalance check that found a broker over the threshold.

    Attributes:
        check_ms: when the check began.
        controller_id: the controller.
        broker: the broker over the threshold.
        logged_ratio: the ratio it logged.
        computed_ratio: the ratio from the evidence.
        preferred_elections: preferred elections to the broker within a minute after.
    """

    check_ms: int
    controller_id: int | None
    broker: int
    logged_ratio: float | None
    computed_ratio: float | None
    preferred_elections: int


@dataclass(frozen=True, slots=True)
class CheckSummary:
    """How the logged ratios compare with the computed ones.

    Attributes:
        checks: distinct checks logged.
        compared: logged ratio lines compared.
        matched: of those, equal to the computed ratio.
        mismatched: of those, different.
    """

    checks: int = 0
    compared: int = 0
    matched: int = 0
    mismatched: int = 0


@dataclass(frozen=True, slots=True)
class BrokerSummary:
    """One broker over the whole evidence (the "most skewed brokers" table).

    Attributes:
        broker: the broker.
        seconds_above_threshold: total time its ratio was above the threshold.
        max_ratio: its highest ratio.
        max_ratio_at_ms: when first reached.
        above_since_ms: when its current stretch above the threshold began (``None`` when it
            ends below).
        last_above_from_ms: the start of its last stretch above the threshold.
        last_above_to_ms: the end of that stretch (``None``: still above at the end).
        last_ratio: its ratio at the end of the evidence.
        last_leaders: partitions it led at the end.
        leader_share: its share of the cluster's leaders at the end.
        preferred_elections: preferred elections that moved leadership to it.
    """

    broker: int
    seconds_above_threshold: float
    max_ratio: float | None
    max_ratio_at_ms: int | None
    above_since_ms: int | None
    last_above_from_ms: int | None
    last_above_to_ms: int | None
    last_ratio: float | None
    last_leaders: int
    leader_share: float | None
    preferred_elections: int


@dataclass(frozen=True)
class ReplicationSummary:
    """What the report shows of ``gold.under_replicated`` and ``gold.isr_churn_daily``.

    Attributes:
        under_replicated: stretches with the ISR smaller than the replicas.
        under_min_isr: stretches with the ISR smaller than ``min.insync.replicas``.
        longest: the longest stretches, longest first (then by start, topic, partition).
        churn: the partition, replica and day rows with the most shrinks and expands, most
            first (then by day, topic, partition, broker).
    """

    under_replicated: int = 0
    under_min_isr: int = 0
    longest: tuple[UnderReplicatedInterval, ...] = ()
    churn: tuple[IsrChurnDailyRow, ...] = ()


HISTORY_SHOWN = 50
"""How many of the brokers' stretches out of service, and of the reassignments, the report
lists."""


def downtime(history: Iterable[BrokerInterval]) -> list[BrokerInterval]:
    """The first ``HISTORY_SHOWN`` stretches a broker was in controlled shutdown or offline,
    in time order (then by broker)."""
    stretches = [r for r in history if r.state != "online"]
    return sorted(stretches, key=lambda r: (r.state_from_ms, r.broker))[:HISTORY_SHOWN]


def topic_changes(lives: Iterable[TopicLifecycle]) -> list[TopicLifecycle]:
    """The first ``HISTORY_SHOWN`` topics created or deleted within the evidence, stuck
    deletions first, then in time order (then by topic)."""
    changed = [t for t in lives if t.created_ms is not None or t.deletion_requested_ms is not None]
    return sorted(changed, key=lambda t: (t.state != "stuck", t.first_seen_ms or 0, t.topic))[
        :HISTORY_SHOWN
    ]


def _under_replicated_rank(
    r: UnderReplicatedInterval,
) -> tuple[float, int, str, int, str]:
    """The order of the longest stretches: longest first, then by start, topic, partition."""
    return (-(r.duration_seconds or 0.0), r.under_from_ms, r.topic, r.partition, r.condition)


def _churn_rank(r: IsrChurnDailyRow) -> tuple[int, str, str, int, int]:
    """The order of the busiest churn rows: most changes first, then day, topic, partition."""
    return (-(r.shrinks + r.expands), r.day.isoformat(), r.topic, r.partition, r.broker)


def replication_summary(
    under: Sequence[UnderReplicatedInterval], churn: Sequence[IsrChurnDailyRow], limit: int = 20
) -> ReplicationSummary:
    """The replication highlights from full row lists (the pure-Python path).

    Args:
        under: ``gold.under_replicated`` rows.
        churn: ``gold.isr_churn_daily`` rows.
        limit: how many of the longest stretches and busiest rows to show.

    Returns:
        The counts and the highlights.
    """
    return ReplicationSummary(
        under_replicated=sum(1 for r in under if r.condition == "under_replicated"),
        under_min_isr=sum(1 for r in under if r.condition == "under_min_isr"),
        longest=tuple(sorted(under, key=_under_replicated_rank)[:limit]),
        churn=tuple(sorted(churn, key=_churn_rank)[:limit]),
    )


@dataclass
class ReportData:
    """Everything the report renders.

    Attributes:
        cluster: the cluster.
        kafka_version: the release the rules were taken from, when known.
        mode: ``zk`` or ``kraft``.
        preferred_imbalance_rule: the ``PreferredReplicaImbalanceCount`` definition used.
        threshold_percentage: ``leader.imbalance.per.broker.percentage``.
        evidence_from_ms: the first moment of the evidence.
        evidence_to_ms: the last moment of the evidence.
        points: per broker, its imbalance at each moment it changed.
        election_bin_ms: the width of the election-count bins (an hour, or a day for long spans).
        election_counts: ``(bin start, layer, count)``; layers are triggers, ``failed`` and
            ``unclean`` marked (``election_layer``).
        offline: the offline-partition count over time (``offline_steps``).
        offline_longest: the longest offline intervals.
        offline_count: offline intervals in all.
        offline_open: offline intervals still open at the end.
        offline_seconds: their summed duration.
        unclean: every unclean election.
        unclean_daily: unclean elections per day and topic.
        controllers: the controller terms.
        daily: the daily imbalance rollup.
        brokers: the per-broker summaries, most skewed first.
        rebalances: the checks over the threshold and what followed.
        checks: the logged-versus-computed comparison.
        anomaly_counts: ``(table, kind, severity, count)`` over ``gold.anomalies`` and
            ``gold.report_anomalies``.
        report_anomalies: the anomalies the report itself found (first ones).
        replication: under-replicated stretches and ISR churn.
        broker_downtime: the brokers' stretches in controlled shutdown or offline, in time
            order (``downtime``).
        moves: the reassignments, in time order (the first ``HISTORY_SHOWN``).
        topics: the topics created or deleted within the evidence (``topic_changes``).
        scope: what the report covers (``ReportScope.describe``; ``everything`` by default).
    """

    cluster: str
    kafka_version: str | None = None
    mode: str = "zk"
    preferred_imbalance_rule: str = ""
    threshold_percentage: int = 10
    evidence_from_ms: int | None = None
    evidence_to_ms: int | None = None
    points: dict[int, list[BrokerPoint]] = field(default_factory=dict)
    election_bin_ms: int = HOUR_MS
    election_counts: list[tuple[int, str, int]] = field(default_factory=list)
    offline: list[tuple[int, int]] = field(default_factory=list)
    offline_longest: list[OfflineInterval] = field(default_factory=list)
    offline_count: int = 0
    offline_open: int = 0
    offline_seconds: float = 0.0
    unclean: list[UncleanRow] = field(default_factory=list)
    unclean_daily: list[UncleanDailyRow] = field(default_factory=list)
    controllers: list[ControllerTenure] = field(default_factory=list)
    daily: list[ImbalanceDailyRow] = field(default_factory=list)
    brokers: list[BrokerSummary] = field(default_factory=list)
    rebalances: list[Rebalance] = field(default_factory=list)
    checks: CheckSummary = field(default_factory=CheckSummary)
    anomaly_counts: list[tuple[str, str, str, int]] = field(default_factory=list)
    report_anomalies: list[AnomalyRow] = field(default_factory=list)
    replication: ReplicationSummary = field(default_factory=ReplicationSummary)
    broker_downtime: list[BrokerInterval] = field(default_factory=list)
    moves: list[Reassignment] = field(default_factory=list)
    topics: list[TopicLifecycle] = field(default_factory=list)
    scope: str = "everything"

    @property
    def threshold(self) -> float:
        """The threshold as a ratio."""
        return self.threshold_percentage / 100


def broker_points(rows: Iterable[ImbalanceRow]) -> dict[int, list[BrokerPoint]]:
    """Each broker's ``change`` rows where its ratio, leaders or the leader total changed.

    Args:
        rows: ``gold.leader_imbalance`` rows of one cluster.

    Returns:
        Broker -> points in time order.
    """
    by_broker: dict[int, list[ImbalanceRow]] = {}
    for row in rows:
        if row.observation == "change":
            by_broker.setdefault(row.broker, []).append(row)
    out: dict[int, list[BrokerPoint]] = {}
    for broker in sorted(by_broker):
        items = sorted(by_broker[broker], key=lambda r: r.observed_at_ms)
        points: list[BrokerPoint] = []
        for row in items:
            point = BrokerPoint(
                row.observed_at_ms,
                broker,
                row.imbalance_ratio,
                row.would_trigger,
                row.leaders,
                row.leaders_total,
            )
            last = points[-1] if points else None
            if last is None or (last.ratio, last.leaders, last.leaders_total) != (
                point.ratio,
                point.leaders,
                point.leaders_total,
            ):
                points.append(point)
        out[broker] = points
    return out


def downsample(points: Sequence[BrokerPoint], limit: int = 2_000) -> list[BrokerPoint]:
    """At most about ``limit`` points per broker for a chart, keeping every bucket's peak.

    Args:
        points: a broker's points in time order.
        limit: the most points to keep.

    Returns:
        The points (unchanged when few enough): per time bucket the one with the highest
        ratio, plus the last point.
    """
    if len(points) <= limit:
        return list(points)
    start, end = points[0].time_ms, points[-1].time_ms
    width = max(1, (end - start) // (limit // 2) + 1)
    buckets: dict[int, BrokerPoint] = {}
    for point in points:
        key = (point.time_ms - start) // width
        best = buckets.get(key)
        if best is None or (point.ratio or 0.0) > (best.ratio or 0.0):
            buckets[key] = point
    kept = sorted(buckets.values(), key=lambda p: p.time_ms)
    if kept[-1] != points[-1]:
        kept.append(points[-1])
    return kept


def election_layer(election: ElectionRow) -> str:
    """The chart layer of an election: its trigger, ``failed`` or ``unclean`` marked."""
    if election.failed:
        return f"{election.trigger} (failed)"
    if election.unclean:
        return f"{election.trigger} (unclean)"
    return election.trigger


def election_bins(
    elections: Iterable[ElectionRow], span_ms: int
) -> tuple[int, list[tuple[int, str, int]]]:
    """Elections per time bin and layer.

    Args:
        elections: ``gold.elections`` rows (``actual`` ones with a time count).
        span_ms: the evidence's span: bins are hours up to 14 days, days beyond.

    Returns:
        The bin width and ``(bin start, layer, count)`` sorted by bin then layer.
    """
    width = HOUR_MS if span_ms <= 14 * DAY_MS else DAY_MS
    counts: dict[tuple[int, str], int] = {}
    for election in elections:
        if election.scenario != "actual" or election.elected_at_ms is None:
            continue
        key = (election.elected_at_ms // width * width, election_layer(election))
        counts[key] = counts.get(key, 0) + 1
    return width, [(start, layer, n) for (start, layer), n in sorted(counts.items())]


def preferred_times(elections: Iterable[ElectionOutcome]) -> dict[int, list[int]]:
    """When preferred elections moved leadership to each broker.

    Args:
        elections: ``gold.elections`` rows (only those ``moved_by_preference`` count).

    Returns:
        Broker -> times (UTC ms) of the ``actual`` preferred elections that made it leader.
    """
    out: dict[int, list[int]] = {}
    for broker, elected_at_ms in preferred_moves(elections):
        out.setdefault(broker, []).append(elected_at_ms)
    return out


def rebalances(
    rows: Iterable[ImbalanceRow], elections: Iterable[ElectionOutcome], threshold: float
) -> list[Rebalance]:
    """The logged checks that found a broker over the threshold, and the elections that followed.

    Args:
        rows: ``check`` rows (others are ignored).
        elections: ``gold.elections`` rows.
        threshold: the threshold ratio.

    Returns:
        As ``rebalances_after``.
    """
    return rebalances_after(rows, preferred_times(elections), threshold)


def rebalances_after(
    rows: Iterable[ImbalanceRow], preferred: Mapping[int, Sequence[int]], threshold: float
) -> list[Rebalance]:
    """The checks over the threshold and the preferred elections within a minute after.

    Args:
        rows: ``check`` rows (others are ignored).
        preferred: ``preferred_times``.
        threshold: the threshold ratio.

    Returns:
        One entry per (check, broker) over the threshold (by the logged ratio, or the computed
        one when nothing was logged), in time order.
    """
    out: list[Rebalance] = []
    for row in rows:
        if row.observation != "check":
            continue
        ratio = row.logged_ratio if row.logged_ratio is not None else row.imbalance_ratio
        if ratio is None or not ratio > threshold:
            continue
        start = row.observed_at_ms  # the broker's ratio line: its elections follow it
        moved = sum(
            1 for t in preferred.get(row.broker, ()) if start <= t < start + REBALANCE_WINDOW_MS
        )
        out.append(
            Rebalance(
                row.check_ms,
                row.controller_id,
                row.broker,
                row.logged_ratio,
                row.imbalance_ratio,
                moved,
            )
        )
    out.sort(key=lambda r: (r.check_ms, r.broker))
    return out


def check_summary(rows: Iterable[ImbalanceRow]) -> CheckSummary:
    """Count the compared checks.

    Args:
        rows: ``gold.leader_imbalance`` rows.

    Returns:
        The summary.
    """
    checks: set[int] = set()
    compared = matched = 0
    for row in rows:
        if row.observation != "check" or row.logged_ratio is None:
            continue
        checks.add(row.check_ms)
        compared += 1
        matched += row.logged_matches is True
    return CheckSummary(len(checks), compared, matched, compared - matched)


def broker_summaries(
    points: Mapping[int, Sequence[BrokerPoint]],
    daily: Iterable[ImbalanceDailyRow],
    until_ms: int | None,
) -> list[BrokerSummary]:
    """Per broker over the whole evidence, most skewed first.

    Args:
        points: ``broker_points`` (full, not downsampled).
        daily: the daily rollup (for time above the threshold and preferred elections).
        until_ms: the end of the evidence.

    Returns:
        Summaries ordered by time above the threshold, then highest ratio, then broker.
    """
    above: dict[int, float] = {}
    elected: dict[int, int] = {}
    for row in daily:
        above[row.broker] = above.get(row.broker, 0.0) + row.seconds_above_threshold
        elected[row.broker] = elected.get(row.broker, 0) + row.preferred_elections
    out: list[BrokerSummary] = []
    for broker, items in points.items():
        if not items:
            continue
        best: BrokerPoint | None = None
        stretch_from: int | None = None
        last_from: int | None = None
        last_to: int | None = None
        for point in items:
            if point.ratio is not None and (best is None or point.ratio > (best.ratio or 0.0)):
                best = point
            if point.would_trigger:
                if stretch_from is None:
                    stretch_from = point.time_ms
            elif stretch_from is not None:
                last_from, last_to, stretch_from = stretch_from, point.time_ms, None
        if stretch_from is not None:
            last_from, last_to = stretch_from, None
        last = items[-1]
        out.append(
            BrokerSummary(
                broker=broker,
                seconds_above_threshold=round(above.get(broker, 0.0), 3),
                max_ratio=None if best is None else best.ratio,
                max_ratio_at_ms=None if best is None else best.time_ms,
                above_since_ms=stretch_from,
                last_above_from_ms=last_from,
                last_above_to_ms=last_to,
                last_ratio=last.ratio,
                last_leaders=last.leaders,
                leader_share=last.leaders / last.leaders_total if last.leaders_total else None,
                preferred_elections=elected.get(broker, 0),
            )
        )
    out.sort(key=lambda s: (-s.seconds_above_threshold, -(s.max_ratio or 0.0), s.broker))
    return out


def offline_summary(
    offline: Sequence[OfflineInterval], longest: int
) -> tuple[list[tuple[int, int]], list[OfflineInterval], int, float]:
    """What the report says of the offline intervals.

    Args:
        offline: ``gold.offline_intervals`` rows.
        longest: how many of the longest to list.

    Returns:
        The count of offline partitions over time (``offline_steps``), the longest intervals
        (longest first; an open one counts as its duration so far), how many are still open,
        and their total seconds.
    """
    from kafkactl_core.report.offline import offline_steps

    ranked = sorted(
        offline,
        key=lambda r: (-(r.duration_seconds or 0.0), r.offline_from_ms, r.topic, r.partition),
    )
    return (
        offline_steps(offline),
        ranked[:longest],
        sum(1 for r in offline if r.open_ended),
        round(sum(r.duration_seconds or 0.0 for r in offline), 3),
    )


def build_report_data(
    cluster: str,
    *,
    imbalance: Sequence[ImbalanceRow],
    daily: Sequence[ImbalanceDailyRow],
    elections: Sequence[ElectionRow],
    unclean: Sequence[UncleanRow],
    unclean_daily: Sequence[UncleanDailyRow],
    offline: Sequence[OfflineInterval],
    controllers: Sequence[ControllerTenure],
    anomalies: Sequence[AnomalyRow],
    report_anomalies: Sequence[AnomalyRow],
    evidence_range: tuple[int | None, int | None],
    kafka_version: str | None,
    mode: str,
    rule: str,
    threshold_percentage: int,
    under_replicated: Sequence[UnderReplicatedInterval] = (),
    isr_churn: Sequence[IsrChurnDailyRow] = (),
    broker_history: Sequence[BrokerInterval] = (),
    moves: Sequence[Reassignment] = (),
    topics: Sequence[TopicLifecycle] = (),
    longest: int = 20,
) -> ReportData:
    """``ReportData`` from full row lists (the pure-Python path).

    Args:
        cluster: the cluster.
        imbalance: ``gold.leader_imbalance`` rows.
        daily: ``gold.leader_imbalance_daily`` rows.
        elections: ``gold.elections`` rows.
        unclean: ``gold.unclean_elections`` rows.
        unclean_daily: ``gold.unclean_elections_daily`` rows.
        offline: ``gold.offline_intervals`` rows.
        controllers: ``gold.controller_history`` rows.
        anomalies: ``gold.anomalies`` rows.
        report_anomalies: ``gold.report_anomalies`` rows.
        evidence_range: the first and last moment of the evidence.
        kafka_version: the release, when known.
        mode: ``zk`` or ``kraft``.
        rule: the ``PreferredReplicaImbalanceCount`` definition used.
        threshold_percentage: ``leader.imbalance.per.broker.percentage``.
        under_replicated: ``gold.under_replicated`` rows.
        isr_churn: ``gold.isr_churn_daily`` rows.
        broker_history: ``gold.broker_timeline`` rows.
        moves: ``gold.reassignments`` rows.
        topics: ``gold.topic_lifecycle`` rows.
        longest: how many of the longest intervals to show.

    Returns:
        The report's data.
    """
    start, end = evidence_range
    span = (end or 0) - (start or 0)
    points = broker_points(imbalance)
    width, counts = election_bins(elections, span)
    counted: dict[tuple[str, str, str], int] = {}
    for table, items in (("anomalies", anomalies), ("report_anomalies", report_anomalies)):
        for anomaly in items:
            key = (table, anomaly.kind, anomaly.severity)
            counted[key] = counted.get(key, 0) + 1
    steps, ranked, offline_open, offline_seconds = offline_summary(offline, longest)
    return ReportData(
        cluster=cluster,
        kafka_version=kafka_version,
        mode=mode,
        preferred_imbalance_rule=rule,
        threshold_percentage=threshold_percentage,
        evidence_from_ms=start,
        evidence_to_ms=end,
        points={b: downsample(p) for b, p in points.items()},
        election_bin_ms=width,
        election_counts=counts,
        offline=steps,
        offline_longest=ranked,
        offline_count=len(offline),
        offline_open=offline_open,
        offline_seconds=offline_seconds,
        unclean=list(unclean),
        unclean_daily=list(unclean_daily),
        controllers=list(controllers),
        daily=list(daily),
        brokers=broker_summaries(points, daily, end),
        rebalances=rebalances(imbalance, elections, threshold_percentage / 100),
        checks=check_summary(imbalance),
        anomaly_counts=sorted((t, k, s, n) for (t, k, s), n in counted.items()),
        report_anomalies=sorted(
            report_anomalies, key=lambda a: (a.observed_at_ms or 0, a.kind, a.detail)
        )[:50],
        replication=replication_summary(under_replicated, isr_churn, longest),
        broker_downtime=downtime(broker_history),
        moves=sorted(moves, key=lambda r: (r.started_ms, r.topic, r.partition))[:HISTORY_SHOWN],
        topics=topic_changes(topics),
    )
