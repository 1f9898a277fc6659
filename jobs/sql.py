"""``kafkactl-audit sql``: run SQL over the lakehouse, every table registered as a view.

Views are named ``<layer>_<table>`` (``gold_elections``), the same names the tables carry in
Unity Catalog, so a query written locally runs on Databricks unchanged. Tables not created yet
are registered empty, with their schema, so queries never fail for a missing table.

The command only reads unless ``--allow-writes`` is given: a statement that would write or change
anything is refused before Spark runs it (``jobs.runtime.read_only_sql``). Every column type is
printed in every format (``jobs.runtime.console``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from pyspark.sql import DataFrame, SparkSession

from jobs.cli import UsageError
from jobs.cli import main as cli_main
from jobs.lakehouse.port import Lakehouse
from jobs.runtime.console import printable, write_csv, write_json_lines, write_table
from jobs.runtime.context import JobContext
from jobs.runtime.read_only_sql import reflection_call, refusal
from schemas.registry import ALL_TABLES

FORMATS = ("table", "csv", "json")


def register_views(spark: SparkSession, lakehouse: Lakehouse) -> list[str]:
    """Register every catalog table as a temporary view; returns the view names."""
    names = []
    for spec in ALL_TABLES:
        lakehouse.read(spec).createOrReplaceTempView(spec.view_name)
        names.append(spec.view_name)
    return names


def print_result(frame: DataFrame, fmt: str, limit: int, out: TextIO | None = None) -> None:
    """Print a query's rows: ``table`` shows at most ``limit`` rows; csv/json stream them all.

    Args:
        frame: the query's result.
        fmt: ``table``, ``csv`` or ``json``.
        limit: the most rows ``table`` shows.
        out: where to write (standard output by default).
    """
    out = out or sys.stdout
    frame = printable(frame)
    headers = frame.columns
    types = [field.dataType for field in frame.schema.fields]
    if fmt == "table":
        rows = frame.limit(limit + 1).collect()
        write_table(headers, [tuple(r) for r in rows[:limit]], out, types)
        if len(rows) > limit:
            out.write(f"(only the first {limit} rows shown; use --limit or --format csv)\n")
        return
    stream = (tuple(r) for r in frame.toLocalIterator())
    if fmt == "csv":
        write_csv(headers, stream, out, types)
    else:
        write_json_lines(headers, stream, out, types)


def checked_sql(spark: SparkSession, query: str, *, allow_writes: bool) -> DataFrame:
    """``spark.sql(query)``, refused unless it only reads or ``allow_writes``.

    The statement is judged from its parsed plan before Spark runs it; a query's analysed plan
    is then checked for reflection calls before any row is computed.

    Args:
        spark: the session (its parser decides, Delta's with delta-spark).
        query: the SQL text.
        allow_writes: run any statement.

    Returns:
        The statement's result.

    Raises:
        UsageError: the statement writes or changes something, or calls reflection; or the
            session is a Spark Connect one, which has no parser to ask first.
    """
    if allow_writes:
        return spark.sql(query)
    session = getattr(spark, "_jsparkSession", None)
    if session is None:
        raise UsageError(
            "sql is read-only, and a Spark Connect session runs a statement as it parses it, "
            "so nothing can be checked first (use --allow-writes to run it unchecked)"
        )
    why = refusal(session.sessionState().sqlParser(), query)
    if why is None:
        frame = spark.sql(query)
        called = reflection_call(frame._jdf.queryExecution().analyzed())
        if called is None:
            return frame
        why = f"{called} runs arbitrary Java methods"
    raise UsageError(f"sql is read-only: {why} (use --allow-writes to run it)")


def execute(
    ctx: JobContext, query: str, fmt: str, limit: int, *, allow_writes: bool = False
) -> int:
    """Run the command: register the views, run ``query`` and print its rows.

    Args:
        ctx: the job context (session and lakehouse).
        query: the SQL text.
        fmt: ``table``, ``csv`` or ``json``.
        limit: the most rows ``table`` shows.
        allow_writes: run statements that write or change something (refused by default).

    Returns:
        The exit code (0).

    Raises:
        UsageError: a statement that is not read-only, without ``allow_writes``.
    """
    register_views(ctx.spark, ctx.lakehouse)
    print_result(checked_sql(ctx.spark, query, allow_writes=allow_writes), fmt, limit)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``spark-submit jobs/sql.py "SELECT ..." [--format csv]``."""
    return cli_main(["sql", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
