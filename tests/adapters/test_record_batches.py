"""``record_batch`` builds a task's Arrow batch a column at a time; it must equal the batch of
the records' ``to_row()`` values (``pa.RecordBatch.from_pylist``) for every record class the
tasks return (the replay's evidence and facts by their declared readers), with every field
filled and with every optional field empty. No JVM."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import pyarrow as pa
import pytest

from jobs.lakehouse.arrow_types import arrow_schema
from jobs.tasks.record_batches import record_batch
from jobs.tasks.wire import task_schema
from kafkactl_core.replay import (
    CLUSTER_FACT_COLUMNS,
    CLUSTER_FACT_VALUES,
    EVIDENCE_COLUMNS,
    EVIDENCE_VALUES,
    ClusterFact,
    PartitionEvidence,
)
from kafkactl_core.report.rows import PartitionSpan
from schemas.catalog import TableSpec
from schemas.report import PARTITION_SPANS
from tests.adapters.record_tables import RECORD_TABLES, core_schema, filled

CASES = [(spec, record) for spec, record, _ in RECORD_TABLES] + [(PARTITION_SPANS, PartitionSpan)]


def _sparse(record: type) -> Any:
    """``filled(record)`` with every optional field ``None`` and every tuple empty."""
    hints = typing.get_type_hints(record)
    values = {}
    for field in dataclasses.fields(record):
        hint = hints[field.name]
        if type(None) in typing.get_args(hint):
            values[field.name] = None
        elif typing.get_origin(hint) is tuple:
            values[field.name] = ()
    return dataclasses.replace(filled(record), **values)


def _schema(spec: TableSpec) -> pa.Schema:
    """The task schema in Arrow (a column the record lacks, ``scenario``, is null in both)."""
    return arrow_schema(task_schema(spec))


@pytest.mark.parametrize(("spec", "record"), CASES, ids=[spec.name for spec, _ in CASES])
def test_a_record_batch_equals_the_batch_of_the_records_rows(spec: TableSpec, record: type):
    records = [filled(record), _sparse(record), filled(record)]
    schema = _schema(spec)
    expected = pa.RecordBatch.from_pylist([r.to_row() for r in records], schema=schema)
    assert record_batch(records, schema).equals(expected)


READ_BY_VALUES = [
    (PartitionEvidence, EVIDENCE_VALUES, EVIDENCE_COLUMNS),
    (ClusterFact, CLUSTER_FACT_VALUES, CLUSTER_FACT_COLUMNS),
]


@pytest.mark.parametrize(
    ("record", "values", "columns"), READ_BY_VALUES, ids=lambda p: getattr(p, "__name__", "")
)
def test_records_read_by_their_declared_values_equal_the_batch_of_their_rows(
    record: type, values: Any, columns: Any
):
    assert list(values) == list(columns)
    records = [filled(record), _sparse(record), filled(record)]
    schema = core_schema(columns)
    expected = pa.RecordBatch.from_pylist([r.to_row() for r in records], schema=schema)
    assert record_batch(records, schema, values=values).equals(expected)


def test_columns_the_records_lack_hold_their_constant_or_null():
    schema = pa.schema([("row_type", pa.string()), *_schema(PARTITION_SPANS)])
    schema = schema.append(pa.field("other", pa.int64()))
    batch = record_batch([filled(PartitionSpan)] * 2, schema, {"row_type": "spans"})
    assert batch.column("row_type").to_pylist() == ["spans", "spans"]
    assert batch.column("other").null_count == 2
    assert record_batch([], schema, {"row_type": "spans"}).num_rows == 0


def test_a_schema_without_a_column_of_the_records_is_refused():
    schema = _schema(PARTITION_SPANS)
    narrow = pa.schema([field for field in schema if field.name != schema.names[-1]])
    with pytest.raises(ValueError, match=schema.names[-1]):
        record_batch([filled(PartitionSpan)], narrow)
