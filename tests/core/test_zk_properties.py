"""Invariants that hold in every release, checked on random clusters and operation sequences."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import (
    ElectionStrategy,
    LeaderAndIsr,
    PartitionState,
    ReplicaState,
    TopicPartition,
)
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.zkcontroller.cluster import ClusterSpec, ControllerConfig
from kafkactl_core.zkcontroller.context import ControllerContext
from kafkactl_core.zkcontroller.controller import ZkController
from kafkactl_core.zkcontroller.partition_sm import handle_partition_state_changes
from kafkactl_core.zkcontroller.replica_sm import handle_replica_state_changes
from kafkactl_core.zkcontroller.results import OpResult, RequestSource
from kafkactl_core.zkcontroller.states import (
    TransitionErrorKind,
    partition_transition_valid,
    replica_transition_valid,
)
from kafkactl_core.zkcontroller.zkstore import InMemoryLeadershipStore

RELEASES = ["0.8.1", "0.9.0", "0.10.2", "1.0", "1.1", "2.0", "2.2", "2.4", "2.8", "3.4", "3.8"]
BROKERS = [1, 2, 3, 4]

replica_lists = st.lists(st.sampled_from(BROKERS), min_size=1, max_size=3, unique=True)
ops = st.one_of(
    st.tuples(st.just("broker_failure"), st.sampled_from(BROKERS)),
    st.tuples(st.just("broker_startup"), st.sampled_from(BROKERS)),
    st.tuples(st.just("controlled_shutdown"), st.sampled_from(BROKERS)),
    st.tuples(st.just("isr_grow"), st.integers(0, 3)),
    st.tuples(st.just("preferred"), st.integers(0, 3), st.sampled_from(list(RequestSource))),
    st.tuples(st.just("unclean"), st.integers(0, 3)),
    st.tuples(
        st.just("auto_rebalance"),
    ),
    st.tuples(st.just("reassign"), st.integers(0, 3), replica_lists),
    st.tuples(st.just("reassign_complete"), st.integers(0, 3)),
    st.tuples(
        st.just("delete_topic"),
    ),
    st.tuples(st.just("set_unclean"), st.booleans()),
    st.tuples(st.just("failover"), st.sampled_from(BROKERS)),
    st.tuples(st.just("log_dir_failure"), st.sampled_from(BROKERS), st.integers(0, 3)),
)


def _apply(engine: ZkController, op: tuple[Any, ...], parts: list[TopicPartition]) -> OpResult:
    name = op[0]
    if name == "broker_failure":
        return engine.broker_failure(op[1])
    if name == "broker_startup":
        return engine.broker_startup(op[1])
    if name == "controlled_shutdown":
        return engine.controlled_shutdown(op[1])
    if name == "isr_grow":
        tp = parts[op[1] % len(parts)]
        view = engine.partition(tp)
        if view is None or view.leadership is None:
            return OpResult("noop")
        isr = (*view.leadership.isr, *view.assignment.replicas)
        return engine.isr_change(tp, tuple(dict.fromkeys(isr)))
    if name == "preferred":
        return engine.preferred_election(op[2], [parts[op[1] % len(parts)]])
    if name == "unclean":
        return engine.unclean_election([parts[op[1] % len(parts)]])
    if name == "auto_rebalance":
        return engine.auto_rebalance_check()
    if name == "reassign":
        return engine.reassign(parts[op[1] % len(parts)], op[2])
    if name == "reassign_complete":
        return engine.reassign_complete(parts[op[1] % len(parts)])
    if name == "delete_topic":
        return engine.delete_topic("b")
    if name == "set_unclean":
        return engine.set_config("topic", "unclean.leader.election.enable", op[1], topic="a")
    if name == "failover":
        return engine.controller_failover(op[1])
    return engine.log_dir_failure(op[1], [parts[op[2] % len(parts)]])


@settings(max_examples=150, deadline=None)
@given(
    release=st.sampled_from(RELEASES),
    live=st.lists(st.sampled_from(BROKERS), min_size=1, max_size=4, unique=True),
    assignments=st.lists(replica_lists, min_size=4, max_size=4),
    unclean=st.booleans(),
    steps=st.lists(ops, max_size=25),
)
def test_controller_invariants(
    release: str,
    live: list[int],
    assignments: list[list[int]],
    unclean: bool,
    steps: list[tuple[Any, ...]],
) -> None:
    spec = ClusterSpec(
        version=KafkaVersion.of(release),
        live=tuple(live),
        controller=live[0],
        config=ControllerConfig(unclean_leader_election_enable=unclean),
    )
    engine = ZkController(spec)
    engine.create_topic("a", {0: assignments[0], 1: assignments[1]})
    engine.create_topic("b", {0: assignments[2], 1: assignments[3]})
    parts = [TopicPartition("a", 0), TopicPartition("a", 1), TopicPartition("b", 0)]
    parts.append(TopicPartition("b", 1))
    epochs: dict[TopicPartition, int] = {}
    for op in steps:
        result = _apply(engine, op, parts)
        registered = engine.live_brokers
        for record in result.elections:
            # An unclean leader is reported as such; a clean one comes from the ISR.
            if record.strategy is not None:
                assert record.unclean == (record.new_leader not in record.isr_before)
            # A leader is a registered broker when elected.
            assert record.new_leader in registered
            if record.strategy is ElectionStrategy.controlled_shutdown:
                assert record.new_leader not in engine.shutting_down_brokers
            if not record.unclean and record.strategy is not None:
                assert record.new_leader in record.isr_before
        for tp in parts:
            view = engine.partition(tp)
            if view is None or view.leadership is None:
                epochs.pop(tp, None)
                continue
            # Leader epochs never decrease.
            assert view.leadership.leader_epoch >= epochs.get(tp, -1)
            epochs[tp] = view.leadership.leader_epoch
        metrics = engine.metrics()
        assert metrics.unclean_election_meter_count >= 0
        assert metrics.offline_partition_count >= 0


def given_transitions(states: type[enum.Enum]) -> Callable[..., Any]:
    """``@given`` a release and a ``current`` and ``target`` state of ``states``."""
    return given(
        release=st.sampled_from(RELEASES),
        current=st.sampled_from(list(states)),
        target=st.sampled_from(list(states)),
    )


@settings(max_examples=200, deadline=None)
@given_transitions(PartitionState)
def test_invalid_partition_transitions_leave_state(
    release: str, current: PartitionState, target: PartitionState
) -> None:
    tp = TopicPartition("t", 0)
    ctx = ControllerContext(KafkaVersion.of(release))
    ctx.live_broker_epochs = {1: 1}
    ctx.set_assignment(tp, ReplicaAssignment((1,)))
    store = InMemoryLeadershipStore({tp: LeaderAndIsr(1, 3, (1,))})
    ctx.leadership[tp] = LeaderAndIsr(1, 3, (1,))
    ctx.partition_states[tp] = current
    result = handle_partition_state_changes(ctx, store, [tp], target, ElectionStrategy.offline)[tp]
    if partition_transition_valid(current, target):
        assert getattr(result, "kind", None) is not TransitionErrorKind.invalid_transition
    else:
        assert getattr(result, "kind", None) is TransitionErrorKind.invalid_transition
        assert ctx.partition_states[tp] is current
        assert store.data[tp] == LeaderAndIsr(1, 3, (1,))


@settings(max_examples=300, deadline=None)
@given_transitions(ReplicaState)
def test_invalid_replica_transitions_leave_state(
    release: str, current: ReplicaState, target: ReplicaState
) -> None:
    profile = KafkaVersion.of(release)
    tp = TopicPartition("t", 0)
    ctx = ControllerContext(profile)
    ctx.live_broker_epochs = {1: 1, 2: 1}
    ctx.set_assignment(tp, ReplicaAssignment((1, 2)))
    ctx.leadership[tp] = LeaderAndIsr(1, 3, (1, 2))
    store = InMemoryLeadershipStore({tp: LeaderAndIsr(1, 3, (1, 2))})
    key = (tp, 2)
    ctx.replica_states[key] = current
    result = handle_replica_state_changes(ctx, store, [key], target)[key]
    if replica_transition_valid(profile, current, target):
        assert result is None or result.kind is not TransitionErrorKind.invalid_transition
    else:
        assert result is not None and result.kind is TransitionErrorKind.invalid_transition
        assert ctx.replica_states[key] is current
        assert store.data[tp] == LeaderAndIsr(1, 3, (1, 2))
        assert ctx.assignment(tp).replicas == (1, 2)
