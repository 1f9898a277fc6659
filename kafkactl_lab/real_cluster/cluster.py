"""Kafka clusters on 127.0.0.1: what every mode shares, and the ZooKeeper mode.

``BrokerCluster`` runs brokers 1..N: each runs ``kafka.Kafka server.properties`` as
``kafka-server-start.sh`` does: ``-Dkafka.logs.dir`` is the broker's folder of the capture and
the logging configuration the release's shipped one (``log4j.properties`` up to 3.9,
``log4j2.yaml`` from 4.0), so it writes ``controller.log``, ``state-change.log`` and
``server.log`` at the default levels and layout. A mode adds what the brokers need to agree on
a controller: ``ZkModeCluster`` one ZooKeeper, ``kraft_cluster.KRaftCluster`` a controller
quorum.

In ZooKeeper mode, ZooKeeper runs as Kafka's ``zookeeper-server-start.sh`` runs it
(``QuorumPeerMain`` from the release's own ZooKeeper jars, Kafka's
``config/zookeeper.properties`` settings) with its dataDir in the capture. Only the ports, the
data directories, small heaps and fewer network/IO threads (the machine is shared; none of them
changes what the controller decides or logs) differ from a default node, plus the scenario's
own ``broker_config``; every node's ``server.properties`` is kept beside its logs.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path

from kafkactl_lab.real_cluster.processes import (
    JAVA_LOCALE,
    JavaProcess,
    free_port,
    java_executable,
    wait_for_port,
)
from kafkactl_lab.real_cluster.release import KafkaRelease
from kafkactl_lab.real_cluster.scenario import ConfigValue, config_text

BROKER_HEAP = ["-Xms128m", "-Xmx384m"]
ZOOKEEPER_HEAP = ["-Xms64m", "-Xmx256m"]
JVM_PERFORMANCE = ["-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true"]
"""Kafka's ``KAFKA_JVM_PERFORMANCE_OPTS`` (the part that matters here)."""

MACHINE_SETTINGS: dict[str, ConfigValue] = {
    "num.network.threads": 2,
    "num.io.threads": 2,
    "num.recovery.threads.per.data.dir": 1,
    "group.initial.rebalance.delay.ms": 0,
}
"""Broker settings for a shared 2-core machine, none of them about the controller."""

ZOOKEEPER_SETTINGS: dict[str, ConfigValue] = {
    "maxClientCnxns": 0,
    "admin.enableServer": "false",
    "preAllocSize": 64,
}
"""Kafka's ``config/zookeeper.properties`` plus a 64 KiB log preallocation (default 64 MiB)."""


def properties(settings: Mapping[str, ConfigValue]) -> str:
    """A ``.properties`` file's text, one ``key=value`` a line, in the given order."""
    return "".join(f"{key}={config_text(value)}\n" for key, value in settings.items())


