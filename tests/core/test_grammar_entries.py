"""Grammar entries as data: portability lint, group/field agreement, field types and conversions."""

from __future__ import annotations

import dataclasses
import math
import re
import typing

import pytest

from kafkactl_core.grammars import (
    EVENT_FIELDS,
    EVENT_TYPE_MEANINGS,
    IGNORED_FAMILY_MEANINGS,
    ControllerEvent,
    EventType,
    FieldType,
    IgnoredFamily,
    convert_field,
    grammar_entries,
    grammars_for_version,
    lint_pattern,
)
from kafkactl_core.grammars.fields import ConversionError
from kafkactl_core.versions import KafkaRelease

ENTRIES = grammar_entries()


def test_every_pattern_is_in_the_python_re2_common_subset() -> None:
    problems = {e.name: lint_pattern(e.pattern) for e in ENTRIES if lint_pattern(e.pattern)}
    assert problems == {}


def test_every_pattern_has_one_group_per_field() -> None:
    mismatched = {
        e.name: (re.compile(e.pattern).groups, len(e.fields))
        for e in ENTRIES
        if re.compile(e.pattern).groups != len(e.fields)
    }
    assert mismatched == {}


def test_entry_names_are_unique_and_fields_are_canonical() -> None:
    assert len({e.name for e in ENTRIES}) == len(ENTRIES)
    for entry in ENTRIES:
        for name, field_type in entry.fields:
            assert EVENT_FIELDS[name] is field_type, entry.name
        for name, _ in entry.constants:
            assert name in EVENT_FIELDS and name not in entry.field_names, entry.name
        for target, source in entry.copies:
            assert EVENT_FIELDS[target] is EVENT_FIELDS[source], entry.name


def test_event_and_ignored_entries_are_distinct_kinds() -> None:
    for entry in ENTRIES:
        assert (entry.event_type is None) == (entry.ignored_family is not None), entry.name
        assert entry.is_ignored == (entry.event_type is None)
        if entry.is_ignored:
            assert entry.fields == () and entry.constants == (), entry.name


def test_vocabulary_is_closed_documented_and_used() -> None:
    assert set(EVENT_TYPE_MEANINGS) == set(EventType)
    assert set(IGNORED_FAMILY_MEANINGS) == set(IgnoredFamily)
    used_events = {e.event_type for e in ENTRIES if e.event_type is not None}
    assert used_events == set(EventType)
    used_families = {e.ignored_family for e in ENTRIES if e.ignored_family is not None}
    # foreign_logger is the executor's rule for unrecognised non-audited records, not an entry.
    assert used_families == set(IgnoredFamily) - {IgnoredFamily.FOREIGN_LOGGER}
    for value in [*(t.value for t in EventType), *(f.value for f in IgnoredFamily)]:
        assert re.fullmatch("[a-z][a-z0-9_]*", value), value


_PYTHON_TYPES: dict[FieldType, object] = {
    FieldType.STR: str | None,
    FieldType.INT: int | None,
    FieldType.FLOAT: float | None,
    FieldType.BOOL: bool | None,
    FieldType.INT_LIST: tuple[int, ...] | None,
    FieldType.STR_LIST: tuple[str, ...] | None,
}


def test_controller_event_mirrors_event_fields() -> None:
    hints = typing.get_type_hints(ControllerEvent)
    names = [f.name for f in dataclasses.fields(ControllerEvent)]
    assert names == ["event_type", *EVENT_FIELDS]
    for name, field_type in EVENT_FIELDS.items():
        assert hints[name] == _PYTHON_TYPES[field_type], name


def test_grammars_for_version_selects_by_range() -> None:
    v0_11 = {e.name for e in grammars_for_version(KafkaRelease.parse("0.11.0.2"))}
    v3_5 = {e.name for e in grammars_for_version(KafkaRelease.parse("3.5.2"))}
    assert "partition_state_change/0.11_leader" in v0_11
    assert "partition_state_change/leader_and_isr_3.5" not in v0_11
    assert "partition_state_change/leader_and_isr_3.5" in v3_5
    assert "partition_state_change/leader_and_isr_1.1" not in v3_5
    assert "thread_lifecycle/starting" in v0_11 & v3_5  # no range: every version
    assert grammars_for_version(None) == ENTRIES


