"""The ingest-logs stage on small directories: accounting invariants, idempotent re-ingest, grown
files, rotated and gzipped copies, bad input, time zones, version hints and inference, layouts,
rebuild, and the command line.
"""

from __future__ import annotations

import gzip
import logging
import shutil
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs.cli import main as cli_main
from jobs.runtime.config import AppConfig, ClusterConfig, ClusterInputs, LakehouseConfig
from jobs.runtime.context import JobContext, new_run_id
from jobs.stages import ingest_logs
from jobs.stages.registry import StageReport
from kafkactl_core.grammars import (
    ParsedEvent,
    assemble_records,
    infer_version,
    parse_record,
    resolve_layout,
)
from kafkactl_core.versions import KafkaRelease
from schemas.logs import CONTROLLER_EVENTS, INGEST_STATS, LOG_RECORDS, QUARANTINE
from schemas.meta import INGESTED_FILES
from tests.helpers import assert_frames_equal
from tests.log_examples import EXAMPLES, example_lines, state_change_logs

pytestmark = pytest.mark.spark

needs_examples = pytest.mark.skipif(
    not EXAMPLES.is_dir(), reason="reference examples not found (set KAFKACTL_REFERENCE)"
)


def _context(spark: SparkSession, lakehouse: Path, cluster: ClusterConfig) -> JobContext:
    config = AppConfig(lakehouse=LakehouseConfig(path=str(lakehouse)), clusters=[cluster])
    return JobContext(config=config, spark_factory=lambda _: spark)


def _ingest(ctx: JobContext, cluster: ClusterConfig, **options: object) -> StageReport:
    """One ingestion run, with a run id of its own (as every command invocation has)."""
    ctx.run_id = new_run_id()
    return ingest_logs.run_for_cluster(ctx, cluster, options)


def _by_file(frame: DataFrame) -> dict[str, list]:
    out: dict[str, list] = {}
    for row in frame.collect():
        out.setdefault(Path(row.file).name, []).append(row)
    return out


def _check_accounting(ctx: JobContext, run_ids: Sequence[str] | None = None) -> None:
    """Per file and run: lines in == lines in bronze; records == parsed + ignored + quarantined,
    and each count is the number of rows of its table."""
    lakehouse = ctx.lakehouse
    stats = lakehouse.read(INGEST_STATS)
    if run_ids is not None:
        stats = stats.filter(F.col("run_id").isin(list(run_ids)))
    bronze = (
        lakehouse.read(LOG_RECORDS)
        .groupBy("file", "run_id")
        .agg(
            F.sum("line_count").alias("lines"),
            F.count(F.lit(1)).alias("rows"),
            F.count_if(F.col("status") == "parsed").alias("parsed_rows"),
            F.count_if(F.col("status") == "quarantined").alias("quarantined_rows"),
        )
    )
    events = lakehouse.read(CONTROLLER_EVENTS).groupBy("file", "run_id").count()
    quarantine = lakehouse.read(QUARANTINE).groupBy("file", "run_id").count()
    joined = (
        stats.join(bronze, ["file", "run_id"], "left")
        .join(events.withColumnRenamed("count", "events"), ["file", "run_id"], "left")
        .join(quarantine.withColumnRenamed("count", "quarantine"), ["file", "run_id"], "left")
        .collect()
    )
    assert joined
    for row in joined:
        where = f"{row.file} ({row.run_id})"
        assert row.physical_lines == (row.lines or 0), where
        assert row.records == row.parsed + row.ignored + row.quarantined == (row.rows or 0), where
        assert row.parsed == (row.events or 0) == (row.parsed_rows or 0), where
        assert row.quarantined == (row.quarantine or 0) == (row.quarantined_rows or 0), where
        assert sum(row.events_by_type.values()) == row.parsed, where
        assert sum(row.ignored_by_family.values()) == row.ignored, where
        assert sum(row.quarantined_by_reason.values()) == row.quarantined, where


