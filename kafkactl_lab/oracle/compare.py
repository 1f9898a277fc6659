"""Partial comparison of an oracle case's expected values with what the core computed.

Oracle checkpoints assert only the keys they list: a key present in ``expected`` must be present
in ``actual`` with an equal value; keys only in ``actual`` are ignored. Lists are ordered and
compared whole. Each mismatch is reported with its path, so a failing case says exactly where.

An expected ``"unchanged"`` (SCHEMA.md §2, for ``leader_recovery_state``) asserts that the value
did not change: it is resolved against what the harness captured before the call or op, in the
same shape as the actual result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MISSING: Any = object()
"""Stands for a key the actual result (or the value before the call) does not have."""

UNCHANGED = "unchanged"
"""The expected value meaning "the value it had before the call or op"."""


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One expected value the actual result does not match.

    Attributes:
        path: where in the case, e.g. ``ops[2].checkpoint.A-0.leader``.
        expected: the case's value.
        actual: the computed value, or ``"<missing>"``.
    """

    path: str
    expected: Any
    actual: Any

    def to_json_dict(self) -> dict[str, Any]:
        """The mismatch as a JSON-ready object."""
        return {"path": self.path, "expected": self.expected, "actual": self.actual}


def partial_mismatches(
    expected: Any, actual: Any, path: str = "", before: Any = MISSING
) -> list[Mismatch]:
    """Compare ``expected`` against ``actual``, asserting only what ``expected`` lists.

    Mappings are compared key by key over the expected keys (recursively, so nested objects are
    partial too); every other value, lists included, must be equal. Integers and floats compare
    numerically; ``True`` never equals ``1``. An expected ``"unchanged"`` must equal the value at
    the same place in ``before``; with no such value it is a mismatch.

    Args:
        expected: the case's expected values.
        actual: what the core computed, as plain JSON-like data.
        path: the location of ``expected`` within the case, for messages.
        before: the same view of the state before the call or op (``MISSING``: none captured).

    Returns:
        Every mismatch, empty when ``actual`` satisfies ``expected``.
    """
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [Mismatch(path, dict(expected), _render(actual))]
        found: list[Mismatch] = []
        for key, want in expected.items():
            sub = f"{path}.{key}" if path else str(key)
            got = actual.get(key, MISSING)
            if got is MISSING:
                found.append(Mismatch(sub, want, "<missing>"))
            else:
                prior = before.get(key, MISSING) if isinstance(before, Mapping) else MISSING
                found.extend(partial_mismatches(want, got, sub, prior))
        return found
    if expected == UNCHANGED:
        if before is MISSING:
            return [Mismatch(path, f"{UNCHANGED} (no value before)", _render(actual))]
        if not _equal(before, actual):
            return [Mismatch(path, f"{UNCHANGED} (= {_render(before)} before)", _render(actual))]
        return []
    if not _equal(expected, actual):
        return [Mismatch(path, expected, _render(actual))]
    return []


def _equal(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(actual, (list, tuple))
            and len(expected) == len(actual)
            and all(_equal(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, Mapping):
        return (
            isinstance(actual, Mapping)
            and set(expected) == set(actual)
            and all(_equal(want, actual[key]) for key, want in expected.items())
        )
    return bool(expected == actual)


def _render(value: Any) -> Any:
    if value is MISSING:
        return "<missing>"
    if isinstance(value, tuple):
        return [_render(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _render(v) for k, v in value.items()}
    return value
