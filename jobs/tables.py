"""``kafkactl-audit tables``: every table of the catalog, its row count and where it lives."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from jobs.lakehouse.port import Lakehouse, TableInfo
from jobs.runtime.console import write_table
from jobs.runtime.context import JobContext
from schemas.registry import ALL_TABLES


def list_tables(lakehouse: Lakehouse) -> list[TableInfo]:
    """Every catalog table with its rows (None: not created yet) and location."""
    return [
        TableInfo(
            spec.qualified_name, spec.layer, lakehouse.row_count(spec), lakehouse.location(spec)
        )
        for spec in ALL_TABLES
    ]


def print_tables(tables: Sequence[TableInfo]) -> None:
    """Print the table list for people."""
    rows = [
        (t.name, t.layer, "not created" if t.rows is None else t.rows, t.location) for t in tables
    ]
    write_table(["table", "layer", "rows", "location"], rows, sys.stdout)


def execute(ctx: JobContext, *, check: bool = False) -> int:
    """Run the command (``check``: not implemented yet)."""
    print_tables(list_tables(ctx.lakehouse))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``spark-submit jobs/tables.py [global options]``."""
    from jobs.cli import main as cli_main

    return cli_main(["tables", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
