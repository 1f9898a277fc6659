"""Grammar entries compiled for the Arrow executor's vectorised path.

An entry runs there when its pattern, with its capturing groups named, compiles in RE2 and no
group sits inside a repetition; integer groups that only match ``-?[0-9]+`` skip the shape check.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jobs.logparse.candidates import compiles_in_re2, required_literals
from kafkactl_core.grammars import FieldType, GrammarEntry

_PARSER: Any = importlib.import_module("re._parser")


def named_groups(pattern: str, names: Sequence[str]) -> str:
    """``pattern`` with its capturing groups named ``names`` (in order), for ``extract_regex``.

    Escapes, character classes (which may hold ``(``) and ``(?...)`` constructs are left alone.

    Args:
        pattern: a regex in the Python/Java common subset.
        names: one name per capturing group.

    Returns:
        The same regex with ``(?P<name>`` groups.

    Raises:
        ValueError: when the groups found do not match Python's own count.
    """
    out: list[str] = []
    position = 0
    found = 0
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            out.append(pattern[position : position + 2])
            position += 2
        elif char == "[":
            end = position + 1
            if pattern.startswith("^", end):
                end += 1
            if pattern.startswith("]", end):
                end += 1
            while pattern[end] != "]":
                end += 2 if pattern[end] == "\\" else 1
            out.append(pattern[position : end + 1])
            position = end + 1
        elif char == "(" and not pattern.startswith("(?", position):
            out.append(f"(?P<{names[found]}>")
            found += 1
            position += 1
        else:
            out.append(char)
            position += 1
    result = "".join(out)
    compiled = re.compile(result)
    expected = {name: index for index, name in enumerate(names, start=1)}
    if compiled.groups != re.compile(pattern).groups or dict(compiled.groupindex) != expected:
        raise ValueError(f"could not name the groups of {pattern!r}")
    return result


def _group_items(pattern: str) -> tuple[dict[int, list[tuple[Any, Any]]], bool]:
    """Capturing-group bodies by group number, and whether a group sits inside a repetition.

    Which iteration a repeated group keeps is where engines may differ: such entries are left
    to the reference path (no grammar has one today).
    """
    bodies: dict[int, list[tuple[Any, Any]]] = {}
    repeated = False

    def walk(items: Any, in_repeat: bool) -> None:
        nonlocal repeated
        for op, argument in items:
            name = str(op)
            if name == "SUBPATTERN":
                if argument[0] is not None:
                    bodies[argument[0]] = list(argument[-1])
                    repeated = repeated or in_repeat
                walk(argument[-1], in_repeat)
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                walk(argument[2], in_repeat or argument[1] > 1)
            elif name == "BRANCH":
                for branch in argument[1]:
                    walk(branch, in_repeat)
            elif name in ("ASSERT", "ASSERT_NOT"):
                walk(argument[1], in_repeat)

    walk(_PARSER.parse(pattern), False)
    return bodies, repeated


def _is_digits(items: list[tuple[Any, Any]]) -> bool:
    """Whether a group body only matches ``-?[0-9]+`` (then only the length needs a check)."""
    if items and str(items[0][0]) == "LITERAL" and items[0][1] == ord("-"):
        items = items[1:]
    elif items and str(items[0][0]) == "MAX_REPEAT":
        low, high, body = items[0][1]
        if (low, high) == (0, 1) and [(str(o), a) for o, a in body] == [("LITERAL", ord("-"))]:
            items = items[1:]
    if len(items) != 1 or str(items[0][0]) != "MAX_REPEAT":
        return False
    low, _high, body = items[0][1]
    if low < 1 or len(body) != 1 or str(body[0][0]) != "IN":
        return False
    return [(str(o), a) for o, a in body[0][1]] == [("RANGE", (ord("0"), ord("9")))]


@dataclass(frozen=True)
class EntryPlan:
    """How the vectorised path runs one entry."""

    position: int
    entry: GrammarEntry
    groups: dict[str, str]  # captured field -> its named group
    pattern: str  # the entry's pattern with named groups (the message, for literal checks: m)
    digits: frozenset[str]  # int fields whose group only matches -?[0-9]+
    check_literal: bool  # the literal is not provably in every match: test it


def entry_plan(position: int, entry: GrammarEntry) -> EntryPlan | None:
    """The entry's vectorised form; None when only the reference can run it."""
    names = [f"g{index}" for index in range(1, len(entry.fields) + 1)]
    pattern = named_groups(entry.pattern, names)
    if not compiles_in_re2("^(?:" + pattern + ")$"):
        return None
    bodies, repeated = _group_items(entry.pattern)
    if repeated:
        return None
    digits = frozenset(
        name
        for index, (name, kind) in enumerate(entry.fields, start=1)
        if kind is FieldType.INT and _is_digits(bodies[index])
    )
    check = not any(entry.literal in run for run in required_literals(entry.pattern))
    if check:
        pattern = "(?P<m>" + pattern + ")"
    groups = dict(zip(entry.field_names, names, strict=True))
    return EntryPlan(position, entry, groups, pattern, digits, check)
