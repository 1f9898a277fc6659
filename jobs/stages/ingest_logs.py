"""``kafkactl-audit ingest-logs``: a cluster's Kafka logs into bronze and silver Delta tables.

For one cluster:

1. **Plan** (driver): discover the inputs, hash each file and compare it with what
   ``meta.ingested_files`` says was ingested (``inputs.plan_file``): a file already ingested
   (even renamed, rotated or gzipped) is skipped, a file that grew resumes at the line where the
   last run stopped, the rest is cut into line-aligned splits. The layout is the configured one,
   or with ``auto`` detected per file from its first lines.
2. **Read** (Python tasks, ``mapInArrow``): each split is cut into records
   (``reader``): one row per record with its lines, bytes, raw text and flags, plus the
   candidate grammar entries of its text. A task reads several splits (``task_count``).
3. **Parse** in the same Python tasks (``arrow_executor``, vectorised RE2): one outcome per
   record, parsed / ignored / quarantined, with typed fields, equal to the reference executor's
   (``parse_contract``).
4. **Write** ``bronze.log_records`` (every record), ``silver.controller_events``,
   ``silver.quarantine`` (rows derived by ``table_rows``), ``silver.broker_configs`` (a
   configuration record's keys, ``config_rows``) and ``silver.ingest_stats``, appended
   (bookkeeping makes a re-run a no-op); with the ``rebuild`` option every input is re-read
   and the cluster's rows of the five tables are replaced instead. With the delta-rs
   lakehouse, steps 2 to 4 are ONE pass per task (``ingest_tasks``): the task
   writes the tables' Parquet files itself and the driver commits each table in one
   transaction. Otherwise the parsed frame is persisted once and written through the
   lakehouse. Last, the files are recorded in ``meta.ingested_files``. A run stopped before
   that (killed, failed) leaves rows of files it did not record: the next run reads those
   files again and its rows replace them, by run id and file (``unrecorded_reads``), in the
   same commit per table.

With ``kafka_version: auto`` the grammars are tried in registry order and the release range is
inferred per file from the variants that matched (``infer_version``), recorded in
``ingest_stats``; an event whose variant misses its file's inferred range has
``version_conflict`` set. With a configured version, the entries of its range are tried first
and a match among the others is a conflict.

Inputs must be readable as files from every Spark node (local disk in local mode; a shared
mount on a cluster).
"""

from __future__ import annotations

import logging
import math
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from jobs.lakehouse.deltars import DeltaRsLakehouse
from jobs.lakehouse.ingested_files import (
    FileDigest,
    known_extents,
    record_ingested,
    unrecorded_reads,
)
from jobs.lakehouse.port import WriteMode
from jobs.logparse.config_rows import spark_config_rows
from jobs.logparse.inputs import (
    Discovery,
    FilePlan,
    InputFile,
    discover_inputs,
    first_lines,
    plan_file,
)
from jobs.logparse.parse_contract import PARSED_SCHEMA, ExecutorSettings, TrialOrder
from jobs.logparse.reader import ReaderSettings, SplitTask
from jobs.logparse.table_rows import RunFiles, spark_rows
from jobs.runtime.config import ClusterConfig, ConfigError
from jobs.runtime.context import JobContext
from jobs.runtime.local_frame import local_frame
from jobs.runtime.spark_session import parallelism
from jobs.stages.registry import StageReport
from jobs.tasks.ingest_tasks import COUNT_KEYS, TABLES, parsed_batches, run_fused, settle_conflicts
from kafkactl_core.grammars import (
    KAFKA_LAYOUT,
    CompiledLayout,
    LayoutError,
    detect_layout,
    infer_version,
    resolve_layout,
)
from kafkactl_core.versions import KafkaRelease
from schemas.logs import BROKER_CONFIGS, CONTROLLER_EVENTS, INGEST_STATS, LOG_RECORDS

