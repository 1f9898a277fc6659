"""ingest-logs tasks: read and parse (``parsed_batches``), or read, parse and write Parquet in one
pass (``fused_task``, for the delta-rs lakehouse).

With the Arrow executor (``grammar_arrow``) a record never needs the JVM. ``parsed_batches``
gives the parsed records to Spark (any lakehouse writes them). In one pass, each Spark task reads
its splits (``log_reader``), classifies the records (``ArrowExecutor``), derives the rows of
``bronze.log_records``, ``silver.controller_events`` and ``silver.quarantine``
(``log_rows.arrow_rows``) and ``silver.broker_configs`` (``config_rows``), and writes them as
Parquet files straight into the tables (``TableFileWriter``). It returns only the files'
metadata and its outcome counts; the driver commits each table in one Delta transaction
(``DeltaRsLakehouse.commit_files``) and writes ``ingest_stats`` from the counts. The raw text
crosses no process boundary.

With ``kafka_version: auto`` an event's ``version_conflict`` depends on the release range
inferred from its whole file, known only once every task has counted. Tasks therefore report,
per events file, the (file, grammar) pairs it holds; the rare files holding a pair in conflict
are rewritten on the driver before the commit.

A run that fails before its commits leaves Parquet files no Delta version references: readers
never see them, and Delta's ``VACUUM`` deletes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import SparkSession
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

from jobs.lakehouse.arrow_types import arrow_schema
from jobs.lakehouse.deltars import FILES_SCHEMA, DeltaRsLakehouse, TableFileWriter
from jobs.logparse.arrow_executor import ArrowExecutor
from jobs.logparse.candidates import CandidateIndex
from jobs.logparse.config_rows import arrow_config_rows
from jobs.logparse.parse_contract import ExecutorSettings
from jobs.logparse.reader import ReaderSettings, SplitTask, assigned_splits, read_split
from jobs.logparse.table_rows import RunFiles, arrow_rows
from schemas.catalog import TableSpec
from schemas.logs import BROKER_CONFIGS, CONTROLLER_EVENTS, LOG_RECORDS, QUARANTINE

__all__ = [
    "COUNT_KEYS",
    "FUSED_SCHEMA",
    "TABLES",
    "FusedResult",
    "FusedWork",
    "OutcomeCounts",
    "fused_task",
    "parsed_batches",
    "run_fused",
    "settle_conflicts",
]

TABLES: tuple[TableSpec, ...] = (LOG_RECORDS, CONTROLLER_EVENTS, QUARANTINE, BROKER_CONFIGS)
COUNT_KEYS = ("file_index", "status", "family", "reason", "grammar", "read_error")
"""What outcome counts are grouped by (``ingest_logs.FileCounts`` adds them up per file)."""

FUSED_SCHEMA = StructType(
    [
        StructField("table", StringType(), True),
        *(StructField(f.name, f.dataType, True) for f in FILES_SCHEMA.fields),
        StructField("contents", StringType(), True),
        StructField("file_index", IntegerType(), True),
        StructField("status", StringType(), True),
        StructField("family", StringType(), True),
        StructField("reason", StringType(), True),
        StructField("grammar", StringType(), True),
        StructField("read_error", StringType(), True),
        StructField("records", LongType(), True),
        StructField("lines", LongType(), True),
        StructField("bytes", LongType(), True),
    ]
)
"""A task's output rows: a written file (``table`` set) or an outcome count (``table`` null)."""

_FUSED_ARROW = arrow_schema(FUSED_SCHEMA)


@dataclass(frozen=True)
class FusedWork:
    """Everything a task needs (picklable).

    Attributes:
        assignments: splits per partition number of ``spark.range``.
        reader: reader settings.
        executor: trial order, layouts and time zone.
        layout_of_file: layout index by ``file_index``.
        run: the run's facts the rows carry.
        roots: table directory by qualified name.
    """

    assignments: tuple[tuple[SplitTask, ...], ...]
    reader: ReaderSettings
    executor: ExecutorSettings
    layout_of_file: tuple[int, ...]
    run: RunFiles
    roots: Mapping[str, str]


