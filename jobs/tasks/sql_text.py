"""Projections as SQL text (``DataFrame.selectExpr``): the whole projection crosses the
Python-JVM bridge in a few calls, where a ``Column`` built in Python costs several calls per
function, cast and alias: thousands of calls in a small run, a second of its time."""

from __future__ import annotations

from pyspark.sql.types import DataType

__all__ = ["cast", "literal", "quoted"]


def quoted(name: str) -> str:
    """A column name as a SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


def literal(text: str) -> str:
    """A SQL string literal of ``text`` (Spark reads backslash escapes in literals)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def cast(expression: str, data_type: DataType) -> str:
    """``expression`` cast to ``data_type``, in SQL."""
    return f"CAST({expression} AS {data_type.simpleString()})"
