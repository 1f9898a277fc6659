"""A report's scope (``kafkactl_core.report.scope.ReportScope``) applied to the gold frames the
report reads, on Spark.

The rules are the scope's own (``ReportScope.at``, ``overlaps``, ``covers_topic``,
``involves``) written as column expressions; ``tests/spark/test_report_scope.py`` checks each
frame against them row by row. The leader imbalance is per broker: ``--topic`` does not narrow
it, and each broker's state in force when the window opens is kept as an observation at its
start. ``gold.anomalies`` has no broker: ``--broker`` does not narrow it.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kafkactl_core.report.daily import day_of
from kafkactl_core.report.scope import ReportScope

__all__ = [
    "scoped_anomalies",
    "scoped_churn",
    "scoped_daily",
    "scoped_elections",
    "scoped_imbalance",
    "scoped_offline",
    "scoped_reassignments",
    "scoped_under_replicated",
]


def _moment(time_ms: int) -> Column:
    return F.lit(datetime.fromtimestamp(time_ms / 1000, UTC)).cast("timestamp")


def _at(column: str, scope: ReportScope) -> Column:
    """``ReportScope.at`` on a timestamp column."""
    if scope.from_ms is None and scope.to_ms is None:
        return F.lit(True)
    condition = F.col(column).isNotNull()
    if scope.from_ms is not None:
        condition = condition & (F.col(column) >= _moment(scope.from_ms))
    if scope.to_ms is not None:
        condition = condition & (F.col(column) < _moment(scope.to_ms))
    return condition


def _topic(scope: ReportScope) -> Column:
    """``ReportScope.covers_topic`` on the ``topic`` column."""
    pattern = scope.topic_pattern
    if pattern is None:
        return F.lit(True)
    return F.col("topic").isNotNull() & F.col("topic").rlike(pattern)


def _involves(scope: ReportScope, *columns: str, among: tuple[str, ...] = ()) -> Column:
    """``ReportScope.involves``: one of the integer ``columns`` or in one of the arrays
    ``among``."""
    if not scope.brokers:
        return F.lit(True)
    brokers = list(scope.brokers)
    condition = F.lit(False)
    for column in columns:
        condition = condition | F.coalesce(F.col(column).isin(brokers), F.lit(False))
    for array in among:
        overlap = F.arrays_overlap(F.col(array), F.array(*(F.lit(b) for b in brokers)))
        condition = condition | F.coalesce(overlap, F.lit(False))
    return condition


def scoped_elections(elections: DataFrame, scope: ReportScope) -> DataFrame:
    """``ReportScope.covers_election`` on election rows."""
    if scope.whole:
        return elections
    return elections.filter(
        _at("elected_at", scope) & _topic(scope) & _involves(scope, "prev_leader", "new_leader")
    )


def _overlapping(
    frame: DataFrame, scope: ReportScope, starts: str, ends: str, condition: Column
) -> DataFrame:
    """``ReportScope.overlaps`` on an interval's start and end (null: still open) columns."""
    if scope.to_ms is not None:
        condition = condition & (F.col(starts) < _moment(scope.to_ms))
    if scope.from_ms is not None:
        condition = condition & (F.col(ends).isNull() | (F.col(ends) >= _moment(scope.from_ms)))
    return frame.filter(condition)


def scoped_offline(offline: DataFrame, scope: ReportScope) -> DataFrame:
    """Offline intervals overlapping the window, of matching topics, whose leader before or
    after or a replica is among the brokers."""
    if scope.whole:
        return offline
    involved = _involves(scope, "prev_leader", "next_leader", among=("assignment",))
    return _overlapping(offline, scope, "offline_from", "offline_to", _topic(scope) & involved)


def scoped_under_replicated(under: DataFrame, scope: ReportScope) -> DataFrame:
    """Under-replicated stretches overlapping the window, of matching topics, whose leader or a
    replica is among the brokers."""
    if scope.whole:
        return under
    involved = _involves(scope, "leader_at_start", among=("replicas",))
    return _overlapping(under, scope, "under_from", "under_to", _topic(scope) & involved)


def scoped_reassignments(moves: DataFrame, scope: ReportScope) -> DataFrame:
    """Reassignments overlapping the window, of matching topics, moving a replica or the
    leader of one of the brokers."""
    if scope.whole:
        return moves
    involved = _involves(
        scope, "leader_before", "leader_after", among=("replicas_from", "replicas_to")
    )
    return _overlapping(moves, scope, "started", "finished", _topic(scope) & involved)


def scoped_churn(churn: DataFrame, scope: ReportScope) -> DataFrame:
    """Daily ISR churn rows of matching topics and replicas, on the days the window touches."""
    if scope.whole:
        return churn
    return churn.filter(_days(scope) & _topic(scope) & _involves(scope, "broker"))


def scoped_anomalies(anomalies: DataFrame, scope: ReportScope) -> DataFrame:
    """Anomalies observed in the window, of matching topics."""
    if scope.whole:
        return anomalies
    return anomalies.filter(_at("observed_at", scope) & _topic(scope))


def scoped_imbalance(imbalance: DataFrame, scope: ReportScope) -> DataFrame:
    """The brokers' imbalance observations in the window, each broker's last change before it
    moved to its start (the state in force when the window opens)."""
    if scope.whole:
        return imbalance
    frame = imbalance.filter(_involves(scope, "broker"))
    if scope.from_ms is None:
        return frame.filter(_at("observed_at", scope))
    start = _moment(scope.from_ms)
    latest = Window.partitionBy("broker").orderBy(F.desc("observed_at"))
    carried = (
        frame.filter((F.col("observation") == "change") & (F.col("observed_at") < start))
        .withColumn("_latest", F.row_number().over(latest))
        .filter(F.col("_latest") == 1)
        .drop("_latest")
        .withColumn("observed_at", start)
    )
    return frame.filter(_at("observed_at", scope)).unionByName(carried)


def _days(scope: ReportScope) -> Column:
    """``ReportScope.covers_day`` on the ``day`` column (the bounds computed here: a Spark date
    of a timestamp would be in the session's time zone)."""
    condition = F.lit(True)
    if scope.from_ms is not None:
        condition = condition & (F.col("day") >= F.lit(day_of(scope.from_ms)))
    if scope.to_ms is not None:
        condition = condition & (F.col("day") <= F.lit(day_of(scope.to_ms - 1)))
    return condition


def scoped_daily(daily: DataFrame, scope: ReportScope) -> DataFrame:
    """Daily imbalance rows of the brokers, on the days the window touches."""
    if scope.whole:
        return daily
    return daily.filter(_days(scope) & _involves(scope, "broker"))
