"""``make bench``: run every benchmark script present and print their figures.

Each benchmark is a script that prints throughput figures (no assertions, no pass/fail):
the replay fold (pure core, one core), log ingestion (Spark + Delta, vs DuckDB), ZooKeeper
decoding, KRaft metadata log decoding (against Kafka's own dump tool), the whole pipeline on
simulated clusters at 1x, 2x and 4x data, and the small incident (the embedded demo's ``run``
from a cold start against a bare SparkSession start, and their ratio, beside issue 20's targets).
Pass a name to run one: ``python scripts/bench.py small``.

``--against REV`` compares with a previous version in the same invocation: the tree of git
revision REV is extracted to a temporary folder, and each benchmark runs from both trees in
turn (the order alternating from one benchmark to the next, as this VM's speed drifts). Their
outputs are printed line by line side by side (a line both print alike once), then a table of
wall times and their ratio. ``make bench AGAINST=REV`` does the same.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = {
    "replay": "bench_replay.py",
    "replay-spark": "bench_replay_spark.py",
    "ingest": "bench_ingest.py",
    "zk": "bench_zk.py",
    "scale": "bench_scale.py",
    "kraft": "bench_kraft.py",
    "small": "bench_small.py",
}


@dataclass(frozen=True)
class Outcome:
    """One benchmark script's run from one tree."""

    code: int
    wall: float
    output: str


def run_script(tree: Path, name: str, capture: bool) -> Outcome | None:
    """Run one benchmark of ``tree`` with that tree first on the path; None when it has none."""
    script = tree / "scripts" / BENCHES[name]
    if not script.exists():
        return None
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(tree / "scripts")])}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE if capture else None,
        stderr=subprocess.STDOUT if capture else None,
        text=True,
        check=False,
    )
    return Outcome(done.returncode, time.monotonic() - started, done.stdout or "")


def side_by_side(labels: tuple[str, str], outputs: tuple[str, str]) -> list[str]:
    """Pair two outputs line by line; a line both print alike is printed once."""
    width = max(len(label) for label in labels)
    lines: list[str] = []
    pairs = itertools.zip_longest(*(output.splitlines() for output in outputs), fillvalue="")
    for first, second in pairs:
        if first == second:
            lines.append(f"{'':{width}}   {first}")
        else:
            lines.append(f"{labels[0]:{width}} | {first}")
            lines.append(f"{labels[1]:{width}} | {second}")
    return lines


def extract(revision: str, into: Path) -> Path:
    """The tree of a git revision of this repository, extracted under ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(HERE.parent), "archive", "--format=tar", revision],
        capture_output=True,
        check=True,
    ).stdout
    tree = into / revision
    tree.mkdir(parents=True)
    archive_path = into / "tree.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(tree, filter="data")
    return tree


def compare(names: list[str], revision: str) -> int:
    """Run each benchmark from this tree and from ``revision``'s; print both and the ratios."""
    labels = (revision, "this tree")
    table: list[str] = []
    worst = 0
    with tempfile.TemporaryDirectory(prefix="bench-against-") as tmp:
        trees = (extract(revision, Path(tmp)), HERE.parent)
        for index, name in enumerate(names):
            print(f"=== {name} ({BENCHES[name]}): {labels[0]} vs {labels[1]} ===", flush=True)
            order = (0, 1) if index % 2 == 0 else (1, 0)
            outcomes: dict[int, Outcome | None] = {}
            for side in order:
                outcomes[side] = run_script(trees[side], name, capture=True)
            old, new = outcomes[0], outcomes[1]
            if old is None or new is None:
                missing = labels[0] if old is None else labels[1]
                present = new or old
                print(f"not present in {missing}; {present and present.output}", flush=True)
                continue
            print("\n".join(side_by_side(labels, (old.output, new.output))), flush=True)
            ratio = new.wall / old.wall if old.wall else float("nan")
            first = labels[order[0]]
            table.append(
                f"{name:<13} {old.wall:>8.0f}s {new.wall:>8.0f}s {ratio:>6.2f}  "
                f"exit {old.code}/{new.code}, {first} ran first"
            )
            worst = max(worst, old.code, new.code)
            print(flush=True)
    print(f"{'bench':<13} {labels[0]:>9} {labels[1]:>9} {'ratio':>6}  (wall, this tree / old)")
    print("\n".join(table), flush=True)
    return worst


def main(argv: list[str]) -> int:
    """Run the selected (default: all) benchmarks in turn; return the worst exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=", ".join(BENCHES))
    parser.add_argument("--against", metavar="REV", help="also run a git revision's benchmarks")
    args = parser.parse_args(argv)
    selected = args.names or list(BENCHES)
    unknown = sorted(set(selected) - set(BENCHES))
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(BENCHES)}")
    if args.against:
        return compare(selected, args.against)
    worst = 0
    for name in selected:
        print(f"=== {name} ({BENCHES[name]}) ===", flush=True)
        outcome = run_script(HERE.parent, name, capture=False)
        if outcome is None:
            print("not present in this build\n", flush=True)
            continue
        print(f"--- {name}: exit {outcome.code}, {outcome.wall:.0f}s wall\n", flush=True)
        worst = max(worst, outcome.code)
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
