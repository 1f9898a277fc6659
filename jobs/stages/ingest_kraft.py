"""``kafkactl-audit ingest-kraft``: a cluster's KRaft metadata log into Delta.

Inputs are a controller's ``__cluster_metadata-0`` directory (its files, not its
subdirectories) or files. Log segments (``<20 digits>.log``) and snapshots
(``<end offset>-<epoch>.checkpoint``) are read; a file named explicitly is also read when its name
ends in ``.log`` or ``.checkpoint``, as ``kafka-dump-log`` decides. Every other file (``.index``,
``.timeindex``, ``quorum-state``, ``partition.metadata``, ...) is skipped and counted in the
stage's notes, never an error. A file to read whose first bytes are text or a ZooKeeper file is
refused (a note naming it, exit code 4), as is a file with problems (damage, unreadable). For
one cluster:

1. **Plan** (driver): each file is hashed. Bytes already ingested for the cluster
   (``meta.ingested_files``, any path) are skipped, so re-running adds nothing; a second path
   with the same bytes in one run is skipped too. A path read before (its latest
   ``silver.kraft_ingest_stats`` row) whose bytes then are a prefix of its bytes now *grew*:
   it is read from that row's ``read_end``, the end of the last whole batch read (a batch still
   being written then is read whole now), and its new rows are appended. Any other file is read
   from byte 0; a path read before with other content (rewritten, not grown) has its rows in the
   three tables replaced, as has a grown path whose bronze rows go past the recorded end (a
   run that failed before its bookkeeping).
2. **Decode** (Python tasks, one per file, ``jobs.tasks.kraft_tasks``): every batch and record,
   damage and all: a truncated, bit-flipped or garbage file gives its problems with their byte
   offsets in its stats row, every batch before and after the damage is decoded, a record whose
   value does not decode is kept with its problem.
3. **Topic names**: a record naming its topic by id only (PartitionRecord,
   PartitionChangeRecord, RemoveTopicRecord) gets the name of the cluster's TopicRecord with that
   id, from this run's files or from earlier ingestions; a TopicRecord ingested only later does
   not name the rows written before it (they stay null).
4. **Write** ``bronze.kraft_records``, ``silver.kraft_changes`` and ``silver.kraft_ingest_stats``
   (one commit each), then record the files read in ``meta.ingested_files``.

Inputs must be readable as files from every Spark node (local disk in local mode; a shared
mount on a cluster).
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from jobs.lakehouse.ingested_files import (
    FILE_KEYS,
    FileDigest,
    already_ingested,
    record_ingested,
)
from jobs.lakehouse.port import WriteMode
from jobs.logparse.inputs import (
    NOT_REGULAR,
    InputFile,
    KnownExtent,
    control_share,
    expand,
    file_head,
    plan_file,
    special_file,
    zookeeper_file,
)
from jobs.runtime.config import ClusterConfig
from jobs.runtime.context import JobContext
from jobs.runtime.local_frame import local_frame
from jobs.runtime.spark_session import parallelism
from jobs.stages.registry import StageReport
from jobs.tasks.kraft_tasks import UNION, UNREAD, FileTask, assign, decode_files_task
from kafkactl_core.metadata_log.batches import HEADER_SIZE
from kafkactl_core.metadata_log.segments import SEGMENT, SNAPSHOT, kind_of
from schemas.kraft import KRAFT_CHANGES, KRAFT_INGEST_STATS, KRAFT_RECORDS

STAGE = "ingest-kraft"
SOURCE = "kraft"
TABLES = (KRAFT_RECORDS, KRAFT_CHANGES, KRAFT_INGEST_STATS)
NOTED_PROBLEMS = 3
"""Problems named in the notes per file; the stats row has every one."""
NOTED_NAMES = 5
TASK_BYTES = 16 << 20
"""Bytes a task reads at most, when there are more files than cores (decoding runs at about
2 MB/s per core)."""
TEXT_SHARE = 0.01
"""Share of control bytes in a file's head below which it is text: a record batch starts with
its base offset's zero bytes."""
_NAMED = StructType(
    [StructField("topic_id", StringType(), False), StructField("_named", StringType(), False)]
)
"""Topic names by id, the left join that fills a change's missing topic name."""
log = logging.getLogger("kafkactl_audit.ingest_kraft")


