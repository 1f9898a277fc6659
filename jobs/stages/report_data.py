"""The report's data (``kafkactl_core.report.ReportData``) read back from the tables the report
stage wrote: small aggregates and highlights computed by Spark, collected to the driver; and the
helpers that hand timestamps to the driver and to tasks as UTC epoch milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, NamedTuple

from pyspark.sql import DataFrame, Row, Window
from pyspark.sql import functions as F
from pyspark.sql.types import TimestampType

from jobs.stages.report_scope import scoped_anomalies
from kafkactl_core.replay.rows import AnomalyRow
from kafkactl_core.replay.values import as_ms
from kafkactl_core.report import ImbalanceSettings, ReportData, rows
from kafkactl_core.report.document import (
    DAY_MS,
    HOUR_MS,
    BrokerPoint,
    ReplicationSummary,
    broker_summaries,
    check_summary,
    downsample,
    offline_summary,
    rebalances,
)
from kafkactl_core.report.scope import ReportScope

__all__ = [
    "ElectionOutline",
    "collect_ms",
    "election_outlines",
    "replication_highlights",
    "report_data",
    "with_ms",
]

_LONGEST = 20
"""How many of the longest intervals and busiest rows the report lists."""


def with_ms(frame: DataFrame, *names: str) -> DataFrame:
    """Timestamps as epoch milliseconds for the tasks."""
    for name in names:
        frame = frame.withColumn(name, F.unix_millis(F.col(name)))
    return frame


def collect_ms(frame: DataFrame) -> list[Row]:
    """``frame``'s rows on the driver, every timestamp column as epoch milliseconds (UTC).

    PySpark hands the driver a timestamp as a naive datetime in the driver process's own time
    zone, which the core's ``as_ms`` reads as UTC: the instant shifted by the zone's offset
    wherever the driver does not run in UTC (a spark-submit driver runs wherever it was
    submitted). Milliseconds computed by Spark say the instant in any zone.
    """
    stamps = [f.name for f in frame.schema.fields if isinstance(f.dataType, TimestampType)]
    return with_ms(frame, *stamps).collect()


def _points(imbalance: DataFrame) -> dict[int, list[BrokerPoint]]:
    order = Window.partitionBy("broker").orderBy("observed_at")
    key = F.struct("imbalance_ratio", "leaders", "leaders_total")
    changed = (
        imbalance.filter(F.col("observation") == "change")
        .select(
            F.unix_millis("observed_at").alias("t"),
            "observed_at",
            "broker",
            "imbalance_ratio",
            "would_trigger",
            "leaders",
            "leaders_total",
            key.alias("key"),
        )
        .withColumn("previous", F.lag("key").over(order))
        .filter(F.col("previous").isNull() | (F.col("previous") != F.col("key")))
    )
    # Every change of a day at scale is ~500k points: Arrow brings them in a tenth of the time
    # of Row objects.
    fields = ("t", "broker", "imbalance_ratio", "would_trigger", "leaders", "leaders_total")
    table = changed.orderBy("broker", "t").select(*fields).toArrow()
    out: dict[int, list[BrokerPoint]] = {}
    for values in zip(*(table.column(name).to_pylist() for name in fields), strict=True):
        point = BrokerPoint(*values)
        out.setdefault(point.broker, []).append(point)
    return out


def _election_bins(elections: DataFrame, span_ms: int) -> tuple[int, list[tuple[int, str, int]]]:
    width = HOUR_MS if span_ms <= 14 * DAY_MS else DAY_MS
    layer = (
        F.when(F.col("new_leader") < 0, F.concat(F.col("trigger"), F.lit(" (failed)")))
        .when(F.col("unclean"), F.concat(F.col("trigger"), F.lit(" (unclean)")))
        .otherwise(F.col("trigger"))
    )
    binned = (
        elections.filter(F.col("elected_at").isNotNull())
        .select(
            (F.floor(F.unix_millis("elected_at") / width) * width).cast("long").alias("bin"),
            layer.alias("layer"),
        )
        .groupBy("bin", "layer")
        .count()
        .orderBy("bin", "layer")
        .collect()
    )
    return width, [(int(r["bin"]), str(r["layer"]), int(r["count"])) for r in binned]


def _offline_interval(row: Mapping[str, Any]) -> rows.OfflineInterval:
    return rows.OfflineInterval(
        cluster=row["cluster"],
        topic=row["topic"],
        partition=int(row["partition"]),
        offline_from_ms=as_ms(row["offline_from"]) or 0,
        offline_to_ms=as_ms(row["offline_to"]),
        duration_seconds=row["duration_seconds"],
        open_ended=bool(row["open_ended"]),
        prev_leader=row["prev_leader"],
        next_leader=row["next_leader"],
        isr_at_start=None if row["isr_at_start"] is None else tuple(row["isr_at_start"]),
        assignment=None if row["assignment"] is None else tuple(row["assignment"]),
        cause=row["cause"],
        ended_by=row["ended_by"],
        evidence=tuple(row["evidence"] or ()),
    )


def replication_highlights(under: DataFrame, churn: DataFrame) -> ReplicationSummary:
    """The replication highlights, in ``replication_summary``'s counts and orders."""
    counts = {r["condition"]: int(r["count"]) for r in under.groupBy("condition").count().collect()}
    longest = under.orderBy(
        F.desc(F.coalesce("duration_seconds", F.lit(0.0))),
        "under_from",
        "topic",
        "partition",
        "condition",
    )
    busiest = churn.orderBy(
        F.desc(F.col("shrinks") + F.col("expands")), "day", "topic", "partition", "broker"
    )
    return ReplicationSummary(
        under_replicated=counts.get("under_replicated", 0),
        under_min_isr=counts.get("under_min_isr", 0),
        longest=tuple(
            rows.UnderReplicatedInterval.from_row(r.asDict())
            for r in collect_ms(longest.limit(_LONGEST))
        ),
        churn=tuple(
            rows.IsrChurnDailyRow.from_row(r.asDict()) for r in collect_ms(busiest.limit(_LONGEST))
        ),
    )


