"""An expected ``leader_recovery_state: "unchanged"`` (SCHEMA.md §2) at every level carrying it.

Each case is a copy of a shipped case of ``reference/oracle/oracle_cases.json`` (copied here so
the tests run without the file) whose expected recovery state is replaced by ``"unchanged"``:
it must pass where the call or op keeps the partition's previous value and fail, naming that
value, where an (unclean) election changes it.
"""

from __future__ import annotations

import copy
from typing import Any

from kafkactl_lab.oracle.compare import Mismatch, partial_mismatches
from kafkactl_lab.oracle.result import CaseResult, CaseStatus
from kafkactl_lab.oracle.runner import evaluate_case

_ALGORITHM: dict[str, Any] = {
    "id": "zk-old-off-005",
    "level": "algorithm",
    "kafka_version": "3.8",
    "input": {
        "strategy": "offline",
        "assignment": [1, 2, 3],
        "isr": [1],
        "live_replicas": [2, 3],
        "unclean_enabled": True,
        "current_leader": 1,
        "inter_broker_protocol_version": "3.2-IV0",
        "liveness": {"live_brokers": [3, 2]},
    },
    "expected": {"leader": 2, "isr": [2], "unclean": True, "leader_recovery_state": "RECOVERING"},
}


def _partition_transition(
    case_id: str, given: dict[str, Any], expected: dict[str, Any]
) -> dict[str, Any]:
    """A state_machine case (Kafka 3.8): a transition of partition t-0 at controller epoch 50."""
    return {
        "id": case_id,
        "level": "state_machine",
        "kafka_version": "3.8",
        "input": {
            "machine": "partition",
            "operation": "transition",
            "partition": "t-0",
            "controller_epoch": 50,
            **given,
        },
        "expected": expected,
    }


_STATE_MACHINE = _partition_transition(
    "zk-psm-015a",
    {
        "current_state": "OfflinePartition",
        "target_state": "OnlinePartition",
        "strategy": "offline",
        "allow_unclean": True,
        "live_brokers": [5],
        "assignment": [6, 5],
        "inter_broker_protocol_version": "3.2-IV0",
        "zk_leader_and_isr": {
            "leader": 6,
            "leader_epoch": 0,
            "isr": [6],
            "leader_recovery_state": "RECOVERED",
            "partition_epoch": 0,
        },
    },
    {
        "state": "OnlinePartition",
        "written_leader_and_isr": {
            "leader": 5,
            "leader_epoch": 1,
            "isr": [5],
            "leader_recovery_state": "RECOVERING",
        },
        "leader_and_isr_recipients": [5],
        "unclean": True,
    },
)

_STATE_MACHINE_CREATE = _partition_transition(
    "zk-psm-004",
    {
        "current_state": "NewPartition",
        "target_state": "OnlinePartition",
        "strategy": "offline",
        "allow_unclean": False,
        "live_brokers": [5],
        "shutting_down_brokers": [],
        "assignment": [5],
        "zk_create_result": "OK",
    },
    {
        "state": "OnlinePartition",
        "created_leader_and_isr": {
            "leader": 5,
            "leader_epoch": 0,
            "isr": [5],
            "leader_recovery_state": "RECOVERED",
            "partition_epoch": 0,
        },
        "leader_and_isr_recipients": [5],
        "leader_and_isr_is_new": True,
    },
)

