"""Real ``kafkactl-audit run`` processes started at the same moment into one lakehouse (issue 21).

* Two runs of the demo cluster and one of a second cluster (the demo's inputs under another
  name) start together: of the demo's two, one writes and the other refuses with exit code 5
  and one line naming the winner (the run id ``meta.runs`` records, this host, the winner's
  own pid); the other cluster's run, in parallel, succeeds; ``bronze.log_records`` holds each
  record once per cluster.
* Two ``ingest-logs`` of the demo with ``--wait`` into a fresh lakehouse (the single-stage
  commands take the lease as ``run`` does): both succeed, one after the other (the second
  finds every file ingested), and each record is there once.

Each process has its own local Spark (one core each, delta-rs): a few minutes on an idle
machine (a demo run alone takes about one; on 2 cores shared with 6 busy workers the first test
took 14 minutes). The lease's rules on both engines are in ``tests/spark/test_lease.py``.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml
from deltalake import DeltaTable

from tests.conftest import REPO

pytestmark = pytest.mark.live

DEMO = REPO / "samples" / "demo"
CLI = Path(sys.executable).parent / "kafkactl-audit"
TIMEOUT = 1800
"""Seconds a process may take before the test kills it: a guard against a hang only."""
REFUSAL = re.compile(
    r"^kafkactl-audit: error: cluster demo is being written by run (?P<run>\S+) on host "
    r"(?P<host>\S+) pid (?P<pid>\d+) since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ "
    r"\(lease renewed \d+ s ago\); wait with --wait SECONDS or stop that run$"
)


def _conf(path: Path, lakehouse: Path) -> Path:
    inputs = {"logs": [str(DEMO / "logs")], "zookeeper": [str(DEMO / "zookeeper" / "version-2")]}
    document = {
        "version": 1,
        "lakehouse": {"path": str(lakehouse)},
        "engine": "delta-rs",
        "spark": {"master": "local[1]", "shuffle_partitions": 2},
        "clusters": [
            {"name": name, "kafka_version": "2.8", "timezone": "UTC", "inputs": inputs}
            for name in ("demo", "demo-copy")
        ],
    }
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def _start(conf: Path, command: str, cluster: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(CLI), "--conf", str(conf), command, "--cluster", cluster, *extra],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYSPARK_PYTHON": sys.executable},
    )


def _finish(processes: list[subprocess.Popen[str]]) -> list[tuple[int, str, str]]:
    """Each process's exit code, stdout and stderr (killed past the timeout)."""
    ended = []
    for process in processes:
        try:
            out, err = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        ended.append((process.returncode, out, err))
    return ended


def _records(lakehouse: Path, cluster: str) -> Counter[tuple[object, ...]]:
    """How often each record of ``cluster`` is in ``bronze.log_records``."""
    rows = (
        DeltaTable(str(lakehouse / "bronze" / "log_records"))
        .to_pyarrow_table(columns=["cluster", "file", "first_line", "byte_offset"])
        .to_pylist()
    )
    return Counter(
        (row["file"], row["first_line"], row["byte_offset"])
        for row in rows
        if row["cluster"] == cluster
    )


def test_one_of_two_runs_of_a_cluster_refuses_while_another_cluster_runs(tmp_path: Path) -> None:
    lakehouse = tmp_path / "lakehouse"
    conf = _conf(tmp_path / "conf.yaml", lakehouse)
    processes = [_start(conf, "run", name) for name in ("demo", "demo", "demo-copy")]
    pids = [p.pid for p in processes]
    (first, second, other) = _finish(processes)

    assert other[0] == 0, other[2][-3000:]
    codes = sorted((first[0], second[0]))
    assert codes == [0, 5], f"{first[2][-3000:]}\n---\n{second[2][-3000:]}"
    winner, loser = (0, 1) if first[0] == 0 else (1, 0)
    errors = [
        line
        for line in (first, second)[loser][2].splitlines()
        if line.startswith("kafkactl-audit: error:")
    ]
    assert len(errors) == 1, errors
    refusal = REFUSAL.match(errors[0])
    assert refusal is not None, errors[0]
    assert refusal["host"] == socket.gethostname()
    assert int(refusal["pid"]) == pids[winner]
    runs = (
        DeltaTable(str(lakehouse / "meta" / "runs"))
        .to_pyarrow_table(columns=["cluster", "run_id", "status"])
        .to_pylist()
    )
    demo_runs = {(row["run_id"], row["status"]) for row in runs if row["cluster"] == "demo"}
    assert demo_runs == {(refusal["run"], "succeeded")}, "the line names the run that wrote"

    demo, copy = _records(lakehouse, "demo"), _records(lakehouse, "demo-copy")
    assert demo and max(demo.values()) == 1, "every record once"
    assert copy == demo, "the parallel cluster got the same records, once each"


def test_two_ingests_with_wait_both_succeed_one_after_the_other(tmp_path: Path) -> None:
    lakehouse = tmp_path / "lakehouse"
    conf = _conf(tmp_path / "conf.yaml", lakehouse)
    processes = [_start(conf, "ingest-logs", "demo", "--wait", "1800") for _ in range(2)]
    ended = _finish(processes)

    assert [code for code, _, _ in ended] == [0, 0], "\n---\n".join(e[2][-3000:] for e in ended)
    waited = [err for _, _, err in ended if "waiting: cluster demo is being written by run" in err]
    assert len(waited) == 1, "one of them waited for the other"
    demo = _records(lakehouse, "demo")
    assert demo and max(demo.values()) == 1, "every record once"
