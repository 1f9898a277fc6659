"""The oracle runner's contract: statuses, never raising per case, file errors with the name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafkactl_lab.oracle.result import CaseStatus
from kafkactl_lab.oracle.runner import OracleFileError, evaluate_case, evaluate_file

_ALG = {
    "id": "x-alg",
    "level": "algorithm",
    "kafka_version": "3.8",
    "input": {
        "strategy": "offline",
        "assignment": [2, 4],
        "isr": [2],
        "live_replicas": [4],
        "unclean_enabled": True,
    },
    "expected": {"leader": 4, "unclean": True},
}


def test_pass_and_fail() -> None:
    assert evaluate_case(_ALG).status is CaseStatus.passed
    wrong = {**_ALG, "expected": {"leader": 2}}
    result = evaluate_case(wrong)
    assert result.status is CaseStatus.failed
    assert result.detail == [{"path": "expected.leader", "expected": 2, "actual": 4}]


def test_not_evaluable_carries_why() -> None:
    result = evaluate_case({"id": "n", "level": "scenario", "evaluable": False, "why": "prose"})
    assert result.status is CaseStatus.not_evaluable
    assert result.detail == "prose"


@pytest.mark.parametrize(
    "case",
    [
        {"id": "bad-level", "level": "nope"},
        {"id": "no-input", "level": "algorithm", "kafka_version": "3.8"},
        {"id": "bad-version", "level": "algorithm", "kafka_version": "x", "input": {}},
        {"id": "bad-op", "level": "scenario", "kafka_version": "3.8", "input": {"initial": {}}},
    ],
)
def test_bad_cases_are_errors_not_exceptions(case: dict[str, object]) -> None:
    result = evaluate_case(case)
    assert result.status is CaseStatus.error
    assert result.case_id == case["id"]
    assert isinstance(result.detail, str) and result.detail


def test_evaluate_file(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([_ALG, {**_ALG, "id": "two", "expected": {"leader": None}}]))
    statuses = [(r.case_id, r.status) for r in evaluate_file(path)]
    assert statuses == [("x-alg", CaseStatus.passed), ("two", CaseStatus.failed)]


@pytest.mark.parametrize("content", ["{not json", '{"a": 1}'])
def test_malformed_file_names_the_file(tmp_path: Path, content: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(content)
    with pytest.raises(OracleFileError, match=r"broken\.json"):
        evaluate_file(path)


def test_missing_file_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(OracleFileError, match=r"absent\.json"):
        evaluate_file(tmp_path / "absent.json")
    assert issubclass(OracleFileError, ValueError)
