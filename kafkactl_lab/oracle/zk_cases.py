"""Oracle adapter for the ZK-mode levels ``algorithm``, ``replica_assignment``, ``state_machine``.

Each ``evaluate_*`` function turns a case's ``input`` into calls of the core (election rules,
``ReplicaAssignment``, the partition/replica state machines on a context whose ZooKeeper is
mocked as the case says), renders what came out under the case's key names and compares it with
``expected`` through ``partial_mismatches``. Scenario cases are in ``zk_scenarios``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import (
    NO_LEADER,
    ElectionStrategy,
    LeaderAndIsr,
    PartitionState,
    ReplicaState,
    TopicPartition,
)
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.versions import ProtocolVersion
from kafkactl_core.zkcontroller.cluster import ClusterSpec
from kafkactl_core.zkcontroller.context import ControllerContext
from kafkactl_core.zkcontroller.controller import ZkController
from kafkactl_core.zkcontroller.election import (
    elect_controlled_shutdown,
    elect_offline,
    elect_preferred,
    elect_reassign,
)
from kafkactl_core.zkcontroller.partition_sm import handle_partition_state_changes
from kafkactl_core.zkcontroller.replica_sm import (
    handle_replica_state_changes,
    startup_replica_states,
)
from kafkactl_core.zkcontroller.results import OpResult
from kafkactl_core.zkcontroller.states import TransitionError
from kafkactl_core.zkcontroller.zkstore import ZkFailure
from kafkactl_lab.oracle.compare import MISSING, partial_mismatches
from kafkactl_lab.oracle.result import CaseResult, CaseStatus
from kafkactl_lab.oracle.zk_render import (
    OracleInputError,
    ints,
    parse_leader_and_isr,
    parse_tp,
    render_leader_and_isr,
    require,
)


def profile_of(case: Mapping[str, Any]) -> KafkaVersion:
    """The behaviour profile of the case's ``kafka_version``."""
    try:
        return KafkaVersion.of(str(require(case, "kafka_version")))
    except ValueError as exc:
        raise OracleInputError(str(exc)) from exc


def verdict(
    case: Mapping[str, Any], expected: Any, actual: Any, path: str, before: Any = MISSING
) -> CaseResult:
    """Compare and build the case's result.

    Args:
        case: the case (for its id).
        expected: the case's expected values.
        actual: what the core computed, rendered under the case's key names.
        path: the location of ``expected`` within the case, for messages.
        before: the same rendering of the state before the call or op, against which an
            expected ``"unchanged"`` is resolved (``MISSING``: none captured).

    Returns:
        pass, or fail with every mismatch.
    """
    mismatches = partial_mismatches(expected, actual, path, before)
    case_id = str(case.get("id", "?"))
    if mismatches:
        return CaseResult(case_id, CaseStatus.failed, [m.to_json_dict() for m in mismatches])
    return CaseResult(case_id, CaseStatus.passed)


def _ibp(value: Any) -> ProtocolVersion | None:
    if value is None:
        return None
    try:
        return ProtocolVersion.parse(str(value))
    except ValueError as exc:
        raise OracleInputError(str(exc)) from exc


# ---------------------------------------------------------------- algorithm


