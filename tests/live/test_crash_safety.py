"""Crash safety: ``kafkactl-audit run`` killed with SIGKILL at moments of each stage, then run
again, ends with the tables of a clean run (issue 21).

* Input: the demo's logs and ZooKeeper files, copied to a temporary directory. A *base*
  lakehouse holds a finished run over the logs of brokers 1 to 3; broker 4's logs are then added,
  so that most kills land in a run that appends to existing tables (the incremental case, where
  a doubled row or a visible orphan would show). The *clean* lakehouse is one finished run over
  every input: what each scenario must end equal to.
* Each scenario copies the base lakehouse (or starts empty), starts the console script in a
  process group of its own (``start_new_session``), watches the lakehouse from here, and kills the
  group with SIGKILL the moment the watched thing appears: Parquet files newer than a table's
  last commit (a write under way), a new commit of a table, ``meta.runs``' row of a finished
  stage. Nothing in the product knows.
* After the kill: every table opens on the engine and its rows read (no commit references a
  missing file); where a write was cut, its Parquet files are on disk and readers do not see
  them. A second run exits 0; every table but ``meta.runs`` and ``meta.leases`` (records of the
  runs themselves) equals the clean run's as a multiset of rows, run ids and wall-clock times
  aside; with ``lakehouse.retention_hours: 0`` no Parquet file the log does not list is left in
  a table.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from deltalake import DeltaTable
from pyspark.sql import SparkSession

from jobs.lakehouse.port import Lakehouse
from schemas.catalog import TableSpec
from schemas.registry import ALL_TABLES
from tests.helpers import assert_frames_equal, comparable_rows, lakehouse_on

pytestmark = [pytest.mark.live]

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "samples" / "demo"
CLI = Path(sys.executable).parent / "kafkactl-audit"
LATE_BROKER = "broker-4"
"""Its logs are left out of the base run and read by the runs that are killed."""
IGNORED = {"run_id", "ingested_at", "generated_at"}
RUN_RECORDS = {"meta.runs", "meta.leases"}
POLL_SECONDS = 0.02
RUN_TIMEOUT = 420.0

Watch = Callable[[Path], bool]


@dataclass(frozen=True)
class Inputs:
    """The copied demo inputs and the configuration writer over them."""

    logs: Path
    zookeeper: Path

    def conf(self, path: Path, lakehouse: Path, engine: str) -> Path:
        """A configuration of the demo cluster over these inputs, lakehouse and engine."""
        document = {
            "version": 1,
            "lakehouse": {"path": str(lakehouse), "retention_hours": 0},
            "engine": engine,
            "spark": {"master": "local[2]", "shuffle_partitions": 2},
            "clusters": [
                {
                    "name": "demo",
                    "kafka_version": "2.8",
                    "timezone": "UTC",
                    "log_layout": "auto",
                    "inputs": {"logs": [str(self.logs)], "zookeeper": [str(self.zookeeper)]},
                }
            ],
        }
        path.write_text(yaml.safe_dump(document, sort_keys=False))
        return path


@dataclass(frozen=True)
class Ended:
    """How a run ended: killed by the test or exited, and its stderr."""

    killed: bool
    code: int
    stderr: str


def run(conf: Path, log: Path, watch: Watch | None = None) -> Ended:
    """``kafkactl-audit --conf CONF run`` in its own process group.

    Args:
        conf: the configuration.
        log: where its stdout and stderr go (``log.out``, ``log.err``).
        watch: polled every ``POLL_SECONDS`` with the lakehouse root; when it says yes, the
            process group is killed with SIGKILL.

    Returns:
        How it ended.
    """
    root = Path(yaml.safe_load(conf.read_text())["lakehouse"]["path"])
    started = time.monotonic()
    with open(log.with_suffix(".out"), "wb") as out, open(log.with_suffix(".err"), "wb") as err:
        process = subprocess.Popen(
            [str(CLI), "--conf", str(conf), "run"],
            stdout=out,
            stderr=err,
            start_new_session=True,
            cwd=conf.parent,
        )
        killed = False
        try:
            while process.poll() is None:
                elapsed = time.monotonic() - started
                assert elapsed < RUN_TIMEOUT, f"{log.name}: still running after {elapsed:.0f}s"
                if watch is not None and watch(root):
                    os.killpg(process.pid, signal.SIGKILL)
                    killed = True
                    break
                time.sleep(POLL_SECONDS)
            process.wait()
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    stderr = log.with_suffix(".err").read_text(errors="replace")
    # HotSpot stops compiling for the rest of a run whose code cache is full (jobs.runtime.jit).
    assert "CodeCache is full" not in stderr, f"{log.name}: {stderr[-2000:]}"
    return Ended(killed, process.returncode, stderr)


def table_dir(root: Path, qualified_name: str) -> Path:
    """``<root>/<layer>/<name>``."""
    layer, name = qualified_name.split(".")
    return root / layer / name


def commits(table: Path) -> list[Path]:
    """The table's commit files, oldest first."""
    log = table / "_delta_log"
    return sorted(log.glob("*.json")) if log.is_dir() else []


