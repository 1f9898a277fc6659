"""The wait conditions of a scenario, evaluated on any view of a cluster.

A view answers three questions, each from what the cluster itself says: the active controller,
the live brokers and a topic's partitions. ``ZkView`` reads ZooKeeper's znodes;
``kraft_view.KRaftView`` asks the cluster with Kafka's own tools.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

from kafkactl_lab.real_cluster.scenario import Wait


class ViewUnavailable(RuntimeError):
    """The view could not answer now (a tool failed, the cluster is between leaders)."""


@dataclass(frozen=True)
class PartitionView:
    """One partition as the cluster holds it (leader None: no leader written yet; elr: its
    eligible leader replicas, KRaft with KIP-966 only, else empty)."""

    replicas: tuple[int, ...]
    leader: int | None
    isr: tuple[int, ...]
    elr: tuple[int, ...] = ()


class ClusterView(Protocol):
    """What a wait condition asks of a cluster."""

    def controller(self) -> int | None:
        """The active controller's id, None when there is none."""

    def brokers(self) -> set[int]:
        """The live brokers (registered, and in KRaft not fenced)."""

    def partitions(self, topic: str) -> dict[int, PartitionView]:
        """The topic's partitions (empty when the topic does not exist)."""


def holds(view: ClusterView, wait: Wait) -> bool:
    """Whether the wait step's condition holds now."""
    if wait.until == "controller":
        controller = view.controller()
        return controller is not None and (wait.broker is None or controller == wait.broker)
    if wait.until == "broker_registered":
        return wait.broker in view.brokers()
    if wait.until == "broker_gone":
        return wait.broker not in view.brokers()
    assert wait.topic is not None
    views = view.partitions(wait.topic)
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
    if wait.until == "elr":
        return all(set(v.elr) == set(wait.elr or ()) for v in views.values())
    if wait.until == "preferred_leaders":
        return all(bool(v.replicas) and v.leader == v.replicas[0] for v in views.values())
    # not_leader: the controller moved every partition off the broker (-1 when it could not)
    return all(v.leader is not None and v.leader != wait.broker for v in views.values())


def wait_for(view: ClusterView, wait: Wait, poll: float = 0.25) -> float:
    """Poll until the condition holds.

    Returns:
        The seconds it took.

    Raises:
        TimeoutError: it did not hold within the step's timeout (with the view's last
            complaint, when it could not answer).
    """
    start = time.monotonic()
    complaint = ""
    while True:
        try:
            if holds(view, wait):
                return time.monotonic() - start
        except ViewUnavailable as error:
            complaint = f"; last: {str(error)[-300:]}"
        if time.monotonic() - start > wait.timeout_s:
            raise TimeoutError(
                f"wait until {wait.until} ({wait}): not after {wait.timeout_s}s{complaint}"
            )
        time.sleep(poll)
