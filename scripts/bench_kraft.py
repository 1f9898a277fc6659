"""Benchmark of the KRaft metadata log decoder against Kafka's own dump tool: figures only.

Makes once (cached) a metadata log segment of ``--mb`` MB (default 200) written by Kafka 4.1.1's
own classes (``kafkactl_lab/metadata_log_java/Gen.java``: a controller's traffic, mostly
PartitionChangeRecords in batches of several and NoOps, some topic creations, broker
registrations, fencing, configs), then times in turns on the same file, ``--runs`` times each:

* ours: ``segments.scan`` of the file read into memory, then ``payloads.decode`` of every record
  (one core, pure Python);
* Kafka's: ``kafka-dump-log --cluster-metadata-decoder`` (``kafka.tools.DumpLogSegments``, Java
  17, output to /dev/null), its JVM start included; the start alone is timed on a tiny segment.

Prints the medians in MB/s and records/s, CPU seconds, and the ratios (above 1: ours is faster)
of wall-clock and of CPU time. The machine's speed drifts by a quarter from one minute to the
next and other jobs share its 2 cores: quote ratios, not absolute figures.

Usage: ``python scripts/bench_kraft.py [--mb 200] [--runs 3] [--cache DIR] [--no-kafka]``
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafkactl_core.metadata_log.payloads import decode
from kafkactl_core.metadata_log.segments import scan
from kafkactl_lab.metadata_log_java import GENERATOR, RELEASE, SEGMENT_NAME, Toolbox

DEFAULT_CACHE = Path(
    os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"), "kafkactl-audit", "bench"
)
TINY = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "kraft-codecs" / "none"


def segment_path(cache: Path, mb: int) -> Path:
    """Where the segment of ``mb`` MB of this generator's version is kept."""
    version = hashlib.sha256(GENERATOR.read_bytes()).hexdigest()[:12]
    return cache / f"kraft-{RELEASE.version}-{version}-{mb}mb" / SEGMENT_NAME


def ensure_segment(tools: Toolbox, path: Path, mb: int) -> None:
    """Write the segment unless it is there (written aside, then renamed: never half a file)."""
    if path.exists():
        print(f"segment: {path} (cached)")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    start = time.perf_counter()
    print(tools.generate("bench", str(partial), str(mb)), end="")
    partial.rename(path)
    print(f"segment: {path}, written by Kafka's classes in {time.perf_counter() - start:.1f} s")


def ours(path: Path) -> int:
    """Scan the segment and decode every record; the record count."""
    result = scan(path.read_bytes())
    count = 0
    for batch in result.batches:
        control = batch.is_control
        for record in batch.records:
            decode(record, control=control)
            count += 1
    if result.problems:
        print(f"  ours: {len(result.problems)} problems, the first: {result.problems[0]}")
    return count


def kafka(tools: Toolbox, path: Path) -> None:
    """Kafka's dump tool on the segment, its output thrown away."""
    subprocess.run(
        tools.dump_command(path),
        cwd=path.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the dump tool's JVM threads)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(run: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of ``run``."""
    start, cpu = time.perf_counter(), cpu_seconds()
    run()
    return time.perf_counter() - start, cpu_seconds() - cpu


def line(label: str, size: int, records: int, runs: list[tuple[float, float]]) -> float:
    median = statistics.median(wall for wall, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    walls = ", ".join(f"{wall:.1f}" for wall, _ in runs)
    print(
        f"{label:<28} {size / median / 1e6:7.2f} MB/s {records / median:11,.0f} records/s  "
        f"median {median:.1f} s of [{walls}], CPU {cpu:.1f} s"
    )
    return median


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200, help="segment size in MB (default 200)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each (default 3)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where segments stay")
    parser.add_argument("--no-kafka", action="store_true", help="time our decoder only")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-kraft-") as tmp:
        try:
            tools = Toolbox(Path(tmp))
            path = segment_path(args.cache, args.mb)
            ensure_segment(tools, path, args.mb)
        except (OSError, RuntimeError) as exc:  # no Java, no jars, no Maven
            print(f"cannot make the segment with Kafka {RELEASE.version}'s classes: {exc}")
            return 1
        size = path.stat().st_size
        records = ours(path)  # a warm-up, and the count
        print(
            f"{size / 1e6:.1f} MB, {records:,} records; python {sys.version.split()[0]}, "
            f"Kafka {RELEASE.version} on {tools.java}, {os.cpu_count()} cpus"
        )
        our_times: list[tuple[float, float]] = []
        kafka_times: list[tuple[float, float]] = []
        for _ in range(args.runs):
            our_times.append(timed(lambda: ours(path)))
            if not args.no_kafka:
                kafka_times.append(timed(lambda: kafka(tools, path)))
        mine = line("ours: scan + decode", size, records, our_times)
        if args.no_kafka:
            return 0
        theirs = line("kafka-dump-log (JVM incl.)", size, records, kafka_times)
        start = statistics.median(timed(lambda: kafka(tools, TINY / SEGMENT_NAME))[0] for _ in "ab")
        print(f"kafka-dump-log on a 4 KB segment (its JVM start): {start:.1f} s")
        cpu = statistics.median(c for _, c in kafka_times) / statistics.median(
            c for _, c in our_times
        )
        print(
            f"ratio ours/kafka (wall clock): {theirs / mine:.2f}x "
            f"({(theirs - start) / mine:.2f}x against the tool less its start); "
            f"in CPU time {cpu:.2f}x (the JVM runs its compiler and collector on other threads)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
