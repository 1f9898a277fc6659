"""``kafkactl-audit sql``: run SQL over the lakehouse, every table registered as a view.

Views are named ``<layer>_<table>`` (``gold_elections``), the same names the tables carry in
Unity Catalog, so a query written locally runs on Databricks unchanged. Tables not created yet
are registered empty, with their schema, so queries never fail for a missing table.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from pyspark.sql import DataFrame, SparkSession

from jobs.lakehouse.port import Lakehouse
from jobs.runtime.console import write_csv, write_json_lines, write_table
from jobs.runtime.context import JobContext
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
    """Print a query's rows: ``table`` shows at most ``limit`` rows; csv/json stream them all."""
    out = out or sys.stdout
    headers = frame.columns
    if fmt == "table":
        rows = frame.limit(limit + 1).collect()
        write_table(headers, [tuple(r) for r in rows[:limit]], out)
        if len(rows) > limit:
            out.write(f"(only the first {limit} rows shown; use --limit or --format csv)\n")
        return
    stream = (tuple(r) for r in frame.toLocalIterator())
    if fmt == "csv":
        write_csv(headers, stream, out)
    else:
        write_json_lines(headers, stream, out)


def execute(
    ctx: JobContext, query: str, fmt: str, limit: int, *, allow_writes: bool = False
) -> int:
    """Run the command (``allow_writes``: not implemented yet)."""
    register_views(ctx.spark, ctx.lakehouse)
    print_result(ctx.spark.sql(query), fmt, limit)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``spark-submit jobs/sql.py "SELECT ..." [--format csv]``."""
    from jobs.cli import main as cli_main

    return cli_main(["sql", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