STAGE = "ingest-logs"
SOURCE = "logs"
SPLIT_BYTES = 32 << 20
"""Target size of a split: small enough to balance two cores on a few hundred MB."""
TASK_BYTES = 96 << 20
"""Target bytes per Spark task (a task reads several splits)."""
DETECT_LINES = 64
_ERROR_COLUMN = INGEST_STATS.schema.fieldNames().index("error")
_READ_PAIRS = StructType(
    [StructField("run_id", StringType(), False), StructField("file", StringType(), False)]
)
log = logging.getLogger("kafkactl_audit.ingest_logs")


@dataclass
class FileWork:
    """One input file of the run and how it is read.

    Attributes:
        index: position in the run (the records' ``file_index``).
        plan: what to read of it.
        layout: the layout it is cut with.
        layout_source: ``config``, ``detected`` or ``fallback``.
        error: what went wrong reading it (its ``ingest_stats`` error), once its counts are
            settled.
    """

    index: int
    plan: FilePlan
    layout: CompiledLayout
    layout_source: str
    error: str | None = None

    @property
    def file(self) -> InputFile:
        """The input file."""
        return self.plan.file

    @property
    def start(self) -> int:
        """First byte read by this run."""
        return self.plan.splits[0].start if self.plan.splits else self.plan.size

    @property
    def first_line(self) -> int:
        """First line number read by this run."""
        return self.plan.splits[0].first_line if self.plan.splits else self.plan.lines + 1

    @property
    def lines_in(self) -> int:
        """Physical lines this run reads."""
        return self.plan.lines - self.first_line + 1 if self.plan.splits else 0


@dataclass
class IngestPlan:
    """The run's plan for a cluster.

    Attributes:
        works: files to read (new bytes, or an error to report).
        skipped: files whose bytes were all ingested before.
        layouts: distinct layouts, in ``layout_index`` order.
        hint: the configured Kafka release, None for auto.
        parallelism: tasks Spark runs at once (``task_count`` gives each at least two).
        discovery: the inputs refused and the remarks on them (``discover_inputs``).
    """

    works: list[FileWork] = field(default_factory=list)
    skipped: list[FilePlan] = field(default_factory=list)
    layouts: list[CompiledLayout] = field(default_factory=list)
    hint: KafkaRelease | None = None
    parallelism: int = 2
    discovery: Discovery = field(default_factory=Discovery)

    def layout_index(self, layout: CompiledLayout) -> int:
        """Position of ``layout`` in ``layouts`` (added when new)."""
        for position, known in enumerate(self.layouts):
            if known.layout == layout.layout:
                return position
        self.layouts.append(layout)
        return len(self.layouts) - 1


def _configured_layout(cluster: ClusterConfig) -> CompiledLayout | None:
    if cluster.log_layout == "auto":
        return None
    try:
        return resolve_layout(cluster.log_layout)
    except LayoutError as exc:
        raise ConfigError(f"clusters[{cluster.name}].log_layout: {exc}") from None


def _hint(cluster: ClusterConfig) -> KafkaRelease | None:
    return None if cluster.kafka_version == "auto" else KafkaRelease.parse(cluster.kafka_version)


