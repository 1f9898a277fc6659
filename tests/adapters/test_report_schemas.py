"""The report's tasks return the records' ``to_row()`` values, which match the task schema of
their table; ``gold.report_anomalies`` has ``gold.anomalies``' columns; all registered after
the replay's gold tables, partitioned by cluster, every column commented. ``test_row_contracts``
ties them to the core's records. No JVM: StructTypes only.
"""

from __future__ import annotations

import pytest

from jobs.tasks.wire import task_schema
from schemas import gold
from schemas.catalog import TableSpec
from schemas.registry import ALL_TABLES
from schemas.report import REPORT_ANOMALIES, TABLES
from tests.adapters.record_tables import RECORD_TABLES, compatible, filled

CASES = [(spec, record) for spec, record, _ in RECORD_TABLES if spec in TABLES]


@pytest.mark.parametrize(("spec", "record"), CASES, ids=[spec.name for spec, _ in CASES])
def test_task_rows_match_the_task_schema(spec: TableSpec, record: type):
    row = filled(record).to_row()
    assert list(row) == task_schema(spec).fieldNames()
    for name, value in row.items():
        assert compatible(value, task_schema(spec)[name].dataType), name


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
