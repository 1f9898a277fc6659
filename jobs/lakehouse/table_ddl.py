"""A table's contract as the SQL that creates it: delta-spark creates every table with it.

Delta's ``DeltaTableBuilder.tableName`` parses at most two name parts (delta-io/delta#2793):
outside Databricks it cannot create ``catalog.schema.table``. ``CREATE TABLE`` takes any name
Spark's catalogs resolve, and a path as ``delta.`<path>```, with the same columns, comments,
nullability, partitioning and description the builder wrote.
"""

from __future__ import annotations

from pyspark.sql.types import StructField, StructType

from jobs.tasks.sql_text import literal, quoted
from schemas.catalog import TableSpec

__all__ = ["column_definitions", "create_table_sql", "table_identifier"]


def table_identifier(location: str, *, catalog: bool) -> str:
    """A table as a SQL identifier.

    Args:
        location: the table's dotted catalog name (``catalog.schema.table``; Unity Catalog
            names hold no dots), or its path.
        catalog: whether ``location`` is a catalog name.

    Returns:
        Each name part quoted, or ``delta.`<path>```.
    """
    if catalog:
        return ".".join(quoted(part) for part in location.split("."))
    return f"delta.{quoted(location)}"


def create_table_sql(identifier: str, spec: TableSpec) -> str:
    """``CREATE TABLE IF NOT EXISTS`` of ``spec``'s contract, as Delta, at ``identifier``.

    Args:
        identifier: where (``table_identifier``).
        spec: the table's contract.

    Returns:
        The statement.
    """
    partitioned = (
        f" PARTITIONED BY ({', '.join(quoted(name) for name in spec.partition_by)})"
        if spec.partition_by
        else ""
    )
    return (
        f"CREATE TABLE IF NOT EXISTS {identifier} ({column_definitions(spec.schema)})"
        f" USING DELTA{partitioned}"
        f" COMMENT {literal(spec.description)}"
    )


def column_definitions(schema: StructType) -> str:
    """``schema``'s columns as DDL: name, type, ``NOT NULL`` when not nullable, comment.

    Args:
        schema: a table's columns (of types whose ``simpleString`` is their whole DDL: no
            nested field or element declared non-null or commented).

    Returns:
        The comma-separated column definitions.
    """
    return ", ".join(_column(field) for field in schema.fields)


def _column(field: StructField) -> str:
    text = f"{quoted(field.name)} {field.dataType.simpleString()}"
    if not field.nullable:
        text += " NOT NULL"
    comment = field.metadata.get("comment")
    return text if comment is None else f"{text} COMMENT {literal(comment)}"
