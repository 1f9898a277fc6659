"""One grammar entry: a message family's version variant, declared once as data.

A ``GrammarEntry`` holds what both executors need: a literal pre-filter (a substring every
matching message contains), a regex ``pattern`` in the common subset of Python ``re`` and RE2
(``lint``) whose capturing groups are, in order, the entry's ``fields``, the Kafka
version range the wording appears in, constant fields and field copies. Executors match the
whole message: Python runs ``re.fullmatch(pattern, msg)`` after ``literal in msg``.

Entries are either *events* (``event_type`` set: the record becomes a typed event) or *ignored*
(``ignored_family`` set: the record is recognised, counted, and carries nothing the audit uses).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial

from kafkactl_core.grammars.events import EventType, IgnoredFamily
from kafkactl_core.grammars.fields import EVENT_FIELDS, FieldType, FieldValue
from kafkactl_core.versions import KafkaRelease

__all__ = ["GrammarEntry", "Mode", "VersionRange", "controller_event", "event", "ignored"]


@dataclass(frozen=True, slots=True)
class VersionRange:
    """Kafka releases a wording appears in: ``since`` inclusive, ``before`` exclusive.

    ``None`` bounds are open: ``since=None`` is "as far back as we know" (0.8), ``before=None``
    is "still current".
    """

    since: KafkaRelease | None = None
    before: KafkaRelease | None = None

    @classmethod
    def of(cls, since: str | None = None, before: str | None = None) -> VersionRange:
        """Build a range from release strings such as ``"1.1"`` or ``"0.10.2"``.

        Args:
            since: first release with the wording, or ``None``.
            before: first release without it, or ``None``.

        Returns:
            The range.
        """
        return cls(
            KafkaRelease.parse(since) if since else None,
            KafkaRelease.parse(before) if before else None,
        )

    def contains(self, release: KafkaRelease) -> bool:
        """Whether ``release`` is inside the range."""
        if self.since is not None and release < self.since:
            return False
        return self.before is None or release < self.before

    @property
    def is_open(self) -> bool:
        """Whether the range says nothing about the version (both bounds open)."""
        return self.since is None and self.before is None

    def __str__(self) -> str:
        low = str(self.since) if self.since else "0.8"
        high = str(self.before) if self.before else "current"
        return f"[{low}, {high})"


@dataclass(frozen=True, slots=True)
class GrammarEntry:
    """A message family's version variant (see the module docstring).

    Attributes:
        name: unique, stable identifier (``family/variant``).
        event_type: the event type recognised records become, ``None`` for ignored entries.
        ignored_family: the family of an ignored entry, ``None`` for event entries.
        literal: substring every matching message contains (the cheap pre-filter).
        pattern: the regex, unanchored; group *i* captures ``fields[i]``.
        fields: ``(name, type)`` of each capturing group, in group order.
        versions: releases the wording appears in.
        mode: ZooKeeper-mode, KRaft, or either.
        constants: fields every event of the entry carries with a fixed value.
        copies: ``(target, source)``: after conversion, ``target`` takes ``source``'s value.
        regex: ``pattern`` compiled once (Python executor).
    """

    name: str
    event_type: EventType | None
    ignored_family: IgnoredFamily | None
    literal: str
    pattern: str
    fields: tuple[tuple[str, FieldType], ...]
    versions: VersionRange
    mode: Mode
    constants: tuple[tuple[str, FieldValue], ...]
    copies: tuple[tuple[str, str], ...]
    regex: re.Pattern[str] = field(compare=False, repr=False)

    @property
    def family(self) -> str:
        """The event type's or ignored family's name (what ingest statistics count by)."""
        if self.event_type is not None:
            return self.event_type.value
        assert self.ignored_family is not None  # invariant of the two constructors
        return self.ignored_family.value

    @property
    def is_ignored(self) -> bool:
        """Whether recognised records are counted but produce no event."""
        return self.event_type is None

    @property
    def field_names(self) -> tuple[str, ...]:
        """The captured field names, in group order."""
        return tuple(name for name, _ in self.fields)


class Mode(enum.Enum):
    """Which kind of cluster writes an entry's lines."""

    ZK = "zk"
    KRAFT = "kraft"
    ANY = "any"


def _field_spec(names: str) -> tuple[tuple[str, FieldType], ...]:
    spec: list[tuple[str, FieldType]] = []
    for name in names.split():
        if name not in EVENT_FIELDS:
            raise ValueError(f"unknown event field {name!r}")
        spec.append((name, EVENT_FIELDS[name]))
    if len({name for name, _ in spec}) != len(spec):
        raise ValueError(f"field captured twice in {names!r}")
    return tuple(spec)


