"""Kafka's vocabulary: partitions, leadership, partition and replica states, election kinds.

These are the value types every other module of the core (grammars, ZooKeeper decoding, the
election rules, replay) speaks. They are frozen, slotted dataclasses: cheap to build in a replay
fold that handles hundreds of thousands of events per second.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

NO_LEADER = -1
"""Broker id Kafka stores as the leader of a partition that has none."""

LEADER_DURING_DELETE = -2
"""Leader id Kafka reports for a partition of a topic being deleted (``LeaderDuringDelete``)."""

EPOCH_DURING_DELETE = -2
"""Leader epoch Kafka reports for a partition of a topic being deleted (``EpochDuringDelete``)."""


@dataclass(frozen=True, slots=True, order=True)
class TopicPartition:
    """A topic partition, rendered ``<topic>-<partition>`` like Kafka's ``TopicPartition``."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"

    @classmethod
    def parse(cls, text: str) -> TopicPartition:
        """Parse ``topic-3``, ``[topic,3]`` or ``topic,3`` into a TopicPartition.

        Args:
            text: the partition as Kafka logs render it.

        Returns:
            The partition.

        Raises:
            ValueError: when ``text`` names no partition number.
        """
        body = text.strip()
        if body.startswith("[") and body.endswith("]"):
            body = body[1:-1]
        sep = "," if "," in body else "-"
        topic, _, number = body.rpartition(sep)
        if not topic or not number.lstrip("-").isdigit():
            raise ValueError(f"not a topic partition: {text!r}")
        return cls(topic.strip(), int(number))


class LeaderRecoveryState(enum.Enum):
    """KIP-704 leader recovery state stored with the partition (2.8+/3.2+)."""

    RECOVERED = 0
    RECOVERING = 1


@dataclass(frozen=True, slots=True)
class LeaderAndIsr:
    """A partition's leadership as the controller writes it (ZooKeeper state znode or KRaft record).

    Attributes:
        leader: the leader broker id, ``NO_LEADER`` (-1) when there is none.
        leader_epoch: bumped on every leader change (and some ISR changes, by version).
        isr: in-sync replicas, in the order Kafka keeps them.
        partition_epoch: the ZooKeeper znode version (``zkVersion``) or the KRaft partition epoch.
        leader_recovery_state: KIP-704 state.
    """

    leader: int
    leader_epoch: int = 0
    isr: tuple[int, ...] = ()
    partition_epoch: int = 0
    leader_recovery_state: LeaderRecoveryState = LeaderRecoveryState.RECOVERED

    @property
    def zk_version(self) -> int:
        """The older name of ``partition_epoch``."""
        return self.partition_epoch

    @property
    def has_leader(self) -> bool:
        """Whether a leader is set."""
        return self.leader != NO_LEADER

    def new_leader(self, leader: int) -> LeaderAndIsr:
        """``LeaderAndIsr.newLeader``: another leader, same ISR, leaderEpoch + 1."""
        return self.new_leader_and_isr(leader, self.isr)

    def new_leader_and_isr(self, leader: int, isr: tuple[int, ...]) -> LeaderAndIsr:
        """``LeaderAndIsr.newLeaderAndIsr``: leaderEpoch + 1, recovery state kept."""
        return LeaderAndIsr(
            leader, self.leader_epoch + 1, isr, self.partition_epoch, self.leader_recovery_state
        )

    def new_recovering_leader_and_isr(self, leader: int, isr: tuple[int, ...]) -> LeaderAndIsr:
        """``LeaderAndIsr.newRecoveringLeaderAndIsr``: leaderEpoch + 1, RECOVERING."""
        return LeaderAndIsr(
            leader, self.leader_epoch + 1, isr, self.partition_epoch, LeaderRecoveryState.RECOVERING
        )

    def new_epoch(self) -> LeaderAndIsr:
        """``LeaderAndIsr.newEpoch``: same leader and ISR, leaderEpoch + 1."""
        return self.new_leader(self.leader)

    def with_partition_epoch(self, partition_epoch: int) -> LeaderAndIsr:
        """The same leadership with another partition epoch (zkVersion after a write)."""
        return LeaderAndIsr(
            self.leader, self.leader_epoch, self.isr, partition_epoch, self.leader_recovery_state
        )

    def with_isr(self, isr: tuple[int, ...]) -> LeaderAndIsr:
        """The same leadership and epochs with another ISR (a leader-driven ISR change)."""
        return LeaderAndIsr(
            self.leader, self.leader_epoch, isr, self.partition_epoch, self.leader_recovery_state
        )


class PartitionState(enum.Enum):
    """The ZooKeeper controller's PartitionStateMachine states."""

    NonExistentPartition = 3
    NewPartition = 0
    OnlinePartition = 1
    OfflinePartition = 2


class ReplicaState(enum.Enum):
    """The ZooKeeper controller's ReplicaStateMachine states."""

    NewReplica = 1
    OnlineReplica = 2
    OfflineReplica = 3
    ReplicaDeletionStarted = 4
    ReplicaDeletionSuccessful = 5
    ReplicaDeletionIneligible = 6
    NonExistentReplica = 7


class ElectionStrategy(enum.Enum):
    """How the ZooKeeper controller picks a leader (PartitionLeaderElectionStrategy)."""

    offline = "offline"
    reassign = "reassign"
    preferred = "preferred"
    controlled_shutdown = "controlled_shutdown"


class ElectionTrigger(enum.Enum):
    """Why an election happened, as ``gold.elections.trigger`` reports it."""

    new_partition = "new_partition"
    offline = "offline"
    reassign = "reassign"
    preferred = "preferred"
    controlled_shutdown = "controlled_shutdown"
    admin_unclean = "admin_unclean"
    unknown = "unknown"
