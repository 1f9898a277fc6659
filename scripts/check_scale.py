"""Acceptance at scale: a simulated day of a large cluster through ``kafkactl-audit run``, every
election of the replay compared with the simulator's ground truth.

    python scripts/check_scale.py [--brokers 30] [--topics 200] [--partitions-per-topic 100]
        [--hours 24] [--seed 7] [--kafka-version 2.8] [--work DIR] [--keep]
        [--driver-memory 3g] [--engines auto]

Simulates the cluster (``kafkactl-audit simulate``: the random operations mix) into
``WORK/sim``, runs the whole pipeline on its logs (``kafkactl-audit run`` with a configuration
written for the run: one cluster, logs only, UTC, the simulated release, ``local[2]``), then
reads ``gold.elections`` (scenario ``actual``) and compares it with
``ground-truth-elections.jsonl`` election by election (``kafkactl_lab.simulate.truth``: key
partition and leader epoch; trigger, previous and new leader, ISR before and after, unclean,
controller and epoch, time within a second). Prints the figures: simulate time and peak memory,
lines written, pipeline time per stage and peak memory (driver, JVM and Python workers summed),
elections compared, mismatches (the first ones in full), the replay's anomalies by kind, the
report's anomalies (``gold.report_anomalies``: a simulated cluster is clean, so any is a defect)
and the decisions the rules disagree with. ``--engines delta-rs,delta-spark`` runs the pipeline
once per engine on the same simulated day, each into a lakehouse of its own, and prints each
run's figures side by side. Exit 1 on any mismatch or report anomaly (or nothing to compare), 0
otherwise.
``WORK`` defaults to a temporary directory, removed at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_common import (
    Size,
    gold_rows,
    run_pipeline,
    simulate,
    stage_runs,
    write_conf,
)

from kafkactl_lab.simulate.truth import GOLD_COLUMNS, Election, compare, read_truth

CLUSTER = "scale"
ELECTION_COLUMNS = (*GOLD_COLUMNS, "agrees")


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brokers", type=int, default=30)
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--partitions-per-topic", type=int, default=100)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--kafka-version", default="2.8")
    parser.add_argument("--work", type=Path, default=None, help="working directory")
    parser.add_argument("--keep", action="store_true", help="keep the working directory")
    parser.add_argument("--driver-memory", default="3g")
    parser.add_argument(
        "--engines",
        default="auto",
        help="comma-separated: auto, delta-rs, delta-spark (one pipeline run each)",
    )
    return parser.parse_args(argv)


def check_engine(engine: str, size: Size, work: Path, sim: Path, summary: dict, args) -> bool:
    """One pipeline run on ``engine`` over the simulated day, compared; True when all agree."""
    lakehouse = work / f"lakehouse-{engine}"
    shutil.rmtree(lakehouse, ignore_errors=True)
    conf = write_conf(
        work / f"scale-{engine}.yaml",
        lakehouse,
        CLUSTER,
        sim / "logs",
        kafka_version=size.kafka_version,
        driver_memory=args.driver_memory,
        engine=engine,
    )
    ran = run_pipeline(conf, work / f"run-{engine}.log")
    stages = stage_runs(lakehouse, CLUSTER)
    per_stage = ", ".join(f"{s.stage} {s.seconds:.0f} s" for s in stages.values())
    events = stages["ingest-logs"].rows_written.get("silver.controller_events", 0)
    print(
        f"kafkactl-audit run, engine {engine}: {ran.seconds:.0f} s ({per_stage}), peak RSS "
        f"{ran.memory.text()}\n  {events:,} controller events; ingest "
        f"{summary['lines'] / stages['ingest-logs'].seconds:,.0f} lines/s, replay "
        f"{events / stages['replay'].seconds:,.0f} events/s",
        flush=True,
    )
    disagreeing: Counter[str] = Counter()

    def replayed() -> list[Election]:
        rows = []
        for row in gold_rows(lakehouse, "elections", CLUSTER, ELECTION_COLUMNS):
            if row["agrees"] is not True:
                disagreeing[f"{row['trigger']} agrees={row['agrees']}"] += 1
            rows.append(Election.from_gold(row))
        return rows

    with open(sim / "ground-truth-elections.jsonl", encoding="utf-8") as truth:
        result = compare(read_truth(truth), replayed())
    anomalies, report_anomalies = (
        Counter(
            f"{r['kind']}/{r['severity']}"
            for r in gold_rows(lakehouse, table, CLUSTER, ("kind", "severity"))
        )
        for table in ("anomalies", "report_anomalies")
    )
    triggers = ", ".join(f"{k} {v:,}" for k, v in sorted(result.triggers.items()))
    print(
        f"elections: {result.truth:,} in the ground truth ({triggers}; "
        f"{result.unclean} unclean), {result.replayed:,} replayed; failed attempts: "
        f"{result.failed_truth:,} in the ground truth, {result.failed_replayed:,} replayed\n"
        f"  compared {result.truth:,}: {result.matched:,} equal in every field "
        f"(failed attempts: {result.failed_matched:,}), "
        f"{result.total_mismatches} mismatches {dict(result.counts)}; largest time "
        f"difference {result.max_time_diff_ms} ms",
        flush=True,
    )
    for mismatch in result.mismatches:
        print(f"    {mismatch.describe()}")
    print(f"  decisions the rules disagree with: {dict(disagreeing) or 'none'}")
    print(f"  anomalies: {dict(anomalies) or 'none'}")
    print(f"  report anomalies: {dict(report_anomalies) or 'none'}")
    ok = result.ok and not report_anomalies
    print(
        f"{'PASS' if ok else 'FAIL'} ({engine}): {result.matched:,}/{result.truth:,} elections "
        f"agree, {sum(report_anomalies.values()):,} report anomalies",
        flush=True,
    )
    return ok


def main(argv: list[str]) -> int:
    """Simulate, run, compare; print the figures; 1 on any mismatch."""
    args = parse(argv)
    size = Size(
        args.brokers,
        args.topics,
        args.partitions_per_topic,
        args.hours,
        args.seed,
        args.kafka_version,
    )
    work = args.work or Path(tempfile.mkdtemp(prefix="kafkactl-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    sim = work / "sim"
    shutil.rmtree(sim, ignore_errors=True)
    try:
        print(f"scale check: {size.text()}, Kafka {size.kafka_version}, seed {size.seed}")
        print(f"  working directory {work}", flush=True)
        simulated, summary = simulate(size, sim)
        ops = ", ".join(f"{k} {v}" for k, v in sorted(summary["operations"].items()))
        print(
            f"simulate: {simulated.seconds:.1f} s, peak RSS {simulated.memory.text()}\n"
            f"  {summary['lines']:,} log lines, {summary['zk_transactions']:,} ZooKeeper "
            f"transactions, {summary['elections']:,} elections "
            f"({summary['unclean_elections']} unclean), controller epoch "
            f"{summary['controller_epoch']}\n  operations: {ops}",
            flush=True,
        )
        results = [
            check_engine(engine, size, work, sim, summary, args)
            for engine in args.engines.split(",")
        ]
        return 0 if all(results) else 1
    finally:
        if args.work is None and not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