def plan_ingest(
    ctx: JobContext, cluster: ClusterConfig, paths: Sequence[str], rebuild: bool = False
) -> IngestPlan:
    """Discover and plan a cluster's log files against what was ingested before.

    Args:
        ctx: the job context.
        cluster: the cluster.
        paths: files, directories or globs.
        rebuild: ignore the bookkeeping (re-read everything).

    Returns:
        The plan.

    Raises:
        ConfigError: an invalid ``log_layout``.
    """
    configured = _configured_layout(cluster)
    known = [] if rebuild else known_extents(ctx.lakehouse, cluster.name, SOURCE)
    known_hashes = {extent.sha256 for extent in known}
    result = IngestPlan(hint=_hint(cluster), parallelism=parallelism(ctx.spark))
    result.discovery = discover_inputs(paths)
    for file in result.discovery.files:
        plan = plan_file(file, known, SPLIT_BYTES)
        unchanged = plan.resume is not None and (
            plan.resume.sha256 == plan.sha256 and plan.resume.size == plan.size
        )
        # Unchanged: the same bytes were ingested (a damaged file's readable bytes too; its
        # error was reported then). An empty file was ingested when its hash is known.
        empty_known = plan.size == 0 and plan.error is None and plan.sha256 in known_hashes
        if unchanged or empty_known or (plan.skipped and plan.size > 0):
            result.skipped.append(plan)
            continue
        if configured is not None:
            layout, source = configured, "config"
        else:
            detected = detect_layout(first_lines(file, DETECT_LINES))
            layout, source = (
                (detected, "detected") if detected else (resolve_layout(KAFKA_LAYOUT), "fallback")
            )
        result.layout_index(layout)
        result.works.append(FileWork(len(result.works), plan, layout, source))
    return result


def _assign(tasks: Sequence[SplitTask], partitions: int) -> list[list[SplitTask]]:
    """Spread splits over partitions, largest first onto the least loaded (bytes)."""
    loads = [0] * partitions
    assigned: list[list[SplitTask]] = [[] for _ in range(partitions)]
    for task in sorted(tasks, key=lambda t: t.end - t.start, reverse=True):
        target = loads.index(min(loads))
        assigned[target].append(task)
        loads[target] += task.end - task.start
    for bucket in assigned:
        bucket.sort(key=lambda t: (t.file_index, t.start))
    return assigned


def split_tasks(plan: IngestPlan) -> list[SplitTask]:
    """The reader tasks of a plan: one per split, the first split of a file owning its head."""
    tasks: list[SplitTask] = []
    for work in plan.works:
        for number, split in enumerate(work.plan.splits):
            tasks.append(
                SplitTask(
                    file_index=work.index,
                    path=work.file.path,
                    compressed=work.file.compressed,
                    start=split.start,
                    end=split.end,
                    first_line=split.first_line,
                    owns_leading=number == 0,
                    file_size=work.plan.size,
                    layout=work.layout.layout,
                )
            )
    return tasks


def _assignments(plan: IngestPlan) -> list[list[SplitTask]]:
    """The plan's splits spread over its Spark tasks (``task_count``), one list per task."""
    tasks = split_tasks(plan)
    return _assign(tasks, task_count(plan, tasks))


def task_count(plan: IngestPlan, tasks: Sequence[SplitTask]) -> int:
    """Spark tasks for the plan's splits (``tasks``): about ``TASK_BYTES`` each, two or more
    per core, and a multiple of the cores so that the last wave keeps every core busy.

    Each task has a fixed cost (its writers and files, its candidate memo, the Python round
    trip). Measured on 828 MB with 2 cores: 25 tasks of 32 MB 13.3 s, 9 tasks 12.8-13.5 s,
    10 tasks 12.0-12.4 s.
    """
    total = sum(task.end - task.start for task in tasks)
    cores = plan.parallelism
    waves = max(2, math.ceil(total / (cores * TASK_BYTES)))
    return max(1, min(len(tasks), cores * waves))


def _reader_settings(plan: IngestPlan) -> ReaderSettings:
    """Reader settings for the plan."""
    return ReaderSettings(version_hint=str(plan.hint) if plan.hint else None)


def _executor_settings(plan: IngestPlan, order: TrialOrder, time_zone: str) -> ExecutorSettings:
    layouts = tuple(plan.layouts) or (resolve_layout(KAFKA_LAYOUT),)
    return ExecutorSettings(order=order, layouts=layouts, time_zone=time_zone)


