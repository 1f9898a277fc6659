"""Benchmark of the small incident against a bare Spark start: prints figures, asserts nothing.

    python scripts/bench_small.py [--rounds 3] [--whole] [--keep DIR]

The small incident is the embedded demo (``conf/local.yaml``: the cluster ``demo``, ZooKeeper
Kafka 2.8, 4 brokers). Its target (issue 20): ``kafkactl-audit run`` at most 20 s of wall time
from a cold start, and at most 3 times a bare SparkSession's start-up on the same machine in the
same run. Each round measures, in turn, each in a new process:

- the bare start: a Python process that builds the session as the CLI does (``conf/local.yaml``
  loaded, the project's own builder, ``jobs.runtime.context.spark_for`` over
  ``jobs.runtime.spark_session.get_spark``), counts ``spark.range(1)`` and stops;
- ``kafkactl-audit run --cluster demo`` into an empty lakehouse (a new temporary directory);
- with ``--whole``, ``kafkactl-audit run`` (every configured cluster: ``demo`` and
  ``kraft-demo``) the same way. Off by default: a round then takes minutes more.

Each time is the child's wall time from its start to its exit; the CLI runs as ``python -m
jobs.cli`` with this file's interpreter in its tree (the working directory, first on the path of
the driver and of Spark's Python workers), so ``make bench AGAINST=REV`` (``scripts/bench.py``)
measures each tree's own code. The rounds alternate the
measurements, as this VM's speed drifts; the medians are printed, with each stage's median time
(the run's ``[cluster] stage done in X.Xs`` log lines) and the time outside the stages (Python
imports, the JVM and session start, opening the lakehouse, listing the tables). Peak memory is
the highest sum of the resident sets of the process tree (the driver, Spark's JVM, the Python
workers), sampled from ``/proc`` as ``bench_scale.py`` does, with the peak of each kind beside
it. The load average is printed first and last: other work on the machine slows every figure.
"Cold" means a new process and an empty lakehouse; the file cache stays warm after the first
round.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_common import Memory, run_measured

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf" / "local.yaml"
CLUSTER = "demo"
TARGET_SECONDS = 20.0
TARGET_RATIO = 3.0
STAGE_DONE = re.compile(r"\[(?P<cluster>[^\]]+)\] (?P<stage>\S+) done in (?P<seconds>[0-9.]+)s")

BARE_START = """
from jobs.runtime.config import load_config
from jobs.runtime.context import spark_for

spark = spark_for(load_config("conf/local.yaml"))
spark.range(1).count()
spark.stop()
"""


@dataclass
class Timed:
    """One child process, run to its end.

    Attributes:
        code: its exit code.
        seconds: wall time from its start to its exit.
        memory: the peak resident memory of its process tree, sampled.
        stages: seconds per ``cluster stage`` from its ``done in`` log lines.
        log: its standard error, kept when it failed.
    """

    code: int
    seconds: float
    memory: Memory
    stages: dict[str, float] = field(default_factory=dict)
    log: str = ""


def timed(argv: Sequence[str], log: Path) -> Timed:
    """Run ``argv`` in this tree (``scale_common.run_measured``), its ``done in`` lines parsed.

    Args:
        argv: the command.
        log: where its standard error goes.

    Returns:
        What it did.
    """
    measured = run_measured(argv, log)
    text = log.read_text(encoding="utf-8", errors="replace")
    stages = {
        f"{m['cluster']} {m['stage']}": float(m["seconds"]) for m in STAGE_DONE.finditer(text)
    }
    tail = "" if measured.code == 0 else "\n".join(text.splitlines()[-15:])
    return Timed(measured.code, measured.seconds, measured.memory, stages, tail)


def bare_start(work: Path) -> Timed:
    """The bare session start, in a new interpreter."""
    return timed([sys.executable, "-c", BARE_START], work / "bare.log")


def pipeline(work: Path, name: str, cluster: str | None) -> Timed:
    """``kafkactl-audit run`` (one cluster, or all) into a new, empty lakehouse."""
    lakehouse = work / f"lakehouse-{name}"
    shutil.rmtree(lakehouse, ignore_errors=True)
    argv = [sys.executable, "-m", "jobs.cli", "run", "--lakehouse", str(lakehouse)]
    if cluster is not None:
        argv += ["--cluster", cluster]
    try:
        return timed(argv, work / f"{name}.log")
    finally:
        shutil.rmtree(lakehouse, ignore_errors=True)


def count_lines(path: Path) -> int:
    """Lines of a text file, or of a gzip-compressed one."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        return sum(1 for _ in f)


