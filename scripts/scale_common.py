"""Shared by ``check_scale.py`` and ``bench_scale.py``: simulate, run the pipeline, measure.

Each step is a child process (``kafkactl-audit simulate``, ``kafkactl-audit run``), timed on the
wall clock, its memory sampled: the summed resident set size of the process and all its
descendants (the Python driver, Spark's JVM, the Python workers), read from ``/proc`` every
``SAMPLE_S`` seconds; the peak of that sum is the step's peak memory, with the peak of each kind
beside it. The tables are read back with delta-rs (``deltalake``): no second Spark session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CLI = str(Path(sys.executable).parent / "kafkactl-audit")
SAMPLE_S = 0.25
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _children() -> dict[int, list[int]]:
    """Parent pid -> child pids, for every process visible in ``/proc``."""
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        # the command may hold spaces and parentheses: the fields follow the last ')'
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _rss_and_kind(pid: int) -> tuple[int, str]:
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as f:
            rss = int(f.read().split()[1]) * _PAGE
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
            comm = f.read().strip()
    except (OSError, ValueError, IndexError):
        return 0, "gone"
    return rss, "jvm" if comm == "java" else "python" if comm.startswith("python") else comm


@dataclass
class Memory:
    """Peak memory of a process tree, as sampled.

    Attributes:
        peak_total: highest sum of RSS over the tree (bytes).
        peak_by_kind: highest sum per kind (``driver``, ``jvm``, ``workers``, other names).
        samples: samples taken.
    """

    peak_total: int = 0
    peak_by_kind: dict[str, int] = field(default_factory=dict)
    samples: int = 0

    def text(self) -> str:
        """``1.23 GiB (driver 0.2, jvm 0.9, workers 0.1)``."""
        parts = ", ".join(f"{k} {v / 2**30:.2f}" for k, v in sorted(self.peak_by_kind.items()))
        return f"{self.peak_total / 2**30:.2f} GiB ({parts})"


class TreeSampler:
    """Samples the RSS of a process and its descendants in a thread until stopped."""

    def __init__(self, pid: int) -> None:
        """Watch ``pid`` (the root: the driver) and everything below it."""
        self.pid = pid
        self.memory = Memory()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> None:
        """Take one sample."""
        tree = _children()
        total = 0
        kinds: dict[str, int] = {}
        stack = [self.pid]
        while stack:
            pid = stack.pop()
            rss, kind = _rss_and_kind(pid)
            if pid == self.pid:
                kind = "driver"
            elif kind == "python":
                kind = "workers"
            total += rss
            kinds[kind] = kinds.get(kind, 0) + rss
            stack.extend(tree.get(pid, ()))
        memory = self.memory
        memory.samples += 1
        memory.peak_total = max(memory.peak_total, total)
        for kind, rss in kinds.items():
            memory.peak_by_kind[kind] = max(memory.peak_by_kind.get(kind, 0), rss)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(SAMPLE_S)


@dataclass
class Measured:
    """A child process run to its end.

    Attributes:
        code: its exit code.
        seconds: wall time.
        memory: its tree's peak memory.
        output: its standard output.
    """

    code: int
    seconds: float
    memory: Memory
    output: str


def run_measured(argv: Sequence[str], log: Path) -> Measured:
    """Run a command (stderr to ``log``), timing it and sampling its memory.

    Args:
        argv: the command.
        log: where its standard error goes (kept for a failure's post-mortem).

    Returns:
        What it did.
    """
    env = dict(os.environ)
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    env.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    started = time.monotonic()
    with open(log, "w", encoding="utf-8") as err:
        proc = subprocess.Popen(
            list(argv), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=err, text=True
        )
        with TreeSampler(proc.pid) as sampler:
            output, _ = proc.communicate()
    return Measured(proc.returncode, time.monotonic() - started, sampler.memory, output)


@dataclass(frozen=True)
class Size:
    """A simulated cluster and run (the ``simulate`` options)."""

    brokers: int
    topics: int
    partitions_per_topic: int
    hours: float
    seed: int = 7
    kafka_version: str = "2.8"
    replication_factor: int = 3

    @property
    def partitions(self) -> int:
        """Partitions created at the start."""
        return self.topics * self.partitions_per_topic

    def text(self) -> str:
        """``30 brokers x 20,000 partitions x 24 h``."""
        return f"{self.brokers} brokers x {self.partitions:,} partitions x {self.hours:g} h"


def simulate(size: Size, out: Path, script: Path | None = None) -> tuple[Measured, dict[str, Any]]:
    """``kafkactl-audit simulate`` into ``out``.

    Args:
        size: the cluster and run.
        out: the output directory.
        script: an optional script of steps (its settings override ``size``'s defaults).

    Returns:
        The measured run and its summary (the JSON line it prints).

    Raises:
        RuntimeError: the simulator failed.
    """
    argv = [
        CLI,
        "simulate",
        "--brokers",
        str(size.brokers),
        "--topics",
        str(size.topics),
        "--partitions-per-topic",
        str(size.partitions_per_topic),
        "--replication-factor",
        str(size.replication_factor),
        "--hours",
        str(size.hours),
        "--kafka-version",
        size.kafka_version,
        "--seed",
        str(size.seed),
        "--out",
        str(out),
    ]
    if script is not None:
        argv += ["--script", str(script), "--random-mix"]
    out.mkdir(parents=True, exist_ok=True)
    measured = run_measured(argv, out.parent / f"{out.name}.simulate.log")
    if measured.code != 0:
        raise RuntimeError(f"simulate failed ({measured.code}): see {out.parent}")
    return measured, json.loads(measured.output.strip().splitlines()[-1])


def write_conf(
    path: Path,
    lakehouse: Path,
    cluster: str,
    logs: Path,
    *,
    kafka_version: str = "2.8",
    driver_memory: str = "3g",
    master: str = "local[2]",
    engine: str = "delta-rs",
) -> Path:
    """A configuration file for one simulated cluster (logs as its only input; UTC stamps).

    Returns:
        ``path``.
    """
    path.write_text(
        "\n".join(
            [
                "version: 1",
                f"lakehouse: {{path: {json.dumps(str(lakehouse))}}}",
                f"engine: {engine}",
                f"spark: {{master: {json.dumps(master)}, shuffle_partitions: 4, "
                f"driver_memory: {driver_memory}}}",
                "clusters:",
                f"  - name: {cluster}",
                f"    kafka_version: {json.dumps(kafka_version)}",
                "    timezone: UTC",
                "    inputs:",
                f"      logs: [{json.dumps(str(logs))}]",
                "",
            ]
        ),
        encoding="utf-8",
    )
    return path


def run_pipeline(conf: Path, log: Path) -> Measured:
    """``kafkactl-audit --conf CONF run``, measured.

    Raises:
        RuntimeError: the run failed.
    """
    measured = run_measured([CLI, "--conf", str(conf), "run"], log)
    if measured.code != 0:
        raise RuntimeError(f"kafkactl-audit run failed ({measured.code}): see {log}")
    return measured


@dataclass(frozen=True)
class StageRun:
    """One stage's row of ``meta.runs``."""

    stage: str
    seconds: float
    rows_written: dict[str, int]


def stage_runs(lakehouse: Path, cluster: str) -> dict[str, StageRun]:
    """The latest run of each stage for ``cluster``, from ``meta.runs``."""
    import deltalake

    table = deltalake.DeltaTable(str(lakehouse / "meta" / "runs")).to_pyarrow_table()
    latest: dict[str, dict[str, Any]] = {}
    for row in table.to_pylist():
        if row["cluster"] != cluster:
            continue
        seen = latest.get(row["stage"])
        if seen is None or row["started_at"] > seen["started_at"]:
            latest[row["stage"]] = row
    return {
        stage: StageRun(
            stage,
            (row["ended_at"] - row["started_at"]).total_seconds(),
            dict(row["rows_written"] or []),
        )
        for stage, row in latest.items()
    }


def gold_rows(
    lakehouse: Path, table: str, cluster: str, columns: Sequence[str]
) -> Iterator[dict[str, Any]]:
    """The ``actual`` rows of a gold table for ``cluster`` (only ``columns``), batch by batch."""
    import deltalake
    import pyarrow.dataset as ds

    dataset = deltalake.DeltaTable(str(lakehouse / "gold" / table)).to_pyarrow_dataset()
    wanted = (ds.field("cluster") == cluster) & (ds.field("scenario") == "actual")
    for batch in dataset.to_batches(columns=list(columns), filter=wanted):
        yield from batch.to_pylist()


def input_lines(logs: Path) -> int:
    """Lines of every file under ``logs``."""
    total = 0
    for path in sorted(logs.rglob("*")):
        if path.is_file():
            with open(path, "rb") as f:
                total += sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    return total
