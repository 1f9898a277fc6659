"""Tolerant coercion of silver-row values (plain Python, numpy or pandas scalars) to core types.

The normalizers read one silver row as a ``Mapping[str, Any]``. Depending on the caller the
values are plain Python (tests, ``to_row()`` dicts), or what Arrow-to-pandas produces (numpy
integers and arrays, ``NaN`` for a missing number, ``NaT``/``pd.Timestamp`` for times). These
helpers accept all of them without importing numpy or pandas, and return ``None`` rather than
raising on anything they cannot read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "as_bool",
    "as_int",
    "as_ints",
    "as_ms",
    "as_str",
    "as_strs",
    "column_plan",
    "ms_to_datetime",
    "plain_columns",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _missing(value: Any) -> bool:
    # NaN, pd.NA and NaT are not equal to themselves (pd.NA raises on bool(), hence the try).
    if value is None:
        return True
    try:
        return bool(value != value)
    except (TypeError, ValueError):
        return True


def as_int(value: Any) -> int | None:
    """An integer, or ``None`` for a missing or non-integral value.

    Args:
        value: an int, a numpy integer, an integral float, a digit string, ``None`` or ``NaN``.

    Returns:
        The integer or ``None``.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if _missing(value):
        return None
    try:
        if isinstance(value, str):
            return int(value.strip())
        as_float = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if as_float != as_float or as_float in (float("inf"), float("-inf")):
        return None
    integral = int(as_float)
    return integral if integral == as_float else None


def as_str(value: Any) -> str | None:
    """A non-empty string, or ``None``.

    Args:
        value: a string (or anything printable), ``None`` or ``NaN``.

    Returns:
        The string, ``None`` when missing or empty.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value or None
    if _missing(value):
        return None
    text = str(value)
    return text or None


def as_bool(value: Any) -> bool | None:
    """A boolean from a bool, a number or ``true``/``false`` text; ``None`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        return None
    number = as_int(value)
    return None if number is None else number != 0


def _items(value: Any) -> list[Any] | None:
    if value is None or isinstance(value, (str, bytes, Mapping)):
        return None
    try:
        return list(value)
    except TypeError:
        return None


def as_ints(value: Any) -> tuple[int, ...] | None:
    """A tuple of integers from a list, tuple or array; ``None`` when missing or malformed.

    Args:
        value: a sequence of integers (any integer-like element type) or ``None``.

    Returns:
        The tuple (possibly empty), ``None`` when missing or when an element is not an integer.
    """
    items = _items(value)
    if items is None:
        return None
    out: list[int] = []
    for item in items:
        number = as_int(item)
        if number is None:
            return None
        out.append(number)
    return tuple(out)


def as_strs(value: Any) -> tuple[str, ...] | None:
    """A tuple of non-empty strings from a sequence; ``None`` when missing."""
    items = _items(value)
    if items is None:
        return None
    return tuple(text for text in (as_str(item) for item in items) if text is not None)


def as_ms(value: Any) -> int | None:
    """Milliseconds since the Unix epoch (UTC) from a datetime or a number.

    Naive datetimes are taken as UTC (silver ``ts`` columns are UTC). Numbers are taken as
    milliseconds already (ZooKeeper ``time``/``mtime`` columns).

    Args:
        value: a ``datetime`` (or ``pd.Timestamp``), an int/float of milliseconds, or ``None``.

    Returns:
        The milliseconds, ``None`` when missing or unreadable.
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        if _missing(value):
            return None
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        delta = aware - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
    number = as_int(value)
    if number is not None:
        return number
    to_pydatetime = getattr(value, "to_pydatetime", None)
    if callable(to_pydatetime):
        try:
            converted = to_pydatetime()
        except (TypeError, ValueError):
            return None
        return as_ms(converted) if isinstance(converted, datetime) else None
    return None


def ms_to_datetime(ms: int | None) -> datetime | None:
    """The UTC-aware datetime of epoch milliseconds (``None`` stays ``None``)."""
    if ms is None:
        return None
    seconds, millis = divmod(ms, 1000)
    return datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=millis * 1000)


ColumnPlan = tuple[tuple[str, str, bool], ...]
"""(field, column, whether it is a ``_ms`` field) per field of a row record, in field order."""
_PLANS: dict[type, ColumnPlan] = {}


def column_plan(kind: type) -> ColumnPlan:
    """A row record class's columns, by the convention ``schemas.records`` derives them by: an
    ``..._ms`` field is a UTC timestamp column named without ``_ms`` (or as the class's
    ``RENAMED`` mapping says), any other field a column of its own name.

    Derived once per class: ``dataclasses.fields`` and the name tests cost more than reading the
    values, per row.

    Args:
        kind: the record class (a dataclass).

    Returns:
        The plan.
    """
    plan = _PLANS.get(kind)
    if plan is None:
        renamed: Mapping[str, str] = getattr(kind, "RENAMED", {})
        plan = tuple(
            (f.name, renamed.get(f.name, f.name.removesuffix("_ms")), True)
            if f.name.endswith("_ms")
            else (f.name, f.name, False)
            for f in dataclasses.fields(kind)
        )
        _PLANS[kind] = plan
    return plan


def plain_columns(record: DataclassInstance) -> dict[str, Any]:
    """A row record's column values for Arrow, in field order (``column_plan``): a time as a
    UTC datetime, a tuple as a list, anything else as it is.

    Args:
        record: the row record (a dataclass whose fields are its table's columns).

    Returns:
        Column name -> plain value.
    """
    row: dict[str, Any] = {}
    for name, column, is_ms in column_plan(type(record)):
        value = getattr(record, name)
        if is_ms:
            row[column] = ms_to_datetime(value)
        else:
            row[column] = list(value) if isinstance(value, tuple) else value
    return row
