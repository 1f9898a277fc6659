"""Benchmark of the replay through Spark: prints throughput on local[2], asserts nothing.

Generates evidence with ``bench_replay.py``'s generator (a 12-broker ZooKeeper-mode cluster
under 2.8 rules: leader-driven ISR changes, elections after broker failures, controlled-shutdown
and preferred elections, replica transitions, a few unclean and failed elections), by default
5,000,000 records over 16,000 partitions. The records are generated in Spark tasks (each
partition from its own seed) and written once as Parquet; the broker failures are cluster facts
built into timelines on the driver. Not timed.

Timed: the replay stage's Spark plan on that input (``jobs.stages.replay.replay_frame``:
repartition by partition, sort within partitions, ``mapInArrow`` into one ``ReplayDriver`` per
task) up to the rows per gold table, on ``local[2]``. Beside it, the pure core in this one process
(``ReplayDriver`` fed the same generator's partitions, a sample of them, in chunks of 10,000)
as events per second of CPU time and of wall time.

Usage: ``python scripts/bench_replay_spark.py [--events N] [--partitions P] [--sample S]
[--shuffle-partitions K] [--dir DIR]``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path

import pyarrow as pa
from pyspark import cloudpickle
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from jobs.lakehouse.arrow_types import arrow_schema
from jobs.runtime.spark_session import LocalSparkSettings, get_spark
from jobs.stages.replay import EVIDENCE_SCHEMA, replay_frame
from kafkactl_core.replay import (
    PartitionEvidence,
    ReplayDriver,
    ReplaySettings,
    build_timelines,
    partition_key,
)

bench_replay = importlib.import_module("bench_replay")
"""The sibling script with the evidence generator (``scripts/`` is on the path above)."""

SEED = 7


def stream(partition: int, per: int) -> list[PartitionEvidence]:
    """One partition's evidence, from its own seed (the same in Spark tasks and here)."""
    rng = random.Random(SEED * 1_000_003 + partition)
    return bench_replay.partition_stream(rng, f"topic-{partition % 40}", partition, per, [])


def generate_task(
    batches: Iterable[pa.RecordBatch], *, per: int, schema: pa.Schema
) -> Iterator[pa.RecordBatch]:
    """``mapInArrow``: partition numbers in, their evidence rows out."""
    for batch in batches:
        for partition in batch.column("partition").to_pylist():
            rows = [ev.to_row() for ev in stream(partition, per)]
            yield pa.RecordBatch.from_pylist(rows, schema=schema)


def generate(spark: SparkSession, path: str, partitions: int, per: int) -> int:
    """Write the evidence of ``partitions`` partitions as Parquet; return the record count."""
    task = partial(generate_task, per=per, schema=arrow_schema(EVIDENCE_SCHEMA))
    ids = spark.range(partitions, numPartitions=max(2, partitions // 500)).select(
        F.col("id").alias("partition")
    )
    ids.mapInArrow(task, EVIDENCE_SCHEMA).write.mode("overwrite").parquet(path)
    return spark.read.parquet(path).count()


def core_rate(partitions: int, per: int, settings: ReplaySettings, timelines: dict) -> str:
    """The pure core's rate on ``partitions`` of the same streams (one process, one core)."""
    evidence: list[PartitionEvidence] = []
    for partition in range(partitions):
        evidence.extend(stream(partition, per))
    evidence.sort(key=lambda ev: (partition_key(ev), ev.order_key()))
    driver = ReplayDriver(timelines, settings)
    cpu, wall = time.process_time(), time.perf_counter()
    for start in range(0, len(evidence), 10_000):
        driver.feed(evidence[start : start + 10_000])
    driver.finish()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return (
        f"pure core (one process, {len(evidence):,} events of {partitions:,} partitions): "
        f"{len(evidence) / cpu:,.0f} events/s CPU, {len(evidence) / wall:,.0f} events/s wall"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=5_000_000)
    parser.add_argument("--partitions", type=int, default=16_000)
    parser.add_argument("--sample", type=int, default=2_000, help="partitions for the core rate")
    parser.add_argument("--shuffle-partitions", type=int, default=8)
    parser.add_argument("--dir", help="where to write the generated input (default: a temp dir)")
    args = parser.parse_args(argv)

    # The generator is a sibling script: ship it to the Python workers by value.
    cloudpickle.register_pickle_by_value(bench_replay)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = get_spark(
        LocalSparkSettings(master="local[2]", shuffle_partitions=args.shuffle_partitions)
    )
    spark.sparkContext.setLogLevel("ERROR")
    per = max(10, args.events // args.partitions)
    work = Path(args.dir or tempfile.mkdtemp(prefix="bench-replay-spark-"))
    path = str(work / "evidence.parquet")
    try:
        started = time.perf_counter()
        count = generate(spark, path, args.partitions, per)
        facts, _ = bench_replay.broker_facts(random.Random(SEED), per * 10_000)
        timelines = build_timelines(facts)
        settings = ReplaySettings.of("2.8")
        size = sum(f.stat().st_size for f in Path(path).rglob("*.parquet"))
        print(
            f"generated {count:,} evidence records over {args.partitions:,} partitions "
            f"({size / 2**20:,.0f} MiB Parquet) and {len(facts):,} cluster facts in "
            f"{time.perf_counter() - started:.0f} s (not timed below)",
            flush=True,
        )

        evidence = spark.read.parquet(path)
        started = time.perf_counter()
        counts = {
            row.row_type: row["count"]
            for row in replay_frame(spark, evidence, timelines, [settings])
            .groupBy("row_type")
            .count()
            .collect()
        }
        elapsed = time.perf_counter() - started
        print(
            f"Spark replay (local[2], {args.shuffle_partitions} shuffle partitions: read, "
            f"repartition, sort, mapInArrow fold): {count:,} events in {elapsed:.1f} s = "
            f"{count / elapsed:,.0f} events/s",
            flush=True,
        )
        print(
            "rows: "
            + ", ".join(f"{counts.get(t, 0):,} {t}" for t in ("election", "timeline", "anomaly")),
            flush=True,
        )
        print(core_rate(min(args.sample, args.partitions), per, settings, timelines), flush=True)
    finally:
        if args.dir is None:
            shutil.rmtree(work, ignore_errors=True)
        spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
