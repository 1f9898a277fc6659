"""Spark types to Arrow types, as Delta stores them.

PySpark's own converter is private and its signature changes between 4.0 and 4.2, so the few
types our tables use are mapped here. Timestamps are microseconds in UTC, as Delta's
``timestamp`` type requires.
"""

from __future__ import annotations

import pyarrow as pa
from pyspark.sql import types as T


def arrow_type(data_type: T.DataType) -> pa.DataType:
    """The Arrow type Delta uses for a Spark type.

    Raises:
        TypeError: for a Spark type our tables do not use.
    """
    simple: dict[type[T.DataType], pa.DataType] = {
        T.StringType: pa.string(),
        T.LongType: pa.int64(),
        T.IntegerType: pa.int32(),
        T.ShortType: pa.int16(),
        T.ByteType: pa.int8(),
        T.DoubleType: pa.float64(),
        T.FloatType: pa.float32(),
        T.BooleanType: pa.bool_(),
        T.BinaryType: pa.binary(),
        T.DateType: pa.date32(),
        T.TimestampType: pa.timestamp("us", tz="UTC"),
    }
    for spark_type, arrow in simple.items():
        if isinstance(data_type, spark_type):
            return arrow
    if isinstance(data_type, T.ArrayType):
        return pa.list_(
            pa.field("element", arrow_type(data_type.elementType), data_type.containsNull)
        )
    if isinstance(data_type, T.MapType):
        return pa.map_(
            arrow_type(data_type.keyType),
            pa.field("value", arrow_type(data_type.valueType), data_type.valueContainsNull),
        )
    if isinstance(data_type, T.StructType):
        return pa.struct(arrow_schema(data_type))
    raise TypeError(f"no Arrow mapping for Spark type {data_type.simpleString()}")


def arrow_schema(schema: T.StructType) -> pa.Schema:
    """The Arrow schema of a Spark StructType (field nullability kept)."""
    return pa.schema([pa.field(f.name, arrow_type(f.dataType), f.nullable) for f in schema.fields])
