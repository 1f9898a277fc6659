"""The report stage on Spark, on the demo sample.

Silver ``controller_events`` come from the demo's logs (the pure-Python grammar executor, in the
columns ingest-logs writes), the gold tables from the golden case's stored replay outputs
(``tests/golden/demo/input``). The stage must write the same tables as the pure-Python path
(``tests/golden/demo/tables``) and byte-identical report files (``tests/golden/demo/report``),
and meet the issue's acceptance (every logged ``Leader imbalance ratio`` equals ours; the planted
unclean election with its exposure). The whole pipeline, re-runs included, is
``tests/e2e/test_report_pipeline.py``.
"""

from __future__ import annotations

import glob
import json
import shutil
import time
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DataType, DateType, TimestampType

from jobs.lakehouse.port import WriteMode
from jobs.runtime.config import AppConfig, ClusterConfig, LakehouseConfig
from jobs.runtime.context import JobContext
from jobs.stages import report_scope
from jobs.stages.facts_table import write_facts
from jobs.stages.report import run_for_cluster
from jobs.tasks.wire import task_schema, with_run_id
from kafkactl_core.replay import ClusterFact, controller_event_rows
from kafkactl_core.replay.values import ms_to_datetime
from kafkactl_core.report.alerts import FailOn
from kafkactl_core.report.scope import ReportScope
from kafkactl_core.versions import KafkaRelease
from schemas.catalog import TableSpec
from schemas.gold import ANOMALIES, ELECTIONS, PARTITION_TIMELINE
from schemas.logs import CONTROLLER_EVENTS
from schemas.report import (
    ISR_CHURN_DAILY,
    LEADER_IMBALANCE,
    LEADER_IMBALANCE_DAILY,
    OFFLINE_INTERVALS,
    REASSIGNMENTS,
    TABLES,
    UNDER_REPLICATED,
)
from tests.golden.cases import GOLDEN, REPO, load_inputs
from tests.helpers import assert_frames_equal

pytestmark = pytest.mark.spark
CASE = GOLDEN / "demo"


def _stored_frame(spark: SparkSession, spec: TableSpec, rows: list[dict[str, Any]], run_id: str):
    """Stored golden rows (times as epoch ms, days as ISO text) as the table's frame."""
    schema = task_schema(spec)
    values = [tuple(_value(r.get(f.name), f.dataType) for f in schema.fields) for r in rows]
    return with_run_id(spark.createDataFrame(values, schema), spec, run_id)


def _value(stored: Any, data_type: DataType) -> Any:
    if stored is not None and isinstance(data_type, TimestampType):
        return ms_to_datetime(int(stored))
    if stored is not None and isinstance(data_type, DateType):
        return date.fromisoformat(stored)
    return stored


def _silver_rows() -> list[dict[str, Any]]:
    rows = []
    for path in sorted(glob.glob(str(REPO / "samples" / "demo" / "logs" / "*" / "*.log"))):
        for row in controller_event_rows(path, "demo", KafkaRelease.parse("2.8")):
            row["file"] = str(Path(row["file"]).relative_to(REPO))
            row.update(
                log_time=row["ts"],
                evidence=f"{row['file']}:{row['first_line']}",
                line_count=1,
                version_conflict=False,
                run_id="ingest",
            )
            rows.append(row)
    return rows


