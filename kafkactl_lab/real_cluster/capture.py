"""Record a scenario on a real cluster into a capture directory.

The capture (``DIR``):

* ``brokers/<id>/``: ``controller.log``, ``state-change.log``, ``server.log`` (and rotations)
  as the broker wrote them, its ``server.properties``; with ``gzip_logs`` the logs are
  gzipped afterwards (the pipeline reads ``.gz`` logs);
* ZooKeeper mode: ``zookeeper/``: ZooKeeper's dataDir (``version-2/log.*``, ``snapshot.*``);
  ``truth/``: ZooKeeper's own ``TxnLogToolkit -d`` output of every transaction log
  (``txnlog-<file>.txt``) and ``SnapshotFormatter -d`` of every snapshot
  (``snapshot-<file>.txt``), in en_US/UTC, run with the ZooKeeper jars that wrote them (from
  3.8; an older one's dumps come from ``DUMP_RELEASE``'s, as ``capture.json`` says);
* KRaft mode: ``metadata/``: a controller's ``__cluster_metadata-0`` folder (its segments,
  snapshots and quorum state; the index files left out), from the controller whose log is the
  longest; ``truth/``: Kafka's own ``kafka-dump-log --cluster-metadata-decoder`` output of
  every segment and snapshot (``<end offset>-<epoch>.checkpoint``) there, gzipped
  (``dump-<file>.txt.gz``), run with the release's jars;
* ``scenario.yaml`` (the file as given), ``kafka-version``, ``steps.jsonl`` (the journal of
  ``runner``), ``capture.json``: the command, the mode, every setting that differs from a
  default broker (the scenario's shortened intervals among them; in KRaft mode the
  controllers' own ``controller_config``) and the start and end times.

Every process the recording starts is stopped before ``record`` returns, passed or failed.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Literal

from kafkactl_lab.real_cluster.admin import CommandLine, KafkaTools, tool_classes
from kafkactl_lab.real_cluster.cluster import (
    MACHINE_SETTINGS,
    ZOOKEEPER_SETTINGS,
    BrokerCluster,
    ZkModeCluster,
)
from kafkactl_lab.real_cluster.conditions import ClusterView
from kafkactl_lab.real_cluster.kraft_cluster import KRaftCluster
from kafkactl_lab.real_cluster.kraft_view import KRaftView
from kafkactl_lab.real_cluster.processes import JAVA_LOCALE
from kafkactl_lab.real_cluster.release import KafkaRelease
from kafkactl_lab.real_cluster.runner import ScenarioRunner, utc_now
from kafkactl_lab.real_cluster.scenario import Scenario, Wait, load_scenario
from kafkactl_lab.real_cluster.zk_view import ZkView

TXNLOG_TOOLKIT = "org.apache.zookeeper.server.persistence.TxnLogToolkit"
SNAPSHOT_FORMATTER = "org.apache.zookeeper.server.SnapshotFormatter"
DUMP_LOG_SEGMENTS = "kafka.tools.DumpLogSegments"
METADATA_FILES = ("*.log", "*.checkpoint", "quorum-state", "partition.metadata")
"""What ``metadata/`` keeps of a controller's ``__cluster_metadata-0`` folder."""
LOG_NAMES = ("controller.log", "state-change.log", "server.log")


DUMP_RELEASE = KafkaRelease("3.9.1")
"""Whose ZooKeeper (3.8.4) dumps the dataDir of a release with an older ZooKeeper: 3.5.9's
``TxnLogToolkit`` (Kafka 2.8) dies with a NullPointerException on a create without data. The
transaction log format is the same (version 2) in every ZooKeeper 3.x."""

_ZOOKEEPER_JAR = re.compile(r"(?:^|/)zookeeper-([0-9]+)\.([0-9]+)\.([0-9]+)\.jar(?::|$)")


def zookeeper_version(classpath: str) -> tuple[int, int, int] | None:
    """The version of the ZooKeeper jar on a classpath, None when there is none."""
    match = _ZOOKEEPER_JAR.search(classpath)
    if match is None:
        return None
    return (int(match.group(1)), int(match.group(2)), int(match.group(3)))


def dump_tools(cluster: ZkModeCluster, cache: Path | None = None) -> tuple[CommandLine, str]:
    """The command line builder for ZooKeeper's dump tools, and which ZooKeeper it runs.

    The release's own ZooKeeper from 3.8 on; else the one of ``DUMP_RELEASE`` (installed into
    the jar cache, ``cache`` or the default one, when missing).
    """
    own = zookeeper_version(cluster.classpath)
    if own is not None and own >= (3, 8, 0):
        return cluster.java_command, "ZooKeeper {}.{}.{}, the release's own".format(*own)
    classpath = DUMP_RELEASE.classpath(cache)
    log4j = cluster.tools_log4j

    def command(*args: str, heap: list[str] | None = None) -> list[str]:
        return [
            cluster.java,
            *(heap or ["-Xmx256m"]),
            *JAVA_LOCALE,
            f"-Dlog4j.configuration=file:{log4j}",
            "-cp",
            classpath,
            *args,
        ]

    used = zookeeper_version(classpath)
    name = "{}.{}.{}".format(*used) if used is not None else "?"
    return command, f"ZooKeeper {name} of Kafka {DUMP_RELEASE.version} (the release's own fails)"


