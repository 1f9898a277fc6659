"""The report stage's task functions: Arrow tables in, core records out (thin adapters).

Spark hands each function the rows of one group (``applyInArrow``) or a batch
(``mapInArrow``) with times as epoch milliseconds; the function turns them into the core's
records, calls ``kafkactl_core.report``, and returns the records' ``to_row()`` values in the
table's own types (``jobs.tasks.wire``). Nothing here computes a formula of its own.

Arrow, not pandas: a bucket's rows become Python values in one ``to_pylist`` and are grouped
by partition in Python; pandas' ``groupby`` and ``to_dict`` per partition cost three times the
work of the core's rules on a simulated day (7.6 s against 2.3 s for one eighth of it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date
from typing import Any

import pyarrow as pa
from pyspark.sql.types import (
    ArrayType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from jobs.lakehouse.arrow_types import arrow_schema
from jobs.tasks.record_batches import record_batch
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

_DELTA_ARROW = arrow_schema(DELTA_SCHEMA)
_CHECKS_ARROW = arrow_schema(CHECKS_SCHEMA)


def bind(task: Callable[..., pa.Table], **options: Any) -> Callable[[pa.Table], pa.Table]:
    """A grouped-map function with its options bound (``applyInArrow`` reads its type hints,
    which a ``functools.partial`` does not have).

    Args:
        task: a task function taking the group's frame first.
        **options: its keyword options.

    Returns:
        ``table -> task(table, **options)``.
    """

    def run(table: pa.Table) -> pa.Table:
        return task(table, **options)

    return run


def records(data: pa.Table | pa.RecordBatch) -> list[dict[str, Any]]:
    """Arrow rows as dicts of Python values."""
    rows: list[dict[str, Any]] = data.to_pylist()
    return rows


def _table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """Rows as an Arrow table of ``schema`` (a column a row lacks is null)."""
    return pa.Table.from_pylist(rows, schema=schema)


def _by_partition(data: pa.Table) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """A bucket's rows by (topic, partition), each partition's in the order they came."""
    parts: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for row in records(data):
        parts.setdefault((row["topic"], row["partition"]), []).append(row)
    return parts


def deltas_task(
    timeline: pa.Table,
    *,
    settings: ImbalanceSettings,
    deletion: Mapping[str, Sequence[tuple[int, bool]]],
) -> pa.Table:
    """``applyInArrow`` per bucket of partitions: each one's timeline -> counter deltas
    (``DELTA_SCHEMA``).

    Args:
        timeline: the timeline rows of a bucket's partitions (times as epoch ms).
        settings: the cluster's imbalance settings.
        deletion: topic -> deletion steps.

    Returns:
        The deltas.
    """
    rows = []
    for (topic, _), part in _by_partition(timeline).items():
        intervals = [timeline_from_row(row) for row in part]
        for delta in partition_deltas(intervals, settings.rule, deletion.get(topic, ())):
            row: dict[str, Any] = {"t_ms": delta.time_ms, "broker": delta.broker}
            row.update(zip(COUNTERS, delta.counts, strict=True))
            rows.append(row)
    return _table(rows, _DELTA_ARROW)


def checks_task(lines: pa.Table) -> pa.Table:
    """``applyInArrow`` per controller: its ratio, check-start and listing lines, placed.

    Args:
        lines: rows with ``kind`` (ratio, start, listing), ``time_ms``, ``controller_id``,
            ``broker``, ``ratio``, ``evidence``, ``detail`` (the listing's map).

    Returns:
        The logged ratios with their check (``CHECKS_SCHEMA``).
    """
    ratios: list[LoggedRatio] = []
    starts: list[tuple[int, int | None]] = []
    listings: list[tuple[int, int | None, int, tuple[str, ...]]] = []
    for row in records(lines):
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
    return _table(out, _CHECKS_ARROW)


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
    batches: Iterator[pa.RecordBatch],
    *,
    cluster: str,
    settings: ImbalanceSettings,
    schema: pa.Schema,
) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` over one partition in time order: ``gold.leader_imbalance`` rows.

    Args:
        batches: rows ordered by ``t_ms``, ``ord``, ``broker``: a broker's summed counter
            changes at a moment (``ord`` 2, ``COUNTERS``) or a logged ratio of the check
            started then (``ord`` 0: ``logged_ratio``, ``logged_ms`` (the line's time),
            ``logged_controller``, ``logged_evidence``).
        cluster: the cluster.
        settings: its settings.
        schema: the task schema of ``gold.leader_imbalance``, in Arrow.

    Yields:
        Rows, ``_CHUNK_ROWS`` at a time (the sweep streams: memory stays flat).
    """
    rows = (row for batch in batches for row in records(batch))
    out: list[ImbalanceRow] = []
    for imbalance in imbalance_sweep(cluster, _moments(rows), settings):
        out.append(imbalance)
        if len(out) >= _CHUNK_ROWS:
            yield record_batch(out, schema)
            out = []
    if out:
        yield record_batch(out, schema)


def daily_task(
    imbalance: pa.Table,
    *,
    until_ms: int,
    preferred: Mapping[tuple[int, date], int],
    schema: pa.Schema,
) -> pa.Table:
    """``applyInArrow`` per broker: its ``gold.leader_imbalance`` rows -> the daily rollup.

    Args:
        imbalance: one broker's rows (``observed_at`` as epoch ms).
        until_ms: the end of the evidence.
        preferred: ``(broker, day) -> preferred elections``.
        schema: the task schema of ``gold.leader_imbalance_daily``, in Arrow.

    Returns:
        Rows.
    """
    rows = [ImbalanceRow.from_row(row) for row in records(imbalance)]
    daily = imbalance_daily(rows, until_ms, preferred)
    return pa.Table.from_batches([record_batch(daily, schema)])


def partition_tables_task(
    timeline: pa.Table,
    elections: pa.Table,
    *,
    events: BrokerEvents,
    until_ms: int | None,
    deletion: Mapping[str, Sequence[tuple[int, bool]]],
    min_isr: MinIsr,
    schema: pa.Schema,
) -> pa.Table:
    """``cogroup.applyInArrow`` per bucket of partitions: the report tables read from one
    partition, for each partition of the bucket.

    Args:
        timeline: the bucket's timeline rows (times as epoch ms).
        elections: its election rows (``elected_at``, ``new_leader_left_isr_at`` as epoch ms).
        events: the cluster's broker events.
        until_ms: the end of the evidence.
        deletion: topic -> deletion steps.
        min_isr: ``min.insync.replicas`` in force for a topic at a time.
        schema: the union schema (``row_type`` + every table's columns), in Arrow.

    Returns:
        Rows with ``row_type`` ``offline``, ``unclean``, ``under_replicated``, ``isr_churn``,
        ``reassignments``, and ``spans`` (the partition's ``PartitionSpan`` rows, for
        ``gold.topic_lifecycle``).
    """
    timelines, cast_by = _by_partition(timeline), _by_partition(elections)
    out: dict[str, list[Any]] = {}
    for key in [*timelines, *(k for k in cast_by if k not in timelines)]:
        intervals = [timeline_from_row(row) for row in timelines.get(key, ())]
        cast: list[ElectionRow] = [election_from_row(r) for r in cast_by.get(key, ())]
        tables: list[tuple[str, Sequence[Any]]] = [
            ("offline", offline_intervals(intervals, cast, events, until_ms, deletion)),
            ("unclean", unclean_rows(cast, intervals)),
            ("under_replicated", under_replicated_intervals(intervals, min_isr, until_ms)),
            ("isr_churn", isr_churn_daily(intervals, deletion)),
            ("reassignments", reassignments(intervals, until_ms)),
            ("spans", partition_spans(intervals)),
        ]
        for kind, rows in tables:
            out.setdefault(kind, []).extend(rows)
    batches = [record_batch(rows, schema, {"row_type": kind}) for kind, rows in out.items()]
    return pa.Table.from_batches(batches, schema=schema)