_SCENARIO: dict[str, Any] = {
    "id": "zk-int-019",
    "level": "scenario",
    "kafka_version": "3.8",
    "input": {
        "bindings": {"C": 0, "R1": 1, "R2": 2},
        "initial": {
            "brokers": [0, 1, 2],
            "live": [0, 1, 2],
            "controller": 0,
            "config": {
                "unclean.leader.election.enable": True,
                "auto.leader.rebalance.enable": False,
                "leader.imbalance.per.broker.percentage": 10,
                "leader.imbalance.check.interval.seconds": 1,
                "controlled.shutdown.enable": True,
                "inter.broker.protocol.version": "3.8-IV0",
            },
            "topics": {},
        },
        "ops": [
            {"op": "create_topic", "topic": "t", "assignment": {"0": [1, 2]}},
            {"op": "controlled_shutdown", "broker": 1},
            {"op": "broker_failure", "broker": 1, "checkpoint": {"t-0": {"leader": 2, "isr": [2]}}},
            {"op": "controlled_shutdown", "broker": 2},
            {
                "op": "broker_failure",
                "broker": 2,
                "checkpoint": {"t-0": {"leader": -1, "isr": [2]}},
            },
            {
                "op": "broker_startup",
                "broker": 1,
                "checkpoint": {
                    "t-0": {"leader": 1, "isr": [1], "leader_recovery_state": "RECOVERING"}
                },
            },
        ],
    },
    "expected": {},
}

_BUILDER_UNCLEAN: dict[str, Any] = {
    "id": "kr-build-019az",
    "level": "kraft_builder",
    "kafka_version": "3.9",
    "input": {
        "partition": {
            "replicas": [1, 2, 3],
            "isr": [2, 3],
            "leader": -1,
            "leader_recovery_state": "RECOVERED",
            "leader_epoch": 100,
            "partition_epoch": 200,
        },
        "runs": [{"metadata_version": "3.2-IV0", "eligible_leader_replicas_enabled": False}],
        "call": "build",
        "acceptable_leaders": [1],
        "election": "UNCLEAN",
        "min_isr": 2,
        "zk_migration_enabled": True,
    },
    "expected": {
        "record_fields": {"leader": 1, "isr": [1], "leaderRecoveryState": 1},
        "after_merge": {"leader": 1, "isr": [1], "leader_recovery_state": "RECOVERING"},
    },
}

_BUILDER_STEPS: dict[str, Any] = {
    "id": "kr-build-018az",
    "level": "kraft_builder",
    "kafka_version": "3.9",
    "input": {
        "partition": {
            "replicas": [1, 2, 3],
            "isr": [1],
            "leader": 1,
            "leader_recovery_state": "RECOVERING",
            "leader_epoch": 100,
            "partition_epoch": 200,
        },
        "runs": [{"metadata_version": "3.2-IV0", "eligible_leader_replicas_enabled": False}],
        "call": "build",
        "min_isr": 2,
        "zk_migration_enabled": True,
        "steps": [
            {"acceptable_leaders": [], "election": "ONLINE", "target_isr": []},
            {"acceptable_leaders": [1, 2, 3], "election": "ONLINE"},
        ],
    },
    "expected": {
        "steps": [
            {
                "record_fields": {"leader": -1, "leaderRecoveryState": -1},
                "after_merge": {
                    "leader": -1,
                    "isr_first": 1,
                    "leader_recovery_state": "RECOVERING",
                },
            },
            {
                "record_fields": {"leaderRecoveryState": -1},
                "after_merge": {"leader": 1, "isr_first": 1, "leader_recovery_state": "RECOVERING"},
            },
        ]
    },
}

