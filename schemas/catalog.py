"""What a table is: its name, layer, schema with column comments, and partitioning.

Every table is partitioned by ``cluster``: one cluster's rows are replaced atomically by
overwriting its partition, on delta-spark (``replaceWhere``) and delta-rs (partition filters)
alike, and queries for one cluster read only its files.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql.types import DataType, StructField, StructType

LAYERS = ("meta", "bronze", "silver", "gold")


def column(name: str, data_type: DataType, comment: str, *, nullable: bool = True) -> StructField:
    """A column with its comment, which Delta and Unity Catalog show to users.

    Args:
        name: column name.
        data_type: Spark type.
        comment: what the column holds, in the user's words.
        nullable: whether null is allowed.

    Returns:
        The StructField.
    """
    return StructField(name, data_type, nullable, {"comment": comment})


@dataclass(frozen=True)
class TableSpec:
    """A lakehouse table.

    Attributes:
        layer: ``meta``, ``bronze``, ``silver`` or ``gold``.
        name: table name within its layer.
        schema: the columns, in order; the contract every writer ``select``s to.
        description: one sentence for ``tables`` and the catalog.
        partition_by: partition columns.
    """

    layer: str
    name: str
    schema: StructType
    description: str
    partition_by: tuple[str, ...] = ("cluster",)

    def __post_init__(self) -> None:
        if self.layer not in LAYERS:
            raise ValueError(f"unknown layer {self.layer!r} for table {self.name!r}")
        missing = [p for p in self.partition_by if p not in self.schema.fieldNames()]
        if missing:
            raise ValueError(f"{self.qualified_name}: partition columns {missing} not in schema")

    @property
    def qualified_name(self) -> str:
        """``<layer>.<name>``, as users and the docs say it."""
        return f"{self.layer}.{self.name}"

    @property
    def view_name(self) -> str:
        """``<layer>_<name>``: the SQL view name locally, the table name in Unity Catalog."""
        return f"{self.layer}_{self.name}"
