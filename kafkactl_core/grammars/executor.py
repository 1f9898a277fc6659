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

__all__ = ["MatchResult", "match_message", "parse_record", "parse_records"]

_Index = tuple[tuple[str, tuple[int, ...]], ...]
_INDEX_CACHE: dict[KafkaRelease | None, tuple[tuple[GrammarEntry, ...], _Index, int]] = {}


def _index(release: KafkaRelease | None) -> tuple[tuple[GrammarEntry, ...], _Index, int]:
    """Entries in trial order, literal -> entry positions, and how many are in range."""
    cached = _INDEX_CACHE.get(release)
    if cached is not None:
        return cached
    if release is None:
        ordered = grammar_entries()
        in_range = len(ordered)
    else:
        inside = grammars_for_version(release)
        chosen = {id(entry) for entry in inside}
        outside = tuple(e for e in grammar_entries() if id(e) not in chosen)
        ordered = inside + outside
        in_range = len(inside)
    grouped: dict[str, list[int]] = {}
    for position, entry in enumerate(ordered):
        grouped.setdefault(entry.literal, []).append(position)
    index = tuple((literal, tuple(positions)) for literal, positions in grouped.items())
    result = (ordered, index, in_range)
    _INDEX_CACHE[release] = result
    return result


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


def match_message(message: str, version_hint: KafkaRelease | None = None) -> MatchResult | None:
    """Find the first grammar entry matching a whole message and convert its fields.

    Args:
        message: the record's ``%m`` text.
        version_hint: the cluster's release, to try the entries of its range first.

    Returns:
        The match (possibly with a conversion failure), or ``None`` when no entry matches.
    """
    ordered, index, _ = _index(version_hint)
    candidates: list[int] = []
    for literal, positions in index:
        if literal in message:
            candidates.extend(positions)
    if not candidates:
        return None
    candidates.sort()
    for position in candidates:
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
    _, _, in_range = _index(version_hint)
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
