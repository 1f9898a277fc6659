"""The Arrow grammar executor: ``parse_record``'s outcome for the reader's batches, task-side.

``ArrowExecutor.execute`` takes one batch of ``reader.READER_SCHEMA`` rows (one split, so one
layout) and returns the parsed records of ``parse_contract`` (``PARSED_SCHEMA``), row for row, in
the input's order. It has two paths:

* **Vectorised** (RE2 through ``pyarrow.compute``), for the common record: not an orphan, valid
  UTF-8, no read error, one physical line or a first line that ends with the layout's tail (a
  stack trace below it: ``records._build`` then takes head, message and tail from the first line
  alone). Rows are grouped by their first candidate entry (the reader's ``first_candidate``: the
  entries before it have no literal in the text, so cannot match); each group runs ONE
  ``extract_regex`` on the records' messages. For Kafka's layout (``[%d] %p %m (%c)%n``) the
  lines are cut without a regex: the head has a single match (a fixed-width timestamp, then a
  level followed by a blank) and is checked byte by byte (``kafka_head``); the tail
  `` (logger)`` ends the line with a logger without parentheses or blanks, so it can only start
  at one place, found by comparing the line's end with the batch's few distinct tails. That is
  the message ``records._build`` cuts, and an entry fullmatching it captures what Python's
  ``fullmatch`` captures (RE2 and Python pick the same leftmost-first match; an entry repeating a
  capturing group is left to the reference). Other layouts cut the head (with the rest of the
  line), then the tail on that rest, by regexes: the steps of ``_build``. Rows their first
  candidate does not match try their other candidates, in trial order, one round per candidate;
  rows without any (left) candidate need the layout split and the logger test only:
  ``no_grammar`` or ``foreign_logger``. Then, once for the whole batch, timestamps are read
  and each field is converted by the simple form of its rule (integers of at most 18 digits,
  lists of plain comma-separated items, ...); a row stays on this path when its timestamp is a
  valid date and every capture converts so.
* **Reference**, for every other row: the record is rebuilt from the row (its lines cut again by
  ``assemble_records``, flags restored) and classified by ``executor.parse_record`` itself, so
  wrapped messages, orphans, invalid UTF-8, missing tails, bad timestamps, conversion failures,
  the forms the vectorised rules leave out and the entry RE2 cannot run (a lookahead) are exact
  by construction.

``settings.order`` must be the trial order the reader's ``CandidateIndex`` used (the same version
hint): candidate positions refer to it. Timestamps are the reference's naive local time read in
the cluster's time zone with Python's ``fold=0`` (in a DST gap or overlap, the offset before the
transition). A row with ``read_error`` is quarantined ``missing_tail`` (its text is empty).
Fields are null unless the record is parsed.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from jobs.lakehouse.arrow_types import arrow_schema, arrow_type
from jobs.logparse.arrow_slices import string_slices
from jobs.logparse.candidates import compiles_in_re2, required_literals
from jobs.logparse.kafka_head import KAFKA_HEAD, head_lengths
from jobs.logparse.parse_contract import KEEP_COLUMNS, PARSED_SCHEMA, ExecutorSettings
from kafkactl_core.grammars import (
    AUDITED_LOGGER_PREFIXES,
    EVENT_FIELDS,
    KAFKA_LAYOUT,
    CompiledLayout,
    FieldType,
    GrammarEntry,
    IgnoredRecord,
    LogRecord,
    Outcome,
    ParsedEvent,
    Quarantined,
    assemble_records,
    compile_layout,
    parse_record,
)
from kafkactl_core.grammars.fields import INT_LIST_BROKER_STATE_PATTERN, FieldValue
from kafkactl_core.grammars.timestamps import DEFAULT_DATE_PATTERN
from schemas.logs import spark_type

__all__ = [
    "PARSED_ARROW_SCHEMA",
    "ArrowExecutor",
    "named_groups",
    "rebuild_record",
]

PARSED_ARROW_SCHEMA = arrow_schema(PARSED_SCHEMA)
"""``parse_contract.PARSED_SCHEMA`` in Arrow (timestamps: microseconds, UTC)."""

_PARSER: Any = importlib.import_module("re._parser")
_STATUSES = ("parsed", "ignored", "quarantined")
_PARSED, _IGNORED, _QUARANTINED = 0, 1, 2
_FOREIGN = "foreign_logger"
_MAX_DIGITS = 18  # any integer of at most 18 digits fits in 64 bits
_MESSAGE = "([^\\n]*)"
_TYPES = {name: arrow_type(spark_type(kind)) for name, kind in EVENT_FIELDS.items()}
_STRING_COLUMNS = ("log_time_text", "level", "logger", "thread", "reason_detail")
_VALUE_TYPES: dict[str, pa.DataType] = {
    "log_time": PARSED_ARROW_SCHEMA.field("log_time").type,
    **dict.fromkeys(_STRING_COLUMNS, pa.string()),
    **_TYPES,
}
_INT_LIST_SHAPE = "^(?:-?[0-9]+(?:, ?-?[0-9]+)*)?$"
_STR_LIST_SPECIAL = "[ \\[\\]()]"
_FLOAT_SHAPE = "^-?(?:[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|Infinity)$"
_EPOCH = datetime(1970, 1, 1)
_UTC_NAMES = frozenset(
    {"UTC", "UCT", "Universal", "Zulu", "GMT", "GMT0", "GMT+0", "GMT-0", "Greenwich"}
    | {f"Etc/{name}" for name in ("UTC", "UCT", "Universal", "Zulu", "GMT", "GMT0", "GMT+0")}
    | {"Etc/GMT-0", "Etc/Greenwich"}
)
"""Zones whose offset is zero at every instant (tzdb links to ``Etc/UTC``/``Etc/GMT``)."""
_HOUR_US = 3_600_000_000

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


# --- patterns ---------------------------------------------------------------------------------


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


# --- compiled state -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _EntryPlan:
    """How the vectorised path runs one entry."""

    position: int
    entry: GrammarEntry
    groups: dict[str, str]  # captured field -> its named group
    pattern: str  # the entry's pattern with named groups (the message, for literal checks: m)
    digits: frozenset[str]  # int fields whose group only matches -?[0-9]+
    check_literal: bool  # the literal is not provably in every match: test it


def _entry_plan(position: int, entry: GrammarEntry) -> _EntryPlan | None:
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
    return _EntryPlan(position, entry, groups, pattern, digits, check)


_POSITIONAL_HEADS = frozenset({KAFKA_HEAD} & {compile_layout(KAFKA_LAYOUT).start_pattern})
"""Heads with at most one match on a line: ``[``, a fixed-width timestamp, ``] ``, a level and a
blank (``kafka_head`` checks them, ``_kafka_head`` reads timestamp and level, by position)."""
_UNIQUE_TAIL = compile_layout(KAFKA_LAYOUT).tail_pattern
"""`` (logger)`` at the end of the line, the logger without parentheses: one way to cut."""
_TAIL_BYTES = re.compile(rb" \(([^ \t\n()]+)\)\Z")
"""``_UNIQUE_TAIL`` without its message, on a line's bytes (UTF-8: multibyte characters have
no byte of the logger's excluded ASCII ones)."""
_TAIL_GUESSES = 16
"""Distinct tails ``_tail_starts`` compares every line with before cutting lines one by one."""


