"""``meta.leases`` read and changed by compare-and-swap, on each engine's own commit protocol.

A change of a cluster's lease row commits only over the row it read (its ``token``), so of
two runs that read the same row and both try to take it, one commit wins and the other is told
it lost. The atomicity is Delta's: a commit is the put-if-absent of ``_delta_log/<version>.json``
(on object stores too, through each engine's log store), never a file lock beside the table.

* delta-rs: the table is loaded at version N, the cluster's row checked against the token, and
  the whole (small) table rewritten as version N+1 with no commit retries: any commit in
  between, of this cluster or another, fails it (``CommitFailedError``) and the caller reads again.
* delta-spark (paths, Unity Catalog, Databricks): one ``MERGE`` whose update is conditioned on
  the token (or an insert when there was no row); a concurrent commit to the cluster's partition
  fails it with one of Delta's conflict exceptions (``ConcurrentAppendException``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

import pyarrow as pa
from deltalake import DeltaTable, QueryBuilder, write_deltalake
from deltalake.exceptions import CommitFailedError, DeltaError
from deltalake.transaction import CommitProperties
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.lakehouse.arrow_types import arrow_schema
from jobs.lakehouse.port import Lakehouse
from jobs.lakehouse.table_ddl import create_table_sql, table_identifier
from jobs.runtime.local_frame import local_frame
from jobs.tasks.sql_text import literal
from schemas.meta import LEASES

LeaseRow = Mapping[str, Any]
"""A ``meta.leases`` row: cluster, run_id, host, pid, started_at, heartbeat_at, released_at,
token."""


class LeaseTable(Protocol):
    """Where the leases live, with the one atomic change the lease needs."""

    def read(self, cluster: str) -> LeaseRow | None:
        """The cluster's lease row as last committed, None when it never had one."""
        ...

    def swap(self, cluster: str, expected: str | None, row: LeaseRow) -> bool:
        """Replace the cluster's row with ``row`` if its token is still ``expected``.

        Args:
            cluster: the cluster.
            expected: the token of the row read before (None: there was no row).
            row: the new row, with a new token.

        Returns:
            Whether ``row`` was committed; False when the row changed since it was read or a
            concurrent commit won (read again and decide again).
        """
        ...


class DeltaRsLeaseTable:
    """``meta.leases`` at a path, committed by delta-rs (version N+1 over N, no retries)."""

    def __init__(self, location: str) -> None:
        self._location = location
        self._schema = arrow_schema(LEASES.schema)

    def _rows(self) -> tuple[DeltaTable | None, list[dict[str, Any]]]:
        try:
            table = DeltaTable(self._location)
        except DeltaError:
            if not DeltaTable.is_deltatable(self._location):
                return None, []
            # another run created the table while this one opened it (no commit file yet)
            table = DeltaTable(self._location)
        # Read by delta-rs' own engine, not a pyarrow dataset over deltalake's Python file
        # system: that dataset's last reference can be dropped on an Arrow thread after this
        # returns, and when the process is exiting by then (a refused run exits at once) the
        # thread's wait for the GIL aborts the interpreter ("terminate called without an
        # active exception", exit code -6).
        rows = QueryBuilder().register("leases", table).execute("SELECT * FROM leases")
        return table, pa.table(rows).to_pylist()

    def read(self, cluster: str) -> LeaseRow | None:
        """``LeaseTable.read``."""
        _, rows = self._rows()
        return next((row for row in rows if row["cluster"] == cluster), None)

    def swap(self, cluster: str, expected: str | None, row: LeaseRow) -> bool:
        """``LeaseTable.swap``: the whole table rewritten over the version it was read at."""
        table, rows = self._rows()
        current = next((r for r in rows if r["cluster"] == cluster), None)
        if (current["token"] if current else None) != expected:
            return False
        others = [r for r in rows if r["cluster"] != cluster]
        data = pa.Table.from_pylist([*others, dict(row)], schema=self._schema)
        try:
            write_deltalake(
                table if table is not None else self._location,
                data,
                mode="overwrite" if table is not None else "error",
                partition_by=list(LEASES.partition_by),
                name=LEASES.view_name if table is None else None,
                description=LEASES.description if table is None else None,
                commit_properties=CommitProperties(max_commit_retries=0),
            )
        except CommitFailedError:
            return False
        except DeltaError:
            # Another run created the table between our look and our create.
            if table is None and DeltaTable.is_deltatable(self._location):
                return False
            raise
        return True