def arrow_task_arguments(
    plan: IngestPlan, order: TrialOrder, time_zone: str, settings: ReaderSettings | None = None
) -> dict[str, Any]:
    """Keyword arguments of ``ingest_tasks.parsed_batches`` for the plan (a task per assignment).

    Args:
        plan: the run's plan.
        order: the trial order.
        time_zone: the cluster's time zone.
        settings: reader settings (default: from the plan's hint).

    Returns:
        ``assignments``, ``reader``, ``executor`` and ``layout_of_file``.
    """
    return {
        "assignments": tuple(tuple(a) for a in _assignments(plan)),
        "reader": settings or _reader_settings(plan),
        "executor": _executor_settings(plan, order, time_zone),
        "layout_of_file": tuple(plan.layout_index(work.layout) for work in plan.works),
    }


def parse_with_arrow(
    spark: SparkSession,
    plan: IngestPlan,
    order: TrialOrder,
    time_zone: str,
    settings: ReaderSettings | None = None,
) -> DataFrame:
    """Read and parse in the same Python tasks with the Arrow executor (``arrow_executor``).

    Args:
        spark: the session.
        plan: the run's plan.
        order: the trial order.
        time_zone: the cluster's time zone.
        settings: reader settings (default: from the plan's hint).

    Returns:
        The parsed records (``parse_contract.PARSED_SCHEMA``).
    """
    arguments = arrow_task_arguments(plan, order, time_zone, settings)
    partitions = len(arguments["assignments"])
    function = partial(parsed_batches, **arguments)
    return spark.range(0, partitions, 1, partitions).mapInArrow(function, PARSED_SCHEMA)


@dataclass
class FileCounts:
    """What the parsed records of one file add up to (from one aggregation)."""

    records: int = 0
    lines: int = 0
    bytes: int = 0
    status: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    events: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    ignored: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    quarantined: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    grammars: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    read_errors: list[str] = field(default_factory=list)


def count_outcomes(parsed: DataFrame) -> dict[int, FileCounts]:
    """Per file: records, lines, bytes and outcomes by status, family, reason and grammar."""
    grouped = (
        parsed.groupBy(*COUNT_KEYS)
        .agg(
            F.count(F.lit(1)).alias("records"),
            F.sum("line_count").alias("lines"),
            F.sum("byte_length").alias("bytes"),
        )
        .collect()
    )
    return add_counts(row.asDict() for row in grouped)


def add_counts(groups: Iterable[Mapping[str, Any]]) -> dict[int, FileCounts]:
    """Per file, the outcome counts grouped by ``COUNT_KEYS`` (records, lines, bytes) added up.

    Args:
        groups: one mapping per group: the ``COUNT_KEYS`` and ``records``, ``lines``,
            ``bytes`` (a key may repeat: its counts add up).

    Returns:
        The counts by file index.
    """
    counts: dict[int, FileCounts] = defaultdict(FileCounts)
    for row in groups:
        file = counts[row["file_index"]]
        if row["read_error"] is not None:
            file.read_errors.append(row["read_error"])
            continue
        records, status, family = row["records"], row["status"], row["family"]
        file.records += records
        file.lines += row["lines"] or 0
        file.bytes += row["bytes"] or 0
        file.status[status] += records
        if status == "parsed":
            file.events[family] += records
        elif status == "ignored":
            file.ignored[family] += records
        else:
            file.quarantined[row["reason"]] += records
        if row["grammar"] is not None and status != "quarantined":
            file.grammars[row["grammar"]] += records
    return counts


