"""Record a scenario on a real cluster into a capture directory.

The capture (``DIR``):

* ``brokers/<id>/``: ``controller.log``, ``state-change.log``, ``server.log`` (and rotations)
  as the broker wrote them, its ``server.properties``; with ``gzip_logs`` the logs are
  gzipped afterwards (the pipeline reads ``.gz`` logs);
* ``zookeeper/``: ZooKeeper's dataDir (``version-2/log.*``, ``snapshot.*``);
* ``truth/``: ZooKeeper's own ``TxnLogToolkit -d`` output of every transaction log
  (``txnlog-<file>.txt``) and ``SnapshotFormatter -d`` of every snapshot
  (``snapshot-<file>.txt``), run with the same ZooKeeper jars that wrote them, in en_US/UTC;
* ``scenario.yaml`` (the file as given), ``kafka-version``, ``steps.jsonl`` (the journal of
  ``runner``), ``capture.json``: the command, the mode, every setting that differs from a
  default broker (the scenario's shortened intervals among them) and the start and end times.

Every process the recording starts is stopped before ``record`` returns, passed or failed.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from kafkactl_lab.real_cluster.admin import KafkaTools
from kafkactl_lab.real_cluster.cluster import MACHINE_SETTINGS, ZOOKEEPER_SETTINGS, ZkModeCluster
from kafkactl_lab.real_cluster.release import KafkaRelease
from kafkactl_lab.real_cluster.runner import ScenarioRunner, utc_now
from kafkactl_lab.real_cluster.scenario import Scenario, load_scenario
from kafkactl_lab.real_cluster.zk_view import ZkView

TXNLOG_TOOLKIT = "org.apache.zookeeper.server.persistence.TxnLogToolkit"
SNAPSHOT_FORMATTER = "org.apache.zookeeper.server.SnapshotFormatter"
LOG_NAMES = ("controller.log", "state-change.log", "server.log")


def dump_truth(cluster: ZkModeCluster) -> list[Path]:
    """Run ZooKeeper's own dump tools over the dataDir into ``truth/``.

    Args:
        cluster: the (stopped) cluster whose ``zookeeper/`` dataDir to dump.

    Returns:
        The dump files written.

    Raises:
        RuntimeError: a tool failed.
    """
    truth = cluster.out / "truth"
    truth.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for path in sorted((cluster.zk_data / "version-2").glob("*")):
        if path.name.startswith("log."):
            main, target = TXNLOG_TOOLKIT, truth / f"txnlog-{path.name}.txt"
        elif path.name.startswith("snapshot."):
            main, target = SNAPSHOT_FORMATTER, truth / f"snapshot-{path.name}.txt"
        else:
            continue
        proc = subprocess.run(
            cluster.java_command(main, "-d", str(path)),
            capture_output=True,
            timeout=300,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"{main} {path}: {proc.stderr[-1500:]!r}")
        target.write_bytes(proc.stdout)  # raw bytes: the toolkit prints raw \r bytes
        written.append(target)
    return written


def gzip_logs(out: Path) -> None:
    """Replace every broker log of the capture by its gzip copy (``server.log.gz`` ...)."""
    for path in sorted((out / "brokers").glob("*/*")):
        if path.name.startswith(LOG_NAMES) and not path.name.endswith(".gz"):
            with path.open("rb") as src, gzip.open(f"{path}.gz", "wb", compresslevel=9) as dst:
                shutil.copyfileobj(src, dst)
            path.unlink()


def prune_other_logs(out: Path) -> None:
    """Drop the broker folders' other log4j files (request, cleaner, authorizer logs)."""
    for path in sorted((out / "brokers").glob("*/*.log*")):
        if not path.name.startswith(LOG_NAMES):
            path.unlink()


def record(
    release: KafkaRelease,
    scenario_file: Path,
    out: Path,
    *,
    compress: bool = False,
    work: Path | None = None,
) -> dict[str, Any]:
    """Run a scenario on a fresh ZooKeeper-mode cluster and write its capture to ``out``.

    Args:
        release: the Kafka release (installed into the jar cache when missing).
        scenario_file: the scenario YAML.
        out: the capture directory (must not exist or be empty).
        compress: gzip the broker logs afterwards.
        work: scratch space (brokers' data); a temporary folder, removed after, when None.

    Returns:
        The capture's manifest (also written to ``capture.json``).

    Raises:
        FileExistsError: ``out`` is not empty.
        Exception: whatever failed; the cluster is stopped and the manifest says which step.
    """
    scenario = load_scenario(scenario_file)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty")
    out.mkdir(parents=True, exist_ok=True)
    (out / "scenario.yaml").write_bytes(scenario_file.read_bytes())
    (out / "kafka-version").write_text(f"{release.version}\n", encoding="utf-8")
    classpath = release.classpath()
    scratch = Path(tempfile.mkdtemp(prefix="kafka-lab-")) if work is None else work
    manifest: dict[str, Any] = {
        "kafka_version": release.version,
        "mode": "zk",
        "scenario": scenario.name,
        "command": [
            "python",
            "-m",
            "kafkactl_lab.real_cluster",
            "--kafka",
            release.version,
            "--mode",
            "zk",
            "--scenario",
            f"<{scenario_file.name}>",
            "--out",
            "DIR",
        ],
        "python": sys.version.split()[0],
        "logging": f"Kafka {release.series}'s shipped config/log4j.properties, unchanged",
        "broker_config_shortened": {k: v for k, v in scenario.broker_config.items()},
        "broker_config_machine": dict(MACHINE_SETTINGS),
        "zookeeper_config": dict(ZOOKEEPER_SETTINGS),
        "teardown": scenario.teardown,
        "started": utc_now(),
    }
    try:
        cluster = ZkModeCluster(
            release,
            out,
            scratch,
            brokers=scenario.brokers,
            broker_config=scenario.broker_config,
            classpath=classpath,
        )
        manifest["java"] = cluster.java
        _run(scenario, cluster, scratch, manifest, out)
        dump_truth(cluster)
    finally:
        if work is None:
            shutil.rmtree(scratch, ignore_errors=True)
    prune_other_logs(out)
    if compress:
        gzip_logs(out)
    return manifest


def _run(
    scenario: Scenario, cluster: ZkModeCluster, scratch: Path, manifest: dict[str, Any], out: Path
) -> None:
    view: ZkView | None = None
    try:
        cluster.start_zookeeper()
        view = ZkView(cluster.zk_connect)
        tools = KafkaTools(cluster.java_command, cluster.bootstrap, scratch)
        runner = ScenarioRunner(cluster, view, tools, out / "steps.jsonl")
        runner.bring_up()
        runner.run(scenario)
        manifest["outcome"] = "completed"
    except BaseException as error:
        manifest["outcome"] = f"failed: {error}"[:1000]
        raise
    finally:
        try:
            if view is not None:
                view.close()
        finally:
            cluster.close(scenario.teardown)
            manifest["ended"] = utc_now()
            (out / "capture.json").write_text(json.dumps(manifest, indent=2) + "\n")