@dataclass(frozen=True)
class MetadataFiles:
    """What the inputs hold.

    Attributes:
        files: (path, kind) of every segment and snapshot, sorted by path.
        skipped: every other file, and subdirectories, sorted.
        refused: (path, reason) of files named as segments or snapshots whose first bytes are
            another format.
    """

    files: list[tuple[str, str]]
    skipped: list[str]
    refused: list[tuple[str, str]] = field(default_factory=list)


def _kind_by_suffix(name: str) -> str | None:
    if name.endswith(".log"):
        return SEGMENT
    if name.endswith(".checkpoint"):
        return SNAPSHOT
    return None


def find_metadata_files(entries: Iterable[str]) -> MetadataFiles:
    """The segments and snapshots among ``entries`` (files, directories, globs).

    A directory's files are taken by their names (``segments.kind_of``); a file named
    explicitly also by its suffix (``.log``, ``.checkpoint``).

    Args:
        entries: configured or command-line inputs.

    Returns:
        The files to read and the ones skipped.

    Raises:
        FileNotFoundError: an entry that matches nothing.
    """
    files: dict[str, str] = {}
    skipped: set[str] = set()
    for match in expand(entries):
        if os.path.isdir(match):
            for name in os.listdir(match):
                full = os.path.join(match, name)
                kind = kind_of(name).kind
                if kind is not None and os.path.isfile(full):
                    files[full] = kind
                else:
                    skipped.add(full)
            continue
        name = os.path.basename(match)
        kind = kind_of(name).kind or _kind_by_suffix(name)
        if kind is None:
            skipped.add(match)
        else:
            files[match] = kind
    refused = [(path, reason) for path in files if (reason := not_metadata(path)) is not None]
    for path, _ in refused:
        del files[path]
    return MetadataFiles(sorted(files.items()), sorted(skipped - set(files)), refused)


def not_metadata(path: str) -> str | None:
    """Why the file at ``path`` is no metadata log segment or snapshot, by its first bytes
    (text, a ZooKeeper file); None when it may be one (damage is the decoder's to report)."""
    if special_file(path):
        return NOT_REGULAR
    head = file_head(InputFile(path, SEGMENT))
    zookeeper = zookeeper_file(head)
    if zookeeper is not None:
        return f"{zookeeper}, not a KRaft metadata log (ingest-zk reads it)"
    # shorter than one batch header, the decoder names what is missing
    if len(head) >= HEADER_SIZE and control_share(head) < TEXT_SHARE:
        return "text, not a KRaft metadata log segment or snapshot (ingest-logs reads logs)"
    return None


@dataclass(frozen=True)
class PreviousRead:
    """The latest read of a path: its bytes then, and where that read ended."""

    sha256: str
    size: int
    read_end: int


@dataclass(frozen=True)
class FileRead:
    """One file of the run and how it is read.

    Attributes:
        path: the file.
        kind: segment or snapshot.
        digest: its bytes now.
        start: the byte to read from.
        replace: whether its earlier rows are replaced (it is read from 0 over them).
        grew: whether it grew since its previous read (read from where that stopped).
        error: why hashing it failed (it is then reported, not read).
    """

    path: str
    kind: str
    digest: FileDigest
    start: int
    replace: bool
    grew: bool
    error: str | None = None


@dataclass
class KraftPlan:
    """What the run reads (``reads``), and files it records without reading (``unchanged``)."""

    reads: list[FileRead] = field(default_factory=list)
    unchanged: list[FileDigest] = field(default_factory=list)
    already: int = 0
    duplicates: list[str] = field(default_factory=list)


