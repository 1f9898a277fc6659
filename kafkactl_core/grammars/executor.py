"""The pure-Python grammar executor: one record in, exactly one ``Outcome`` out, never an exception.

``parse_record`` applies, in order:

1. an orphan record (lines before the first record, or past a record's size cap) is quarantined
   ``orphan_continuation`` (``detail``: the orphan reason);
2. a record without the layout's tail is quarantined ``truncated_record`` (the file's cut last
   line) or ``missing_tail``;
3. a timestamp that does not parse as a date is quarantined ``bad_timestamp``;
4. a message containing U+FFFD from undecodable bytes is quarantined ``invalid_utf8``;
5. the grammar entries whose literal the message contains are tried in ``grammar_entries()``
   order with ``re.fullmatch``; the first match wins. With a version hint, the entries whose range
   contains the release are tried first and the others after (a match among those is flagged
   ``version_conflict``). A capture that does not convert is quarantined
   ``field_conversion: <field>``;
6. no entry matched: a record of an audited logger (``registry.AUDITED_LOGGER_PREFIXES``) is
   quarantined ``no_grammar``; any other record is ignored as ``foreign_logger``.

Anything unexpected is quarantined ``internal_error: <exception class>`` rather than raised.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from kafkactl_core.grammars.entry import GrammarEntry
from kafkactl_core.grammars.events import IgnoredFamily
from kafkactl_core.grammars.fields import ConversionError, FieldValue, convert_field
from kafkactl_core.grammars.outcome import (
    ControllerEvent,
    IgnoredRecord,
    Outcome,
    ParsedEvent,
    Quarantined,
)
from kafkactl_core.grammars.records import LogRecord
from kafkactl_core.grammars.registry import grammar_entries, grammars_for_version, is_audited_logger
from kafkactl_core.versions import KafkaRelease

__all__ = ["MatchResult", "candidate_entries", "match_message", "parse_record", "parse_records"]

_WORD = re.compile("[A-Za-z]+")


class _Prefilter:
    """Which entries' literals a message contains, without testing every literal.

    Testing ~300 literals with ``in`` costs more than all the regex matches together. Each
    literal is filed under one of its *interior* words (a run of letters bounded by non-letters
    inside the literal, hence a whole word of any message containing the literal), the rarest
    one; a message's words then select the few literals worth testing. Literals without an
    interior word are always tested. The candidates are exactly the entries whose literal the
    message contains (a test checks this against the plain scan).
    """

    __slots__ = ("always", "by_word", "in_range", "ordered")

    def __init__(self, ordered: tuple[GrammarEntry, ...], in_range: int) -> None:
        self.ordered = ordered
        self.in_range = in_range
        literals: dict[str, list[int]] = {}
        for position, entry in enumerate(ordered):
            literals.setdefault(entry.literal, []).append(position)
        interiors = {literal: _interior_words(literal) for literal in literals}
        frequency = Counter(word for words in interiors.values() for word in set(words))
        self.always: list[tuple[str, tuple[int, ...]]] = []
        self.by_word: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
        for literal, positions in literals.items():
            words = interiors[literal]
            group = (literal, tuple(positions))
            if not words:
                self.always.append(group)
            else:
                rarest = min(words, key=lambda word: (frequency[word], -len(word)))
                self.by_word.setdefault(rarest, []).append(group)

    def candidates(self, message: str) -> list[int]:
        """Positions (in trial order) of the entries whose literal ``message`` contains."""
        found = [p for literal, positions in self.always if literal in message for p in positions]
        by_word = self.by_word
        for word in set(_WORD.findall(message)):
            groups = by_word.get(word)
            if groups is not None:
                for literal, positions in groups:
                    if literal in message:
                        found.extend(positions)
        found.sort()
        return found


def _interior_words(literal: str) -> list[str]:
    return [
        match.group()
        for match in _WORD.finditer(literal)
        if match.start() > 0 and match.end() < len(literal)
    ]


_PREFILTERS: dict[KafkaRelease | None, _Prefilter] = {}


def _prefilter(release: KafkaRelease | None) -> _Prefilter:
    """The trial order for a version hint (in-range entries first) and its prefilter."""
    cached = _PREFILTERS.get(release)
    if cached is None:
        if release is None:
            ordered = grammar_entries()
            in_range = len(ordered)
        else:
            inside = grammars_for_version(release)
            chosen = {id(entry) for entry in inside}
            ordered = inside + tuple(e for e in grammar_entries() if id(e) not in chosen)
            in_range = len(inside)
        cached = _PREFILTERS[release] = _Prefilter(ordered, in_range)
    return cached


class MatchResult:
    """The entry a message matched and its converted field values (or the failing field).

    Attributes:
        entry: the matching entry.
        position: its position in the trial order.
        values: converted values of captured, constant and copied fields (empty on failure).
        failed_field: the field whose capture did not convert, ``None`` on success.
        failure: the conversion error message, ``None`` on success.
    """

    __slots__ = ("entry", "failed_field", "failure", "position", "values")

    def __init__(
        self,
        entry: GrammarEntry,
        position: int,
        values: dict[str, FieldValue],
        failed_field: str | None = None,
        failure: str | None = None,
    ) -> None:
        self.entry = entry
        self.position = position
        self.values = values
        self.failed_field = failed_field
        self.failure = failure


def _convert(entry: GrammarEntry, position: int, groups: tuple[str | Any, ...]) -> MatchResult:
    values: dict[str, FieldValue] = {}
    for (name, field_type), text in zip(entry.fields, groups, strict=True):
        try:
            values[name] = convert_field(field_type, text)
        except ConversionError as exc:
            return MatchResult(entry, position, {}, name, str(exc))
    for name, value in entry.constants:
        values[name] = value
    for target, source in entry.copies:
        values[target] = values[source]
    return MatchResult(entry, position, values)


def candidate_entries(message: str, version_hint: KafkaRelease | None = None) -> list[GrammarEntry]:
    """The entries whose literal ``message`` contains, in trial order (the pre-filter's output).

    Args:
        message: a record's ``%m`` text.
        version_hint: the cluster's release, which puts the entries of its range first.

    Returns:
        The entries the executor would try with ``fullmatch``.
    """
    prefilter = _prefilter(version_hint)
    return [prefilter.ordered[position] for position in prefilter.candidates(message)]


def match_message(message: str, version_hint: KafkaRelease | None = None) -> MatchResult | None:
    """Find the first grammar entry matching a whole message and convert its fields.

    Args:
        message: the record's ``%m`` text.
        version_hint: the cluster's release, to try the entries of its range first.

    Returns:
        The match (possibly with a conversion failure), or ``None`` when no entry matches.
    """
    prefilter = _prefilter(version_hint)
    ordered = prefilter.ordered
    for position in prefilter.candidates(message):
        entry = ordered[position]
        match = entry.regex.fullmatch(message)
        if match is not None:
            return _convert(entry, position, match.groups())
    return None


def _parse(record: LogRecord, version_hint: KafkaRelease | None) -> Outcome:
    first, count = record.first_line, record.line_count
    if record.orphan_reason is not None:
        return Quarantined(first, count, "orphan_continuation", record.orphan_reason)
    if record.layout_error is not None:
        return Quarantined(first, count, record.layout_error)
    if record.timestamp_text is not None and record.timestamp is None:
        return Quarantined(first, count, "bad_timestamp", record.timestamp_text)
    message = record.message or ""
    if record.invalid_utf8 and "\ufffd" in message:
        return Quarantined(first, count, "invalid_utf8")
    result = match_message(message, version_hint)
    if result is None:
        if is_audited_logger(record.logger):
            return Quarantined(first, count, "no_grammar", record.logger)
        return IgnoredRecord(first, count, IgnoredFamily.FOREIGN_LOGGER.value, None)
    entry = result.entry
    if result.failed_field is not None:
        return Quarantined(
            first,
            count,
            f"field_conversion: {result.failed_field}",
            f"{entry.name}: {result.failure}",
        )
    if entry.event_type is None:
        return IgnoredRecord(first, count, entry.family, entry.name)
    in_range = _prefilter(version_hint).in_range
    # Field names and types were checked against EVENT_FIELDS when the entry was declared.
    fields: dict[str, Any] = result.values
    return ParsedEvent(
        first_line=first,
        line_count=count,
        grammar=entry.name,
        event=ControllerEvent(entry.event_type, **fields),
        timestamp=record.timestamp,
        level=record.level,
        logger=record.logger,
        version_conflict=version_hint is not None and result.position >= in_range,
    )


def parse_record(record: LogRecord, version_hint: KafkaRelease | None = None) -> Outcome:
    """Classify one record (see the module docstring). Never raises.

    Args:
        record: a record from ``records.assemble_records``.
        version_hint: the cluster's Kafka release when known (config), else ``None``.

    Returns:
        A ``ParsedEvent``, an ``IgnoredRecord`` or a ``Quarantined``.
    """
    try:
        return _parse(record, version_hint)
    except Exception as exc:  # rule 2: bad input is a value, never an exception
        return Quarantined(
            record.first_line, record.line_count, f"internal_error: {type(exc).__name__}", str(exc)
        )


def parse_records(
    records: Iterable[LogRecord], version_hint: KafkaRelease | None = None
) -> Iterator[Outcome]:
    """``parse_record`` over a stream of records.

    Args:
        records: records in file order.
        version_hint: the cluster's Kafka release when known.

    Yields:
        One outcome per record, in order.
    """
    for record in records:
        yield parse_record(record, version_hint)