def _stats_row(
    cluster: str,
    run_id: str,
    work: FileWork,
    counts: FileCounts,
    hint: KafkaRelease | None,
    now: datetime,
) -> tuple[tuple[Any, ...], frozenset[str]]:
    """One ``ingest_stats`` row, and the grammar variants in conflict with the inferred range."""
    plan = work.plan
    errors = [plan.error] if plan.error else []
    errors.extend(counts.read_errors)
    if not counts.read_errors and counts.lines != work.lines_in:
        errors.append(f"read {counts.lines} lines where {work.lines_in} were planned")
    inferred = infer_version(dict(counts.grammars)) if counts.grammars else None
    evidence = (
        [f"{e.grammar} {e.versions} x{e.records}" for e in inferred.evidence] if inferred else []
    )
    conflicts = (
        [f"{e.grammar} {e.versions} x{e.records}" for e in inferred.conflicts] if inferred else []
    )
    conflict_names = frozenset(e.grammar for e in inferred.conflicts) if inferred else frozenset()
    row = (
        cluster,
        run_id,
        work.file.path,
        plan.sha256,
        work.file.kind,
        work.file.compressed,
        plan.size,
        plan.size - work.start if plan.splits else 0,
        work.start if plan.resume is not None and plan.splits else None,
        work.first_line,
        work.lines_in,
        counts.records,
        counts.status.get("parsed", 0),
        counts.status.get("ignored", 0),
        counts.status.get("quarantined", 0),
        dict(counts.events),
        dict(counts.ignored),
        dict(counts.quarantined),
        work.layout.layout,
        work.layout_source,
        str(hint) if hint else None,
        str(inferred.versions) if inferred else None,
        inferred.mode.value if inferred else None,
        evidence,
        conflicts,
        "; ".join(errors) if errors else None,
        now,
    )
    return row, conflict_names


def _conflict_column(conflicts: Mapping[int, frozenset[str]]) -> Column:
    """With ``auto``: the event's variant misses its file's inferred range."""
    result: Column = F.lit(False)
    for file_index, names in conflicts.items():
        if names:
            result = result | (
                (F.col("file_index") == file_index) & F.col("grammar").isin(sorted(names))
            )
    return result


def run_files(cluster: ClusterConfig, run_id: str, plan: IngestPlan) -> RunFiles:
    """The run's facts the log tables carry, by ``file_index``."""
    works = plan.works
    return RunFiles(
        cluster=cluster.name,
        run_id=run_id,
        paths=tuple(w.file.path for w in works),
        sha256=tuple(w.plan.sha256 for w in works),
        kinds=tuple(w.file.kind for w in works),
    )


def _took(started: float) -> str:
    return f"{time.monotonic() - started:.1f}s"


@dataclass
class _Settled:
    """What the counts say: ingest_stats rows, per-file version conflicts, complete files."""

    stats_rows: list[tuple[Any, ...]]
    conflicts: dict[int, frozenset[str]]
    complete: list[str]


def _settle(
    cluster: ClusterConfig, run_id: str, plan: IngestPlan, counts: Mapping[int, FileCounts]
) -> _Settled:
    now = datetime.now(UTC).replace(tzinfo=None)
    settled = _Settled([], {}, [])
    for work in plan.works:
        file_counts = counts.get(work.index, FileCounts())
        row, names = _stats_row(cluster.name, run_id, work, file_counts, plan.hint, now)
        settled.stats_rows.append(row)
        settled.conflicts[work.index] = names
        work.error = row[_ERROR_COLUMN]
        if invalid := file_counts.quarantined.get("invalid_utf8", 0):
            log.warning(
                "[%s] %s: %d record(s) with invalid UTF-8 quarantined (silver.quarantine)",
                cluster.name,
                work.file.path,
                invalid,
            )
        read_whole = not file_counts.read_errors and file_counts.lines == work.lines_in
        if read_whole and (work.plan.size > 0 or work.plan.error is None):
            settled.complete.append(work.file.path)
    return settled


def _write_stats(
    ctx: JobContext,
    cluster: ClusterConfig,
    settled: _Settled,
    mode: WriteMode,
    replacing: DataFrame | None = None,
) -> int:
    names = INGEST_STATS.schema.fieldNames()
    rows = [dict(zip(names, row, strict=True)) for row in settled.stats_rows]
    if replacing is not None:
        stats = local_frame(ctx.spark, rows, INGEST_STATS.schema)
        return ctx.lakehouse.replace_keys(stats, INGEST_STATS, cluster.name, replacing)
    # A row per file, built on the driver: no Spark job for it.
    replace = cluster.name if mode is WriteMode.replace_cluster else None
    return ctx.lakehouse.write_rows(INGEST_STATS, rows, mode, replace)


