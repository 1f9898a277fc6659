"""The lakehouse port: write, read and list Delta tables, whichever engine writes them.

Two adapters implement it: ``DeltaRsLakehouse`` (delta-rs commits the Parquet files Spark tasks
write; the embedded default) and ``DeltaSparkLakehouse`` (Delta's own Spark writer, by path or in
Unity Catalog). Both write the same layout (``<root>/<layer>/<table>/cluster=<name>/*.parquet``
plus ``_delta_log``), so a table written by one is read by the other, and by DuckDB or Polars.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql.types import StructField, StructType

from jobs.runtime.config import AppConfig, ConfigError
from jobs.runtime.spark_session import session_has_delta
from jobs.tasks.sql_text import cast, quoted
from schemas.catalog import TableSpec


class WriteMode(enum.Enum):
    """How a write treats the rows already in the table."""

    append = "append"
    overwrite = "overwrite"
    replace_cluster = "replace_cluster"


@dataclass(frozen=True)
class TableInfo:
    """A table as ``kafkactl-audit tables`` lists it."""

    name: str
    layer: str
    rows: int | None
    location: str


class Lakehouse(Protocol):
    """Where the pipeline's tables live."""

    engine: str
    root: str
    """The directory or URI holding the tables, or ``catalog.schema`` in Unity Catalog."""

    def location(self, spec: TableSpec) -> str:
        """The table's path, or its Unity Catalog name."""
        ...

    def exists(self, spec: TableSpec) -> bool:
        """Whether the table has been created."""
        ...

    def write(
        self, df: DataFrame, spec: TableSpec, mode: WriteMode, cluster: str | None = None
    ) -> int:
        """Write ``df`` into the table, in one Delta commit.

        Args:
            df: rows in (or castable to) the table's schema.
            spec: the table.
            mode: append, overwrite, or replace_cluster (only ``cluster``'s rows are replaced).
            cluster: the cluster whose rows are replaced; every row must belong to it.

        Returns:
            Rows written.

        Raises:
            ValueError: a replace_cluster write carrying rows of another cluster.
        """
        ...

    def replace_keys(self, df: DataFrame, spec: TableSpec, cluster: str, keys: DataFrame) -> int:
        """Replace the rows of ``cluster`` whose key matches a row of ``keys`` with ``df``.

        One Delta commit: readers see the old rows or the new, never a mix. Rows of the
        cluster whose key is not in ``keys`` stay as they are (run ids included).

        Args:
            df: the new rows (in, or castable to, the table's schema), all of ``cluster``.
            spec: the table, partitioned by cluster.
            cluster: the cluster.
            keys: the key values to replace; its columns name the key columns of the table,
                matched null-safely (a row of nulls selects the rows whose key is null).

        Returns:
            Rows of ``df`` written.

        Raises:
            ValueError: bad key columns, or rows of another cluster in ``df``.
        """
        ...

    def write_rows(
        self,
        spec: TableSpec,
        rows: Sequence[Mapping[str, Any]],
        mode: WriteMode,
        cluster: str | None = None,
    ) -> int:
        """Write rows built on the driver (bookkeeping, run records, small report tables).

        As ``write``, in one Delta commit, but without a Spark job where the engine can do
        without one; appending no rows commits nothing.

        Args:
            spec: the table.
            rows: column -> value in the table's Python types (timestamps as timezone-aware
                datetimes); a column a row lacks is null.
            mode: as for ``write``.
            cluster: as for ``write``.

        Returns:
            Rows written.
        """
        ...

    def read(self, spec: TableSpec) -> DataFrame:
        """The table's current rows (empty, with the schema, when it does not exist)."""
        ...

    def clean(self, spec: TableSpec, older_than_hours: int) -> None:
        """Delete the table's files no commit references, once older than ``older_than_hours``.

        Those are the files of rows a later commit replaced, and the files of a write stopped
        before its commit (readers never see them: a Delta reader reads the files the log
        lists). Younger files stay: they may be a write still under way.
        """
        ...

    def row_count(self, spec: TableSpec) -> int | None:
        """Rows in the table, None when it does not exist."""
        ...