def _commit_conflicts() -> tuple[type[Exception], ...]:
    """Delta's commit conflicts as PySpark raises them (each its own class, no common base)."""
    from delta import exceptions

    return (
        exceptions.DeltaConcurrentModificationException,
        exceptions.ConcurrentWriteException,
        exceptions.MetadataChangedException,
        exceptions.ProtocolChangedException,
        exceptions.ConcurrentAppendException,
        exceptions.ConcurrentDeleteReadException,
        exceptions.ConcurrentDeleteDeleteException,
        exceptions.ConcurrentTransactionException,
    )


_TABLE_BEING_CREATED = frozenset(
    {
        "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION",
        "DELTA_MISSING_DELTA_TABLE",
        "DELTA_TABLE_NOT_FOUND",
    }
)
"""What delta-spark's create says of a location another run is creating (by its state)."""


class DeltaSparkLeaseTable:
    """``meta.leases`` by path or Unity Catalog name, changed by delta-spark ``MERGE``."""

    def __init__(self, spark: SparkSession, location: str, *, catalog: bool) -> None:
        self._spark = spark
        self._location = location
        self._catalog = catalog

    def _exists(self) -> bool:
        if self._catalog:
            return bool(self._spark.catalog.tableExists(self._location))
        from delta.tables import DeltaTable as SparkDeltaTable

        return bool(SparkDeltaTable.isDeltaTable(self._spark, self._location))

    def _create(self) -> bool:
        """Create the table; False when another run is creating it at this moment."""
        from pyspark.errors import AnalysisException

        identifier = table_identifier(self._location, catalog=self._catalog)
        try:
            self._spark.sql(create_table_sql(identifier, LEASES))
        except _commit_conflicts():
            if not self._exists():  # else another run created it at the same moment: fine
                raise
            return True
        except AnalysisException as error:
            # Another run has begun the table's first commit (its files or log folder are
            # there, its first version not yet): this run lost the race and reads again.
            if error.getCondition() not in _TABLE_BEING_CREATED:
                raise
            return False
        # IF NOT EXISTS passes over a location whose log folder another run has begun: lost too.
        return self._exists()

    def _table(self) -> Any:
        from delta.tables import DeltaTable as SparkDeltaTable

        if self._catalog:
            return SparkDeltaTable.forName(self._spark, self._location)
        return SparkDeltaTable.forPath(self._spark, self._location)

    def read(self, cluster: str) -> LeaseRow | None:
        """``LeaseTable.read``."""
        if not self._exists():
            return None
        rows = self._table().toDF().filter(F.col("cluster") == cluster).collect()
        return rows[0].asDict() if rows else None

    def swap(self, cluster: str, expected: str | None, row: LeaseRow) -> bool:
        """``LeaseTable.swap``: one ``MERGE`` into the cluster's partition."""
        if not self._exists() and (expected is not None or not self._create()):
            return False  # a row expected in a table that is not there: the caller reads why
        source = local_frame(self._spark, [row], LEASES.schema)
        # The literal cluster prunes the merge to one partition: other clusters' leases do not
        # conflict with it.
        merge = (
            self._table()
            .alias("t")
            .merge(source.alias("s"), f"t.cluster = {literal(cluster)} AND t.cluster = s.cluster")
        )
        if expected is None:
            merge = merge.whenNotMatchedInsertAll()
        else:
            merge = merge.whenMatchedUpdateAll(condition=f"t.token = {literal(expected)}")
        try:
            metrics = merge.execute().collect()
        except _commit_conflicts():
            return False
        return bool(metrics) and int(metrics[0]["num_affected_rows"]) == 1


def lease_table(lakehouse: Lakehouse, spark: SparkSession, catalog: bool) -> LeaseTable:
    """The lease table of ``lakehouse``, on its engine.

    Args:
        lakehouse: the lakehouse whose clusters are leased.
        spark: the session (delta-spark's merges run in it).
        catalog: whether the lakehouse is a Unity Catalog schema.

    Returns:
        The table.
    """
    location = lakehouse.location(LEASES)
    if lakehouse.engine == "delta-spark":
        return DeltaSparkLeaseTable(spark, location, catalog=catalog)
    return DeltaRsLeaseTable(location)


def utc(value: datetime) -> datetime:
    """``value`` as an aware UTC datetime (Spark hands back naive times of the local zone)."""
    return value.astimezone(UTC)
