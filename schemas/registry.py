"""The table catalog: every table of the lakehouse, in pipeline order."""

from __future__ import annotations

from schemas import gold, kraft, logs, meta, report, zk
from schemas.catalog import TableSpec

ALL_TABLES: tuple[TableSpec, ...] = (
    *meta.TABLES,
    *logs.TABLES,
    *zk.TABLES,
    *kraft.TABLES,
    *gold.TABLES,
    *report.TABLES,
)