def conform(df: DataFrame, spec: TableSpec) -> DataFrame:
    """``select`` ``df`` to the table's contract: its columns, in order, cast to their types,
    with their comments (delta-spark writes them into the table's schema, as delta-rs does).

    The casts travel as SQL text (``jobs.tasks.sql_text``) and the comments as one schema
    (``DataFrame.to``, which has nothing left to cast).

    Raises:
        ValueError: naming the columns ``df`` lacks.
    """
    missing = [name for name in spec.schema.fieldNames() if name not in df.columns]
    if missing:
        raise ValueError(f"{spec.qualified_name}: the data lacks columns {missing}")
    casts = [f"{cast(quoted(f.name), f.dataType)} AS {quoted(f.name)}" for f in spec.schema]
    # Every column nullable: ``to`` refuses a nullable column for a non-null one, and the rows'
    # nulls are the writers' to check (a Delta table's own constraints), as before.
    described = StructType([StructField(f.name, f.dataType, True, f.metadata) for f in spec.schema])
    return df.selectExpr(*casts).to(described)


def check_cluster_write(spec: TableSpec, mode: WriteMode, cluster: str | None) -> None:
    """Validate the ``cluster`` argument of a write.

    Raises:
        ValueError: replace_cluster without a cluster, or on a table not partitioned by cluster.
    """
    if mode is WriteMode.replace_cluster:
        if cluster is None:
            raise ValueError(f"{spec.qualified_name}: replacing a cluster's rows needs its name")
        if "cluster" not in spec.partition_by:
            raise ValueError(f"{spec.qualified_name} is not partitioned by cluster")


def key_condition(rows: DataFrame, keys: DataFrame) -> Column:
    """The null-safe join condition of ``rows`` and ``keys`` on every column of ``keys``."""
    condition: Column | None = None
    for name in keys.columns:
        term = rows[name].eqNullSafe(keys[name])
        condition = term if condition is None else condition & term
    if condition is None:
        raise ValueError("keys without columns")
    return condition


def check_replace_keys(spec: TableSpec, keys: DataFrame) -> None:
    """Validate a ``replace_keys`` call.

    Raises:
        ValueError: a table not partitioned by cluster, or key columns it does not have.
    """
    check_cluster_write(spec, WriteMode.replace_cluster, "")
    unknown = [name for name in keys.columns if name not in spec.schema.fieldNames()]
    if unknown or not keys.columns:
        raise ValueError(f"{spec.qualified_name}: bad key columns {keys.columns}")


def open_lakehouse(config: AppConfig, spark: SparkSession) -> Lakehouse:
    """The lakehouse the configuration asks for, on the engine it asks for.

    ``auto`` picks delta-spark when the session has Delta's extension, delta-rs otherwise.
    Unity Catalog locations need delta-spark.

    Raises:
        ConfigError: an engine that cannot run here, or a catalog without delta-spark.
    """
    has_delta = session_has_delta(spark)
    engine = config.engine
    if engine == "auto":
        engine = "delta-spark" if has_delta else "delta-rs"
    if engine == "delta-spark" and not has_delta:
        raise ConfigError(
            "engine delta-spark: Delta's Spark extension is not on this session's classpath "
            "(use spark-submit --packages io.delta:delta-spark_2.13:<version>, or engine delta-rs)"
        )
    lakehouse = config.lakehouse
    if engine == "delta-spark":
        from jobs.lakehouse.deltaspark import DeltaSparkLakehouse

        return DeltaSparkLakehouse(
            spark, path=lakehouse.path, catalog=lakehouse.catalog, schema=lakehouse.schema_name
        )
    if lakehouse.path is None:
        raise ConfigError("lakehouse.catalog needs engine delta-spark (Unity Catalog tables)")
    from jobs.lakehouse.deltars import DeltaRsLakehouse

    return DeltaRsLakehouse(spark, lakehouse.path)