@needs_examples
def test_reingest_resume_and_rotated_copies(
    spark: SparkSession, lakehouse_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small splits: every file is read by several Spark tasks that cut inside stack traces.
    monkeypatch.setattr(ingest_logs, "SPLIT_BYTES", 2048)
    logs = tmp_path / "logs"
    logs.mkdir()
    state_lines = example_lines("state-change.log.2.8")
    trace = ["java.lang.IllegalStateException: boom\n", "\tat kafka.X.y(X.scala:1)\n"]
    state_lines[20:20] = trace * 3
    first, rest = state_lines[:62], state_lines[62:]
    state = logs / "state-change.log"
    # The first run sees the 63rd line cut while it was being written (after its head).
    state.write_text("".join(first) + rest[0][:60])
    controller = logs / "controller.log"
    controller.write_text("".join(example_lines("controller.log.2.8")))
    cluster = ClusterConfig(name="life", inputs=ClusterInputs(logs=[str(logs)]))
    ctx = _context(spark, lakehouse_dir, cluster)

    first_run = _ingest(ctx, cluster)
    assert first_run.rows_written["silver.ingest_stats"] == 2
    _check_accounting(ctx)
    bronze = _by_file(ctx.lakehouse.read(LOG_RECORDS))
    state_rows = sorted(bronze["state-change.log"], key=lambda r: r.first_line)
    assert state_rows[-1].truncated and state_rows[-1].first_line == 63
    assert sum(r.line_count for r in state_rows) == 63
    assert {r.orphan_reason for r in state_rows} == {None}, "stack traces stay in their record"
    counts = {spec: ctx.lakehouse.row_count(spec) for spec in (LOG_RECORDS, CONTROLLER_EVENTS)}

    again = _ingest(ctx, cluster)
    assert again.rows_written == {}
    assert "2 file(s) already ingested, skipped" in again.notes
    assert {spec: ctx.lakehouse.row_count(spec) for spec in counts} == counts

    # The log grows (its cut line completed), and the controller log is rotated and gzipped.
    state.write_text("".join(state_lines))
    shutil.copy(controller, logs / "controller.log.1")
    (logs / "controller.log.2.gz").write_bytes(gzip.compress(controller.read_bytes()))
    grown = _ingest(ctx, cluster)
    assert "3 file(s) already ingested, skipped" in grown.notes
    assert grown.rows_written["silver.ingest_stats"] == 1
    stats = ctx.lakehouse.read(INGEST_STATS).filter(F.col("run_id") == ctx.run_id).collect()
    (resumed,) = [s for s in stats if s.file.endswith("state-change.log")]
    assert resumed.resumed_from_line == 63
    assert resumed.resumed_from_byte == len("".join(state_lines[:62]).encode())
    assert resumed.physical_lines == len(state_lines) - 62
    _check_accounting(ctx)
    new_rows = (
        ctx.lakehouse.read(LOG_RECORDS)
        .filter(F.col("file").endswith("state-change.log") & (F.col("run_id") == ctx.run_id))
        .orderBy("first_line")
        .collect()
    )
    assert new_rows[0].first_line == 63 and new_rows[0].text == state_lines[62].rstrip("\n")
    assert not new_rows[0].truncated


@needs_examples
def test_bad_input_is_quarantined_or_reported_and_the_run_goes_on(
    spark: SparkSession, lakehouse_dir: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "bad"
    logs.mkdir()
    good = example_lines("controller.log.2.8")
    (logs / "controller.log").write_text("".join(good))
    garbage_bytes = bytes(range(256)) * 40 + b"\n\x00\xff\n" * 5
    (logs / "server.log.1").write_bytes(garbage_bytes)
    (logs / "server.log.2").write_text('{"level": "INFO", "msg": "json lines"}\n' * 7)
    (logs / "state-change.log.1").write_bytes(b"")
    utf8 = good[2][:40] + "\udcff" + good[2][40:]
    long_message = good[0].replace("Starting", "Starting " + "x" * (3 << 20))
    (logs / "controller.log.1").write_bytes(
        utf8.encode("utf-8", "surrogateescape") + long_message.encode() + good[5].encode()
    )
    packed = gzip.compress("".join(example_lines("state-change.log.2.8") * 30).encode())
    (logs / "state-change.log.2.gz").write_bytes(packed[: len(packed) // 2])
    cluster = ClusterConfig(name="bad", inputs=ClusterInputs(logs=[str(logs)]))
    ctx = _context(spark, lakehouse_dir, cluster)

    report = _ingest(ctx, cluster)
    assert report.rows_written["silver.ingest_stats"] == 6
    _check_accounting(ctx)
    stats = {Path(r.file).name: r for r in ctx.lakehouse.read(INGEST_STATS).collect()}
    assert stats["controller.log"].parsed > 40 and stats["controller.log"].error is None
    garbage = stats["server.log.1"]
    assert garbage.layout_source == "fallback"
    assert garbage.physical_lines == garbage_bytes.count(b"\n")
    assert garbage.records == garbage.quarantined == 1
    assert garbage.quarantined_by_reason == {"orphan_continuation": 1}
    unknown = stats["server.log.2"]
    assert unknown.layout_source == "fallback" and unknown.quarantined_by_reason == {
        "orphan_continuation": 1
    }
    empty = stats["state-change.log.1"]
    assert (empty.physical_lines, empty.records, empty.error) == (0, 0, None)
    mixed = stats["controller.log.1"]
    assert mixed.quarantined_by_reason == {"invalid_utf8": 1, "no_grammar": 1}
    assert mixed.records == 3 and mixed.parsed + mixed.ignored == 1
    cut = stats["state-change.log.2.gz"]
    assert "cut short" in cut.error and cut.physical_lines > 100 and cut.parsed > 100
    bronze = _by_file(ctx.lakehouse.read(LOG_RECORDS))
    assert max(len(r.text) for r in bronze["controller.log.1"]) > 3 << 20
    assert [r.invalid_utf8 for r in bronze["controller.log.1"]].count(True) == 1
    quarantine = _by_file(ctx.lakehouse.read(QUARANTINE))
    bad_utf8 = [q for q in quarantine["controller.log.1"] if q.reason == "invalid_utf8"]
    assert len(bad_utf8) == 1 and "\ufffd" in bad_utf8[0].text and bad_utf8[0].level == "INFO"

    # Empty and damaged files are recorded: a second run reads nothing.
    again = _ingest(ctx, cluster)
    assert again.rows_written == {} and "6 file(s) already ingested, skipped" in again.notes
    assert ctx.lakehouse.row_count(INGESTED_FILES) == 6


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """The CLI configures logging onto the (captured) stderr; put the test's setup back."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.usefixtures("restore_logging")
@needs_examples
def test_time_zone_version_hint_and_the_command_line(
    spark: SparkSession, lakehouse_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "berlin"
    logs.mkdir()
    state_28 = example_lines("state-change.log.2.8")
    change = next(line for line in state_28 if "with state LeaderAndIsr(" in line)
    winter = change.replace(change[1:24], "2024-01-15 10:00:00,000")
    summer = change.replace(change[1:24], "2024-07-15 10:00:00,250")
    newer = next(
        line for line in example_lines("state-change.log.3.5") if "isrWithBrokerEpoch" in line
    )
    (logs / "state-change.log").write_text(winter + summer + newer)
    conf = tmp_path / "audit.yaml"
    conf.write_text(
        "version: 1\n"
        f"lakehouse: {{path: {lakehouse_dir}}}\n"
        "clusters:\n"
        "  - name: berlin\n"
        "    timezone: Europe/Berlin\n"
        "    kafka_version: '2.8'\n"
        "    log_layout: kafka\n"
        f"    inputs: {{logs: [{logs}]}}\n"
    )
    assert cli_main(["--conf", str(conf), "ingest-logs", "--cluster", "berlin"]) == 0
    cluster = ClusterConfig(name="berlin")
    ctx = _context(spark, lakehouse_dir, cluster)
    events = (
        ctx.lakehouse.read(CONTROLLER_EVENTS)
        .select("log_time_text", "log_time", "version_conflict", "grammar")
        .orderBy("first_line")
    )
    expected = spark.createDataFrame(
        [
            ("2024-01-15 10:00:00,000", "2024-01-15 09:00:00", False),
            ("2024-07-15 10:00:00,250", "2024-07-15 08:00:00.25", False),
            (newer[1:24], None, True),
        ],
        "log_time_text string, utc string, version_conflict boolean",
    )
    got = events.select(
        "log_time_text", F.col("log_time").cast("string").alias("utc"), "version_conflict"
    )
    assert_frames_equal(
        got.filter(F.col("log_time_text").startswith("2024")),
        expected.filter(F.col("log_time_text").startswith("2024")),
        order_by=["log_time_text"],
    )
    assert events.filter("version_conflict").first().grammar.endswith("3.5")
    (stats,) = ctx.lakehouse.read(INGEST_STATS).collect()
    assert stats.version_hint == "2.8" and stats.layout_source == "config"

    # A cluster named only on the command line: the embedded defaults (auto, UTC).
    other = tmp_path / "other"
    other.mkdir()
    (other / "controller.log").write_text("".join(example_lines("controller.log.3.5")))
    code = cli_main(
        [
            "--conf",
            str(conf),
            "--lakehouse",
            str(lakehouse_dir),
            "ingest-logs",
            "--cluster",
            "c2",
            str(other),
        ]
    )
    assert code == 0, capsys.readouterr().err
    (auto,) = ctx.lakehouse.read(INGEST_STATS).filter(F.col("cluster") == "c2").collect()
    assert auto.version_hint is None and auto.inferred_versions == "[3.5, current)"
    assert auto.layout_source == "detected" and auto.inferred_mode == "zk"


@needs_examples
def test_strimzi_layout_auto_inference_and_rebuild(
    spark: SparkSession, lakehouse_dir: Path, tmp_path: Path
) -> None:
    logs = state_change_logs(tmp_path / "strimzi", strimzi_lines=40)
    cluster = ClusterConfig(name="strimzi", inputs=ClusterInputs(logs=[str(logs)]))
    ctx = _context(spark, lakehouse_dir, cluster)
    _ingest(ctx, cluster)
    stats = {Path(r.file).name: r for r in ctx.lakehouse.read(INGEST_STATS).collect()}
    strimzi = stats["state-change.log"]
    assert strimzi.layout == "%d{yyyy-MM-dd HH:mm:ss,SSS} %p %m (%c) [%t]%n"
    assert strimzi.quarantined == 0 and strimzi.parsed == 40
    grammars = Counter(
        outcome.grammar
        for record in assemble_records(
            (logs / "state-change.log").open("rb"), resolve_layout("strimzi")
        )
        if isinstance(outcome := parse_record(record), ParsedEvent)
    )
    assert strimzi.inferred_versions == str(infer_version(grammars).versions)
    assert infer_version(grammars).contains(KafkaRelease.parse("2.4")), "rendered from 2.4"
    threads = ctx.lakehouse.read(CONTROLLER_EVENTS).filter(
        F.col("file").endswith("state-change.log")
    )
    assert {r.thread for r in threads.select("thread").distinct().collect()} == {
        "controller-event-thread"
    }
    # Auto: the variants a file matched outside its inferred range are version conflicts.
    upgraded = stats["state-change.log.1"]
    assert upgraded.layout == "[%d] %p %m (%c)%n" and upgraded.inferred_versions == "[1.0, 1.1)"
    assert upgraded.version_conflicts
    conflicts = ctx.lakehouse.read(CONTROLLER_EVENTS).filter(
        F.col("file").endswith("state-change.log.1") & F.col("version_conflict")
    )
    assert conflicts.count() > 0
    names = {text.split(" ")[0] for text in upgraded.version_conflicts}
    assert {r.grammar for r in conflicts.select("grammar").distinct().collect()} <= names

    counts = {s: ctx.lakehouse.row_count(s) for s in (LOG_RECORDS, CONTROLLER_EVENTS, INGEST_STATS)}
    rebuilt = _ingest(ctx, cluster, rebuild=True)
    assert rebuilt.rows_written["bronze.log_records"] == counts[LOG_RECORDS]
    assert {s: ctx.lakehouse.row_count(s) for s in counts} == counts
    assert ctx.lakehouse.read(LOG_RECORDS).select("run_id").distinct().count() == 1
