"""What the engine reports: elections made, per-operation results, snapshots and metrics."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import (
    ElectionStrategy,
    ElectionTrigger,
    LeaderAndIsr,
    LeaderRecoveryState,
    PartitionState,
    TopicPartition,
)
from kafkactl_core.zkcontroller.states import TransitionError


class RequestSource(enum.Enum):
    """Who asked for a preferred/unclean election (Kafka's ``ElectionTrigger``)."""

    auto = "auto"
    """The controller's auto-rebalance task (``AutoTriggered``)."""
    zk = "zk"
    """The ``/admin/preferred_replica_election`` znode (``ZkTriggered``)."""
    admin = "admin"
    """The Admin ``ElectLeaders`` API (``AdminClientTriggered``)."""


@dataclass(frozen=True, slots=True)
class ElectionRecord:
    """One leadership the controller wrote by electing (or initialising) a leader.

    Attributes:
        partition: the partition.
        trigger: why it happened.
        strategy: the election strategy, ``None`` for the initialisation of a new partition.
        previous_leader: the leader before (``None`` for a new partition).
        new_leader: the leader written.
        isr_before: the ISR before (empty for a new partition).
        isr_after: the ISR written.
        unclean: the leader came from outside the ISR.
        leader_epoch: the leader epoch written.
        leader_recovery_state: the recovery state written.
        requested_by: for preferred/admin elections, who asked.
    """

    partition: TopicPartition
    trigger: ElectionTrigger
    strategy: ElectionStrategy | None
    previous_leader: int | None
    new_leader: int
    isr_before: tuple[int, ...]
    isr_after: tuple[int, ...]
    unclean: bool
    leader_epoch: int
    leader_recovery_state: LeaderRecoveryState
    requested_by: RequestSource | None = None


@dataclass(frozen=True, slots=True)
class ImbalanceGroup:
    """The auto-rebalance computation for the partitions whose preferred replica is one broker.

    Attributes:
        broker: the preferred broker.
        partitions: partitions of the group (topics queued for deletion excluded).
        not_preferred: partitions with leadership whose leader is not the broker (-1 counts).
        ratio: ``len(not_preferred) / len(partitions)``.
        rebalance: ``ratio > leader.imbalance.per.broker.percentage / 100``.
        candidates: the partitions the release's filter lets through (empty unless rebalance).
        elections: how many preferred elections succeeded.
    """

    broker: int
    partitions: int
    not_preferred: tuple[TopicPartition, ...]
    ratio: float
    rebalance: bool
    candidates: tuple[TopicPartition, ...] = ()
    elections: int = 0


@dataclass(frozen=True, slots=True)
class ControllerMetrics:
    """The controller's gauges and meters.

    Attributes:
        unclean_election_meter_count: unclean elections since the engine started.
        offline_partition_count: partitions in OfflinePartition (deleting topics excluded).
        preferred_replica_imbalance_count: partitions not led by their preferred replica.
        active_controller: the active controller's id, ``None`` when there is none.
    """

    unclean_election_meter_count: int
    offline_partition_count: int
    preferred_replica_imbalance_count: int
    active_controller: int | None


@dataclass(frozen=True, slots=True)
class PartitionView:
    """A partition as the cluster shows it (ZooKeeper data plus the controller's state).

    Attributes:
        partition: the partition.
        assignment: replicas with the in-flight reassignment, if any.
        leadership: the leadership znode, ``None`` before the partition is initialised.
        state: the controller's partition state, ``None`` without an active controller.
        reassignment_in_progress: a reassignment is in flight.
    """

    partition: TopicPartition
    assignment: ReplicaAssignment
    leadership: LeaderAndIsr | None
    state: PartitionState | None
    reassignment_in_progress: bool


@dataclass(slots=True)
class OpResult:
    """What one operation did.

    Attributes:
        op: the operation's name.
        elections: leaderships written by elections/initialisation, in order.
        written: partitions whose leadership znode was written (elections, ISR changes, epoch
            bumps, ISR removals).
        errors: per-partition outcome codes (Kafka error names or exception names).
        failures: state-machine failures (invalid transitions, failed state changes).
        error: the operation's own error (e.g. ``StaleBrokerEpochException``).
        partitions_remaining: for a controlled shutdown, partitions the broker still leads.
        imbalance: for an auto-rebalance check, the computation per preferred broker.
        znodes_removed: admin znodes deleted by the operation.
    """

    op: str
    elections: list[ElectionRecord] = field(default_factory=list)
    written: set[TopicPartition] = field(default_factory=set)
    errors: dict[TopicPartition, str] = field(default_factory=dict)
    failures: dict[TopicPartition, TransitionError] = field(default_factory=dict)
    error: str | None = None
    partitions_remaining: tuple[TopicPartition, ...] | None = None
    imbalance: Mapping[int, ImbalanceGroup] | None = None
    znodes_removed: list[str] = field(default_factory=list)
