"""Benchmark of the ZooKeeper decoders: prints decode rates, asserts nothing.

Generates ~100 MB of transaction logs (four ``log.<zxid>`` files of a Kafka-controller-like
workload, written by ``kafkactl_lab.zk_encode``) and a snapshot, then times on one core:
the log decoder alone, the log decoder plus Kafka change rows (``silver.zk_changes``), and the
snapshot decoder plus state rows. Figures only: MB/s, entries/s, peak traced memory.

Usage: ``python scripts/bench_zk.py [--mb 100] [--dir DIR]`` (default: a temporary directory).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafkactl_core.zk.jute import Stat
from kafkactl_core.zk.snapshot import read_snapshot
from kafkactl_core.zk.state import KafkaReplay, state_rows
from kafkactl_core.zk.txnlog import read_txnlog
from kafkactl_lab.zk_encode import NodeSpec, encode_snapshot, write_synthetic_txnlog


def generate_logs(directory: Path, total_mb: int, files: int = 4) -> list[Path]:
    paths = []
    zxid = 1
    per_file = total_mb * (1 << 20) // files
    for _ in range(files):
        path = directory / f"log.{zxid:x}"
        with path.open("wb") as f:
            _, last = write_synthetic_txnlog(f, per_file, first_zxid=zxid)
        paths.append(path)
        zxid = last + 1
    return paths


def generate_snapshot(directory: Path, partitions: int) -> Path:
    def stat(z: int, version: int = 0) -> Stat:
        return Stat(z, z, 1_700_000_000_000 + z, 1_700_000_000_000 + z, version, 0, 0, 0, z)

    def nodes():
        yield NodeSpec("/", b"", stat(0))
        for path in ("/brokers", "/brokers/topics", "/brokers/topics/orders"):
            yield NodeSpec(path, b"", stat(1))
        yield NodeSpec("/brokers/topics/orders/partitions", b"", stat(2))
        for p in range(partitions):
            base = f"/brokers/topics/orders/partitions/{p}"
            yield NodeSpec(base, b"", stat(3 + p))
            state = (
                b'{"controller_epoch":7,"leader":%d,"version":1,"leader_epoch":%d,"isr":[1,2,3]}'
                % (p % 3 + 1, p % 50)
            )
            yield NodeSpec(base + "/state", state, stat(3 + p, p % 50))

    path = directory / f"snapshot.{partitions + 2:x}"
    path.write_bytes(encode_snapshot(nodes(), sessions=[(1, 18000)]))
    return path


def timed(label: str, size: int, count_fn) -> None:
    start = time.perf_counter()
    count = count_fn()
    seconds = time.perf_counter() - start
    print(
        f"{label:<38} {size / seconds / 1e6:8.1f} MB/s {count / seconds:12,.0f} entries/s "
        f"({count:,} in {seconds:.2f} s)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="MB of transaction logs")
    parser.add_argument("--dir", type=Path, default=None, help="where to write the files")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        directory = Path(tmp)
        start = time.perf_counter()
        logs = generate_logs(directory, args.mb)
        snapshot = generate_snapshot(directory, 100_000)
        size = sum(p.stat().st_size for p in logs)
        print(
            f"generated {size / 1e6:.1f} MB of logs in {len(logs)} files and a "
            f"{snapshot.stat().st_size / 1e6:.1f} MB snapshot in "
            f"{time.perf_counter() - start:.1f} s (python {sys.version.split()[0]}, "
            f"{os.cpu_count()} cpus, one used)"
        )

        def decode_only() -> int:
            return sum(sum(1 for _ in read_txnlog(p)) for p in logs)

        def decode_changes() -> int:
            replay = KafkaReplay(None)
            n = 0
            for p in logs:
                for entry in read_txnlog(p):
                    replay.apply(entry, str(p))
                    n += 1
            return n

        def snapshot_rows() -> int:
            return sum(1 for _ in state_rows(read_snapshot(snapshot)))

        timed("txn logs: decode entries", size, decode_only)
        timed("txn logs: decode + zk_changes rows", size, decode_changes)
        timed("snapshot: decode + zk_state rows", snapshot.stat().st_size, snapshot_rows)

        tracemalloc.start()  # slows decoding down: one file is enough to show the peak
        sum(1 for _ in read_txnlog(logs[0]))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"peak traced memory decoding one {logs[0].stat().st_size / 1e6:.0f} MB log: "
            f"{peak / 1e6:.1f} MB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