class BrokerCluster(ABC):
    """Brokers 1..N (and what a mode adds), their logs in ``out`` and their data in ``work``."""

    def __init__(
        self,
        release: KafkaRelease,
        out: Path,
        work: Path,
        *,
        brokers: int,
        broker_config: Mapping[str, ConfigValue],
        classpath: str | None = None,
    ) -> None:
        """Lay out the cluster; nothing runs until ``start``.

        Args:
            release: the Kafka release.
            out: the capture directory (``brokers/<id>/`` logs and what the mode keeps).
            work: scratch space for the nodes' data and the processes' stdout.
            brokers: how many brokers (ids 1..N).
            broker_config: server.properties overrides of the scenario.
            classpath: the release's classpath, installed when None.
        """
        self.release = release
        self.out = out
        self.work = work
        self.classpath = classpath if classpath is not None else release.classpath()
        self.java = java_executable()
        self.broker_ids = list(range(1, brokers + 1))
        self.broker_config = dict(broker_config)
        self.ports = {broker: free_port() for broker in self.broker_ids}
        self.processes: dict[int, JavaProcess] = {}
        self.config = work / "config"
        self.config.mkdir(parents=True, exist_ok=True)
        logging = release.logging
        self.log4j = self.config / logging.server
        self.log4j.write_text(release.shipped_config(logging.server), encoding="utf-8")
        self.tools_log4j = self.config / logging.tools
        self.tools_log4j.write_text(release.shipped_config(logging.tools), encoding="utf-8")
        self.lay_out()

    @abstractmethod
    def lay_out(self) -> None:
        """What the mode adds before anything runs (its ports, its configuration)."""

    @property
    def bootstrap(self) -> str:
        """The bootstrap servers of every broker."""
        return ",".join(f"127.0.0.1:{port}" for port in self.ports.values())

    def broker_dir(self, broker: int) -> Path:
        """The node's folder in the capture (its logs and ``server.properties``)."""
        return self.out / "brokers" / str(broker)

    def java_command(self, *args: str, heap: list[str] | None = None) -> list[str]:
        """A command line running the release's classes with the tools' logging."""
        return [
            self.java,
            *(heap or ["-Xmx256m"]),
            *JAVA_LOCALE,
            self.release.logging.flag(self.tools_log4j),
            "-cp",
            self.classpath,
            *args,
        ]

    @abstractmethod
    def server_properties(self, broker: int) -> dict[str, ConfigValue]:
        """The node's ``server.properties``."""

    def node_process(self, node: int) -> JavaProcess:
        """The node's ``kafka.Kafka`` JVM, its ``server.properties`` written beside its logs."""
        folder = self.broker_dir(node)
        folder.mkdir(parents=True, exist_ok=True)
        cfg = folder / "server.properties"
        cfg.write_text(properties(self.server_properties(node)), encoding="utf-8")
        return JavaProcess(
            f"node {node}",
            [
                self.java,
                *BROKER_HEAP,
                *JVM_PERFORMANCE,
                *JAVA_LOCALE,
                f"-Dkafka.logs.dir={folder}",
                self.release.logging.flag(self.log4j),
                "-cp",
                self.classpath,
                "kafka.Kafka",
                str(cfg),
            ],
            self.work / "stdout" / f"node-{node}.out",
        )

    def listener_port(self, node: int) -> int:
        """The port that answers once the node is up."""
        return self.ports[node]

    def start_broker(self, broker: int, timeout: float = 120) -> None:
        """Start a node (again) and wait for its listener port.

        Raises:
            RuntimeError: it exited or did not listen in time.
        """
        process = self.processes.get(broker)
        if process is None:
            process = self.node_process(broker)
            self.processes[broker] = process
        process.start()
        wait_for_port(process, self.listener_port(broker), timeout)

    def kill_broker(self, broker: int) -> None:
        """``kill -9`` a node."""
        self.processes[broker].kill()

    def stop_broker(self, broker: int, timeout: float = 120) -> None:
        """SIGTERM a node (a controlled shutdown) and wait for it to exit."""
        self.processes[broker].terminate(timeout)

    def running(self, broker: int) -> bool:
        """Whether the node's process runs."""
        process = self.processes.get(broker)
        return process is not None and process.running

    def stop_brokers(self, teardown: str) -> None:
        """Stop every broker; ``kill``: kill -9, ``stop``: controlled shutdowns first."""
        try:
            for broker in self.broker_ids:
                process = self.processes.get(broker)
                if process is not None and teardown == "stop":
                    process.terminate(120)
        finally:
            for broker in self.broker_ids:
                process = self.processes.get(broker)
                if process is not None:
                    process.kill()


class ZkModeCluster(BrokerCluster):
    """ZooKeeper plus brokers 1..N; ZooKeeper's dataDir is the capture's ``zookeeper/``."""

    def lay_out(self) -> None:
        """Choose ZooKeeper's port and write its configuration."""
        self.zk_port = free_port()
        self.zk_data = self.out / "zookeeper"
        self.zookeeper = self._zookeeper_process()

    @property
    def zk_connect(self) -> str:
        """ZooKeeper's connect string."""
        return f"127.0.0.1:{self.zk_port}"

    def _zookeeper_process(self) -> JavaProcess:
        settings: dict[str, ConfigValue] = {
            "dataDir": str(self.zk_data),
            "clientPort": self.zk_port,
            "clientPortAddress": "127.0.0.1",
            **ZOOKEEPER_SETTINGS,
        }
        cfg = self.config / "zookeeper.properties"
        cfg.write_text(properties(settings), encoding="utf-8")
        logs = self.work / "zookeeper-logs"
        return JavaProcess(
            "zookeeper",
            [
                self.java,
                *ZOOKEEPER_HEAP,
                *JVM_PERFORMANCE,
                *JAVA_LOCALE,
                f"-Dkafka.logs.dir={logs}",
                self.release.logging.flag(self.log4j),
                "-cp",
                self.classpath,
                "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                str(cfg),
            ],
            logs / "zookeeper.out",
        )

    def server_properties(self, broker: int) -> dict[str, ConfigValue]:
        """The broker's ``server.properties``: identity, ports, data, then the overrides."""
        return {
            "broker.id": broker,
            "listeners": f"PLAINTEXT://127.0.0.1:{self.ports[broker]}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.ports[broker]}",
            "log.dirs": str(self.work / "data" / str(broker)),
            "zookeeper.connect": self.zk_connect,
            **MACHINE_SETTINGS,
            **self.broker_config,
        }

    def start(self, timeout: float = 60) -> None:
        """Start ZooKeeper and wait for its client port (the brokers start one by one)."""
        self.zookeeper.start()
        wait_for_port(self.zookeeper, self.zk_port, timeout)

    def close(self, teardown: str = "kill") -> None:
        """Stop everything this cluster started; safe to call twice.

        Args:
            teardown: ``kill`` (kill -9 every broker, so they write nothing more to
                ZooKeeper, then stop ZooKeeper) or ``stop`` (controlled shutdowns first).
        """
        try:
            self.stop_brokers(teardown)
        finally:
            # ZooKeeper stops after the brokers so that what they wrote is all in its log
            time.sleep(0.2)
            self.zookeeper.terminate(30)
