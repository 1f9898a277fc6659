"""Files no commit references, on both engines: readers never see them; ``Lakehouse.clean``
deletes them once older than its age and keeps younger ones (a write may still be under way);
``DeltaRsLakehouse.commit_replacing`` replaces a stopped run's rows by key (issue 21)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from deltalake import DeltaTable
from pyspark.sql import SparkSession
from pyspark.sql.types import LongType, StringType, StructType

from jobs.lakehouse.deltars import DeltaRsLakehouse
from jobs.lakehouse.ingested_files import FileDigest, record_ingested, unrecorded_reads
from jobs.lakehouse.port import Lakehouse, WriteMode
from schemas.catalog import TableSpec, column
from tests.helpers import ENGINES, assert_frames_equal, lakehouse_on

pytestmark = pytest.mark.spark

SPEC = TableSpec(
    layer="silver",
    name="clean_probe",
    description="Rows read from files, by run.",
    schema=StructType(
        [
            column("cluster", StringType(), "Cluster.", nullable=False),
            column("run_id", StringType(), "Run.", nullable=False),
            column("file", StringType(), "File.", nullable=False),
            column("line", LongType(), "Line.", nullable=False),
        ]
    ),
)
HOUR = 3600


def _orphan(lakehouse: Lakehouse) -> Path:
    """A copy of one of the table's data files under a name no commit lists."""
    table = Path(lakehouse.location(SPEC))
    listed = sorted(table.rglob("*.parquet"))[0]
    orphan = listed.with_name("part-orphan-of-a-killed-write.snappy.parquet")
    shutil.copyfile(listed, orphan)
    return orphan


@pytest.mark.parametrize("engine", ENGINES)
def test_an_orphan_is_never_read(spark: SparkSession, lakehouse_dir: Path, engine: str) -> None:
    lakehouse = lakehouse_on(engine, spark, str(lakehouse_dir))
    rows = [("a", "r1", "f", line) for line in range(5)]
    lakehouse.write(spark.createDataFrame(rows, SPEC.schema), SPEC, WriteMode.append)
    _orphan(lakehouse)
    assert sorted(tuple(r) for r in lakehouse.read(SPEC).collect()) == rows


@pytest.mark.parametrize("engine", ENGINES)
def test_an_orphan_is_cleaned_once_older_than_the_age(
    spark: SparkSession, lakehouse_dir: Path, engine: str
) -> None:
    lakehouse = lakehouse_on(engine, spark, str(lakehouse_dir))
    rows = [("a", "r1", "f", line) for line in range(5)]
    lakehouse.write(spark.createDataFrame(rows, SPEC.schema), SPEC, WriteMode.append)
    orphan = _orphan(lakehouse)
    lakehouse.clean(SPEC, 1)
    assert orphan.exists(), "a file younger than the age was deleted"
    old = time.time() - 2 * HOUR
    os.utime(orphan, (old, old))
    lakehouse.clean(SPEC, 1)
    assert not orphan.exists()
    assert sorted(tuple(r) for r in lakehouse.read(SPEC).collect()) == rows


def test_a_stopped_runs_unrecorded_rows_are_replaced_by_key(
    spark: SparkSession, lakehouse_dir: Path
) -> None:
    lakehouse = DeltaRsLakehouse(spark, str(lakehouse_dir))
    recorded = [("a", "r1", "f", 1), ("a", "r1", "g", 1)]
    stopped = [("a", "r2", "f", 2), ("a", "r2", "f", 3)]
    lakehouse.write(spark.createDataFrame(recorded, SPEC.schema), SPEC, WriteMode.append)
    record_ingested(
        spark, lakehouse, "a", [FileDigest("f", "h1", 1), FileDigest("g", "h2", 1)], "logs", "r1"
    )
    lakehouse.write(spark.createDataFrame(stopped, SPEC.schema), SPEC, WriteMode.append)
    assert unrecorded_reads(lakehouse, SPEC, "a", "logs", ["f", "g"]) == [("r2", "f")]
    assert unrecorded_reads(lakehouse, SPEC, "a", "logs", ["g"]) == []
    again = [("a", "r3", "f", 2), ("a", "r3", "f", 3)]
    keys = spark.createDataFrame([("r2", "f")], "run_id string, file string")
    version = DeltaTable(lakehouse.location(SPEC)).version()
    # replace_keys writes the rows' files, then commit_replacing commits them
    assert lakehouse.replace_keys(spark.createDataFrame(again, SPEC.schema), SPEC, "a", keys) == 2
    assert DeltaTable(lakehouse.location(SPEC)).version() == version + 1, "one commit"
    assert_frames_equal(lakehouse.read(SPEC), spark.createDataFrame(recorded + again, SPEC.schema))
