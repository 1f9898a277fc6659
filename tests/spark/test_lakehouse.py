"""The lakehouse on both engines: real Delta tables that Spark, delta-rs, DuckDB and Polars read.

Every test of the port runs on delta-rs and on delta-spark (the ``lakehouse`` fixture); a table
written by one engine is read, appended to and replaced by the other.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb
import polars as pl
import pytest
from deltalake import DeltaTable, Schema
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from jobs.lakehouse.deltars import logged_row_count
from jobs.lakehouse.port import Lakehouse, WriteMode
from schemas.catalog import TableSpec
from tests.helpers import ENGINES, assert_frames_equal, lakehouse_on, require_delta_spark
from tests.spark.probe_table import SPEC, T0, probe_rows

pytestmark = pytest.mark.spark


def _python_rows(frame: pl.DataFrame) -> list[tuple[object, ...]]:
    ordered = frame.select(SPEC.schema.fieldNames()).sort(["cluster", "partition"], nulls_last=True)
    return [
        tuple(v.replace(tzinfo=None) if isinstance(v, datetime) else v for v in row)
        for row in ordered.iter_rows()
    ]


@pytest.fixture(params=ENGINES)
def lakehouse(
    request: pytest.FixtureRequest, spark: SparkSession, lakehouse_dir: Path
) -> Lakehouse:
    return lakehouse_on(request.param, spark, str(lakehouse_dir))


def _expected(rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    return sorted((tuple(r) for r in rows), key=lambda r: (r[0], r[2] is None, r[2] or 0))


def _assert_every_reader_sees(location: str, rows: list[tuple[object, ...]]) -> None:
    """deltalake, Polars and DuckDB read ``rows`` from the table at ``location``."""
    expected = _expected(rows)
    table = DeltaTable(location)
    assert table.metadata().partition_columns == ["cluster"]
    assert _python_rows(pl.from_arrow(table.to_pyarrow_table())) == expected
    assert _python_rows(pl.read_delta(location)) == expected
    files = table.file_uris()
    if not files:  # DuckDB reads no table of zero files
        assert not rows
        return
    duck = duckdb.sql(f"SELECT * FROM read_parquet({files!r}, hive_partitioning = true)").pl()
    assert _python_rows(duck) == expected


def test_round_trip_is_read_alike_by_spark_deltars_duckdb_polars(
    spark: SparkSession, lakehouse: Lakehouse
) -> None:
    rows = probe_rows("a", 7) + probe_rows("b", 5)
    written = lakehouse.write(
        spark.createDataFrame(rows, SPEC.schema).repartition(3), SPEC, WriteMode.append
    )
    assert written == len(rows)
    assert lakehouse.row_count(SPEC) == len(rows)
    assert_frames_equal(lakehouse.read(SPEC), spark.createDataFrame(rows, SPEC.schema))
    _assert_every_reader_sees(lakehouse.location(SPEC), rows)


def test_the_table_schema_is_the_contract_with_its_comments(
    spark: SparkSession, lakehouse: Lakehouse
) -> None:
    frame = spark.createDataFrame(probe_rows("a", 2), SPEC.schema)
    # Columns in another order and of a wider type are conformed to the contract on write.
    reordered = frame.select(*reversed(frame.columns)).withColumn(
        "partition", F.col("partition").cast("long")
    )
    lakehouse.write(reordered, SPEC, WriteMode.append)
    fields = {f.name: f for f in DeltaTable(lakehouse.location(SPEC)).schema().fields}
    assert list(fields) == SPEC.schema.fieldNames()
    assert fields["partition"].type.type == "integer"
    assert fields["leader_epoch"].metadata["comment"] == "Epoch."
    with pytest.raises(ValueError, match="lacks columns \\['at'\\]"):
        lakehouse.write(frame.drop("at"), SPEC, WriteMode.append)
    assert_frames_equal(lakehouse.read(SPEC), frame)


def test_replacing_one_cluster_leaves_the_others_untouched(
    spark: SparkSession, lakehouse: Lakehouse
) -> None:
    lakehouse.write(
        spark.createDataFrame(probe_rows("a", 4) + probe_rows("b", 3), SPEC.schema),
        SPEC,
        WriteMode.append,
    )
    version_before = DeltaTable(lakehouse.location(SPEC)).version()
    replacement = probe_rows("a", 2, epoch_base=100)
    lakehouse.write(
        spark.createDataFrame(replacement, SPEC.schema),
        SPEC,
        WriteMode.replace_cluster,
        cluster="a",
    )
    assert DeltaTable(lakehouse.location(SPEC)).version() == version_before + 1, "one commit"
    assert_frames_equal(
        lakehouse.read(SPEC), spark.createDataFrame(replacement + probe_rows("b", 3), SPEC.schema)
    )


def test_a_table_of_an_earlier_version_gains_the_columns_the_contract_added(
    spark: SparkSession, lakehouse: Lakehouse
) -> None:
    # An upgrade: the lakehouse holds the table as an earlier release wrote it, without "at"
    # (gold.elections gained prev_leader_epoch and partition_epoch this way).
    earlier = TableSpec(
        layer=SPEC.layer,
        name=SPEC.name,
        description=SPEC.description,
        schema=StructType([f for f in SPEC.schema.fields if f.name != "at"]),
    )
    old_rows = [r[:-1] for r in probe_rows("a", 2) + probe_rows("b", 2)]
    lakehouse.write(spark.createDataFrame(old_rows, earlier.schema), earlier, WriteMode.append)
    lakehouse.write(
        spark.createDataFrame(probe_rows("a", 1), SPEC.schema), SPEC, WriteMode.replace_cluster, "a"
    )
    fields = {f.name: f for f in DeltaTable(lakehouse.location(SPEC)).schema().fields}
    assert list(fields) == SPEC.schema.fieldNames()
    assert fields["at"].metadata["comment"] == "When."
    kept = [(*r[:-1], None) for r in probe_rows("b", 2)]
    assert_frames_equal(
        lakehouse.read(SPEC), spark.createDataFrame(probe_rows("a", 1) + kept, SPEC.schema)
    )


def test_replacing_a_cluster_with_nothing_empties_it(
    spark: SparkSession, lakehouse: Lakehouse
) -> None:
    lakehouse.write(
        spark.createDataFrame(probe_rows("a", 2) + probe_rows("b", 2), SPEC.schema),
        SPEC,
        WriteMode.append,
    )
    lakehouse.write(spark.createDataFrame([], SPEC.schema), SPEC, WriteMode.replace_cluster, "a")
    assert sorted(r.cluster for r in lakehouse.read(SPEC).collect()) == ["b"] * 3


@pytest.mark.parametrize("earlier", [3, 0], ids=["existing-table", "new-table"])
def test_replace_refuses_rows_of_another_cluster(
    spark: SparkSession, lakehouse: Lakehouse, earlier: int
) -> None:
    if earlier:
        lakehouse.write(
            spark.createDataFrame(probe_rows("a", 2), SPEC.schema), SPEC, WriteMode.append
        )
    mixed = spark.createDataFrame(probe_rows("a", 1) + probe_rows("b", 1), SPEC.schema)
    with pytest.raises(ValueError, match="replacing cluster 'a' with rows of \\['b'\\]"):
        lakehouse.write(mixed, SPEC, WriteMode.replace_cluster, "a")
    assert (lakehouse.row_count(SPEC) or 0) == earlier, "a refused write changes nothing"


def test_overwrite_and_append(spark: SparkSession, lakehouse: Lakehouse) -> None:
    lakehouse.write(spark.createDataFrame(probe_rows("a", 3), SPEC.schema), SPEC, WriteMode.append)
    lakehouse.write(spark.createDataFrame(probe_rows("b", 1), SPEC.schema), SPEC, WriteMode.append)
    assert lakehouse.row_count(SPEC) == 6
    lakehouse.write(
        spark.createDataFrame(probe_rows("c", 1), SPEC.schema), SPEC, WriteMode.overwrite
    )
    assert sorted({r.cluster for r in lakehouse.read(SPEC).collect()}) == ["c"]


def test_a_table_not_created_reads_empty_with_its_schema(lakehouse: Lakehouse) -> None:
    assert not lakehouse.exists(SPEC)
    assert lakehouse.row_count(SPEC) is None
    frame = lakehouse.read(SPEC)
    assert frame.schema.fieldNames() == SPEC.schema.fieldNames()
    assert frame.count() == 0


def test_an_empty_write_creates_an_empty_table(spark: SparkSession, lakehouse: Lakehouse) -> None:
    assert lakehouse.write(spark.createDataFrame([], SPEC.schema), SPEC, WriteMode.append) == 0
    assert lakehouse.exists(SPEC)
    assert lakehouse.row_count(SPEC) == 0
    assert lakehouse.read(SPEC).schema.fieldNames() == SPEC.schema.fieldNames()
    _assert_every_reader_sees(lakehouse.location(SPEC), [])


def test_rows_of_files_without_statistics_are_counted(
    spark: SparkSession, lakehouse: Lakehouse
) -> None:
    """A writer with statistics off leaves files only a scan counts (the log's count is None)."""
    require_delta_spark(spark)
    rows = probe_rows("a", 3) + probe_rows("b", 4)
    lakehouse.write(spark.createDataFrame(rows[:4], SPEC.schema), SPEC, WriteMode.append)
    assert logged_row_count(lakehouse.location(SPEC)) == 4
    collect = "spark.databricks.delta.stats.collect"
    spark.conf.set(collect, "false")
    try:
        later = spark.createDataFrame(rows[4:], SPEC.schema).write.format("delta")
        later.mode("append").save(lakehouse.location(SPEC))
    finally:
        spark.conf.unset(collect)
    assert logged_row_count(lakehouse.location(SPEC)) is None
    assert lakehouse.row_count(SPEC) == len(rows)


@pytest.mark.parametrize(("first", "second"), [ENGINES, tuple(reversed(ENGINES))])
def test_each_engine_reads_and_writes_the_others_tables(
    spark: SparkSession, lakehouse_dir: Path, first: str, second: str
) -> None:
    root = str(lakehouse_dir)
    writer, other = lakehouse_on(first, spark, root), lakehouse_on(second, spark, root)
    rows = probe_rows("a", 3) + probe_rows("b", 2)
    writer.write(spark.createDataFrame(rows, SPEC.schema), SPEC, WriteMode.append)
    assert_frames_equal(other.read(SPEC), spark.createDataFrame(rows, SPEC.schema))
    other.write(spark.createDataFrame(probe_rows("c", 2), SPEC.schema), SPEC, WriteMode.append)
    replacement = probe_rows("a", 1, epoch_base=50)
    other.write(
        spark.createDataFrame(replacement, SPEC.schema), SPEC, WriteMode.replace_cluster, "a"
    )
    keys = spark.createDataFrame([("t0", 0)], "topic string, partition int")
    other.replace_keys(spark.createDataFrame(probe_rows("b", 1), SPEC.schema), SPEC, "b", keys)
    expected = replacement + [r for r in probe_rows("b", 2) if (r[1], r[2]) != ("t0", 0)]
    expected += probe_rows("b", 1) + probe_rows("c", 2)
    assert_frames_equal(writer.read(SPEC), spark.createDataFrame(expected, SPEC.schema))
    assert writer.row_count(SPEC) == len(expected)
    _assert_every_reader_sees(writer.location(SPEC), expected)


def _dicts(rows: list[tuple[object, ...]]) -> list[dict[str, object]]:
    names = SPEC.schema.fieldNames()
    return [dict(zip(names, r, strict=True)) for r in rows]


def test_driver_rows_append_in_one_commit_with_the_tables_schema(
    spark: SparkSession, lakehouse: Lakehouse
) -> None:
    rows = probe_rows("a", 2)
    assert lakehouse.write_rows(SPEC, _dicts(rows), WriteMode.append) == 3
    version = DeltaTable(lakehouse.location(SPEC)).version()
    assert lakehouse.write_rows(SPEC, [], WriteMode.append) == 0
    table = DeltaTable(lakehouse.location(SPEC))
    assert table.version() == version
    assert table.metadata().partition_columns == ["cluster"]
    assert table.schema().to_json() == Schema.from_json(SPEC.schema.json()).to_json()
    assert_frames_equal(lakehouse.read(SPEC), spark.createDataFrame(rows, SPEC.schema))


def test_driver_rows_replace_one_clusters_rows(spark: SparkSession, lakehouse: Lakehouse) -> None:
    lakehouse.write(
        spark.createDataFrame(probe_rows("a", 2) + probe_rows("b", 1), SPEC.schema),
        SPEC,
        WriteMode.append,
    )
    new_a = probe_rows("a", 1, epoch_base=70)
    assert lakehouse.write_rows(SPEC, _dicts(new_a), WriteMode.replace_cluster, "a") == 2
    expected = new_a + probe_rows("b", 1)
    assert_frames_equal(lakehouse.read(SPEC), spark.createDataFrame(expected, SPEC.schema))
    _assert_every_reader_sees(lakehouse.location(SPEC), expected)
    with pytest.raises(ValueError, match="b"):
        lakehouse.write_rows(SPEC, _dicts(probe_rows("b", 1)), WriteMode.replace_cluster, "a")
    assert lakehouse.write_rows(SPEC, [], WriteMode.replace_cluster, "a") == 0
    assert_frames_equal(
        lakehouse.read(SPEC), spark.createDataFrame(probe_rows("b", 1), SPEC.schema)
    )


def _replace_keys_case(spark: SparkSession, lakehouse: Lakehouse) -> None:
    """Replace (t0, 0), (t1, 4) and the null key of cluster a; a's other rows and b stay."""
    old_a, old_b = probe_rows("a", 9), probe_rows("b", 4)
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
    before = set(DeltaTable(lakehouse.location(SPEC)).file_uris())
    version = DeltaTable(lakehouse.location(SPEC)).version()
    written = lakehouse.replace_keys(spark.createDataFrame(new, SPEC.schema), SPEC, "a", keys)
    assert written == len(new)
    kept = [r for r in old_a if (r[1], r[2]) not in replaced]
    assert len(kept) == len(old_a) - 3
    assert_frames_equal(
        lakehouse.read(SPEC), spark.createDataFrame(kept + new + old_b, SPEC.schema)
    )
    table = DeltaTable(lakehouse.location(SPEC))
    assert table.version() == version + 1, "one commit"
    assert table.history(1)[0]["operation"] == "WRITE", "one commit of adds and removes"
    after = set(table.file_uris())
    untouched = before & after
    assert any("cluster=b" in uri for uri in untouched), "other clusters' files stay"
    assert before - after, "the files holding a replaced key are replaced"


def test_replace_keys_replaces_only_those_rows_in_one_commit(
    spark: SparkSession, lakehouse: Lakehouse
) -> None:
    _replace_keys_case(spark, lakehouse)


def test_replace_keys_on_delta_rs_rewrites_only_the_files_holding_a_key(
    spark: SparkSession, lakehouse_dir: Path
) -> None:
    lakehouse = lakehouse_on("delta-rs", spark, str(lakehouse_dir))
    lakehouse.write(
        spark.createDataFrame(probe_rows("a", 9), SPEC.schema).repartition(3, "partition"),
        SPEC,
        WriteMode.append,
    )
    before = set(DeltaTable(lakehouse.location(SPEC)).file_uris())
    keys = spark.createDataFrame([("t0", 0)], "topic string, partition int")
    lakehouse.replace_keys(spark.createDataFrame([], SPEC.schema), SPEC, "a", keys)
    after = set(DeltaTable(lakehouse.location(SPEC)).file_uris())
    assert before & after, "files holding no replaced key stay as they are"
    assert len(before - after) == 1, "only the file holding the key is rewritten"


def test_replace_keys_on_a_new_table_writes_the_rows(
    spark: SparkSession, lakehouse: Lakehouse
) -> None:
    keys = spark.createDataFrame([("t0", 0)], "topic string, partition int")
    rows = probe_rows("a", 1)
    assert lakehouse.replace_keys(spark.createDataFrame(rows, SPEC.schema), SPEC, "a", keys) == 2
    assert_frames_equal(lakehouse.read(SPEC), spark.createDataFrame(rows, SPEC.schema))


def test_replace_keys_refuses_rows_of_another_cluster_and_unknown_key_columns(
    spark: SparkSession, lakehouse: Lakehouse
) -> None:
    lakehouse.write(spark.createDataFrame(probe_rows("a", 2), SPEC.schema), SPEC, WriteMode.append)
    keys = spark.createDataFrame([("t0", 0)], "topic string, partition int")
    with pytest.raises(ValueError, match="rows of \\['b'\\]"):
        lakehouse.replace_keys(
            spark.createDataFrame(probe_rows("b", 1), SPEC.schema), SPEC, "a", keys
        )
    with pytest.raises(ValueError, match="bad key columns"):
        lakehouse.replace_keys(
            spark.createDataFrame(probe_rows("a", 1), SPEC.schema),
            SPEC,
            "a",
            spark.createDataFrame([("x",)], "nope string"),
        )
    assert lakehouse.row_count(SPEC) == 3, "a refused write changes nothing"


def test_a_relative_root_is_resolved_on_the_driver(
    spark: SparkSession,
    lakehouse_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(lakehouse_dir)
    for engine in ENGINES:
        lakehouse = lakehouse_on(engine, spark, f"relative-{engine}")
        assert lakehouse.root == str(lakehouse_dir / f"relative-{engine}")
        lakehouse.write(
            spark.createDataFrame(probe_rows("a", 1), SPEC.schema), SPEC, WriteMode.append
        )
        assert lakehouse.row_count(SPEC) == 2


def test_delta_spark_names_the_folder_it_cannot_make_a_table_of(
    spark: SparkSession, lakehouse_dir: Path
) -> None:
    require_delta_spark(spark)
    lakehouse = lakehouse_on("delta-spark", spark, str(lakehouse_dir))
    folder = Path(lakehouse.location(SPEC))
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("not a table\n")
    with pytest.raises(ValueError, match=f"no Delta table could be created at {folder} "):
        lakehouse.write(
            spark.createDataFrame(probe_rows("a", 1), SPEC.schema), SPEC, WriteMode.append
        )
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
