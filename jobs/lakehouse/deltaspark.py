"""Delta tables written natively by delta-spark: by path, or as Unity Catalog tables.

Used where Delta's Spark extension is on the classpath (Databricks, ``spark-submit --packages
io.delta:delta-spark_2.13:<version>``). Path tables have the same layout as the delta-rs
adapter's; catalog tables are named ``<catalog>.<schema>.<layer>_<table>``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.errors import SparkRuntimeException
from pyspark.sql import DataFrame, Observation, SparkSession
from pyspark.sql import functions as F

from jobs.lakehouse.port import (
    WriteMode,
    check_cluster_write,
    check_replace_keys,
    conform,
    key_condition,
)
from jobs.lakehouse.table_ddl import create_table_sql, table_identifier
from jobs.runtime.local_frame import local_frame
from jobs.tasks.sql_text import literal
from schemas.catalog import TableSpec

_VACUUM_LISTING_TASKS = 8
"""Tasks of a catalog table's vacuum listing its folders (Delta's default: 10,000)."""


def _counted(df: DataFrame, spec: TableSpec) -> tuple[DataFrame, Observation]:
    """``df`` conformed to ``spec``, and an ``Observation`` of its rows (``get["rows"]``) once a
    job has written them."""
    rows = Observation()
    return conform(df, spec).observe(rows, F.count(F.lit(1)).alias("rows")), rows


def _of_cluster(df: DataFrame, cluster: str) -> DataFrame:
    """``df``, failing the job that writes it at a row whose cluster is not ``cluster``.

    The job fails before Delta commits, so a refused replace changes nothing; Delta's own
    ``replaceWhere`` check covers only overwrites, and a new table's first replace appends.
    """
    stray = F.raise_error(F.lit(f"a row of another cluster than {cluster!r}"))
    mine = F.when(F.col("cluster") == F.lit(cluster), F.col("cluster")).otherwise(stray)
    return df.withColumn("cluster", mine)


class DeltaSparkLakehouse:
    """Tables written and read by Delta's Spark connector."""

    engine = "delta-spark"

    def __init__(
        self,
        spark: SparkSession,
        *,
        path: str | None = None,
        catalog: str | None = None,
        schema: str | None = None,
    ) -> None:
        self._spark = spark
        # Delta reads a relative path as a table name: resolved here, on the driver, as
        # delta-rs does.
        self._path = path if path is None or "://" in path else os.path.abspath(path)
        self._catalog = catalog
        self._schema = schema
        self.root = f"{catalog}.{schema}" if catalog is not None else str(self._path)

    def _table_name(self, spec: TableSpec) -> str | None:
        """The catalog table's name as a SQL identifier; None for a path table."""
        return self._identifier(spec) if self._catalog is not None else None

    def _identifier(self, spec: TableSpec) -> str:
        """The table as a SQL identifier: its catalog name, or ``delta.`<path>```."""
        return table_identifier(self.location(spec), catalog=self._catalog is not None)

    def location(self, spec: TableSpec) -> str:
        """The table's path, or its three-part Unity Catalog name."""
        if self._catalog is not None:
            return f"{self._catalog}.{self._schema}.{spec.view_name}"
        return f"{self._path}/{spec.layer}/{spec.name}"

    def exists(self, spec: TableSpec) -> bool:
        """Whether the table exists (catalog entry, or Delta log at the path)."""
        name = self._table_name(spec)
        if name is not None:
            return bool(self._spark.catalog.tableExists(self.location(spec)))
        from delta.tables import DeltaTable

        return bool(DeltaTable.isDeltaTable(self._spark, self.location(spec)))

    def _create(self, spec: TableSpec) -> bool:
        """Create the table with its contract when it does not exist yet; whether it did.

        A DataFrame writer would declare every column nullable and the table without its
        description; ``CREATE TABLE`` keeps both as ``spec`` says (delta-rs does the same).

        Raises:
            ValueError: ``CREATE TABLE`` left no table (``IF NOT EXISTS`` passes silently over
                a path that holds files and no Delta log).
        """
        if self.exists(spec):
            return False
        self._spark.sql(create_table_sql(self._identifier(spec), spec))
        if not self.exists(spec):
            raise ValueError(
                f"{spec.qualified_name}: no Delta table could be created at "
                f"{self.location(spec)} (a folder of other files?)"
            )
        return True

    def write(
        self, df: DataFrame, spec: TableSpec, mode: WriteMode, cluster: str | None = None
    ) -> int:
        """``Lakehouse.write``: one Delta commit (an overwrite of one cluster's rows is Delta's
        ``replaceWhere``).

        The rows are counted while Delta writes them (an ``Observation``: no job, no cache of
        their own). A replace fails at a row of another cluster while its files are written,
        before the commit (``_of_cluster``); only then are those rows looked for, to name them.
        """
        check_cluster_write(spec, mode, cluster)
        created = self._create(spec)
        data, written = _counted(df, spec)
        replaced = F.lit(True)
        if mode is WriteMode.replace_cluster:
            assert cluster is not None
            data = _of_cluster(data, cluster)
            replaced = F.expr(f"cluster = {literal(cluster)}")
        # A table an earlier release wrote gains the columns its contract added since (old
        # rows read null), as delta-rs commits the contract's schema; a changed type still
        # fails. Paths and names alike go through ``writeTo``: ``saveAsTable``'s overwrite of a
        # catalog table writes outside the query the Observation watches (its count fails).
        writer = data.writeTo(self._identifier(spec)).option("mergeSchema", "true")
        try:
            if mode is WriteMode.append or created:
                # The table this call created holds no rows, so replacing them is appending.
                # An overwrite would first build the table's file list (Delta's snapshot
                # state): 1.3 s more a table on 2 cores, where a first run creates 29.
                writer.append()
            else:
                writer.overwrite(replaced)
        except SparkRuntimeException as error:
            if cluster is None or error.getCondition() != "USER_RAISED_EXCEPTION":
                raise
            others = df.filter(~df["cluster"].eqNullSafe(cluster)).select("cluster").distinct()
            strays = sorted((row.cluster for row in others.collect()), key=str)
            if not strays:
                raise
            raise ValueError(
                f"{spec.qualified_name}: replacing cluster {cluster!r} with rows of {strays}"
            ) from error
        return int(written.get["rows"])

    def replace_keys(self, df: DataFrame, spec: TableSpec, cluster: str, keys: DataFrame) -> int:
        """``Lakehouse.replace_keys``: the cluster's partition overwritten in one commit.

        The cluster's other rows are kept as they are: the commit overwrites the cluster's
        partition (``replaceWhere``) with them plus ``df``. Delta reads the table at the
        snapshot the write started from, so reading and overwriting it in one job is safe.
        """
        check_replace_keys(spec, keys)
        if not self.exists(spec):
            return self.write(df, spec, WriteMode.replace_cluster, cluster)
        new, replacing = _counted(df, spec)
        old = self.read(spec).filter(F.col("cluster") == cluster)
        wanted = F.broadcast(keys.distinct())
        kept = old.join(wanted, key_condition(old, wanted), "left_anti").select(
            *spec.schema.fieldNames()
        )
        self.write(kept.unionByName(new), spec, WriteMode.replace_cluster, cluster)
        return int(replacing.get["rows"])

    def write_rows(
        self,
        spec: TableSpec,
        rows: Sequence[Mapping[str, Any]],
        mode: WriteMode,
        cluster: str | None = None,
    ) -> int:
        """``Lakehouse.write_rows``: the rows as a frame, through ``write``."""
        if not rows and mode is WriteMode.append:
            return 0
        return self.write(local_frame(self._spark, rows, spec.schema), spec, mode, cluster)

    def read(self, spec: TableSpec) -> DataFrame:
        """The table's rows, or an empty frame with its schema when it does not exist."""
        if not self.exists(spec):
            return local_frame(self._spark, [], spec.schema)
        name = self._table_name(spec)
        if name is not None:
            frame = self._spark.table(name)
        else:
            frame = self._spark.read.format("delta").load(self.location(spec))
        return frame.select(*spec.schema.fieldNames())

    def clean(self, spec: TableSpec, older_than_hours: int) -> None:
        """``Lakehouse.clean``: delta-rs's full vacuum for a path table, else Delta's ``VACUUM``.

        Delta's ``VACUUM`` took about 30 s a table on 2 busy cores and left a stopped write's
        files (Delta 4.4: its dry run listed none); delta-rs vacuums the same layout in
        milliseconds. Delta refuses an age below the table's retention (a week) unless its
        check is off: the configured age is the check here, so it is off for the call. Delta
        lists a table's folders in ``parallelPartitionDiscovery.parallelism`` tasks, 10,000 by
        default: a catalog table's vacuum took 85 s on 2 cores, 6 s in a few tasks (a table
        has a folder per cluster).
        """
        if not self.exists(spec):
            return
        name = self._table_name(spec)
        if name is None:
            from jobs.lakehouse.deltars import vacuum_path

            vacuum_path(self.location(spec), older_than_hours)
            return
        from delta.tables import DeltaTable

        table = DeltaTable.forName(self._spark, name)
        during = {
            "spark.databricks.delta.retentionDurationCheck.enabled": "false",
            "spark.sql.sources.parallelPartitionDiscovery.parallelism": str(_VACUUM_LISTING_TASKS),
        }
        before = {key: self._spark.conf.get(key, None) for key in during}
        for key, value in during.items():
            self._spark.conf.set(key, value)
        try:
            table.vacuum(older_than_hours)
        finally:
            for key, old in before.items():
                if old is None:
                    self._spark.conf.unset(key)
                else:
                    self._spark.conf.set(key, old)

    def row_count(self, spec: TableSpec) -> int | None:
        """Rows in the table, None when it does not exist.

        A path table's rows come from its log's file statistics, read by delta-rs
        (``logged_row_count``): Delta's own count of a table costs three Spark jobs, about
        1.4 s on 2 cores, and ``run`` ends listing every table. A catalog table, a table whose
        statistics cannot tell, or a log delta-rs cannot reach (an object store whose
        credentials only Spark holds) is counted by Spark.
        """
        if not self.exists(spec):
            return None
        if self._table_name(spec) is None:
            from deltalake.exceptions import DeltaError

            from jobs.lakehouse.deltars import logged_row_count

            try:
                logged = logged_row_count(self.location(spec))
            except (DeltaError, OSError):
                logged = None
            if logged is not None:
                return logged
        return int(self.read(spec).count())
