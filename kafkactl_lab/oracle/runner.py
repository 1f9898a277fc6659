"""Runs oracle cases: one ``CaseResult`` per case, dispatched by the case's ``level``.

``evaluate_case`` never raises (an exception becomes an ``error`` result); ``evaluate_file``
reads a case file and yields one result per case, raising ``OracleFileError`` only when the
file itself cannot be read or is not a JSON list of cases. KRaft levels are evaluated by
``kafkactl_lab.oracle.kraft_cases``, imported only when such a case comes up.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from kafkactl_lab.oracle.result import CaseResult, CaseStatus
from kafkactl_lab.oracle.zk_cases import (
    evaluate_algorithm,
    evaluate_replica_assignment,
    evaluate_state_machine,
)
from kafkactl_lab.oracle.zk_scenarios import evaluate_scenario

__all__ = ["OracleFileError", "evaluate_case", "evaluate_file"]


class OracleFileError(ValueError):
    """A case file that cannot be read or is not a JSON list of case objects."""


_ZK_LEVELS: dict[str, Callable[[Mapping[str, Any]], CaseResult]] = {
    "algorithm": evaluate_algorithm,
    "state_machine": evaluate_state_machine,
    "replica_assignment": evaluate_replica_assignment,
    "scenario": evaluate_scenario,
}
_KRAFT_LEVELS = {
    "kraft_builder": "evaluate_kraft_builder",
    "kraft_cluster": "evaluate_kraft_cluster",
}


def _kraft_evaluator(level: str) -> Callable[[Mapping[str, Any]], CaseResult]:
    module = importlib.import_module("kafkactl_lab.oracle.kraft_cases")
    evaluator: Callable[[Mapping[str, Any]], CaseResult] = getattr(module, _KRAFT_LEVELS[level])
    return evaluator


def evaluate_case(case: Mapping[str, Any]) -> CaseResult:
    """Evaluate one case.

    Args:
        case: one case object of the oracle DSL.

    Returns:
        ``pass``/``fail`` with the mismatches in ``detail``, ``not_evaluable`` with the case's
        ``why``, or ``error`` with the exception text. Never raises.
    """
    case_id = str(case.get("id", "?")) if isinstance(case, Mapping) else "?"
    try:
        if not isinstance(case, Mapping):
            return CaseResult(case_id, CaseStatus.error, "case is not a JSON object")
        if case.get("evaluable", True) is False:
            return CaseResult(case_id, CaseStatus.not_evaluable, case.get("why"))
        level = case.get("level")
        if isinstance(level, str) and level in _ZK_LEVELS:
            return _ZK_LEVELS[level](case)
        if isinstance(level, str) and level in _KRAFT_LEVELS:
            return _kraft_evaluator(level)(case)
        return CaseResult(case_id, CaseStatus.error, f"unknown case level {level!r}")
    except Exception as exc:  # every failure of one case is that case's result
        return CaseResult(case_id, CaseStatus.error, f"{type(exc).__name__}: {exc}")


def evaluate_file(path: str | os.PathLike[str]) -> Iterator[CaseResult]:
    """Evaluate every case of a case file, in file order.

    Args:
        path: a JSON file holding a list of case objects.

    Yields:
        One result per case.

    Raises:
        OracleFileError: when the file cannot be read, is not JSON, or is not a list.
    """
    name = os.fspath(path)
    try:
        text = Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OracleFileError(f"{name}: cannot read oracle cases: {exc}") from exc
    try:
        cases = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OracleFileError(f"{name}: malformed JSON: {exc}") from exc
    if not isinstance(cases, list):
        raise OracleFileError(f"{name}: expected a JSON list of cases, got {type(cases).__name__}")
    return (evaluate_case(case) for case in cases)