@pytest.fixture(scope="module")
def demo(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("report")
    cluster = ClusterConfig(name="demo", kafka_version="2.8")
    config = AppConfig(lakehouse=LakehouseConfig(path=str(root / "lh")), clusters=[cluster])
    ctx = JobContext(config=config, spark_factory=lambda _c: spark)
    names = CONTROLLER_EVENTS.schema.fieldNames()
    silver = spark.createDataFrame(
        [tuple(r.get(n) for n in names) for r in _silver_rows()], CONTROLLER_EVENTS.schema
    )
    ctx.lakehouse.write(silver, CONTROLLER_EVENTS, WriteMode.replace_cluster, "demo")
    inputs = {k: [json.loads(line) for line in v.splitlines()] for k, v in load_inputs().items()}
    for spec, key in ((PARTITION_TIMELINE, "timeline"), (ELECTIONS, "elections"),
                      (ANOMALIES, "anomalies")):  # fmt: skip
        rows = [{"scenario": "actual", **row} for row in inputs[key]]
        frame = _stored_frame(spark, spec, rows, "replay")
        ctx.lakehouse.write(frame, spec, WriteMode.replace_cluster, "demo")
    facts = [ClusterFact.from_row(row) for row in inputs["facts"]]
    write_facts(ctx.lakehouse, "demo", [f for f in facts if f is not None], "replay")
    out = root / "out"
    report = run_for_cluster(ctx, cluster, {"out": str(out)})
    return ctx, report, out


def _expected(spark: SparkSession, spec: TableSpec, run_id: str) -> DataFrame:
    text = (CASE / "tables" / f"{spec.name}.jsonl").read_text()
    rows = [json.loads(line) for line in text.splitlines()]
    if spec.name == "report_anomalies":
        rows = [{"scenario": "actual", **row} for row in rows]
    return _stored_frame(spark, spec, rows, run_id)


@pytest.mark.parametrize("spec", TABLES, ids=lambda s: s.name)
def test_tables_equal_the_pure_python_path(demo, spark: SparkSession, spec: TableSpec):
    ctx, report, _ = demo
    actual = ctx.lakehouse.read(spec).filter("cluster = 'demo'")
    expected = _expected(spark, spec, ctx.run_id)
    assert report.rows_written[spec.qualified_name] == expected.count()
    assert_frames_equal(actual, expected)  # row order ignored


def test_report_files_are_the_golden_ones(demo):
    _, report, out = demo
    golden = sorted(p.name for p in (CASE / "report").iterdir())
    assert sorted(p.name for p in out.iterdir()) == golden
    for name in golden:
        assert (out / name).read_text() == (CASE / "report" / name).read_text(), name
    assert f"report written to {out}" in report.notes


def test_acceptance_logged_ratios_and_unclean_exposure(demo):
    ctx, _, _ = demo
    from schemas.report import LEADER_IMBALANCE, REPORT_ANOMALIES, UNCLEAN_ELECTIONS

    checks = ctx.lakehouse.read(LEADER_IMBALANCE).filter("logged_ratio IS NOT NULL").collect()
    assert len(checks) == 236
    assert all(r.logged_ratio == r.imbalance_ratio and r.logged_matches for r in checks)
    assert ctx.lakehouse.read(REPORT_ANOMALIES).count() == 0
    (unclean,) = ctx.lakehouse.read(UNCLEAN_ELECTIONS).collect()
    assert (unclean.topic, unclean.partition, unclean.new_leader) == ("audit", 0, 4)
    assert list(unclean.isr_before) == [2]
    assert unclean.new_leader_left_isr_at.isoformat().startswith("2024-03-05T10:30:00")
    assert unclean.exposure_seconds == pytest.approx(120.001)


def test_a_cluster_without_gold_rows_gets_empty_tables_and_a_report(demo, tmp_path: Path):
    ctx, _, _ = demo
    report = run_for_cluster(
        ctx, ClusterConfig(name="other", kafka_version="3.7"), {"out": str(tmp_path)}
    )
    assert set(report.rows_written.values()) == {0}
    assert ctx.lakehouse.read(TABLES[0]).filter("cluster = 'demo'").count() > 0  # untouched
    page = (tmp_path / "report.html").read_text()
    assert "No unclean election." in page and page.count("<svg") == 4
    assert "no data in the evidence" in page


def test_without_gold_tables_the_stage_says_to_run_replay(spark: SparkSession, tmp_path: Path):
    config = AppConfig(lakehouse=LakehouseConfig(path=str(tmp_path / "empty")))
    ctx = JobContext(config=config, spark_factory=lambda _c: spark)
    report = run_for_cluster(ctx, ClusterConfig(name="x"), {"out": str(tmp_path / "out")})
    assert report.notes == ["no gold tables yet: run replay first"] and not report.rows_written


def test_the_driver_and_session_time_zones_change_nothing(
    demo, spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A spark-submit driver runs in its machine's zone, and the session takes the zone of the
    driver's JVM: neither may move an instant or a UTC day (Auckland is UTC+13 in March, so the
    demo's morning crosses its midnight)."""
    ctx, _, _ = demo
    copy = tmp_path / "lh"
    shutil.copytree(ctx.lakehouse.root, copy)
    config = ctx.config.model_copy(update={"lakehouse": LakehouseConfig(path=str(copy))})
    zoned = JobContext(config=config, spark_factory=lambda _c: spark)
    session_zone = spark.conf.get("spark.sql.session.timeZone")
    monkeypatch.setenv("TZ", "Pacific/Auckland")
    time.tzset()
    spark.conf.set("spark.sql.session.timeZone", "Pacific/Auckland")
    try:
        run_for_cluster(zoned, ctx.config.clusters[0], {"out": str(tmp_path / "out")})
    finally:
        spark.conf.set("spark.sql.session.timeZone", session_zone)
        monkeypatch.undo()
        time.tzset()
    for name in sorted(p.name for p in (CASE / "report").iterdir()):
        assert (tmp_path / "out" / name).read_text() == (CASE / "report" / name).read_text(), name
    for spec in TABLES:
        actual = zoned.lakehouse.read(spec).filter("cluster = 'demo'")
        assert_frames_equal(actual, _expected(spark, spec, zoned.run_id))


def _ms(value: datetime | None) -> int | None:
    return None if value is None else int(value.replace(tzinfo=UTC).timestamp() * 1000)


SCOPES = [
    ReportScope(),
    ReportScope(_ms(datetime(2024, 3, 5, 10, 31)), _ms(datetime(2024, 3, 5, 10, 40))),
    ReportScope(from_ms=_ms(datetime(2024, 3, 5, 10, 33))),
    ReportScope(topic="aud*"),
    ReportScope(topic="*s"),
    ReportScope(topic="payments"),
    ReportScope(brokers=(4,)),
    ReportScope(to_ms=_ms(datetime(2024, 3, 5, 9, 0))),
    ReportScope(_ms(datetime(2024, 3, 5, 10, 0)), None, "a*", (2, 3)),
]


@pytest.mark.parametrize("scope", SCOPES, ids=lambda s: s.describe())
def test_the_scope_on_spark_keeps_the_rows_its_rules_keep(demo, scope: ReportScope):
    """Each frame's scope on Spark against ``ReportScope``'s own rules, row by row."""
    ctx, _, _ = demo
    elections = ctx.lakehouse.read(ELECTIONS).filter("cluster = 'demo'")
    offline = ctx.lakehouse.read(OFFLINE_INTERVALS).filter("cluster = 'demo'")
    anomalies = ctx.lakehouse.read(ANOMALIES).filter("cluster = 'demo'")
    under = ctx.lakehouse.read(UNDER_REPLICATED).filter("cluster = 'demo'")
    moves = ctx.lakehouse.read(REASSIGNMENTS).filter("cluster = 'demo'")
    churn = ctx.lakehouse.read(ISR_CHURN_DAILY).filter("cluster = 'demo'")
    daily = ctx.lakehouse.read(LEADER_IMBALANCE_DAILY).filter("cluster = 'demo'")
    cases = [
        (
            report_scope.scoped_elections(elections, scope),
            elections,
            lambda r: (
                scope.at(_ms(r.elected_at))
                and scope.covers_topic(r.topic)
                and scope.involves([r.prev_leader, r.new_leader])
            ),
        ),
        (
            report_scope.scoped_offline(offline, scope),
            offline,
            lambda r: (
                scope.overlaps(_ms(r.offline_from), _ms(r.offline_to))
                and scope.covers_topic(r.topic)
                and scope.involves([r.prev_leader, r.next_leader, *(r.assignment or ())])
            ),
        ),
        (
            report_scope.scoped_anomalies(anomalies, scope),
            anomalies,
            lambda r: scope.at(_ms(r.observed_at)) and scope.covers_topic(r.topic),
        ),
        (
            report_scope.scoped_under_replicated(under, scope),
            under,
            lambda r: (
                scope.overlaps(_ms(r.under_from), _ms(r.under_to))
                and scope.covers_topic(r.topic)
                and scope.involves([r.leader_at_start, *r.replicas])
            ),
        ),
        (
            report_scope.scoped_reassignments(moves, scope),
            moves,
            lambda r: (
                scope.overlaps(_ms(r.started), _ms(r.finished))
                and scope.covers_topic(r.topic)
                and scope.involves(
                    [r.leader_before, r.leader_after, *r.replicas_from, *r.replicas_to]
                )
            ),
        ),
        (
            report_scope.scoped_churn(churn, scope),
            churn,
            lambda r: (
                scope.covers_day(r.day)
                and scope.covers_topic(r.topic)
                and scope.involves([r.broker])
            ),
        ),
        (
            report_scope.scoped_daily(daily, scope),
            daily,
            lambda r: scope.covers_day(r.day) and scope.involves([r.broker]),
        ),
    ]
    for scoped, whole, rule in cases:
        kept = sorted(map(repr, scoped.collect()))
        assert kept == sorted(repr(r) for r in whole.collect() if rule(r))
    assert (
        elections.count() > len(report_scope.scoped_elections(elections, SCOPES[1]).collect()) > 0
    )


def test_the_imbalance_in_a_window_opens_with_the_state_in_force(demo):
    ctx, _, _ = demo
    imbalance = ctx.lakehouse.read(LEADER_IMBALANCE).filter("cluster = 'demo'")
    start = datetime(2024, 3, 5, 10, 31)
    scope = ReportScope(from_ms=_ms(start), brokers=(1, 4))
    rows = report_scope.scoped_imbalance(imbalance, scope).collect()
    assert {r.broker for r in rows} == {1, 4}
    assert all(r.observed_at >= start for r in rows)
    for broker in (1, 4):
        before = (
            imbalance.filter(f"broker = {broker} AND observation = 'change'")
            .filter(F.col("observed_at") < F.lit(start))
            .orderBy(F.desc("observed_at"))
            .first()
        )
        assert before is not None
        (opening,) = [r for r in rows if r.broker == broker and r.observed_at == start]
        assert opening.imbalance_ratio == before.imbalance_ratio
        assert opening.leaders == before.leaders


def test_fail_on_and_the_json_summary_over_a_scope(demo, tmp_path: Path, capsys):
    """The tables stay whole; the summary and the findings cover the scope only."""
    ctx, whole, _ = demo
    cluster = ctx.config.clusters[0]
    rules = FailOn(unclean=True)
    before = ReportScope(to_ms=_ms(datetime(2024, 3, 5, 10, 31)))
    capsys.readouterr()
    quiet = run_for_cluster(
        ctx, cluster, {"out": str(tmp_path / "q"), "scope": before, "fail_on": rules}
    )
    assert quiet.findings == [] and quiet.rows_written == whole.rows_written
    assert "Unclean elections: none" in capsys.readouterr().out
    options = {"scope": ReportScope(topic="audit"), "fail_on": rules, "format": "json"}
    loud = run_for_cluster(ctx, cluster, {"out": str(tmp_path / "l"), **options})
    (finding,) = loud.findings
    assert "audit-0 leader 2 -> 4" in finding
    document = json.loads(capsys.readouterr().out)
    assert document["findings"] == [finding] and document["scope"] == "topic audit"
    assert {e["topic"] for e in document["unclean_elections"]} == {"audit"}
    assert "scope: topic audit" in (tmp_path / "l" / "report.html").read_text()
