"""Incremental nightly runs give the same tables as a full rebuild (issue 8's acceptance).

The demo's inputs are split at 12:10 UTC, as a nightly run would have found them: every log file
is cut at its first line at or after that time (files with nothing before it are held back), and
the ZooKeeper transaction log being written then (``log.64``) holds the transactions before it,
then zeros, as ZooKeeper preallocates its logs. ``run`` ingests that into one lakehouse; then the
files grow to their full length and ``run --incremental --since`` processes the rest (the files
that did not change carry an old modification time, so ``--since`` leaves them out).
A plain ``run`` over the complete inputs into a fresh lakehouse is the reference (built once
for both cases below: they read one inputs directory, so every file has the same path): every
bronze, silver and gold table must hold the same rows, ignoring run ids (and the whole-file
hash bronze and quarantine rows carry, which is the hash at the time they were read). The
incremental replay must have folded again only some of the partitions, and said so.

It runs twice, each time switching engine between the runs on the same lakehouse: delta-rs
first and delta-spark for the incremental run, then the other way round. So the incremental
stages, ``replace_keys`` included, run on both engines, each over tables the other wrote. The
full rebuild runs on delta-rs both times: ``test_engines`` shows delta-spark's full run writes the
same tables, and a delta-spark run of the demo takes minutes on 2 cores.

A second case appends one line a day after the demo's end (a broker registering: a cluster fact
and no partition evidence near it): the incremental replay folds no partition, yet writes the new
fact to ``gold.cluster_facts``, and the report's broker timeline shows the broker.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.lakehouse.port import open_lakehouse
from jobs.runtime.config import load_config
from jobs.stages.registry import stage_named
from kafkactl_core.zk import read_txnlog
from schemas import gold, logs, report, zk
from schemas.catalog import TableSpec
from schemas.meta import RUNS
from tests.conftest import REPO
from tests.e2e.cli import run_cli, write_conf
from tests.helpers import ENGINES, assert_frames_equal, comparable_rows, require_delta_spark

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not all(s.installed() for s in map(stage_named, ("ingest-logs", "ingest-zk", "replay"))),
        reason="a stage of the pipeline is not installed in this build",
    ),
]
DEMO = REPO / "samples" / "demo"
CUT = b"[2024-03-05 12:10:00"
CUT_MS = 1_709_640_600_000  # 2024-03-05 12:10:00 UTC
GROWING_ZK = "log.64"
OLD_MTIME = 1_577_836_800  # 2020-01-01: files the second run must not need to look at
IGNORED = {"run_id", "content_sha256", "ingested_at"}
COMPARED: tuple[TableSpec, ...] = (
    logs.LOG_RECORDS,
    logs.CONTROLLER_EVENTS,
    logs.QUARANTINE,
    zk.ZK_RECORDS,
    zk.ZK_INGEST_STATS,
    zk.ZK_STATE,
    zk.ZK_CHANGES,
    *gold.TABLES,
    *report.TABLES,
)


def _cli(*argv: str) -> str:
    code, printed = run_cli(*argv)
    assert code == 0, printed
    return printed


def _first_part(data: bytes) -> bytes:
    """The lines before the first one stamped at or after the cut (records start lines)."""
    offset = 0
    for line in data.splitlines(keepends=True):
        if line.startswith(b"[") and line[: len(CUT)] >= CUT:
            break
        offset += len(line)
    return data[:offset]


def _zk_first_part(path: Path) -> bytes:
    """The transaction log as ZooKeeper had it at the cut: the transactions before, then zeros."""
    data = path.read_bytes()
    later = [e.offset for e in read_txnlog(path) if e.header.time >= CUT_MS]
    assert later, f"{path} has nothing after the cut"
    return data[: later[0]] + bytes(len(data) - later[0])


def _conf(root: Path, name: str, inputs: Path, engine: str) -> Path:
    return write_conf(
        root / f"{name}.yaml",
        root / name,
        engine=engine,
        name="demo",
        inputs={"logs": [str(inputs / "logs")], "zookeeper": [str(inputs / "zookeeper")]},
    )


def _copy_demo(inputs: Path) -> None:
    shutil.rmtree(inputs, ignore_errors=True)
    shutil.copytree(DEMO / "logs", inputs / "logs")
    shutil.copytree(DEMO / "zookeeper" / "version-2", inputs / "zookeeper")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one inputs directory of every run below."""
    return tmp_path_factory.mktemp("inputs") / "demo"


@pytest.fixture(scope="module")
def full(spark: SparkSession, inputs: Path, tmp_path_factory: pytest.TempPathFactory):
    """The reference: a plain run over the complete inputs, on delta-rs, into a fresh lakehouse."""
    _copy_demo(inputs)
    conf = _conf(tmp_path_factory.mktemp("full"), "full", inputs, ENGINES[0])
    _cli("run", "--conf", str(conf))
    return open_lakehouse(load_config(conf), spark)


