"""Wire rows: a table's columns as Python tasks produce them.

Timestamps travel as epoch milliseconds and dates as ISO text (``wire_schema``), so no value
depends on the time zone of the process that makes it; ``from_wire`` casts them back to the
table's types and adds ``run_id``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import DateType, LongType, StringType, StructField, StructType, TimestampType

from kafkactl_core.replay.values import as_ms
from schemas.catalog import TableSpec

__all__ = ["from_wire", "wire_row", "wire_schema"]


def wire_schema(spec: TableSpec, exclude: Sequence[str] = ("run_id",)) -> StructType:
    """A table's columns as task output: timestamps as epoch ms, dates as ISO text.

    Args:
        spec: the table.
        exclude: columns the task does not produce.

    Returns:
        The schema.
    """
    fields = []
    for f in spec.schema.fields:
        if f.name in exclude:
            continue
        if isinstance(f.dataType, TimestampType):
            fields.append(StructField(f.name, LongType(), True))
        elif isinstance(f.dataType, DateType):
            fields.append(StructField(f.name, StringType(), True))
        else:
            fields.append(StructField(f.name, f.dataType, True))
    return StructType(fields)


def wire_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A record's ``to_row()`` as wire values (datetimes to ms, dates to ISO text)."""
    out: dict[str, Any] = {}
    for name, value in row.items():
        if isinstance(value, datetime):
            out[name] = as_ms(value)
        elif isinstance(value, date):
            out[name] = value.isoformat()
        else:
            out[name] = value
    return out


def from_wire(frame: DataFrame, spec: TableSpec, run_id: str) -> DataFrame:
    """Cast wire columns back to the table's types and add ``run_id``.

    Args:
        frame: task output in ``wire_schema(spec)``.
        spec: the table.
        run_id: this run.

    Returns:
        The frame in the table's columns.
    """
    columns: list[Column] = []
    for f in spec.schema.fields:
        if f.name == "run_id":
            columns.append(F.lit(run_id).alias("run_id"))
        elif isinstance(f.dataType, TimestampType):
            columns.append(F.timestamp_millis(F.col(f.name)).alias(f.name))
        elif isinstance(f.dataType, DateType):
            columns.append(F.to_date(F.col(f.name)).alias(f.name))
        else:
            columns.append(F.col(f.name).cast(f.dataType).alias(f.name))
    return frame.select(*columns)
