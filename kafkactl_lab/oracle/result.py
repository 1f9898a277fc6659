"""The outcome of evaluating one oracle case."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One case's verdict, printed by ``kafkactl-audit oracle`` as one JSON line.

    Attributes:
        case_id: the case's ``id``.
        status: pass, fail, error or not_evaluable.
        detail: for a failure, each mismatch (where, expected, actual); for an error, the
            exception text; for not_evaluable, the case's ``why``; empty on a pass.
    """

    case_id: str
    status: CaseStatus
    detail: Any = None

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object of the CLI contract: ``{"id", "status", "detail"}``."""
        return {"id": self.case_id, "status": self.status.value, "detail": self.detail}


class CaseStatus(enum.Enum):
    """How a case ended."""

    passed = "pass"
    failed = "fail"
    error = "error"
    not_evaluable = "not_evaluable"