def dump_zookeeper(cluster: ZkModeCluster, cache: Path | None = None) -> tuple[list[Path], str]:
    """Run ZooKeeper's own dump tools over the dataDir into ``truth/``.

    Args:
        cluster: the (stopped) cluster whose ``zookeeper/`` dataDir to dump.
        cache: the jar cache (the default one when None).

    Returns:
        The dump files written, and which ZooKeeper's tools wrote them.

    Raises:
        RuntimeError: a tool failed.
    """
    truth = cluster.out / "truth"
    truth.mkdir(parents=True, exist_ok=True)
    command, tools = dump_tools(cluster, cache)
    written: list[Path] = []
    for path in sorted((cluster.zk_data / "version-2").glob("*")):
        if path.name.startswith("log."):
            main, target = TXNLOG_TOOLKIT, truth / f"txnlog-{path.name}.txt"
        elif path.name.startswith("snapshot."):
            main, target = SNAPSHOT_FORMATTER, truth / f"snapshot-{path.name}.txt"
        else:
            continue
        proc = subprocess.run(
            command(main, "-d", str(path)),
            capture_output=True,
            timeout=300,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"{main} {path}: {proc.stderr[-1500:]!r}")
        target.write_bytes(proc.stdout)  # raw bytes: the toolkit prints raw \r bytes
        written.append(target)
    return written, tools


def keep_metadata_log(cluster: KRaftCluster) -> Path:
    """Copy the longest controller metadata log into the capture's ``metadata/``.

    Every segment and every snapshot the controller has at the end is kept (the metadata log's
    retention, 7 days or 100 MiB by default, deletes none in a scenario's minutes).

    Returns:
        The capture's ``metadata/`` folder.
    """

    def size(controller: int) -> int:
        return sum(f.stat().st_size for f in cluster.metadata_dir(controller).glob("*.log"))

    source = cluster.metadata_dir(max(cluster.controller_ids, key=size))
    target = cluster.out / "metadata"
    target.mkdir(parents=True, exist_ok=True)
    for pattern in METADATA_FILES:
        for path in sorted(source.glob(pattern)):
            shutil.copy2(path, target / path.name)
            (target / path.name).chmod(0o644)  # Kafka writes its snapshots read-only (0400)
    return target


def dump_metadata(cluster: KRaftCluster, metadata: Path) -> tuple[list[Path], str]:
    """Run Kafka's ``kafka-dump-log --cluster-metadata-decoder`` over ``metadata/``.

    Every segment (``*.log``) and snapshot (``*.checkpoint``) is dumped on its own, gzipped: a
    dump, a line of text and JSON per batch and record, is several times the file's size.

    Returns:
        The dump files written (``truth/dump-<file>.txt.gz``), and which tool wrote them.

    Raises:
        RuntimeError: the tool failed.
    """
    truth = cluster.out / "truth"
    truth.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for path in sorted([*metadata.glob("*.log"), *metadata.glob("*.checkpoint")]):
        command = cluster.java_command(
            DUMP_LOG_SEGMENTS, "--cluster-metadata-decoder", "--files", path.name
        )
        # run in metadata/ so that the dump names the file as the capture does, not a temp path
        proc = subprocess.run(command, capture_output=True, timeout=300, check=False, cwd=metadata)
        if proc.returncode != 0:
            raise RuntimeError(f"{DUMP_LOG_SEGMENTS} {path}: {proc.stderr[-1500:]!r}")
        target = truth / f"dump-{path.name}.txt.gz"
        target.write_bytes(gzip.compress(proc.stdout, compresslevel=9, mtime=0))
        written.append(target)
    tool = f"kafka-dump-log --cluster-metadata-decoder of Kafka {cluster.release.version}"
    return written, tool


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


Mode = Literal["zk", "kraft"]


def check_mode(scenario: Scenario, mode: Mode) -> None:
    """Refuse a scenario that names a controller the mode does not have.

    Raises:
        ValueError: a ``wait until controller`` names a broker in KRaft mode, or a KRaft
            controller (101 ...) in ZooKeeper mode; a ``controller_config`` or a ``wait until
            elr`` in ZooKeeper mode (ZooKeeper's partition state has no ELR).
    """
    if mode == "zk" and scenario.controller_config:
        raise ValueError("controller_config is for KRaft controllers: zk mode has none")
    for number, step in enumerate(scenario.steps, start=1):
        if mode == "zk" and isinstance(step, Wait) and step.until == "elr":
            raise ValueError(f"step {number} (wait until elr): zk mode has no ELR")
        node = getattr(step, "broker", None)
        if not isinstance(node, int) or node < 0:
            continue
        kraft_controller = node in scenario.controller_ids
        if (mode == "kraft") != kraft_controller and (
            kraft_controller or (isinstance(step, Wait) and step.until == "controller")
        ):
            raise ValueError(
                f"step {number} ({step.op}) names node {node}: in {mode} mode the controller "
                f"is {'a controller node, 101 ...' if mode == 'kraft' else 'a broker'}"
            )


