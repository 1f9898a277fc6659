"""The table catalog: every table of the lakehouse, in pipeline order."""

from __future__ import annotations

from schemas import gold, logs, meta, report, zk
from schemas.catalog import TableSpec

ALL_TABLES: tuple[TableSpec, ...] = (
    *meta.TABLES,
    *logs.TABLES,
    *zk.TABLES,
    *gold.TABLES,
    *report.TABLES,
)


def table_by_name(name: str) -> TableSpec:
    """Look a table up by ``layer.name`` or ``layer_name``.

    Args:
        name: the table's qualified or view name.

    Returns:
        The table.

    Raises:
        KeyError: when no table has that name.
    """
    for spec in ALL_TABLES:
        if name in (spec.qualified_name, spec.view_name):
            return spec
    raise KeyError(f"no table named {name!r}")
