"""What ZooKeeper says about a ZooKeeper-mode cluster, read with kazoo, for wait conditions.

Reads only: ``/controller``, ``/brokers/ids``, ``/brokers/topics/<t>`` (the assignment) and
``/brokers/topics/<t>/partitions/<p>/state`` (leader, ISR), the znodes the controller writes.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from kafkactl_lab.real_cluster.scenario import Wait


@dataclass(frozen=True)
class PartitionView:
    """One partition as ZooKeeper holds it."""

    replicas: tuple[int, ...]
    leader: int | None
    isr: tuple[int, ...]


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

    def holds(self, wait: Wait) -> bool:
        """Whether the wait step's condition holds now."""
        if wait.until == "controller":
            controller = self.controller()
            return controller is not None and (wait.broker is None or controller == wait.broker)
        if wait.until == "broker_registered":
            return wait.broker in self.brokers()
        if wait.until == "broker_gone":
            return wait.broker not in self.brokers()
        assert wait.topic is not None
        views = self.partitions(wait.topic)
        if wait.partition is not None:
            views = {p: v for p, v in views.items() if p == wait.partition}
        if not views:
            return False
        if wait.until == "isr_complete":
            return all(
                v.leader is not None and v.leader >= 0 and set(v.isr) == set(v.replicas)
                for v in views.values()
            )
        if wait.until == "leader":
            return all(v.leader == wait.broker for v in views.values())
        if wait.until == "isr":
            return all(set(v.isr) == set(wait.isr or ()) for v in views.values())
        if wait.until == "preferred_leaders":
            return all(bool(v.replicas) and v.leader == v.replicas[0] for v in views.values())
        # not_leader: the controller moved every partition off the broker (-1 when it could not)
        return all(v.leader is not None and v.leader != wait.broker for v in views.values())

    def wait_for(self, wait: Wait, poll: float = 0.25) -> float:
        """Poll until the condition holds.

        Returns:
            The seconds it took.

        Raises:
            TimeoutError: it did not hold within the step's timeout.
        """
        start = time.monotonic()
        while True:
            if self.holds(wait):
                return time.monotonic() - start
            if time.monotonic() - start > wait.timeout_s:
                raise TimeoutError(f"wait until {wait.until} ({wait}): not after {wait.timeout_s}s")
            time.sleep(poll)
