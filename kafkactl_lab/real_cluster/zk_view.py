"""What ZooKeeper says about a ZooKeeper-mode cluster, read with kazoo (a ``ClusterView``).

Reads only: ``/controller``, ``/brokers/ids``, ``/brokers/topics/<t>`` (the assignment) and
``/brokers/topics/<t>/partitions/<p>/state`` (leader, ISR), the znodes the controller writes.
"""

from __future__ import annotations

import json
from typing import Any

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from kafkactl_lab.real_cluster.conditions import PartitionView


class ZkView:
    """A kazoo session on the cluster's ZooKeeper; ``close`` ends it."""

    def __init__(self, hosts: str, timeout: float = 30) -> None:
        """Connect.

        Args:
            hosts: the connect string.
            timeout: how long to wait for the session.
        """
        self.client = KazooClient(hosts=hosts, timeout=10)
        self.client.start(timeout=timeout)

    def close(self) -> None:
        """End the session."""
        self.client.stop()
        self.client.close()

    def _json(self, path: str) -> Any:
        try:
            data, _ = self.client.get(path)
        except NoNodeError:
            return None
        return json.loads(data) if data else None

    def controller(self) -> int | None:
        """The active controller's id, None when there is none."""
        value = self._json("/controller")
        return int(value["brokerid"]) if isinstance(value, dict) else None

    def brokers(self) -> set[int]:
        """The registered brokers."""
        try:
            return {int(child) for child in self.client.get_children("/brokers/ids")}
        except NoNodeError:
            return set()

    def partitions(self, topic: str) -> dict[int, PartitionView]:
        """The topic's partitions (empty when the topic does not exist)."""
        value = self._json(f"/brokers/topics/{topic}")
        if not isinstance(value, dict):
            return {}
        views: dict[int, PartitionView] = {}
        for key, replicas in value.get("partitions", {}).items():
            partition = int(key)
            state = self._json(f"/brokers/topics/{topic}/partitions/{partition}/state")
            leader = int(state["leader"]) if isinstance(state, dict) else None
            isr = tuple(int(b) for b in state["isr"]) if isinstance(state, dict) else ()
            views[partition] = PartitionView(tuple(int(b) for b in replicas), leader, isr)
        return views
