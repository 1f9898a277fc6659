"""Projections as SQL text (``jobs.tasks.sql_text``) mean what they say in Spark: any column
name and any text come back as themselves, and lists joined by ``joined_lists`` split back into
the same lists."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import (
    ArrayType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from jobs.lakehouse.arrow_types import arrow_schema
from jobs.tasks.list_transport import LIST_SEPARATOR, NULL_ITEM, joined_lists, split_lists
from jobs.tasks.sql_text import cast, literal, quoted

pytestmark = pytest.mark.spark

TEXTS = ["plain", "it's", "back\\slash", "\\'", "tab\tnew\nline", LIST_SEPARATOR, NULL_ITEM, "ü €"]


def test_names_and_texts_come_back_as_themselves(spark: SparkSession) -> None:
    names = [f"c{i} `odd` name" for i in range(len(TEXTS))]
    columns = [
        f"{literal(text)} AS {quoted(name)}" for text, name in zip(TEXTS, names, strict=True)
    ]
    frame = spark.range(1).selectExpr(*columns)
    assert frame.columns == names
    assert list(frame.first() or ()) == TEXTS


def test_casts_give_the_types_asked_for(spark: SparkSession) -> None:
    types = [IntegerType(), ArrayType(LongType()), TimestampType(), StringType()]
    values = [literal("7"), "array(1, NULL)", "timestamp_millis(0)", "NULL"]
    frame = spark.range(1).selectExpr(
        *(f"{cast(v, t)} AS c{i}" for i, (v, t) in enumerate(zip(values, types, strict=True)))
    )
    assert [f.dataType for f in frame.schema.fields] == types
    assert list(frame.first() or ())[:2] == [7, [1, None]]


def test_joined_lists_split_back_into_the_same_lists(spark: SparkSession) -> None:
    schema = StructType(
        [
            StructField("id", IntegerType()),
            StructField("brokers", ArrayType(IntegerType())),
            StructField("names", ArrayType(StringType())),
        ]
    )
    rows = [
        (1, [1, 2, 3], ["a", "b"]),
        (2, [], []),
        (3, None, None),
        (4, [None, 5], [None, "", "x y"]),
    ]
    sent, joined = joined_lists(spark.createDataFrame(rows, schema), schema.fields)
    assert joined == ("brokers", "names")
    batch = sent.orderBy("id").toArrow().combine_chunks().to_batches()[0]
    back = split_lists(batch, joined, arrow_schema(schema)).select(["id", "brokers", "names"])
    assert back.to_pylist() == [{"id": i, "brokers": b, "names": n} for i, b, n in rows]
    assert back.schema.field("brokers").type == pa.list_(pa.field("element", pa.int32()))
