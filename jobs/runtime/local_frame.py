"""Rows the driver holds, as a DataFrame, sent to the JVM as Arrow.

PySpark's ``createDataFrame`` of Python rows parallelizes them as pickles and re-serializes them
through an RDD ``map``: every action on the frame runs a Python task on the RDD path, whose
runner starts a Python daemon apart from the SQL one (its workers' environment differs), and
each such frame costs a job of Python tasks. A ``pyarrow.Table`` goes to the JVM as Arrow
batches instead, and no Python worker runs for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from jobs.lakehouse.arrow_types import arrow_schema


def local_frame(
    spark: SparkSession, rows: Iterable[Mapping[str, Any]], schema: StructType
) -> DataFrame:
    """The rows as a DataFrame of ``schema``, built without a Python task.

    Args:
        spark: the session.
        rows: one mapping per row, by column name; a column a row lacks is null.
        schema: the frame's columns, types and nullability.

    Returns:
        The frame, its rows in the order given.
    """
    table = pa.Table.from_pylist(list(rows), schema=arrow_schema(schema))
    return spark.createDataFrame(table, schema)