def evaluate_algorithm(case: Mapping[str, Any]) -> CaseResult:
    """One election function call (``algorithm`` level)."""
    profile = profile_of(case)
    inp = require(case, "input")
    strategy = ElectionStrategy(require(inp, "strategy"))
    isr = ints(require(inp, "isr"))
    live = ints(require(inp, "live_replicas"))
    current_leader = inp.get("current_leader")
    current = LeaderAndIsr(NO_LEADER if current_leader is None else int(current_leader), 0, isr)
    if strategy is ElectionStrategy.offline:
        recovery = profile.leader_recovery_supported(_ibp(inp.get("inter_broker_protocol_version")))
        outcome = elect_offline(
            profile,
            current,
            ints(require(inp, "assignment")),
            live,
            bool(require(inp, "unclean_enabled")),
            recovery,
        )
    elif strategy is ElectionStrategy.reassign:
        outcome = elect_reassign(current, ints(require(inp, "target_replicas")), set(live))
    elif strategy is ElectionStrategy.preferred:
        outcome = elect_preferred(profile, current, ints(require(inp, "assignment")), set(live))
    else:
        outcome = elect_controlled_shutdown(
            profile,
            current,
            ints(require(inp, "assignment")),
            live,
            set(ints(require(inp, "shutting_down_brokers"))),
        )
    lai = outcome.leader_and_isr
    actual: dict[str, Any] = {
        "leader": None if lai is None else lai.leader,
        "unclean": outcome.unclean,
        "unclean_election_meter_count": 1 if outcome.unclean else 0,
        "state": (
            PartitionState.OnlinePartition.name
            if lai is not None
            else PartitionState.OfflinePartition.name
        ),
    }
    if lai is not None:
        actual["isr"] = list(lai.isr)
        actual["leader_epoch_delta"] = lai.leader_epoch - current.leader_epoch
        actual["leader_recovery_state"] = lai.leader_recovery_state.name
        actual["leader_and_isr_recipients"] = list(outcome.recipients)
    before = {"leader_recovery_state": current.leader_recovery_state.name}
    return verdict(case, case.get("expected", {}), actual, "expected", before)


# ---------------------------------------------------------------- replica assignment


def _render_assignment(a: ReplicaAssignment) -> dict[str, Any]:
    return {
        "replicas": list(a.replicas),
        "adding": list(a.adding),
        "removing": list(a.removing),
        "target_replicas": list(a.target_replicas),
        "origin_replicas": list(a.origin_replicas),
        "is_being_reassigned": a.is_being_reassigned,
    }


def evaluate_replica_assignment(case: Mapping[str, Any]) -> CaseResult:
    """``ReplicaAssignment`` describe / reassignTo (``replica_assignment`` level)."""
    profile = profile_of(case)
    inp = require(case, "input")
    op = require(inp, "op")
    if op == "describe":
        a = ReplicaAssignment(
            ints(require(inp, "replicas")), ints(inp.get("adding")), ints(inp.get("removing"))
        )
    elif op == "reassign_to":
        cur = require(inp, "current")
        base = ReplicaAssignment(
            ints(require(cur, "replicas")), ints(cur.get("adding")), ints(cur.get("removing"))
        )
        a = base.reassign_to(ints(require(inp, "target")), profile.reassignment_layout)
    else:
        raise OracleInputError(f"unknown replica_assignment op {op!r}")
    return verdict(case, case.get("expected", {}), _render_assignment(a), "expected")


# ---------------------------------------------------------------- state machines


class MockLeadershipStore:
    """A leadership store answering as a case's ZooKeeper mocks say, recording the writes."""

    def __init__(self, inp: Mapping[str, Any], cached: LeaderAndIsr | None) -> None:
        zk = inp.get("zk_leader_and_isr")
        self.value: LeaderAndIsr | None = parse_leader_and_isr(zk) if zk is not None else cached
        read = inp.get("zk_read_result")
        self.read_failure = ZkFailure(read) if read is not None else None
        create = inp.get("zk_create_result", "OK")
        self.create_failure = None if create == "OK" else ZkFailure(create)
        self.update_version: int | None = inp.get("zk_update_result_partition_epoch")
        self.created: LeaderAndIsr | None = None
        self.written: LeaderAndIsr | None = None

    def read(self, tp: TopicPartition) -> LeaderAndIsr | ZkFailure:
        """The mocked read."""
        if self.read_failure is not None:
            return self.read_failure
        return ZkFailure.no_node if self.value is None else self.value

    def create(self, tp: TopicPartition, leadership: LeaderAndIsr) -> LeaderAndIsr | ZkFailure:
        """The mocked create."""
        if self.create_failure is not None:
            return self.create_failure
        self.created = leadership.with_partition_epoch(0)
        self.value = self.created
        return self.created

    def update(self, tp: TopicPartition, leadership: LeaderAndIsr) -> LeaderAndIsr | ZkFailure:
        """The mocked conditional write."""
        self.written = leadership
        version = (
            leadership.partition_epoch + 1 if self.update_version is None else self.update_version
        )
        self.value = leadership.with_partition_epoch(version)
        return self.value

    def delete(self, tp: TopicPartition) -> None:
        """Forget the znode."""
        self.value = None


