"""Kafka's own KRaft test cases (``kraft_builder``, ``kraft_cluster``) evaluated by the core."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from kafkactl_lab.oracle.kraft_cases import evaluate_kraft_builder, evaluate_kraft_cluster
from kafkactl_lab.oracle.result import CaseStatus
from tests.conftest import reference_dir

CASES_PATH = reference_dir() / "oracle" / "oracle_cases.json"
EVALUATORS = {"kraft_builder": evaluate_kraft_builder, "kraft_cluster": evaluate_kraft_cluster}


def _load_cases() -> list[dict[str, Any]]:
    if not CASES_PATH.is_file():
        return []
    cases = json.loads(CASES_PATH.read_text(encoding="utf-8"))
    return [case for case in cases if case.get("level") in EVALUATORS]


CASES = _load_cases()
_SKIP_REASON = (
    f"oracle cases not found at {CASES_PATH} (set KAFKACTL_REFERENCE to shared/reference)"
)


@pytest.mark.skipif(not CASES, reason=_SKIP_REASON)
@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_kraft_case_passes(case: dict[str, Any]) -> None:
    result = EVALUATORS[case["level"]](case)
    assert result.status is CaseStatus.passed, json.dumps(result.to_json_dict(), indent=1)


def _case(case_id: str) -> dict[str, Any]:
    for case in CASES:
        if case["id"] == case_id:
            return copy.deepcopy(case)
    pytest.skip(f"case {case_id} is not in {CASES_PATH}")


@pytest.mark.skipif(not CASES, reason=_SKIP_REASON)
def test_wrong_expected_record_fails_with_its_path() -> None:
    case = _case("kr-build-007")
    case["expected"]["record"]["leader"] = 1
    result = evaluate_kraft_builder(case)
    assert result.status is CaseStatus.failed
    assert any(m["path"].endswith("record.leader") for m in result.detail)


@pytest.mark.skipif(not CASES, reason=_SKIP_REASON)
def test_whole_record_rejects_an_unlisted_change_field() -> None:
    case = _case("kr-build-007")
    del case["expected"]["record"]["isr"]
    result = evaluate_kraft_builder(case)
    assert result.status is CaseStatus.failed
    assert {
        "path": "runs[0](3.7-IV0,elr=false).record.isr",
        "expected": "<unset>",
        "actual": [2, 3],
    } in result.detail


@pytest.mark.skipif(not CASES, reason=_SKIP_REASON)
def test_wrong_cluster_checkpoint_fails() -> None:
    case = _case("kr-unc-002")
    checkpoint = case["input"]["ops"][0]["checkpoint"]
    checkpoint["t-0"]["unclean"] = False
    result = evaluate_kraft_cluster(case)
    assert result.status is CaseStatus.failed
    assert result.detail == [
        {"path": "ops[0].checkpoint.t-0.unclean", "expected": False, "actual": True}
    ]


@pytest.mark.skipif(not CASES, reason=_SKIP_REASON)
def test_unclean_config_is_ignored_before_3_9() -> None:
    case = _case("kr-unc-002")
    case["kafka_version"] = "3.8"
    result = evaluate_kraft_cluster(case)
    assert result.status is CaseStatus.failed


@pytest.mark.skipif(not CASES, reason=_SKIP_REASON)
def test_exact_result_match_rejects_extra_partitions() -> None:
    case = _case("kr-rcm-005@all-partitions")
    del case["input"]["ops"][3]["checkpoint"]["result"]["foo-0"]
    result = evaluate_kraft_cluster(case)
    assert result.status is CaseStatus.failed
    assert result.detail[0]["path"] == "ops[3].checkpoint.result.foo-0"


@pytest.mark.parametrize(
    "case",
    [
        {"id": "broken-1", "level": "kraft_builder", "input": {}, "expected": {}},
        {"id": "broken-2", "level": "kraft_cluster", "input": {"initial": {}}, "expected": {}},
        {
            "id": "broken-3",
            "level": "kraft_cluster",
            "kafka_version": "3.9",
            "input": {
                "initial": {
                    "metadata_version": "3.9-IV0",
                    "eligible_leader_replicas_enabled": False,
                    "brokers": {"registered": [1]},
                },
                "ops": [{"op": "teleport_broker"}],
            },
            "expected": {},
        },
    ],
    ids=lambda case: case["id"],
)
def test_broken_cases_are_errors_not_exceptions(case: dict[str, Any]) -> None:
    evaluate = EVALUATORS[case["level"]]
    result = evaluate(case)
    assert result.status is CaseStatus.error
    assert isinstance(result.detail, str) and result.detail


def test_not_evaluable_case_reports_why() -> None:
    case = {"id": "x", "level": "kraft_builder", "evaluable": False, "why": "prose only"}
    result = evaluate_kraft_builder(case)
    assert result.status is CaseStatus.not_evaluable
    assert result.detail == "prose only"
