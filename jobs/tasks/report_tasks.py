"""The report stage's task functions: pandas batches in, core records out (thin adapters).

Spark hands each function the rows of one group (``applyInPandas``) or a batch
(``mapInPandas``) with times as epoch milliseconds; the function turns them into the core's
records, calls ``kafkactl_core.report``, and returns "wire" rows: the table's columns with
timestamps as epoch milliseconds and dates as ISO text (``jobs.tasks.wire``), which
``from_wire`` casts back. Nothing here computes a formula of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date
from typing import Any

import pandas as pd
from pyspark.sql.types import (
    ArrayType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from jobs.tasks.wire import wire_row
from kafkactl_core.replay.rows import ElectionRow
from kafkactl_core.replay.values import as_int, as_str
from kafkactl_core.report import (
    COUNTERS,
    BrokerEvents,
    ImbalanceSettings,
    LoggedRatio,
    assign_checks,
    election_from_row,
    imbalance_daily,
    imbalance_sweep,
    logged_ratio_from_row,
    not_preferred_from_row,
    offline_intervals,
    partition_deltas,
    unclean_rows,
)
from kafkactl_core.report.imbalance import Moment
from kafkactl_core.report.reassignments import reassignments
from kafkactl_core.report.replication import MinIsr, isr_churn_daily, under_replicated_intervals
from kafkactl_core.report.rows import ImbalanceRow, timeline_from_row
from kafkactl_core.report.topics import partition_spans

__all__ = [
    "CHECKS_SCHEMA",
    "DELTA_SCHEMA",
    "ORD_CHANGE",
    "ORD_CHECK",
    "bind",
    "checks_task",
    "daily_task",
    "deltas_task",
    "partition_tables_task",
    "records",
    "sweep_task",
]

DELTA_SCHEMA = StructType(
    [
        StructField("t_ms", LongType(), False),
        StructField("broker", IntegerType(), False),
        *[StructField(name, LongType(), False) for name in COUNTERS],
    ]
)
"""One broker's counter change at one moment (``partition_deltas``)."""

CHECKS_SCHEMA = StructType(
    [
        StructField("time_ms", LongType(), False),
        StructField("controller_id", IntegerType(), True),
        StructField("broker", IntegerType(), False),
        StructField("ratio", DoubleType(), False),
        StructField("evidence", StringType(), False),
        StructField("check_ms", LongType(), False),
        StructField("not_preferred", ArrayType(StringType()), True),
    ]
)
"""A logged ratio placed in its check (the double travels through Arrow unchanged)."""


