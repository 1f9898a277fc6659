"""The log tables' contracts: the event columns of ``silver.controller_events`` are exactly the
grammar field set (``EVENT_FIELDS``) and the ``ControllerEvent`` the Python executor returns.

No Spark session is started: StructTypes are plain Python objects.
"""

from __future__ import annotations

import dataclasses

from pyspark.sql.types import ArrayType, BooleanType, DoubleType, LongType, StringType

from kafkactl_core.grammars import EVENT_FIELDS, ControllerEvent, FieldType
from schemas.logs import (
    BROKER_CONFIGS,
    CONTROLLER_EVENTS,
    EVENT_FIELD_COMMENTS,
    INGEST_STATS,
    LOG_RECORDS,
    QUARANTINE,
    TABLES,
    event_columns,
)
from schemas.registry import ALL_TABLES

EXPECTED_TYPES = {
    FieldType.STR: StringType(),
    FieldType.INT: LongType(),
    FieldType.FLOAT: DoubleType(),
    FieldType.BOOL: BooleanType(),
    FieldType.INT_LIST: ArrayType(LongType()),
    FieldType.STR_LIST: ArrayType(StringType()),
}


def test_event_columns_are_event_fields_in_order_with_their_types():
    columns = event_columns()
    assert [c.name for c in columns] == list(EVENT_FIELDS)
    for column in columns:
        assert column.dataType == EXPECTED_TYPES[EVENT_FIELDS[column.name]], column.name
        assert column.nullable
        assert column.metadata["comment"] == EVENT_FIELD_COMMENTS[column.name]
    assert set(EVENT_FIELD_COMMENTS) == set(EVENT_FIELDS)


def test_controller_events_carries_every_controller_event_field():
    event_fields = [f.name for f in dataclasses.fields(ControllerEvent)]
    assert event_fields[0] == "event_type"
    assert event_fields[1:] == list(EVENT_FIELDS)
    names = CONTROLLER_EVENTS.schema.fieldNames()
    start = names.index(event_fields[1])
    assert names[start : start + len(EVENT_FIELDS)] == list(EVENT_FIELDS)
    assert "event_type" in names
    assert len(names) == len(set(names)), "no column name twice"


def test_every_log_table_is_registered_partitioned_by_cluster_and_documented():
    assert TABLES == (LOG_RECORDS, CONTROLLER_EVENTS, QUARANTINE, BROKER_CONFIGS, INGEST_STATS)
    for spec in TABLES:
        assert spec in ALL_TABLES
        assert spec.partition_by == ("cluster",)
        for column in spec.schema.fields:
            assert column.metadata.get("comment"), f"{spec.qualified_name}.{column.name}"
    meta_position = max(i for i, spec in enumerate(ALL_TABLES) if spec.layer == "meta")
    assert ALL_TABLES.index(LOG_RECORDS) > meta_position