def write_tables(
    ctx: JobContext,
    cluster: ClusterConfig,
    plan: IngestPlan,
    parsed: DataFrame,
    mode: WriteMode,
    replacing: DataFrame | None = None,
) -> tuple[dict[str, int], list[str]]:
    """Write bronze, silver, quarantine and stats from the (persisted) parsed records.

    Args:
        ctx: the job context.
        cluster: the cluster.
        plan: the run's plan.
        parsed: ``parse_with_arrow`` output.
        mode: append, or replace_cluster for a rebuild.
        replacing: (run_id, file) keys of rows the new rows replace (``unrecorded_reads``).

    Returns:
        Rows written per table, and the paths of the files read completely (to record).
    """
    name, lakehouse = cluster.name, ctx.lakehouse
    replace = cluster.name if mode is WriteMode.replace_cluster else None
    started = time.monotonic()
    settled = _settle(cluster, ctx.run_id, plan, count_outcomes(parsed))
    log.info("[%s] read and parsed: %s", name, _took(started))
    good = parsed.filter(F.col("read_error").isNull())
    run = run_files(cluster, ctx.run_id, plan)
    conflict = (
        F.col("version_conflict") if plan.hint is not None else _conflict_column(settled.conflicts)
    )
    written: dict[str, int] = {}
    for spec in TABLES:
        started = time.monotonic()
        rows = (
            spark_config_rows(good, run)
            if spec is BROKER_CONFIGS
            else spark_rows(good, spec, run, conflict)
        )
        written[spec.qualified_name] = (
            lakehouse.write(rows, spec, mode, replace)
            if replacing is None
            else lakehouse.replace_keys(rows, spec, name, replacing)
        )
        log.info("[%s] %s written: %s", name, spec.qualified_name, _took(started))
    written[INGEST_STATS.qualified_name] = _write_stats(ctx, cluster, settled, mode, replacing)
    return written, settled.complete


def write_fused(
    ctx: JobContext,
    cluster: ClusterConfig,
    plan: IngestPlan,
    order: TrialOrder,
    mode: WriteMode,
    replacing: DataFrame | None = None,
) -> tuple[dict[str, int], list[str]]:
    """Read, parse and write in one pass per task (``ingest_tasks``), then commit each table.

    Only with the delta-rs lakehouse.

    Args:
        ctx: the job context.
        cluster: the cluster.
        plan: the run's plan.
        order: the trial order.
        mode: append, or replace_cluster for a rebuild.
        replacing: (run_id, file) keys of rows the new rows replace (``unrecorded_reads``).

    Returns:
        Rows written per table, and the paths of the files read completely (to record).
    """
    lakehouse = ctx.lakehouse
    if not isinstance(lakehouse, DeltaRsLakehouse):
        raise TypeError("the one-pass ingest writes with delta-rs only")
    name = cluster.name
    replace = cluster.name if mode is WriteMode.replace_cluster else None
    started = time.monotonic()
    run = run_files(cluster, ctx.run_id, plan)
    arguments = arrow_task_arguments(plan, order, cluster.timezone)
    result = run_fused(ctx.spark, lakehouse, run=run, **arguments)
    log.info("[%s] read, parsed and written: %s", name, _took(started))
    settled = _settle(cluster, ctx.run_id, plan, add_counts(result.counts))
    events = CONTROLLER_EVENTS.qualified_name
    if plan.hint is None:
        result.files[events] = settle_conflicts(
            lakehouse, result.files[events], settled.conflicts, run
        )
    written: dict[str, int] = {}
    for spec in TABLES:
        files = result.files[spec.qualified_name]
        written[spec.qualified_name] = (
            lakehouse.commit_files(spec, files, mode, replace)
            if replacing is None
            else lakehouse.commit_replacing(spec, files, name, replacing)
        )
    written[INGEST_STATS.qualified_name] = _write_stats(ctx, cluster, settled, mode, replacing)
    log.info("[%s] committed: %s", name, _took(started))
    return written, settled.complete