def _check_rows(imbalance: DataFrame) -> list[rows.ImbalanceRow]:
    """The ``check`` rows (a check per broker every few minutes: thousands on a day at scale)."""
    return [
        rows.ImbalanceRow.from_row(r.asDict())
        for r in collect_ms(imbalance.filter(F.col("observation") == "check"))
    ]


def _anomaly_counts(
    anomalies: DataFrame | None, report_anomalies: Sequence[AnomalyRow]
) -> list[tuple[str, str, str, int]]:
    counted: dict[tuple[str, str, str], int] = {}
    if anomalies is not None:
        for row in anomalies.groupBy("kind", "severity").count().collect():
            counted[("anomalies", str(row["kind"]), str(row["severity"]))] = int(row["count"])
    for anomaly in report_anomalies:
        key = ("report_anomalies", anomaly.kind, anomaly.severity)
        counted[key] = counted.get(key, 0) + 1
    return sorted((t, k, s, n) for (t, k, s), n in counted.items())


class ElectionOutline(NamedTuple):
    """What the preferred-election rule (``moved_by_preference``) and a report scope
    (``ReportScope.covers_election``) read of a ``gold.elections`` row."""

    scenario: str
    trigger: str
    topic: str
    prev_leader: int | None
    new_leader: int
    elected_at_ms: int | None


def election_outlines(elections: DataFrame) -> list[ElectionOutline]:
    """Every election's outline on the driver, in one Arrow collect (a day of a large cluster:
    about 100,000 rows), for the core's rules to read.

    Args:
        elections: ``gold.elections`` rows.

    Returns:
        Their outlines, in no particular order.
    """
    elected_at = F.unix_millis("elected_at").alias("elected_at_ms")
    table = elections.select(*ElectionOutline._fields[:-1], elected_at).toArrow()
    values = (table.column(name).to_pylist() for name in ElectionOutline._fields)
    return [ElectionOutline(*row) for row in zip(*values, strict=True)]