def record(
    release: KafkaRelease,
    scenario_file: Path,
    out: Path,
    *,
    mode: Mode = "zk",
    compress: bool = False,
    work: Path | None = None,
    cache: Path | None = None,
) -> dict[str, Any]:
    """Run a scenario on a fresh cluster and write its capture to ``out``.

    Args:
        release: the Kafka release (installed into the jar cache when missing).
        scenario_file: the scenario YAML.
        out: the capture directory (must not exist or be empty).
        mode: ``zk`` (ZooKeeper and brokers) or ``kraft`` (a controller quorum and brokers).
        compress: gzip the broker logs afterwards.
        work: scratch space (the nodes' data); a temporary folder, removed after, when None.
        cache: the jar cache to install the release into (``jobs.runtime.spark_jars``'s
            default when None).

    Returns:
        The capture's manifest (also written to ``capture.json``).

    Raises:
        FileExistsError: ``out`` is not empty.
        ValueError: the scenario names a controller the mode does not have.
        Exception: whatever failed; the cluster is stopped and the manifest says which step.
    """
    scenario = load_scenario(scenario_file)
    check_mode(scenario, mode)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty")
    out.mkdir(parents=True, exist_ok=True)
    (out / "scenario.yaml").write_bytes(scenario_file.read_bytes())
    (out / "kafka-version").write_text(f"{release.version}\n", encoding="utf-8")
    classpath = release.classpath(cache)
    scratch = Path(tempfile.mkdtemp(prefix="kafka-lab-")) if work is None else work
    manifest: dict[str, Any] = {
        "kafka_version": release.version,
        "mode": mode,
        "scenario": scenario.name,
        "command": [
            "python",
            "-m",
            "kafkactl_lab.real_cluster",
            "--kafka",
            release.version,
            "--mode",
            mode,
            "--scenario",
            f"<{scenario_file.name}>",
            "--out",
            "DIR",
        ],
        "python": sys.version.split()[0],
        "logging": f"Kafka {release.series}'s shipped config/{release.logging.server}, unchanged",
        "broker_config_shortened": {k: v for k, v in scenario.broker_config.items()},
        "broker_config_machine": dict(MACHINE_SETTINGS),
        **({"controller_config": dict(scenario.controller_config)} if mode == "kraft" else {}),
        "teardown": scenario.teardown,
        "started": utc_now(),
    }
    try:
        cluster: BrokerCluster
        if mode == "kraft":
            cluster = KRaftCluster(
                release,
                out,
                scratch,
                brokers=scenario.brokers,
                controllers=scenario.controllers,
                broker_config=scenario.broker_config,
                controller_config=scenario.controller_config,
                classpath=classpath,
            )
            manifest["controllers"] = cluster.controller_ids
            manifest["cluster_id"] = cluster.cluster_id
        else:
            cluster = ZkModeCluster(
                release,
                out,
                scratch,
                brokers=scenario.brokers,
                broker_config=scenario.broker_config,
                classpath=classpath,
            )
            manifest["zookeeper_config"] = dict(ZOOKEEPER_SETTINGS)
        manifest["java"] = cluster.java
        _run(scenario, cluster, scratch, manifest, out)
        if isinstance(cluster, KRaftCluster):
            _, manifest["truth_tools"] = dump_metadata(cluster, keep_metadata_log(cluster))
        else:
            _, manifest["truth_tools"] = dump_zookeeper(cluster, cache)
        (out / "capture.json").write_text(json.dumps(manifest, indent=2) + "\n")
    finally:
        if work is None:
            shutil.rmtree(scratch, ignore_errors=True)
    prune_other_logs(out)
    if compress:
        gzip_logs(out)
    return manifest


def _run(
    scenario: Scenario,
    cluster: ZkModeCluster | KRaftCluster,
    scratch: Path,
    manifest: dict[str, Any],
    out: Path,
) -> None:
    zk_view: ZkView | None = None
    try:
        cluster.start()
        tools = KafkaTools(
            tool_classes(cluster.release), cluster.java_command, cluster.bootstrap, scratch
        )
        view: ClusterView
        if isinstance(cluster, KRaftCluster):
            view = KRaftView(tools, cluster.bootstrap_controllers)
        else:
            view = zk_view = ZkView(cluster.zk_connect)
        runner = ScenarioRunner(cluster, view, tools, out / "steps.jsonl")
        runner.bring_up()
        runner.run(scenario)
        manifest["outcome"] = "completed"
    except BaseException as error:
        manifest["outcome"] = f"failed: {error}"[:1000]
        raise
    finally:
        try:
            if zk_view is not None:
                zk_view.close()
        finally:
            cluster.close(scenario.teardown)
            manifest["ended"] = utc_now()
            (out / "capture.json").write_text(json.dumps(manifest, indent=2) + "\n")
