"""Partition changes in the KRaft controller: AlterPartition, elections, reassignment.

AlterPartition is validated like Kafka's (epochs, sender is leader, ISR within the replicas and
holding the leader, eligible members, leader recovery) before the builder runs. ElectLeaders
answers per partition (ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
ELIGIBLE_LEADERS_NOT_AVAILABLE); the periodic tasks balance preferred leaders and (3.9+) elect
unclean leaders for leaderless partitions of topics that allow it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kafkactl_core.kraft.builder import (
    Election,
)
from kafkactl_core.kraft.controller import ControllerBase, OpResult, PendingOp
from kafkactl_core.kraft.errors import NO_ERROR, ApiError, Errors
from kafkactl_core.kraft.reassignment import ReassignmentReplicas, ReassignmentRevert
from kafkactl_core.kraft.records import (
    NO_LEADER_CHANGE,
)
from kafkactl_core.kraft.registration import PartitionRegistration
from kafkactl_core.model import LeaderRecoveryState, TopicPartition
from kafkactl_core.versions import KafkaRelease


@dataclass(frozen=True, slots=True)
class AlterPartitionRequest:
    """One partition of an AlterPartition request.

    Attributes:
        new_isr: the ISR the leader asks for.
        leader_epoch: the leader's view of the leader epoch (None: the current one).
        partition_epoch: the leader's view of the partition epoch (None: the current one).
        leader_recovery_state: RECOVERED once a RECOVERING leader has recovered.
        broker_epochs: ISR members' broker epochs (v3+); missing or -1 skips the check.
    """

    new_isr: tuple[int, ...]
    leader_epoch: int | None = None
    partition_epoch: int | None = None
    leader_recovery_state: LeaderRecoveryState = LeaderRecoveryState.RECOVERED
    broker_epochs: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AlterPartitionResult:
    """One partition of the AlterPartition response (the state after the change on NONE)."""

    error: Errors
    leader: int | None = None
    leader_epoch: int | None = None
    isr: tuple[int, ...] | None = None
    partition_epoch: int | None = None
    leader_recovery_state: LeaderRecoveryState | None = None

    def to_json_dict(self) -> dict[str, object]:
        """``{"error": NAME, ...}`` with the state fields when present."""
        data: dict[str, object] = {"error": self.error.name}
        if self.leader is not None:
            data["leader"] = self.leader
        if self.leader_epoch is not None:
            data["leader_epoch"] = self.leader_epoch
        if self.isr is not None:
            data["isr"] = list(self.isr)
        if self.partition_epoch is not None:
            data["partition_epoch"] = self.partition_epoch
        if self.leader_recovery_state is not None:
            data["leader_recovery_state"] = self.leader_recovery_state.name
        return data


class PartitionChanges(ControllerBase):
    """AlterPartition, ElectLeaders, the periodic election tasks, partition reassignment."""

    # -- AlterPartition ------------------------------------------------------------------------

    def _validate_alter_partition(
        self,
        broker_id: int,
        partition: PartitionRegistration | None,
        request: AlterPartitionRequest,
        version: int,
    ) -> Errors:
        if partition is None:
            return Errors.UNKNOWN_TOPIC_OR_PARTITION
        leader_epoch = (
            partition.leader_epoch if request.leader_epoch is None else request.leader_epoch
        )
        partition_epoch = (
            partition.partition_epoch
            if request.partition_epoch is None
            else request.partition_epoch
        )
        if leader_epoch > partition.leader_epoch or partition_epoch > partition.partition_epoch:
            return Errors.NOT_CONTROLLER
        if leader_epoch < partition.leader_epoch:
            return Errors.FENCED_LEADER_EPOCH
        if broker_id != partition.leader:
            return Errors.INVALID_REQUEST
        if partition_epoch < partition.partition_epoch:
            return Errors.INVALID_UPDATE_VERSION
        new_isr = request.new_isr
        if new_isr and (
            len(set(new_isr)) != len(new_isr)
            or min(new_isr) < 0
            or not set(new_isr) <= set(partition.replicas)
        ):
            return Errors.INVALID_REQUEST
        if partition.leader not in new_isr:
            return Errors.INVALID_REQUEST
        recovering = request.leader_recovery_state is LeaderRecoveryState.RECOVERING
        if recovering and len(new_isr) > 1:
            return Errors.INVALID_REQUEST
        if partition.leader_recovery_state is LeaderRecoveryState.RECOVERED and recovering:
            return Errors.INVALID_REQUEST
        for member in new_isr:
            registration = self.broker(member)
            epoch = request.broker_epochs.get(member, -1)
            if (
                registration is None
                or registration.in_controlled_shutdown
                or registration.fenced
                or (epoch != -1 and registration.epoch != epoch)
            ):
                return Errors.INELIGIBLE_REPLICA if version > 1 else Errors.OPERATION_NOT_ATTEMPTED
        return Errors.NONE

    def alter_partition(
        self,
        broker_id: int,
        partitions: Mapping[TopicPartition, AlterPartitionRequest],
        *,
        broker_epoch: int | None = None,
        version: int = 3,
    ) -> OpResult[dict[TopicPartition, AlterPartitionResult]]:
        """AlterPartition from a partition leader (ISR change, leader recovery completion).

        Args:
            broker_id: the sending leader.
            partitions: the requested changes.
            broker_epoch: the sender's broker epoch (None: the registered one).
            version: the request version (decides some error codes).

        Returns:
            Per partition: NONE with the new state, or the error. A stale broker epoch fails
            every partition with STALE_BROKER_EPOCH.
        """
        response: dict[TopicPartition, AlterPartitionResult] = {}
        stale = self._check_broker_epoch(broker_id, broker_epoch)
        if stale is not None:
            return OpResult((), {tp: AlterPartitionResult(stale.error) for tp in partitions})
        op = PendingOp()
        for tp, request in partitions.items():
            topic = self.topic(tp.topic)
            if topic is None:
                unknown = (
                    Errors.UNKNOWN_TOPIC_ID if version > 1 else Errors.UNKNOWN_TOPIC_OR_PARTITION
                )
                response[tp] = AlterPartitionResult(unknown)
                continue
            partition = topic.partitions.get(tp.partition)
            error = self._validate_alter_partition(broker_id, partition, request, version)
            if error is not Errors.NONE or partition is None:
                response[tp] = AlterPartitionResult(error)
                continue
            builder = self._builder(topic, tp.partition, partition, self.is_active)
            if self.unclean_leader_election_enabled(topic.name):
                builder.set_election(Election.UNCLEAN)
            builder.set_target_isr(request.new_isr)
            builder.set_target_leader_recovery_state(request.leader_recovery_state)
            built = builder.build()
            if self._emit(op, topic, tp.partition, built) and built.record is not None:
                partition = partition.merge(built.record)
                leader = built.record.leader
                if leader not in (broker_id, NO_LEADER_CHANGE):
                    # Completing a reassignment moved the leadership away from the sender.
                    response[tp] = AlterPartitionResult(
                        Errors.NEW_LEADER_ELECTED if version > 1 else Errors.FENCED_LEADER_EPOCH
                    )
                    continue
            response[tp] = AlterPartitionResult(
                Errors.NONE,
                partition.leader,
                partition.leader_epoch,
                partition.isr,
                partition.partition_epoch,
                partition.leader_recovery_state,
            )
        return self._commit(op, response)

    # -- elections -----------------------------------------------------------------------------

    def _elect_leader(
        self, op: PendingOp, topic_name: str, partition_id: int, election: Election
    ) -> ApiError:
        topic = self.topic(topic_name)
        if topic is None:
            return ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"No such topic as {topic_name}")
        partition = topic.partitions.get(partition_id)
        if partition is None:
            return ApiError(
                Errors.UNKNOWN_TOPIC_OR_PARTITION,
                f"No such partition as {topic_name}-{partition_id}",
            )
        if (election is Election.PREFERRED and partition.has_preferred_leader) or (
            election is Election.UNCLEAN and partition.has_leader
        ):
            return ApiError(Errors.ELECTION_NOT_NEEDED)
        builder = self._builder(topic, partition_id, partition, self.is_active)
        builder.set_election(election)
        if not self._emit(op, topic, partition_id, builder.build()):
            if election is Election.PREFERRED:
                return ApiError(Errors.PREFERRED_LEADER_NOT_AVAILABLE)
            return ApiError(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE)
        return NO_ERROR

    def elect_leaders(
        self, election: Election, partitions: Sequence[TopicPartition] | None
    ) -> OpResult[dict[TopicPartition, ApiError]]:
        """Admin ElectLeaders (PREFERRED or UNCLEAN).

        Args:
            election: PREFERRED or UNCLEAN.
            partitions: the partitions, or None for all (then ELECTION_NOT_NEEDED results are
                left out of the response, as Kafka does).

        Returns:
            The error per partition (NONE when a leader was elected).
        """
        if election is Election.ONLINE:
            invalid = ApiError(Errors.INVALID_REQUEST, "Unknown election type ONLINE")
            return OpResult((), {tp: invalid for tp in partitions or ()})
        op = PendingOp()
        response: dict[TopicPartition, ApiError] = {}
        if partitions is None:
            for name in self.topic_names():
                topic = self.topic(name)
                for number in sorted(topic.partitions) if topic is not None else ():
                    error = self._elect_leader(op, name, number, election)
                    if error.error is not Errors.ELECTION_NOT_NEEDED:
                        response[TopicPartition(name, number)] = error
        else:
            for tp in partitions:
                response[tp] = self._elect_leader(op, tp.topic, tp.partition, election)
        return self._commit(op, response)

    def balance_partition_leaders(self) -> OpResult[bool]:
        """``maybeBalancePartitionLeaders``: PREFERRED elections for imbalanced partitions.

        Returns:
            Whether the run stopped at the record cap (reschedule immediately).
        """
        op = PendingOp()
        reschedule = False
        for key in list(self._imbalanced):
            if len(op.records) >= self.settings.max_elections_per_imbalance:
                reschedule = True
                break
            topic = self.topic_by_id(key[0])
            partition = None if topic is None else topic.partitions.get(key[1])
            if topic is None or partition is None:
                continue
            builder = self._builder(topic, key[1], partition, self.is_active)
            builder.set_election(Election.PREFERRED)
            self._emit(op, topic, key[1], builder.build())
        return self._commit(op, reschedule)

    def elect_unclean_leaders(self) -> OpResult[bool]:
        """``maybeElectUncleanLeaders`` (3.9+): UNCLEAN elections for leaderless partitions.

        Only topics with unclean leader election enabled; a release before 3.9 has no such
        task and writes nothing.

        Returns:
            Whether the run stopped at the record cap (reschedule soon).
        """
        op = PendingOp()
        if self.release < KafkaRelease(3, 9):
            return self._commit(op, False)
        for topic_id, partition_id in self._isrs.partitions_with_no_leader():
            if len(op.records) >= self.settings.max_elections_per_imbalance:
                return self._commit(op, True)
            topic = self.topic_by_id(topic_id)
            if topic is None or not self.unclean_leader_election_enabled(topic.name):
                continue
            self._elect_leader(op, topic.name, partition_id, Election.UNCLEAN)
        return self._commit(op, False)

    # -- reassignment --------------------------------------------------------------------------

    def reassign_partition(
        self, tp: TopicPartition, target: Sequence[int] | None
    ) -> OpResult[ApiError]:
        """AlterPartitionReassignments for one partition; ``target`` None cancels.

        Returns:
            NONE or the error.
        """
        topic = self.topic(tp.topic)
        partition = None if topic is None else topic.partitions.get(tp.partition)
        if topic is None or partition is None:
            return OpResult(
                (),
                ApiError(
                    Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    f"Unable to find partition {tp.topic}:{tp.partition}.",
                ),
            )
        builder = self._builder(topic, tp.partition, partition, self.is_active)
        if target is None:
            if not partition.is_reassignment_in_progress:
                return OpResult((), ApiError(Errors.NO_REASSIGNMENT_IN_PROGRESS))
            revert = ReassignmentRevert.of(partition)
            unclean = self.unclean_leader_election_enabled(topic.name)
            if revert.unclean and not unclean:
                return OpResult(
                    (),
                    ApiError(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        f"Unable to revert partition assignment for {tp.topic}:{tp.partition} "
                        "because it would require an unclean leader election.",
                    ),
                )
            if unclean:
                builder.set_election(Election.UNCLEAN)
            builder.set_target_isr(revert.isr).set_target_replicas(revert.replicas)
            builder.set_target_removing(()).set_target_adding(())
        else:
            error = self._validate_manual_assignment(target, None)
            if error is not None:
                return OpResult((), error)
            layout = ReassignmentReplicas.between(partition.replicas, target)
            if layout.replicas != partition.replicas:
                builder.set_target_replicas(layout.replicas)
            if layout.removing:
                builder.set_target_removing(layout.removing)
            if layout.adding:
                builder.set_target_adding(layout.adding)
        op = PendingOp()
        self._emit(op, topic, tp.partition, builder.build())
        return self._commit(op, NO_ERROR)
