"""Evaluation of the ``kraft_builder`` and ``kraft_cluster`` oracle cases (SCHEMA.md §7-8).

``evaluate_kraft_builder`` drives the KRaft ``PartitionChangeBuilder`` once per run (metadata
version and ELR flag), step by step on the partition merged with the previous record.
``evaluate_kraft_cluster`` drives ``KRaftCluster`` through the case's ops with the
ReplicationControlManagerTest helpers' semantics and checks each checkpoint after the op's
records were replayed. Checks assert only listed keys, except a ``record`` / ``change_record``
(the whole PartitionChangeRecord: unlisted change fields must be unset) and ``records`` under
``records_match: exact``; an expected ``"unchanged"`` is resolved against the partition before
the builder step or the op. Neither function raises: a broken case or an unexpected exception
is an ``error`` result carrying the message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kafkactl_core.kraft import directory_ids
from kafkactl_core.kraft.builder import (
    BuildResult,
    Election,
    ElectionResult,
    PartitionChangeBuilder,
)
from kafkactl_core.kraft.cluster import (
    AlterPartitionRequest,
    ClusterSettings,
    KRaftCluster,
    OpResult,
)
from kafkactl_core.kraft.configs import ConfigResourceType
from kafkactl_core.kraft.errors import ApiError
from kafkactl_core.kraft.metadata_version import MetadataVersion
from kafkactl_core.kraft.records import (
    NO_LEADER_CHANGE,
    NO_RECOVERY_STATE_CHANGE,
    BrokerRegistrationChangeRecord,
    ConfigRecord,
    PartitionChangeRecord,
    RecordAndVersion,
    RegisterBrokerRecord,
    TopicRecord,
)
from kafkactl_core.kraft.registration import PartitionRegistration
from kafkactl_core.model import LeaderRecoveryState, TopicPartition
from kafkactl_core.versions import KafkaRelease
from kafkactl_lab.oracle.compare import MISSING, Mismatch, partial_mismatches
from kafkactl_lab.oracle.result import CaseResult, CaseStatus

DEFAULT_TOPIC_ID = "FbrrdcfiR-KC2CPSTHaJrg"
"""Topic id used when a builder case names none (only compared when the case lists it)."""

_ID_FIELDS = ("partitionId", "topicId")
_UNSET = "<unset>"


# -- shared helpers ---------------------------------------------------------------------------


def _run_case(
    case: Mapping[str, Any], body: Callable[[Mapping[str, Any]], list[Mismatch]]
) -> CaseResult:
    case_id = str(case.get("id", "<no id>"))
    try:
        if case.get("evaluable") is False:
            return CaseResult(case_id, CaseStatus.not_evaluable, case.get("why"))
        mismatches = body(case)
    except Exception as exc:  # every failure of a case becomes a result, never an exception
        return CaseResult(case_id, CaseStatus.error, f"{type(exc).__name__}: {exc}")
    if mismatches:
        return CaseResult(case_id, CaseStatus.failed, [m.to_json_dict() for m in mismatches])
    return CaseResult(case_id, CaseStatus.passed)


def _ids(values: Any) -> tuple[int, ...]:
    return tuple(int(v) for v in values or ())


def _recovery_state(name: Any) -> LeaderRecoveryState:
    if isinstance(name, int):
        return LeaderRecoveryState(name)
    return LeaderRecoveryState[str(name)]


def _directories(values: Any) -> tuple[str, ...]:
    return tuple(directory_ids.from_text(str(v)) for v in values or ())


def record_fields(record: PartitionChangeRecord | None) -> dict[str, Any]:
    """Every field of a PartitionChangeRecord in JSON names, unset ones as -2 / -1 / None.

    Args:
        record: the record, or None for "no record" (every field unset).

    Returns:
        The ``record_fields`` view of SCHEMA.md §7.
    """
    if record is None:
        return {
            "isr": None,
            "leader": NO_LEADER_CHANGE,
            "replicas": None,
            "removingReplicas": None,
            "addingReplicas": None,
            "leaderRecoveryState": NO_RECOVERY_STATE_CHANGE,
            "directories": None,
            "eligibleLeaderReplicas": None,
            "lastKnownElr": None,
        }
    return {
        "partitionId": record.partition_id,
        "topicId": record.topic_id,
        "isr": _list(record.isr),
        "leader": record.leader,
        "replicas": _list(record.replicas),
        "removingReplicas": _list(record.removing_replicas),
        "addingReplicas": _list(record.adding_replicas),
        "leaderRecoveryState": (
            NO_RECOVERY_STATE_CHANGE
            if record.leader_recovery_state is None
            else record.leader_recovery_state.value
        ),
        "directories": (
            None
            if record.directories is None
            else [directory_ids.to_text(d) for d in record.directories]
        ),
        "eligibleLeaderReplicas": _list(record.eligible_leader_replicas),
        "lastKnownElr": _list(record.last_known_elr),
    }


def _list(values: Sequence[int] | None) -> list[int] | None:
    return None if values is None else list(values)


def set_fields(record: PartitionChangeRecord) -> dict[str, Any]:
    """The fields a PartitionChangeRecord sets, in JSON names (directories shown by name)."""
    data = record.to_json_dict()
    if "directories" in data:
        data["directories"] = [directory_ids.to_text(d) for d in data["directories"]]
    return data


def _normalize_expected_record(expected: Mapping[str, Any]) -> dict[str, Any]:
    want = dict(expected)
    if isinstance(want.get("directories"), list):
        want["directories"] = [
            directory_ids.to_text(directory_ids.from_text(str(d))) for d in want["directories"]
        ]
    return want


def whole_record_mismatches(
    expected: Mapping[str, Any] | None, actual: PartitionChangeRecord | None, path: str
) -> list[Mismatch]:
    """Compare a whole PartitionChangeRecord: listed fields equal, unlisted change fields unset.

    ``partitionId`` and ``topicId`` are compared only when listed.

    Args:
        expected: the case's record (JSON names), None for "no record".
        actual: the record built, or None.
        path: where the record sits in the case.

    Returns:
        The mismatches.
    """
    if expected is None:
        return [] if actual is None else [Mismatch(path, None, set_fields(actual))]
    if actual is None:
        return [Mismatch(path, dict(expected), None)]
    want = _normalize_expected_record(expected)
    want.pop("type", None)
    want.pop("version", None)
    got = set_fields(actual)
    keys = [k for k in want if k not in got] + list(got)
    found: list[Mismatch] = []
    for key in keys:
        if key in _ID_FIELDS and key not in want:
            continue
        sub = f"{path}.{key}"
        if key not in want:
            found.append(Mismatch(sub, _UNSET, got[key]))
        elif key not in got:
            found.append(Mismatch(sub, want[key], _UNSET))
        else:
            found.extend(partial_mismatches(want[key], got[key], sub))
    return found


# -- kraft_builder ----------------------------------------------------------------------------

_BUILDER_PARAMS = frozenset(
    {
        "acceptable_leaders",
        "election",
        "min_isr",
        "target_isr",
        "target_replicas",
        "target_removing",
        "target_adding",
        "target_leader_recovery_state",
        "unclean_shutdown_replicas",
        "use_last_known_leader",
        "zk_migration_enabled",
        "set_directory",
        "default_dir",
    }
)
_BUILDER_INPUT_KEYS = frozenset({"partition", "runs", "call", "steps"}) | _BUILDER_PARAMS
_CALLS = frozenset(
    {
        "build",
        "electLeader",
        "electLeader+build",
        "triggerLeaderEpochBump",
        "triggerLeaderEpochBumpForIsrShrinkIfNeeded",
    }
)


def partition_from_case(data: Mapping[str, Any]) -> PartitionRegistration:
    """A registration from a case's ``partition`` object (SCHEMA.md §7).

    Args:
        data: ``replicas``, ``isr``, ``leader`` and the optional fields.

    Returns:
        The registration.
    """
    return PartitionRegistration(
        replicas=_ids(data["replicas"]),
        isr=_ids(data["isr"]),
        leader=int(data["leader"]),
        leader_epoch=int(data.get("leader_epoch", 0)),
        partition_epoch=int(data.get("partition_epoch", 0)),
        leader_recovery_state=_recovery_state(data.get("leader_recovery_state", "RECOVERED")),
        removing_replicas=_ids(data.get("removing_replicas")),
        adding_replicas=_ids(data.get("adding_replicas")),
        directories=_directories(data.get("directories")),
        elr=_ids(data.get("elr")),
        last_known_elr=_ids(data.get("last_known_elr")),
    )


def _make_builder(
    partition: PartitionRegistration,
    topic_id: str,
    params: Mapping[str, Any],
    metadata_version: MetadataVersion,
    elr_enabled: bool,
    release: KafkaRelease,
) -> PartitionChangeBuilder:
    unknown = set(params) - _BUILDER_PARAMS
    if unknown:
        raise ValueError(f"unknown builder parameters {sorted(unknown)}")
    acceptable = params.get("acceptable_leaders")
    allowed = None if acceptable is None else frozenset(_ids(acceptable))

    def is_acceptable(broker: int) -> bool:
        return allowed is None or broker in allowed

    builder = PartitionChangeBuilder(
        partition,
        topic_id,
        0,
        is_acceptable,
        metadata_version,
        int(params.get("min_isr", 1)),
        release=release,
    )
    builder.set_election(Election[str(params.get("election", "ONLINE"))])
    builder.set_eligible_leader_replicas_enabled(elr_enabled)
    builder.set_use_last_known_leader_in_balanced_recovery(
        bool(params.get("use_last_known_leader", True))
    )
    builder.set_zk_migration_enabled(bool(params.get("zk_migration_enabled", False)))
    if "target_isr" in params:
        builder.set_target_isr(_ids(params["target_isr"]))
    if "target_replicas" in params:
        builder.set_target_replicas(_ids(params["target_replicas"]))
    if "target_removing" in params:
        builder.set_target_removing(_ids(params["target_removing"]))
    if "target_adding" in params:
        builder.set_target_adding(_ids(params["target_adding"]))
    if "target_leader_recovery_state" in params:
        builder.set_target_leader_recovery_state(
            _recovery_state(params["target_leader_recovery_state"])
        )
    if params.get("unclean_shutdown_replicas") is not None:
        builder.set_unclean_shutdown_replicas(_ids(params["unclean_shutdown_replicas"]))
    for broker, directory in (params.get("set_directory") or {}).items():
        builder.set_directory(int(broker), directory_ids.from_text(str(directory)))
    default_dir = directory_ids.from_text(str(params.get("default_dir", "UNASSIGNED")))
    builder.set_default_dir_provider(lambda _broker: default_dir)
    return builder


@dataclasses.dataclass(frozen=True, slots=True)
class _StepOutcome:
    before: PartitionRegistration
    after: PartitionRegistration
    election: ElectionResult | None
    record: PartitionChangeRecord | None
    record_version: int | None
    built: bool

    def view(self) -> dict[str, Any]:
        after = self.after
        view: dict[str, Any] = {
            "record_fields": record_fields(self.record),
            "record_leader_field": (
                NO_LEADER_CHANGE if self.record is None else self.record.leader
            ),
            "after_merge": _merge_view(after),
            "leader_epoch_delta": after.leader_epoch - self.before.leader_epoch,
            "partition_epoch_delta": after.partition_epoch - self.before.partition_epoch,
        }
        if self.record_version is not None:
            view["record_version"] = self.record_version
        if self.election is not None:
            view["elected_node"] = self.election.node
            view["unclean"] = self.election.unclean
        return view

    def before_view(self) -> dict[str, Any]:
        """The partition before the call, in ``view`` shape (resolves ``"unchanged"``)."""
        return {"after_merge": _merge_view(self.before)}


def _merge_view(partition: PartitionRegistration) -> dict[str, Any]:
    return {
        "leader": partition.leader,
        "isr": list(partition.isr),
        "isr_first": partition.isr[0] if partition.isr else None,
        "leader_recovery_state": partition.leader_recovery_state.name,
        "elr": list(partition.elr),
        "last_known_elr": list(partition.last_known_elr),
        "replicas": list(partition.replicas),
        "leader_epoch": partition.leader_epoch,
        "partition_epoch": partition.partition_epoch,
    }


def _run_builder_call(
    call: str, builder: PartitionChangeBuilder, partition: PartitionRegistration, topic_id: str
) -> _StepOutcome:
    if call == "electLeader":
        election = builder.elect_leader()
        return _StepOutcome(partition, partition, election, None, None, False)
    if call in ("build", "electLeader+build"):
        first = builder.elect_leader() if call == "electLeader+build" else None
        built = builder.build()
        after = partition if built.record is None else partition.merge(built.record)
        election = first if first is not None else built.election
        return _StepOutcome(partition, after, election, built.record, built.version, True)
    record = PartitionChangeRecord(0, topic_id)
    if call == "triggerLeaderEpochBump":
        record = builder.trigger_leader_epoch_bump_for_replica_reassignment_if_needed(record)
        record = dataclasses.replace(record, isr=builder.target_isr)
    record = builder.trigger_leader_epoch_bump_for_isr_shrink_if_needed(record)
    return _StepOutcome(partition, partition, None, record, None, False)


def _outcome_mismatches(
    expected: Mapping[str, Any], outcome: _StepOutcome, path: str
) -> list[Mismatch]:
    found: list[Mismatch] = []
    view = outcome.view()
    before = outcome.before_view()
    for key, want in expected.items():
        sub = f"{path}.{key}" if path else key
        if key == "record":
            found.extend(whole_record_mismatches(want, outcome.record, sub))
        elif key == "record_fields":
            want_fields = _normalize_expected_record(want)
            found.extend(partial_mismatches(want_fields, view["record_fields"], sub))
        else:
            found.extend(
                _view_mismatches(want, key, view, before, sub, "<not computed for this call>")
            )
    return found


def _view_mismatches(
    want: Any,
    key: str,
    view: Mapping[str, Any],
    before: Mapping[str, Any],
    sub: str,
    absent: str,
) -> list[Mismatch]:
    """``want`` against ``view[key]`` (``before[key]`` the value it changed from).

    Args:
        want: the expected value.
        key: the view's entry to compare.
        view: the computed values after the call.
        before: the same entries before the call (for ``"unchanged"``).
        sub: the path to cite.
        absent: the actual value to report when the view has no such entry.

    Returns:
        The mismatches, one with ``absent`` when ``key`` is not in the view.
    """
    if key not in view:
        return [Mismatch(sub, want, absent)]
    return partial_mismatches(want, view[key], sub, before.get(key, MISSING))


def _builder_body(case: Mapping[str, Any]) -> list[Mismatch]:
    spec = case["input"]
    expected = case.get("expected") or {}
    unknown = set(spec) - _BUILDER_INPUT_KEYS
    if unknown:
        raise ValueError(f"unknown kraft_builder input keys {sorted(unknown)}")
    call = str(spec["call"])
    if call not in _CALLS:
        raise ValueError(f"unknown builder call {call!r}")
    release = KafkaRelease.parse(str(case.get("kafka_version", "3.9")))
    partition_spec = spec["partition"]
    topic_id = str(partition_spec.get("topic_id", DEFAULT_TOPIC_ID))
    shared = {k: v for k, v in spec.items() if k in _BUILDER_PARAMS}
    steps: list[Mapping[str, Any]] = list(spec.get("steps") or [{}])
    expected_steps = expected.get("steps")
    if expected_steps is not None and len(expected_steps) != len(steps):
        raise ValueError("expected.steps and input.steps differ in length")
    found: list[Mismatch] = []
    for index, run in enumerate(spec["runs"]):
        mv = MetadataVersion.parse(str(run["metadata_version"]))
        elr = bool(run["eligible_leader_replicas_enabled"])
        label = f"runs[{index}]({mv},elr={str(elr).lower()})"
        partition = partition_from_case(partition_spec)
        outcomes: list[_StepOutcome] = []
        for step in steps:
            builder = _make_builder(partition, topic_id, {**shared, **step}, mv, elr, release)
            outcome = _run_builder_call(call, builder, partition, topic_id)
            outcomes.append(outcome)
            partition = outcome.after
        if expected_steps is not None:
            for number, (want, outcome) in enumerate(zip(expected_steps, outcomes, strict=True)):
                found.extend(_outcome_mismatches(want, outcome, f"{label}.steps[{number}]"))
        rest = {k: v for k, v in expected.items() if k != "steps"}
        found.extend(_outcome_mismatches(rest, outcomes[-1], label))
    return found


def evaluate_kraft_builder(case: Mapping[str, Any]) -> CaseResult:
    """Evaluate one ``kraft_builder`` case (SCHEMA.md §7) against the PartitionChangeBuilder.

    Every run (metadata version, ELR flag) must satisfy the same expectations.

    Args:
        case: the case object.

    Returns:
        pass, fail (with each mismatch), error (with the exception text) or not_evaluable.
    """
    return _run_case(case, _builder_body)


def evaluate_kraft_cluster(case: Mapping[str, Any]) -> CaseResult:
    """Evaluate one ``kraft_cluster`` case (SCHEMA.md §8) against the KRaft cluster model.

    Args:
        case: the case object.

    Returns:
        pass, fail (with each mismatch), error (with the exception text) or not_evaluable.
    """
    return _run_case(case, _cluster_body)


# -- kraft_cluster ----------------------------------------------------------------------------

_RCM_DEFAULT_REPLICATION_FACTOR = 3
"""``ReplicationControlManager.Builder`` default the ReplicationControlManagerTest context uses."""

_RCM_MAX_ELECTIONS_PER_IMBALANCE = 2**31 - 1
"""The test context sets ``maxElectionsPerImbalance`` to ``Integer.MAX_VALUE``."""

_RCM_DEFAULT_CONTROLLER_NODE_ID = 0
"""The test context's controller node id."""


