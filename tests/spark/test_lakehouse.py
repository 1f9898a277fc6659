"""The lakehouse on both engines: real Delta tables that Spark, delta-rs, DuckDB and Polars read."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from deltalake import DeltaTable, Schema
from pyspark.sql import SparkSession
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructType,
    TimestampType,
)

from jobs._runtime import session_has_delta
from jobs.lakehouse import WriteMode
from jobs.lakehouse_deltars import DeltaRsLakehouse
from schemas.catalog import TableSpec, column
from tests.helpers import assert_frames_equal

pytestmark = pytest.mark.spark

SPEC = TableSpec(
    layer="silver",
    name="lakehouse_probe",
    description="Rows of every column type the pipeline writes.",
    schema=StructType(
        [
            column("cluster", StringType(), "Cluster.", nullable=False),
            column("topic", StringType(), "Topic."),
            column("partition", IntegerType(), "Partition."),
            column("leader_epoch", LongType(), "Epoch."),
            column("ratio", DoubleType(), "Ratio."),
            column("unclean", BooleanType(), "Unclean."),
            column("isr", ArrayType(IntegerType()), "ISR."),
            column("at", TimestampType(), "When."),
        ]
    ),
)
T0 = datetime(2024, 3, 1, 12, 30, 45, 123456)


def _rows(cluster: str, count: int, epoch_base: int = 0) -> list[tuple[object, ...]]:
    return [
        (cluster, f"t{i % 3}", i, epoch_base + i, i / 4, i % 2 == 0, [1, 2, i], T0)
        for i in range(count)
    ] + [(cluster, None, None, None, None, None, None, None)]


def _python_rows(frame: pl.DataFrame) -> list[tuple[object, ...]]:
    ordered = frame.select(SPEC.schema.fieldNames()).sort(["cluster", "partition"], nulls_last=True)
    return [
        tuple(v.replace(tzinfo=None) if isinstance(v, datetime) else v for v in row)
        for row in ordered.iter_rows()
    ]


@pytest.fixture
def deltars(spark: SparkSession, lakehouse_dir: Path) -> DeltaRsLakehouse:
    return DeltaRsLakehouse(spark, str(lakehouse_dir))


def test_round_trip_is_read_alike_by_spark_deltars_duckdb_polars(
    spark: SparkSession, deltars: DeltaRsLakehouse
) -> None:
    rows = _rows("a", 7) + _rows("b", 5)
    written = deltars.write(
        spark.createDataFrame(rows, SPEC.schema).repartition(3), SPEC, WriteMode.append
    )
    assert written == len(rows)
    assert deltars.row_count(SPEC) == len(rows)

    assert_frames_equal(deltars.read(SPEC), spark.createDataFrame(rows, SPEC.schema))

    expected = sorted((tuple(r) for r in rows), key=lambda r: (r[0], r[2] is None, r[2] or 0))
    table = DeltaTable(deltars.location(SPEC))
    assert table.metadata().partition_columns == ["cluster"]
    assert _python_rows(pl.from_arrow(table.to_pyarrow_table())) == expected
    assert _python_rows(pl.read_delta(deltars.location(SPEC))) == expected
    files = table.file_uris()
    duck = duckdb.sql(f"SELECT * FROM read_parquet({files!r}, hive_partitioning = true)").pl()
    assert _python_rows(duck) == expected


def test_replacing_one_cluster_leaves_the_others_untouched(
    spark: SparkSession, deltars: DeltaRsLakehouse
) -> None:
    deltars.write(
        spark.createDataFrame(_rows("a", 4) + _rows("b", 3), SPEC.schema), SPEC, WriteMode.append
    )
    version_before = DeltaTable(deltars.location(SPEC)).version()
    replacement = _rows("a", 2, epoch_base=100)
    deltars.write(
        spark.createDataFrame(replacement, SPEC.schema),
        SPEC,
        WriteMode.replace_cluster,
        cluster="a",
    )
    assert DeltaTable(deltars.location(SPEC)).version() == version_before + 1, "one commit"
    assert_frames_equal(
        deltars.read(SPEC), spark.createDataFrame(replacement + _rows("b", 3), SPEC.schema)
    )


def test_replacing_a_cluster_with_nothing_empties_it(
    spark: SparkSession, deltars: DeltaRsLakehouse
) -> None:
    deltars.write(
        spark.createDataFrame(_rows("a", 2) + _rows("b", 2), SPEC.schema), SPEC, WriteMode.append
    )
    deltars.write(spark.createDataFrame([], SPEC.schema), SPEC, WriteMode.replace_cluster, "a")
    assert sorted(r.cluster for r in deltars.read(SPEC).collect()) == ["b"] * 3


def test_replace_refuses_rows_of_another_cluster(
    spark: SparkSession, deltars: DeltaRsLakehouse
) -> None:
    deltars.write(spark.createDataFrame(_rows("a", 2), SPEC.schema), SPEC, WriteMode.append)
    with pytest.raises(ValueError, match="replacing cluster 'a' with rows of \\['b'\\]"):
        deltars.write(
            spark.createDataFrame(_rows("b", 1), SPEC.schema), SPEC, WriteMode.replace_cluster, "a"
        )
    assert deltars.row_count(SPEC) == 3, "a refused write changes nothing"


def test_overwrite_and_append(spark: SparkSession, deltars: DeltaRsLakehouse) -> None:
    deltars.write(spark.createDataFrame(_rows("a", 3), SPEC.schema), SPEC, WriteMode.append)
    deltars.write(spark.createDataFrame(_rows("b", 1), SPEC.schema), SPEC, WriteMode.append)
    assert deltars.row_count(SPEC) == 6
    deltars.write(spark.createDataFrame(_rows("c", 1), SPEC.schema), SPEC, WriteMode.overwrite)
    assert sorted({r.cluster for r in deltars.read(SPEC).collect()}) == ["c"]


def test_a_table_not_created_reads_empty_with_its_schema(deltars: DeltaRsLakehouse) -> None:
    assert not deltars.exists(SPEC)
    assert deltars.row_count(SPEC) is None
    frame = deltars.read(SPEC)
    assert frame.schema.fieldNames() == SPEC.schema.fieldNames()
    assert frame.count() == 0


def test_delta_spark_and_delta_rs_read_each_other(spark: SparkSession, lakehouse_dir: Path) -> None:
    if not session_has_delta(spark):
        pytest.skip(
            "Delta's Spark extension is not on the classpath here (Maven Central is unreachable); "
            "runs where delta-spark's jars are present"
        )
    from jobs.lakehouse_deltaspark import DeltaSparkLakehouse

    native = DeltaSparkLakehouse(spark, path=str(lakehouse_dir / "native"))
    rs = DeltaRsLakehouse(spark, str(lakehouse_dir / "native"))
    rows = _rows("a", 3)
    native.write(spark.createDataFrame(rows, SPEC.schema), SPEC, WriteMode.append)
    assert_frames_equal(rs.read(SPEC), spark.createDataFrame(rows, SPEC.schema))
    rs.write(spark.createDataFrame(_rows("b", 2), SPEC.schema), SPEC, WriteMode.append)
    assert native.row_count(SPEC) == len(rows) + 3


def test_driver_rows_append_without_a_spark_job(
    spark: SparkSession, deltars: DeltaRsLakehouse
) -> None:
    rows = _rows("a", 2)
    names = SPEC.schema.fieldNames()
    assert deltars.append_rows(SPEC, [dict(zip(names, r, strict=True)) for r in rows]) == 3
    assert deltars.append_rows(SPEC, []) == 0
    table = DeltaTable(deltars.location(SPEC))
    assert table.metadata().partition_columns == ["cluster"]
    assert table.schema().to_json() == Schema.from_json(SPEC.schema.json()).to_json()
    assert_frames_equal(deltars.read(SPEC), spark.createDataFrame(rows, SPEC.schema))


def _replace_keys_case(spark: SparkSession, lakehouse: Any) -> None:
    """Replace (t0, 0), (t1, 4) and the null key of cluster a; a's other rows and b stay."""
    old_a, old_b = _rows("a", 9), _rows("b", 4)
    lakehouse.write(
        spark.createDataFrame(old_a + old_b, SPEC.schema).repartition(3, "partition"),
        SPEC,
        WriteMode.append,
    )
    keys = spark.createDataFrame(
        [("t0", 0), ("t1", 4), (None, None), ("t2", 99)], "topic string, partition int"
    )
    new = [
        ("a", "t0", 0, 500, 0.5, True, [7], T0),
        ("a", "t0", 0, 501, 0.5, True, [7], T0),
        ("a", None, None, 502, None, None, None, None),
        ("a", "t2", 99, 503, None, None, None, None),
    ]
    replaced = {("t0", 0), ("t1", 4), (None, None), ("t2", 99)}
    written = lakehouse.replace_keys(spark.createDataFrame(new, SPEC.schema), SPEC, "a", keys)
    assert written == len(new)
    kept = [r for r in old_a if (r[1], r[2]) not in replaced]
    assert len(kept) == len(old_a) - 3
    assert_frames_equal(
        lakehouse.read(SPEC), spark.createDataFrame(kept + new + old_b, SPEC.schema)
    )