def previous_reads(ctx: JobContext, cluster: str) -> dict[str, PreviousRead]:
    """Per path, the latest ``silver.kraft_ingest_stats`` row of ``cluster`` that read it.

    A row whose file could not be read (a ``read_error`` or ``decoder_error``) is no read: the
    file is read again.
    """
    if not ctx.lakehouse.exists(KRAFT_INGEST_STATS):
        return {}
    rows = (
        ctx.lakehouse.read(KRAFT_INGEST_STATS)
        .filter(F.col("cluster") == cluster)
        .filter(~F.exists("problems", lambda p: p["kind"].isin(*UNREAD)))
        .select("file", "content_sha256", "size_bytes", "read_end", "ingested_at")
        .collect()
    )
    latest: dict[str, Any] = {}
    for row in rows:
        seen = latest.get(row.file)
        if seen is None or (row.ingested_at, row.read_end) > (seen.ingested_at, seen.read_end):
            latest[row.file] = row
    return {
        path: PreviousRead(row.content_sha256, int(row.size_bytes), int(row.read_end))
        for path, row in latest.items()
    }


def bronze_ends(ctx: JobContext, cluster: str, paths: Sequence[str]) -> dict[str, int]:
    """Per path among ``paths`` with rows in ``bronze.kraft_records``: its last batch's position."""
    if not paths or not ctx.lakehouse.exists(KRAFT_RECORDS):
        return {}
    rows = (
        ctx.lakehouse.read(KRAFT_RECORDS)
        .filter((F.col("cluster") == cluster) & F.col("file").isin(list(paths)))
        .groupBy("file")
        .agg(F.max("batch_position").alias("last"))
        .collect()
    )
    return {row.file: int(row["last"]) for row in rows}


def plan_reads(ctx: JobContext, cluster: str, files: Sequence[tuple[str, str]]) -> KraftPlan:
    """Decide, per file, whether and from where it is read (see the module docstring).

    Args:
        ctx: the job context.
        cluster: the cluster.
        files: (path, kind) of the segments and snapshots.

    Returns:
        The plan.
    """
    previous = previous_reads(ctx, cluster)
    hashed = []
    for path, kind in files:
        before = previous.get(path)
        known = [KnownExtent(before.sha256, before.size, 0)] if before else []
        hashed.append((path, kind, plan_file(InputFile(path, kind), known, split_bytes=1 << 62)))
    seen = already_ingested(ctx.lakehouse, cluster, [p.sha256 for _, _, p in hashed])
    plan = KraftPlan()
    fresh = []
    first_path: dict[str, str] = {}
    for path, kind, hashing in hashed:
        if hashing.error is not None:
            digest = FileDigest(path, hashing.sha256, hashing.size, hashing.lines)
            plan.reads.append(FileRead(path, kind, digest, 0, False, False, hashing.error))
        elif hashing.sha256 in seen:
            plan.already += 1
        elif hashing.sha256 in first_path:
            plan.duplicates.append(f"{path} (the bytes of {first_path[hashing.sha256]})")
        else:
            first_path[hashing.sha256] = path
            fresh.append((path, kind, hashing))
    ends = bronze_ends(ctx, cluster, [path for path, _, _ in fresh])
    for path, kind, hashing in fresh:
        digest = FileDigest(path, hashing.sha256, hashing.size, hashing.lines)
        before = previous.get(path)
        if before is not None and hashing.sha256 == before.sha256:
            plan.unchanged.append(digest)  # read before; only its bookkeeping is missing
            continue
        grew = (
            before is not None
            and hashing.resume is not None
            and ends.get(path, -1) < before.read_end
        )
        start = before.read_end if grew and before is not None else 0
        replace = not grew and (before is not None or path in ends)
        plan.reads.append(FileRead(path, kind, digest, start, replace, grew))
    return plan


def topic_names(ctx: JobContext, records: DataFrame, cluster: str) -> dict[str, str]:
    """Topic id -> name, from the TopicRecords of ``records`` and of the cluster's rows already
    in ``silver.kraft_changes`` (one per topic: collected on the driver)."""
    topics = (F.col("record_type") == "TOPIC_RECORD") & F.col("topic_id").isNotNull()
    frames = [records.filter(topics).select("topic_id", "topic")]
    if ctx.lakehouse.exists(KRAFT_CHANGES):
        old = ctx.lakehouse.read(KRAFT_CHANGES).filter((F.col("cluster") == cluster) & topics)
        frames.append(old.select("topic_id", "topic"))
    names: dict[str, str] = {}
    for frame in frames:
        for row in frame.filter(F.col("topic").isNotNull()).distinct().collect():
            names[row.topic_id] = min(row.topic, names.get(row.topic_id, row.topic))
    return names