def parquet_files(table: Path) -> list[Path]:
    """Every Parquet data file under the table's directory."""
    return [p for p in table.rglob("*.parquet") if "_delta_log" not in p.parts]


def writing(qualified_name: str) -> Watch:
    """Parquet files of the table newer than its last commit (or than none): a write under way."""

    def seen(root: Path) -> bool:
        table = table_dir(root, qualified_name)
        log = commits(table)
        last = log[-1].stat().st_mtime if log else 0.0
        return any(p.stat().st_mtime > last for p in parquet_files(table))

    return seen


def committed(qualified_name: str, after: int) -> Watch:
    """A commit of the table after version ``after`` that adds data files."""

    def seen(root: Path) -> bool:
        for path in commits(table_dir(root, qualified_name)):
            if int(path.stem) > after and '"add"' in path.read_text():
                return True
        return False

    return seen


def stage_ended(stage: str, before: int) -> Watch:
    """``meta.runs`` holds more than ``before`` rows of ``stage``: the stage just ended."""

    def seen(root: Path) -> bool:
        return stage_rows(root, stage) > before

    return seen


def stage_rows(root: Path, stage: str) -> int:
    """Rows of ``stage`` in ``meta.runs`` (0 while the table is not there or not readable)."""
    try:
        table = DeltaTable(str(table_dir(root, "meta.runs"))).to_pyarrow_table(columns=["stage"])
    except Exception:  # a commit being written: not yet there
        return 0
    return sum(1 for value in table.column("stage").to_pylist() if value == stage)


def version(root: Path, qualified_name: str) -> int:
    """The table's latest version, -1 when it has none."""
    log = commits(table_dir(root, qualified_name))
    return int(log[-1].stem) if log else -1


def unreferenced(lakehouse: Lakehouse, spec: TableSpec) -> list[Path]:
    """The table's Parquet files its current version does not list."""
    table = Path(lakehouse.location(spec))
    if not lakehouse.exists(spec):
        return parquet_files(table)
    listed = {
        Path(uri.removeprefix("file://")).resolve() for uri in DeltaTable(str(table)).file_uris()
    }
    return [p for p in parquet_files(table) if p.resolve() not in listed]


@dataclass(frozen=True)
class Bed:
    """The inputs, the base and clean lakehouses."""

    inputs: Inputs
    base: Path
    clean: Path


@pytest.fixture(scope="module")
def bed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bed]:
    """The base run (brokers 1-3's logs), then broker 4's logs added, then the clean run."""
    work = tmp_path_factory.mktemp("crash")
    inputs = Inputs(work / "inputs" / "logs", work / "inputs" / "zookeeper")
    shutil.copytree(DEMO / "zookeeper" / "version-2", inputs.zookeeper)
    shutil.copytree(DEMO / "logs", inputs.logs, ignore=shutil.ignore_patterns(LATE_BROKER))
    base = work / "base"
    ended = run(inputs.conf(work / "base.yaml", base, "delta-rs"), work / "base")
    assert (ended.killed, ended.code) == (False, 0), ended.stderr[-2000:]
    shutil.copytree(DEMO / "logs" / LATE_BROKER, inputs.logs / LATE_BROKER)
    clean = work / "clean"
    ended = run(inputs.conf(work / "clean.yaml", clean, "delta-rs"), work / "clean")
    assert (ended.killed, ended.code) == (False, 0), ended.stderr[-2000:]
    yield Bed(inputs, base, clean)