_CLUSTER_UNCLEAN: dict[str, Any] = {
    "id": "kr-rcm-005@explicit-partitions",
    "level": "kraft_cluster",
    "kafka_version": "3.9",
    "input": {
        "initial": {
            "metadata_version": "3.6-IV1",
            "eligible_leader_replicas_enabled": False,
            "brokers": {
                "registered": [0, 1, 2, 3, 4],
                "unfenced": [0, 1, 2, 3, 4],
                "in_controlled_shutdown": [],
            },
            "broker_epochs": {"0": 100, "1": 101, "2": 102, "3": 103, "4": 104},
        },
        "ops": [
            {
                "op": "create_topic",
                "topic": "foo",
                "assignment": {"0": [1, 2, 3], "1": [2, 3, 4], "2": [0, 2, 1]},
            },
            {"op": "fence_brokers", "brokers": [2, 3]},
            {
                "op": "fence_brokers",
                "brokers": [1, 2, 3],
                "checkpoint": {
                    "foo-0": {"leader": -1, "isr": [1]},
                    "foo-1": {"leader": 4, "isr": [4]},
                    "foo-2": {"leader": 0, "isr": [0]},
                },
            },
            {
                "op": "elect_leaders",
                "election": "UNCLEAN",
                "partitions": ["foo-0", "foo-1", "foo-2"],
                "checkpoint": {
                    "records": [],
                    "result": {
                        "foo-0": {"error": "ELIGIBLE_LEADERS_NOT_AVAILABLE"},
                        "foo-1": {"error": "ELECTION_NOT_NEEDED"},
                        "foo-2": {"error": "ELECTION_NOT_NEEDED"},
                    },
                    "result_match": "exact",
                },
            },
            {"op": "unfence_brokers", "brokers": [2]},
            {"op": "alter_partition", "broker": 4, "partitions": {"foo-1": {"isr": [2, 4]}}},
            {
                "op": "elect_leaders",
                "election": "UNCLEAN",
                "partitions": ["foo-0", "foo-1", "foo-2"],
                "checkpoint": {
                    "records": [
                        {"type": "PartitionChangeRecord", "partitionId": 0, "leader": 2, "isr": [2]}
                    ],
                    "records_match": "fields",
                    "result": {
                        "foo-0": {"error": "NONE"},
                        "foo-1": {"error": "ELECTION_NOT_NEEDED"},
                        "foo-2": {"error": "ELECTION_NOT_NEEDED"},
                    },
                    "result_match": "exact",
                    "foo-0": {"leader": 2, "isr": [2]},
                    "foo-1": {"leader": 4, "isr": [2, 4]},
                    "foo-2": {"leader": 0, "isr": [0]},
                },
            },
        ],
    },
    "expected": {},
}

_CLUSTER_CREATE: dict[str, Any] = {
    "id": "kr-rcm-001",
    "level": "kraft_cluster",
    "kafka_version": "3.9",
    "input": {
        "initial": {
            "metadata_version": "4.0-IV1",
            "eligible_leader_replicas_enabled": False,
            "brokers": {"registered": [0, 1, 2], "unfenced": [0, 1], "in_controlled_shutdown": [1]},
            "broker_epochs": {"0": 100, "1": 101, "2": 102},
        },
        "ops": [
            {
                "op": "create_topic",
                "topic": "foo",
                "num_partitions": -1,
                "replication_factor": -1,
                "assume_placement": {"0": [1, 0, 2]},
                "checkpoint": {
                    "foo-0": {
                        "replicas": [1, 0, 2],
                        "isr": [0],
                        "leader": 0,
                        "leader_epoch": 0,
                        "partition_epoch": 0,
                        "leader_recovery_state": "RECOVERED",
                    }
                },
            }
        ],
    },
    "expected": {},
}