def _data_schema(spec: TableSpec) -> pa.Schema:
    return arrow_schema(
        StructType([f for f in spec.schema.fields if f.name not in spec.partition_by])
    )


class OutcomeCounts:
    """Outcome counts of a task, grouped by ``COUNT_KEYS`` (``rows``: ``FUSED_SCHEMA`` rows)."""

    def __init__(self) -> None:
        self.groups: dict[tuple[Any, ...], list[int]] = {}

    def add(self, parsed: pa.RecordBatch) -> None:
        table = pa.Table.from_batches([parsed]).select([*COUNT_KEYS, "line_count", "byte_length"])
        grouped = table.group_by(list(COUNT_KEYS), use_threads=False).aggregate(
            [([], "count_all"), ("line_count", "sum"), ("byte_length", "sum")]
        )
        for row in grouped.to_pylist():
            key = tuple(row[name] for name in COUNT_KEYS)
            totals = self.groups.setdefault(key, [0, 0, 0])
            totals[0] += row["count_all"]
            totals[1] += row["line_count_sum"] or 0
            totals[2] += row["byte_length_sum"] or 0

    def rows(self) -> list[dict[str, Any]]:
        return [
            {**dict(zip(COUNT_KEYS, key, strict=True)), "records": r, "lines": n, "bytes": b}
            for key, (r, n, b) in self.groups.items()
        ]


@lru_cache(maxsize=4)
def _candidate_index(trial_names: tuple[str, ...], hint: str | None) -> CandidateIndex:
    """One per worker process and trial order: its memo of record shapes outlives the task."""
    return CandidateIndex(trial_names, hint)


def parsed_batches(
    batches: Iterator[pa.RecordBatch],
    *,
    assignments: Sequence[Sequence[SplitTask]],
    reader: ReaderSettings,
    executor: ExecutorSettings,
    layout_of_file: Sequence[int],
) -> Iterator[pa.RecordBatch]:
    """Parsed records of the splits assigned to the partitions in ``batches`` (in a task; the
    ``mapInArrow`` function of the two-pass ingest, its arguments bound by keyword).

    Args:
        batches: rows of ``spark.range``: the partition numbers this task handles.
        assignments: splits per partition number.
        reader: reader settings.
        executor: trial order, layouts and time zone.
        layout_of_file: layout index by ``file_index``.

    Yields:
        ``parse_contract.PARSED_ARROW_SCHEMA`` batches.
    """
    index = _candidate_index(tuple(e.name for e in executor.order.entries), reader.version_hint)
    arrow = ArrowExecutor(executor)
    for task in assigned_splits(batches, assignments):
        for records in read_split(task, reader, index):
            yield arrow.execute(records, layout_of_file[task.file_index])


