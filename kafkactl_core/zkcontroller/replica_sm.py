"""The replica state machine (``ZkReplicaStateMachine``), with the ISR removal on OfflineReplica.

``handle_replica_state_changes`` follows ``doHandleStateChanges``: unknown replicas start in
NonExistentReplica, invalid transitions are reported and skipped, and each target state has the
side effects Kafka gives it (LeaderAndIsr/StopReplica/UpdateMetadata requests, assignment
updates, the ISR-removal write of ``isr.remove_replica_from_isr``).
"""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.model import LeaderAndIsr, ReplicaState, TopicPartition
from kafkactl_core.zkcontroller.context import ControllerContext, ReplicaKey
from kafkactl_core.zkcontroller.isr import remove_replica_from_isr
from kafkactl_core.zkcontroller.states import (
    TransitionError,
    TransitionErrorKind,
    replica_transition_valid,
)
from kafkactl_core.zkcontroller.zkstore import LeadershipStore, ZkFailure

_R = ReplicaState
_FAILED = TransitionErrorKind.state_change_failed


def handle_replica_state_changes(
    ctx: ControllerContext,
    store: LeadershipStore,
    replicas: Sequence[ReplicaKey],
    target: ReplicaState,
) -> dict[ReplicaKey, TransitionError | None]:
    """Move ``replicas`` to ``target`` (``ReplicaStateMachine.handleStateChanges``).

    Args:
        ctx: the controller context (changed in place).
        store: where leadership znodes are read and written (ISR removal).
        replicas: the replicas, in order.
        target: the target state.

    Returns:
        Per replica ``None`` (moved) or the error (state unchanged).
    """
    results: dict[ReplicaKey, TransitionError | None] = {}
    for key in replicas:
        current = ctx.replica_state(key)
        if key not in ctx.replica_states:
            ctx.replica_states[key] = current
        if not replica_transition_valid(ctx.profile, current, target):
            results[key] = TransitionError(
                TransitionErrorKind.invalid_transition,
                f"Replica {key[1]} for partition {key[0]} should be in the "
                f"{target.name} valid previous states before moving to {target.name} state. "
                f"Instead it is in {current.name} state",
            )
            continue
        results[key] = _apply(ctx, store, key, current, target)
    return results


def _apply(
    ctx: ControllerContext,
    store: LeadershipStore,
    key: ReplicaKey,
    current: ReplicaState,
    target: ReplicaState,
) -> TransitionError | None:
    tp, replica = key
    if target is _R.NewReplica:
        leader_and_isr = ctx.leadership.get(tp)
        if leader_and_isr is not None:
            if leader_and_isr.leader == replica:
                return TransitionError(
                    _FAILED,
                    f"Replica {replica} for partition {tp} cannot be moved to NewReplica state "
                    "as it is being requested to become leader",
                )
            ctx.requests.add_leader_and_isr((replica,), tp, leader_and_isr, True)
    elif target is _R.OnlineReplica:
        if current is _R.NewReplica:
            assignment = ctx.assignment(tp)
            if replica not in assignment.replicas:
                ctx.set_assignment(
                    tp,
                    type(assignment)(
                        (*assignment.replicas, replica), assignment.adding, assignment.removing
                    ),
                )
        else:
            leader_and_isr = ctx.leadership.get(tp)
            if leader_and_isr is not None:
                ctx.requests.add_leader_and_isr((replica,), tp, leader_and_isr, False)
    elif target is _R.OfflineReplica:
        ctx.requests.add_stop_replica((replica,), tp, False)
        if tp in ctx.leadership:
            failure = _remove_from_isr(ctx, store, tp, replica)
            if failure is not None:
                return failure
        else:
            ctx.requests.add_update_metadata(
                tuple(sorted(ctx.live_or_shutting_down_broker_ids)), (tp,)
            )
    elif target is _R.ReplicaDeletionStarted:
        ctx.requests.add_stop_replica((replica,), tp, True)
    elif target is _R.NonExistentReplica:
        ctx.set_assignment(tp, ctx.assignment(tp).remove_replica(replica))
        ctx.replica_states.pop(key, None)
        return None
    ctx.replica_states[key] = target
    return None


def _remove_from_isr(
    ctx: ControllerContext, store: LeadershipStore, tp: TopicPartition, replica: int
) -> TransitionError | None:
    """``doRemoveReplicasFromIsr`` for one partition, then refresh the cache."""
    read = store.read(tp)
    if isinstance(read, ZkFailure):
        if read is ZkFailure.no_node and ctx.is_queued_for_deletion(tp.topic):
            return None
        return TransitionError(
            _FAILED,
            f"Failed to change state of replica {replica} for partition {tp} since the leader "
            "and isr path in zookeeper is empty",
        )
    proposed = remove_replica_from_isr(
        ctx.profile.last_isr_member_rule, read, replica, ctx.unclean_enabled(tp.topic)
    )
    if proposed is None:
        ctx.leadership[tp] = read
        return None
    stored = store.update(tp, proposed)
    if isinstance(stored, ZkFailure):
        return TransitionError(_FAILED, f"{stored.value} while writing the state of {tp}")
    _cache_write(ctx, tp, stored)
    if not ctx.is_queued_for_deletion(tp.topic):
        recipients = tuple(r for r in ctx.assignment(tp).replicas if r != replica)
        ctx.requests.add_leader_and_isr(recipients, tp, stored, False)
    return None


def _cache_write(ctx: ControllerContext, tp: TopicPartition, stored: LeaderAndIsr) -> None:
    ctx.leadership[tp] = stored
    if ctx.sink is not None:
        ctx.sink.written.add(tp)


def startup_replica_states(
    ctx: ControllerContext, store: LeadershipStore
) -> dict[ReplicaKey, TransitionError | None]:
    """``ReplicaStateMachine.startup``: online replicas -> OnlineReplica, others -> OfflineReplica.

    Offline replicas are first marked ReplicaDeletionIneligible (``initializeReplicaState``),
    then moved to OfflineReplica, which runs the ISR removal for them.

    Args:
        ctx: the controller context, with assignments and liveness loaded.
        store: the leadership store.

    Returns:
        The per-replica results of both batches.
    """
    online: list[ReplicaKey] = []
    offline: list[ReplicaKey] = []
    for tp in sorted(ctx.assignments):
        for r in ctx.assignment(tp).replicas:
            key = (tp, r)
            if ctx.is_replica_online(r, tp):
                ctx.replica_states[key] = _R.OnlineReplica
                online.append(key)
            else:
                ctx.replica_states[key] = _R.ReplicaDeletionIneligible
                offline.append(key)
    results = handle_replica_state_changes(ctx, store, online, _R.OnlineReplica)
    results.update(handle_replica_state_changes(ctx, store, offline, _R.OfflineReplica))
    return results