def _constant_spec(
    constants: Mapping[str, FieldValue] | None, captured: Iterable[str]
) -> tuple[tuple[str, FieldValue], ...]:
    if not constants:
        return ()
    taken = set(captured)
    for name, value in constants.items():
        kind = EVENT_FIELDS.get(name)
        if kind is None or name in taken:
            raise ValueError(f"bad constant field {name!r}")
        expected: type = {
            FieldType.STR: str,
            FieldType.INT: int,
            FieldType.FLOAT: float,
            FieldType.BOOL: bool,
            FieldType.INT_LIST: tuple,
            FieldType.STR_LIST: tuple,
        }[kind]
        if not isinstance(value, expected):
            raise ValueError(f"constant {name}={value!r} is not a {kind.value}")
    return tuple(constants.items())


def _copy_spec(copies: str | None, captured: Iterable[str]) -> tuple[tuple[str, str], ...]:
    if not copies:
        return ()
    taken = set(captured)
    spec: list[tuple[str, str]] = []
    for pair in copies.split():
        target, _, source = pair.partition("=")
        if source not in taken or target in taken or target not in EVENT_FIELDS:
            raise ValueError(f"bad copy {pair!r}")
        if EVENT_FIELDS[target] is not EVENT_FIELDS[source]:
            raise ValueError(f"copy {pair!r} between different types")
        spec.append((target, source))
    return tuple(spec)


def _build(
    name: str,
    event_type: EventType | None,
    ignored_family: IgnoredFamily | None,
    literal: str,
    pattern: str,
    fields: str,
    since: str | None,
    before: str | None,
    mode: Mode,
    constants: Mapping[str, FieldValue] | None,
    copies: str | None,
) -> GrammarEntry:
    spec = _field_spec(fields)
    regex = re.compile(pattern)
    if regex.groups != len(spec):
        raise ValueError(f"{name}: {regex.groups} groups for {len(spec)} fields")
    if not literal:
        raise ValueError(f"{name}: empty literal")
    names = [n for n, _ in spec]
    return GrammarEntry(
        name=name,
        event_type=event_type,
        ignored_family=ignored_family,
        literal=literal,
        pattern=pattern,
        fields=spec,
        versions=VersionRange.of(since, before),
        mode=mode,
        constants=_constant_spec(constants, names),
        copies=_copy_spec(copies, names),
        regex=regex,
    )


def event(
    name: str,
    event_type: EventType,
    literal: str,
    pattern: str,
    fields: str = "",
    since: str | None = None,
    before: str | None = None,
    *,
    mode: Mode = Mode.ZK,
    constants: Mapping[str, FieldValue] | None = None,
    copies: str | None = None,
) -> GrammarEntry:
    """Declare an event entry.

    Args:
        name: unique entry name.
        event_type: what recognised records become.
        literal: pre-filter substring.
        pattern: unanchored regex; one capturing group per field.
        fields: space-separated ``EVENT_FIELDS`` names, in group order.
        since: first release with the wording (inclusive), ``None`` = open.
        before: first release without it (exclusive), ``None`` = open.
        mode: ZooKeeper-mode, KRaft or either.
        constants: fixed field values of every event.
        copies: space-separated ``target=source`` pairs.

    Returns:
        The entry.

    Raises:
        ValueError: on an unknown field, a group/field count mismatch or a bad constant/copy.
    """
    return _build(
        name, event_type, None, literal, pattern, fields, since, before, mode, constants, copies
    )


controller_event = partial(event, copies="controller_id=origin_broker")
"""Declare an event entry whose writer (``origin_broker``) is the controller (``controller_id``)."""


def ignored(
    name: str,
    family: IgnoredFamily,
    literal: str,
    pattern: str,
    since: str | None = None,
    before: str | None = None,
    *,
    mode: Mode = Mode.ZK,
) -> GrammarEntry:
    """Declare an ignored entry (recognised, counted under ``family``, no event, no groups).

    Args:
        name: unique entry name.
        family: what the records are.
        literal: pre-filter substring.
        pattern: unanchored regex without capturing groups.
        since: first release with the wording (inclusive), ``None`` = open.
        before: first release without it (exclusive), ``None`` = open.
        mode: ZooKeeper-mode, KRaft or either.

    Returns:
        The entry.

    Raises:
        ValueError: when the pattern has capturing groups.
    """
    return _build(name, None, family, literal, pattern, "", since, before, mode, None, None)
