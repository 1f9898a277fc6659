"""The two ways ingest-logs can run write the same four tables.

* one pass per task (delta-rs: read, parse and write Parquet in the task);
* the parsed records handed to Spark, written by ``write_tables`` (what the delta-spark engine
  does).

The inputs mix what each path must get right: several layouts, a file whose variants conflict
with its inferred release (``kafka_version: auto``: the one-pass path rewrites those events
files), a configured release, and bad records (orphans, invalid UTF-8, a truncated last line, a
field that does not convert, a foreign logger).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs.lakehouse.port import WriteMode
from jobs.logparse.parse_contract import TrialOrder
from jobs.runtime.config import AppConfig, ClusterConfig, ClusterInputs, LakehouseConfig
from jobs.runtime.context import JobContext
from jobs.stages import ingest_logs
from schemas.catalog import TableSpec
from schemas.logs import BROKER_CONFIGS, CONTROLLER_EVENTS, INGEST_STATS, LOG_RECORDS, QUARANTINE
from tests.helpers import assert_frames_equal
from tests.log_examples import EXAMPLES, example_lines, state_change_logs

pytestmark = pytest.mark.spark

needs_examples = pytest.mark.skipif(
    not EXAMPLES.is_dir(), reason="reference examples not found (set KAFKACTL_REFERENCE)"
)
TABLES = (LOG_RECORDS, CONTROLLER_EVENTS, QUARANTINE, BROKER_CONFIGS, INGEST_STATS)
KEYS = {INGEST_STATS: ["file"], BROKER_CONFIGS: ["file", "line", "key"]}
SERVER_LOG = (
    Path(__file__).resolve().parents[1]
    / "fixtures/real-kafka/unclean-election-3.9.1-zk/brokers/2/server.log"
)
_VOLATILE = {"run_id", "ingested_at"}


def _inputs(root: Path) -> Path:
    logs = state_change_logs(root / "logs", strimzi_lines=30)
    controller = example_lines("controller.log.2.8")
    bad = [
        "orphan line before the first record\n",
        *controller[:20],
        "[2024-01-01 00:00:00,000] INFO [Controller id=1] New broker startup callback for "
        "99999999999999999999 (kafka.controller.KafkaController)\n",
        "[2024-01-01 00:00:01,000] INFO something else (org.apache.zookeeper.ClientCnxn)\n",
        "[2024-01-01 00:00:02,000] WARN no grammar for this (kafka.controller.KafkaController)\n",
        "\tat a.stack.Trace(Trace.java:1)\n",
    ]
    data = "".join(bad).encode() + b"[2024-01-01 00:00:03,000] INFO caf\xe9 (kafka.x)\n"
    (logs / "controller.log").write_bytes(data + b"[2024-01-01 00:00:04,000] INFO cut (kafka")
    # KafkaConfig blocks and Created-log lines: silver.broker_configs
    shutil.copy(SERVER_LOG, logs / "server.log")
    return logs


def _run(spark: SparkSession, root: Path, logs: Path, version: str, path: str) -> JobContext:
    cluster = ClusterConfig(
        name="paths", kafka_version=version, inputs=ClusterInputs(logs=[str(logs)])
    )
    config = AppConfig(lakehouse=LakehouseConfig(path=str(root / path)), clusters=[cluster])
    ctx = JobContext(config=config, spark_factory=lambda _: spark)
    if path == "one-pass":
        ingest_logs.run_for_cluster(ctx, cluster)
        return ctx
    plan = ingest_logs.plan_ingest(ctx, cluster, cluster.inputs.logs, rebuild=False)
    order = TrialOrder.for_hint(plan.hint)
    parsed = ingest_logs.parse_with_arrow(spark, plan, order, cluster.timezone)
    ingest_logs.write_tables(ctx, cluster, plan, parsed.cache(), WriteMode.append)
    return ctx


def _table(ctx: JobContext, spec: TableSpec) -> DataFrame:
    frame = ctx.lakehouse.read(spec)
    columns = [c for c in frame.columns if c not in _VOLATILE]
    # NaN is not equal to itself: compare ratios as text.
    return frame.select(
        *[F.col(c).cast("string").alias(c) if c == "ratio" else F.col(c) for c in columns]
    )


@needs_examples
@pytest.mark.parametrize("version", ["auto", "2.8"])
def test_one_pass_and_two_pass_paths_write_the_same_tables(
    spark: SparkSession, tmp_path: Path, version: str
) -> None:
    logs = _inputs(tmp_path)
    contexts = {
        path: _run(spark, tmp_path, logs, version, path) for path in ("one-pass", "two-pass")
    }
    one_pass = contexts["one-pass"]
    events = _table(one_pass, CONTROLLER_EVENTS)
    assert events.count() > 100
    if version == "auto":
        assert events.filter("version_conflict").count() > 0, "the mixed file has conflicts"
    reasons = {r.reason for r in _table(one_pass, QUARANTINE).select("reason").collect()}
    assert {"orphan_continuation", "invalid_utf8", "no_grammar"} <= reasons
    assert any(r.startswith("field_conversion") for r in reasons), reasons
    assert _table(one_pass, BROKER_CONFIGS).filter("scope = 'topic'").count() == 0  # {} only
    assert _table(one_pass, BROKER_CONFIGS).filter("name = '2'").count() > 300
    # the configuration records are used (events), not ignored as another logger's noise
    (server,) = _table(one_pass, INGEST_STATS).filter("file LIKE '%server.log'").collect()
    used = server.events_by_type
    assert (used["broker_config_logged"], used["topic_config_logged"]) == (2, 1)
    for spec in TABLES:
        expected = _table(one_pass, spec)
        key = KEYS.get(spec, ["file", "first_line"])
        assert_frames_equal(_table(contexts["two-pass"], spec), expected, order_by=key)
    for path in contexts:
        shutil.rmtree(tmp_path / path)