@dataclass
class _LayoutPlan:
    """The regexes of one layout."""

    layout: CompiledLayout
    positional: bool  # the Kafka layout: cut by position (``_cut_kafka``), not by regexes
    head_rest: str  # ^HEAD(?P<rest>[^\n]*)$, head groups named r_<role>
    tail: str  # ^TAIL$ with groups r_message, r_<role>
    roles: tuple[str, ...]  # layout roles other than the message

    @classmethod
    def of(cls, layout: CompiledLayout) -> _LayoutPlan:
        roles = [f"r_{r}" for r in layout.start_roles]
        head = named_groups(layout.start_pattern, roles)
        tail = named_groups(layout.tail_pattern, [f"r_{r}" for r in layout.tail_roles])
        if not layout.tail_pattern.startswith(_MESSAGE):
            raise ValueError(f"unexpected tail pattern {layout.tail_pattern!r}")
        positional = (
            layout.start_pattern in _POSITIONAL_HEADS and layout.tail_pattern == _UNIQUE_TAIL
        )
        return cls(
            layout=layout,
            positional=positional,
            head_rest="^" + head + "(?P<rest>[^\\n]*)$",
            tail="^" + tail + "$",
            roles=(*layout.start_roles, *layout.tail_roles[1:]),
        )


class _Zone:
    """Naive local microseconds to UTC microseconds in a zone, as Python's ``fold=0`` reads them."""

    def __init__(self, name: str) -> None:
        self.zone = ZoneInfo(name)
        self.fixed = name in _UTC_NAMES

    def _offset(self, local: datetime) -> int:
        offset = local.replace(tzinfo=self.zone).utcoffset()
        assert offset is not None  # a ZoneInfo always answers
        return offset // timedelta(microseconds=1)

    def one(self, local: datetime) -> int:
        """UTC microseconds of one naive local time."""
        micros = (local - _EPOCH) // timedelta(microseconds=1)
        return micros if self.fixed else micros - self._offset(local)

    def many(self, local: IntArray, valid: BoolArray) -> IntArray:
        """UTC microseconds of the ``valid`` naive local microseconds (others: 0).

        One zone lookup per distinct hour: offsets change on hour boundaries but for a few
        historical transitions, whose hours (the offsets at their start and end differ; no zone
        changes twice within an hour) are read row by row.
        """
        result = np.where(valid, local, 0)
        if self.fixed or not valid.any():
            return result
        rows = np.flatnonzero(valid)
        hours, inverse = np.unique(local[rows] // _HOUR_US, return_inverse=True)
        offsets = np.empty(len(hours), dtype=np.int64)
        mixed = np.zeros(len(hours), dtype=bool)
        for index, hour in enumerate(hours.tolist()):
            start = _EPOCH + timedelta(hours=hour)
            offsets[index] = self._offset(start)
            end = start + timedelta(microseconds=_HOUR_US - 1)
            mixed[index] = offsets[index] != self._offset(end)
        result[rows] = local[rows] - offsets[inverse]
        for row in rows[mixed[inverse]].tolist():
            result[row] = self.one(_EPOCH + timedelta(microseconds=int(local[row])))
        return result


@dataclass
class _Plan:
    """Everything compiled once per settings."""

    settings: ExecutorSettings
    layouts: tuple[_LayoutPlan, ...]
    zone: _Zone
    entries: dict[int, _EntryPlan | None] = field(default_factory=dict)
    names: pa.Array = field(init=False)
    event_types: pa.Array = field(init=False)
    families: pa.Array = field(init=False)
    positions: dict[str, int] = field(init=False)
    is_event: BoolArray = field(init=False)
    event_fields: list[tuple[str, ...]] = field(init=False)

    def __post_init__(self) -> None:
        entries = self.settings.order.entries
        self.is_event = np.array([e.event_type is not None for e in entries], dtype=bool)
        # The fields an event of each entry can set: captured, constant, copied.
        self.event_fields = [
            (*e.field_names, *(n for n, _ in e.constants), *(t for t, _ in e.copies))
            for e in entries
        ]
        self.names = pa.array([e.name for e in entries], pa.string())
        self.event_types = pa.array(
            [e.event_type.value if e.event_type else None for e in entries], pa.string()
        )
        self.families = pa.array([e.family for e in entries] + [_FOREIGN], pa.string())
        self.positions = {e.name: p for p, e in enumerate(entries)}

    def entry(self, position: int) -> _EntryPlan | None:
        if position not in self.entries:
            self.entries[position] = _entry_plan(position, self.settings.order.entries[position])
        return self.entries[position]


@lru_cache(maxsize=8)
def _plan(settings: ExecutorSettings) -> _Plan:
    return _Plan(
        settings,
        tuple(_LayoutPlan.of(layout) for layout in settings.layouts),
        _Zone(settings.time_zone),
    )


# --- vectorised helpers -------------------------------------------------------------------------


def _flat(array: pa.Array) -> pa.Array:
    """``array`` without a slice offset (buffers then start at row 0)."""
    return pa.concat_arrays([array]) if array.offset else array


def _bitmap(mask: BoolArray) -> pa.Buffer:
    return pa.py_buffer(np.packbits(mask, bitorder="little").tobytes())


def _string_parts(array: pa.Array) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint8]]:
    """Offsets and bytes of a string array without nulls or offset."""
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32)[: len(array) + 1]
    data = array.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return offsets, raw