def _unrecorded(
    ctx: JobContext, cluster: ClusterConfig, plan: IngestPlan, report: StageReport
) -> DataFrame | None:
    """(run_id, file) keys of rows an earlier run wrote of the plan's files without recording
    them (noted in ``report``), None when there are none.

    ``bronze.log_records`` is committed first: a run stopped before committing it left no rows
    in the other tables.
    """
    paths = [work.file.path for work in plan.works]
    pairs = unrecorded_reads(ctx.lakehouse, LOG_RECORDS, cluster.name, SOURCE, paths)
    if not pairs:
        return None
    report.notes.append(f"{len(pairs)} file read(s) an earlier run did not record, replaced")
    return local_frame(ctx.spark, [{"run_id": r, "file": f} for r, f in pairs], _READ_PAIRS)


def run_for_cluster(
    ctx: JobContext, cluster: ClusterConfig, options: Mapping[str, Any] | None = None
) -> StageReport:
    """Ingest one cluster's log files (see the module docstring).

    Args:
        ctx: the job context.
        cluster: the cluster; its ``inputs.logs`` are read.
        options: ``rebuild=True`` re-reads every input and replaces the cluster's rows.

    Returns:
        Rows written per table and notes (files skipped, per-file errors).
    """
    rebuild = bool((options or {}).get("rebuild"))
    report = StageReport(STAGE, cluster.name)
    if not cluster.inputs.logs:
        report.notes.append("no log inputs configured")
        return report
    started = time.monotonic()
    plan = plan_ingest(ctx, cluster, cluster.inputs.logs, rebuild)
    report.notes.extend(plan.discovery.notes)
    for path, reason in plan.discovery.refused:
        report.input_problem(path, reason)
    if plan.skipped:
        report.notes.append(f"{len(plan.skipped)} file(s) already ingested, skipped")
    if not plan.works and not rebuild:
        report.notes.append("nothing new to ingest")
        return report
    log.info(
        "[%s] %d file(s) to read (%d bytes), planned in %.1fs",
        cluster.name,
        len(plan.works),
        sum(w.plan.size - w.start for w in plan.works),
        time.monotonic() - started,
    )
    order = TrialOrder.for_hint(plan.hint)
    mode = WriteMode.replace_cluster if rebuild else WriteMode.append
    replacing = None if rebuild else _unrecorded(ctx, cluster, plan, report)
    if isinstance(ctx.lakehouse, DeltaRsLakehouse):
        written, complete = write_fused(ctx, cluster, plan, order, mode, replacing)
    else:
        parsed = parse_with_arrow(ctx.spark, plan, order, cluster.timezone)
        parsed = parsed.persist(StorageLevel.MEMORY_AND_DISK)
        try:
            written, complete = write_tables(ctx, cluster, plan, parsed, mode, replacing)
        finally:
            parsed.unpersist()
    digests = [
        FileDigest(w.file.path, w.plan.sha256, w.plan.size, w.plan.lines)
        for w in plan.works
        if w.file.path in complete
    ]
    record_ingested(ctx.spark, ctx.lakehouse, cluster.name, digests, SOURCE, ctx.run_id)
    report.rows_written.update(written)
    for work in plan.works:
        if work.error:
            report.input_problem(work.file.path, work.error)
        if work.layout_source == "fallback":
            report.notes.append(f"{work.file.path}: no known log layout in its first lines")
    return report