@dataclass(frozen=True)
class Scenario:
    """Where a run is killed.

    Attributes:
        name: the test id.
        from_base: start from a copy of the base lakehouse (else from an empty one).
        watch: the moment, from what the lakehouse shows (``bed`` gives the base for versions).
        cut: the table a write was cut in (its Parquet files on disk, unseen by readers).
    """

    name: str
    from_base: bool
    watch: Callable[[Path], Watch]
    cut: str | None = None


SCENARIOS = [
    Scenario(
        "ingest-logs-writing-files",
        True,
        lambda b: writing("bronze.log_records"),
        cut="bronze.log_records",
    ),
    Scenario(
        "after-bronze-commit-before-bookkeeping",
        True,
        lambda b: committed("bronze.log_records", version(b, "bronze.log_records")),
    ),
    Scenario(
        "between-ingest-zk-and-replay",
        True,
        lambda b: stage_ended("ingest-zk", stage_rows(b, "ingest-zk")),
    ),
    Scenario(
        "replay-between-commits",
        True,
        lambda b: committed("gold.elections", version(b, "gold.elections")),
    ),
    Scenario(
        "report-between-commits",
        True,
        lambda b: committed("gold.leader_imbalance", version(b, "gold.leader_imbalance")),
    ),
    # the first run into an empty lakehouse, killed after its first tables were created
    Scenario(
        "first-run-after-its-first-commits",
        False,
        lambda b: committed("silver.controller_events", -1),
    ),
]


def check_after_kill(lakehouse: Lakehouse, scenario: Scenario, base: Path) -> None:
    """Every table opens and reads; a cut write's files are on disk and not read."""
    for spec in ALL_TABLES:
        if lakehouse.exists(spec):
            assert lakehouse.read(spec).count() == lakehouse.row_count(spec), spec.qualified_name
    if scenario.cut is None:
        return
    spec = next(s for s in ALL_TABLES if s.qualified_name == scenario.cut)
    # A file cut mid-write has no footer: only its presence is checked.
    assert unreferenced(lakehouse, spec), f"{scenario.cut}: the kill left no written file"
    before = DeltaTable(str(table_dir(base, scenario.cut))).count()
    assert lakehouse.read(spec).count() == before, "a reader saw the cut write's rows"


def check_equal(lakehouse: Lakehouse, clean: Lakehouse) -> None:
    """Every table but the run records equals the clean run's; none keeps unlisted files."""
    for spec in ALL_TABLES:
        if spec.qualified_name in RUN_RECORDS:
            continue
        assert lakehouse.exists(spec) == clean.exists(spec), spec.qualified_name
        if not clean.exists(spec):
            continue
        assert_frames_equal(
            comparable_rows(lakehouse, spec, IGNORED), comparable_rows(clean, spec, IGNORED)
        )
        if spec.layer != "meta":
            assert unreferenced(lakehouse, spec) == [], f"{spec.qualified_name}: files left"


def kill_and_rerun(
    spark: SparkSession, bed: Bed, scenario: Scenario, engine: str, work: Path
) -> None:
    """The scenario on ``engine``: kill, check, run again, compare with the clean run."""
    root = work / "lakehouse"
    if scenario.from_base:
        shutil.copytree(bed.base, root)
    conf = bed.inputs.conf(work / "conf.yaml", root, engine)
    ended = run(conf, work / "killed", scenario.watch(bed.base))
    assert ended.killed, (
        f"the run ended (exit {ended.code}) before the kill: {ended.stderr[-2000:]}"
    )
    lakehouse = lakehouse_on(engine, spark, str(root))
    check_after_kill(lakehouse, scenario, bed.base)
    again = run(conf, work / "again")
    assert (again.killed, again.code) == (False, 0), again.stderr[-2000:]
    check_equal(lakehouse, lakehouse_on("delta-rs", spark, str(bed.clean)))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_killed_run_then_run_again_equals_a_clean_run(
    spark: SparkSession, bed: Bed, scenario: Scenario, tmp_path: Path
) -> None:
    kill_and_rerun(spark, bed, scenario, "delta-rs", tmp_path)


def test_delta_spark_killed_after_bronze_commit_then_run_again_equals_a_clean_run(
    spark: SparkSession, bed: Bed, tmp_path: Path
) -> None:
    # delta-spark creates a table in a commit of its own (version 0), then writes it.
    scenario = Scenario(
        "delta-spark-after-bronze-commit", False, lambda b: committed("bronze.log_records", -1)
    )
    kill_and_rerun(spark, bed, scenario, "delta-spark", tmp_path)
