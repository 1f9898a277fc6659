"""Benchmark of the whole pipeline at 1x, 2x and 4x data: prints figures, asserts nothing.

    python scripts/bench_scale.py [--brokers 12] [--topics 30] [--partitions-per-topic 100]
        [--hours 24] [--factors 1,2,4] [--seed 7] [--driver-memory 3g] [--dir DIR]

For each factor F the simulator (``kafkactl-audit simulate``, the random operations mix of
Kafka 2.8) writes ``F x --hours`` of the same cluster: the same partitions, F times the churn
and log lines. Then ``kafkactl-audit run`` (its own process: JVM start, ingest-logs,
ingest-zk (nothing), replay, report, on ``local[2]``) runs on the logs into a fresh lakehouse.

Printed per factor: input lines, simulator time and peak RSS (one process: flat as hours grow
if it streams), pipeline wall time, the stages' own times from ``meta.runs`` (ingest lines/s,
replay controller events/s, report), and the pipeline's peak memory: the sum of the resident
sets of the driver, Spark's JVM and the Python workers, sampled every quarter second (the
largest of each kind beside it). Last, each figure as a multiple of the 1x one, so the growth
of the cost with the work shows. Run by ``make bench`` (``scripts/bench.py``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_common import Size, run_pipeline, simulate, stage_runs, write_conf

CLUSTER = "bench"


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brokers", type=int, default=12)
    parser.add_argument("--topics", type=int, default=30)
    parser.add_argument("--partitions-per-topic", type=int, default=100)
    parser.add_argument("--hours", type=float, default=24.0, help="hours of the 1x run")
    parser.add_argument("--factors", default="1,2,4", help="multiples of --hours")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--driver-memory", default="3g")
    parser.add_argument("--dir", type=Path, default=None, help="keep the data here")
    return parser.parse_args(argv)


def gib(n: int) -> str:
    """Bytes as GiB with two decimals."""
    return f"{n / 2**30:.2f}"


def main(argv: list[str]) -> int:
    """Simulate and run each size in turn; print the table."""
    args = parse(argv)
    factors = [float(f) for f in args.factors.split(",")]
    work = args.dir or Path(tempfile.mkdtemp(prefix="kafkactl-bench-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    base = Size(args.brokers, args.topics, args.partitions_per_topic, args.hours, args.seed)
    print(f"bench scale: {base.text()} at 1x, Kafka {base.kafka_version}, local[2]", flush=True)
    rows: list[dict[str, float]] = []
    try:
        for factor in factors:
            size = Size(
                base.brokers,
                base.topics,
                base.partitions_per_topic,
                base.hours * factor,
                base.seed,
            )
            label = f"{factor:g}x"
            sim_dir, lakehouse = work / f"sim-{label}", work / f"lakehouse-{label}"
            shutil.rmtree(sim_dir, ignore_errors=True)
            shutil.rmtree(lakehouse, ignore_errors=True)
            simulated, summary = simulate(size, sim_dir)
            conf = write_conf(
                work / f"{label}.yaml",
                lakehouse,
                CLUSTER,
                sim_dir / "logs",
                driver_memory=args.driver_memory,
            )
            ran = run_pipeline(conf, work / f"run-{label}.log")
            stages = stage_runs(lakehouse, CLUSTER)
            lines = summary["lines"]
            events = stages["ingest-logs"].rows_written.get("silver.controller_events", 0)
            row = {
                "factor": factor,
                "hours": size.hours,
                "lines": lines,
                "events": events,
                "elections": summary["elections"],
                "sim_s": simulated.seconds,
                "sim_rss": simulated.memory.peak_total,
                "run_s": ran.seconds,
                "ingest_s": stages["ingest-logs"].seconds,
                "replay_s": stages["replay"].seconds,
                "report_s": stages["report"].seconds,
                "peak": ran.memory.peak_total,
                "jvm": ran.memory.peak_by_kind.get("jvm", 0),
                "workers": ran.memory.peak_by_kind.get("workers", 0),
                "driver": ran.memory.peak_by_kind.get("driver", 0),
            }
            rows.append(row)
            print(
                f"{label}: {size.text()}: {lines:,} lines, {events:,} events, "
                f"{summary['elections']:,} elections; simulate {simulated.seconds:.0f} s "
                f"(peak RSS {gib(row['sim_rss'])} GiB); run {ran.seconds:.0f} s "
                f"(ingest {row['ingest_s']:.0f} s, replay {row['replay_s']:.0f} s, report "
                f"{row['report_s']:.0f} s), peak {ran.memory.text()}",
                flush=True,
            )
            shutil.rmtree(sim_dir, ignore_errors=True)
            shutil.rmtree(lakehouse, ignore_errors=True)
    finally:
        if args.dir is None:
            shutil.rmtree(work, ignore_errors=True)
    print()
    header = (
        f"{'size':>5} {'hours':>6} {'lines':>10} {'events':>10} {'ingest l/s':>11} "
        f"{'replay ev/s':>12} {'report s':>9} {'run s':>7} {'peak GiB':>9} {'jvm':>6} "
        f"{'workers':>8} {'driver':>7} {'sim s':>6} {'sim RSS':>8}"
    )
    print(header)
    for r in rows:
        print(
            f"{r['factor']:>4g}x {r['hours']:>6g} {int(r['lines']):>10,} {int(r['events']):>10,} "
            f"{r['lines'] / r['ingest_s']:>11,.0f} {r['events'] / r['replay_s']:>12,.0f} "
            f"{r['report_s']:>9.0f} {r['run_s']:>7.0f} {gib(int(r['peak'])):>9} "
            f"{gib(int(r['jvm'])):>6} {gib(int(r['workers'])):>8} {gib(int(r['driver'])):>7} "
            f"{r['sim_s']:>6.0f} {gib(int(r['sim_rss'])):>8}"
        )
    if len(rows) > 1:
        first = rows[0]
        print("\ngrowth against 1x (work = lines):")
        for r in rows[1:]:
            print(
                f"  {r['factor']:g}x: lines x{r['lines'] / first['lines']:.2f}, "
                f"run time x{r['run_s'] / first['run_s']:.2f} (ingest "
                f"x{r['ingest_s'] / first['ingest_s']:.2f}, replay "
                f"x{r['replay_s'] / first['replay_s']:.2f}, report "
                f"x{r['report_s'] / first['report_s']:.2f}), peak memory "
                f"x{r['peak'] / first['peak']:.2f}, simulator time "
                f"x{r['sim_s'] / first['sim_s']:.2f}, simulator RSS "
                f"x{r['sim_rss'] / first['sim_rss']:.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
