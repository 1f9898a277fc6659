"""ingest-kraft on real KRaft captures, against Kafka's own ``kafka-dump-log
--cluster-metadata-decoder``: bronze rows per batch and every record's type and version, silver's
typed columns, idempotence, a growing and a rewritten segment (both Delta engines), damage
(truncated, bit-flipped, garbage, empty), and the command line."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs import run
from jobs.cli import main as cli_main
from jobs.runtime.config import AppConfig, ClusterConfig, ClusterInputs, LakehouseConfig
from jobs.runtime.context import JobContext, new_run_id
from jobs.stages.ingest_kraft import run_for_cluster
from jobs.stages.registry import StageReport, stage_named
from kafkactl_core.metadata_log.segments import scan
from schemas.kraft import KRAFT_CHANGES, KRAFT_INGEST_STATS, KRAFT_RECORDS
from schemas.meta import RUNS
from tests.conftest import REPO
from tests.helpers import ENGINES, require_delta_spark
from tests.real_kafka.kraft_dump import DumpBatch, DumpRecord, read_dump

pytestmark = pytest.mark.spark
CAPTURES = REPO / "tests" / "fixtures" / "real-kafka"
KRAFT = sorted(p for p in CAPTURES.glob("*-kraft") if (p / "metadata").is_dir())
SEGMENT = "00000000000000000000.log"


def _dumps() -> dict[str, list[DumpBatch]]:
    """Every segment and snapshot of every capture (by path), with kafka-dump-log's dump."""
    out = {}
    for capture in KRAFT:
        for path in sorted((capture / "metadata").iterdir()):
            dump = capture / "truth" / f"dump-{path.name}.txt.gz"
            if dump.exists():
                out[str(path)] = read_dump(dump)
    return out


DUMPS = _dumps()


def _context(spark: SparkSession, lakehouse: Path, engine: str = "delta-rs") -> JobContext:
    if engine == "delta-spark":
        require_delta_spark(spark)
    config = AppConfig(lakehouse=LakehouseConfig(path=str(lakehouse)), engine=engine)
    ctx = JobContext(config=config, spark_factory=lambda _config: spark)
    assert ctx.lakehouse.engine == engine
    return ctx


def _ingest(ctx: JobContext, *paths: Path, name: str = "k1") -> StageReport:
    """One ingestion run, with a run id of its own (as every command invocation has)."""
    ctx.run_id = new_run_id()
    cluster = ClusterConfig(name=name, inputs=ClusterInputs(kraft_metadata=[str(p) for p in paths]))
    return run_for_cluster(ctx, cluster)


def _dump_type(record: DumpRecord) -> tuple[str, int | None]:
    """The record's type and version as the dump prints them (a control record's version is
    its own field; up to 3.9 the tool prints a control record's type only)."""
    assert record.json is not None
    if record.label == "payload":
        return record.json["type"], record.json["version"]
    return str(record.label), record.json.get("version")


@dataclass
class Ingested:
    ctx: JobContext
    report: StageReport
    bronze: dict[tuple[str, int], Any]
    silver: dict[tuple[str, int], Any]


