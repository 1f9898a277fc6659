"""Parity: the JVM executor (reader + layout + grammars in Spark SQL) and the Python executor
(``assemble_records`` + ``parse_record``) give identical outcomes for every record of every file
in ``reference/examples`` and ``reference/real-logs``: the record cut (lines, text, flags), the
status, reason and detail, the grammar, event type and family, the version conflict, the head
(timestamp, level, logger, thread) and every event field.

Two runs: without a version hint through the reader's C-level path, and with the 2.8 hint (other
trial order, version conflicts) through the reader's core-assembler path.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    BooleanType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from jobs.config import AppConfig, ClusterConfig, ClusterInputs, LakehouseConfig
from jobs.context import JobContext
from jobs.grammar_sql import FIELD_NAMES, TrialOrder
from jobs.ingest_logs import parse_records, plan_ingest, read_records
from jobs.log_reader import ReaderSettings
from kafkactl_core.grammars import (
    EVENT_FIELDS,
    assemble_records,
    parse_record,
    resolve_layout,
)
from kafkactl_core.versions import KafkaRelease
from schemas.logs import spark_type
from tests.conftest import reference_dir
from tests.grammar_rows import reference_row
from tests.helpers import assert_frames_equal

pytestmark = pytest.mark.spark

FILES = sorted((reference_dir() / "examples").glob("*.log.*")) + sorted(
    (reference_dir() / "real-logs").glob("*.log")
)
LAYOUT = resolve_layout("kafka")

COMPARED = StructType(
    [
        StructField("file_index", IntegerType()),
        StructField("first_line", LongType()),
        StructField("line_count", LongType()),
        StructField("text", StringType()),
        StructField("orphan_reason", StringType()),
        StructField("invalid_utf8", BooleanType()),
        StructField("truncated", BooleanType()),
        StructField("status", StringType()),
        StructField("reason", StringType()),
        StructField("reason_detail", StringType()),
        StructField("grammar", StringType()),
        StructField("event_type", StringType()),
        StructField("family", StringType()),
        StructField("version_conflict", BooleanType()),
        StructField("log_time", TimestampType()),
        StructField("log_time_text", StringType()),
        StructField("level", StringType()),
        StructField("logger", StringType()),
        StructField("thread", StringType()),
        *[StructField(name, spark_type(kind)) for name, kind in EVENT_FIELDS.items()],
    ]
)


def _comparable(frame: DataFrame) -> DataFrame:
    """NaN is not equal to itself: compare ratios as text."""
    return frame.withColumn("ratio", F.col("ratio").cast("string"))


def _python_frame(spark: SparkSession, paths: list[Path], hint: str | None) -> DataFrame:
    release = KafkaRelease.parse(hint) if hint else None
    rows = []
    for index, path in enumerate(paths):
        with path.open("rb") as handle:
            for record in assemble_records(handle, LAYOUT):
                outcome = parse_record(record, release)
                rows.append(reference_row(index, record, outcome, record.timestamp))
    return _comparable(spark.createDataFrame(rows, COMPARED))


def _jvm_frame(
    spark: SparkSession, tmp_path: Path, hint: str | None, exact: bool, files: list[Path] = FILES
) -> DataFrame:
    cluster = ClusterConfig(
        name="parity",
        kafka_version=hint or "auto",
        log_layout="auto" if files is FILES else "kafka",
        inputs=ClusterInputs(logs=[str(p) for p in files]),
    )
    config = AppConfig(lakehouse=LakehouseConfig(path=str(tmp_path / "lh")), clusters=[cluster])
    ctx = JobContext(config=config, spark_factory=lambda _: spark)
    plan = plan_ingest(ctx, cluster, cluster.inputs.logs, rebuild=True)
    assert [Path(w.file.path) for w in plan.works] == files
    assert {w.layout_source for w in plan.works} == {"detected" if files is FILES else "config"}
    order = TrialOrder.for_hint(plan.hint)
    settings = ReaderSettings(version_hint=hint, exact_only=exact, region_bytes=4096)
    parsed = parse_records(read_records(spark, plan, order, settings), plan, order, "UTC")
    parsed_only = F.col("status") == "parsed"
    frame = parsed.select(
        *[F.col(f.name).cast(f.dataType) for f in COMPARED.fields if f.name not in FIELD_NAMES],
        *[F.when(parsed_only, F.col(name)).alias(name) for name in FIELD_NAMES],
    )
    # One Spark job: compare a local copy, not a plan recomputed by every comparison step.
    return _comparable(spark.createDataFrame(frame.collect(), frame.schema))


@pytest.mark.skipif(not FILES, reason="reference logs not found (set KAFKACTL_REFERENCE)")
@pytest.mark.parametrize(
    ("hint", "exact"), [(None, False), ("2.8", True)], ids=["auto-fast-reader", "2.8-core-reader"]
)
def test_both_executors_agree_on_every_reference_record(
    spark: SparkSession, tmp_path: Path, hint: str | None, exact: bool
) -> None:
    actual = _jvm_frame(spark, tmp_path, hint, exact)
    expected = _python_frame(spark, FILES, hint)
    assert actual.count() == expected.count() > 4500
    assert_frames_equal(actual, expected, order_by=["file_index", "first_line"])
    statuses = {row.status for row in actual.select("status").distinct().collect()}
    assert statuses == {"parsed", "ignored", "quarantined"}
    if hint is not None:
        conflicts = actual.filter(F.col("version_conflict")).count()
        assert conflicts > 0, "files of other releases match entries outside 2.8's range"


def _line(
    message: str, logger: str = "state.change.logger", when: str = "2024-03-01 10:00:00,000"
) -> str:
    return f"[{when}] INFO {message} ({logger})\n"


def test_both_executors_agree_on_unusual_records(spark: SparkSession, tmp_path: Path) -> None:
    """Every quarantine reason and conversion rule, through both reader paths."""
    sc = "[Controller id=1 epoch=7] "
    lines = [
        _line(sc + "Changed partition orders-0 from NewPartition to OnlinePartition with state "
              "LeaderAndIsr(leader=1, leaderEpoch=0, isr=List(1, 2, 3), zkVersion=0)"),
        _line(sc + "Changed partition orders-1 from NewPartition to OnlinePartition with state "
              "LeaderAndIsr(leader=1, leaderEpoch=0, isr=List(), zkVersion=0)"),
        _line("[Controller id=99999999999999999999 epoch=7] Changed partition orders-2 state from "
              "NonExistentPartition to NewPartition with assigned replicas 1,2"),
        _line(sc + "Changed partition orders-3 from NewPartition to OnlinePartition with state "
              "LeaderAndIsr(leader=1, leaderEpoch=0, isr=List(1, 99999999999999999999), "
              "zkVersion=0)"),
        _line("[Controller id=2] Leader imbalance ratio for broker 1 is NaN",
              "kafka.controller.KafkaController"),
        _line("[Controller id=2] Leader imbalance ratio for broker 3 is 1.0E-4",
              "kafka.controller.KafkaController"),
        _line(sc + "Changed partition orders-4 state from NonExistentPartition to NewPartition "
              "with assigned replicas 1,2", when="2024-02-30 10:00:00,000"),
        _line("Some unknown audited message", "kafka.controller.KafkaController"),
        _line("Loading logs from /var/kafka", "kafka.log.LogManager"),
        "[2024-03-01 10:00:00,000] WARN a message without its logger\n",
        "[2024-03-01 10:00:00,000] INFO [Controller id=1] Newly added brokers: 3, deleted\n",
        "brokers: , bounced brokers: , all live brokers: 1,2,3"
        " (kafka.controller.KafkaController)\n",
        _line(sc + "Changed partition caf\u00e9-0 state from NonExistentPartition to NewPartition "
              "with assigned replicas 1"),
        _line("").replace("INFO  (", "INFO  ("),
        _line(sc + "Sending UpdateMetadata request to brokers HashSet(1, 2) for 4 partitions")
        .replace("\n", "\r\n"),
    ]  # fmt: skip
    data = "".join(lines).encode("utf-8")
    head = ("[2024-03-01 10:00:01,000] INFO " + sc).encode()
    data += head + b"Changed \xff partition x (state.change.logger)\n"
    data += b"[2024-03-01 10:00:02,000] INFO truncated at the end without its"
    path = tmp_path / "controller.log"
    path.write_bytes(data)
    expected = _python_frame(spark, [path], "2.8")
    reasons = {r.reason for r in expected.select("reason").distinct().collect()}
    assert {
        "field_conversion: origin_broker",
        "field_conversion: isr",
        "bad_timestamp",
        "no_grammar",
        "missing_tail",
        "invalid_utf8",
        "truncated_record",
    } <= reasons
    for exact in (False, True):
        actual = _jvm_frame(spark, tmp_path / str(exact), "2.8", exact, [path])
        assert_frames_equal(actual, expected, order_by=["file_index", "first_line"])


def test_the_field_separator_in_a_record_is_quarantined(
    spark: SparkSession, tmp_path: Path
) -> None:
    """The one documented difference: U+001F is the executor's field delimiter."""
    path = tmp_path / "state-change.log"
    path.write_text(_line("[Controller id=1 epoch=7] Sending UpdateMetadata request to brokers "
                          "HashSet(1) for 4 partitions\x1f"))  # fmt: skip
    (row,) = _jvm_frame(spark, tmp_path, None, False, [path]).collect()
    assert (row.status, row.reason) == ("quarantined", "unsupported_control_character")


