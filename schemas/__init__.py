"""Table contracts: one StructType per lakehouse table, shared by jobs and tests."""

from __future__ import annotations

from schemas.catalog import TableSpec, column
from schemas.registry import ALL_TABLES

__all__ = ["ALL_TABLES", "TableSpec", "column"]
