"""Task rows: a table's columns as the report's Python tasks return them.

A task returns a record's ``to_row()`` values through Arrow in the table's own types: a time is
an Arrow timestamp in UTC (the instant, whatever the time zone of the process that made it), a
day an Arrow date. ``task_schema`` is the schema a task declares and ``with_run_id`` makes the
table's frame of its output.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import DataFrame
from pyspark.sql.types import StructField, StructType

from jobs.tasks.sql_text import literal, quoted
from schemas.catalog import TableSpec

__all__ = ["task_schema", "with_run_id"]


def task_schema(spec: TableSpec, exclude: Sequence[str] = ("run_id",)) -> StructType:
    """A table's columns as a task returns them (every one nullable).

    Args:
        spec: the table.
        exclude: columns the task does not produce.

    Returns:
        The schema.
    """
    return StructType(
        [StructField(f.name, f.dataType, True) for f in spec.schema.fields if f.name not in exclude]
    )


def with_run_id(frame: DataFrame, spec: TableSpec, run_id: str) -> DataFrame:
    """A task's output as the table's frame: its columns in order, and ``run_id``.

    Args:
        frame: task output in ``task_schema(spec)`` (other columns are dropped).
        spec: the table.
        run_id: this run.

    Returns:
        The frame in the table's columns.
    """
    return frame.selectExpr(
        *(
            f"{literal(run_id)} AS run_id" if f.name == "run_id" else quoted(f.name)
            for f in spec.schema.fields
        )
    )