def test_timestamps_of_a_layout_with_names_and_12_hour_clock(spark: SparkSession) -> None:
    """A %d option read by regex (month names, h/a) converts as TimestampFormat.parse does."""
    from jobs.layout_sql import timestamp_column
    from kafkactl_core.grammars.timestamps import TimestampFormat

    cases = {
        "dd MMM yyyy hh:mm:ss,SSS a": [
            "05 Mar 2024 01:02:03,004 PM",
            "31 Feb 2024 01:02:03,004 AM",
        ],
        "yyyyMMddHHmmssSSS": ["20240305130203004", "20241305130203004"],
        "yy-M-d H:m:s.SSSS": ["24-3-5 13:2:3.0045", "24-3-5 24:2:3.0045"],
        "ISO8601": ["2024-03-05T13:02:03,004", "2024-03-05 13:02:60,004"],
        "yyyy-MM-dd HH:mm:ss,S": ["2024-03-05 13:02:03,7"],
    }
    for option, texts in cases.items():
        fmt = TimestampFormat.compile(option)
        frame = spark.createDataFrame([(t,) for t in texts], "text string")
        got = [
            r.ts
            for r in frame.select(timestamp_column(fmt, F.col("text"), "UTC").alias("ts")).collect()
        ]
        expected: list[datetime | None] = [fmt.parse(text) for text in texts]
        assert got == expected, option
