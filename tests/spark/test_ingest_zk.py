"""ingest-zk on files a real ZooKeeper wrote: bronze, state, changes, stats, idempotence, damage."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.runtime.config import AppConfig, ClusterConfig, ClusterInputs, LakehouseConfig
from jobs.runtime.context import JobContext
from jobs.stages.ingest_zk import run_for_cluster
from kafkactl_core.zk import (
    decode_datadir,
    read_snapshot,
    read_txnlog,
    snapshot_records,
    txn_records,
)
from schemas.zk import ZK_CHANGES, ZK_INGEST_STATS, ZK_RECORDS, ZK_STATE
from tests.conftest import REPO, reference_dir

pytestmark = pytest.mark.spark
REAL = REPO / "tests" / "fixtures" / "zk" / "real-3.8"
BINARY = ("snapshot.0", "log.1", "snapshot.1c", "log.1e")


def _context(spark: SparkSession, lakehouse: Path) -> JobContext:
    config = AppConfig(lakehouse=LakehouseConfig(path=str(lakehouse)), engine="delta-rs")
    return JobContext(config=config, spark_factory=lambda _config: spark)


def _cluster(*paths: Path) -> ClusterConfig:
    return ClusterConfig(name="zk1", inputs=ClusterInputs(zookeeper=[str(p) for p in paths]))


def _copy(names: tuple[str, ...], into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(REAL / name, into / name)
    return into


def _change_keys(rows: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return sorted(
        (
            r["zxid"],
            r["multi_index"] or 0,
            r["op"],
            r["path"],
            r["cause"],
            r["data_version"],
            r["leader"],
            r["leader_epoch"],
            tuple(r["isr"] or ()),
        )
        for r in rows
    )


def test_ingest_matches_the_pure_decoder(spark: SparkSession, tmp_path: Path) -> None:
    data_dir = _copy(BINARY, tmp_path / "version-2")
    ctx = _context(spark, tmp_path / "lh")
    report = run_for_cluster(ctx, _cluster(data_dir))

    expected_records = (
        sum(1 for _ in snapshot_records(read_snapshot(data_dir / "snapshot.0")))
        + sum(1 for _ in snapshot_records(read_snapshot(data_dir / "snapshot.1c")))
        + sum(
            1
            for name in ("log.1", "log.1e")
            for _ in txn_records(read_txnlog(data_dir / name), str(data_dir / name))
        )
    )
    assert report.rows_written[ZK_RECORDS.qualified_name] == expected_records
    assert ctx.lakehouse.row_count(ZK_RECORDS) == expected_records

    decoded = decode_datadir([data_dir])
    changes = [r.asDict() for r in ctx.lakehouse.read(ZK_CHANGES).collect()]
    assert _change_keys(changes) == _change_keys([c.to_row() for c in decoded.changes])
    assert ctx.lakehouse.row_count(ZK_STATE) == len(decoded.state)
    assert {r["cluster"] for r in changes} == {"zk1"}
    assert all(r["time"] is not None for r in changes), "txn times become UTC timestamps"

    stats = {Path(r.file).name: r for r in ctx.lakehouse.read(ZK_INGEST_STATS).collect()}
    assert set(stats) == set(BINARY)
    assert stats["log.1"].kind == "txnlog" and stats["log.1"].checksum_ok
    assert stats["log.1"].first_zxid == 1 and stats["log.1e"].last_zxid == 43
    assert all(s.error is None for s in stats.values())


def test_reingest_is_a_noop_and_new_files_extend_the_history(
    spark: SparkSession, tmp_path: Path
) -> None:
    data_dir = _copy(("snapshot.0", "log.1"), tmp_path / "version-2")
    ctx = _context(spark, tmp_path / "lh")
    run_for_cluster(ctx, _cluster(data_dir))
    first = ctx.lakehouse.row_count(ZK_CHANGES)
    again = run_for_cluster(ctx, _cluster(data_dir))
    assert again.rows_written == {} and "nothing new" in again.notes
    assert ctx.lakehouse.row_count(ZK_CHANGES) == first

    later = _copy(("snapshot.1c", "log.1e"), tmp_path / "later")
    run_for_cluster(ctx, _cluster(later))
    full = decode_datadir([REAL / name for name in BINARY])
    changes = [r.asDict() for r in ctx.lakehouse.read(ZK_CHANGES).collect()]
    assert _change_keys(changes) == _change_keys([c.to_row() for c in full.changes])


def test_damaged_and_foreign_files_are_reported_and_the_rest_ingested(
    spark: SparkSession, tmp_path: Path
) -> None:
    data_dir = _copy(("snapshot.0",), tmp_path / "version-2")
    whole = (REAL / "log.1").read_bytes()
    log = read_txnlog(REAL / "log.1")
    entries = sum(1 for _ in log)
    (data_dir / "log.1").write_bytes(whole[: log.summary.end_offset // 2])
    flipped = bytearray((REAL / "log.1e").read_bytes())
    flipped[40] ^= 0xFF
    (data_dir / "log.1e").write_bytes(bytes(flipped))
    (data_dir / "myid").write_text("1\n")
    ctx = _context(spark, tmp_path / "lh")
    report = run_for_cluster(ctx, _cluster(data_dir))

    stats = {Path(r.file).name: r for r in ctx.lakehouse.read(ZK_INGEST_STATS).collect()}
    assert stats["myid"].kind == "other" and "not a ZooKeeper" in stats["myid"].error
    assert "offset" in stats["log.1"].error, "names where reading stopped"
    assert 0 < stats["log.1"].records < entries, "entries before the damage are kept"
    assert stats["log.1e"].error is not None
    assert any("log.1:" in note for note in report.notes)
    assert ctx.lakehouse.row_count(ZK_CHANGES) > 0


def test_the_real_kafka_snapshot(spark: SparkSession, tmp_path: Path) -> None:
    source = reference_dir() / "real-logs" / "aryan-3.1.0-zk-snapshot.f7.zk.bin"
    if not source.exists():
        pytest.skip(f"reference snapshot not found at {source}")
    target = tmp_path / "dd" / "snapshot.f7"
    target.parent.mkdir()
    shutil.copy(source, target)
    ctx = _context(spark, tmp_path / "lh")
    run_for_cluster(ctx, _cluster(target.parent))
    state = ctx.lakehouse.read(ZK_STATE)
    kinds = {r.kind for r in state.select("kind").distinct().collect()}
    assert {"controller", "broker", "topic", "partition_state"} <= kinds
    partitions = state.filter("kind = 'partition_state'").collect()
    assert partitions and all(p.leader is not None and p.isr for p in partitions)
