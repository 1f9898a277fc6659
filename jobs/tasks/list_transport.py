"""Lists of scalars on the trip between Spark and Python tasks, as joined text.

Spark's Arrow writer (4.2) slows down sharply on wide batches of list columns that are mostly
null, as silver and evidence list columns are; text columns cost what their bytes cost. So a
frame sent to ``mapInArrow`` carries each such list joined into text with its size
(``joined_lists``), and the task splits them back into Arrow lists (``split_lists``), column by
column in Arrow's kernels.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame
from pyspark.sql.types import (
    ArrayType,
    ByteType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructField,
)

from jobs.tasks.sql_text import literal, quoted

__all__ = ["LIST_SEPARATOR", "NULL_ITEM", "joined_lists", "split_lists"]

LIST_SEPARATOR = "\x1f"
"""Joins list items for the trip through Arrow (no Kafka text holds it: records with it are
quarantined by the grammar executor)."""
NULL_ITEM = "\x1e"
"""A null list item during that trip."""
_JOINABLE = (StringType, IntegerType, LongType, ShortType, ByteType)


def _size_column(name: str) -> str:
    return f"__size_{name}"


def joined_lists(df: DataFrame, fields: Sequence[StructField]) -> tuple[DataFrame, tuple[str, ...]]:
    """``df`` with its lists of scalars as joined text plus their sizes, for ``mapInArrow``.

    ``split_lists`` undoes this in the task.

    Args:
        df: the rows to send (a table's conformed rows, or a stage's selected columns).
        fields: ``df``'s columns; the lists of scalars among them are joined.

    Returns:
        The frame to send and the names of the joined columns.
    """
    joined = tuple(
        f.name
        for f in fields
        if isinstance(f.dataType, ArrayType) and isinstance(f.dataType.elementType, _JOINABLE)
    )
    if not joined:
        return df, joined
    columns = []
    for name in df.columns:
        column = quoted(name)
        if name in joined:
            items = f"transform({column}, item -> CAST(item AS STRING))"
            separators = f"{literal(LIST_SEPARATOR)}, {literal(NULL_ITEM)}"
            columns.append(f"array_join({items}, {separators}) AS {column}")
            columns.append(f"size({column}) AS {quoted(_size_column(name))}")
        else:
            columns.append(column)
    return df.selectExpr(*columns), joined


def split_lists(batch: pa.RecordBatch, joined: Sequence[str], schema: pa.Schema) -> pa.Table:
    """The batch's joined list columns (``joined_lists``) back as lists of ``schema``'s types.

    Raises:
        ValueError: a list item held the separator (its item count does not match).
    """
    table = pa.Table.from_batches([batch])
    for name in joined:
        text = table.column(name).combine_chunks().cast(pa.string())
        sizes = table.column(_size_column(name)).combine_chunks().cast(pa.int32())
        present = pc.is_valid(text)
        counts = pc.if_else(present, sizes, 0).cast(pa.int32())
        nonempty = pc.and_(present, pc.greater(counts, 0))
        items = pc.split_pattern(pc.filter(text, nonempty), LIST_SEPARATOR).flatten()
        if len(items) != (pc.sum(counts).as_py() or 0):
            raise ValueError(f"column {name}: a list item holds the list separator U+001F")
        items = pc.if_else(pc.equal(items, NULL_ITEM), pa.scalar(None, pa.string()), items)
        item_type = schema.field(name).type.value_type
        offsets = pa.concat_arrays([pa.array([0], pa.int32()), pc.cumulative_sum(counts)])
        lists = pa.ListArray.from_arrays(
            offsets, items.cast(item_type), mask=pc.invert(present)
        ).cast(schema.field(name).type)
        table = table.set_column(table.schema.get_field_index(name), name, lists)
    return table
