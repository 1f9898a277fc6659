"""Leader-driven ISR changes and partition reassignments of ``ZkController``.

They live together because each completes the other: an ISR that catches up with a
reassignment's target completes it, and completing a reassignment writes a new leader epoch.
Both layouts are here: KIP-455's ``ReplicaAssignment`` (2.4+) and the RAR/OAR one before.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.assignment import ReplicaAssignment, scala_set_order
from kafkactl_core.model import (
    NO_LEADER,
    ElectionStrategy,
    LeaderAndIsr,
    LeaderRecoveryState,
    PartitionState,
    ReplicaState,
    TopicPartition,
)
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.zkcontroller.results import OpResult
from kafkactl_core.zkcontroller.topic_lifecycle import TopicLifecycle
from kafkactl_core.zkcontroller.zkstore import ZkFailure

_P = PartitionState
_R = ReplicaState

REASSIGN_ZNODE = "/admin/reassign_partitions"


def _alter_partition_default_version(profile: KafkaVersion) -> int:
    if profile.release.at_least("3.5"):
        return 3
    if profile.release.at_least("3.3"):
        return 2
    if profile.release.at_least("3.2"):
        return 1
    return 0


class IsrAndReassignments(TopicLifecycle):
    """ISR updates (AlterPartition or direct ZooKeeper writes) and reassignments."""

    def isr_change(
        self,
        tp: TopicPartition,
        isr: Sequence[int],
        leader: int | None = None,
        request_version: int | None = None,
        leader_recovery_state: LeaderRecoveryState | None = None,
    ) -> OpResult:
        """A leader-driven ISR update (AlterPartition from 2.7; a direct ZK write before).

        Args:
            tp: the partition.
            isr: the ISR the leader proposes.
            leader: the sender; ``None`` = the current leader (epochs are the current ones).
            request_version: the AlterPartition version; ``None`` = the release's newest.
            leader_recovery_state: the state the leader sends; ``None`` = RECOVERED when the
                ISR grows beyond the leader (recovery done), else the current one.

        Returns:
            The result; ``errors[tp]`` holds the AlterPartition error when rejected.
        """
        result = self._begin("isr_change")
        error = self._leader_isr_update(
            tp, tuple(isr), leader, request_version, leader_recovery_state
        )
        if error is not None:
            result.errors[tp] = error
        return self._end(result)

    def _leader_isr_update(
        self,
        tp: TopicPartition,
        isr: tuple[int, ...],
        sender: int | None,
        request_version: int | None,
        recovery: LeaderRecoveryState | None,
    ) -> str | None:
        current = self.store.data.get(tp)
        if current is None or tp not in self.zk_assignments:
            return "UNKNOWN_TOPIC_OR_PARTITION"
        sender = current.leader if sender is None else sender
        if recovery is None:
            recovery = (
                LeaderRecoveryState.RECOVERED if len(isr) > 1 else current.leader_recovery_state
            )
        proposed = LeaderAndIsr(
            sender, current.leader_epoch, isr, current.partition_epoch, recovery
        )
        if self.profile.alter_partition:
            if not self.has_controller:
                return "NOT_CONTROLLER"
            ctx = self.ctx
            if sender not in ctx.live_broker_epochs:
                return "STALE_BROKER_EPOCH"
            if sender != current.leader:
                return "FENCED_LEADER_EPOCH"
            if proposed == current:
                return None
            if recovery is LeaderRecoveryState.RECOVERING and len(isr) > 1:
                return "INVALID_REQUEST"
            if (
                current.leader_recovery_state is LeaderRecoveryState.RECOVERED
                and recovery is LeaderRecoveryState.RECOVERING
            ):
                return "INVALID_REQUEST"
            if set(isr) - ctx.live_broker_ids:
                version = (
                    _alter_partition_default_version(self.profile)
                    if request_version is None
                    else request_version
                )
                return "INELIGIBLE_REPLICA" if version > 1 else "OPERATION_NOT_ATTEMPTED"
        elif sender != current.leader or sender == NO_LEADER:
            return "FENCED_LEADER_EPOCH"
        stored = self.store.update(tp, proposed)
        if isinstance(stored, ZkFailure):
            return stored.value
        if self.ctx.sink is not None:
            self.ctx.sink.written.add(tp)
        if self.has_controller:
            self.ctx.leadership[tp] = stored
            if self.ctx.is_being_reassigned(tp):
                self._maybe_complete_reassignment(tp)
        return None

    # ------------------------------------------------------------------ reassignment

    def reassign(self, tp: TopicPartition, target: Sequence[int], via: str = "zk") -> OpResult:
        """Submit a reassignment (``/admin/reassign_partitions`` or the Admin API, 2.4+).

        Args:
            tp: the partition.
            target: the target replicas, in order.
            via: ``zk`` or ``admin``.

        Returns:
            The result; ``errors[tp]`` when the request is refused.
        """
        result = self._begin("reassign")
        tgt = tuple(target)
        if via == "admin" and not self.profile_kip455:
            result.error = "UnsupportedVersionException"
            return self._end(result)
        if tp not in self.zk_assignments or tp.topic in self.zk_deleting_topics:
            result.errors[tp] = "UNKNOWN_TOPIC_OR_PARTITION"
            return self._end(result)
        if not tgt or len(set(tgt)) != len(tgt) or any(r < 0 for r in tgt):
            result.errors[tp] = "INVALID_REPLICA_ASSIGNMENT"
            return self._end(result)
        if via == "admin":
            if not self.has_controller:
                result.error = "NOT_CONTROLLER"
                return self._end(result)
            adding = self.ctx.assignment(tp).reassign_to(tgt).adding
            if not set(adding) <= self.ctx.live_broker_ids:
                result.errors[tp] = "INVALID_REPLICA_ASSIGNMENT"
                return self._end(result)
        else:
            self.zk_reassignments[tp] = tgt
        if self.has_controller:
            self._start_reassignment(tp, tgt, result)
        return self._end(result)

    def _start_reassignment(
        self, tp: TopicPartition, target: tuple[int, ...], result: OpResult
    ) -> None:
        ctx = self.ctx
        if self.profile_kip455:
            self._on_partition_reassignment(tp, ctx.assignment(tp).reassign_to(target))
            return
        if ctx.assignment(tp).replicas == target:
            result.errors[tp] = "KafkaException"
            self._remove_from_reassigning(tp)
            return
        ctx.reassignment_targets[tp] = target
        self._on_partition_reassignment_legacy(tp)

    def reassign_complete(self, tp: TopicPartition) -> OpResult:
        """The live target replicas catch up: the leader adds them to the ISR.

        The controller then completes the reassignment if every target replica is in the ISR.

        Args:
            tp: the partition being reassigned.

        Returns:
            The result.
        """
        result = self._begin("reassign_complete")
        ctx = self.ctx
        if not self.has_controller or not ctx.is_being_reassigned(tp):
            result.errors[tp] = "NO_REASSIGNMENT_IN_PROGRESS"
            return self._end(result)
        leader_and_isr = self.store.data.get(tp)
        if leader_and_isr is not None and leader_and_isr.leader != NO_LEADER:
            joining = [
                r
                for r in ctx.reassignment_target(tp)
                if r not in leader_and_isr.isr
                and r in ctx.live_broker_ids
                and ctx.is_replica_online(r, tp)
            ]
            if joining:
                error = self._leader_isr_update(
                    tp, (*leader_and_isr.isr, *joining), None, None, None
                )
                if error is not None:
                    result.errors[tp] = error
                return self._end(result)
        self._maybe_complete_reassignment(tp)
        return self._end(result)

    def _maybe_complete_reassignment(self, tp: TopicPartition) -> None:
        if self._reassignment_complete(tp):
            self._resume_reassignment(tp)

    def _resume_reassignment(self, tp: TopicPartition) -> None:
        if self.profile_kip455:
            self._on_partition_reassignment(tp, self.ctx.assignment(tp))
        else:
            self._on_partition_reassignment_legacy(tp)

    def _reassignment_complete(self, tp: TopicPartition) -> bool:
        ctx = self.ctx
        if self.profile_kip455 and not ctx.assignment(tp).is_being_reassigned:
            return True
        leader_and_isr = self.store.data.get(tp)
        return leader_and_isr is not None and set(ctx.reassignment_target(tp)) <= set(
            leader_and_isr.isr
        )

    def _update_leader_epoch(self, tp: TopicPartition) -> None:
        """``updateLeaderEpochAndSendRequest``: same leader and ISR, leaderEpoch + 1."""
        current = self.store.data.get(tp)
        if current is None:
            return
        stored = self.store.update(tp, current.new_epoch())
        if isinstance(stored, LeaderAndIsr):
            self.ctx.leadership[tp] = stored
            if self.ctx.sink is not None:
                self.ctx.sink.written.add(tp)

    def _on_partition_reassignment(
        self, tp: TopicPartition, reassignment: ReplicaAssignment
    ) -> None:
        """``onPartitionReassignment`` (2.4+, KIP-455)."""
        ctx = self.ctx
        if ctx.is_queued_for_deletion(tp.topic):
            ctx.topics_ineligible_for_deletion.add(tp.topic)
        current = ctx.assignment(tp)
        if current != reassignment:
            ctx.set_assignment(tp, reassignment)
            unneeded = [r for r in current.replicas if r not in reassignment.replicas]
            if unneeded:
                self._stop_removed_replicas(tp, unneeded)
        ctx.reassignment_targets[tp] = reassignment.target_replicas
        if not self._reassignment_complete(tp):
            self._update_leader_epoch(tp)
            self._rsm([(tp, r) for r in reassignment.adding], _R.NewReplica)
            return
        self._rsm([(tp, r) for r in reassignment.adding], _R.OnlineReplica)
        completed = reassignment.completed()
        ctx.set_assignment(tp, completed)
        ctx.reassignment_targets[tp] = completed.replicas
        self._move_leader_if_required(tp, completed.replicas)
        self._stop_removed_replicas(tp, list(reassignment.removing))
        self._remove_from_reassigning(tp)
        self._resume_deletion_for(tp.topic)

    def _on_partition_reassignment_legacy(self, tp: TopicPartition) -> None:
        """``onPartitionReassignment`` up to 2.3 (RAR/OAR, Scala Set layout)."""
        ctx = self.ctx
        rar = ctx.reassignment_targets[tp]
        if ctx.is_queued_for_deletion(tp.topic):
            ctx.topics_ineligible_for_deletion.add(tp.topic)
        current = ctx.assignment(tp).replicas
        if not self._reassignment_complete(tp):
            new_replicas = [r for r in rar if r not in current]
            full = scala_set_order((*rar, *current))
            ctx.set_assignment(tp, ReplicaAssignment(full))
            self._update_leader_epoch(tp)
            self._rsm([(tp, r) for r in new_replicas], _R.NewReplica)
            return
        old = [r for r in current if r not in rar]
        self._rsm([(tp, r) for r in rar], _R.OnlineReplica)
        ctx.set_assignment(tp, ReplicaAssignment(rar))
        self._move_leader_if_required(tp, rar)
        self._stop_removed_replicas(tp, old)
        ctx.set_assignment(tp, ReplicaAssignment(rar))
        self._remove_from_reassigning(tp)
        self._resume_deletion_for(tp.topic)

    def _move_leader_if_required(self, tp: TopicPartition, replicas: tuple[int, ...]) -> None:
        """``moveReassignedPartitionLeaderIfRequired``."""
        leader_and_isr = self.ctx.leadership.get(tp)
        leader = NO_LEADER if leader_and_isr is None else leader_and_isr.leader
        if leader in replicas and self.ctx.is_replica_online(leader, tp):
            self._update_leader_epoch(tp)
        else:
            self._psm([tp], _P.OnlinePartition, ElectionStrategy.reassign)

    def _stop_removed_replicas(self, tp: TopicPartition, removed: list[int]) -> None:
        keys = [(tp, r) for r in removed]
        self._rsm(keys, _R.OfflineReplica)
        self._rsm(keys, _R.ReplicaDeletionStarted)
        self._rsm(keys, _R.ReplicaDeletionSuccessful)
        self._rsm(keys, _R.NonExistentReplica)

    def _remove_from_reassigning(self, tp: TopicPartition) -> None:
        self.ctx.reassignment_targets.pop(tp, None)
        if self.zk_reassignments.pop(tp, None) is not None and not self.zk_reassignments:
            sink = self.ctx.sink
            if sink is not None:
                sink.znodes_removed.append(REASSIGN_ZNODE)

    def _resume_deletion_for(self, topic: str) -> None:
        if self.ctx.is_queued_for_deletion(topic):
            self.ctx.topics_ineligible_for_deletion.discard(topic)
            self._resume_deletions()
