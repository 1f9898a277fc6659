"""The local session's Python workers import PySpark from its package, not from ``pyspark.zip``
(``jobs.runtime.python_daemon``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pyspark
from pyspark.sql import SparkSession


def _imported_from(_: Iterator[int]) -> Iterator[tuple[str, str]]:
    yield sys.modules["pyspark"].__file__ or "", sys.modules["pyspark.worker"].__file__ or ""


def test_workers_import_pyspark_from_the_installed_package(spark: SparkSession) -> None:
    found = set(spark.sparkContext.parallelize(range(2), 2).mapPartitions(_imported_from).collect())
    package = pyspark.__file__.rsplit("/", 1)[0]
    assert found == {(pyspark.__file__, f"{package}/worker.py")}
