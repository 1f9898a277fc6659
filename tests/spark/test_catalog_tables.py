"""delta-spark's catalog mode (``--catalog C --schema S``) on a real Spark catalog.

Unity Catalog names tables ``catalog.schema.table``; Spark's session catalog takes the same
three-part names (``spark_catalog.<schema>.<table>``), so these tests run the catalog mode
here, on Delta's own ``DeltaCatalog``, in a schema of their own under a temporary directory.
Delta's ``DeltaTableBuilder.tableName`` refused such a name outside Databricks
(``PARSE_SYNTAX_ERROR``, delta-io/delta#2793): the tables are created with SQL DDL instead.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import DataType

from jobs.lakehouse.deltaspark import DeltaSparkLakehouse
from jobs.lakehouse.lease_table import lease_table
from jobs.lakehouse.port import WriteMode
from jobs.lakehouse.table_ddl import column_definitions
from jobs.runtime.lease import Holder, Lease, LeaseHeld, LeaseSettings
from schemas.meta import LEASES
from schemas.registry import ALL_TABLES
from tests.helpers import assert_frames_equal, require_delta_spark
from tests.spark.probe_table import SPEC, probe_rows

pytestmark = pytest.mark.spark


@pytest.fixture
def catalog_lakehouse(spark: SparkSession, tmp_path: Path) -> Iterator[DeltaSparkLakehouse]:
    """A lakehouse in a new schema of the session catalog, dropped with its tables after."""
    require_delta_spark(spark)
    schema = f"kafka_audit_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE SCHEMA spark_catalog.{schema} LOCATION '{tmp_path / schema}'")
    try:
        yield DeltaSparkLakehouse(spark, catalog="spark_catalog", schema=schema)
    finally:
        spark.sql(f"DROP SCHEMA spark_catalog.{schema} CASCADE")


def test_every_table_contract_is_its_own_ddl(spark: SparkSession) -> None:
    """The DDL of each table's columns parses back to the contract: types, nullability, comments."""
    for spec in ALL_TABLES:
        assert DataType.fromDDL(column_definitions(spec.schema)) == spec.schema, spec.qualified_name


def test_a_catalog_table_keeps_its_contract_and_takes_every_write(
    spark: SparkSession, catalog_lakehouse: DeltaSparkLakehouse
) -> None:
    lakehouse = catalog_lakehouse
    name = lakehouse.location(SPEC)
    assert name == f"{lakehouse.root}.silver_lakehouse_probe"
    assert lakehouse.row_count(SPEC) is None
    rows = probe_rows("a", 4) + probe_rows("b", 3)
    assert lakehouse.write(spark.createDataFrame(rows, SPEC.schema), SPEC, WriteMode.append) == 9
    assert spark.table(name).schema == SPEC.schema, "columns, nullability and comments"
    detail = spark.sql(f"DESCRIBE DETAIL {name}").first()
    assert detail is not None
    assert (detail.format, detail.description) == ("delta", SPEC.description)
    assert detail.partitionColumns == ["cluster"]

    replaced = probe_rows("a", 2, epoch_base=100)
    lakehouse.write(
        spark.createDataFrame(replaced, SPEC.schema), SPEC, WriteMode.replace_cluster, "a"
    )
    keys = spark.createDataFrame([("t1", 1)], "topic string, partition int")
    new_key_row = [("b", "t1", 1, 999, 0.25, False, [9], None)]
    assert (
        lakehouse.replace_keys(spark.createDataFrame(new_key_row, SPEC.schema), SPEC, "b", keys)
        == 1
    )
    kept_b = [r for r in probe_rows("b", 3) if (r[1], r[2]) != ("t1", 1)]
    expected = replaced + kept_b + new_key_row
    assert_frames_equal(
        lakehouse.read(SPEC),
        spark.createDataFrame(expected, SPEC.schema),
        order_by=["cluster", "partition", "leader_epoch"],
    )
    assert lakehouse.row_count(SPEC) == len(expected)
    lakehouse.clean(SPEC, older_than_hours=0)
    assert lakehouse.row_count(SPEC) == len(expected), "a vacuum keeps the live files"


def test_the_lease_of_a_catalog_lakehouse_is_a_catalog_table(
    spark: SparkSession, catalog_lakehouse: DeltaSparkLakehouse
) -> None:
    table = lease_table(catalog_lakehouse, spark, catalog=True)
    settings = LeaseSettings(renew_seconds=60.0, ttl_seconds=600.0, poll_seconds=0.2)
    first = Lease(table, "demo", Holder(run_id="run-1", host="host-1", pid=1), settings)
    first.acquire()
    row = table.read("demo")
    assert row is not None and row["run_id"] == "run-1"
    with pytest.raises(LeaseHeld, match="run-1"):
        Lease(table, "demo", Holder(run_id="run-2", host="host-2", pid=2), settings).acquire()
    first.release()
    Lease(table, "demo", Holder(run_id="run-2", host="host-2", pid=2), settings).acquire()
    assert spark.catalog.tableExists(catalog_lakehouse.location(LEASES))
