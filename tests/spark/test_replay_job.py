"""The replay stage on Spark: same rows as the no-Spark path, re-runs replace, what-if, notes.

Input: real Kafka logs (``reference/real-logs``, see its INDEX.md) of four clusters of different
releases, parsed by the pure-Python grammar executor (``kafkactl_core.replay.local``) into
``silver.controller_events`` rows once for the module. The Spark job must give exactly the rows
of ``normalize_rows`` + ``build_timelines`` + ``replay`` on the same rows, also when Arrow
batches are tiny (each partition's fold state carried across batches).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType

from jobs.cli import UsageError
from jobs.lakehouse.port import WriteMode
from jobs.runtime.config import AppConfig, ClusterConfig, LakehouseConfig
from jobs.runtime.context import JobContext
from jobs.stages.replay import run_for_cluster
from kafkactl_core.replay import (
    ReplaySettings,
    build_timelines,
    controller_event_rows,
    evaluate_what_if,
    normalize_rows,
    replay,
    with_what_if,
)
from kafkactl_core.versions import KafkaRelease
from schemas.catalog import TableSpec
from schemas.gold import ANOMALIES, ELECTIONS, PARTITION_TIMELINE, WHAT_IF
from schemas.logs import CONTROLLER_EVENTS
from tests.conftest import reference_dir
from tests.helpers import assert_frames_equal

pytestmark = pytest.mark.spark
REAL = reference_dir() / "real-logs"
CLUSTERS = {
    "adelciu": (
        "0.10.2",
        [
            "adelciu-0.10.2-controller-unclean.log",
            "adelciu-0.10.2-state-change-unclean-excerpt.log",
        ],
    ),
    "artridic": (
        "2.1.1",
        [
            "artridic-2.1.1-controller-brokerfail.log",
            "artridic-2.1.1-state-change-failover.log",
            "artridic-2.1.1-state-change-recovery.log",
            "artridic-2.1.1-server-isr.log",
        ],
    ),
    "ammar": (
        "4.0.0",
        [
            "ammar-4.0.0-kraft-controller-fencing.log",
            "ammar-4.0.0-kraft-controller-failover.log",
            "ammar-4.0.0-kraft-server-raft-isr.log",
        ],
    ),
    "cs3219": ("3.0.0", ["cs3219-3.0.0-controller-failover.log"]),
}
GOLD = (ELECTIONS, PARTITION_TIMELINE, ANOMALIES, WHAT_IF)


@dataclass
class Silver:
    """The module's lakehouse with every cluster's silver rows, and those rows."""

    config: AppConfig
    spark: SparkSession
    rows: dict[str, list[dict[str, Any]]]

    def context(self) -> JobContext:
        """A new run (own run id) on the shared lakehouse."""
        return JobContext(config=self.config, spark_factory=lambda _config: self.spark)


def _silver_row(row: dict[str, Any], run_id: str) -> tuple[Any, ...]:
    """A pure-executor row in ``silver.controller_events``' columns, as ingest-logs writes it."""
    ts = row["ts"]
    values = {
        **row,
        "log_time": ts if ts is None or ts.tzinfo else ts.replace(tzinfo=UTC),
        "line_count": 1,
        "evidence": f"{row['file']}:{row['first_line']}",
        "version_conflict": False,
        "run_id": run_id,
    }
    out = []
    for field in CONTROLLER_EVENTS.schema.fields:
        value = values.get(field.name)
        if isinstance(field.dataType, DoubleType) and value is not None:
            value = float(value)
        out.append(value)
    return tuple(out)


@pytest.fixture(scope="module")
def silver(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Silver]:
    if not REAL.is_dir():
        pytest.skip(f"no reference real logs at {REAL}")
    root: Path = tmp_path_factory.mktemp("replay-job")
    clusters = [ClusterConfig(name=name, kafka_version=v) for name, (v, _) in CLUSTERS.items()]
    config = AppConfig(
        lakehouse=LakehouseConfig(path=str(root / "lakehouse")),
        engine="delta-rs",
        clusters=clusters,
    )
    rows: dict[str, list[dict[str, Any]]] = {}
    table: list[tuple[Any, ...]] = []
    for name, (version, files) in CLUSTERS.items():
        rows[name] = [
            row
            for file in files
            for row in controller_event_rows(REAL / file, name, KafkaRelease.parse(version))
        ]
        table.extend(_silver_row(row, "ingest") for row in rows[name])
    ctx = JobContext(config=config, spark_factory=lambda _config: spark)
    frame = spark.createDataFrame(table, CONTROLLER_EVENTS.schema)
    ctx.lakehouse.write(frame, CONTROLLER_EVENTS, WriteMode.overwrite)
    yield Silver(config, spark, rows)


def _gold(ctx: JobContext, spec: TableSpec, cluster: str) -> DataFrame:
    return ctx.lakehouse.read(spec).filter(F.col("cluster") == cluster)


def _expected(
    spark: SparkSession, spec: TableSpec, records: list[Any], run_id: str, **extra: str
) -> DataFrame:
    names = spec.schema.fieldNames()
    rows = [{**r.to_row(), **extra, "run_id": run_id} for r in records]
    return spark.createDataFrame([tuple(r[n] for n in names) for r in rows], spec.schema)