def test_replace_keys_replaces_only_those_rows_in_one_commit_and_touches_only_their_files(
    spark: SparkSession, deltars: DeltaRsLakehouse
) -> None:
    before: set[str] = set()

    def remember() -> None:
        before.update(DeltaTable(deltars.location(SPEC)).file_uris())

    _replace_keys_case_with_hook(spark, deltars, remember)
    table = DeltaTable(deltars.location(SPEC))
    history = table.history(1)[0]
    assert history["operation"] == "WRITE", "one commit of adds and removes"
    after = set(table.file_uris())
    untouched = before & after
    assert untouched, "files holding no replaced key stay as they are"
    assert any("cluster=b" in uri for uri in untouched)
    assert before - after, "the files holding a replaced key are replaced"


def _replace_keys_case_with_hook(spark: SparkSession, lakehouse: Any, hook: Any) -> None:
    original = lakehouse.replace_keys

    def replace_keys(*args: Any, **kwargs: Any) -> int:
        hook()
        version = DeltaTable(lakehouse.location(SPEC)).version()
        result = original(*args, **kwargs)
        assert DeltaTable(lakehouse.location(SPEC)).version() == version + 1, "one commit"
        return int(result)

    lakehouse.replace_keys = replace_keys
    _replace_keys_case(spark, lakehouse)


