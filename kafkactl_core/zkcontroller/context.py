"""``ControllerContext``: what the active ZooKeeper controller holds in memory.

Live brokers and their epochs, brokers in controlled shutdown, replicas on offline log dirs,
assignments, cached leadership, partition and replica states, topic-deletion bookkeeping, the
resolved unclean setting, and the unclean-election meter. The state machines and the controller
flows read and change it; ``is_replica_online`` is Kafka's liveness test, by release.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import LeaderAndIsr, PartitionState, ReplicaState, TopicPartition
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.zkcontroller.requests import RequestLog
from kafkactl_core.zkcontroller.results import OpResult

ReplicaKey = tuple[TopicPartition, int]
"""A replica: (partition, broker), Kafka's ``PartitionAndReplica``."""


class ControllerContext:
    """The controller's in-memory state (Kafka's ``ControllerContext``)."""

    __slots__ = (
        "assignments",
        "broker_unclean",
        "epoch",
        "leadership",
        "live_broker_epochs",
        "offline_dirs",
        "partition_states",
        "profile",
        "reassignment_targets",
        "recovery_supported",
        "replica_states",
        "requests",
        "shutting_down",
        "sink",
        "topic_index",
        "topic_unclean",
        "topics_ineligible_for_deletion",
        "topics_to_be_deleted",
        "topics_with_deletion_started",
        "unclean_meter",
    )

    def __init__(self, profile: KafkaVersion) -> None:
        self.profile = profile
        self.epoch = 0
        self.live_broker_epochs: dict[int, int] = {}
        self.shutting_down: set[int] = set()
        self.offline_dirs: dict[int, set[TopicPartition]] = {}
        self.assignments: dict[TopicPartition, ReplicaAssignment] = {}
        self.topic_index: dict[str, dict[int, TopicPartition]] = {}
        self.reassignment_targets: dict[TopicPartition, tuple[int, ...]] = {}
        self.leadership: dict[TopicPartition, LeaderAndIsr] = {}
        self.partition_states: dict[TopicPartition, PartitionState] = {}
        self.replica_states: dict[ReplicaKey, ReplicaState] = {}
        self.topics_to_be_deleted: set[str] = set()
        self.topics_with_deletion_started: set[str] = set()
        self.topics_ineligible_for_deletion: set[str] = set()
        self.topic_unclean: dict[str, bool] = {}
        self.broker_unclean = not profile.unclean_config_checked or profile.unclean_default
        self.recovery_supported = profile.leader_recovery_supported(None)
        self.unclean_meter = 0
        self.requests = RequestLog(enabled=False)
        self.sink: OpResult | None = None

    # --- brokers and liveness -------------------------------------------------------------

    @property
    def live_broker_ids(self) -> set[int]:
        """Registered brokers that are not shutting down (``liveBrokerIds``)."""
        return set(self.live_broker_epochs).difference(self.shutting_down)

    @property
    def live_or_shutting_down_broker_ids(self) -> set[int]:
        """Every registered broker (``liveOrShuttingDownBrokerIds``)."""
        return set(self.live_broker_epochs)

    def is_replica_online(
        self, broker: int, tp: TopicPartition, include_shutting_down: bool = False
    ) -> bool:
        """``ControllerContext.isReplicaOnline``, with the offline-dir term from 1.0."""
        if broker not in self.live_broker_epochs:
            return False
        if not include_shutting_down and broker in self.shutting_down:
            return False
        if self.profile.liveness_includes_offline_dirs and self.offline_dirs:
            dirs = self.offline_dirs.get(broker)
            if dirs is not None and tp in dirs:
                return False
        return True

    # --- topics and assignments -----------------------------------------------------------

    def set_assignment(self, tp: TopicPartition, assignment: ReplicaAssignment) -> None:
        """``updatePartitionFullReplicaAssignment``."""
        self.assignments[tp] = assignment
        self.topic_index.setdefault(tp.topic, {})[tp.partition] = tp

    def assignment(self, tp: TopicPartition) -> ReplicaAssignment:
        """The partition's assignment (empty if unknown)."""
        return self.assignments.get(tp, _EMPTY)

    def partitions_for_topic(self, topic: str) -> list[TopicPartition]:
        """The topic's partitions, by partition number."""
        parts = self.topic_index.get(topic, {})
        return [parts[p] for p in sorted(parts)]

    @property
    def all_topics(self) -> set[str]:
        """Every topic the controller knows."""
        return set(self.topic_index)

    def replicas_on_brokers(self, brokers: Iterable[int]) -> list[ReplicaKey]:
        """Every replica hosted by ``brokers`` (``replicasOnBrokers``)."""
        wanted = set(brokers)
        return [(tp, r) for tp, a in self.assignments.items() for r in a.replicas if r in wanted]

    def replicas_for_partitions(self, partitions: Iterable[TopicPartition]) -> list[ReplicaKey]:
        """Every replica of ``partitions``."""
        return [(tp, r) for tp in partitions for r in self.assignment(tp).replicas]

    def remove_topic(self, topic: str) -> None:
        """``ControllerContext.removeTopic``: forget everything about a topic."""
        for tp in self.partitions_for_topic(topic):
            replicas = self.assignment(tp).replicas
            self.assignments.pop(tp, None)
            self.leadership.pop(tp, None)
            self.partition_states.pop(tp, None)
            self.reassignment_targets.pop(tp, None)
            for r in replicas:
                self.replica_states.pop((tp, r), None)
        for key in [k for k in self.replica_states if k[0].topic == topic]:
            del self.replica_states[key]
        self.topic_index.pop(topic, None)
        self.topics_to_be_deleted.discard(topic)
        self.topics_with_deletion_started.discard(topic)
        self.topics_ineligible_for_deletion.discard(topic)
        self.topic_unclean.pop(topic, None)

    def is_queued_for_deletion(self, topic: str) -> bool:
        """``isTopicQueuedUpForDeletion``."""
        return topic in self.topics_to_be_deleted

    def is_being_reassigned(self, tp: TopicPartition) -> bool:
        """Whether ``tp`` is in ``partitionsBeingReassigned``."""
        return tp in self.reassignment_targets

    def reassignment_target(self, tp: TopicPartition) -> tuple[int, ...]:
        """The target replicas the reassignment election draws from, in order."""
        target = self.reassignment_targets.get(tp)
        return self.assignment(tp).target_replicas if target is None else target

    # --- states ---------------------------------------------------------------------------

    def partition_state(self, tp: TopicPartition) -> PartitionState:
        """The partition's state (NonExistentPartition when unknown)."""
        return self.partition_states.get(tp, PartitionState.NonExistentPartition)

    def replica_state(self, key: ReplicaKey) -> ReplicaState:
        """The replica's state (NonExistentReplica when unknown)."""
        return self.replica_states.get(key, ReplicaState.NonExistentReplica)

    def partitions_in_states(self, states: set[PartitionState]) -> list[TopicPartition]:
        """Partitions in one of ``states``, in a stable order."""
        return sorted(tp for tp, s in self.partition_states.items() if s in states)

    def replicas_for_topic(self, topic: str) -> Iterator[ReplicaKey]:
        """Every replica of a topic."""
        for tp in self.partitions_for_topic(topic):
            for r in self.assignment(tp).replicas:
                yield (tp, r)

    # --- configuration --------------------------------------------------------------------

    def unclean_enabled(self, topic: str) -> bool:
        """The effective unclean setting: topic override, else the controller broker's value."""
        if not self.profile.unclean_config_checked:
            return True
        found = self.topic_unclean.get(topic)
        return self.broker_unclean if found is None else found

    # --- metrics --------------------------------------------------------------------------

    def offline_partition_count(self) -> int:
        """``OfflinePartitionsCount``: OfflinePartition, topics whose deletion started excluded."""
        started = self.topics_with_deletion_started
        return sum(
            1
            for tp, s in self.partition_states.items()
            if s is PartitionState.OfflinePartition and tp.topic not in started
        )

    def preferred_replica_imbalance_count(self) -> int:
        """``PreferredReplicaImbalanceCount`` (``hasPreferredLeader``), deleting topics excluded."""
        count = 0
        for tp, leader_and_isr in self.leadership.items():
            if tp.topic in self.topics_to_be_deleted:
                continue
            assignment = self.assignments.get(tp)
            if assignment is None or not assignment.replicas:
                continue
            if not has_preferred_leader(assignment, leader_and_isr):
                count += 1
        return count


def has_preferred_leader(assignment: ReplicaAssignment, leader_and_isr: LeaderAndIsr) -> bool:
    """``ControllerContext.hasPreferredLeader``.

    A partition being reassigned whose preferred replica is an adding replica counts as
    balanced until that replica is in the ISR.
    """
    preferred = assignment.replicas[0]
    if assignment.is_being_reassigned and preferred in assignment.adding:
        return preferred not in leader_and_isr.isr
    return leader_and_isr.leader == preferred


_EMPTY = ReplicaAssignment(())