def _masked(array: pa.Array, valid: BoolArray) -> pa.Array:
    """A string array (no nulls, no offset) with ``~valid`` rows made null."""
    buffers = array.buffers()
    return pa.StringArray.from_buffers(len(array), buffers[1], buffers[2], _bitmap(valid))


def _lengths(array: pa.Array) -> IntArray:
    offsets, _ = _string_parts(array)
    return np.diff(offsets).astype(np.int64)


def _mask(array: pa.Array) -> BoolArray:
    """A boolean Arrow array as numpy (null = False)."""
    return np.asarray(pc.fill_null(array, False).to_numpy(zero_copy_only=False), dtype=bool)


def _days_from_civil(year: IntArray, month: IntArray, day: IntArray) -> IntArray:
    """Days since 1970-01-01 of proleptic Gregorian dates (vectorised)."""
    y = year - (month <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    mp = (month + 9) % 12
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    result: IntArray = era * 146_097 + doe - 719_468
    return result


_DIM = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)


def _default_times(texts: pa.Array) -> tuple[IntArray, BoolArray]:
    """Naive microseconds of ``yyyy-MM-dd HH:mm:ss,SSS`` texts, and which are valid dates."""
    offsets, raw = _string_parts(texts)
    size = len(texts)
    shaped = np.diff(offsets) == 23
    if shaped.all() and offsets[0] == 0:
        grid = raw[: 23 * size].reshape(size, 23)  # the common case: a view, no copy
    else:
        grid = np.zeros((size, 23), dtype=np.uint8)
        starts = offsets[:-1][shaped].astype(np.int64)
        grid[shaped] = raw[starts[:, None] + np.arange(23)[None, :]]
    digits = grid.astype(np.int64) - 48

    def number(first: int, width: int) -> IntArray:
        value = digits[:, first]
        for k in range(first + 1, first + width):
            value = value * 10 + digits[:, k]
        return value

    year, month, day = number(0, 4), number(5, 2), number(8, 2)
    hour, minute, second, milli = number(11, 2), number(14, 2), number(17, 2), number(20, 3)
    leap = ((year % 4 == 0) & (year % 100 != 0)) | (year % 400 == 0)
    good_month = (month >= 1) & (month <= 12)
    dim = _DIM[np.where(good_month, month, 0)] + ((month == 2) & leap)
    valid = (
        shaped
        & (year >= 1)
        & good_month
        & (day >= 1)
        & (day <= dim)
        & (hour < 24)
        & (minute < 60)
        & (second < 60)
    )
    days = _days_from_civil(year, np.where(good_month, month, 1), day)
    micros = ((days * 24 + hour) * 60 + minute) * 60 + second
    micros = micros * 1_000_000 + milli * 1000
    return micros, valid


def _local_times(layout: CompiledLayout, texts: pa.Array) -> tuple[IntArray, BoolArray]:
    """Naive local microseconds of timestamp texts (by ``TimestampFormat.parse``'s rules)."""
    fmt = layout.timestamp
    assert fmt is not None  # only called for layouts with %d
    if fmt.date_pattern == DEFAULT_DATE_PATTERN:  # also ISO8601 ('T' or ' '): read by position
        return _default_times(texts)
    micros = np.zeros(len(texts), dtype=np.int64)
    valid = np.zeros(len(texts), dtype=bool)
    for row, text in enumerate(texts.to_pylist()):
        parsed = fmt.parse(text) if text else None
        if parsed is not None:
            micros[row] = (parsed - _EPOCH) // timedelta(microseconds=1)
            valid[row] = True
    return micros, valid


def _timestamps(micros: IntArray, valid: BoolArray) -> pa.Array:
    return pa.Array.from_buffers(
        _VALUE_TYPES["log_time"], len(micros), [_bitmap(valid), pa.py_buffer(micros.tobytes())]
    )


def _split_list(
    texts: pa.Array, valid: BoolArray, list_type: pa.DataType, cast: pa.DataType | None
) -> tuple[pa.Array, BoolArray]:
    """Comma-split lists (empty text: empty list) of the ``valid`` rows; other rows: empty.

    Returns:
        The list array and the rows whose elements all fit (``cast`` to int64: 18 digits).
    """
    nonempty = _lengths(texts) > 0
    parts = pc.split_pattern(texts, ",")
    counts = pc.list_value_length(parts).to_numpy(zero_copy_only=False).astype(np.int64)
    values = parts.flatten()
    keep_rows = valid & nonempty
    fits = np.ones(len(texts), dtype=bool)
    if cast is not None:
        too_long = _lengths(_flat(values)) > _MAX_DIGITS
        if too_long.any():
            row_of = np.repeat(np.arange(len(texts)), counts)
            fits[row_of[too_long]] = False
            keep_rows &= fits
    keep = np.repeat(keep_rows, counts)
    if not keep.all():
        values = values.filter(pa.array(keep))
    if cast is not None:
        values = pc.cast(values, cast)
    kept = np.where(keep_rows, counts, 0)
    offsets = np.concatenate(([0], np.cumsum(kept))).astype(np.int32)
    lists = pa.ListArray.from_arrays(pa.array(offsets), values, type=list_type)
    return lists, fits