@pytest.mark.parametrize(
    "pattern",
    [
        "(?P<name>a)",
        "(a)(?P=name)",
        "(?<name>a)",
        r"(a)\1",
        r"\d+",
        r"\s",
        r"\w",
        r"\bword",
        r"a\Z",
        r"\Aa",
        "^a",
        "a$",
        "(?i)a",
        "(?(1)a|b)",
        "(?>a)",
        "a*+",
        "a{,3}",
        "[[a]]",
        "[a&&b]",
        r"\Qa\E",
        "(unclosed",
    ],
)
def test_lint_rejects_non_portable_constructs(pattern: str) -> None:
    assert lint_pattern(pattern) != []


@pytest.mark.parametrize(
    "pattern",
    [
        "(?:a)",
        "(?=a)",
        "(?!a)",
        "(?<=a)b",
        "(?<!a)b",
        r"[^\n]*",
        r"\t",
        r"\[x\]",
        "a{2,3}",
        "[a-z]+?",
    ],
)
def test_lint_accepts_portable_constructs(pattern: str) -> None:
    assert lint_pattern(pattern) == []


@pytest.mark.parametrize(
    ("field_type", "text", "expected"),
    [
        (FieldType.STR, "orders", "orders"),
        (FieldType.STR, " kept as is ", " kept as is "),
        (FieldType.STR, "", None),
        (FieldType.STR, None, None),
        (FieldType.INT, "42", 42),
        (FieldType.INT, "-1", -1),
        (FieldType.INT, "9223372036854775807", 2**63 - 1),
        (FieldType.INT, "", None),
        (FieldType.INT, None, None),
        (FieldType.FLOAT, "0.5", 0.5),
        (FieldType.FLOAT, "0.3333333333333333", 0.3333333333333333),
        (FieldType.FLOAT, "1.0E-4", 1.0e-4),
        (FieldType.FLOAT, "Infinity", math.inf),
        (FieldType.FLOAT, "", None),
        (FieldType.BOOL, "true", True),
        (FieldType.BOOL, "false", False),
        (FieldType.BOOL, None, None),
        (FieldType.INT_LIST, "1,2,3", (1, 2, 3)),
        (FieldType.INT_LIST, "1, 2, 3", (1, 2, 3)),
        (FieldType.INT_LIST, "-1", (-1,)),
        (FieldType.INT_LIST, "", ()),
        (FieldType.INT_LIST, None, ()),
        (
            FieldType.INT_LIST,
            "BrokerState(brokerId=1, brokerEpoch=-1), BrokerState(brokerId=2, brokerEpoch=-1)",
            (1, 2),
        ),
        (FieldType.STR_LIST, "orders-0,audit-1", ("orders-0", "audit-1")),
        (FieldType.STR_LIST, "orders-0, audit-1", ("orders-0", "audit-1")),
        (FieldType.STR_LIST, "[orders,0],[audit,1]", ("[orders,0]", "[audit,1]")),
        (
            FieldType.STR_LIST,
            "orders-1 -> List(2, 3, 1), audit-0 -> List(2)",
            ("orders-1 -> List(2, 3, 1)", "audit-0 -> List(2)"),
        ),
        (FieldType.STR_LIST, "", ()),
        (FieldType.STR_LIST, None, ()),
    ],
)
def test_conversion_rules(field_type: FieldType, text: str | None, expected: object) -> None:
    assert convert_field(field_type, text) == expected


def test_nan_converts() -> None:
    value = convert_field(FieldType.FLOAT, "NaN")
    assert isinstance(value, float) and math.isnan(value)


@pytest.mark.parametrize(
    ("field_type", "text"),
    [
        (FieldType.INT, "9223372036854775808"),
        (FieldType.INT, "+5"),
        (FieldType.INT, " 5"),
        (FieldType.INT, "1_000"),
        (FieldType.INT, "\u0663"),  # ARABIC-INDIC DIGIT THREE: int() accepts it, Spark does not
        (FieldType.FLOAT, "1,5"),
        (FieldType.FLOAT, "nan"),
        (FieldType.BOOL, "True"),
        (FieldType.BOOL, "1"),
        (FieldType.INT_LIST, "1,x"),
        (FieldType.INT_LIST, "1,,2"),
    ],
)
def test_conversion_failures(field_type: FieldType, text: str) -> None:
    with pytest.raises(ConversionError):
        convert_field(field_type, text)