def bind(
    task: Callable[..., pd.DataFrame], **options: Any
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A grouped-map function with its options bound (``applyInPandas`` reads its type hints,
    which a ``functools.partial`` does not have).

    Args:
        task: a task function taking the group's frame first.
        **options: its keyword options.

    Returns:
        ``frame -> task(frame, **options)``.
    """

    def run(frame: pd.DataFrame) -> pd.DataFrame:
        return task(frame, **options)

    return run


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A pandas frame's rows as dicts (``NaN`` left for the core's tolerant readers)."""
    return list(frame.to_dict("records"))


def _frame(rows: list[dict[str, Any]], schema: StructType) -> pd.DataFrame:
    names = schema.fieldNames()
    return pd.DataFrame([[row.get(n) for n in names] for row in rows], columns=names)


def _by_partition(frame: pd.DataFrame) -> dict[tuple[str, int], pd.DataFrame]:
    """A bucket's rows split by (topic, partition), each in the order they came."""
    if frame.empty:
        return {}
    return {
        (str(topic), int(partition)): part
        for (topic, partition), part in frame.groupby(["topic", "partition"], sort=False)
    }


def deltas_task(
    frame: pd.DataFrame,
    *,
    settings: ImbalanceSettings,
    deletion: Mapping[str, Sequence[tuple[int, bool]]],
) -> pd.DataFrame:
    """``applyInPandas`` per bucket of partitions: each one's timeline -> counter deltas
    (``DELTA_SCHEMA``).

    Args:
        frame: the timeline rows of a bucket's partitions (times as epoch ms).
        settings: the cluster's imbalance settings.
        deletion: topic -> deletion steps.

    Returns:
        The deltas.
    """
    rows = []
    for (topic, _), part in _by_partition(frame).items():
        intervals = [timeline_from_row(row) for row in records(part)]
        for delta in partition_deltas(intervals, settings.rule, deletion.get(topic, ())):
            row: dict[str, Any] = {"t_ms": delta.time_ms, "broker": delta.broker}
            row.update(zip(COUNTERS, delta.counts, strict=True))
            rows.append(row)
    return _frame(rows, DELTA_SCHEMA)


def checks_task(frame: pd.DataFrame) -> pd.DataFrame:
    """``applyInPandas`` per controller: its ratio, check-start and listing lines, placed.

    Args:
        frame: rows with ``kind`` (ratio, start, listing), ``time_ms``, ``controller_id``,
            ``broker``, ``ratio``, ``evidence``, ``detail`` (the listing's map).

    Returns:
        The logged ratios with their check (``CHECKS_SCHEMA``).
    """
    ratios: list[LoggedRatio] = []
    starts: list[tuple[int, int | None]] = []
    listings: list[tuple[int, int | None, int, tuple[str, ...]]] = []
    for row in records(frame):
        time = as_int(row.get("time_ms"))
        controller = as_int(row.get("controller_id"))
        broker = as_int(row.get("broker"))
        kind = row.get("kind")
        if time is None or (kind != "start" and broker is None):
            continue
        if kind == "start":
            starts.append((time, controller))
        elif kind == "ratio":
            ratio = logged_ratio_from_row({**row, "ts": time})
            if ratio is not None:
                ratios.append(ratio)
        elif kind == "listing":
            listing = not_preferred_from_row({**row, "ts": time})
            if listing is not None:
                listings.append(listing)
    placed = assign_checks(ratios, starts, listings)
    out = [
        {
            "time_ms": r.time_ms,
            "controller_id": r.controller_id,
            "broker": r.broker,
            "ratio": r.ratio,
            "evidence": r.evidence,
            "check_ms": r.check_ms if r.check_ms is not None else r.time_ms,
            "not_preferred": list(r.not_preferred) if r.not_preferred is not None else None,
        }
        for r in placed
    ]
    return _frame(out, CHECKS_SCHEMA)


ORD_CHECK, ORD_CHANGE = 0, 2
"""``ord`` of a logged ratio and of a counter change in ``sweep_task``'s input (a check sees
the state before the changes of its millisecond)."""
_CHUNK_ROWS = 10_000
"""Rows per output batch of ``sweep_task``."""


def _moments(rows: Iterator[dict[str, Any]]) -> Iterator[Moment]:
    """``sweep_task``'s rows (in time order) gathered into ``imbalance_sweep``'s moments."""
    current: int | None = None
    changes: dict[int, list[int]] = {}
    checks: dict[int, LoggedRatio] = {}
    for row in rows:
        time = int(row["t_ms"])
        if time != current:
            if current is not None:
                yield current, changes or None, checks or None
            current, changes, checks = time, {}, {}
        broker = int(row["broker"])
        if int(row["ord"]) == ORD_CHECK:
            logged = LoggedRatio(
                int(row["logged_ms"]),
                as_int(row.get("logged_controller")),
                broker,
                float(row["logged_ratio"]),
                as_str(row.get("logged_evidence")) or "",
                time,
            )
            checks.setdefault(broker, logged)
        else:
            changes[broker] = [int(row[name]) for name in COUNTERS]
    if current is not None:
        yield current, changes or None, checks or None


def sweep_task(
    batches: Iterator[pd.DataFrame],
    *,
    cluster: str,
    settings: ImbalanceSettings,
    schema: StructType,
) -> Iterator[pd.DataFrame]:
    """``mapInPandas`` over one partition in time order: ``gold.leader_imbalance`` wire rows.

    Args:
        batches: rows ordered by ``t_ms``, ``ord``, ``broker``: a broker's summed counter
            changes at a moment (``ord`` 2, ``COUNTERS``) or a logged ratio of the check
            started then (``ord`` 0: ``logged_ratio``, ``logged_ms`` (the line's time),
            ``logged_controller``, ``logged_evidence``).
        cluster: the cluster.
        settings: its settings.
        schema: the wire schema of ``gold.leader_imbalance``.

    Yields:
        Wire rows, ``_CHUNK_ROWS`` at a time (the sweep streams: memory stays flat).
    """
    rows = (row for batch in batches for row in records(batch))
    out: list[dict[str, Any]] = []
    for imbalance in imbalance_sweep(cluster, _moments(rows), settings):
        out.append(wire_row(imbalance.to_row()))
        if len(out) >= _CHUNK_ROWS:
            yield _frame(out, schema)
            out = []
    if out:
        yield _frame(out, schema)


def daily_task(
    frame: pd.DataFrame,
    *,
    until_ms: int,
    preferred: Mapping[tuple[int, date], int],
    schema: StructType,
) -> pd.DataFrame:
    """``applyInPandas`` per broker: its ``gold.leader_imbalance`` rows -> the daily rollup.

    Args:
        frame: one broker's rows (``observed_at`` as epoch ms).
        until_ms: the end of the evidence.
        preferred: ``(broker, day) -> preferred elections``.
        schema: the wire schema of ``gold.leader_imbalance_daily``.

    Returns:
        Wire rows.
    """
    rows = [ImbalanceRow.from_row(row) for row in records(frame)]
    daily = imbalance_daily(rows, until_ms, preferred)
    return _frame([wire_row(d.to_row()) for d in daily], schema)


def partition_tables_task(
    timeline: pd.DataFrame,
    elections: pd.DataFrame,
    *,
    events: BrokerEvents,
    until_ms: int | None,
    deletion: Mapping[str, Sequence[tuple[int, bool]]],
    min_isr: MinIsr,
    schema: StructType,
) -> pd.DataFrame:
    """``cogroup.applyInPandas`` per bucket of partitions: the report tables read from one
    partition, for each partition of the bucket.

    Args:
        timeline: the bucket's timeline rows (times as epoch ms).
        elections: its election rows (``elected_at``, ``new_leader_left_isr_at`` as epoch ms).
        events: the cluster's broker events.
        until_ms: the end of the evidence.
        deletion: topic -> deletion steps.
        min_isr: ``min.insync.replicas`` in force for a topic at a time.
        schema: the union wire schema (``row_type`` + every table's columns).

    Returns:
        Rows with ``row_type`` ``offline``, ``unclean``, ``under_replicated``, ``isr_churn``,
        ``reassignments``, and ``spans`` (the partition's ``PartitionSpan`` rows, for
        ``gold.topic_lifecycle``).
    """
    timelines, cast_by = _by_partition(timeline), _by_partition(elections)
    out: list[dict[str, Any]] = []
    for key in [*timelines, *(k for k in cast_by if k not in timelines)]:
        part = timelines.get(key)
        intervals = [] if part is None else [timeline_from_row(row) for row in records(part)]
        won = cast_by.get(key)
        cast: list[ElectionRow] = (
            [] if won is None else [election_from_row(r) for r in records(won)]
        )
        tables: list[tuple[str, Sequence[Any]]] = [
            ("offline", offline_intervals(intervals, cast, events, until_ms, deletion)),
            ("unclean", unclean_rows(cast, intervals)),
            ("under_replicated", under_replicated_intervals(intervals, min_isr, until_ms)),
            ("isr_churn", isr_churn_daily(intervals, deletion)),
            ("reassignments", reassignments(intervals, until_ms)),
            ("spans", partition_spans(intervals)),
        ]
        out += [
            {"row_type": kind, **wire_row(row.to_row())} for kind, rows in tables for row in rows
        ]
    return _frame(out, schema)