def _copy(case: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(case)


def _failed(result: CaseResult) -> list[Any]:
    assert result.status is CaseStatus.failed, result.to_json_dict()
    assert isinstance(result.detail, list)
    return result.detail


def _fails_as_not_unchanged(case: dict[str, Any], path: str) -> None:
    """The case fails at ``path`` alone: ``unchanged`` expected, RECOVERED became RECOVERING."""
    assert _failed(evaluate_case(case)) == [
        {"path": path, "expected": "unchanged (= RECOVERED before)", "actual": "RECOVERING"}
    ]


def _passes(case: dict[str, Any]) -> None:
    result = evaluate_case(case)
    assert result.status is CaseStatus.passed, result.to_json_dict()


# -- the rule ----------------------------------------------------------------------------------


def test_unchanged_is_resolved_against_the_value_before() -> None:
    expected = {"t-0": {"leader": 1, "leader_recovery_state": "unchanged"}}
    actual = {"t-0": {"leader": 1, "leader_recovery_state": "RECOVERING"}}
    kept = {"t-0": {"leader": 2, "leader_recovery_state": "RECOVERING"}}
    changed = {"t-0": {"leader": 2, "leader_recovery_state": "RECOVERED"}}
    assert partial_mismatches(expected, actual, "cp", kept) == []
    assert partial_mismatches(expected, actual, "cp", changed) == [
        Mismatch("cp.t-0.leader_recovery_state", "unchanged (= RECOVERED before)", "RECOVERING")
    ]


def test_unchanged_without_a_value_before_is_a_mismatch() -> None:
    expected = {"leader_recovery_state": "unchanged"}
    actual = {"leader_recovery_state": "RECOVERED"}
    want = [Mismatch("e.leader_recovery_state", "unchanged (no value before)", "RECOVERED")]
    assert partial_mismatches(expected, actual, "e") == want
    assert partial_mismatches(expected, actual, "e", {"t-0": None}) == want
    assert partial_mismatches(expected, actual, "e", {"leader_recovery_state": None}) == [
        Mismatch("e.leader_recovery_state", "unchanged (= None before)", "RECOVERED")
    ]


# -- algorithm ---------------------------------------------------------------------------------


def test_algorithm_unclean_recovering_is_not_unchanged() -> None:
    case = _copy(_ALGORITHM)
    _passes(case)  # as shipped: the unclean leader is written RECOVERING (IBP 3.2)
    case["expected"]["leader_recovery_state"] = "unchanged"
    _fails_as_not_unchanged(case, "expected.leader_recovery_state")


def test_algorithm_unclean_before_ibp_3_2_keeps_the_state() -> None:
    case = _copy(_ALGORITHM)
    case["input"]["inter_broker_protocol_version"] = "3.1-IV0"
    case["expected"]["leader_recovery_state"] = "unchanged"
    _passes(case)


# -- state_machine -----------------------------------------------------------------------------


def _written_unchanged(ibp: str, zk_state: str) -> dict[str, Any]:
    case = _copy(_STATE_MACHINE)
    case["input"]["inter_broker_protocol_version"] = ibp
    case["input"]["zk_leader_and_isr"]["leader_recovery_state"] = zk_state
    case["expected"]["written_leader_and_isr"]["leader_recovery_state"] = "unchanged"
    return case


def test_state_machine_unclean_recovering_is_not_unchanged() -> None:
    _passes(_copy(_STATE_MACHINE))
    _fails_as_not_unchanged(
        _written_unchanged("3.2-IV0", "RECOVERED"),
        "expected.written_leader_and_isr.leader_recovery_state",
    )


def test_state_machine_unchanged_is_the_input_leaderships_value() -> None:
    # Before IBP 3.2 the unclean election keeps the stored state, whichever it is.
    _passes(_written_unchanged("3.1-IV0", "RECOVERED"))
    _passes(_written_unchanged("3.1-IV0", "RECOVERING"))
    # From 3.2 it writes RECOVERING: unchanged when the stored leadership already was.
    _passes(_written_unchanged("3.2-IV0", "RECOVERING"))


def test_state_machine_created_leadership_has_no_value_before() -> None:
    case = _copy(_STATE_MACHINE_CREATE)
    _passes(case)
    case["expected"]["created_leader_and_isr"]["leader_recovery_state"] = "unchanged"
    assert _failed(evaluate_case(case)) == [
        {
            "path": "expected.created_leader_and_isr.leader_recovery_state",
            "expected": "unchanged (no value before)",
            "actual": "RECOVERED",
        }
    ]


# -- scenario ----------------------------------------------------------------------------------


def test_scenario_unclean_recovering_is_not_unchanged() -> None:
    case = _copy(_SCENARIO)
    _passes(case)  # as shipped: broker 1's return elects it uncleanly, RECOVERING
    case["input"]["ops"][5]["checkpoint"]["t-0"]["leader_recovery_state"] = "unchanged"
    _fails_as_not_unchanged(case, "input.ops[5].checkpoint.t-0.leader_recovery_state")


def test_scenario_unchanged_is_the_value_just_before_the_op() -> None:
    case = _copy(_SCENARIO)
    ops = case["input"]["ops"]
    ops[2]["checkpoint"]["t-0"]["leader_recovery_state"] = "unchanged"  # clean: RECOVERED kept
    # Broker 2's return changes no leadership: RECOVERING (set by op 5) is kept.
    ops.append(
        {
            "op": "broker_startup",
            "broker": 2,
            "checkpoint": {"t-0": {"leader": 1, "isr": [1], "leader_recovery_state": "unchanged"}},
        }
    )
    _passes(case)


# -- kraft_builder -----------------------------------------------------------------------------


def test_kraft_builder_unclean_recovering_is_not_unchanged() -> None:
    case = _copy(_BUILDER_UNCLEAN)
    _passes(case)  # as shipped: UNCLEAN at MV 3.2-IV0 sets RECOVERING
    case["expected"]["after_merge"]["leader_recovery_state"] = "unchanged"
    _fails_as_not_unchanged(case, "runs[0](3.2-IV0,elr=false).after_merge.leader_recovery_state")


def test_kraft_builder_steps_keep_the_input_state() -> None:
    case = _copy(_BUILDER_STEPS)
    for step in case["expected"]["steps"]:
        assert step["after_merge"]["leader_recovery_state"] == "RECOVERING"
        step["after_merge"]["leader_recovery_state"] = "unchanged"
    _passes(case)


def test_kraft_builder_step_unchanged_is_the_previous_steps_value() -> None:
    case = _copy(_BUILDER_UNCLEAN)
    # Two UNCLEAN steps: the first elects 1 RECOVERING, the second finds 1 leading already.
    case["input"]["steps"] = [{}, {}]
    unchanged = {"after_merge": {"leader": 1, "leader_recovery_state": "unchanged"}}
    case["expected"] = {"steps": [unchanged, unchanged]}
    _fails_as_not_unchanged(
        case, "runs[0](3.2-IV0,elr=false).steps[0].after_merge.leader_recovery_state"
    )


# -- kraft_cluster -----------------------------------------------------------------------------


def test_kraft_cluster_unclean_recovering_is_not_unchanged() -> None:
    case = _copy(_CLUSTER_UNCLEAN)
    _passes(case)
    checkpoint = case["input"]["ops"][6]["checkpoint"]
    for name in ("foo-0", "foo-1", "foo-2"):  # foo-1, foo-2: ELECTION_NOT_NEEDED, kept
        checkpoint[name]["leader_recovery_state"] = "unchanged"
    _fails_as_not_unchanged(case, "ops[6].checkpoint.foo-0.leader_recovery_state")


def test_kraft_cluster_unchanged_is_the_value_just_before_the_op() -> None:
    case = _copy(_CLUSTER_UNCLEAN)
    # A second UNCLEAN election finds foo-0 led (ELECTION_NOT_NEEDED): RECOVERING is kept.
    case["input"]["ops"].append(
        {
            "op": "elect_leaders",
            "election": "UNCLEAN",
            "partitions": ["foo-0"],
            "checkpoint": {
                "result": {"foo-0": {"error": "ELECTION_NOT_NEEDED"}},
                "foo-0": {"leader": 2, "leader_recovery_state": "unchanged"},
            },
        }
    )
    _passes(case)


def test_kraft_cluster_new_partition_has_no_value_before() -> None:
    case = _copy(_CLUSTER_CREATE)
    _passes(case)
    case["input"]["ops"][0]["checkpoint"]["foo-0"]["leader_recovery_state"] = "unchanged"
    assert _failed(evaluate_case(case)) == [
        {
            "path": "ops[0].checkpoint.foo-0.leader_recovery_state",
            "expected": "unchanged (no value before)",
            "actual": "RECOVERED",
        }
    ]