@pytest.fixture(scope="module", params=[ENGINES, ENGINES[::-1]], ids="-then-".join)
def runs(
    request: pytest.FixtureRequest,
    spark: SparkSession,
    inputs: Path,
    tmp_path_factory: pytest.TempPathFactory,
):
    first, second = request.param
    require_delta_spark(spark)
    root = tmp_path_factory.mktemp("incremental")
    _copy_demo(inputs)
    held_back: dict[Path, bytes] = {}
    for path in sorted((inputs / "logs").glob("*/*.log")):
        full = path.read_bytes()
        part = _first_part(full)
        if part == full:
            continue  # nothing after the cut: the file does not change
        held_back[path] = full
        if part:
            path.write_bytes(part)
        else:
            path.unlink()
    growing = inputs / "zookeeper" / GROWING_ZK
    held_back[growing] = growing.read_bytes()
    growing.write_bytes(_zk_first_part(growing))
    incremental = _conf(root, "incremental", inputs, first)
    _cli("run", "--conf", str(incremental))

    for path in inputs.rglob("*"):
        if path.is_file():
            os.utime(path, (OLD_MTIME, OLD_MTIME))
    for path, data in held_back.items():
        path.write_bytes(data)  # the grown files: modified now
    _cli(
        "--engine",
        second,
        "run",
        "--conf",
        str(incremental),
        "--incremental",
        "--since",
        "2021-01-01",
    )
    changed = sorted(str(p) for p in held_back)
    return open_lakehouse(load_config(incremental), spark), changed


@pytest.mark.parametrize("spec", COMPARED, ids=lambda s: s.qualified_name)
def test_incremental_run_equals_a_full_rebuild(runs, full, spec: TableSpec) -> None:
    incremental, _ = runs
    expected = comparable_rows(full, spec, IGNORED)
    if spec in (gold.ELECTIONS, gold.PARTITION_TIMELINE, logs.CONTROLLER_EVENTS):
        assert expected.count() > 0, "the comparison is about something"
    assert_frames_equal(comparable_rows(incremental, spec, IGNORED), expected)


def test_the_incremental_replay_folded_only_some_partitions(runs, full) -> None:
    incremental, _ = runs
    replays = (
        incremental.read(RUNS)
        .filter("stage = 'replay' AND status = 'succeeded'")
        .orderBy("started_at")
        .collect()
    )
    assert len(replays) == 2
    (scope,) = [n for n in replays[1].notes if n.startswith("incremental: ")]
    assert scope.startswith("incremental: folded again "), scope
    again, total = (int(n) for n in scope.split()[3:6:2])
    partitions = full.read(gold.PARTITION_TIMELINE).select("topic", "partition").distinct()
    assert 0 < again < total == partitions.count()
    assert any(n.startswith("evidence folded: ") for n in replays[1].notes)


def test_since_left_out_the_files_not_modified_since(runs) -> None:
    incremental, changed = runs
    second = {
        stage: (
            incremental.read(RUNS)
            .filter(f"stage = '{stage}' AND status = 'succeeded'")
            .orderBy("started_at")
            .collect()[1]
        )
        for stage in ("ingest-logs", "ingest-zk")
    }
    considered = sorted([*second["ingest-logs"].inputs, *second["ingest-zk"].inputs])
    assert considered == changed
    inputs = list((DEMO / "logs").rglob("*.log")) + list((DEMO / "zookeeper").rglob("*.*"))
    assert 0 < len(changed) < len(inputs), "some files did not change, and were left out"


NEW_BROKER_LINE = (
    b"[2024-03-06 12:00:00,000] INFO [Controller id=3] Newly added brokers: 5, deleted brokers: , "
    b"bounced brokers: , all live brokers: 1,2,3,4,5 (kafka.controller.KafkaController)\n"
)
"""A day after the demo's last line: a new cluster fact, and no partition has evidence near it."""


@pytest.fixture(scope="module")
def facts_only(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("facts-only")
    shutil.copytree(DEMO / "logs", root / "inputs" / "logs")
    conf = write_conf(
        root / "demo.yaml",
        root / "lakehouse",
        engine=ENGINES[0],
        name="demo",
        inputs={"logs": [str(root / "inputs" / "logs")]},
    )
    _cli("run", "--conf", str(conf))
    with (root / "inputs" / "logs" / "broker-3" / "controller.log").open("ab") as log:
        log.write(NEW_BROKER_LINE)
    _cli("run", "--conf", str(conf), "--incremental")
    return load_config(conf)


def test_new_facts_without_partitions_to_fold_are_written_and_reported(
    spark: SparkSession, facts_only
) -> None:
    lakehouse = open_lakehouse(facts_only, spark)
    replays = (
        lakehouse.read(RUNS)
        .filter("stage = 'replay' AND status = 'succeeded'")
        .orderBy("started_at")
        .collect()
    )
    (scope,) = [n for n in replays[-1].notes if n.startswith("incremental: ")]
    assert scope.startswith("incremental: folded again 0 of "), scope
    new = lakehouse.read(gold.CLUSTER_FACTS).filter(
        "kind = 'broker_up' AND broker = 5 AND observed_at = '2024-03-06 12:00:00'"
    )
    assert new.count() == 1
    online = lakehouse.read(report.BROKER_TIMELINE).filter("broker = 5 AND state = 'online'")
    assert online.count() == 1
