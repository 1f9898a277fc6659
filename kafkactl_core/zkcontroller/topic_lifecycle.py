"""Topic creation, partition expansion and deletion (``TopicDeletionManager``) of ``ZkController``.

Deletion completes at once when every replica is on a live broker: the live brokers answer
StopReplica immediately; a topic with a replica on a dead broker stays queued, ineligible, until
the broker comes back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import ElectionStrategy, PartitionState, ReplicaState, TopicPartition
from kafkactl_core.zkcontroller.cluster import UNCLEAN_KEY, parse_bool_config
from kafkactl_core.zkcontroller.controller_state import ControllerState
from kafkactl_core.zkcontroller.results import OpResult

_P = PartitionState
_R = ReplicaState


class TopicLifecycle(ControllerState):
    """The topic operations: create, add partitions, delete."""

    def create_topic(
        self,
        topic: str,
        assignment: Mapping[int, Sequence[int]],
        config: Mapping[str, object] | None = None,
    ) -> OpResult:
        """Create a topic with an explicit assignment (config validated first).

        Args:
            topic: the topic name.
            assignment: replicas per partition number.
            config: topic-level overrides.

        Returns:
            The result; ``error`` is ``ConfigException``, ``TopicExistsException`` or
            ``InvalidReplicaAssignmentException`` when the topic is not created.
        """
        result = self._begin("create_topic")
        conf = dict(config or {})
        if UNCLEAN_KEY in conf and parse_bool_config(conf[UNCLEAN_KEY]) is None:
            result.error = "ConfigException"
            return self._end(result)
        if any(tp.topic == topic for tp in self.zk_assignments) or topic in self.zk_deleting_topics:
            result.error = "TopicExistsException"
            return self._end(result)
        if not _valid_assignment(assignment, same_size=True):
            result.error = "InvalidReplicaAssignmentException"
            return self._end(result)
        self.zk_topic_configs[topic] = conf
        if UNCLEAN_KEY in conf and self.has_controller:
            self.ctx.topic_unclean[topic] = bool(parse_bool_config(conf[UNCLEAN_KEY]))
        new = self._write_partitions(topic, assignment)
        if self.has_controller:
            self._on_new_partition_creation(new)
        return self._end(result)

    def add_partitions(self, topic: str, assignment: Mapping[int, Sequence[int]]) -> OpResult:
        """Add partitions to an existing topic.

        Args:
            topic: the topic.
            assignment: replicas per *new* partition number.

        Returns:
            The result; ``error`` when the topic is unknown, being deleted or the partitions
            exist.
        """
        result = self._begin("add_partitions")
        existing = {tp.partition for tp in self.zk_assignments if tp.topic == topic}
        if not existing:
            result.error = "UnknownTopicOrPartitionException"
        elif topic in self.zk_deleting_topics:
            result.error = "InvalidTopicException"
        elif existing & set(assignment) or not _valid_assignment(assignment, same_size=False):
            result.error = "InvalidPartitionsException"
        else:
            new = self._write_partitions(topic, assignment)
            if self.has_controller:
                self._on_new_partition_creation(new)
        return self._end(result)

    def _write_partitions(
        self, topic: str, assignment: Mapping[int, Sequence[int]]
    ) -> list[TopicPartition]:
        new = []
        for pid in sorted(assignment):
            tp = TopicPartition(topic, pid)
            self.ctx.set_assignment(tp, ReplicaAssignment(tuple(assignment[pid])))
            new.append(tp)
        return new

    def _on_new_partition_creation(self, partitions: list[TopicPartition]) -> None:
        """``onNewPartitionCreation``."""
        self._psm(partitions, _P.NewPartition)
        replicas = self.ctx.replicas_for_partitions(partitions)
        self._rsm(replicas, _R.NewReplica)
        self._psm(partitions, _P.OnlinePartition, ElectionStrategy.offline)
        self._rsm(replicas, _R.OnlineReplica)

    def delete_topic(self, topic: str) -> OpResult:
        """Request deletion of a topic (``/admin/delete_topics``).

        Deletion completes at once when every replica is on a live broker and no reassignment
        of the topic is in flight; otherwise the topic stays queued until that changes.

        Args:
            topic: the topic.

        Returns:
            The result (``UnknownTopicOrPartitionException`` for an unknown topic).
        """
        result = self._begin("delete_topic")
        if not any(tp.topic == topic for tp in self.zk_assignments):
            result.error = "UnknownTopicOrPartitionException"
            return self._end(result)
        self.zk_deleting_topics.add(topic)
        if self.has_controller:
            self._enqueue_topics_for_deletion({topic})
        return self._end(result)

    def _enqueue_topics_for_deletion(self, topics: set[str]) -> None:
        ctx = self.ctx
        ctx.topics_to_be_deleted |= topics & ctx.all_topics
        self._resume_deletions()

    def _resume_deletions(self) -> None:
        """``TopicDeletionManager.resumeDeletions``, with brokers answering StopReplica at once."""
        ctx = self.ctx
        for _ in range(3):
            progressed = False
            for topic in sorted(ctx.topics_to_be_deleted):
                replicas = list(ctx.replicas_for_topic(topic))
                states = [ctx.replica_state(k) for k in replicas]
                if states and all(s is _R.ReplicaDeletionSuccessful for s in states):
                    self._complete_delete_topic(topic)
                    progressed = True
                    continue
                if not any(s is _R.ReplicaDeletionStarted for s in states) and any(
                    s is _R.ReplicaDeletionIneligible for s in states
                ):
                    ineligible = [
                        k for k in replicas if ctx.replica_state(k) is _R.ReplicaDeletionIneligible
                    ]
                    ctx.topics_ineligible_for_deletion.discard(topic)
                    self._rsm(ineligible, _R.OfflineReplica)
                if (
                    topic in ctx.topics_to_be_deleted
                    and not any(ctx.replica_state(k) is _R.ReplicaDeletionStarted for k in replicas)
                    and topic not in ctx.topics_ineligible_for_deletion
                ):
                    self._on_topic_deletion(topic)
                    progressed = True
            if not progressed:
                break

    def _on_topic_deletion(self, topic: str) -> None:
        ctx = self.ctx
        if topic not in ctx.topics_with_deletion_started:
            partitions = ctx.partitions_for_topic(topic)
            self._psm(partitions, _P.OfflinePartition)
            self._psm(partitions, _P.NonExistentPartition)
            ctx.topics_with_deletion_started.add(topic)
        replicas = list(ctx.replicas_for_topic(topic))
        dead = [k for k in replicas if not ctx.is_replica_online(k[1], k[0])]
        alive = [
            k
            for k in replicas
            if ctx.is_replica_online(k[1], k[0])
            and ctx.replica_state(k) is not _R.ReplicaDeletionSuccessful
        ]
        self._rsm(dead, _R.ReplicaDeletionIneligible)
        self._rsm(alive, _R.OfflineReplica)
        self._rsm(alive, _R.ReplicaDeletionStarted)
        if dead:
            ctx.topics_ineligible_for_deletion.add(topic)
        # The live brokers delete their replicas and answer the StopReplica at once.
        started = [k for k in alive if ctx.replica_state(k) is _R.ReplicaDeletionStarted]
        self._rsm(started, _R.ReplicaDeletionSuccessful)

    def _complete_delete_topic(self, topic: str) -> None:
        ctx = self.ctx
        replicas = [
            k
            for k in ctx.replicas_for_topic(topic)
            if ctx.replica_state(k) is _R.ReplicaDeletionSuccessful
        ]
        self._rsm(replicas, _R.NonExistentReplica)
        for tp in ctx.partitions_for_topic(topic):
            self.store.delete(tp)
            self.zk_reassignments.pop(tp, None)
        ctx.remove_topic(topic)
        self.zk_topic_configs.pop(topic, None)
        self.zk_deleting_topics.discard(topic)


def _valid_assignment(assignment: Mapping[int, Sequence[int]], same_size: bool) -> bool:
    if not assignment:
        return False
    sizes = {len(r) for r in assignment.values()}
    if 0 in sizes or (same_size and len(sizes) != 1):
        return False
    return all(len(set(r)) == len(r) and all(b >= 0 for b in r) for r in assignment.values())
