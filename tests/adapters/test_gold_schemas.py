"""The replay's gold tables are fed column by column from the replay job's output (a time
from its ``_ms`` field, every other column from its namesake of the same type), and registered
after silver with every column commented. ``test_row_contracts`` ties them to the core's records.
No JVM: StructTypes only.
"""

from __future__ import annotations

import pytest
from pyspark.sql.types import LongType, TimestampType

from jobs.stages.replay import GOLD, OUTPUT_SCHEMA, gold_columns
from jobs.tasks.replay_tasks import ROW_LAYOUTS
from schemas.catalog import TableSpec
from schemas.gold import TABLES
from schemas.registry import ALL_TABLES
from tests.adapters.record_tables import RECORD_TABLES

CASES = [(spec, record) for spec, record, _ in RECORD_TABLES if spec in TABLES]


@pytest.mark.parametrize(("spec", "record"), CASES, ids=[spec.name for spec, _ in CASES])
def test_each_column_is_fed_by_its_record_field(spec: TableSpec, record: type):
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
