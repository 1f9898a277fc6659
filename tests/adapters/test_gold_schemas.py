"""The gold tables are the core's replay records: same columns, same order, matching types.

Each record is built with a value in every field and its ``to_row()`` is compared with the
table's schema: names and order, then the Spark type of every value (a datetime is a timestamp,
a list an array of the element's type, an int an integer or long, ...). No JVM: StructTypes only.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

import pytest
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    TimestampType,
)

from jobs.stages.replay import GOLD, OUTPUT_SCHEMA, gold_columns
from jobs.tasks.replay_tasks import ROW_LAYOUTS
from kafkactl_core.replay import AnomalyRow, ElectionRow, TimelineRow, WhatIfRow
from schemas.catalog import TableSpec
from schemas.gold import ANOMALIES, ELECTIONS, PARTITION_TIMELINE, TABLES, WHAT_IF
from schemas.registry import ALL_TABLES

CASES = [
    (ELECTIONS, ElectionRow, ["run_id"]),
    (PARTITION_TIMELINE, TimelineRow, ["scenario", "run_id"]),
    (ANOMALIES, AnomalyRow, ["scenario", "run_id"]),
    (WHAT_IF, WhatIfRow, ["run_id"]),
]
_SAMPLE = {
    "str": "x",
    "int": 7,
    "bool": True,
    "float": 1.5,
    "tuple[int, ...]": (1, 2),
    "tuple[str, ...]": ("a:1",),
}


def _filled(record: type) -> Any:
    values = {
        f.name: _SAMPLE[str(f.type).replace(" | None", "")] for f in dataclasses.fields(record)
    }
    return record(**values)


def _compatible(value: Any, data_type: DataType) -> bool:
    if isinstance(value, bool):
        return isinstance(data_type, BooleanType)
    if isinstance(value, int):
        return isinstance(data_type, (IntegerType, LongType))
    if isinstance(value, float):
        return isinstance(data_type, DoubleType)
    if isinstance(value, str):
        return isinstance(data_type, StringType)
    if isinstance(value, datetime):
        return isinstance(data_type, TimestampType)
    if isinstance(value, list):
        return isinstance(data_type, ArrayType) and all(
            _compatible(v, data_type.elementType) for v in value
        )
    return False


@pytest.mark.parametrize(("spec", "record", "extra"), CASES, ids=lambda c: getattr(c, "name", ""))
def test_table_columns_are_the_records_to_row(spec: TableSpec, record: type, extra: list[str]):
    row = _filled(record).to_row()
    assert spec.schema.fieldNames() == [*row, *extra]
    for name, value in row.items():
        data_type = spec.schema[name].dataType
        assert _compatible(value, data_type), f"{spec.qualified_name}.{name}: {data_type}"
    assert all(spec.schema[name].dataType == StringType() for name in extra)


@pytest.mark.parametrize(("spec", "record", "extra"), CASES, ids=lambda c: getattr(c, "name", ""))
def test_each_column_is_fed_by_its_record_field(spec: TableSpec, record: type, extra: list[str]):
    layout = next(layout for layout in ROW_LAYOUTS.values() if layout.record is record)
    assert GOLD[layout.row_type] is spec
    by_union = {c.name: c.field for c in layout.columns}
    for target, source in gold_columns(layout, spec):
        if source == layout.scenario_column:
            assert target.name == "scenario"
            continue
        field = by_union[source]
        if isinstance(target.dataType, TimestampType):
            assert field.endswith("_ms"), (target.name, field)
            assert isinstance(OUTPUT_SCHEMA[source].dataType, LongType)
        else:
            assert field == target.name
            assert OUTPUT_SCHEMA[source].dataType == target.dataType


def test_gold_tables_are_registered_after_silver_and_documented():
    names = [spec.qualified_name for spec in ALL_TABLES]
    gold = [names.index(spec.qualified_name) for spec in TABLES]
    silver = [i for i, spec in enumerate(ALL_TABLES) if spec.layer == "silver"]
    assert gold == sorted(gold) and min(gold) > max(silver)
    for spec in TABLES:
        assert spec.partition_by == ("cluster",)
        for field in spec.schema.fields:
            assert field.metadata.get("comment"), f"{spec.qualified_name}.{field.name}"