_DAILY_COUNTS = (
    "broker",
    "observations",
    "checks_logged",
    "checks_over_threshold",
    "check_mismatches",
    "preferred_elections",
)
"""``rows.ImbalanceDailyRow`` fields read as ints from a ``gold.leader_imbalance_daily`` row."""
_DAILY_SECONDS = ("seconds_above_threshold", "observed_seconds", "threshold")
"""``rows.ImbalanceDailyRow`` fields read as floats."""


def _daily_row(cluster: str, r: Row) -> rows.ImbalanceDailyRow:
    counts: dict[str, Any] = {name: int(r[name]) for name in _DAILY_COUNTS}
    seconds: dict[str, Any] = {name: float(r[name]) for name in _DAILY_SECONDS}
    return rows.ImbalanceDailyRow(
        cluster=cluster,
        day=r["day"] if isinstance(r["day"], date) else date.fromisoformat(str(r["day"])),
        max_ratio=r["max_ratio"],
        max_ratio_at_ms=as_ms(r["max_ratio_at"]),
        leaders_min=r["leaders_min"],
        leaders_max=r["leaders_max"],
        **counts,
        **seconds,
    )


def report_data(
    anomalies: DataFrame | None,
    cluster: str,
    settings: ImbalanceSettings,
    scope: ReportScope,
    evidence_range: tuple[int | None, int | None],
    *,
    imbalance: DataFrame,
    daily: DataFrame,
    elections: DataFrame,
    outlines: Sequence[ElectionOutline],
    offline: DataFrame,
    unclean: Sequence[rows.UncleanRow],
    unclean_days: Sequence[Any],
    controllers: Sequence[rows.ControllerTenure],
    report_anomalies: Sequence[AnomalyRow],
    replication: ReplicationSummary,
    broker_downtime: list[rows.BrokerInterval],
    moves: list[rows.Reassignment],
    topics: list[rows.TopicLifecycle],
) -> ReportData:
    """The report's data from the written tables, narrowed to ``scope``: small aggregates and
    highlights only (``gold.anomalies``' rows of the cluster given as ``anomalies``; the
    elections in scope as ``elections`` for the bins and as ``outlines`` for the rebalances)."""
    start, end = evidence_range
    points = _points(imbalance)
    checks = _check_rows(imbalance)
    daily_rows = [_daily_row(cluster, r) for r in collect_ms(daily.orderBy("day", "broker"))]
    width, counts = _election_bins(elections, (end or 0) - (start or 0))
    # Offline intervals are few (a scale day has ~2,000): one collect, the core's summary.
    intervals = [_offline_interval(r.asDict()) for r in collect_ms(offline)]
    steps, longest, still, seconds = offline_summary(intervals, _LONGEST)
    if anomalies is not None:
        anomalies = scoped_anomalies(anomalies, scope)
    return ReportData(
        cluster=cluster,
        kafka_version=None if settings.release is None else str(settings.release),
        mode=settings.mode,
        preferred_imbalance_rule=settings.rule.value,
        threshold_percentage=settings.percentage,
        evidence_from_ms=start,
        evidence_to_ms=end,
        points={b: downsample(p) for b, p in points.items()},
        election_bin_ms=width,
        election_counts=counts,
        offline=steps,
        offline_longest=longest,
        offline_count=len(intervals),
        offline_open=still,
        offline_seconds=seconds,
        unclean=list(unclean),
        unclean_daily=list(unclean_days),
        controllers=list(controllers),
        daily=daily_rows,
        brokers=broker_summaries(points, daily_rows, end),
        rebalances=rebalances(checks, outlines, settings.threshold),
        checks=check_summary(checks),
        anomaly_counts=_anomaly_counts(anomalies, report_anomalies),
        report_anomalies=sorted(
            report_anomalies, key=lambda a: (a.observed_at_ms or 0, a.kind, a.detail)
        )[:50],
        replication=replication,
        broker_downtime=broker_downtime,
        moves=moves,
        topics=topics,
        scope=scope.describe(),
    )