def _convert(kind: FieldType, texts: pa.Array, digits: bool) -> tuple[pa.Array, BoolArray]:
    """Captured texts by the simple forms of ``fields.py``'s rules, and which of them fit.

    Args:
        kind: the field's type.
        texts: the captures (empty: no capture), without nulls or offset.
        digits: every capture only matches ``-?[0-9]+`` (its group says so): no shape check.

    Returns:
        The values, and False where the text needs the reference (which converts it or fails).
    """
    lengths = _lengths(texts)
    nonempty = lengths > 0
    ok = np.ones(len(texts), dtype=bool)
    if kind is FieldType.STR:
        return _masked(texts, nonempty), ok
    if kind is FieldType.INT:
        ok &= lengths <= _MAX_DIGITS
        if not digits:
            ok &= _mask(pc.match_substring_regex(texts, "^-?[0-9]+$")) | ~nonempty
        return pc.cast(_masked(texts, nonempty & ok), pa.int64()), ok
    if kind is FieldType.FLOAT:
        shaped = _mask(pc.match_substring_regex(texts, _FLOAT_SHAPE))
        ok &= shaped | ~nonempty
        nan = _mask(pc.ends_with(texts, "NaN")) & shaped
        number = pc.cast(_masked(texts, shaped & ~nan), pa.float64())
        if nan.any():
            number = pc.if_else(pa.array(nan), pa.scalar(math.nan), number)
        return number, ok
    if kind is FieldType.BOOL:
        true = _mask(pc.equal(texts, "true"))
        false = _mask(pc.equal(texts, "false"))
        ok &= true | false | ~nonempty
        return pa.array(true, mask=~(true | false)), ok
    if kind is FieldType.INT_LIST:
        if bool(pc.any(pc.match_substring(texts, "BrokerState")).as_py()):
            texts = _flat(pc.replace_substring_regex(texts, INT_LIST_BROKER_STATE_PATTERN, "\\1"))
        ok &= _mask(pc.match_substring_regex(texts, _INT_LIST_SHAPE))
        compact = _flat(pc.replace_substring(texts, ", ", ","))
        lists, fits = _split_list(compact, ok, _VALUE_TYPES["isr"], pa.int64())
        return lists, ok & fits
    # str_list: without brackets, parentheses or other blanks, ", " and "," separate alike.
    compact = _flat(pc.replace_substring(texts, ", ", ","))
    ok &= ~_mask(pc.match_substring_regex(compact, _STR_LIST_SPECIAL))
    lists, _ = _split_list(compact, ok, _VALUE_TYPES["partitions"], None)
    return lists, ok


_LEVEL_CODES = np.full(256, 0, dtype=np.int32)
_LEVEL_NAMES = pa.array(["INFO", "WARN", "WARNING", "TRACE", "DEBUG", "ERROR", "FATAL"])
for _code, _initial in enumerate("IWWTDEF"):
    _LEVEL_CODES[ord(_initial)] = _code if _initial != "W" else 1


def _kafka_head(text: pa.Array, rows: IntArray, matched: BoolArray) -> dict[str, pa.Array]:
    """Timestamp and level of Kafka-layout lines (``[%d] %p ``), read by position.

    Where the layout matched, the head is ``[``, 23 timestamp characters, ``] ``, then a level
    and a blank: the level is INFO/WARN when a blank follows 4 letters, WARNING when none
    follows 5, else the 5-letter level of its initial. Other rows are null.
    """
    offsets, raw = _string_parts(_flat(text))
    if len(raw) == 0:
        raw = np.zeros(1, dtype=np.uint8)
    last = len(raw) - 1
    start = offsets[:-1][rows].astype(np.int64)
    # Code points 1 to 24: the timestamp's bytes where the layout matched (ASCII there).
    stamps = pc.utf8_slice_codeunits(text, 1, 24)
    if not np.array_equal(rows, np.arange(len(text))):
        stamps = stamps.take(pa.array(rows))
    stamps = _masked(_flat(stamps), matched)
    code = _LEVEL_CODES[raw[np.minimum(start + 26, last)]]
    four = raw[np.minimum(start + 30, last)] == ord(" ")
    five = raw[np.minimum(start + 31, last)] == ord(" ")
    code = np.where((code == 1) & ~four, 2, code)
    code = np.where(four | five | (code == 2), code, -1)
    level = _coded(np.where(matched, code, -1), _LEVEL_NAMES)
    return {"timestamp": stamps, "level": level}


def _equal_at(raw: npt.NDArray[np.uint8], at: IntArray, expected: bytes) -> BoolArray:
    """Whether ``raw[at[i]:at[i] + len(expected)] == expected`` (every slice inside ``raw``)."""
    size = len(expected)
    same = np.ones(len(at), dtype=bool)
    if not len(at):
        return same
    if size < 8:
        for index, byte in enumerate(expected):
            same &= raw[at + index] == byte
        return same
    # Overlapping 8-byte words (unaligned little-endian reads), the last one ending the slice.
    words = np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))
    for offset in sorted({*range(0, size - 7, 8), size - 8}):
        value = np.uint64(int.from_bytes(expected[offset : offset + 8], "little"))
        same &= words[at + offset] == value
    return same


def _tail_starts(raw: npt.NDArray[np.uint8], lows: IntArray, ends: IntArray) -> IntArray:
    """Where `` (logger)`` starts in each line ``raw[lows[i]:ends[i]]`` (-1: no such tail).

    The tail is the logger's only way to end a line (``_UNIQUE_TAIL``). A file's lines have
    few distinct tails: the first line not yet cut is cut by ``_TAIL_BYTES``, then every line
    is compared with its tail at once; after ``_TAIL_GUESSES`` tails, lines are cut one by one.
    """
    starts = np.full(len(ends), -1, dtype=np.int64)
    if not len(ends):
        return starts
    room = ends - lows >= 4  # " (x)"
    pending = np.flatnonzero(room)
    pending = pending[raw[ends[pending] - 1] == ord(")")]
    guesses = 0
    while len(pending) and guesses < _TAIL_GUESSES:
        row = int(pending[0])
        match = _TAIL_BYTES.search(raw[lows[row] : ends[row]].tobytes())
        if match is None:
            pending = pending[1:]
            continue
        guesses += 1
        tail = match.group(0)
        at = ends[pending] - len(tail)
        same = at >= lows[pending]
        same[same] = _equal_at(raw, at[same], tail)
        starts[pending[same]] = at[same]
        pending = pending[~same]
    for row in pending.tolist():
        match = _TAIL_BYTES.search(raw[lows[row] : ends[row]].tobytes())
        if match is not None:
            starts[row] = lows[row] + match.start()
    return starts


