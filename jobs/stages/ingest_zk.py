"""``kafkactl-audit ingest-zk``: a cluster's ZooKeeper snapshots and transaction logs into Delta.

Files are identified by content hash: a file already ingested for the cluster is skipped, so
re-running adds nothing. When anything is new:

1. the new files are decoded in parallel (one Spark task per file) into ``bronze.zk_records``
   (every node and transaction, undecoded) and ``silver.zk_ingest_stats`` (one row per file,
   with every problem found and the byte offset where reading stopped); a path ingested
   before with other content (a preallocated transaction log that grew) has its rows
   replaced, so each path's rows are those of its latest content;
2. every ZooKeeper file of the cluster (the inputs, plus files ingested before that are still
   where they were) is replayed in zxid order, in one task, and the cluster's
   ``silver.zk_state`` (Kafka state as of each snapshot) and ``silver.zk_changes`` (every
   Kafka-relevant write, decoded, with time) are replaced in one commit each. A row equal to
   one the cluster already had keeps that row's ``run_id``: ``run_id`` says which run first
   produced it, so an incremental replay sees which rows are new.

A file that cannot be read, or that is named explicitly but is no ZooKeeper file (a Kafka log
given here), is reported per file (its stats row, a note, exit code 4); other files found in a
directory (``myid``, ``acceptedEpoch``) get a stats row and a note only.

Inputs must be readable as files from every Spark node (local disk in local mode; a shared
mount such as NFS or ``/dbfs`` on a cluster).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from functools import partial
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType

from jobs.lakehouse.ingested_files import (
    FILE_KEYS,
    already_ingested,
    digest_file,
    record_ingested,
)
from jobs.lakehouse.port import WriteMode
from jobs.logparse.inputs import NOT_REGULAR, expand, special_file
from jobs.runtime.config import ClusterConfig
from jobs.runtime.context import JobContext
from jobs.runtime.local_frame import local_frame
from jobs.stages.registry import StageReport
from jobs.tasks.zk_tasks import FILES_UNION, REPLAY_UNION, decode_files_task, replay_task
from kafkactl_core.zk import find_data_files
from schemas.catalog import TableSpec
from schemas.meta import INGESTED_FILES
from schemas.zk import ZK_CHANGES, ZK_INGEST_STATS, ZK_RECORDS, ZK_STATE

STAGE = "ingest-zk"
SOURCE = "zk"
log = logging.getLogger("kafkactl_audit.ingest_zk")

_TASKS = StructType(
    [
        StructField("cluster", StringType(), False),
        StructField("file", StringType(), False),
        StructField("content_sha256", StringType(), False),
        StructField("kind", StringType(), False),
        StructField("size_bytes", LongType(), False),
    ]
)
_REPLAY_INPUT = StructType(
    [StructField("cluster", StringType(), False), StructField("files_json", StringType(), False)]
)


def _previously_ingested_paths(ctx: JobContext, cluster: str) -> list[str]:
    """Paths of ZooKeeper files ingested before for ``cluster`` that still hold those bytes."""
    if not ctx.lakehouse.exists(INGESTED_FILES):
        return []
    rows = (
        ctx.lakehouse.read(INGESTED_FILES)
        .filter((F.col("cluster") == cluster) & (F.col("source") == SOURCE))
        .select("path", "content_sha256", "size_bytes")
        .distinct()
        .collect()
    )
    kept = []
    for row in rows:
        unchanged = os.path.isfile(row.path) and os.path.getsize(row.path) == row.size_bytes
        if unchanged and digest_file(row.path).sha256 == row.content_sha256:
            kept.append(os.path.abspath(row.path))
    return kept


def keep_run_ids(ctx: JobContext, frame: DataFrame, spec: TableSpec, cluster: str) -> DataFrame:
    """``frame`` (the cluster's new rows of ``spec``) with the ``run_id`` of equal existing rows.

    Rows are compared on every column but ``run_id`` (through a digest of their JSON form);
    a row without an equal one keeps the current run's id.

    Args:
        ctx: the job context.
        frame: the rows about to replace the cluster's rows, in ``spec``'s columns.
        spec: the table.
        cluster: the cluster.

    Returns:
        The rows, in ``spec``'s columns.
    """
    if not ctx.lakehouse.exists(spec):
        return frame
    columns = [name for name in spec.schema.fieldNames() if name != "run_id"]
    digest = F.sha2(F.to_json(F.struct(*columns)), 256)
    old = (
        ctx.lakehouse.read(spec)
        .filter(F.col("cluster") == cluster)
        .select(digest.alias("_row"), "run_id")
        .groupBy("_row")
        .agg(F.min("run_id").alias("_first_run"))
    )
    return (
        frame.withColumn("_row", digest)
        .join(old, "_row", "left")
        .withColumn("run_id", F.coalesce(F.col("_first_run"), F.col("run_id")))
        .select(*spec.schema.fieldNames())
    )


def _split(frame: DataFrame, row_type: str, columns: list[str]) -> DataFrame:
    return frame.filter(F.col("row_type") == row_type).select(*columns)


def run_for_cluster(
    ctx: JobContext, cluster: ClusterConfig, options: Mapping[str, Any] | None = None
) -> StageReport:
    """Ingest the cluster's ZooKeeper inputs (see the module docstring).

    Args:
        ctx: the job context.
        cluster: the cluster, whose ``inputs.zookeeper`` lists files, dataDirs or globs.
        options: unused.

    Returns:
        Rows written per table, and notes on skipped or damaged files.
    """
    report = StageReport(STAGE, cluster.name)
    if not cluster.inputs.zookeeper:
        report.notes.append("no ZooKeeper inputs configured")
        return report
    matches = []
    for path in expand(cluster.inputs.zookeeper):
        if special_file(path):
            report.input_problem(path, NOT_REGULAR)
        else:
            matches.append(path)
    named = {path for path in matches if not os.path.isdir(path)}
    data_files, others = find_data_files(matches)
    candidates = [(f.path, f.kind.value) for f in data_files] + [(p, "other") for p in others]
    digests = {}
    for path, _ in candidates:
        try:
            digests[path] = digest_file(path)
        except OSError as exc:
            report.input_problem(path, f"cannot read: {exc.strerror or exc}")
    candidates = [(path, kind) for path, kind in candidates if path in digests]
    data_files = [f for f in data_files if f.path in digests]
    seen = already_ingested(ctx.lakehouse, cluster.name, [d.sha256 for d in digests.values()])
    fresh = [(path, kind) for path, kind in candidates if digests[path].sha256 not in seen]
    skipped = len(candidates) - len(fresh)
    if skipped:
        report.notes.append(f"{skipped} file(s) already ingested, skipped")
    if not fresh:
        report.notes.append("nothing new")
        return report
    lakehouse, spark = ctx.lakehouse, ctx.spark

    tasks = local_frame(
        spark,
        [
            {
                "cluster": cluster.name,
                "file": path,
                "content_sha256": digests[path].sha256,
                "kind": kind,
                "size_bytes": digests[path].size,
            }
            for path, kind in fresh
        ],
        _TASKS,
    ).repartition(max(1, len(fresh)))
    decoded = tasks.mapInArrow(partial(decode_files_task, run_id=ctx.run_id), FILES_UNION)
    decoded = decoded.persist(StorageLevel.MEMORY_AND_DISK)
    # A path ingested before with other content (a preallocated transaction log that grew, a
    # file copied again) is decoded again in full: its rows replace the earlier ones.
    fresh_paths = local_frame(spark, [{"file": path} for path, _ in fresh], FILE_KEYS)
    try:
        report.rows_written[ZK_RECORDS.qualified_name] = lakehouse.replace_keys(
            _split(decoded, "record", ZK_RECORDS.schema.fieldNames()),
            ZK_RECORDS,
            cluster.name,
            fresh_paths,
        )
        stats = _split(decoded, "stats", ZK_INGEST_STATS.schema.fieldNames())
        report.rows_written[ZK_INGEST_STATS.qualified_name] = lakehouse.replace_keys(
            stats, ZK_INGEST_STATS, cluster.name, fresh_paths
        )
        failed = stats.filter(F.col("error").isNotNull()).select("file", "kind", "error")
        for row in failed.collect():
            if row.kind == "other" and row.file not in named:
                report.notes.append(f"{row.file}: {row.error}")
            else:
                report.input_problem(row.file, row.error)
    finally:
        decoded.unpersist()

    replay_paths = sorted(
        {f.path for f in data_files} | set(_previously_ingested_paths(ctx, cluster.name))
    )
    replay_input = local_frame(
        spark, [{"cluster": cluster.name, "files_json": json.dumps(replay_paths)}], _REPLAY_INPUT
    )
    replayed = replay_input.mapInArrow(partial(replay_task, run_id=ctx.run_id), REPLAY_UNION)
    replayed = replayed.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        for spec, row_type in ((ZK_STATE, "state"), (ZK_CHANGES, "change")):
            rows = _split(replayed, row_type, spec.schema.fieldNames())
            report.rows_written[spec.qualified_name] = lakehouse.write(
                keep_run_ids(ctx, rows, spec, cluster.name),
                spec,
                WriteMode.replace_cluster,
                cluster.name,
            )
    finally:
        replayed.unpersist()

    done = [digests[path] for path, _ in fresh]
    record_ingested(spark, lakehouse, cluster.name, done, SOURCE, ctx.run_id)
    return report
