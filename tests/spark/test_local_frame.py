"""``local_frame`` builds the frame PySpark's ``createDataFrame`` of Python rows builds, for every
table's schema, without its Python tasks."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import types as T

from jobs.runtime.local_frame import local_frame
from schemas import ALL_TABLES
from schemas.catalog import TableSpec
from tests.helpers import assert_frames_equal, comparable

_SAMPLES: dict[type[T.DataType], Any] = {
    T.StringType: "ü-topic",
    T.LongType: 1 << 40,
    T.IntegerType: -3,
    T.DoubleType: 0.25,
    T.BooleanType: True,
    T.BinaryType: b"\x00\xff",
    T.DateType: date(2024, 3, 5),
    T.TimestampType: datetime(2024, 3, 5, 23, 59, 58, 123456, tzinfo=UTC),
}


def _sample(data_type: T.DataType) -> Any:
    if isinstance(data_type, T.ArrayType):
        return [_sample(data_type.elementType)] + ([None] if data_type.containsNull else [])
    if isinstance(data_type, T.MapType):
        return {_sample(data_type.keyType): _sample(data_type.valueType)}
    if isinstance(data_type, T.StructType):
        return {f.name: _sample(f.dataType) for f in data_type.fields}
    return _SAMPLES[type(data_type)]


def _rows(spec: TableSpec) -> list[dict[str, Any]]:
    """A row with a value in every column, and one with nulls wherever the table allows them."""
    full = {f.name: _sample(f.dataType) for f in spec.schema.fields}
    sparse = {f.name: full[f.name] for f in spec.schema.fields if not f.nullable}
    return [full, sparse]


@pytest.mark.parametrize("spec", ALL_TABLES, ids=lambda spec: spec.qualified_name)
def test_a_local_frame_equals_the_frame_of_python_rows(spark: SparkSession, spec: TableSpec):
    rows = _rows(spec)
    names = spec.schema.fieldNames()
    expected = spark.createDataFrame([tuple(r.get(n) for n in names) for r in rows], spec.schema)

    actual = local_frame(spark, rows, spec.schema)

    assert actual.schema == spec.schema
    assert_frames_equal(comparable(actual), comparable(expected))


def test_an_empty_local_frame_has_the_schema_and_no_rows(spark: SparkSession):
    spec = ALL_TABLES[0]

    frame = local_frame(spark, [], spec.schema)

    assert frame.schema == spec.schema
    assert frame.count() == 0