def _cut_kafka(text: pa.Array, order: IntArray | None) -> _LayoutParts:
    """Lines of the Kafka layout (in ``order``) cut by position: head, message and tail.

    The head is checked bytewise (``kafka_head``: ``_kafka_head`` reads its roles later), the
    tail found by ``_tail_starts``; a line with both ``matched``. Message and logger are each
    one gather (``string_slices``); lines that do not match get empty ones.

    Args:
        text: lines without nulls (one physical line each).
        order: the positions to return (None: all, in order).

    Returns:
        The lines' parts, in ``order`` (arrays without offset).
    """
    text = _flat(text)
    offsets, raw = _string_parts(text)
    size = len(text)
    starts = offsets[:-1].astype(np.int64)
    ends = offsets[1:].astype(np.int64)
    head = head_lengths(raw, starts, ends)
    tail = _tail_starts(raw, starts + head, ends)
    ok = (head > 0) & (tail >= 0)
    data = text.buffers()[2] or pa.py_buffer(b"")
    message = string_slices(
        data, np.where(ok, starts + head, starts), np.where(ok, tail, starts), order
    )
    logger = string_slices(
        data, np.where(ok, tail + 2, starts), np.where(ok, ends - 1, starts), order
    )
    positions = np.arange(size, dtype=np.int64) if order is None else order
    return _LayoutParts({"logger": logger}, ok[positions], message)


@dataclass
class _LayoutParts:
    """A non-fused layout's cut of some lines: roles, whether it matched, the message."""

    roles: dict[str, pa.Array]
    matched: BoolArray
    message: pa.Array

    @classmethod
    def cut(cls, layout: _LayoutPlan, lines: pa.Array) -> _LayoutParts:
        """Head (and the rest of the line), then the tail on that rest: ``records._build``."""
        head = pc.extract_regex(lines, layout.head_rest)
        tail = pc.extract_regex(_flat(head.field("rest")), layout.tail)
        start = layout.layout.start_roles
        roles = {
            role: _flat(head.field(f"r_{role}") if role in start else tail.field(f"r_{role}"))
            for role in layout.roles
        }
        matched = _mask(head.is_valid()) & _mask(tail.is_valid())
        return cls(roles, matched, _flat(tail.field("r_message")))

    def slice(self, start: int, length: int) -> _LayoutParts:
        return _LayoutParts(
            {role: array.slice(start, length) for role, array in self.roles.items()},
            self.matched[start : start + length],
            self.message.slice(start, length),
        )

    def take(self, positions: IntArray) -> _LayoutParts:
        at = pa.array(positions)
        return _LayoutParts(
            {role: _flat(array.take(at)) for role, array in self.roles.items()},
            self.matched[positions],
            _flat(self.message.take(at)),
        )


@dataclass
class _Claim:
    """One group of one round: the lines its regex matched are its entry's (or foreign).

    Attributes:
        rows: the batch row of each position.
        matched: positions the entry matched (for ``plan`` None: the layout alone).
        roles: layout role -> captured text, per position (fused layouts: the tail's roles;
            ``_kafka_head`` reads the head's by position).
        found: the entry's groups per position (None for rows without a candidate left).
        plan: the entry, None for rows without a candidate left.
    """

    rows: IntArray
    matched: BoolArray
    roles: dict[str, pa.Array]
    found: pa.StructArray | None
    plan: _EntryPlan | None


@dataclass
class _Outcome:
    """The outcome being assembled for one input batch.

    The vectorised path fills ``space``: value columns over the concatenated positions of its
    claims; the reference path appends its rows after them. ``index`` maps each batch row to
    its position in that concatenation.
    """

    size: int
    status: npt.NDArray[np.int8]
    reason: npt.NDArray[np.int32]
    grammar: npt.NDArray[np.int32]
    event_type: npt.NDArray[np.int32]
    family: npt.NDArray[np.int32]
    conflict: BoolArray
    index: IntArray  # row -> position in the value columns (-1: not classified yet)
    space: int = 0  # positions of the vectorised path
    columns: dict[str, list[pa.Array]] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)

    @classmethod
    def empty(cls, size: int) -> _Outcome:
        return cls(
            size=size,
            status=np.full(size, -1, dtype=np.int8),
            reason=np.full(size, -1, dtype=np.int32),
            grammar=np.full(size, -1, dtype=np.int32),
            event_type=np.full(size, -1, dtype=np.int32),
            family=np.full(size, -1, dtype=np.int32),
            conflict=np.zeros(size, dtype=bool),
            index=np.full(size, -1, dtype=np.int64),
        )

    def reason_code(self, reason: str) -> int:
        code = self.reasons.get(reason)
        if code is None:
            code = self.reasons[reason] = len(self.reasons)
        return code


def _runs(chunks: list[tuple[int, pa.Array | None]], kind: pa.DataType) -> list[pa.Array]:
    """Chunks in order, each run of missing ones (``None``, with its length) one null chunk."""
    out: list[pa.Array] = []
    missing = 0
    for length, chunk in chunks:
        if chunk is None:
            missing += length
            continue
        if missing:
            out.append(pa.nulls(missing, kind))
            missing = 0
        out.append(chunk)
    if missing and out:
        out.append(pa.nulls(missing, kind))
    return out


def _coded(codes: npt.NDArray[Any], vocabulary: pa.Array) -> pa.Array:
    valid = codes >= 0
    indices = pa.array(np.where(valid, codes, 0).astype(np.int32), mask=~valid)
    return vocabulary.take(indices)


# --- the executor -------------------------------------------------------------------------------


