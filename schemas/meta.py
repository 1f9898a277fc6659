"""Bookkeeping tables of the pipeline itself (layer ``meta``)."""

from __future__ import annotations

from pyspark.sql.types import (
    ArrayType,
    LongType,
    MapType,
    StringType,
    StructType,
    TimestampType,
)

from schemas.catalog import TableSpec, column

INGESTED_FILES = TableSpec(
    layer="meta",
    name="ingested_files",
    description="Every input file ingested, by content hash: the same bytes twice is a no-op.",
    schema=StructType(
        [
            column("cluster", StringType(), "Cluster the file belongs to.", nullable=False),
            column("content_sha256", StringType(), "SHA-256 of the bytes read.", nullable=False),
            column("size_bytes", LongType(), "Bytes covered by this row.", nullable=False),
            column("lines", LongType(), "Physical lines in those bytes.", nullable=False),
            column("path", StringType(), "Path the file was read from.", nullable=False),
            column("source", StringType(), "Stage that ingested it: logs or zk.", nullable=False),
            column("run_id", StringType(), "Run that ingested it.", nullable=False),
            column("ingested_at", TimestampType(), "When it was ingested (UTC).", nullable=False),
        ]
    ),
)

RUNS = TableSpec(
    layer="meta",
    name="runs",
    description="One row per stage, cluster and run: when, what it read and wrote, how it ended.",
    schema=StructType(
        [
            column("cluster", StringType(), "Cluster.", nullable=False),
            column("run_id", StringType(), "Run id (UTC start time and a suffix).", nullable=False),
            column("stage", StringType(), "Stage name.", nullable=False),
            column("started_at", TimestampType(), "Start (UTC).", nullable=False),
            column("ended_at", TimestampType(), "End (UTC).", nullable=False),
            column("status", StringType(), "succeeded or failed.", nullable=False),
            column("inputs", ArrayType(StringType()), "Inputs the stage was given."),
            column("rows_written", MapType(StringType(), LongType()), "Rows written per table."),
            column("notes", ArrayType(StringType()), "Warnings and remarks."),
            column("error", StringType(), "One-line reason of a failure."),
        ]
    ),
)

LEASES = TableSpec(
    layer="meta",
    name="leases",
    description="One row per cluster: the run that may write its tables (one writer at a time).",
    schema=StructType(
        [
            column("cluster", StringType(), "Cluster the lease is for.", nullable=False),
            column("run_id", StringType(), "Run holding (or last holding) it.", nullable=False),
            column("host", StringType(), "Host of that run.", nullable=False),
            column("pid", LongType(), "Process id of that run on its host.", nullable=False),
            column("started_at", TimestampType(), "When that run took it (UTC).", nullable=False),
            column("heartbeat_at", TimestampType(), "Its last renewal (UTC).", nullable=False),
            column("released_at", TimestampType(), "When it was released; null while held."),
            column(
                "token",
                StringType(),
                "Id of this version of the row: a change commits only over the one it read.",
                nullable=False,
            ),
        ]
    ),
)

TABLES: tuple[TableSpec, ...] = (INGESTED_FILES, RUNS, LEASES)
