"""The local session's Python workers import PySpark from its package, not from ``pyspark.zip``
(``jobs.runtime.python_daemon``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pyarrow as pa
import pyspark
from pyspark.sql import SparkSession


def _imported_from(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for _ in batches:
        yield pa.RecordBatch.from_pylist(
            [
                {
                    "package": sys.modules["pyspark"].__file__,
                    "worker": sys.modules["pyspark.worker"].__file__,
                }
            ]
        )


def test_workers_import_pyspark_from_the_installed_package(spark: SparkSession) -> None:
    # mapInArrow: the SQL path the stages' tasks run on (an RDD task would start another daemon).
    frame = spark.range(2, numPartitions=2).mapInArrow(
        _imported_from, "package string, worker string"
    )
    found = {(row.package, row.worker) for row in frame.collect()}
    package = pyspark.__file__.rsplit("/", 1)[0]
    assert found == {(pyspark.__file__, f"{package}/worker.py")}