def _local(silver: Silver, cluster: str) -> tuple[Any, Any, ReplaySettings]:
    """The no-Spark path on the same silver rows."""
    version = CLUSTERS[cluster][0]
    evidence, facts = normalize_rows(silver.rows[cluster])
    timelines = build_timelines(facts)
    settings = ReplaySettings.of(version)
    return replay(evidence, timelines, settings), timelines, settings


@pytest.mark.parametrize("cluster", sorted(CLUSTERS))
def test_spark_replay_equals_the_no_spark_path(silver: Silver, cluster: str) -> None:
    spark = silver.spark
    ctx = silver.context()
    config = ctx.config.cluster(cluster)
    # Tiny Arrow batches: every partition's evidence spans several batches of its task.
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "16")
    try:
        report = run_for_cluster(ctx, config)
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    out, timelines, _ = _local(silver, cluster)
    cluster_anomalies = timelines[cluster].anomalies() if cluster in timelines else []
    assert out.timeline
    expected = {
        ELECTIONS: (out.elections, {}),
        PARTITION_TIMELINE: (out.timeline, {"scenario": "actual"}),
        ANOMALIES: (out.anomalies + cluster_anomalies, {"scenario": "actual"}),
    }
    for spec, (records, extra) in expected.items():
        assert report.rows_written[spec.qualified_name] == len(records)
        frame = _expected(spark, spec, records, ctx.run_id, **extra)
        assert_frames_equal(_gold(ctx, spec, cluster), frame)
    assert report.rows_written[WHAT_IF.qualified_name] == 0
    assert report.notes[0].startswith(
        f"replayed under Kafka {KafkaRelease.parse(CLUSTERS[cluster][0])} rules (configured)"
    )


def test_rerunning_replaces_the_clusters_rows(silver: Silver) -> None:
    first, second = silver.context(), silver.context()
    run_for_cluster(first, first.config.cluster("artridic"))
    counts = {spec: _gold(first, spec, "artridic").count() for spec in GOLD}
    report = run_for_cluster(second, second.config.cluster("artridic"))
    for spec in GOLD:
        frame = _gold(second, spec, "artridic")
        assert frame.count() == counts[spec] == report.rows_written[spec.qualified_name]
        assert {r.run_id for r in frame.select("run_id").distinct().collect()} <= {second.run_id}


def test_what_if_replays_the_same_evidence_under_the_scenario(silver: Silver) -> None:
    spark = silver.spark
    ctx = silver.context()
    overrides = ["unclean.leader.election.enable=false"]
    report = run_for_cluster(ctx, ctx.config.cluster("adelciu"), {"what_if": overrides})
    out, timelines, settings = _local(silver, "adelciu")
    scenario, _ = with_what_if(settings, overrides)
    name = "what-if:unclean.leader.election.enable=false"
    assert scenario.scenario == name and any(name in note for note in report.notes)

    changed = evaluate_what_if(out.elections, timelines, scenario)
    # The three real unclean elections of 2021-04-28 would not have happened.
    assert sorted((r.topic, r.partition) for r in changed if r.actual_unclean) == [
        ("dns_kafka_topic", 0),
        ("dns_kafka_topic", 1),
        ("dns_kafka_topic", 2),
    ]
    assert all(r.would_happen is False for r in changed if r.actual_unclean)
    assert_frames_equal(
        _gold(ctx, WHAT_IF, "adelciu"), _expected(spark, WHAT_IF, changed, ctx.run_id)
    )
    replayed = replay(normalize_rows(silver.rows["adelciu"])[0], timelines, scenario)
    assert_frames_equal(
        _gold(ctx, ELECTIONS, "adelciu").filter(F.col("scenario") == name),
        _expected(spark, ELECTIONS, replayed.elections, ctx.run_id),
    )
    scenarios = {
        r.scenario
        for r in _gold(ctx, PARTITION_TIMELINE, "adelciu").select("scenario").distinct().collect()
    }
    assert scenarios == {"actual", name}


def test_a_bad_what_if_is_one_line_before_anything_is_written(silver: Silver) -> None:
    ctx = silver.context()
    before = ctx.lakehouse.row_count(ELECTIONS)
    with pytest.raises(UsageError, match=r"^--what-if 'no.such.key=1': no.such.key is not a key"):
        run_for_cluster(ctx, ctx.config.cluster("cs3219"), {"what_if": ["no.such.key=1"]})
    with pytest.raises(UsageError, match="takes true or false"):
        run_for_cluster(
            ctx, ctx.config.cluster("cs3219"), {"what_if": ["unclean.leader.election.enable=x"]}
        )
    assert ctx.lakehouse.row_count(ELECTIONS) == before


def test_auto_version_without_ingested_logs_is_a_note(silver: Silver) -> None:
    ctx = silver.context()
    report = run_for_cluster(ctx, ClusterConfig(name="zk-only-cluster"))
    assert report.rows_written == {}
    assert report.notes == [
        "not replayed: kafka_version is auto and no ingested log narrowed the Kafka release; "
        'set clusters[zk-only-cluster].kafka_version (e.g. "2.8")'
    ]