def _rcm_broker_epoch(broker: int) -> int:
    """``ReplicationControlTestContext.defaultBrokerEpoch``."""
    return 100 + broker


def _rcm_broker_dir(broker: int) -> str:
    """The single log directory the test context registers each broker with."""
    return f"TESTBROKER{str(100000 + broker)[1:]}DIRAAAA"


@dataclasses.dataclass(slots=True)
class _OpOutcome:
    records: list[RecordAndVersion] = dataclasses.field(default_factory=list)
    result: dict[str, Any] = dataclasses.field(default_factory=dict)
    elections: dict[TopicPartition, BuildResult] = dataclasses.field(default_factory=dict)
    reschedule: bool | None = None

    def absorb(self, outcome: OpResult[Any]) -> None:
        if outcome.replay_errors:
            raise ValueError(f"records did not replay: {list(outcome.replay_errors)}")
        self.records.extend(outcome.records)
        self.elections.update(outcome.elections)


class _ClusterDriver:
    """Runs SCHEMA.md §8 ops on a KRaftCluster with the RCM test helpers' semantics."""

    def __init__(self, initial: Mapping[str, Any], release: KafkaRelease) -> None:
        settings = ClusterSettings(
            metadata_version=MetadataVersion.parse(str(initial["metadata_version"])),
            release=release,
            eligible_leader_replicas_enabled=bool(initial["eligible_leader_replicas_enabled"]),
            controller_node_id=int(
                initial.get("controller_node_id", _RCM_DEFAULT_CONTROLLER_NODE_ID)
            ),
            static_config={str(k): str(v) for k, v in (initial.get("static_config") or {}).items()},
            default_replication_factor=_RCM_DEFAULT_REPLICATION_FACTOR,
            max_elections_per_imbalance=_RCM_MAX_ELECTIONS_PER_IMBALANCE,
        )
        self.cluster = KRaftCluster(settings)
        self.epochs = {int(k): int(v) for k, v in (initial.get("broker_epochs") or {}).items()}
        brokers = initial["brokers"]
        sink = _OpOutcome()
        for broker in _ids(brokers["registered"]):
            self._register(broker, sink)
        for broker in _ids(brokers.get("unfenced")):
            sink.absorb(self.cluster.heartbeat(broker))
        for broker in _ids(brokers.get("in_controlled_shutdown")):
            sink.absorb(self.cluster.set_in_controlled_shutdown(broker))
        for name, spec in (initial.get("topics") or {}).items():
            self._load_topic(str(name), spec or {})

    def _register(self, broker: int, sink: _OpOutcome) -> None:
        # The test helper replays a v3 RegisterBrokerRecord with one log directory, whatever
        # the metadata version.
        epoch = self.epochs.get(broker, _rcm_broker_epoch(broker))
        self.epochs[broker] = epoch
        record = RegisterBrokerRecord(broker, epoch, log_dirs=(_rcm_broker_dir(broker),))
        error = self.cluster.replay(record)
        if error is not None:
            raise ValueError(f"register broker {broker}: {error}")
        sink.records.append(RecordAndVersion(record, 3))

    def _load_topic(self, name: str, spec: Mapping[str, Any]) -> None:
        cluster = self.cluster
        topic_id = cluster.allocate_topic_id(name)
        records: list[Any] = [TopicRecord(name, topic_id)]
        for key, value in (spec.get("config") or {}).items():
            records.append(
                ConfigRecord(ConfigResourceType.TOPIC, name, str(key), _config_value(value))
            )
        for number, data in (spec.get("partitions") or {}).items():
            replicas = _ids(data["replicas"])
            registration = PartitionRegistration(
                replicas=replicas,
                isr=_ids(data["isr"]),
                leader=int(data["leader"]),
                leader_epoch=int(data.get("leader_epoch", 0)),
                partition_epoch=int(data.get("partition_epoch", 0)),
                leader_recovery_state=_recovery_state(
                    data.get("leader_recovery_state", "RECOVERED")
                ),
                directories=tuple(cluster.default_dir(b) for b in replicas),
                elr=_ids(data.get("elr")),
                last_known_elr=_ids(data.get("last_known_elr")),
            )
            records.append(
                registration.to_record(topic_id, int(number), cluster.metadata_version).record
            )
        for record in records:
            error = cluster.replay(record)
            if error is not None:
                raise ValueError(f"initial topic {name}: {error}")

    def _partition_name(self, text: str) -> TopicPartition:
        return TopicPartition.parse(str(text))

    def run(self, op: Mapping[str, Any]) -> _OpOutcome:
        name = str(op["op"])
        handler = getattr(self, "_op_" + name, None)
        if handler is None:
            raise ValueError(f"unknown kraft_cluster op {name!r}")
        outcome = _OpOutcome()
        handler(op, outcome)
        return outcome

    def _op_register_brokers(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        for broker in _ids(op["brokers"]):
            self._register(broker, out)

    def _op_unfence_brokers(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        for broker in _ids(op["brokers"]):
            self._heartbeat(broker, False, None, out)

    def _op_fence_brokers(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        listed = _ids(op["brokers"])
        for broker in sorted(self.cluster.brokers):
            if broker not in listed:
                self._heartbeat(broker, False, None, out)
        for broker in listed:
            registration = self.cluster.broker(broker)
            if registration is not None and not registration.fenced:
                out.absorb(self.cluster.fence_stale_broker(broker))

    def _op_set_in_controlled_shutdown(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        for broker in _ids(op["brokers"]):
            out.absorb(self.cluster.set_in_controlled_shutdown(broker))

    def _heartbeat(
        self, broker: int, want_shut_down: bool, epoch: int | None, out: _OpOutcome
    ) -> None:
        result = self.cluster.heartbeat(broker, broker_epoch=epoch, want_shut_down=want_shut_down)
        out.absorb(result)
        reply = result.response
        out.result[str(broker)] = (
            reply.to_json_dict()
            if isinstance(reply, ApiError)
            else {"error": "NONE", **reply.to_json_dict()}
        )

    def _op_heartbeat(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        epoch = op.get("broker_epoch")
        self._heartbeat(
            int(op["broker"]),
            bool(op.get("want_shut_down", False)),
            None if epoch is None else int(epoch),
            out,
        )

    def _op_unclean_shutdown(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        out.absorb(self.cluster.unclean_shutdown(_ids(op["brokers"])))

    def _op_unregister_broker(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        result = self.cluster.unregister_broker(int(op["broker"]))
        out.absorb(result)
        out.result[str(op["broker"])] = result.response.to_json_dict()

    def _op_create_topic(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        name = str(op["topic"])
        assignment = op.get("assignment")
        result = self.cluster.create_topic(
            name,
            assignment=None if assignment is None else _assignment(assignment),
            num_partitions=int(op.get("num_partitions", -1)),
            replication_factor=int(op.get("replication_factor", -1)),
            configs={str(k): _config_value(v) for k, v in (op.get("config") or {}).items()},
            placement=_placement(op.get("assume_placement")),
        )
        out.absorb(result)
        out.result[name] = result.response.to_json_dict()

    def _op_create_partitions(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        name = str(op["topic"])
        assignment = op.get("assignment")
        manual = None
        if assignment is not None:
            manual = (
                [_ids(v) for _, v in sorted(_assignment(assignment).items())]
                if isinstance(assignment, Mapping)
                else [_ids(v) for v in assignment]
            )
        result = self.cluster.create_partitions(
            name,
            int(op["count"]),
            assignment=manual,
            placement=_placement(op.get("assume_placement")),
        )
        out.absorb(result)
        out.result[name] = result.response.to_json_dict()

    def _op_delete_topic(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        name = str(op["topic"])
        result = self.cluster.delete_topic(name)
        out.absorb(result)
        out.result[name] = result.response.to_json_dict()

    def _op_alter_partition(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        requests: dict[TopicPartition, AlterPartitionRequest] = {}
        for text, data in op["partitions"].items():
            epoch = data.get("leader_epoch")
            partition_epoch = data.get("partition_epoch")
            requests[self._partition_name(text)] = AlterPartitionRequest(
                new_isr=_ids(data["isr"]),
                leader_epoch=None if epoch is None else int(epoch),
                partition_epoch=None if partition_epoch is None else int(partition_epoch),
                leader_recovery_state=_recovery_state(
                    data.get("leader_recovery_state", "RECOVERED")
                ),
            )
        epoch = op.get("broker_epoch")
        result = self.cluster.alter_partition(
            int(op["broker"]),
            requests,
            broker_epoch=None if epoch is None else int(epoch),
            version=int(op.get("alter_partition_version", 3)),
        )
        out.absorb(result)
        for tp, answer in result.response.items():
            out.result[str(tp)] = answer.to_json_dict()

    def _op_elect_leaders(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        names = op.get("partitions")
        partitions = None if names is None else [self._partition_name(n) for n in names]
        result = self.cluster.elect_leaders(Election[str(op["election"])], partitions)
        out.absorb(result)
        for tp, error in result.response.items():
            out.result[str(tp)] = error.to_json_dict()

    def _op_balance_partition_leaders(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        result = self.cluster.balance_partition_leaders()
        out.absorb(result)
        out.reschedule = result.response

    def _op_elect_unclean_leaders(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        result = self.cluster.elect_unclean_leaders()
        out.absorb(result)
        out.reschedule = result.response

    def _op_set_config(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        resource = ConfigResourceType[str(op["resource_type"]).upper()]
        name = str(op["resource_name"])
        result = self.cluster.set_config(
            resource, name, str(op["name"]), _config_value(op.get("value"))
        )
        out.absorb(result)
        out.result[name] = result.response.to_json_dict()

    def _op_reassign(self, op: Mapping[str, Any], out: _OpOutcome) -> None:
        target = op.get("target")
        tp = self._partition_name(op["partition"])
        result = self.cluster.reassign_partition(tp, None if target is None else _ids(target))
        out.absorb(result)
        out.result[str(tp)] = result.response.to_json_dict()


def _config_value(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _assignment(data: Mapping[str, Any]) -> dict[int, tuple[int, ...]]:
    return {int(number): _ids(replicas) for number, replicas in data.items()}


def _placement(data: Any) -> dict[int, tuple[int, ...]] | None:
    return None if data is None else _assignment(data)


def _partition_view(
    partition: PartitionRegistration, before: PartitionRegistration | None
) -> dict[str, Any]:
    view: dict[str, Any] = {
        "leader": partition.leader,
        "isr": list(partition.isr),
        "elr": list(partition.elr),
        "last_known_elr": list(partition.last_known_elr),
        "replicas": list(partition.replicas),
        "adding_replicas": list(partition.adding_replicas),
        "removing_replicas": list(partition.removing_replicas),
        "directories": [directory_ids.to_text(d) for d in partition.directories],
        "leader_epoch": partition.leader_epoch,
        "partition_epoch": partition.partition_epoch,
        "leader_recovery_state": partition.leader_recovery_state.name,
    }
    if before is not None:
        view["leader_epoch_delta"] = partition.leader_epoch - before.leader_epoch
        view["partition_epoch_delta"] = partition.partition_epoch - before.partition_epoch
    return view


_RECORD_TYPE_NAMES = {
    "PartitionChangeRecord": PartitionChangeRecord,
    "BrokerRegistrationChangeRecord": BrokerRegistrationChangeRecord,
}
_ALWAYS_WRITTEN = {
    "PartitionChangeRecord": ("partitionId", "topicId"),
    "BrokerRegistrationChangeRecord": ("brokerId", "brokerEpoch"),
}
_BRCR_DEFAULTS: dict[str, Any] = {"fenced": 0, "inControlledShutdown": 0, "logDirs": []}


def _render_record(written: RecordAndVersion) -> dict[str, Any]:
    record = written.record
    fields = (
        set_fields(record) if isinstance(record, PartitionChangeRecord) else record.to_json_dict()
    )
    return {"type": type(record).__name__, "version": written.version, **fields}


def _record_mismatches(
    want: Mapping[str, Any], written: RecordAndVersion, exact: bool, path: str
) -> list[Mismatch]:
    kind = str(want.get("type", "PartitionChangeRecord"))
    record = written.record
    actual_kind = type(record).__name__
    if actual_kind != kind:
        return [Mismatch(f"{path}.type", kind, actual_kind)]
    found: list[Mismatch] = []
    if "version" in want:
        found.extend(partial_mismatches(want["version"], written.version, f"{path}.version"))
    fields = {k: v for k, v in want.items() if k not in ("type", "version")}
    if isinstance(record, PartitionChangeRecord):
        if exact:
            found.extend(whole_record_mismatches(fields, record, path))
        else:
            found.extend(
                partial_mismatches(_normalize_expected_record(fields), record_fields(record), path)
            )
        return found
    got = record.to_json_dict()
    if isinstance(record, BrokerRegistrationChangeRecord):
        got = {**_BRCR_DEFAULTS, **got}
    if exact:
        listed_only = _ALWAYS_WRITTEN.get(kind, tuple(got))
        for key, value in got.items():
            if key in fields:
                found.extend(partial_mismatches(fields[key], value, f"{path}.{key}"))
            elif key not in listed_only and value != _BRCR_DEFAULTS.get(key, value):
                found.append(Mismatch(f"{path}.{key}", _UNSET, value))
        for key in fields:
            if key not in got:
                found.append(Mismatch(f"{path}.{key}", fields[key], _UNSET))
        return found
    found.extend(partial_mismatches(fields, got, path))
    return found


def _records_mismatches(
    want: Sequence[Mapping[str, Any]], records: Sequence[RecordAndVersion], mode: str, path: str
) -> list[Mismatch]:
    if mode not in ("exact", "fields"):
        raise ValueError(f"unknown records_match {mode!r}")
    if len(want) != len(records):
        return [Mismatch(path, list(want), [_render_record(r) for r in records])]
    found: list[Mismatch] = []
    for index, (expected, written) in enumerate(zip(want, records, strict=True)):
        found.extend(_record_mismatches(expected, written, mode == "exact", f"{path}[{index}]"))
    return found


def _checkpoint_mismatches(
    checkpoint: Mapping[str, Any],
    driver: _ClusterDriver,
    before: Mapping[TopicPartition, PartitionRegistration],
    outcome: _OpOutcome,
    path: str,
) -> list[Mismatch]:
    cluster = driver.cluster
    found: list[Mismatch] = []
    for key, want in checkpoint.items():
        sub = f"{path}.{key}"
        if key in ("records_match", "result_match"):
            continue
        if key == "records":
            mode = str(checkpoint.get("records_match", "exact"))
            found.extend(_records_mismatches(want, outcome.records, mode, sub))
        elif key == "records_nonempty":
            found.extend(partial_mismatches(want, bool(outcome.records), sub))
        elif key == "result":
            found.extend(_result_mismatches(want, outcome.result, checkpoint, sub))
        elif key == "imbalanced":
            found.extend(partial_mismatches(want, bool(cluster.imbalanced_partitions()), sub))
        elif key == "reschedule_immediately":
            found.extend(partial_mismatches(want, outcome.reschedule, sub))
        elif key == "effective_min_isr":
            actual = {topic: cluster.effective_min_isr(topic) for topic in want}
            found.extend(partial_mismatches(want, actual, sub))
        elif key == "isr_elr_index_empty":
            found.extend(partial_mismatches(want, cluster.isr_elr_index_empty(), sub))
        else:
            found.extend(_partition_mismatches(key, want, sub, driver, before, outcome))
    return found


def _result_mismatches(
    want: Mapping[str, Any], result: Mapping[str, Any], checkpoint: Mapping[str, Any], path: str
) -> list[Mismatch]:
    mode = str(checkpoint.get("result_match", "listed"))
    if mode not in ("listed", "exact"):
        raise ValueError(f"unknown result_match {mode!r}")
    found = partial_mismatches(want, result, path)
    if mode == "exact":
        for extra in result.keys() - want.keys():
            found.append(Mismatch(f"{path}.{extra}", "<absent>", result[extra]))
    return found


def _partition_mismatches(
    name: str,
    want: Mapping[str, Any],
    path: str,
    driver: _ClusterDriver,
    before: Mapping[TopicPartition, PartitionRegistration],
    outcome: _OpOutcome,
) -> list[Mismatch]:
    tp = TopicPartition.parse(name)
    partition = driver.cluster.partition(tp)
    if partition is None:
        return [Mismatch(path, dict(want), "<no such partition>")]
    previous = before.get(tp)
    view = _partition_view(partition, previous)
    prior = {} if previous is None else _partition_view(previous, None)
    topic_id = driver.cluster.topic_id(tp.topic)
    found: list[Mismatch] = []
    for key, value in want.items():
        sub = f"{path}.{key}"
        if key == "leader_not":
            if partition.leader == int(value):
                found.append(Mismatch(sub, f"not {value}", partition.leader))
        elif key == "change_record":
            changes = [
                w.record
                for w in outcome.records
                if isinstance(w.record, PartitionChangeRecord)
                and w.record.topic_id == topic_id
                and w.record.partition_id == tp.partition
            ]
            found.extend(whole_record_mismatches(value, changes[-1] if changes else None, sub))
        elif key == "unclean":
            built = outcome.elections.get(tp)
            unclean = (
                built is not None
                and built.election.unclean
                and previous is not None
                and built.election.node != previous.leader
            )
            found.extend(partial_mismatches(value, unclean, sub))
        elif key == "directories" and isinstance(value, list):
            normal = [directory_ids.to_text(directory_ids.from_text(str(d))) for d in value]
            found.extend(partial_mismatches(normal, view["directories"], sub))
        else:
            found.extend(_view_mismatches(value, key, view, prior, sub, "<missing>"))
    return found


def _cluster_body(case: Mapping[str, Any]) -> list[Mismatch]:
    spec = case["input"]
    release = KafkaRelease.parse(str(case.get("kafka_version", "3.9")))
    driver = _ClusterDriver(spec["initial"], release)
    found: list[Mismatch] = []
    for index, op in enumerate(spec["ops"]):
        before = driver.cluster.partitions()
        outcome = driver.run(op)
        checkpoint = op.get("checkpoint")
        if checkpoint:
            found.extend(
                _checkpoint_mismatches(
                    checkpoint, driver, before, outcome, f"ops[{index}].checkpoint"
                )
            )
    return found
