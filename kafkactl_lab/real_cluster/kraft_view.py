"""What a KRaft cluster says about itself, asked with Kafka's own tools (a ``ClusterView``).

There is no ZooKeeper to read: the active controller is the quorum's leader as
``kafka-metadata-quorum describe --status`` prints it (``LeaderId``), the live brokers are the
ones the cluster's metadata lists (``kafka-broker-api-versions``: registered and not fenced),
and a topic's partitions are ``kafka-topics --describe``'s lines. Each question starts a JVM, a
few seconds on a busy machine; the wait conditions poll no faster than that.
"""

from __future__ import annotations

import re

from kafkactl_lab.real_cluster.admin import KafkaTools, ToolFailed
from kafkactl_lab.real_cluster.conditions import PartitionView, ViewUnavailable

_NODE = re.compile(r"\(id: (\d+) rack:")
_LEADER_ID = re.compile(r"^LeaderId:\s+(-?\d+)", re.MULTILINE)
_PARTITION = re.compile(
    r"Partition: (?P<partition>\d+)\tLeader: (?P<leader>-?\d+|none)\t"
    r"Replicas: (?P<replicas>[\d,]*)\tIsr: (?P<isr>[\d,]*)(?:\tElr: (?P<elr>[\d,]*))?"
)


def _ids(text: str) -> tuple[int, ...]:
    return tuple(int(b) for b in text.split(",") if b)


def parse_partitions(described: str) -> dict[int, PartitionView]:
    """The partitions of ``kafka-topics --describe`` output (``Leader: none`` is -1; ``Elr:
    N/A``, the ELR feature off, or none printed, an empty ELR)."""
    views: dict[int, PartitionView] = {}
    for match in _PARTITION.finditer(described):
        leader = match["leader"]
        views[int(match["partition"])] = PartitionView(
            _ids(match["replicas"]),
            -1 if leader == "none" else int(leader),
            _ids(match["isr"]),
            _ids(match["elr"] or ""),
        )
    return views


def parse_brokers(api_versions: str) -> set[int]:
    """The broker ids of ``kafka-broker-api-versions`` output."""
    return {int(node) for node in _NODE.findall(api_versions)}


def parse_leader(status: str) -> int | None:
    """``LeaderId`` of ``kafka-metadata-quorum describe --status``, None when -1 or absent."""
    match = _LEADER_ID.search(status)
    if match is None or int(match.group(1)) < 0:
        return None
    return int(match.group(1))


class KRaftView:
    """Kafka's tools against one KRaft cluster; a failing tool is ``ViewUnavailable``."""

    def __init__(self, tools: KafkaTools, bootstrap_controllers: str) -> None:
        """Bind the view.

        Args:
            tools: Kafka's tools bound to the brokers.
            bootstrap_controllers: the controllers' endpoints.
        """
        self.tools = tools
        self.bootstrap_controllers = bootstrap_controllers

    def controller(self) -> int | None:
        """The quorum leader's id, None when there is none."""
        try:
            return parse_leader(self.tools.quorum_status(self.bootstrap_controllers))
        except ToolFailed as error:
            raise ViewUnavailable(str(error)) from error

    def brokers(self) -> set[int]:
        """The brokers the cluster's metadata lists (registered, not fenced)."""
        try:
            return parse_brokers(self.tools.broker_api_versions())
        except ToolFailed as error:
            raise ViewUnavailable(str(error)) from error

    def partitions(self, topic: str) -> dict[int, PartitionView]:
        """The topic's partitions (``kafka-topics`` fails for a topic that does not exist)."""
        try:
            return parse_partitions(self.tools.describe_topic(topic))
        except ToolFailed as error:
            raise ViewUnavailable(str(error)) from error
