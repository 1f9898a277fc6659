"""Captured texts to typed Arrow values, and timestamp texts to UTC microseconds, vectorised.

Each field is converted by the simple form of its rule in ``kafkactl_core.grammars.fields``
(integers of at most 18 digits, lists of plain comma-separated items, ...); a text outside those
forms is reported, and the executor hands its row to the reference. Timestamps are the
reference's naive local time read in the cluster's time zone with Python's ``fold=0``.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from jobs.lakehouse.arrow_types import arrow_type
from jobs.logparse.arrow_arrays import (
    BoolArray,
    IntArray,
    as_mask,
    flat,
    masked,
    string_lengths,
    string_parts,
    validity_bitmap,
)
from jobs.logparse.parse_contract import PARSED_ARROW_SCHEMA
from kafkactl_core.grammars import EVENT_FIELDS, CompiledLayout, FieldType
from kafkactl_core.grammars.fields import INT_LIST_BROKER_STATE_PATTERN
from kafkactl_core.grammars.timestamps import DEFAULT_DATE_PATTERN
from schemas.logs import spark_type

_MAX_DIGITS = 18  # any integer of at most 18 digits fits in 64 bits
FIELD_TYPES = {name: arrow_type(spark_type(kind)) for name, kind in EVENT_FIELDS.items()}
_STRING_COLUMNS = ("log_time_text", "level", "logger", "thread", "reason_detail")
VALUE_TYPES: dict[str, pa.DataType] = {
    "log_time": PARSED_ARROW_SCHEMA.field("log_time").type,
    **dict.fromkeys(_STRING_COLUMNS, pa.string()),
    **FIELD_TYPES,
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


class Zone:
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
    offsets, raw = string_parts(texts)
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


def local_times(layout: CompiledLayout, texts: pa.Array) -> tuple[IntArray, BoolArray]:
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


def timestamps(micros: IntArray, valid: BoolArray) -> pa.Array:
    """``log_time`` values of UTC microseconds, null where not ``valid``."""
    return pa.Array.from_buffers(
        VALUE_TYPES["log_time"],
        len(micros),
        [validity_bitmap(valid), pa.py_buffer(micros.tobytes())],
    )


def _split_list(
    texts: pa.Array, valid: BoolArray, list_type: pa.DataType, cast: pa.DataType | None
) -> tuple[pa.Array, BoolArray]:
    """Comma-split lists (empty text: empty list) of the ``valid`` rows; other rows: empty.

    Returns:
        The list array and the rows whose elements all fit (``cast`` to int64: 18 digits).
    """
    nonempty = string_lengths(texts) > 0
    parts = pc.split_pattern(texts, ",")
    counts = pc.list_value_length(parts).to_numpy(zero_copy_only=False).astype(np.int64)
    values = parts.flatten()
    keep_rows = valid & nonempty
    fits = np.ones(len(texts), dtype=bool)
    if cast is not None:
        too_long = string_lengths(flat(values)) > _MAX_DIGITS
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


def convert(kind: FieldType, texts: pa.Array, digits: bool) -> tuple[pa.Array, BoolArray]:
    """Captured texts by the simple forms of ``fields.py``'s rules, and which of them fit.

    Args:
        kind: the field's type.
        texts: the captures (empty: no capture), without nulls or offset.
        digits: every capture only matches ``-?[0-9]+`` (its group says so): no shape check.

    Returns:
        The values, and False where the text needs the reference (which converts it or fails).
    """
    lengths = string_lengths(texts)
    nonempty = lengths > 0
    ok = np.ones(len(texts), dtype=bool)
    if kind is FieldType.STR:
        return masked(texts, nonempty), ok
    if kind is FieldType.INT:
        ok &= lengths <= _MAX_DIGITS
        if not digits:
            ok &= as_mask(pc.match_substring_regex(texts, "^-?[0-9]+$")) | ~nonempty
        return pc.cast(masked(texts, nonempty & ok), pa.int64()), ok
    if kind is FieldType.FLOAT:
        shaped = as_mask(pc.match_substring_regex(texts, _FLOAT_SHAPE))
        ok &= shaped | ~nonempty
        nan = as_mask(pc.ends_with(texts, "NaN")) & shaped
        number = pc.cast(masked(texts, shaped & ~nan), pa.float64())
        if nan.any():
            number = pc.if_else(pa.array(nan), pa.scalar(math.nan), number)
        return number, ok
    if kind is FieldType.BOOL:
        true = as_mask(pc.equal(texts, "true"))
        false = as_mask(pc.equal(texts, "false"))
        ok &= true | false | ~nonempty
        return pa.array(true, mask=~(true | false)), ok
    if kind is FieldType.INT_LIST:
        if bool(pc.any(pc.match_substring(texts, "BrokerState")).as_py()):
            texts = flat(pc.replace_substring_regex(texts, INT_LIST_BROKER_STATE_PATTERN, "\\1"))
        ok &= as_mask(pc.match_substring_regex(texts, _INT_LIST_SHAPE))
        compact = flat(pc.replace_substring(texts, ", ", ","))
        lists, fits = _split_list(compact, ok, VALUE_TYPES["isr"], pa.int64())
        return lists, ok & fits
    # str_list: without brackets, parentheses or other blanks, ", " and "," separate alike.
    compact = flat(pc.replace_substring(texts, ", ", ","))
    ok &= ~as_mask(pc.match_substring_regex(compact, _STR_LIST_SPECIAL))
    lists, _ = _split_list(compact, ok, VALUE_TYPES["partitions"], None)
    return lists, ok
