"""Oracle adapter for ``scenario`` cases: a ``ZkController`` built from ``initial``, run by ``ops``.

Each op becomes one engine call; each op's ``checkpoint`` is compared with a rendering of the
engine's state right after it (partition views, the op's result, metrics, the auto-rebalance
computation, removed admin znodes). An expected ``"unchanged"`` is resolved against the
partition's leadership just before the op. All mismatches of all checkpoints are reported together.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import TopicPartition
from kafkactl_core.versions import ProtocolVersion
from kafkactl_core.zkcontroller.cluster import ClusterSpec, ControllerConfig, parse_bool_config
from kafkactl_core.zkcontroller.controller import ZkController
from kafkactl_core.zkcontroller.results import OpResult, RequestSource
from kafkactl_lab.oracle.result import CaseResult
from kafkactl_lab.oracle.zk_cases import profile_of, verdict
from kafkactl_lab.oracle.zk_render import (
    OracleInputError,
    ints,
    parse_leaderships,
    parse_tp,
    render_leader_and_isr,
    require,
)


def _config(raw: Mapping[str, Any]) -> ControllerConfig:
    unclean = raw.get("unclean.leader.election.enable")
    ibp = raw.get("inter.broker.protocol.version")
    return ControllerConfig(
        unclean_leader_election_enable=None if unclean is None else parse_bool_config(unclean),
        auto_leader_rebalance_enable=bool(
            parse_bool_config(raw.get("auto.leader.rebalance.enable", True))
        ),
        leader_imbalance_per_broker_percentage=int(
            raw.get("leader.imbalance.per.broker.percentage", 10)
        ),
        leader_imbalance_check_interval_seconds=int(
            raw.get("leader.imbalance.check.interval.seconds", 300)
        ),
        controlled_shutdown_enable=bool(
            parse_bool_config(raw.get("controlled.shutdown.enable", True))
        ),
        inter_broker_protocol_version=None if ibp is None else ProtocolVersion.parse(str(ibp)),
    )


def _assignment(raw: Any) -> ReplicaAssignment:
    if isinstance(raw, Mapping):
        return ReplicaAssignment(
            ints(require(raw, "replicas")), ints(raw.get("adding")), ints(raw.get("removing"))
        )
    return ReplicaAssignment(ints(raw))


def build_engine(case: Mapping[str, Any]) -> ZkController:
    """The engine for a scenario case's ``initial`` description."""
    initial = require(require(case, "input"), "initial")
    topics = {
        str(topic): {int(pid): _assignment(a) for pid, a in parts.items()}
        for topic, parts in require(initial, "topics").items()
    }
    leadership = parse_leaderships(initial.get("leadership") or {})
    controller = initial.get("controller")
    spec = ClusterSpec(
        version=profile_of(case),
        live=ints(require(initial, "live")),
        controller=None if controller is None else int(controller),
        config=_config(require(initial, "config")),
        topics=topics,
        leadership=leadership,
        deleting_topics=frozenset(str(t) for t in initial.get("deleting_topics") or ()),
    )
    return ZkController(spec)


def _assignments(raw: Mapping[str, Any]) -> dict[int, list[int]]:
    return {int(pid): list(ints(r)) for pid, r in raw.items()}


def apply_op(engine: ZkController, op: Mapping[str, Any]) -> tuple[ZkController, OpResult]:
    """Apply one op; returns the engine to continue with (a copy for multi-version ops)."""
    name = require(op, "op")
    if name == "create_topic":
        conf = op.get("config")
        return engine, engine.create_topic(
            str(require(op, "topic")), _assignments(require(op, "assignment")), conf
        )
    if name == "add_partitions":
        return engine, engine.add_partitions(
            str(require(op, "topic")), _assignments(require(op, "assignment"))
        )
    if name == "broker_failure":
        return engine, engine.broker_failure(int(require(op, "broker")))
    if name == "broker_startup":
        return engine, engine.broker_startup(int(require(op, "broker")))
    if name == "controlled_shutdown":
        broker = int(require(op, "broker"))
        epoch = None
        if op.get("stale_broker_epoch"):
            epoch = engine.ctx.live_broker_epochs.get(broker, 0) - 1
        return engine, engine.controlled_shutdown(broker, epoch)
    if name == "isr_change":
        return _isr_change(engine, op)
    if name == "preferred_election":
        source = RequestSource(require(op, "trigger"))
        parts = [parse_tp(str(p)) for p in require(op, "partitions")]
        return engine, engine.preferred_election(source, parts)
    if name == "unclean_election":
        parts = [parse_tp(str(p)) for p in require(op, "partitions")]
        return engine, engine.unclean_election(parts)
    if name == "auto_rebalance_check":
        return engine, engine.auto_rebalance_check()
    if name == "reassign":
        tp = parse_tp(str(require(op, "partition")))
        return engine, engine.reassign(tp, ints(require(op, "target")), str(op.get("via", "zk")))
    if name == "reassign_complete":
        return engine, engine.reassign_complete(parse_tp(str(require(op, "partition"))))
    if name == "delete_topic":
        return engine, engine.delete_topic(str(require(op, "topic")))
    if name == "set_config":
        raw_broker = op.get("broker")
        raw_topic = op.get("topic")
        return engine, engine.set_config(
            str(require(op, "scope")),
            str(require(op, "name")),
            require(op, "value"),
            None if raw_topic is None else str(raw_topic),
            None if raw_broker is None else int(raw_broker),
        )
    if name == "controller_failover":
        return engine, engine.controller_failover(int(require(op, "new_controller")))
    if name == "log_dir_failure":
        parts = [parse_tp(str(p)) for p in require(op, "partitions")]
        return engine, engine.log_dir_failure(int(require(op, "broker")), parts)
    if name == "ctx_set_assignment":
        raw = require(op, "assignments")
        return engine, engine.ctx_set_assignment(
            {parse_tp(str(p)): ints(r) for p, r in raw.items()}
        )
    if name == "ctx_set_leadership":
        return engine, engine.ctx_set_leadership(parse_leaderships(require(op, "leadership")))
    if name == "ctx_queue_topic_deletion":
        return engine, engine.ctx_queue_topic_deletion(str(t) for t in require(op, "topics"))
    if name == "ctx_remove_topic":
        return engine, engine.ctx_remove_topic(str(t) for t in require(op, "topics"))
    raise OracleInputError(f"unknown scenario op {name!r}")


