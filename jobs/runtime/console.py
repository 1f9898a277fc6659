"""Printing rows for people (aligned tables) and for programs (CSV, JSON lines)."""

from __future__ import annotations

import csv
import datetime as dt
import json
import sys
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any, TextIO


def plain(value: Any) -> Any:
    """A JSON-ready form of a Spark value (Row, datetime, Decimal, nested lists/maps)."""
    if hasattr(value, "asDict"):
        return {k: plain(v) for k, v in value.asDict().items()}
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    shown = plain(value)
    if isinstance(shown, (dict, list)):
        return json.dumps(shown, separators=(",", ":"))
    return str(shown)


def write_table(
    headers: Sequence[str], rows: Iterable[Sequence[Any]], out: TextIO | None = None
) -> None:
    """An aligned text table: numbers right-aligned, everything else left-aligned."""
    out = out or sys.stdout
    raw = [list(row) for row in rows]
    cells = [[_cell(v) for v in row] for row in raw]
    numeric = [
        bool(raw)
        and all(isinstance(row[i], (int, float, Decimal)) or row[i] is None for row in raw)
        for i in range(len(headers))
    ]
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]

    def render(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if right else v.ljust(w)
            for v, w, right in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip() + "\n"

    out.write(render(list(headers)))
    out.write("  ".join("-" * w for w in widths) + "\n")
    for row in cells:
        out.write(render(row))


def write_csv(
    headers: Sequence[str], rows: Iterable[Sequence[Any]], out: TextIO | None = None
) -> None:
    """RFC 4180 CSV with a header row; nested values as JSON."""
    out = out or sys.stdout
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow(["" if v is None else _cell(v) for v in row])


def write_json_lines(
    headers: Sequence[str], rows: Iterable[Sequence[Any]], out: TextIO | None = None
) -> None:
    """One JSON object per row."""
    out = out or sys.stdout
    for row in rows:
        record = {h: plain(v) for h, v in zip(headers, row, strict=True)}
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