def with_topic_names(ctx: JobContext, changes: DataFrame, names: Mapping[str, str]) -> DataFrame:
    """``changes`` with a null ``topic`` filled from ``names`` by ``topic_id``.

    Args:
        ctx: the job context.
        changes: rows in ``silver.kraft_changes``' columns.
        names: topic id -> name (``topic_names``).

    Returns:
        The rows, in the table's columns.
    """
    if not names:
        return changes
    named = [{"topic_id": topic_id, "_named": name} for topic_id, name in sorted(names.items())]
    known = local_frame(ctx.spark, named, _NAMED)
    return (
        changes.join(F.broadcast(known), "topic_id", "left")
        .withColumn("topic", F.coalesce(F.col("topic"), F.col("_named")))
        .select(*KRAFT_CHANGES.schema.fieldNames())
    )


def _names(paths: Sequence[str]) -> str:
    shown = ", ".join(os.path.basename(p) for p in paths[:NOTED_NAMES])
    return shown + (f" and {len(paths) - NOTED_NAMES} more" if len(paths) > NOTED_NAMES else "")


def _problem_notes(stats: Sequence[dict[str, Any]], records: DataFrame) -> list[str]:
    """Notes naming each file's problems and undecoded records by byte offset."""
    notes: list[str] = []
    for row in sorted(stats, key=lambda r: r["file"]):
        problems = row["problems"] or []
        for problem in problems[:NOTED_PROBLEMS]:
            notes.append(
                f"{row['file']}: byte {problem['position']}: {problem['kind']}: {problem['reason']}"
            )
        if len(problems) > NOTED_PROBLEMS:
            notes.append(
                f"{row['file']}: {len(problems) - NOTED_PROBLEMS} more problem(s) in "
                f"{KRAFT_INGEST_STATS.qualified_name}"
            )
    if any(row["records_undecoded"] for row in stats):
        first = (
            records.filter(F.col("problem").isNotNull())
            .groupBy("file")
            .agg(
                F.count(F.lit(1)).alias("count"),
                F.min(F.struct("offset", "position", "record_type", "problem")).alias("first"),
            )
            .collect()
        )
        for undecoded in sorted(first, key=lambda r: r.file):
            at = undecoded.first
            notes.append(
                f"{undecoded.file}: {undecoded['count']} record(s) kept undecoded, the first at "
                f"offset {at.offset} (byte {at.position}): {at.record_type}: {at.problem}"
            )
    return notes


def _task_count(ctx: JobContext, reads: Sequence[FileRead]) -> int:
    """At least one task per core, more for big inputs (``TASK_BYTES`` each)."""
    total = sum(r.digest.size - r.start for r in reads)
    return max(parallelism(ctx.spark), math.ceil(total / TASK_BYTES))


def _write(
    ctx: JobContext,
    cluster: str,
    plan: KraftPlan,
    frames: Mapping[str, DataFrame],
    stats: Sequence[dict[str, Any]],
) -> dict[str, int]:
    """Write the three tables: appended, or replacing the rows of files read again from 0.

    The stats rows, one per file, are written from the driver.
    """
    replaced = sorted(r.path for r in plan.reads if r.replace)
    keys = local_frame(ctx.spark, [{"file": p} for p in replaced], FILE_KEYS) if replaced else None
    written: dict[str, int] = {}
    for spec in (KRAFT_RECORDS, KRAFT_CHANGES):
        frame = frames[spec.qualified_name]
        if keys is None:
            written[spec.qualified_name] = ctx.lakehouse.write(frame, spec, WriteMode.append)
        else:
            written[spec.qualified_name] = ctx.lakehouse.replace_keys(frame, spec, cluster, keys)
    name = KRAFT_INGEST_STATS.qualified_name
    if keys is None:
        written[name] = ctx.lakehouse.write_rows(KRAFT_INGEST_STATS, stats, WriteMode.append)
    else:
        frame = local_frame(ctx.spark, stats, KRAFT_INGEST_STATS.schema)
        written[name] = ctx.lakehouse.replace_keys(frame, KRAFT_INGEST_STATS, cluster, keys)
    return written


