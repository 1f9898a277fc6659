"""The report tables are the core's report records: same columns, same order, matching types;
``gold.report_anomalies`` has ``gold.anomalies``' columns; all registered after the replay's gold
tables, partitioned by cluster, every column commented. No JVM: StructTypes only.
"""

from __future__ import annotations

import dataclasses
import typing
from datetime import date, datetime
from typing import Any

import pytest
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DateType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    TimestampType,
)

from jobs.tasks.report_tasks import wire_row, wire_schema
from kafkactl_core.report import rows as report_rows
from kafkactl_core.report.rows import (
    ControllerTenure,
    ImbalanceDailyRow,
    ImbalanceRow,
    OfflineInterval,
    UncleanDailyRow,
    UncleanRow,
)
from schemas import gold
from schemas.catalog import TableSpec
from schemas.registry import ALL_TABLES
from schemas.report import (
    CONTROLLER_HISTORY,
    LEADER_IMBALANCE,
    LEADER_IMBALANCE_DAILY,
    OFFLINE_INTERVALS,
    REPORT_ANOMALIES,
    TABLES,
    UNCLEAN_ELECTIONS,
    UNCLEAN_ELECTIONS_DAILY,
)

CASES = [
    (LEADER_IMBALANCE, ImbalanceRow),
    (LEADER_IMBALANCE_DAILY, ImbalanceDailyRow),
    (UNCLEAN_ELECTIONS, UncleanRow),
    (UNCLEAN_ELECTIONS_DAILY, UncleanDailyRow),
    (OFFLINE_INTERVALS, OfflineInterval),
    (CONTROLLER_HISTORY, ControllerTenure),
]
_SAMPLE = {
    str: "x",
    int: 7,
    bool: True,
    float: 1.5,
    date: date(2024, 3, 5),
    tuple[int, ...]: (1, 2),
    tuple[str, ...]: ("a:1",),
}


def _filled(record: type) -> Any:
    hints = typing.get_type_hints(record, vars(report_rows))
    values = {}
    for f in dataclasses.fields(record):
        hint = hints[f.name]
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        values[f.name] = _SAMPLE[args[0] if args and typing.get_origin(hint) is not tuple else hint]
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
    if isinstance(value, date):
        return isinstance(data_type, DateType)
    if isinstance(value, list):
        return isinstance(data_type, ArrayType) and all(
            _compatible(v, data_type.elementType) for v in value
        )
    return False


@pytest.mark.parametrize(("spec", "record"), CASES, ids=lambda c: getattr(c, "name", ""))
def test_table_columns_are_the_records_to_row(spec: TableSpec, record: type):
    row = _filled(record).to_row()
    assert spec.schema.fieldNames() == [*row, "run_id"]
    for name, value in row.items():
        data_type = spec.schema[name].dataType
        assert _compatible(value, data_type), f"{spec.qualified_name}.{name}: {data_type}"
    wire = wire_row(row)
    assert list(wire) == wire_schema(spec).fieldNames()
    for name, value in wire.items():
        assert _compatible(value, wire_schema(spec)[name].dataType), name


def test_report_anomalies_have_the_anomalies_columns():
    assert [(f.name, f.dataType) for f in REPORT_ANOMALIES.schema.fields] == [
        (f.name, f.dataType) for f in gold.ANOMALIES.schema.fields
    ]


def test_report_tables_are_registered_after_the_replays_and_documented():
    names = [spec.qualified_name for spec in ALL_TABLES]
    mine = [names.index(spec.qualified_name) for spec in TABLES]
    replay = [names.index(spec.qualified_name) for spec in gold.TABLES]
    assert mine == sorted(mine) and min(mine) > max(replay)
    for spec in TABLES:
        assert spec.layer == "gold" and spec.partition_by == ("cluster",)
        for field in spec.schema.fields:
            assert field.metadata.get("comment"), f"{spec.qualified_name}.{field.name}"
