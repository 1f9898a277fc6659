"""Benchmark of ingest-logs on a generated Kafka 2.8 state-change.log (figures, no assertions).

Generates (once, cached in ``--work``) a state-change.log of ``--lines`` lines (4 million by
default) in the 2.8 format: partition state changes (new, online with ``LeaderAndIsr(...)``,
removals from the ISR), TRACE replica state changes, LeaderAndIsr / UpdateMetadata requests sent
and received, and broker-side leader/follower starts, over 200 topics of 64 partitions and 12
brokers. Then prints, on the same file in the same run (the parse stage and the whole ingest as
the median of ``--repeat`` runs, 3 by default, after a warm-up on the file's first 100,000 lines):

* **reader**: the Python side alone (cutting records, candidates), one process;
* **parse stage**: reader + layout and grammar executor (the Arrow executor, in the reader's
  tasks), every column computed and handed to Spark (its ``noop`` sink), then only counted in
  the one-pass tasks, lines/s;
* **whole ingest**: ``ingest-logs`` from nothing: planning (hashing), parse, bronze, silver,
  quarantine and stats Delta writes, bookkeeping, lines/s, on each engine of ``--engines``
  (both by default, side by side: delta-rs reads, parses and writes in one pass per task;
  delta-spark parses in the tasks and writes with Delta's Spark writer);
* **DuckDB**, on the same file with as many threads as Spark has cores, two equivalents:
  *layout fields*: one regex pass extracting timestamp, level, message and logger (the layout
  regex of every Kafka version, FORMATS.md), timestamp parsed; *layout + grammar fields*: that,
  plus the grammar entries of the 2.8 range as one CASE chain (first entry whose literal the
  message contains and whose pattern matches wins) and ONE regex extracting its fields (the
  work our parse stage does).

Usage: ``.venv/bin/python scripts/bench_ingest.py [--lines N] [--work DIR] [--cores 2]
[--engines delta-rs,delta-spark]``.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from jobs.logparse.parse_contract import TrialOrder
    from jobs.runtime.config import AppConfig, ClusterConfig
    from jobs.stages.ingest_logs import IngestPlan

TOPICS = [f"topic-{i:03d}" for i in range(196)] + [
    "orders",
    "audit",
    "payments.events",
    "__consumer_offsets",
]
PARTITION_STATES = ("NonExistentPartition", "NewPartition", "OnlinePartition", "OfflinePartition")
REPLICA_STATES = (
    "NewReplica",
    "OnlineReplica",
    "OfflineReplica",
    "ReplicaDeletionStarted",
    "ReplicaDeletionSuccessful",
    "NonExistentReplica",
)


def generate(path: Path, lines: int, seed: int = 7) -> None:
    """Write ``lines`` lines of a Kafka 2.8 state-change.log (deterministic for a seed)."""
    rnd = random.Random(seed)
    brokers = list(range(1, 13))
    millis = 0
    block: list[str] = []
    with path.open("w") as out:
        for _ in range(lines):
            millis += rnd.randint(0, 3)
            seconds, ms = divmod(millis, 1000)
            minutes, sec = divmod(seconds, 60)
            hours, minute = divmod(minutes, 60)
            day, hour = divmod(hours, 24)
            ts = f"2022-10-{5 + day:02d} {hour:02d}:{minute:02d}:{sec:02d},{ms:03d}"
            controller, epoch = rnd.choice(brokers), rnd.randint(1, 60)
            tp = f"{rnd.choice(TOPICS)}-{rnd.randint(0, 63)}"
            replicas = rnd.sample(brokers, 3)
            ident = f"[Controller id={controller} epoch={epoch}]"
            kind = rnd.random()
            level = "INFO"
            if kind < 0.25:
                isr = ", ".join(map(str, replicas[: rnd.randint(1, 3)]))
                message = (
                    f"{ident} Changed partition {tp} from {rnd.choice(PARTITION_STATES)} to "
                    f"OnlinePartition with state LeaderAndIsr(leader={replicas[0]}, "
                    f"leaderEpoch={rnd.randint(0, 900)}, isr=List({isr}), "
                    f"zkVersion={rnd.randint(0, 900)})"
                )
            elif kind < 0.40:
                level = "TRACE"
                message = (
                    f"{ident} Changed state of replica {replicas[0]} for partition {tp} from "
                    f"{rnd.choice(REPLICA_STATES)} to {rnd.choice(REPLICA_STATES)}"
                )
            elif kind < 0.50:
                message = (
                    f"{ident} Changed partition {tp} state from NonExistentPartition to "
                    f"NewPartition with assigned replicas {','.join(map(str, replicas))}"
                )
            elif kind < 0.60:
                message = (
                    f"{ident} Sending LeaderAndIsr request to broker {replicas[0]} with "
                    f"{rnd.randint(0, 500)} become-leader and {rnd.randint(0, 500)} "
                    "become-follower partitions"
                )
            elif kind < 0.70:
                message = (
                    f"{ident} Sending UpdateMetadata request to brokers "
                    f"HashSet({', '.join(map(str, replicas))}) for {rnd.randint(0, 900)} partitions"
                )
            elif kind < 0.78:
                message = (
                    f"[Broker id={replicas[1]}] Add {rnd.randint(0, 900)} partitions and deleted "
                    f"{rnd.randint(0, 9)} partitions from metadata cache in response to "
                    f"UpdateMetadata request sent by controller {controller} epoch {epoch} with "
                    f"correlation id {rnd.randint(0, 99999)}"
                )
            elif kind < 0.86:
                isr = ",".join(map(str, replicas[: rnd.randint(1, 3)]))
                message = (
                    f"{ident} Partition {tp} state changed to (Leader:{replicas[0]},ISR:{isr},"
                    f"LeaderEpoch:{rnd.randint(0, 900)},ZkVersion:{rnd.randint(0, 900)},"
                    f"ControllerEpoch:{epoch}) after removing replica {replicas[2]} from the ISR "
                    "as part of transition to OfflineReplica"
                )
            elif kind < 0.93:
                message = (
                    f"[Broker id={replicas[0]}] Leader {tp} starts at leader epoch "
                    f"{rnd.randint(0, 900)} from offset {rnd.randint(0, 10**9)} with high "
                    f"watermark {rnd.randint(0, 10**9)} ISR [{','.join(map(str, replicas))}] "
                    "addingReplicas [] removingReplicas []. Previous leader epoch was "
                    f"{rnd.randint(-1, 900)}."
                )
            elif kind < 0.97:
                message = (
                    f"[Broker id={replicas[0]}] Handling LeaderAndIsr request correlationId "
                    f"{rnd.randint(0, 99999)} from controller {controller} for "
                    f"{rnd.randint(1, 900)} partitions"
                )
            else:
                message = (
                    f"[Broker id={replicas[0]}] Follower {tp} starts at leader epoch "
                    f"{rnd.randint(0, 900)} from offset {rnd.randint(0, 10**9)} with high "
                    f"watermark {rnd.randint(0, 10**9)}. Previous leader epoch was "
                    f"{rnd.randint(-1, 900)}."
                )
            block.append(f"[{ts}] {level} {message} (state.change.logger)\n")
            if len(block) >= 100_000:
                out.write("".join(block))
                block.clear()
        out.write("".join(block))


def _runs(times: list[float]) -> str:
    return ", ".join(f"{t:.1f}" for t in times) + " s"


def _rate(lines: int, seconds: float) -> str:
    return f"{seconds:8.1f} s  {lines / seconds:>12,.0f} lines/s"


def _duckdb_lines(path: Path) -> str:
    return (
        f"read_csv('{path}', columns = {{'line': 'VARCHAR'}}, header = false, "
        "delim = '\x01', quote = '', escape = '', auto_detect = false)"
    )


_LAYOUT = (
    r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) "
    r"(.*) \(([^()]*)\)$"
)


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _run_duckdb(query: str, lines: int, threads: int) -> float:
    import duckdb

    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    con.execute("SET enable_progress_bar = false")
    started = time.perf_counter()
    count = con.execute(query).fetchone()
    elapsed = time.perf_counter() - started
    if count is None or count[0] != lines:
        raise RuntimeError(f"DuckDB read {count} lines, expected {lines}")
    return elapsed


def bench_duckdb(path: Path, lines: int, threads: int) -> float:
    """Seconds DuckDB takes for one regex pass extracting the layout fields of every line."""
    query = f"""
        WITH parts AS (
            SELECT regexp_extract(line, '{_LAYOUT}', ['ts', 'level', 'message', 'logger']) AS p
            FROM {_duckdb_lines(path)}
        )
        SELECT count(*), count(strptime(p.ts, '%Y-%m-%d %H:%M:%S,%g')),
               sum(length(p.message)), count(DISTINCT p.logger), count(DISTINCT p.level)
        FROM parts
    """
    return _run_duckdb(query, lines, threads)


def bench_duckdb_grammars(path: Path, lines: int, threads: int, release: str) -> float:
    """Seconds DuckDB takes for the layout pass plus the grammar fields, as our executor does.

    Every grammar entry of the release's range that RE2 can run, in trial order, as one CASE
    chain (the first entry whose literal the message contains and whose anchored pattern
    matches wins, as in our executors): the winner's name and its fields, extracted by ONE
    ``regexp_extract`` into named fields (as JSON text: one type for every branch).
    """
    from kafkactl_core.grammars import grammars_for_version
    from kafkactl_core.versions import KafkaRelease

    branches = []
    for entry in grammars_for_version(KafkaRelease.parse(release)):
        pattern = entry.regex.pattern
        if "(?!" in pattern or "(?=" in pattern or "(?<" in pattern:
            continue  # lookaround: not RE2
        anchored = _sql_text(f"^(?:{pattern})$")
        names = ", ".join(_sql_text(name) for name, _ in entry.fields)
        fields = f"to_json(regexp_extract(p.message, {anchored}, [{names}]))" if names else "'{}'"
        test = f"contains(p.message, {_sql_text(entry.literal)})"
        branches.append(
            f"WHEN {test} AND regexp_full_match(p.message, {anchored}) "
            f"THEN {_sql_text(entry.name)} || {fields}"
        )
    query = f"""
        WITH parts AS (
            SELECT regexp_extract(line, '{_LAYOUT}', ['ts', 'level', 'message', 'logger']) AS p
            FROM {_duckdb_lines(path)}
        ), fields AS (
            SELECT strptime(p.ts, '%Y-%m-%d %H:%M:%S,%g') AS t, p.level, p.logger,
                   CASE {" ".join(branches)} END AS event
            FROM parts
        )
        SELECT count(*), count(t), count(event) FROM fields
    """
    return _run_duckdb(query, lines, threads)


def _count_task(batches: Iterator[pa.RecordBatch], **arguments: Any) -> Iterator[pa.RecordBatch]:
    """Read and parse as the one-pass ingest's tasks do; only the outcome counts come out."""
    from jobs.lakehouse.arrow_types import arrow_schema
    from jobs.tasks.ingest_tasks import FUSED_SCHEMA, OutcomeCounts, parsed_batches

    counts = OutcomeCounts()
    for parsed in parsed_batches(batches, **arguments):
        counts.add(parsed)
    yield pa.RecordBatch.from_pylist(counts.rows(), schema=arrow_schema(FUSED_SCHEMA))


