"""Every case of ``reference/oracle/oracle_cases.json`` through the oracle runner, one test per id.

ZooKeeper levels are evaluated by ``kafkactl_lab.oracle.zk_cases``/``zk_scenarios``; KRaft
levels by the KRaft module. The file is read from the reference material (``KAFKACTL_REFERENCE``
overrides its location).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kafkactl_lab.oracle.result import CaseStatus
from kafkactl_lab.oracle.runner import evaluate_case
from tests.conftest import reference_dir

CASES_FILE = reference_dir() / "oracle" / "oracle_cases.json"


def _load() -> list[Any]:
    if not CASES_FILE.is_file():
        return [
            pytest.param(
                None,
                marks=pytest.mark.skip(reason=f"oracle case file not found: {CASES_FILE}"),
                id="no-oracle-file",
            )
        ]
    cases = json.loads(CASES_FILE.read_text(encoding="utf-8"))
    return [pytest.param(case, id=str(case["id"])) for case in cases]


@pytest.mark.parametrize("case", _load())
def test_oracle_case(case: dict[str, Any]) -> None:
    result = evaluate_case(case)
    if result.status is CaseStatus.not_evaluable:
        pytest.skip(f"not evaluable: {result.detail}")
    assert result.status is CaseStatus.passed, json.dumps(result.to_json_dict(), indent=1)
