"""Columns derived from a core record, so that a gold row's columns are declared once.

A record is a dataclass of ``kafkactl_core`` whose fields are its table's columns, in order; its
annotations give each column's name, Spark type and nullability:

* ``str``, ``int``, ``float``, ``bool``, ``date``: string, int, double, boolean, date;
* an enum: a string (``to_row()`` gives the member's name);
* ``tuple[X, ...]``: an array of X's type, nullable (like every array column of the lakehouse);
* an ``int`` field named ``..._ms``: a timestamp named without ``_ms`` (``to_row()`` converts it);
* ``X | None``: nullable; anything else is not null.

The table module adds what an annotation cannot say: every column's comment, and per column a
wider Spark type (64-bit offsets), nullability of a value the record always has, or a name.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Collection, Mapping
from datetime import date
from types import MappingProxyType, NoneType
from typing import Any

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DateType,
    DoubleType,
    IntegerType,
    StringType,
    StructField,
    TimestampType,
)

from schemas.catalog import column

__all__ = ["record_columns"]

_SCALARS: Mapping[Any, DataType] = MappingProxyType(
    {
        str: StringType(),
        int: IntegerType(),
        float: DoubleType(),
        bool: BooleanType(),
        date: DateType(),
    }
)
_NONE: Mapping[str, Any] = MappingProxyType({})


def _field_column(name: str, hint: Any, renamed: Mapping[str, str]) -> tuple[str, DataType, bool]:
    args = typing.get_args(hint)
    optional = NoneType in args
    if optional:
        (hint,) = (a for a in args if a is not NoneType)
    if typing.get_origin(hint) is tuple:
        return name, ArrayType(_SCALARS[typing.get_args(hint)[0]]), True
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return name, StringType(), optional
    if hint is int and name.endswith("_ms"):
        return renamed.get(name, name.removesuffix("_ms")), TimestampType(), optional
    return name, _SCALARS[hint], optional


def record_columns(
    record: type,
    comments: Mapping[str, str],
    *,
    types: Mapping[str, DataType] = _NONE,
    nullable: Collection[str] = (),
    renamed: Mapping[str, str] = _NONE,
) -> list[StructField]:
    """A record's fields as the columns of its table.

    Args:
        record: the core dataclass whose fields are the columns, in order.
        comments: every column's comment, by column name, in the record's order.
        types: Spark types by column name, where the annotation's is too narrow.
        nullable: columns that allow null although the record always has a value.
        renamed: column names by field name, where dropping ``_ms`` does not give it, besides
            the record class's own ``RENAMED`` (which ``column_plan`` reads too).

    Returns:
        The columns, in the record's order.

    Raises:
        ValueError: the comments are not the columns in order, or an override changes no column.
    """
    hints = typing.get_type_hints(record)
    renamed = {**getattr(record, "RENAMED", {}), **renamed}
    derived = [_field_column(f.name, hints[f.name], renamed) for f in dataclasses.fields(record)]
    names = [name for name, _, _ in derived]
    if list(comments) != names:
        raise ValueError(f"{record.__name__}: comments {list(comments)} are not columns {names}")
    not_null = {name for name, _, optional in derived if not optional}
    stale = ({*types, *renamed.values()} - set(names)) | (set(nullable) - not_null)
    if stale:
        raise ValueError(f"{record.__name__}: overrides that change no column: {sorted(stale)}")
    return [
        column(
            name,
            types.get(name, data_type),
            comments[name],
            nullable=optional or name in nullable,
        )
        for name, data_type, optional in derived
    ]
