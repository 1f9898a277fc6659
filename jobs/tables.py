"""``kafkactl-audit tables``: every table of the catalog, its row count and where it lives.

With ``--check`` each table's Delta log and data files are verified
(``jobs.lakehouse.table_check``): a broken table is named with its damaged files and the
command that rebuilds it, files no commit references are counted as notes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from jobs.lakehouse.port import Lakehouse, TableInfo
from jobs.lakehouse.table_check import CheckState, TableCheck, check_table
from jobs.runtime.console import write_table
from jobs.runtime.context import JobContext
from schemas import gold, kraft, logs, meta, report, zk
from schemas.catalog import TableSpec
from schemas.registry import ALL_TABLES

_INGESTS = {
    **{spec.qualified_name: "ingest-logs" for spec in logs.TABLES},
    **{spec.qualified_name: "ingest-zk" for spec in zk.TABLES},
    **{spec.qualified_name: "ingest-kraft" for spec in kraft.TABLES},
    meta.INGESTED_FILES.qualified_name: "ingest-logs, ingest-zk and ingest-kraft",
}


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


def check_tables(lakehouse: Lakehouse) -> list[tuple[TableSpec, TableCheck]]:
    """Every catalog table's verdict (see ``table_check.check_files``)."""
    return [(spec, check_table(lakehouse.location(spec))) for spec in ALL_TABLES]


def check_cell(verdict: TableCheck) -> str:
    """The ``check`` column: ok, ``BROKEN: <first problem>``, not created or not checked."""
    if verdict.state is CheckState.broken:
        more = len(verdict.problems) - 1
        return f"BROKEN: {verdict.problems[0].kind}" + (f" (+{more} more)" if more else "")
    return str(verdict.state.value)


def rebuild_advice(spec: TableSpec, location: str) -> str:
    """What to do about a broken table: move it aside and the command that writes it again.

    Args:
        spec: the broken table.
        location: its location.

    Returns:
        One line.
    """
    aside = f"move it aside (mv {location} {location}.broken)"
    name = spec.qualified_name
    if name in _INGESTS:
        # meta.ingested_files remembers every file read: an ingest into this lakehouse would
        # skip them, so only a whole new lakehouse reads the inputs again.
        return (
            f"its rows come from the inputs {_INGESTS[name]} read, which meta.ingested_files "
            "records as done: if the inputs are still there, rebuild the lakehouse from them (move "
            "the lakehouse aside, then kafkactl-audit run with the same --conf/--lakehouse), or "
            "restore the table from a backup"
        )
    if spec in gold.TABLES:
        return (
            f"{aside}, then rebuild it from silver: kafkactl-audit replay [--cluster C] "
            "(a full replay), then kafkactl-audit report"
        )
    if spec in report.TABLES:
        return f"{aside}, then rebuild it from gold: kafkactl-audit report [--cluster C]"
    if spec == meta.RUNS:
        return f"{aside}: it is the run history only (the next replay --incremental is a full one)"
    return f"{aside}; the command that writes it creates it again"


def orphan_note(verdict: TableCheck) -> str:
    """The note on a table's orphaned files: how many, who deletes them, how to do it now."""
    return (
        f"{len(verdict.orphans)} file(s), {verdict.orphan_bytes} bytes, that no commit "
        "references (left by an interrupted write, or a write under way; e.g. "
        f"{verdict.orphans[0]}): readers ignore them; the next successful stage writing this "
        "table deletes them once older than lakehouse.retention_hours (default 168); to delete "
        "them now, when no write is running: "
        f"DeltaTable('{verdict.location}').vacuum(retention_hours=1, "
        "enforce_retention_duration=False, full=True, dry_run=False) of the deltalake package "
        "(it also deletes the files of versions older than an hour)"
    )


def _rows_cell(lakehouse: Lakehouse, spec: TableSpec, verdict: TableCheck) -> int | str:
    if verdict.state is CheckState.broken:
        return "?"
    rows = None if verdict.state is CheckState.not_created else lakehouse.row_count(spec)
    return "not created" if rows is None else rows


def print_check(
    lakehouse: Lakehouse, checked: Sequence[tuple[TableSpec, TableCheck]], out: TextIO
) -> int:
    """Print the table list with its ``check`` column, then every problem and note.

    Args:
        lakehouse: the lakehouse (row counts of the tables that are ok or not checked).
        checked: each table and its verdict.
        out: where to print.

    Returns:
        The number of broken tables.
    """
    rows = [
        (spec.qualified_name, spec.layer, _rows_cell(lakehouse, spec, v), v.location, check_cell(v))
        for spec, v in checked
    ]
    write_table(["table", "layer", "rows", "location", "check"], rows, out)
    broken = [(spec, v) for spec, v in checked if v.state is CheckState.broken]
    if broken:
        out.write("\nproblems:\n")
        for spec, verdict in broken:
            for problem in verdict.problems:
                out.write(f"  {spec.qualified_name}: {problem}\n")
            out.write(
                f"  {spec.qualified_name}: to repair: {rebuild_advice(spec, verdict.location)}\n"
            )
    notes = [(spec.qualified_name, orphan_note(v)) for spec, v in checked if v.orphans]
    unchecked = [v for _, v in checked if v.state is CheckState.not_checked]
    if unchecked:
        notes.append(
            (
                f"{len(unchecked)} table(s)",
                "not checked: --check reads tables at local paths and URIs pyarrow opens; "
                + unchecked[0].note,
            )
        )
    if notes:
        out.write("\nnotes:\n")
        out.writelines(f"  {name}: {note}\n" for name, note in notes)
    return len(broken)


def execute(ctx: JobContext, *, check: bool = False) -> int:
    """Run the command.

    Args:
        ctx: the job context.
        check: verify each table's Delta log and data files.

    Returns:
        0, or 1 when ``check`` found a broken table.
    """
    if not check:
        print_tables(list_tables(ctx.lakehouse))
        return 0
    broken = print_check(ctx.lakehouse, check_tables(ctx.lakehouse), sys.stdout)
    if broken:
        print(f"kafkactl-audit: error: tables --check: {broken} table(s) broken", file=sys.stderr)
    return 1 if broken else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``spark-submit jobs/tables.py [global options]``."""
    from jobs.cli import main as cli_main

    return cli_main(["tables", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