@pytest.fixture(scope="module")
def ingested(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Ingested:
    ctx = _context(spark, tmp_path_factory.mktemp("kraft") / "lh")
    report = _ingest(ctx, *(capture / "metadata" for capture in KRAFT))
    bronze = (
        ctx.lakehouse.read(KRAFT_RECORDS)
        .withColumn("ms", F.unix_millis("timestamp"))
        .drop("key", "value", "timestamp")
        .collect()
    )
    silver = ctx.lakehouse.read(KRAFT_CHANGES).collect()
    return Ingested(
        ctx,
        report,
        {(r.file, r.offset): r for r in bronze},
        {(r.file, r.offset): r for r in silver},
    )


def test_every_capture_file_is_read_and_the_rest_counted(ingested: Ingested) -> None:
    assert len(DUMPS) >= len(KRAFT) + 3, "a capture with snapshots and several segments"
    assert any(path.endswith(".checkpoint") for path in DUMPS)
    stats = ingested.ctx.lakehouse.read(KRAFT_INGEST_STATS).collect()
    assert {s.file for s in stats} == set(DUMPS)
    for s in stats:
        assert s.problems == [] and s.read_start == 0 and s.read_end == s.size_bytes
        assert s.file_kind == ("snapshot" if s.file.endswith(".checkpoint") else "segment")
        assert s.batch_bytes == s.size_bytes and s.batches == len(DUMPS[s.file])
        assert s.records == s.records_decoded == sum(len(b.records) for b in DUMPS[s.file])
    others = sum(1 for c in KRAFT for p in (c / "metadata").iterdir() if str(p) not in DUMPS)
    assert f"{others} file(s) neither segment nor snapshot, skipped" in ingested.report.notes[0]


def test_bronze_holds_every_record_of_every_batch_as_kafka_dump_log_prints_it(
    ingested: Ingested,
) -> None:
    per_batch = Counter((file, r.batch_position) for (file, _), r in ingested.bronze.items())
    expected = Counter(
        {
            (path, int(batch.fields["position"])): len(batch.records)
            for path, dump in DUMPS.items()
            for batch in dump
        }
    )
    assert per_batch == expected
    control_only = 0
    for path, dump in DUMPS.items():
        for batch in dump:
            for record in batch.records:
                row = ingested.bronze[(path, record.offset)]
                where = f"{path} offset {record.offset}"
                assert row.ms == int(record.fields["CreateTime"]), where
                assert row.partition_leader_epoch == int(batch.fields["partitionLeaderEpoch"])
                assert row.base_offset == int(batch.fields["baseOffset"]), where
                assert row.is_control == (batch.fields["isControl"] == "true"), where
                assert row.crc_valid and row.file_kind in ("segment", "snapshot"), where
                if record.json is None:  # up to 3.9: "controlType: LEADER_CHANGE(2)" only
                    name = record.fields["controlType"].split("(")[0].replace("_", "")
                    assert row.record_type.lower() == name.lower(), where
                    control_only += 1
                    continue
                assert (row.record_type, row.record_version) == _dump_type(record), where
    assert control_only > 0, "the 3.9 capture's control records are checked by name"


def test_silver_decodes_every_record_into_the_dumps_json_and_typed_columns(
    ingested: Ingested,
) -> None:
    assert ingested.silver.keys() == ingested.bronze.keys()
    assert all(r.problem is None and r.crc_valid for r in ingested.silver.values())
    topics = {
        r.json["data"]["topicId"]: r.json["data"]["name"]
        for dump in DUMPS.values()
        for b in dump
        for r in b.records
        if r.json is not None and r.json.get("type") == "TOPIC_RECORD"
    }
    checked: Counter[str] = Counter()
    for path, dump in DUMPS.items():
        for batch in dump:
            for record in batch.records:
                if record.json is None:
                    continue
                row = ingested.silver[(path, record.offset)]
                kind, _ = _dump_type(record)
                data = record.json["data"] if record.label == "payload" else record.json
                assert json.loads(row.data_json) == data, f"{path} offset {record.offset}"
                if _typed_columns_agree(kind, row, data, topics):
                    checked[kind] += 1
    assert checked.keys() >= {
        "PARTITION_RECORD",
        "PARTITION_CHANGE_RECORD",
        "REGISTER_BROKER_RECORD",
        "BROKER_REGISTRATION_CHANGE_RECORD",
        "CONFIG_RECORD",
        "FEATURE_LEVEL_RECORD",
        "TOPIC_RECORD",
        "LeaderChange",
    }, checked


def _typed_columns_agree(kind: str, row: Any, data: dict[str, Any], topics: dict[str, str]) -> bool:
    """Assert that the row's typed columns are the dump's fields; False for other types."""
    if kind in ("PARTITION_RECORD", "PARTITION_CHANGE_RECORD"):
        assert (row.topic_id, row.partition) == (data["topicId"], data["partitionId"])
        assert row.topic == topics[data["topicId"]]
        assert row.isr == data.get("isr") and row.replicas == data.get("replicas")
        assert row.leader == data.get("leader")
        assert row.directories == data.get("directories")
        assert row.eligible_leader_replicas == data.get("eligibleLeaderReplicas")
        assert row.last_known_elr == data.get("lastKnownElr")
        assert row.removing_replicas == data.get("removingReplicas")
        if kind == "PARTITION_RECORD":
            assert (row.leader_epoch, row.partition_epoch) == (
                data["leaderEpoch"],
                data["partitionEpoch"],
            )
            assert row.leader_recovery_state == data.get("leaderRecoveryState", 0)
        else:
            assert row.leader_recovery_state == data.get("leaderRecoveryState")
            assert row.leader_epoch is None and row.partition_epoch is None
    elif kind == "TOPIC_RECORD":
        assert (row.topic, row.topic_id) == (data["name"], data["topicId"])
    elif kind == "REGISTER_BROKER_RECORD":
        assert (row.broker_id, row.broker_epoch) == (data["brokerId"], data["brokerEpoch"])
        assert row.fenced == data["fenced"]
        assert row.in_controlled_shutdown == data.get("inControlledShutdown")
    elif kind == "BROKER_REGISTRATION_CHANGE_RECORD":
        assert (row.broker_id, row.broker_epoch) == (data["brokerId"], data["brokerEpoch"])
        assert row.fenced == {1: True, -1: False}.get(data.get("fenced", 0))
        assert row.in_controlled_shutdown == ({1: True}.get(data.get("inControlledShutdown", 0)))
    elif kind == "CONFIG_RECORD":
        assert row.config_resource_type == {2: "TOPIC", 4: "BROKER"}[data["resourceType"]]
        assert row.config_resource_name == data["resourceName"]
        assert (row.config_name, row.config_value) == (data["name"], data.get("value"))
    elif kind == "FEATURE_LEVEL_RECORD":
        assert (row.feature_name, row.feature_level) == (data["name"], data["featureLevel"])
    elif kind == "LeaderChange":
        assert row.raft_leader_id == data["leaderId"]
        assert row.voters == [v["voterId"] for v in data["voters"]]
    else:
        return False
    assert row.kind == ("control" if kind == "LeaderChange" else "metadata")
    return True


def test_reingesting_the_same_input_adds_nothing(ingested: Ingested) -> None:
    lakehouse = ingested.ctx.lakehouse
    before = {spec.name: lakehouse.row_count(spec) for spec in (KRAFT_RECORDS, KRAFT_CHANGES)}
    again = _ingest(ingested.ctx, *(capture / "metadata" for capture in KRAFT))
    assert again.rows_written == {}
    assert f"{len(DUMPS)} file(s) already ingested, skipped" in again.notes
    assert "nothing new" in again.notes
    after = {spec.name: lakehouse.row_count(spec) for spec in (KRAFT_RECORDS, KRAFT_CHANGES)}
    assert after == before


def _positions(dump: list[DumpBatch]) -> list[int]:
    return [int(batch.fields["position"]) for batch in dump]


def _records_before(dump: list[DumpBatch], position: int) -> list[int]:
    return [r.offset for b in dump if int(b.fields["position"]) < position for r in b.records]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_growing_segment_is_read_where_the_last_run_stopped_and_a_rewritten_one_again(
    spark: SparkSession, tmp_path: Path, engine: str
) -> None:
    source = CAPTURES / "rolling-restart-4.1.1-kraft" / "metadata" / SEGMENT
    whole, dump = source.read_bytes(), DUMPS[str(source)]
    positions = _positions(dump)
    boundary, cut = positions[len(positions) // 3], positions[2 * len(positions) // 3]
    segment = tmp_path / "__cluster_metadata-0" / SEGMENT
    segment.parent.mkdir()
    ctx = _context(spark, tmp_path / "lh", engine)

    def offsets() -> list[int]:
        rows = ctx.lakehouse.read(KRAFT_RECORDS).filter(F.col("file") == str(segment))
        return sorted(r.offset for r in rows.select("offset").collect())

    segment.write_bytes(whole[:boundary])  # a prefix cut at a batch boundary
    _ingest(ctx, segment.parent)
    assert offsets() == _records_before(dump, boundary)
    segment.write_bytes(whole[: cut + 30])  # grown, and now ending in a batch being written
    report = _ingest(ctx, segment.parent)
    assert f"{segment}: grew, read from byte {boundary}" in report.notes
    assert any(n.startswith(f"{segment}: byte {cut}: truncated: ") for n in report.notes)
    assert offsets() == _records_before(dump, cut)
    segment.write_bytes(whole)
    report = _ingest(ctx, segment.parent)
    assert f"{segment}: grew, read from byte {cut}" in report.notes
    every = sorted(r.offset for b in dump for r in b.records)
    assert offsets() == every, "every record once"
    changes = ctx.lakehouse.read(KRAFT_CHANGES).filter(F.col("file") == str(segment))
    assert sorted(r.offset for r in changes.select("offset").collect()) == every
    partitions = changes.filter(F.col("partition").isNotNull())
    assert partitions.filter(F.col("topic").isNull()).count() == 0, "named from earlier runs"
    stats = ctx.lakehouse.read(KRAFT_INGEST_STATS).orderBy("read_start").collect()
    assert [(s.read_start, s.read_end, s.size_bytes) for s in stats] == [
        (0, boundary, boundary),
        (boundary, cut, cut + 30),
        (cut, len(whole), len(whole)),
    ]
    assert [p.kind for p in stats[1].problems] == ["truncated"]

    other = CAPTURES / "failed-election-4.1.1-kraft" / "metadata" / SEGMENT
    shutil.copy(other, segment)  # rewritten: not a continuation of what was read
    report = _ingest(ctx, segment.parent)
    assert f"{segment}: rewritten since it was read, read again" in report.notes
    assert offsets() == sorted(r.offset for b in DUMPS[str(other)] for r in b.records)
    (only,) = ctx.lakehouse.read(KRAFT_INGEST_STATS).collect()
    assert (only.read_start, only.content_sha256) == (0, _sha256(other))
    assert ctx.lakehouse.read(KRAFT_CHANGES).count() == len(offsets())


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class Damaged:
    truncated: Path
    flipped: Path
    garbage: Path
    empty: Path
    cut: int
    unreadable: int
    mismatched: int


@pytest.fixture
def damaged(tmp_path: Path) -> Iterator[Damaged]:
    directory = tmp_path / "__cluster_metadata-0"
    directory.mkdir()
    truncate_source = CAPTURES / "unclean-election-4.1.1-kraft" / "metadata" / SEGMENT
    cut = _positions(DUMPS[str(truncate_source)])[100]
    truncated = directory / "00000000000000000000.log"
    truncated.write_bytes(truncate_source.read_bytes()[: cut + 40])

    flip_source = CAPTURES / "broker-crash-4.1.1-kraft" / "metadata" / SEGMENT
    data = bytearray(flip_source.read_bytes())
    batches = scan(bytes(data)).batches
    unreadable = batches[50].position
    data[unreadable + 16] ^= 0x40  # the magic byte: no batch starts there any more
    target = next(b for b in batches[80:] if not b.is_control)
    value = target.records[0].value
    assert value is not None
    data[data.index(value, target.records[0].position)] ^= 0x01  # frame version 1 -> 0
    flipped = directory / "00000000000000001000.log"
    flipped.write_bytes(bytes(data))

    garbage = directory / "00000000000000002000.log"
    garbage.write_bytes(bytes(range(256)) * 16)
    empty = directory / "00000000000000003000.log"
    empty.write_bytes(b"")
    (directory / "quorum-state").write_text("{}")
    (directory / "00000000000000000000.index").write_bytes(b"\0" * 8)
    yield Damaged(truncated, flipped, garbage, empty, cut, unreadable, target.position)


def test_damaged_files_never_fail_the_run_and_every_byte_is_accounted_for(
    spark: SparkSession, tmp_path: Path, damaged: Damaged
) -> None:
    empty_directory = tmp_path / "empty"
    empty_directory.mkdir()
    ctx = _context(spark, tmp_path / "lh")
    report = _ingest(ctx, damaged.truncated.parent, empty_directory)

    notes = "\n".join(report.notes)
    assert f"{damaged.truncated}: byte {damaged.cut}: truncated: " in notes
    assert f"{damaged.flipped}: byte {damaged.unreadable}: unreadable: magic " in notes
    assert f"{damaged.flipped}: byte {damaged.mismatched}: crc_mismatch: " in notes
    assert f"{damaged.garbage}: byte 0: " in notes
    assert f"{damaged.flipped}: 1 record(s) kept undecoded, the first at offset " in notes
    assert "2 file(s) neither segment nor snapshot, skipped" in notes

    stats = {Path(s.file): s for s in ctx.lakehouse.read(KRAFT_INGEST_STATS).collect()}
    assert set(stats) == {damaged.truncated, damaged.flipped, damaged.garbage, damaged.empty}
    for s in stats.values():
        skipped = sum(p.skipped for p in s.problems)
        assert s.size_bytes - s.read_start == s.batch_bytes + skipped, s.file
        assert s.records == s.records_decoded + s.records_undecoded, s.file
    bronze = ctx.lakehouse.read(KRAFT_RECORDS).collect()
    per_batch = Counter((Path(r.file), r.batch_position) for r in bronze)

    truncated = stats[damaged.truncated]
    assert [(p.position, p.kind) for p in truncated.problems] == [(damaged.cut, "truncated")]
    source = str(CAPTURES / "unclean-election-4.1.1-kraft" / "metadata" / SEGMENT)
    assert {p: n for (f, p), n in per_batch.items() if f == damaged.truncated} == {
        int(b.fields["position"]): len(b.records)
        for b in DUMPS[source]
        if int(b.fields["position"]) < damaged.cut
    }, "every batch before the cut"

    flipped = stats[damaged.flipped]
    assert [(p.position, p.kind) for p in flipped.problems] == [
        (damaged.unreadable, "unreadable"),
        (damaged.mismatched, "crc_mismatch"),
    ]
    assert (flipped.crc_mismatches, flipped.records_undecoded) == (1, 1)
    source = str(CAPTURES / "broker-crash-4.1.1-kraft" / "metadata" / SEGMENT)
    assert {p: n for (f, p), n in per_batch.items() if f == damaged.flipped} == {
        int(b.fields["position"]): len(b.records)
        for b in DUMPS[source]
        if int(b.fields["position"]) != damaged.unreadable
    }, "every batch before and after the damage"
    (undecoded,) = ctx.lakehouse.read(KRAFT_CHANGES).filter(F.col("problem").isNotNull()).collect()
    assert undecoded.file == str(damaged.flipped) and not undecoded.crc_valid
    assert "frame version 0" in undecoded.problem and undecoded.data_json is None

    garbage = stats[damaged.garbage]
    assert (garbage.batches, garbage.records, garbage.read_end) == (0, 0, 0)
    assert garbage.problems[0].position == 0
    empty = stats[damaged.empty]
    assert (empty.size_bytes, empty.batches, empty.problems) == (0, 0, [])

    again = _ingest(ctx, damaged.truncated.parent, empty_directory)
    assert again.rows_written == {}, "damaged files are ingested as far as they go, once"


def test_the_command_line_and_the_configuration(
    spark: SparkSession,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lakehouse = tmp_path / "lh"
    first = CAPTURES / "broker-crash-3.9.1-kraft" / "metadata"
    second = CAPTURES / "failed-election-4.1.1-kraft" / "metadata"
    conf = tmp_path / "audit.yaml"
    conf.write_text(
        "version: 1\n"
        f"lakehouse: {{path: {lakehouse}}}\n"
        "engine: delta-rs\n"
        f"clusters:\n  - name: k1\n    inputs: {{kraft_metadata: [{first}]}}\n"
    )
    assert cli_main(["--conf", str(conf), "ingest-kraft", "--cluster", "k1"]) == 0
    # run's own stage of the pipeline; the replay and the report are not this test's subject.
    monkeypatch.setattr(run, "STAGES", (stage_named("ingest-kraft"),))
    code = cli_main(["--conf", str(conf), "run", "--cluster", "k2", "--kraft", str(second)])
    assert code == 0, capsys.readouterr().err
    ctx = _context(spark, lakehouse)
    counts = {
        r.cluster: r["count"]
        for r in ctx.lakehouse.read(KRAFT_RECORDS).groupBy("cluster").count().collect()
    }
    assert counts == {
        "k1": sum(len(b.records) for b in DUMPS[str(first / SEGMENT)]),
        "k2": sum(len(b.records) for b in DUMPS[str(second / SEGMENT)]),
    }
    runs = {
        (r.cluster, r.stage): r
        for r in ctx.lakehouse.read(RUNS).filter(F.col("stage") == "ingest-kraft").collect()
    }
    assert runs[("k1", "ingest-kraft")].inputs == [str(first)]
    assert runs[("k2", "ingest-kraft")].inputs == [str(second)]
    assert all(r.status == "succeeded" for r in runs.values())