def test_replace_keys_on_a_new_table_writes_the_rows(
    spark: SparkSession, deltars: DeltaRsLakehouse
) -> None:
    keys = spark.createDataFrame([("t0", 0)], "topic string, partition int")
    rows = _rows("a", 1)
    assert deltars.replace_keys(spark.createDataFrame(rows, SPEC.schema), SPEC, "a", keys) == 2
    assert_frames_equal(deltars.read(SPEC), spark.createDataFrame(rows, SPEC.schema))


def test_replace_keys_refuses_rows_of_another_cluster_and_unknown_key_columns(
    spark: SparkSession, deltars: DeltaRsLakehouse
) -> None:
    deltars.write(spark.createDataFrame(_rows("a", 2), SPEC.schema), SPEC, WriteMode.append)
    keys = spark.createDataFrame([("t0", 0)], "topic string, partition int")
    with pytest.raises(ValueError, match="rows of \\['b'\\]"):
        deltars.replace_keys(spark.createDataFrame(_rows("b", 1), SPEC.schema), SPEC, "a", keys)
    with pytest.raises(ValueError, match="bad key columns"):
        deltars.replace_keys(
            spark.createDataFrame(_rows("a", 1), SPEC.schema),
            SPEC,
            "a",
            spark.createDataFrame([("x",)], "nope string"),
        )
    assert deltars.row_count(SPEC) == 3, "a refused write changes nothing"


def test_replace_keys_on_delta_spark(spark: SparkSession, lakehouse_dir: Path) -> None:
    if not session_has_delta(spark):
        pytest.skip(
            "Delta's Spark extension is not on the classpath here (Maven Central is unreachable); "
            "runs where delta-spark's jars are present"
        )
    from jobs.lakehouse_deltaspark import DeltaSparkLakehouse

    _replace_keys_case(spark, DeltaSparkLakehouse(spark, path=str(lakehouse_dir / "native")))