def count_parsed(spark: SparkSession, plan: IngestPlan, order: TrialOrder) -> int:
    """The parse stage of the one-pass ingest (read + layout + grammars in the tasks): records."""
    from jobs.stages.ingest_logs import arrow_task_arguments
    from jobs.tasks.ingest_tasks import FUSED_SCHEMA

    arguments = arrow_task_arguments(plan, order, "UTC")
    partitions = len(arguments["assignments"])
    task = partial(_count_task, **arguments)
    rows = spark.range(0, partitions, 1, partitions).mapInArrow(task, FUSED_SCHEMA).collect()
    return sum(row.records for row in rows)


def whole_ingest(
    spark: SparkSession,
    config: AppConfig,
    warm_cluster: ClusterConfig,
    engine: str,
    repeat: int,
    work: Path,
    lines: int,
) -> float:
    """The whole ingest on one engine: the median seconds of ``repeat`` runs into new tables.

    Warmed up first on the 100,000-line file into a lakehouse of its own: the workers' first
    import of the writers and the first Delta commits are not the steady state.
    """
    from pyspark.sql import functions as F

    from jobs.runtime.config import LakehouseConfig
    from jobs.runtime.context import JobContext
    from jobs.stages.ingest_logs import run_for_cluster
    from schemas.logs import CONTROLLER_EVENTS

    lakehouse = Path(config.lakehouse.path or work / "lakehouse")
    warm_lakehouse = work / "lakehouse-warm-up"
    shutil.rmtree(warm_lakehouse, ignore_errors=True)
    warm_config = config.model_copy(
        update={
            "lakehouse": LakehouseConfig(path=str(warm_lakehouse)),
            "clusters": [warm_cluster],
            "engine": engine,
        }
    )
    warm_ctx = JobContext(config=warm_config, spark_factory=lambda _: spark)
    run_for_cluster(warm_ctx, warm_cluster, {"rebuild": True})

    ctx = JobContext(
        config=config.model_copy(update={"engine": engine}), spark_factory=lambda _: spark
    )
    (cluster,) = config.clusters
    times = []
    for _ in range(repeat):
        shutil.rmtree(lakehouse, ignore_errors=True)  # each run ingests into new tables
        started = time.perf_counter()
        report = run_for_cluster(ctx, cluster)
        times.append(time.perf_counter() - started)
    whole = statistics.median(times)
    print(
        f"whole ingest, {engine} (plan + parse + 4 Delta tables, median of {_runs(times)}):"
        f" {_rate(lines, whole)}"
    )
    for table, count in report.rows_written.items():
        print(f"    {table}: {count:,} rows")
    events = ctx.lakehouse.read(CONTROLLER_EVENTS).agg(F.count(F.lit(1)).alias("n"))
    print(f"    check: {events.first().n:,} events readable back")
    return whole


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=4_000_000)
    parser.add_argument("--work", default="/tmp/kafkactl-audit-bench")
    parser.add_argument("--cores", type=int, default=2, help="Spark local[N] and DuckDB threads")
    parser.add_argument("--skip-duckdb", action="store_true")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of the parse stage and of the whole ingest (the median is printed)",
    )
    parser.add_argument(
        "--engines",
        default="delta-rs,delta-spark",
        help="lakehouse engines of the whole ingest, comma-separated (each measured in turn)",
    )
    args = parser.parse_args(argv)
    engines = args.engines.split(",")

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    logs = work / f"logs-{args.lines}"
    path = logs / "state-change.log"
    if not path.exists():
        logs.mkdir(exist_ok=True)
        started = time.perf_counter()
        generate(path.with_suffix(".tmp"), args.lines)
        path.with_suffix(".tmp").rename(path)
        print(f"generated {path} in {time.perf_counter() - started:.1f} s")
    size = path.stat().st_size
    print(f"input: {path}: {args.lines:,} lines, {size / 1e6:,.0f} MB, Kafka 2.8 state-change.log")

    from jobs.logparse.candidates import CandidateIndex
    from jobs.logparse.parse_contract import TrialOrder
    from jobs.logparse.reader import ReaderSettings, read_split
    from jobs.runtime.config import AppConfig, ClusterConfig, ClusterInputs, LakehouseConfig
    from jobs.runtime.context import JobContext
    from jobs.runtime.spark_session import LocalSparkSettings, get_spark
    from jobs.stages.ingest_logs import parse_with_arrow, plan_ingest, split_tasks

    cores = args.cores
    spark = get_spark(
        LocalSparkSettings(master=f"local[{cores}]", shuffle_partitions=cores, driver_memory="3g")
    )
    lakehouse = work / "lakehouse"
    shutil.rmtree(lakehouse, ignore_errors=True)
    cluster = ClusterConfig(
        name="bench",
        kafka_version="2.8",
        log_layout="kafka",
        inputs=ClusterInputs(logs=[str(logs)]),
    )
    config = AppConfig(
        lakehouse=LakehouseConfig(path=str(lakehouse)),
        clusters=[cluster],
        engine=engines[0],
    )
    ctx = JobContext(config=config, spark_factory=lambda _: spark)

    started = time.perf_counter()
    plan = plan_ingest(ctx, cluster, cluster.inputs.logs, rebuild=True)
    planning = time.perf_counter() - started
    order = TrialOrder.for_hint(plan.hint)
    tasks = split_tasks(plan)
    print(f"plan: {len(tasks)} splits, {planning:.1f} s (SHA-256 and line count of the file)")

    # The Python side alone, on one split (one core).
    index = CandidateIndex([e.name for e in order.entries], "2.8")
    settings = ReaderSettings(version_hint="2.8")
    one = tasks[len(tasks) // 2]
    started = time.perf_counter()
    rows = sum(batch.num_rows for batch in read_split(one, settings, index))
    reader = time.perf_counter() - started
    print(f"reader (Python, 1 core, one split of {rows:,} records): {_rate(rows, reader)}")

    # Warm-up on the file's first 100,000 lines: JVM start, Python workers, code generation and
    # JIT compilation, regex compilation. (A LIMIT would cancel the Python workers mid-batch.)
    warm_logs = work / "warm-up"
    warm_logs.mkdir(exist_ok=True)
    with path.open("rb") as source, (warm_logs / "state-change.log").open("wb") as head:
        head.writelines(line for _, line in zip(range(100_000), source, strict=False))
    warm_cluster = cluster.model_copy(update={"inputs": ClusterInputs(logs=[str(warm_logs)])})
    warm_plan = plan_ingest(ctx, warm_cluster, warm_cluster.inputs.logs, rebuild=True)

    parse_with_arrow(spark, warm_plan, order, "UTC").write.format("noop").mode("overwrite").save()
    parsed = parse_with_arrow(spark, plan, order, "UTC")
    started = time.perf_counter()
    parsed.write.format("noop").mode("overwrite").save()
    handed = time.perf_counter() - started
    print(
        f"parse stage, arrow executor, every column handed to Spark ({cores} cores):"
        f"  {_rate(args.lines, handed)}"
    )
    count_parsed(spark, warm_plan, order)
    times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        records = count_parsed(spark, plan, order)
        times.append(time.perf_counter() - started)
    parse = statistics.median(times)
    print(
        f"parse stage, arrow executor, in the one-pass tasks ({records:,} records counted, "
        f"{cores} cores, median of {_runs(times)}):  {_rate(args.lines, parse)}"
    )

    wholes = {
        engine: whole_ingest(spark, config, warm_cluster, engine, args.repeat, work, args.lines)
        for engine in engines
    }

    if not args.skip_duckdb:
        duck = bench_duckdb(path, args.lines, cores)
        print(f"DuckDB, layout fields ({cores} threads):          {_rate(args.lines, duck)}")
        duck_all = bench_duckdb_grammars(path, args.lines, cores, "2.8")
        print(f"DuckDB, layout + grammar fields ({cores} threads): {_rate(args.lines, duck_all)}")
        print(f"parse stage / DuckDB layout fields:          {duck / parse:.2f}x")
        print(f"parse stage / DuckDB layout + grammar fields: {duck_all / parse:.2f}x")
    for engine, seconds in wholes.items():
        print(
            f"whole ingest, {engine} / 300,000 lines/s target: "
            f"{args.lines / seconds / 300_000:.2f}x"
        )
    if len(wholes) == 2:
        first, second = wholes.values()
        print(f"whole ingest, {engines[1]} time / {engines[0]} time: {second / first:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
