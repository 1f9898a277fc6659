"""A KRaft-mode Kafka cluster on 127.0.0.1: a controller quorum (ids 101..) and brokers 1..N.

Every node is formatted first with the release's ``kafka-storage format`` (``StorageTool``, the
class ``bin/kafka-storage.sh`` runs) under one random cluster id, as an operator does. The
quorum is static (``controller.quorum.voters``), which every KRaft release from 3.3 on
accepts. Controllers are nodes of their own (``process.roles=controller``), as production
clusters run them; each writes its logs to ``brokers/<id>/`` of the capture like a broker, so
the capture's ``controller.log`` files are the controllers'. The metadata log lives in each
controller's data folder (``__cluster_metadata-0``); ``metadata_dir`` names the copy a capture
keeps.
"""

from __future__ import annotations

import base64
import subprocess
import uuid
from collections.abc import Mapping
from pathlib import Path

from kafkactl_lab.real_cluster.cluster import MACHINE_SETTINGS, BrokerCluster, properties
from kafkactl_lab.real_cluster.processes import free_port
from kafkactl_lab.real_cluster.release import KafkaRelease
from kafkactl_lab.real_cluster.scenario import FIRST_CONTROLLER_ID, ConfigValue

METADATA_PARTITION = "__cluster_metadata-0"
STORAGE_TOOL = "kafka.tools.StorageTool"


def random_cluster_id() -> str:
    """A cluster id as ``kafka-storage random-uuid`` prints it (URL-safe base64, 22 chars).

    Kafka's ``Uuid.randomUuid`` never returns an id whose text starts with ``-``.
    """
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


class KRaftCluster(BrokerCluster):
    """Controllers 101..100+C and brokers 1..N in KRaft mode."""

    def __init__(
        self,
        release: KafkaRelease,
        out: Path,
        work: Path,
        *,
        brokers: int,
        controllers: int,
        broker_config: Mapping[str, ConfigValue],
        controller_config: Mapping[str, ConfigValue] | None = None,
        classpath: str | None = None,
    ) -> None:
        """Lay out the cluster; nothing runs until ``start``.

        Args:
            release: the Kafka release (3.3 or later).
            out: the capture directory (every node's logs in ``brokers/<id>/``).
            work: scratch space for the nodes' data and the processes' stdout.
            brokers: how many brokers (ids 1..N).
            controllers: how many controllers (ids 101..100+C).
            broker_config: server.properties overrides of the scenario, for every node.
            controller_config: overrides of the controllers alone, over ``broker_config``.
            classpath: the release's classpath, installed when None.
        """
        self.controller_ids = [FIRST_CONTROLLER_ID + k for k in range(controllers)]
        self.controller_config = dict(controller_config or {})
        super().__init__(
            release,
            out,
            work,
            brokers=brokers,
            broker_config=broker_config,
            classpath=classpath,
        )

    def lay_out(self) -> None:
        """Choose the cluster id and the controllers' ports."""
        self.cluster_id = random_cluster_id()
        self.controller_ports = {node: free_port() for node in self.controller_ids}

    @property
    def voters(self) -> str:
        """``controller.quorum.voters``: ``id@host:port`` of every controller."""
        return ",".join(f"{n}@127.0.0.1:{port}" for n, port in self.controller_ports.items())

    @property
    def bootstrap_controllers(self) -> str:
        """The controllers' endpoints, for ``--bootstrap-controller``."""
        return ",".join(f"127.0.0.1:{port}" for port in self.controller_ports.values())

    def data_dir(self, node: int) -> Path:
        """The node's ``log.dirs`` (and metadata log) folder."""
        return self.work / "data" / str(node)

    def metadata_dir(self, controller: int) -> Path:
        """A controller's copy of the metadata log."""
        return self.data_dir(controller) / METADATA_PARTITION

    def listener_port(self, node: int) -> int:
        """The broker's listener, or the controller's."""
        return self.controller_ports.get(node) or self.ports[node]

    def server_properties(self, broker: int) -> dict[str, ConfigValue]:
        """The node's ``server.properties``: roles, identity, ports, data, then the overrides
        (a controller's own ``controller_config`` last)."""
        common: dict[str, ConfigValue] = {
            "node.id": broker,
            "controller.quorum.voters": self.voters,
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "log.dirs": str(self.data_dir(broker)),
        }
        own: dict[str, ConfigValue] = {}
        if broker in self.controller_ports:
            port = self.controller_ports[broker]
            role: dict[str, ConfigValue] = {
                "process.roles": "controller",
                "listeners": f"CONTROLLER://127.0.0.1:{port}",
            }
            own = self.controller_config
        else:
            port = self.ports[broker]
            role = {
                "process.roles": "broker",
                "listeners": f"PLAINTEXT://127.0.0.1:{port}",
                "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
                "inter.broker.listener.name": "PLAINTEXT",
            }
        return {**role, **common, **MACHINE_SETTINGS, **self.broker_config, **own}

    def format_storage(self, node: int) -> None:
        """``kafka-storage format`` the node's data folder under the cluster id.

        Raises:
            RuntimeError: the tool failed.
        """
        folder = self.broker_dir(node)
        folder.mkdir(parents=True, exist_ok=True)
        cfg = self.config / f"format-{node}.properties"
        cfg.write_text(properties(self.server_properties(node)), encoding="utf-8")
        command = self.java_command(STORAGE_TOOL, "format", "-t", self.cluster_id, "-c", str(cfg))
        proc = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"kafka-storage format of node {node}: {proc.stdout + proc.stderr}")

    def start(self, timeout: float = 120) -> None:
        """Format every node, then start the controllers (the brokers start one by one)."""
        for node in [*self.controller_ids, *self.broker_ids]:
            self.format_storage(node)
        for controller in self.controller_ids:
            self.start_broker(controller, timeout)

    def close(self, teardown: str = "kill") -> None:
        """Stop everything this cluster started; safe to call twice.

        Args:
            teardown: ``kill`` (kill -9 every broker) or ``stop`` (controlled shutdowns);
                the controllers stop after the brokers with SIGTERM, so that their metadata
                log ends with what the brokers' departure made them write.
        """
        try:
            self.stop_brokers(teardown)
        finally:
            for controller in self.controller_ids:
                process = self.processes.get(controller)
                if process is not None:
                    process.terminate(60)
