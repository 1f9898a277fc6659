"""The project's one DataFrame-equality helper, around chispa, with row order stated; the
lakehouse on either engine."""

from __future__ import annotations

import os
from collections.abc import Sequence, Set
from typing import NoReturn

import pytest
from chispa import assert_df_equality
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import MapType

from jobs.lakehouse.port import Lakehouse
from schemas.catalog import TableSpec

ENGINES = ("delta-rs", "delta-spark")
"""The lakehouse engines; every lakehouse test runs on both."""


def assert_frames_equal(
    actual: DataFrame,
    expected: DataFrame,
    *,
    order_by: Sequence[str] | None = None,
    ignore_nullable: bool = True,
) -> None:
    """Assert two DataFrames hold the same rows with the same schema.

    Args:
        actual: what the code produced.
        expected: what it should have produced.
        order_by: columns defining row order; when given, both sides are sorted by them and
            compared in that order. When None, row order is ignored (multiset equality).
        ignore_nullable: compare column types but not their nullability (Spark's inference
            of nullability differs between ``createDataFrame`` and computed columns).

    Column comments (schema metadata) are not compared: they are documentation, not data.
    """
    if order_by:
        assert_df_equality(
            actual.orderBy(*order_by),
            expected.orderBy(*order_by),
            ignore_nullable=ignore_nullable,
            ignore_metadata=True,
        )
    else:
        assert_df_equality(
            actual,
            expected,
            ignore_row_order=True,
            ignore_nullable=ignore_nullable,
            ignore_metadata=True,
        )


def comparable_rows(lakehouse: Lakehouse, spec: TableSpec, ignored: Set[str]) -> DataFrame:
    """The table's rows for ``assert_frames_equal``: ``comparable`` of its frame."""
    return comparable(lakehouse.read(spec), ignored)


def comparable(frame: DataFrame, ignored: Set[str] = frozenset()) -> DataFrame:
    """``frame`` for ``assert_frames_equal``: the ``ignored`` columns (run-specific) left out,
    maps as their sorted entries (Spark compares no maps as a multiset)."""
    return frame.select(
        *[
            F.sort_array(F.map_entries(f.name)).alias(f.name)
            if isinstance(f.dataType, MapType)
            else F.col(f.name)
            for f in frame.schema
            if f.name not in ignored
        ]
    )


def require_delta_spark(spark: SparkSession) -> None:
    """Skip (or, with ``KAFKACTL_REQUIRE_DELTA_SPARK`` set, as in CI, fail) without Delta's jars.

    Args:
        spark: the test session.
    """
    from jobs.runtime.spark_session import session_has_delta

    if session_has_delta(spark):
        return
    skip_without_delta_jars(
        "Delta's Spark jars are not on this session's classpath "
        "(make setup installs them: python -m jobs.runtime.spark_jars delta)"
    )


def skip_without_delta_jars(reason: str) -> NoReturn:
    """Skip the test for want of Delta's jars, or fail it with ``KAFKACTL_REQUIRE_DELTA_SPARK``
    set (as in CI)."""
    if os.environ.get("KAFKACTL_REQUIRE_DELTA_SPARK"):
        pytest.fail(reason)
    pytest.skip(reason)


def lakehouse_on(engine: str, spark: SparkSession, root: str) -> Lakehouse:
    """A path lakehouse at ``root`` on ``engine`` (``delta-rs`` or ``delta-spark``)."""
    if engine == "delta-spark":
        require_delta_spark(spark)
        from jobs.lakehouse.deltaspark import DeltaSparkLakehouse

        return DeltaSparkLakehouse(spark, path=root)
    from jobs.lakehouse.deltars import DeltaRsLakehouse

    return DeltaRsLakehouse(spark, root)