def fused_task(batches: Iterator[pa.RecordBatch], *, work: FusedWork) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function: read, parse and write the splits of the task's partitions.

    Args:
        batches: rows of ``spark.range``: the partition numbers this task handles.
        work: the run's task settings.

    Yields:
        ``FUSED_SCHEMA`` rows: the files written, then the outcome counts.
    """
    writers = {
        spec.qualified_name: TableFileWriter(
            work.roots[spec.qualified_name], _data_schema(spec), spec.partition_by[0]
        )
        for spec in TABLES
    }
    counts = OutcomeCounts()
    pairs: set[tuple[int, str]] = set()
    auto = work.executor.order.hint is None
    events = CONTROLLER_EVENTS.qualified_name
    stream = parsed_batches(
        batches,
        assignments=work.assignments,
        reader=work.reader,
        executor=work.executor,
        layout_of_file=work.layout_of_file,
    )
    for parsed in stream:
        counts.add(parsed)
        errors = parsed["read_error"]
        good = parsed if errors.null_count == len(errors) else parsed.filter(pc.is_null(errors))
        for spec in TABLES:
            table_rows = (
                arrow_config_rows(good, work.run)
                if spec is BROKER_CONFIGS
                else arrow_rows(good, spec, work.run)
            )
            writers[spec.qualified_name].write(table_rows)
            # Only ``kafka_version: auto`` settles conflicts after the counts (see above).
            if auto and spec.qualified_name == events and table_rows.num_rows:
                found = pa.table({"f": good["file_index"], "g": good["grammar"]}).filter(
                    pc.equal(good["status"], "parsed")
                )
                for row in found.group_by(["f", "g"], use_threads=False).aggregate([]).to_pylist():
                    pairs.add((row["f"], row["g"]))
    out: list[dict[str, Any]] = []
    contents = json.dumps(sorted(pairs))
    for name, writer in writers.items():
        for file in writer.close():
            out.append({**file, "table": name, "contents": contents if name == events else None})
    out.extend(counts.rows())
    if out:
        yield pa.RecordBatch.from_pylist(out, schema=_FUSED_ARROW)


@dataclass
class FusedResult:
    """What the tasks returned: files per table and outcome counts."""

    files: dict[str, list[dict[str, Any]]]
    counts: list[dict[str, Any]]


def run_fused(
    spark: SparkSession,
    lakehouse: DeltaRsLakehouse,
    *,
    assignments: Sequence[Sequence[SplitTask]],
    reader: ReaderSettings,
    executor: ExecutorSettings,
    layout_of_file: Sequence[int],
    run: RunFiles,
) -> FusedResult:
    """Run the tasks (one per partition of ``assignments``); nothing is committed yet.

    Args:
        spark: the session.
        lakehouse: the delta-rs lakehouse (the tables' directories).
        assignments: splits per task.
        reader: reader settings.
        executor: executor settings.
        layout_of_file: layout index by ``file_index``.
        run: the run's facts.

    Returns:
        The files written per table (uncommitted) and the outcome counts.
    """
    work = FusedWork(
        assignments=tuple(tuple(a) for a in assignments),
        reader=reader,
        executor=executor,
        layout_of_file=tuple(layout_of_file),
        run=run,
        roots={spec.qualified_name: lakehouse.location(spec) for spec in TABLES},
    )
    partitions = max(1, len(assignments))
    rows = (
        spark.range(0, partitions, 1, partitions)
        .mapInArrow(partial(fused_task, work=work), FUSED_SCHEMA)
        .collect()
    )
    files: dict[str, list[dict[str, Any]]] = {spec.qualified_name: [] for spec in TABLES}
    counts: list[dict[str, Any]] = []
    for row in rows:
        data = row.asDict()
        if data["table"] is not None:
            files[data["table"]].append(data)
        else:
            counts.append(data)
    return FusedResult(files, counts)


def settle_conflicts(
    lakehouse: DeltaRsLakehouse,
    files: list[dict[str, Any]],
    conflicts: Mapping[int, frozenset[str]],
    run: RunFiles,
) -> list[dict[str, Any]]:
    """Events files with ``version_conflict`` set where the file's inferred range says so.

    Only files holding a (file, grammar) pair in conflict are rewritten (on the driver).

    Args:
        lakehouse: the delta-rs lakehouse.
        files: the uncommitted events files (``contents``: their (file_index, grammar) pairs).
        conflicts: per file index, the grammars outside its inferred range.
        run: the run's facts.

    Returns:
        The files to commit.
    """
    if not any(conflicts.values()):
        return files
    by_path = {run.paths[index]: sorted(names) for index, names in conflicts.items() if names}
    settled: list[dict[str, Any]] = []
    for file in files:
        pairs = json.loads(file["contents"] or "[]")
        if not any(grammar in conflicts.get(index, ()) for index, grammar in pairs):
            settled.append(file)
            continue

        def mark(table: pa.Table) -> pa.Table:
            flag = pa.array([False] * table.num_rows)
            for path, names in by_path.items():
                hit = pc.and_(
                    pc.equal(table["file"], path), pc.is_in(table["grammar"], pa.array(names))
                )
                flag = pc.or_(flag, hit)
            position = table.schema.get_field_index("version_conflict")
            return table.set_column(position, "version_conflict", flag)

        settled.extend(lakehouse.rewrite_files(CONTROLLER_EVENTS, [file], mark))
    return settled