_LEADERSHIP_KEYS = ("created_leader_and_isr", "written_leader_and_isr", "leader_and_isr_sent")
"""The ``state_machine`` expected keys holding a leader_and_isr object."""


def _context(
    profile: KafkaVersion, inp: Mapping[str, Any], tp: TopicPartition
) -> tuple[ControllerContext, LeaderAndIsr | None]:
    ctx = ControllerContext(profile)
    ctx.requests.enabled = True
    ctx.epoch = int(inp.get("controller_epoch", 1))
    ctx.live_broker_epochs = {b: 1 for b in ints(inp.get("live_brokers"))}
    ctx.shutting_down = set(ints(inp.get("shutting_down_brokers")))
    if "assignment" in inp:
        ctx.set_assignment(tp, ReplicaAssignment(ints(inp["assignment"])))
    if "leader_and_isr" in inp:
        raw = inp["leader_and_isr"]
        cached = None if raw is None else parse_leader_and_isr(raw)
    elif inp.get("zk_leader_and_isr") is not None:
        cached = parse_leader_and_isr(inp["zk_leader_and_isr"])
    else:
        cached = None
    if cached is not None:
        ctx.leadership[tp] = cached
    if "topic_unclean_enabled" in inp:
        ctx.topic_unclean[tp.topic] = bool(inp["topic_unclean_enabled"])
    ctx.recovery_supported = profile.leader_recovery_supported(
        _ibp(inp.get("inter_broker_protocol_version"))
    )
    if inp.get("topic_queued_for_deletion"):
        ctx.topics_to_be_deleted.add(tp.topic)
    if inp.get("topic_deletion_started"):
        ctx.topics_with_deletion_started.add(tp.topic)
    return ctx, cached


def evaluate_state_machine(case: Mapping[str, Any]) -> CaseResult:
    """A partition/replica state-machine case (``state_machine`` level)."""
    profile = profile_of(case)
    inp = require(case, "input")
    if require(inp, "operation") == "sequence":
        return _evaluate_sequence(case, profile, inp)
    tp = parse_tp(str(inp.get("partition", "t-0")))
    ctx, _ = _context(profile, inp, tp)
    store = MockLeadershipStore(inp, ctx.leadership.get(tp))
    # The leadership the machine starts from: what a created, written or sent one replaces.
    before = dict.fromkeys(_LEADERSHIP_KEYS, render_leader_and_isr(store.value))
    ctx.sink = OpResult("state_machine")
    machine = require(inp, "machine")
    operation = require(inp, "operation")
    error: TransitionError | None = None
    state: str | None
    if machine == "partition":
        if operation != "transition":
            raise OracleInputError(f"unsupported partition operation {operation!r}")
        ctx.partition_states[tp] = PartitionState[require(inp, "current_state")]
        strategy = inp.get("strategy")
        res = handle_partition_state_changes(
            ctx,
            store,
            [tp],
            PartitionState[require(inp, "target_state")],
            ElectionStrategy(strategy) if strategy is not None else ElectionStrategy.offline,
            bool(inp.get("allow_unclean", False)),
        )
        outcome = res.get(tp)
        error = outcome if isinstance(outcome, TransitionError) else None
        state = ctx.partition_state(tp).name
    elif machine == "replica":
        key = (tp, int(require(inp, "replica")))
        if operation == "startup":
            ctx.set_assignment(tp, ctx.assignment(tp))
            outcome_r = startup_replica_states(ctx, store).get(key)
        elif operation == "transition":
            ctx.replica_states[key] = ReplicaState[require(inp, "current_state")]
            outcome_r = handle_replica_state_changes(
                ctx, store, [key], ReplicaState[require(inp, "target_state")]
            ).get(key)
        else:
            raise OracleInputError(f"unsupported replica operation {operation!r}")
        error = outcome_r
        found = ctx.replica_states.get(key)
        state = None if found is None else found.name
    else:
        raise OracleInputError(f"unknown machine {machine!r}")
    actual = _render_machine(ctx, store, tp, state, error)
    # ``error_detail`` is the converter's prose ("invalid transition; state unchanged"), not a
    # Kafka message (SCHEMA.md: "original text"): the error *kind* is what is asserted.
    expected = {k: v for k, v in case.get("expected", {}).items() if k != "error_detail"}
    return verdict(case, expected, actual, "expected", before)


