"""The project's one DataFrame-equality helper, around chispa, with row order stated."""

from __future__ import annotations

from collections.abc import Sequence

from chispa import assert_df_equality
from pyspark.sql import DataFrame


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
