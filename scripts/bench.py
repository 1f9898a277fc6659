"""``make bench``: run every benchmark script present and print their figures.

Each benchmark is a script that prints throughput figures (no assertions, no pass/fail):
the replay fold (pure core, one core), log ingestion (Spark + Delta, vs DuckDB), ZooKeeper
decoding, KRaft metadata log decoding (against Kafka's own dump tool), and the whole pipeline
on simulated clusters at 1x, 2x and 4x data. Pass a name to run one: ``python scripts/bench.py
replay``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = {
    "replay": "bench_replay.py",
    "replay-spark": "bench_replay_spark.py",
    "ingest": "bench_ingest.py",
    "zk": "bench_zk.py",
    "scale": "bench_scale.py",
    "kraft": "bench_kraft.py",
}


def main(argv: list[str]) -> int:
    """Run the selected (default: all) benchmarks in turn; return the worst exit code."""
    selected = argv or list(BENCHES)
    worst = 0
    for name in selected:
        script = HERE / BENCHES[name]
        print(f"=== {name} ({script.name}) ===", flush=True)
        if not script.exists():
            print("not present in this build\n", flush=True)
            continue
        started = time.monotonic()
        code = subprocess.call([sys.executable, str(script)])
        print(f"--- {name}: exit {code}, {time.monotonic() - started:.0f}s wall\n", flush=True)
        worst = max(worst, code)
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
