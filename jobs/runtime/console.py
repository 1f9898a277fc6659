"""Printing rows for people (aligned tables) and for programs (CSV, JSON lines).

Each format has one conversion of a Spark value, led by the column's type where it is known:
``table_cell`` (binary as hex, null as ``NULL``), ``csv_cell`` (binary as base64, null empty)
and ``json_value`` (binary as base64, null as ``null``). In all three, timestamps are ISO-8601 in
UTC (``...Z``; ``timestamp_ntz`` without a zone), dates and times ISO-8601, decimals exact, and
arrays, maps and structs JSON with their nested values converted the same way. Intervals are
printed as Spark prints them: ``printable`` casts them to strings before rows are collected,
because PySpark cannot collect year-month and calendar intervals.
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import json
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from typing import Any, TextIO

from pyspark.sql import DataFrame
from pyspark.sql.types import (
    ArrayType,
    CalendarIntervalType,
    DataType,
    DayTimeIntervalType,
    Geography,
    Geometry,
    MapType,
    Row,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    UserDefinedType,
    VariantVal,
    YearMonthIntervalType,
)


class _Object(list[tuple[str, Any]]):
    """A JSON object as its (name, value) pairs: a struct's field names may repeat."""


Binary = Callable[[bytes], str]


def hex_text(data: bytes) -> str:
    """Bytes as upper-case hex, as Spark's ``hex()`` prints them."""
    return data.hex().upper()


def base64_text(data: bytes) -> str:
    """Bytes as standard base64 with padding."""
    return base64.b64encode(data).decode("ascii")


def table_cell(value: Any, data_type: DataType | None = None) -> str:
    """A value as an aligned table shows it: binary as hex, ``NULL`` for null.

    Args:
        value: a collected Spark value (or a plain Python one).
        data_type: its column's type, when known.

    Returns:
        The cell's text.
    """
    return "NULL" if value is None else _text(_tree(value, data_type, hex_text))


def csv_cell(value: Any, data_type: DataType | None = None) -> str:
    """A value as a CSV field: binary as base64, empty for null.

    Args:
        value: a collected Spark value (or a plain Python one).
        data_type: its column's type, when known.

    Returns:
        The field's text.
    """
    return "" if value is None else _text(_tree(value, data_type, base64_text))


def json_value(value: Any, data_type: DataType | None = None) -> str:
    """A value as JSON text: binary as base64, decimals as exact numbers, NaN as a string.

    Args:
        value: a collected Spark value (or a plain Python one).
        data_type: its column's type, when known.

    Returns:
        The JSON text.
    """
    return _json(_tree(value, data_type, base64_text))


def printable(frame: DataFrame) -> DataFrame:
    """``frame`` with interval values (also inside arrays, maps, structs) cast to strings.

    Args:
        frame: any DataFrame.

    Returns:
        A DataFrame with the same column names, in order, whose rows PySpark can collect.
    """
    types = [f.dataType for f in frame.schema.fields]
    targets = [_without_intervals(t) for t in types]
    if targets == types:
        return frame
    # positional names first: a query may repeat a column name, which a select cannot name
    positional = frame.toDF(*(f"_{i}" for i in range(len(targets))))
    columns = [positional[f"_{i}"] for i in range(len(targets))]
    return positional.select(
        *(
            (column if target == kind else column.cast(target)).alias(name)
            for column, kind, target, name in zip(
                columns, types, targets, frame.columns, strict=True
            )
        )
    )


