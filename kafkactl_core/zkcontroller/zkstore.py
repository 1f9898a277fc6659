"""Where the controller reads and writes partition leadership: the ``/state`` znodes.

The state machines talk to a ``LeadershipStore``: the engine uses ``InMemoryLeadershipStore``
(every write succeeds and moves the znode version by one); the oracle adapter substitutes a store
whose reads and writes fail the way Kafka's unit tests mock them.
"""

from __future__ import annotations

import enum
from typing import Protocol

from kafkactl_core.model import LeaderAndIsr, TopicPartition


class ZkFailure(enum.Enum):
    """A ZooKeeper call that did not succeed."""

    no_node = "NONODE"
    node_exists = "NODEEXISTS"
    client_exception = "ZooKeeperClientException"


class LeadershipStore(Protocol):
    """Reads and conditional writes of partition leadership znodes."""

    def read(self, tp: TopicPartition) -> LeaderAndIsr | ZkFailure:
        """The stored leadership (partition epoch = znode version), or why there is none."""
        ...

    def create(self, tp: TopicPartition, leadership: LeaderAndIsr) -> LeaderAndIsr | ZkFailure:
        """Create the znode; returns the stored leadership (version 0)."""
        ...

    def update(self, tp: TopicPartition, leadership: LeaderAndIsr) -> LeaderAndIsr | ZkFailure:
        """Conditional write expecting version ``leadership.partition_epoch``.

        Returns:
            The stored leadership with its new version.
        """
        ...

    def delete(self, tp: TopicPartition) -> None:
        """Remove the znode (topic deletion)."""
        ...


class InMemoryLeadershipStore:
    """A ``LeadershipStore`` over a dict: writes succeed, each one moves the version by one."""

    __slots__ = ("data",)

    def __init__(self, data: dict[TopicPartition, LeaderAndIsr] | None = None) -> None:
        self.data: dict[TopicPartition, LeaderAndIsr] = {} if data is None else data

    def read(self, tp: TopicPartition) -> LeaderAndIsr | ZkFailure:
        """The stored leadership or ``NONODE``."""
        found = self.data.get(tp)
        return ZkFailure.no_node if found is None else found

    def create(self, tp: TopicPartition, leadership: LeaderAndIsr) -> LeaderAndIsr | ZkFailure:
        """Create at version 0; ``NODEEXISTS`` if present."""
        if tp in self.data:
            return ZkFailure.node_exists
        stored = leadership.with_partition_epoch(0)
        self.data[tp] = stored
        return stored

    def update(self, tp: TopicPartition, leadership: LeaderAndIsr) -> LeaderAndIsr | ZkFailure:
        """Write at the next version of the stored znode; ``NONODE`` if absent."""
        found = self.data.get(tp)
        if found is None:
            return ZkFailure.no_node
        stored = leadership.with_partition_epoch(found.partition_epoch + 1)
        self.data[tp] = stored
        return stored

    def delete(self, tp: TopicPartition) -> None:
        """Remove the znode if present."""
        self.data.pop(tp, None)