def run_for_cluster(
    ctx: JobContext, cluster: ClusterConfig, options: Mapping[str, Any] | None = None
) -> StageReport:
    """Ingest the cluster's KRaft metadata log (see the module docstring).

    Args:
        ctx: the job context.
        cluster: the cluster, whose ``inputs.kraft_metadata`` lists directories, files or globs.
        options: unused.

    Returns:
        Rows written per table, and notes: files skipped, files that grew, every file's
        problems by byte offset.
    """
    report = StageReport(STAGE, cluster.name)
    if not cluster.inputs.kraft_metadata:
        report.notes.append("no KRaft metadata inputs configured")
        return report
    found = find_metadata_files(cluster.inputs.kraft_metadata)
    for path, reason in found.refused:
        report.input_problem(path, reason)
    if found.skipped:
        report.notes.append(
            f"{len(found.skipped)} file(s) neither segment nor snapshot, skipped: "
            + _names(found.skipped)
        )
    plan = plan_reads(ctx, cluster.name, found.files)
    if plan.already:
        report.notes.append(f"{plan.already} file(s) already ingested, skipped")
    for duplicate in plan.duplicates:
        report.notes.append(f"{duplicate}: the same bytes twice, read once")
    for read in plan.reads:
        if read.grew:
            report.notes.append(f"{read.path}: grew, read from byte {read.start}")
        elif read.replace:
            report.notes.append(f"{read.path}: rewritten since it was read, read again")
    if not plan.reads:
        record_ingested(ctx.spark, ctx.lakehouse, cluster.name, plan.unchanged, SOURCE, ctx.run_id)
        if not found.files:
            report.notes.append("no segment or snapshot in the inputs")
        report.notes.append("nothing new")
        return report

    tasks = [
        FileTask(cluster.name, r.path, r.kind, r.digest.sha256, r.digest.size, r.start, r.error)
        for r in plan.reads
    ]
    assignments = assign(tasks, _task_count(ctx, plan.reads))
    function = partial(decode_files_task, assignments=assignments, run_id=ctx.run_id)
    decoded = ctx.spark.range(0, len(assignments), 1, len(assignments)).mapInArrow(function, UNION)
    decoded = decoded.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        now = datetime.now(UTC)
        stats = [
            {**row.asDict(recursive=True), "ingested_at": now}
            for row in decoded.filter(F.col("row_type") == "stats")
            .select(*KRAFT_INGEST_STATS.schema.fieldNames())
            .collect()
        ]
        records = decoded.filter(F.col("row_type") == "record")
        frames = {
            KRAFT_RECORDS.qualified_name: records.select(*KRAFT_RECORDS.schema.fieldNames()),
            KRAFT_CHANGES.qualified_name: with_topic_names(
                ctx,
                records.select(*KRAFT_CHANGES.schema.fieldNames()),
                topic_names(ctx, records, cluster.name),
            ),
        }
        notes = _problem_notes(stats, records)
        report.rows_written.update(_write(ctx, cluster.name, plan, frames, stats))
    finally:
        decoded.unpersist()
    report.notes.extend(notes)
    for row in stats:
        if row["problems"]:
            first = row["problems"][0]
            report.input_problems.append(
                f"{row['file']}: {len(row['problems'])} problem(s), the first at byte "
                f"{first['position']}: {first['kind']}: {first['reason']}"
            )
    unread = {
        row["file"] for row in stats if any(p["kind"] in UNREAD for p in row["problems"] or ())
    }
    done = [r.digest for r in plan.reads if r.path not in unread]
    record_ingested(
        ctx.spark, ctx.lakehouse, cluster.name, [*plan.unchanged, *done], SOURCE, ctx.run_id
    )
    return report