def _render_machine(
    ctx: ControllerContext,
    store: MockLeadershipStore,
    tp: TopicPartition,
    state: str | None,
    error: TransitionError | None,
) -> dict[str, Any]:
    actual: dict[str, Any] = {"state": state, "zk_write": False, "unclean": False}
    if error is not None:
        actual["error"] = error.kind.value
        actual["error_detail"] = error.detail
    lai = ctx.leadership.get(tp)
    if lai is not None:
        actual["leader"] = lai.leader
        actual["isr"] = list(lai.isr)
        actual["leader_epoch"] = lai.leader_epoch
        actual["cached_partition_epoch"] = lai.partition_epoch
        actual["partition_epoch_after_write"] = lai.partition_epoch
    if store.created is not None:
        actual["created_leader_and_isr"] = render_leader_and_isr(store.created)
        actual["zk_write"] = True
    if store.written is not None:
        actual["written_leader_and_isr"] = render_leader_and_isr(store.written)
        actual["zk_write"] = True
    requests = ctx.requests
    lai_requests = [r for r in requests.leader_and_isr if r.partition == tp]
    if lai_requests:
        last = lai_requests[-1]
        actual["leader_and_isr_recipients"] = list(last.brokers)
        actual["leader_and_isr_sent"] = render_leader_and_isr(last.leader_and_isr)
        actual["leader_and_isr_is_new"] = last.is_new
    stops = [r for r in requests.stop_replica if r.partition == tp]
    if stops:
        actual["stop_replica"] = {"brokers": list(stops[-1].brokers), "delete": stops[-1].delete}
    if requests.update_metadata:
        actual["update_metadata_to"] = list(requests.update_metadata[-1].brokers)
    sink = ctx.sink
    if sink is not None:
        actual["unclean"] = any(e.unclean for e in sink.elections)
    actual["assignment_after"] = list(ctx.assignment(tp).replicas)
    return actual


def _evaluate_sequence(
    case: Mapping[str, Any], profile: KafkaVersion, inp: Mapping[str, Any]
) -> CaseResult:
    """A sequence of batch transitions over several partitions, with per-step checkpoints."""
    partitions = [parse_tp(str(p)) for p in require(inp, "partitions")]
    each = ints(inp.get("assignment_each"))
    zk = inp.get("zk_leader_and_isr")
    leadership = {tp: parse_leader_and_isr(zk) for tp in partitions} if zk is not None else {}
    topics: dict[str, dict[int, ReplicaAssignment]] = {}
    for tp in partitions:
        topics.setdefault(tp.topic, {})[tp.partition] = ReplicaAssignment(each)
    spec = ClusterSpec(
        version=profile,
        live=ints(inp.get("live_brokers")),
        controller=-1,
        topics=topics,
        leadership=leadership,
    )
    engine = ZkController(spec)
    ctx = engine.ctx
    start = PartitionState[require(inp, "current_state")]
    for tp in partitions:
        ctx.partition_states[tp] = start
    expected: dict[str, Any] = {}
    actual: dict[str, Any] = {}
    for i, step in enumerate(require(inp, "steps")):
        action = require(step, "action")
        if action == "transition":
            if step.get("machine", "partition") != "partition":
                raise OracleInputError("sequence transitions are partition transitions")
            strategy = step.get("strategy")
            handle_partition_state_changes(
                ctx,
                engine.store,
                partitions,
                PartitionState[require(step, "target_state")],
                ElectionStrategy(strategy) if strategy is not None else None,
                bool(step.get("allow_unclean", False)),
            )
        elif action == "set_replica_state":
            state = ReplicaState[require(step, "state")]
            for tp in partitions:
                for r in ctx.assignment(tp).replicas:
                    ctx.replica_states[(tp, r)] = state
        elif action == "enqueue_topic_deletion":
            for topic in require(step, "topics"):
                engine.delete_topic(str(topic))
        else:
            raise OracleInputError(f"unknown sequence action {action!r}")
        if "checkpoint" in step:
            expected[f"steps[{i}]"] = step["checkpoint"]
            actual[f"steps[{i}]"] = {"offline_partition_count": ctx.offline_partition_count()}
    return verdict(case, expected, actual, "input")
