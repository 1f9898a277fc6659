"""The partition state machine (``ZkPartitionStateMachine``): transitions and elections.

``handle_partition_state_changes`` follows ``doHandleStateChanges``: unknown partitions start in
NonExistentPartition, invalid transitions are reported and skipped, NewPartition -> Online
initialises leadership from the live replicas, Online/Offline -> Online re-reads the leadership
from the store and elects with the given strategy. Every failure is a ``TransitionError`` value
and leaves the partition's state unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.model import (
    ElectionStrategy,
    ElectionTrigger,
    LeaderAndIsr,
    PartitionState,
    TopicPartition,
)
from kafkactl_core.zkcontroller.context import ControllerContext
from kafkactl_core.zkcontroller.election import (
    ElectionOutcome,
    elect_controlled_shutdown,
    elect_offline,
    elect_preferred,
    elect_reassign,
)
from kafkactl_core.zkcontroller.results import ElectionRecord, OpResult, RequestSource
from kafkactl_core.zkcontroller.states import (
    TransitionError,
    TransitionErrorKind,
    partition_transition_valid,
)
from kafkactl_core.zkcontroller.zkstore import LeadershipStore, ZkFailure

PartitionResult = LeaderAndIsr | TransitionError | None
"""Per partition: the leadership written, the error, or ``None`` (state set, nothing written)."""

_FAILED = TransitionErrorKind.state_change_failed
_STRATEGY_NAMES = {
    ElectionStrategy.offline: "OfflinePartitionLeaderElectionStrategy",
    ElectionStrategy.reassign: "ReassignPartitionLeaderElectionStrategy",
    ElectionStrategy.preferred: "PreferredReplicaPartitionLeaderElectionStrategy",
    ElectionStrategy.controlled_shutdown: "ControlledShutdownPartitionLeaderElectionStrategy",
}
TRIGGER_OF_STRATEGY = {
    ElectionStrategy.offline: ElectionTrigger.offline,
    ElectionStrategy.reassign: ElectionTrigger.reassign,
    ElectionStrategy.preferred: ElectionTrigger.preferred,
    ElectionStrategy.controlled_shutdown: ElectionTrigger.controlled_shutdown,
}
"""The trigger ``gold.elections`` reports for an election under each strategy."""


def handle_partition_state_changes(
    ctx: ControllerContext,
    store: LeadershipStore,
    partitions: Sequence[TopicPartition],
    target: PartitionState,
    strategy: ElectionStrategy | None = None,
    allow_unclean: bool = False,
    requested_by: RequestSource | None = None,
) -> dict[TopicPartition, PartitionResult]:
    """Move ``partitions`` to ``target`` (``PartitionStateMachine.handleStateChanges``).

    Args:
        ctx: the controller context (changed in place).
        store: where leadership znodes are read and written.
        partitions: the partitions, in order.
        target: the target state.
        strategy: the election strategy for Online/Offline -> Online (required from 1.1;
            before, ``None`` is the ``NoOpLeaderSelector``).
        allow_unclean: the offline strategy's flag (admin ``ElectLeaders`` UNCLEAN).
        requested_by: who asked, recorded on the elections.

    Returns:
        One result per partition.
    """
    results: dict[TopicPartition, PartitionResult] = {}
    valid: list[TopicPartition] = []
    for tp in partitions:
        current = ctx.partition_state(tp)
        if tp not in ctx.partition_states:
            ctx.partition_states[tp] = current
        if partition_transition_valid(current, target):
            valid.append(tp)
        else:
            results[tp] = TransitionError(
                TransitionErrorKind.invalid_transition,
                f"Partition {tp} should be in one of the valid previous states of {target.name} "
                f"before moving to {target.name} state. Instead it is in {current.name} state",
            )
    _record_failures(ctx, results)
    if target is not PartitionState.OnlinePartition:
        for tp in valid:
            ctx.partition_states[tp] = target
            results[tp] = None
        return results
    new = [tp for tp in valid if ctx.partition_states[tp] is PartitionState.NewPartition]
    to_elect = [tp for tp in valid if ctx.partition_states[tp] is not PartitionState.NewPartition]
    step: dict[TopicPartition, PartitionResult] = {}
    if new:
        step.update(_initialize(ctx, store, new))
    if to_elect:
        if strategy is None and ctx.profile.explicit_strategy_required:
            for tp in to_elect:
                step[tp] = TransitionError(
                    _FAILED,
                    "IllegalArgumentException: Election strategy is a required field when the "
                    "target state is OnlinePartition",
                )
        else:
            step.update(_elect(ctx, store, to_elect, strategy, allow_unclean, requested_by))
    _record_failures(ctx, step)
    results.update(step)
    return results


def _record_failures(
    ctx: ControllerContext, results: dict[TopicPartition, PartitionResult]
) -> None:
    sink = ctx.sink
    if sink is None:
        return
    for tp, res in results.items():
        if isinstance(res, TransitionError):
            sink.failures[tp] = res


def _initialize(
    ctx: ControllerContext, store: LeadershipStore, partitions: list[TopicPartition]
) -> dict[TopicPartition, PartitionResult]:
    """``initializeLeaderAndIsrForPartitions``: leader = first live replica, ISR = live ones."""
    out: dict[TopicPartition, PartitionResult] = {}
    for tp in partitions:
        replicas = ctx.assignment(tp).replicas
        live = tuple(r for r in replicas if ctx.is_replica_online(r, tp))
        if not live:
            out[tp] = TransitionError(
                _FAILED,
                f"Controller encountered error during state change of partition {tp} from New "
                f"to Online, assigned replicas are [{','.join(map(str, replicas))}], live "
                f"brokers are [{','.join(map(str, sorted(ctx.live_broker_ids)))}]. "
                "No assigned replica is alive.",
            )
            continue
        created = store.create(tp, LeaderAndIsr(live[0], 0, live))
        if isinstance(created, ZkFailure):
            out[tp] = TransitionError(
                _FAILED, f"Failed to create the leadership of {tp}: {created.value}"
            )
            continue
        sink = _online(ctx, tp, created, created.isr, True)
        if sink is not None:
            sink.elections.append(
                ElectionRecord(
                    tp,
                    ElectionTrigger.new_partition,
                    None,
                    None,
                    created.leader,
                    (),
                    created.isr,
                    False,
                    created.leader_epoch,
                    created.leader_recovery_state,
                )
            )
        out[tp] = created
    return out


def _online(
    ctx: ControllerContext,
    tp: TopicPartition,
    written: LeaderAndIsr,
    recipients: tuple[int, ...],
    is_new: bool,
) -> OpResult | None:
    """Note a leadership written to ZooKeeper: the partition online, LeaderAndIsr queued.

    Returns:
        The operation's sink (which now lists ``tp`` as written), ``None`` outside an operation.
    """
    ctx.leadership[tp] = written
    ctx.partition_states[tp] = PartitionState.OnlinePartition
    ctx.requests.add_leader_and_isr(recipients, tp, written, is_new)
    sink = ctx.sink
    if sink is not None:
        sink.written.add(tp)
    return sink


def _elect(
    ctx: ControllerContext,
    store: LeadershipStore,
    partitions: list[TopicPartition],
    strategy: ElectionStrategy | None,
    allow_unclean: bool,
    requested_by: RequestSource | None,
) -> dict[TopicPartition, PartitionResult]:
    """``doElectLeaderForPartitions``: read ZK, elect, conditionally write, update the cache."""
    out: dict[TopicPartition, PartitionResult] = {}
    name = "NoOpLeaderSelector" if strategy is None else _STRATEGY_NAMES[strategy]
    if strategy is ElectionStrategy.offline:
        name = f"{name}({str(allow_unclean).lower()})"
    for tp in partitions:
        read = store.read(tp)
        if read is ZkFailure.no_node:
            out[tp] = TransitionError(
                _FAILED,
                f"LeaderAndIsr information doesn't exist for partition {tp} in "
                f"{ctx.partition_state(tp).name} state",
            )
            continue
        if isinstance(read, ZkFailure):
            out[tp] = TransitionError(_FAILED, f"{read.value} while reading the state of {tp}")
            continue
        outcome = _outcome(ctx, tp, read, strategy, allow_unclean)
        if outcome.not_needed:
            out[tp] = TransitionError(
                TransitionErrorKind.election_not_needed,
                f"LeaderElectionNotNeededException: Preferred replica {read.leader} is already "
                f"the current leader for partition {tp}",
            )
            continue
        proposed = outcome.leader_and_isr
        if proposed is None:
            out[tp] = TransitionError(
                _FAILED, f"Failed to elect leader for partition {tp} under strategy {name}"
            )
            continue
        if outcome.unclean:
            ctx.unclean_meter += 1
        stored = store.update(tp, proposed)
        if isinstance(stored, ZkFailure):
            out[tp] = TransitionError(_FAILED, f"{stored.value} while writing the state of {tp}")
            continue
        sink = _online(ctx, tp, stored, outcome.recipients, False)
        if sink is not None and strategy is not None:
            sink.elections.append(
                ElectionRecord(
                    tp,
                    ElectionTrigger.admin_unclean
                    if allow_unclean and outcome.unclean
                    else TRIGGER_OF_STRATEGY[strategy],
                    strategy,
                    read.leader,
                    stored.leader,
                    read.isr,
                    stored.isr,
                    outcome.unclean,
                    stored.leader_epoch,
                    stored.leader_recovery_state,
                    requested_by,
                )
            )
        out[tp] = stored
    return out


def _outcome(
    ctx: ControllerContext,
    tp: TopicPartition,
    current: LeaderAndIsr,
    strategy: ElectionStrategy | None,
    allow_unclean: bool,
) -> ElectionOutcome:
    assignment = ctx.assignment(tp).replicas
    if strategy is None:
        return ElectionOutcome(current, assignment)
    if strategy is ElectionStrategy.offline:
        live = tuple(r for r in assignment if ctx.is_replica_online(r, tp))
        live_set = set(live)
        if any(r in live_set for r in current.isr):
            unclean = False
        else:
            unclean = allow_unclean or ctx.unclean_enabled(tp.topic)
        return elect_offline(
            ctx.profile, current, assignment, live, unclean, ctx.recovery_supported
        )
    if strategy is ElectionStrategy.reassign:
        target = ctx.reassignment_target(tp)
        live_target = {r for r in target if ctx.is_replica_online(r, tp)}
        return elect_reassign(current, target, live_target)
    if strategy is ElectionStrategy.preferred:
        live_assigned = {r for r in assignment if ctx.is_replica_online(r, tp)}
        return elect_preferred(ctx.profile, current, assignment, live_assigned)
    live_or_shutting = tuple(
        r for r in assignment if ctx.is_replica_online(r, tp, include_shutting_down=True)
    )
    return elect_controlled_shutdown(
        ctx.profile, current, assignment, live_or_shutting, ctx.shutting_down
    )