def log_lines(cluster: str | None) -> tuple[int, list[str]]:
    """The input log lines of one configured cluster (or of all), and the clusters' names."""
    data = yaml.safe_load(CONF.read_text(encoding="utf-8"))
    total, names = 0, []
    for entry in data.get("clusters") or []:
        if cluster is not None and entry.get("name") != cluster:
            continue
        names.append(str(entry.get("name")))
        for root in (entry.get("inputs") or {}).get("logs") or []:
            base = ROOT / root
            files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
            total += sum(count_lines(p) for p in files)
    return total, names


def median(values: Sequence[float]) -> float:
    """The median, NaN when empty."""
    return statistics.median(values) if values else float("nan")


def peak(runs: Sequence[Timed]) -> str:
    """The highest sampled memory of the runs: the tree's sum, and the largest of each kind."""
    total = max(r.memory.peak_total for r in runs)
    kinds = {kind for r in runs for kind in r.memory.peak_by_kind}
    parts = [
        f"{kind} {max(r.memory.peak_by_kind.get(kind, 0) for r in runs) / 2**20:,.0f}"
        for kind in ("driver", "jvm", "workers")
        if kind in kinds
    ]
    return f"{total / 2**20:,.0f} MiB ({', '.join(parts)})"


def load() -> str:
    """The 1, 5 and 15 minute load averages and the core count."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} cores"


def summarize(label: str, runs: list[Timed], bare: float) -> None:
    """Print a run's median against the bare start and the targets, then its stages."""
    ok = [r for r in runs if r.code == 0]
    failed = len(runs) - len(ok)
    if not ok:
        print(f"{label}: every run failed (exit {runs[0].code}):\n{runs[0].log}")
        return
    wall = median([r.seconds for r in ok])
    ratio = wall / bare if bare else float("nan")
    print(
        f"{label}: run {wall:.1f} s median of {len(ok)} = {ratio:.1f}x bare session start "
        f"{bare:.1f} s (targets: <= {TARGET_SECONDS:g} s, <= {TARGET_RATIO:g}x)"
        + (f"; {failed} run(s) failed" if failed else "")
    )
    print(f"  rounds: {', '.join(f'{r.seconds:.1f}' for r in runs)} s")
    stages: list[str] = []  # in the order the runs logged them
    for run in ok:
        stages += [name for name in run.stages if name not in stages]
    outside_label = "outside the stages"
    width = max(len(n) for n in [*stages, outside_label])
    for name in stages:
        values = [r.stages[name] for r in ok if name in r.stages]
        print(f"  {name:<{width}} {median(values):>6.1f} s")
    outside = median([r.seconds - sum(r.stages.values()) for r in ok])
    print(f"  {outside_label:<{width}} {outside:>6.1f} s  (imports, JVM, session, tables)")
    print(f"  peak RSS of the process tree: {peak(ok)}")
    if failed:
        bad = next(r for r in runs if r.code != 0)
        print(f"  a failed run (exit {bad.code}):\n{bad.log}")


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each kind")
    parser.add_argument(
        "--whole", action="store_true", help="also time run over every configured cluster"
    )
    parser.add_argument("--keep", type=Path, default=None, help="keep the logs in this folder")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    """Alternate the bare start and the runs for ``--rounds`` rounds; print the medians."""
    args = parse(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="kafkactl-bench-small-"))
    work.mkdir(parents=True, exist_ok=True)
    demo_lines, _ = log_lines(CLUSTER)
    all_lines, names = log_lines(None)
    print(f"bench small: {args.rounds} round(s), {load()}", flush=True)
    kinds = ["bare", "demo"] + (["whole"] if args.whole else [])
    results: dict[str, list[Timed]] = {kind: [] for kind in kinds}
    try:
        for index in range(args.rounds):
            # alternate which comes first, so a drift in the machine's speed falls on both
            order = kinds if index % 2 == 0 else kinds[::-1]
            for kind in order:
                if kind == "bare":
                    result = bare_start(work)
                else:
                    result = pipeline(work, kind, CLUSTER if kind == "demo" else None)
                results[kind].append(result)
                print(
                    f"round {index + 1}: {kind} {result.seconds:.1f} s, exit {result.code}",
                    flush=True,
                )
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print()
    bare_ok = [r for r in results["bare"] if r.code == 0]
    if not bare_ok:
        print(f"bare session start failed (exit {results['bare'][0].code}):")
        print(results["bare"][0].log)
        return 1
    bare = median([r.seconds for r in bare_ok])
    print(
        f"bare session start: {bare:.1f} s median of {len(bare_ok)} "
        f"({', '.join(f'{r.seconds:.1f}' for r in results['bare'])} s; peak RSS of the "
        f"process tree {peak(bare_ok)})"
    )
    summarize(f"small incident ({CLUSTER}, {demo_lines:,} log lines)", results["demo"], bare)
    if args.whole:
        label = f"whole run ({', '.join(names)}, {all_lines:,} log lines)"
        summarize(label, results["whole"], bare)
    print(f"bench small: done, {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