class ArrowExecutor:
    """``parse_record``'s outcome for the reader's batches (see the module docstring).

    Attributes:
        last_fast_rows: rows the last ``execute`` classified on the vectorised path.
        last_fallback_rows: rows it handed to the reference executor.
    """

    def __init__(self, settings: ExecutorSettings, *, vectorised: bool = True) -> None:
        """Compile the settings' layouts and time zone (entries are compiled when first seen).

        Args:
            settings: trial order, layouts, time zone.
            vectorised: False sends every row to the reference path (tests compare both).
        """
        self._plan = _plan(settings)
        self._vectorised = vectorised
        self._hint = settings.order.hint
        self.last_fast_rows = 0
        self.last_fallback_rows = 0

    def execute(self, batch: pa.RecordBatch, layout_index: int) -> pa.RecordBatch:
        """Classify the records of one batch of one split.

        Args:
            batch: ``reader.READER_SCHEMA`` rows, all cut with ``layouts[layout_index]``.
            layout_index: the batch's layout in ``settings.layouts``.

        Returns:
            ``PARSED_ARROW_SCHEMA`` rows, in the input's order.
        """
        size = batch.num_rows
        layout = self._plan.layouts[layout_index]
        out = _Outcome.empty(size)
        if self._vectorised and size:
            claims = self._claims(batch, layout)
            if claims:
                self._classify(batch, layout, claims, out)
        fallback = np.flatnonzero(out.index < 0)
        self.last_fast_rows = size - len(fallback)
        self.last_fallback_rows = len(fallback)
        if len(fallback):
            self._reference(batch, layout.layout, fallback, out)
        return self._assemble(batch, out)

    # -- vectorised path, phase 1: one regex per group and round ------------------------------

    def _claims(self, batch: pa.RecordBatch, layout: _LayoutPlan) -> list[_Claim]:
        """Which entry (or none) matches each simple record (see the module docstring)."""
        first = np.asarray(batch.column("first_candidate").to_numpy(), dtype=np.int64)
        simple = (
            ~_mask(batch.column("invalid_utf8"))
            & _mask(pc.is_null(batch.column("orphan_reason")))
            & _mask(pc.is_null(batch.column("read_error")))
        )
        lines = np.asarray(batch.column("line_count").to_numpy())
        single = simple & (lines == 1)
        multi = simple & (lines > 1)
        text = batch.column("text")
        claims: list[_Claim] = []
        if single.any():
            ordered = len(first) < 2 or not bool((np.diff(first) < 0).any())
            if ordered:
                order = np.arange(len(first), dtype=np.int64)
            else:
                order = np.argsort(first, kind="stable").astype(np.int64)
            if layout.positional:
                parts = _cut_kafka(text, order)
            elif ordered:
                # Already in first-candidate order: groups are zero-copy slices.
                parts = _LayoutParts.cut(layout, _flat(text))
            else:
                parts = _LayoutParts.cut(layout, _flat(text.take(pa.array(order))))
            self._rounds(batch, order, first[order], parts, single[order], claims)
        if multi.any():
            # A record whose first line ends with the tail (a stack trace below it): its
            # message, head and tail are the first line's, as records._build cuts them.
            rows = np.flatnonzero(multi)
            rows = rows[np.argsort(first[rows], kind="stable")]
            split = pc.split_pattern(text.take(pa.array(rows)), "\n", max_splits=1)
            firsts = _flat(pc.list_element(split, 0))
            if layout.positional:
                parts = _cut_kafka(firsts, None)
            else:
                parts = _LayoutParts.cut(layout, firsts)
            self._rounds(batch, rows, first[rows], parts, np.ones(len(rows), dtype=bool), claims)
        return claims

    def _rounds(
        self,
        batch: pa.RecordBatch,
        rows: IntArray,
        candidate: IntArray,
        parts: _LayoutParts,
        wanted: BoolArray,
        claims: list[_Claim],
    ) -> None:
        """First candidates, then the next candidate of the rows not matched, until none.

        Rows the layout does not cut are left to the reference path (no claim).
        """
        wanted = wanted & parts.matched
        pending = self._round(rows, candidate, parts, wanted, claims)
        if not len(pending):
            return
        others = batch.column("other_candidates")
        offsets = np.asarray(others.offsets.to_numpy(), dtype=np.int64)
        values = np.asarray(others.values.to_numpy(), dtype=np.int64)
        counts = np.diff(offsets)
        attempt = 0
        while len(pending):
            tried = rows[pending]
            has = counts[tried] > attempt
            following = np.full(len(pending), -1, dtype=np.int64)
            following[has] = values[offsets[tried[has]] + attempt]
            resort = np.argsort(following, kind="stable")
            pending, following = pending[resort], following[resort]
            back = self._round(
                rows[pending],
                following,
                parts.take(pending),
                np.ones(len(pending), dtype=bool),
                claims,
            )
            pending = pending[back]
            attempt += 1

    def _round(
        self,
        rows: IntArray,
        candidate: IntArray,
        parts: _LayoutParts,
        wanted: BoolArray,
        claims: list[_Claim],
    ) -> IntArray:
        """One regex per candidate group (``rows`` sorted by ``candidate``).

        Returns:
            Positions of the wanted rows their candidate did not match (to try the next one).
        """
        bounds = np.flatnonzero(np.diff(candidate)) + 1
        starts = np.concatenate(([0], bounds)).tolist()
        ends = np.concatenate((bounds, [len(candidate)])).tolist()
        retry: list[IntArray] = []
        for start, end in zip(starts, ends, strict=True):
            group_wanted = wanted[start:end]
            if not group_wanted.any():
                continue
            position = int(candidate[start])
            plan = None
            if position >= 0:
                plan = self._plan.entry(position)
                if plan is None:
                    continue  # an entry RE2 cannot run: the reference path tries it
            matched, roles, found = self._match(plan, parts.slice(start, end - start))
            matched &= group_wanted
            claims.append(_Claim(rows[start:end], matched, roles, found, plan))
            if plan is not None:
                retry.append(start + np.flatnonzero(group_wanted & ~matched))
        return np.concatenate(retry) if retry else np.zeros(0, dtype=np.int64)

    def _match(
        self, plan: _EntryPlan | None, parts: _LayoutParts
    ) -> tuple[BoolArray, dict[str, pa.Array], pa.StructArray | None]:
        """The group's messages against its entry (``plan`` None: the layout alone)."""
        matched, roles, found = parts.matched, parts.roles, None
        if plan is not None:
            found = pc.extract_regex(parts.message, "^(?:" + plan.pattern + ")$")
            matched = matched & _mask(found.is_valid())
            if plan.check_literal:
                # The reference only tries an entry whose literal is in the message.
                literal = pc.match_substring(_flat(found.field("m")), plan.entry.literal)
                matched = matched & _mask(literal)
        return matched, roles, found

    # -- vectorised path, phase 2: the whole batch at once -------------------------------------

    def _classify(
        self, batch: pa.RecordBatch, layout: _LayoutPlan, claims: list[_Claim], out: _Outcome
    ) -> None:
        """Timestamps, conversions and outcome of every claimed row, one pass per column."""
        lengths = [len(claim.rows) for claim in claims]
        starts = np.concatenate(([0], np.cumsum(lengths)))
        space = int(starts[-1])
        rows = np.concatenate([claim.rows for claim in claims])
        done = np.concatenate([claim.matched for claim in claims])
        columns: dict[str, list[pa.Array]] = {}
        head: dict[str, pa.Array] = {}
        if layout.positional:
            head = _kafka_head(batch.column("text"), rows, done)
        for role in layout.roles:
            if role in head:
                merged = head[role]
            else:
                merged = _flat(pa.concat_arrays([claim.roles[role] for claim in claims]))
            if role == "timestamp":
                local, valid = _local_times(layout.layout, merged)
                done &= valid
                columns["log_time_text"] = [merged]
                columns["log_time"] = [_timestamps(self._plan.zone.many(local, valid), valid)]
            else:
                columns[role] = [merged]
        entry = np.concatenate(
            [np.full(len(c.rows), c.plan.position if c.plan else -1) for c in claims]
        )
        foreign = entry < 0
        self._fields(claims, lengths, starts, done, columns)
        if foreign.any():
            if "logger" in layout.roles:
                logger = columns["logger"][0]
                audited = np.zeros(space, dtype=bool)
                for prefix in AUDITED_LOGGER_PREFIXES:
                    audited |= _mask(pc.starts_with(logger, prefix))
                columns["reason_detail"] = [_masked(logger, audited & foreign)]
            else:
                audited = np.ones(space, dtype=bool)
        else:
            audited = np.zeros(space, dtype=bool)
        finished = rows[done]
        out.index[finished] = np.flatnonzero(done)
        out.space = space
        out.columns = columns
        position = entry[done]
        is_foreign = foreign[done]
        is_audited = audited[done]
        order = self._plan.settings.order
        events = self._plan.is_event[np.where(is_foreign, 0, position)] & ~is_foreign
        out.status[finished] = np.select(
            [events, is_foreign & is_audited], [_PARSED, _QUARANTINED], _IGNORED
        )
        out.reason[finished] = np.where(is_foreign & is_audited, out.reason_code("no_grammar"), -1)
        out.grammar[finished] = position
        out.event_type[finished] = np.where(events, position, -1)
        out.family[finished] = np.select(
            [~is_foreign, ~is_audited], [position, len(order.entries)], -1
        )
        if self._hint is not None:
            out.conflict[finished] = events & (position >= order.in_range)

    def _fields(
        self,
        claims: list[_Claim],
        lengths: list[int],
        starts: IntArray,
        done: BoolArray,
        columns: dict[str, list[pa.Array]],
    ) -> None:
        """Each field converted once over every claim capturing it; ``done`` less failures."""
        captured: dict[str, list[tuple[int, pa.StructArray, _EntryPlan]]] = {}
        events: list[tuple[int, _EntryPlan]] = []
        for index, claim in enumerate(claims):
            plan = claim.plan
            if plan is None or plan.entry.event_type is None:
                continue
            assert claim.found is not None  # an entry's claim has its groups
            events.append((index, plan))
            for name in plan.groups:
                captured.setdefault(name, []).append((index, claim.found, plan))
        converted: dict[tuple[str, int], pa.Array] = {}
        for name, sources in captured.items():
            texts = _flat(
                pa.concat_arrays([_flat(found.field(p.groups[name])) for _, found, p in sources])
            )
            digits = all(name in plan.digits for _, _, plan in sources)
            positions = np.concatenate([starts[i] + np.arange(lengths[i]) for i, _, _ in sources])
            values, ok = _convert(EVENT_FIELDS[name], texts, digits)
            done[positions[~ok]] = False
            offset = 0
            for index, _, _ in sources:
                converted[(name, index)] = values.slice(offset, lengths[index])
                offset += lengths[index]
        chunks: dict[str, dict[int, pa.Array]] = {}
        for index, plan in events:
            for name in plan.groups:
                chunks.setdefault(name, {})[index] = converted[(name, index)]
            for name, value in plan.entry.constants:
                chunks.setdefault(name, {})[index] = _constant(name, value, lengths[index])
            for target, source in plan.entry.copies:
                chunks.setdefault(target, {})[index] = converted[(source, index)]
        for name, by_claim in chunks.items():
            runs = [(length, by_claim.get(index)) for index, length in enumerate(lengths)]
            columns[name] = _runs(runs, _TYPES[name])

    # -- reference path ----------------------------------------------------------------------

    def _reference(
        self, batch: pa.RecordBatch, layout: CompiledLayout, rows: IntArray, out: _Outcome
    ) -> None:
        """Classify ``rows`` with ``parse_record`` on records rebuilt from them."""
        names = ["text", "first_line", "line_count", "orphan_reason", "invalid_utf8", "truncated"]
        taken = batch.select([*names, "read_error"]).take(pa.array(rows)).to_pydict()
        entries = len(self._plan.settings.order.entries)
        positions = self._plan.positions
        zone = self._plan.zone
        results: list[dict[str, Any]] = []
        for k in range(len(rows)):
            row = int(rows[k])
            values: dict[str, Any] = {}
            results.append(values)
            if taken["read_error"][k] is not None:
                # The reader's error row has no text: no tail.
                out.status[row] = _QUARANTINED
                out.reason[row] = out.reason_code("missing_tail")
                continue
            outcome: Outcome
            try:
                record = rebuild_record(
                    layout,
                    taken["text"][k],
                    first_line=taken["first_line"][k],
                    orphan_reason=taken["orphan_reason"][k],
                    invalid_utf8=taken["invalid_utf8"][k],
                    truncated=taken["truncated"][k],
                )
            except Exception as exc:  # not a row the reader makes: say so, never raise
                record = LogRecord(taken["first_line"][k], taken["line_count"][k], "")
                outcome = Quarantined(
                    record.first_line,
                    record.line_count,
                    f"internal_error: {type(exc).__name__}",
                    str(exc),
                )
            else:
                outcome = parse_record(record, self._hint)
            if record.timestamp is not None:
                values["log_time"] = zone.one(record.timestamp)
            values["log_time_text"] = record.timestamp_text
            values["level"] = record.level
            values["logger"] = record.logger
            values["thread"] = record.thread
            if isinstance(outcome, ParsedEvent):
                position = positions[outcome.grammar]
                out.status[row] = _PARSED
                out.grammar[row] = out.event_type[row] = out.family[row] = position
                out.conflict[row] = outcome.version_conflict
                event = outcome.event
                for name in self._plan.event_fields[position]:
                    value = getattr(event, name)
                    values[name] = list(value) if isinstance(value, tuple) else value
            elif isinstance(outcome, IgnoredRecord):
                out.status[row] = _IGNORED
                if outcome.grammar is None:
                    out.family[row] = entries
                else:
                    out.grammar[row] = out.family[row] = positions[outcome.grammar]
            else:
                out.status[row] = _QUARANTINED
                out.reason[row] = out.reason_code(outcome.reason)
                values["reason_detail"] = outcome.detail
                if outcome.reason.startswith("field_conversion"):
                    out.grammar[row] = positions[(outcome.detail or "").split(":")[0]]
        present = {
            name for values in results for name, value in values.items() if value is not None
        }
        for name in present:
            kind = pa.int64() if name == "log_time" else _VALUE_TYPES[name]
            array = pa.array([values.get(name) for values in results], kind)
            if name == "log_time":
                array = array.cast(_VALUE_TYPES["log_time"])
            chunks = out.columns.setdefault(name, [])
            if out.space and not chunks:
                chunks.append(pa.nulls(out.space, _VALUE_TYPES[name]))
            chunks.append(array)
        out.index[rows] = out.space + np.arange(len(rows))

    # -- output ------------------------------------------------------------------------------

    def _assemble(self, batch: pa.RecordBatch, out: _Outcome) -> pa.RecordBatch:
        size = out.size
        index = out.index
        identity = bool(np.array_equal(index, np.arange(size)))
        plan = self._plan
        coded = {
            "status": _coded(out.status, pa.array(_STATUSES, pa.string())),
            "reason": _coded(out.reason, pa.array(list(out.reasons), pa.string())),
            "grammar": _coded(out.grammar, plan.names),
            "event_type": _coded(out.event_type, plan.event_types),
            "family": _coded(out.family, plan.families),
            "version_conflict": pa.array(out.conflict),
        }
        take = None if identity else pa.array(index)
        total = out.space + int((index >= out.space).sum())
        arrays: list[pa.Array] = []
        for name in PARSED_ARROW_SCHEMA.names:
            if name in KEEP_COLUMNS:
                arrays.append(batch.column(name))
            elif name in coded:
                arrays.append(coded[name])
            else:
                arrays.append(_gather(out.columns.get(name), _VALUE_TYPES[name], total, take, size))
        return pa.RecordBatch.from_arrays(arrays, schema=PARSED_ARROW_SCHEMA)