def write_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    out: TextIO | None = None,
    types: Sequence[DataType] | None = None,
) -> None:
    """An aligned text table: numbers right-aligned, everything else left-aligned.

    Args:
        headers: the column names.
        rows: the rows' values.
        out: where to write (standard output by default).
        types: the columns' types, when known.
    """
    out = out or sys.stdout
    kinds = _types(headers, types)
    raw = [list(row) for row in rows]
    cells = [[table_cell(v, t) for v, t in zip(row, kinds, strict=True)] for row in raw]
    numeric = [
        bool(raw) and all(_is_number(row[i]) or row[i] is None for row in raw)
        for i in range(len(headers))
    ]
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]

    def render(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if right else v.ljust(w)
            for v, w, right in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip() + "\n"

    out.write(render(list(headers)))
    out.write("  ".join("-" * w for w in widths) + "\n")
    for row in cells:
        out.write(render(row))


def write_csv(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    out: TextIO | None = None,
    types: Sequence[DataType] | None = None,
) -> None:
    """RFC 4180 CSV with a header row; nested values as JSON.

    Args:
        headers: the column names.
        rows: the rows' values.
        out: where to write (standard output by default).
        types: the columns' types, when known.
    """
    out = out or sys.stdout
    kinds = _types(headers, types)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow([csv_cell(v, t) for v, t in zip(row, kinds, strict=True)])


def write_json_lines(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    out: TextIO | None = None,
    types: Sequence[DataType] | None = None,
) -> None:
    """One JSON object per row, its members in column order (repeated names kept).

    Args:
        headers: the column names.
        rows: the rows' values.
        out: where to write (standard output by default).
        types: the columns' types, when known.
    """
    out = out or sys.stdout
    kinds = _types(headers, types)
    names = [json.dumps(h) for h in headers]
    for row in rows:
        members = (f"{n}:{json_value(v, t)}" for n, v, t in zip(names, row, kinds, strict=True))
        out.write("{" + ",".join(members) + "}\n")


def _types(headers: Sequence[str], types: Sequence[DataType] | None) -> list[DataType | None]:
    return [None] * len(headers) if types is None else list(types)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def _tree(value: Any, data_type: DataType | None, binary: Binary) -> Any:
    """A JSON-ready tree of ``value``: None, bool, int, float, Decimal, str, list, ``_Object``."""
    if value is None:
        return None
    if isinstance(data_type, UserDefinedType):
        return _tree(data_type.serialize(value), data_type.sqlType(), binary)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return binary(bytes(value))
    if isinstance(value, (bool, int, float, str, Decimal)):
        return value
    if isinstance(value, dt.datetime):
        return _timestamp(value, isinstance(data_type, TimestampNTZType))
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, VariantVal):
        return json.loads(value.toJson("UTC"), parse_float=Decimal, object_pairs_hook=_Object)
    if isinstance(value, Row) or (isinstance(data_type, StructType) and isinstance(value, tuple)):
        return _struct(value, data_type, binary)
    if isinstance(value, dict):
        key_type = data_type.keyType if isinstance(data_type, MapType) else None
        value_type = data_type.valueType if isinstance(data_type, MapType) else None
        return _Object(
            (_text(_tree(k, key_type, binary)), _tree(v, value_type, binary))
            for k, v in value.items()
        )
    if isinstance(value, (list, tuple)):
        element = data_type.elementType if isinstance(data_type, ArrayType) else None
        return [_tree(v, element, binary) for v in value]
    if isinstance(value, (Geometry, Geography)):
        return _Object([("srid", value.getSrid()), ("wkb", binary(bytes(value.getBytes())))])
    return str(value)


def _struct(value: Any, data_type: DataType | None, binary: Binary) -> _Object:
    """A struct: a collected Row, or the plain tuple a user-defined type serializes to."""
    if isinstance(data_type, StructType):
        names = data_type.fieldNames()
        types: list[DataType | None] = [f.dataType for f in data_type.fields]
    else:
        names = list(value.__fields__)
        types = [None] * len(value)
    return _Object(
        (name, _tree(v, t, binary)) for name, v, t in zip(names, value, types, strict=True)
    )


def _timestamp(value: dt.datetime, without_zone: bool) -> str:
    """ISO-8601; PySpark gives a ``timestamp`` as a naive local time, read back as such to UTC."""
    if without_zone:
        return value.isoformat()
    return value.astimezone(dt.UTC).replace(tzinfo=None).isoformat() + "Z"


def _text(tree: Any) -> str:
    """A cell's text: scalars plainly, arrays and objects as JSON."""
    if isinstance(tree, str):
        return tree
    if isinstance(tree, (list, _Object)):
        return _json(tree)
    if isinstance(tree, bool):
        return "true" if tree else "false"
    if isinstance(tree, Decimal):
        return format(tree, "f")
    if isinstance(tree, float):
        return _float_text(tree)
    return str(tree)


def _json(tree: Any) -> str:
    if tree is None:
        return "null"
    if isinstance(tree, _Object):
        return "{" + ",".join(f"{json.dumps(k)}:{_json(v)}" for k, v in tree) + "}"
    if isinstance(tree, list):
        return "[" + ",".join(_json(v) for v in tree) + "]"
    if isinstance(tree, float) and not math.isfinite(tree):
        return json.dumps(_float_text(tree))
    if isinstance(tree, (bool, int, float)):
        return json.dumps(tree)
    if isinstance(tree, Decimal):
        return format(tree, "f")
    return json.dumps(tree)


def _float_text(value: float) -> str:
    """Shortest text that reads back as the same float; Spark's names for NaN and infinities."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def _without_intervals(data_type: DataType) -> DataType:
    """``data_type`` with every interval inside it replaced by a string."""
    if isinstance(data_type, (CalendarIntervalType, DayTimeIntervalType, YearMonthIntervalType)):
        return StringType()
    if isinstance(data_type, ArrayType):
        return ArrayType(_without_intervals(data_type.elementType), data_type.containsNull)
    if isinstance(data_type, MapType):
        return MapType(
            _without_intervals(data_type.keyType),
            _without_intervals(data_type.valueType),
            data_type.valueContainsNull,
        )
    if isinstance(data_type, StructType):
        return StructType(
            [
                StructField(f.name, _without_intervals(f.dataType), f.nullable, f.metadata)
                for f in data_type.fields
            ]
        )
    return data_type
