"""The controller-to-broker requests a step produced (LeaderAndIsr, StopReplica, UpdateMetadata).

Recording them is optional (``RequestLog(enabled=False)`` keeps nothing): the oracle asserts
recipients, the replay fold does not need them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkactl_core.model import LeaderAndIsr, TopicPartition


@dataclass(frozen=True, slots=True)
class LeaderAndIsrRequest:
    """One partition's entry of a LeaderAndIsr request to some brokers."""

    brokers: tuple[int, ...]
    partition: TopicPartition
    leader_and_isr: LeaderAndIsr
    is_new: bool


@dataclass(frozen=True, slots=True)
class StopReplicaRequest:
    """One partition's entry of a StopReplica request."""

    brokers: tuple[int, ...]
    partition: TopicPartition
    delete: bool


@dataclass(frozen=True, slots=True)
class UpdateMetadataRequest:
    """An UpdateMetadata request (partitions may be empty: brokers-only update)."""

    brokers: tuple[int, ...]
    partitions: tuple[TopicPartition, ...]


@dataclass(slots=True)
class RequestLog:
    """Requests in the order the controller queued them."""

    enabled: bool = True
    leader_and_isr: list[LeaderAndIsrRequest] = field(default_factory=list)
    stop_replica: list[StopReplicaRequest] = field(default_factory=list)
    update_metadata: list[UpdateMetadataRequest] = field(default_factory=list)

    def add_leader_and_isr(
        self,
        brokers: tuple[int, ...],
        partition: TopicPartition,
        leader_and_isr: LeaderAndIsr,
        is_new: bool,
    ) -> None:
        """Queue a LeaderAndIsr entry."""
        if self.enabled:
            self.leader_and_isr.append(
                LeaderAndIsrRequest(brokers, partition, leader_and_isr, is_new)
            )

    def add_stop_replica(
        self, brokers: tuple[int, ...], partition: TopicPartition, delete: bool
    ) -> None:
        """Queue a StopReplica entry."""
        if self.enabled:
            self.stop_replica.append(StopReplicaRequest(brokers, partition, delete))

    def add_update_metadata(
        self, brokers: tuple[int, ...], partitions: tuple[TopicPartition, ...] = ()
    ) -> None:
        """Queue an UpdateMetadata request."""
        if self.enabled:
            self.update_metadata.append(UpdateMetadataRequest(brokers, partitions))

    def clear(self) -> None:
        """Forget every queued request."""
        self.leader_and_isr.clear()
        self.stop_replica.clear()
        self.update_metadata.clear()