def _isr_change(engine: ZkController, op: Mapping[str, Any]) -> tuple[ZkController, OpResult]:
    """An ISR change, evaluated once per AlterPartition version the case lists.

    Every version must give the same result; the engine state continues from the first.
    """
    tp = parse_tp(str(require(op, "partition")))
    isr = ints(require(op, "isr"))
    leader = op.get("leader")
    sender = None if leader is None else int(leader)
    versions = op.get("alter_partition_versions")
    if not versions:
        return engine, engine.isr_change(tp, isr, sender)
    outcomes = []
    for version in versions:
        trial = copy.deepcopy(engine)
        outcomes.append((trial, trial.isr_change(tp, isr, sender, int(version))))
    first_engine, first = outcomes[0]
    codes = {v: r.errors.get(tp, "NONE") for v, (_, r) in zip(versions, outcomes, strict=True)}
    if len(set(codes.values())) > 1:
        first.errors[tp] = "differs by version: " + ", ".join(f"v{v}={c}" for v, c in codes.items())
    return first_engine, first


def render_checkpoint(
    engine: ZkController, result: OpResult, checkpoint: Mapping[str, Any]
) -> dict[str, Any]:
    """The engine state for the keys a checkpoint lists."""
    out: dict[str, Any] = {}
    for key, want in checkpoint.items():
        if key == "result":
            out[key] = _render_result(result, want)
        elif key == "metrics":
            m = engine.metrics()
            out[key] = {
                "unclean_election_meter_count": m.unclean_election_meter_count,
                "offline_partition_count": m.offline_partition_count,
                "preferred_replica_imbalance_count": m.preferred_replica_imbalance_count,
            }
        elif key == "imbalance":
            groups = result.imbalance if result.imbalance is not None else engine.imbalance()
            rendered: dict[str, Any] = {}
            for broker in want:
                group = groups.get(int(broker))
                if group is None:
                    rendered[broker] = {"rebalance": False}
                else:
                    rendered[broker] = {
                        "ratio": group.ratio,
                        "rebalance": group.rebalance,
                        "candidates": [str(tp) for tp in group.candidates],
                        "elections": group.elections,
                        "not_preferred": [str(tp) for tp in group.not_preferred],
                    }
            out[key] = rendered
        elif key == "znodes_removed":
            out[key] = list(result.znodes_removed)
        else:
            out[key] = _render_partition(engine, result, parse_tp(key))
    return out


def _render_result(result: OpResult, want: Any) -> dict[str, Any]:
    rendered: dict[str, Any] = {}
    if result.error is not None:
        rendered["error"] = result.error
    remaining = result.partitions_remaining
    if remaining is not None:
        rendered["partitions_remaining"] = [str(tp) for tp in remaining]
        rendered["partitions_remaining_count"] = len(remaining)
    for tp, code in result.errors.items():
        rendered[str(tp)] = {"error": code}
    if isinstance(want, Mapping):
        # A partition the op reported nothing for had no error.
        special = ("error", "partitions_remaining", "partitions_remaining_count")
        for name in want:
            if name not in rendered and name not in special:
                rendered[name] = {"error": "NONE"}
    return rendered


def _render_partition(engine: ZkController, result: OpResult, tp: TopicPartition) -> Any:
    view = engine.partition(tp)
    if view is None:
        return None
    rendered: dict[str, Any] = {
        "replicas": list(view.assignment.replicas),
        "reassignment_in_progress": view.reassignment_in_progress,
        "zk_write": tp in result.written,
        "state": None if view.state is None else view.state.name,
    }
    leadership = render_leader_and_isr(view.leadership)
    if leadership is not None:
        rendered.update(leadership)
    return rendered


def _leaderships(engine: ZkController) -> dict[str, Any]:
    """Every partition's leadership as a checkpoint renders it (``None`` = no znode yet)."""
    return {str(v.partition): render_leader_and_isr(v.leadership) for v in engine.partitions()}


def evaluate_scenario(case: Mapping[str, Any]) -> CaseResult:
    """Drive a ``scenario`` case and compare every checkpoint."""
    engine = build_engine(case)
    ops = require(require(case, "input"), "ops")
    if not isinstance(ops, list) or not ops:
        raise OracleInputError("scenario needs a non-empty list of ops")
    expected: dict[str, Any] = {}
    actual: dict[str, Any] = {}
    before: dict[str, Any] = {}
    for i, op in enumerate(ops):
        checkpoint = op.get("checkpoint")
        prior = _leaderships(engine) if checkpoint else None
        engine, result = apply_op(engine, op)
        if checkpoint:
            label = f"ops[{i}].checkpoint"
            expected[label] = checkpoint
            actual[label] = render_checkpoint(engine, result, checkpoint)
            before[label] = prior
    if case.get("expected"):
        expected["expected"] = case["expected"]
        actual["expected"] = {}
    return verdict(case, expected, actual, "input", before)
