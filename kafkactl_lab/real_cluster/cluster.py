"""A ZooKeeper-mode Kafka cluster on 127.0.0.1: one ZooKeeper, brokers 1..N.

ZooKeeper runs as Kafka's ``zookeeper-server-start.sh`` runs it (``QuorumPeerMain`` from the
release's own ZooKeeper jars, Kafka's ``config/zookeeper.properties`` settings) with its
dataDir in the capture. Each broker runs ``kafka.Kafka server.properties`` as
``kafka-server-start.sh`` does: ``-Dkafka.logs.dir`` is the broker's folder of the capture and
``-Dlog4j.configuration`` the release's shipped ``config/log4j.properties``, so it writes
``controller.log``, ``state-change.log`` and ``server.log`` at the default levels and layout.
Only the ports, the data directories, small heaps and fewer network/IO threads (the machine is
shared; none of them changes what the controller decides or logs) differ from a default
broker, plus the scenario's own ``broker_config``; every broker's ``server.properties`` is kept
beside its logs.
"""

from __future__ import annotations

import time
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


class ZkModeCluster:
    """ZooKeeper plus brokers 1..N, their logs in ``out`` and their data in ``work``."""

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
            out: the capture directory (``brokers/<id>/`` logs, ``zookeeper/`` dataDir).
            work: scratch space for the brokers' data and the processes' stdout.
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
        self.zk_port = free_port()
        self.ports = {broker: free_port() for broker in self.broker_ids}
        self.zk_data = out / "zookeeper"
        self.processes: dict[int, JavaProcess] = {}
        config = work / "config"
        config.mkdir(parents=True, exist_ok=True)
        self.log4j = config / "log4j.properties"
        self.log4j.write_text(release.shipped_config("log4j.properties"), encoding="utf-8")
        self.tools_log4j = config / "tools-log4j.properties"
        self.tools_log4j.write_text(
            release.shipped_config("tools-log4j.properties"), encoding="utf-8"
        )
        self.zookeeper = self._zookeeper_process(config)

    @property
    def bootstrap(self) -> str:
        """The bootstrap servers of every broker."""
        return ",".join(f"127.0.0.1:{port}" for port in self.ports.values())

    @property
    def zk_connect(self) -> str:
        """ZooKeeper's connect string."""
        return f"127.0.0.1:{self.zk_port}"

    def broker_dir(self, broker: int) -> Path:
        """The broker's folder in the capture (its logs and ``server.properties``)."""
        return self.out / "brokers" / str(broker)

    def java_command(self, *args: str, heap: list[str] | None = None) -> list[str]:
        """A command line running the release's classes with the tools' logging."""
        return [
            self.java,
            *(heap or ["-Xmx256m"]),
            *JAVA_LOCALE,
            f"-Dlog4j.configuration=file:{self.tools_log4j}",
            "-cp",
            self.classpath,
            *args,
        ]

    def _zookeeper_process(self, config: Path) -> JavaProcess:
        settings: dict[str, ConfigValue] = {
            "dataDir": str(self.zk_data),
            "clientPort": self.zk_port,
            "clientPortAddress": "127.0.0.1",
            **ZOOKEEPER_SETTINGS,
        }
        cfg = config / "zookeeper.properties"
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
                f"-Dlog4j.configuration=file:{self.log4j}",
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

    def _broker_process(self, broker: int) -> JavaProcess:
        folder = self.broker_dir(broker)
        folder.mkdir(parents=True, exist_ok=True)
        cfg = folder / "server.properties"
        cfg.write_text(properties(self.server_properties(broker)), encoding="utf-8")
        return JavaProcess(
            f"broker {broker}",
            [
                self.java,
                *BROKER_HEAP,
                *JVM_PERFORMANCE,
                *JAVA_LOCALE,
                f"-Dkafka.logs.dir={folder}",
                f"-Dlog4j.configuration=file:{self.log4j}",
                "-cp",
                self.classpath,
                "kafka.Kafka",
                str(cfg),
            ],
            self.work / "stdout" / f"broker-{broker}.out",
        )

    def start_zookeeper(self, timeout: float = 60) -> None:
        """Start ZooKeeper and wait for its client port."""
        self.zookeeper.start()
        wait_for_port(self.zookeeper, self.zk_port, timeout)

    def start_broker(self, broker: int, timeout: float = 120) -> None:
        """Start a broker (again) and wait for its listener port.

        Raises:
            RuntimeError: it exited or did not listen in time.
        """
        process = self.processes.get(broker)
        if process is None:
            process = self._broker_process(broker)
            self.processes[broker] = process
        process.start()
        wait_for_port(process, self.ports[broker], timeout)

    def kill_broker(self, broker: int) -> None:
        """``kill -9`` a broker."""
        self.processes[broker].kill()

    def stop_broker(self, broker: int, timeout: float = 120) -> None:
        """SIGTERM a broker (a controlled shutdown) and wait for it to exit."""
        self.processes[broker].terminate(timeout)

    def running(self, broker: int) -> bool:
        """Whether the broker's process runs."""
        process = self.processes.get(broker)
        return process is not None and process.running

    def close(self, teardown: str = "kill") -> None:
        """Stop everything this cluster started; safe to call twice.

        Args:
            teardown: ``kill`` (kill -9 every broker, so they write nothing more to
                ZooKeeper, then stop ZooKeeper) or ``stop`` (controlled shutdowns first).
        """
        try:
            for process in self.processes.values():
                if teardown == "stop":
                    process.terminate(120)
                else:
                    process.kill()
        finally:
            for process in self.processes.values():
                process.kill()
            # ZooKeeper stops after the brokers so that what they wrote is all in its log
            time.sleep(0.2)
            self.zookeeper.terminate(30)