def _gather(
    chunks: list[pa.Array] | None, kind: pa.DataType, total: int, take: pa.Array | None, size: int
) -> pa.Array:
    """One value column: its chunks (padded with nulls to ``total``) put in row order."""
    if not chunks:
        return pa.nulls(size, kind)
    length = sum(len(chunk) for chunk in chunks)
    if length < total:
        chunks = [*chunks, pa.nulls(total - length, kind)]
    combined = pa.concat_arrays(chunks) if len(chunks) > 1 else chunks[0]
    return combined if take is None else combined.take(take)


def _constant(name: str, value: FieldValue, size: int) -> pa.Array:
    kind = _TYPES[name]
    scalar = pa.scalar(list(value) if isinstance(value, tuple) else value, kind)
    return pa.repeat(scalar, size)


def rebuild_record(
    layout: CompiledLayout,
    text: str,
    *,
    first_line: int,
    orphan_reason: str | None,
    invalid_utf8: bool,
    truncated: bool,
) -> LogRecord:
    """The ``LogRecord`` ``assemble_records`` made of a reader row.

    The row's lines are cut again without terminators (so ``_decode`` strips nothing, a line
    ending with ``\\r`` included); a record's lines other than its first never start a record,
    so they form that one record again. What cutting alone cannot see is restored from the row:
    its line number, orphan reason, UTF-8 and truncation flags (a missing tail is
    ``truncated_record`` only for a truncated record).

    Args:
        layout: the file's layout.
        text: the record's text (lines joined with ``\\n``).
        first_line: its first line number.
        orphan_reason: the reader's orphan reason.
        invalid_utf8: the reader's flag.
        truncated: the reader's flag.

    Returns:
        The record.
    """
    lines = text.split("\n")
    if orphan_reason is not None:
        return LogRecord(
            first_line=first_line,
            line_count=len(lines),
            text=text,
            orphan_reason=orphan_reason,
            invalid_utf8=invalid_utf8,
            truncated=truncated,
        )
    (record,) = assemble_records(lines, layout)
    error = record.layout_error
    if error is not None:
        error = "truncated_record" if truncated else "missing_tail"
    return replace(
        record,
        first_line=first_line,
        invalid_utf8=invalid_utf8,
        truncated=truncated,
        layout_error=error,
    )
