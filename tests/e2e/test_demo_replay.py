"""Golden end-to-end test: the demo cluster (``samples/demo``) through ingest-logs, ingest-zk
and replay, against the simulator's ground truth (``expected-elections.jsonl``).

One lakehouse for the module: the demo's logs and ZooKeeper dataDir are ingested once as cluster
``demo`` (evidence from both); its silver rows are then copied to ``demo-logs`` (the log tables
only) and ``demo-zk`` (the ZooKeeper tables only) and the three clusters are replayed. The
demo's ZooKeeper stamped the transactions on the logs' clock (it ran under libfaketime), so the
ZooKeeper rows are used as ingested, as a user's would be.

Checked for every source mix: every planted election is found, with its trigger, leaders,
epoch, ISRs, unclean flag and controller; nothing else is reported as an election; the unclean
election of ``audit-0`` is flagged with the ISR before it; the rules agree with every decision
(logs only: except ``audit-0``, whose topic-level ``unclean.leader.election.enable=true`` only
ZooKeeper knows); no anomaly is reported (logs only: but that disagreement); the answers are
the same from logs, from ZooKeeper and from both (the logs show the leaderless state between the
controller fail-over's ISR removals and its elections).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, BooleanType, IntegerType, StringType, StructType

from jobs.lakehouse.port import WriteMode
from jobs.runtime.config import AppConfig, ClusterConfig, ClusterInputs, LakehouseConfig
from jobs.runtime.context import JobContext
from jobs.stages.registry import stage_named
from jobs.stages.runner import run_stage
from schemas.catalog import TableSpec, column
from schemas.gold import ANOMALIES, ELECTIONS
from schemas.logs import CONTROLLER_EVENTS, INGEST_STATS
from schemas.zk import ZK_CHANGES, ZK_STATE
from tests.conftest import REPO
from tests.helpers import assert_frames_equal

pytestmark = [pytest.mark.spark, pytest.mark.e2e]

DEMO = REPO / "samples" / "demo"
VARIANTS = ("demo", "demo-logs", "demo-zk")
"""Both sources, logs only, ZooKeeper only."""
ANSWER_SCHEMA = StructType(
    [
        column("topic", StringType(), ""),
        column("partition", IntegerType(), ""),
        column("leader_epoch", IntegerType(), ""),
        column("trigger", StringType(), ""),
        column("prev_leader", IntegerType(), ""),
        column("new_leader", IntegerType(), ""),
        column("isr_before", ArrayType(IntegerType()), ""),
        column("isr_after", ArrayType(IntegerType()), ""),
        column("unclean", BooleanType(), ""),
        column("controller_id", IntegerType(), ""),
        column("controller_epoch", IntegerType(), ""),
    ]
)
ANSWER_COLUMNS = tuple(ANSWER_SCHEMA.fieldNames())


def truth() -> list[dict[str, Any]]:
    """The planted elections, in the answer columns (a new partition has no ISR before)."""
    rows = []
    for line in (DEMO / "expected-elections.jsonl").read_text().splitlines():
        record = json.loads(line)
        creation = record["trigger"] == "new_partition"
        rows.append(
            {
                "topic": record["topic"],
                "partition": record["partition"],
                "leader_epoch": record["leader_epoch"],
                "trigger": record["trigger"],
                "prev_leader": record["previous_leader"],
                "new_leader": record["new_leader"],
                "isr_before": None if creation else record["isr_before"],
                "isr_after": record["isr_after"],
                "unclean": record["unclean"],
                "controller_id": record["controller"],
                "controller_epoch": record["controller_epoch"],
                "t": record["t"],
            }
        )
    return rows


@dataclass
class Demo:
    """The replayed lakehouse."""

    ctx: JobContext
    clusters: dict[str, ClusterConfig]

    def elections(self, cluster: str) -> DataFrame:
        """The actual elections of one variant."""
        frame = self.ctx.lakehouse.read(ELECTIONS)
        return frame.filter((F.col("cluster") == cluster) & (F.col("scenario") == "actual"))


def _copy(ctx: JobContext, spec: TableSpec, source: str, target: str, **changes: Any) -> None:
    """Write ``source``'s rows of a table as ``target``'s (``changes``: column -> row -> value)."""
    rows = []
    for row in ctx.lakehouse.read(spec).filter(F.col("cluster") == source).collect():
        values = row.asDict(recursive=True)
        values["cluster"] = target
        for name, change in changes.items():
            values[name] = change(values)
        rows.append(tuple(values[n] for n in spec.schema.fieldNames()))
    frame = ctx.spark.createDataFrame(rows, spec.schema)
    ctx.lakehouse.write(frame, spec, WriteMode.replace_cluster, target)


@pytest.fixture(scope="module")
def demo(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    """Ingest the demo once, derive the three variants, replay each."""
    root = tmp_path_factory.mktemp("demo-e2e")
    both = ClusterConfig(
        name="demo",
        inputs=ClusterInputs(
            logs=[str(DEMO / "logs")], zookeeper=[str(DEMO / "zookeeper" / "version-2")]
        ),
    )
    logs_only = ClusterConfig(name="demo-logs")
    # No log tells ZooKeeper-only evidence the release: it is configured.
    zk_only = ClusterConfig(name="demo-zk", kafka_version="2.8")
    config = AppConfig(
        lakehouse=LakehouseConfig(path=str(root / "lakehouse")),
        engine="delta-rs",
        clusters=[both, logs_only, zk_only],
    )
    ctx = JobContext(config=config, spark_factory=lambda _config: spark)
    run_stage(ctx, stage_named("ingest-logs"), both)
    run_stage(ctx, stage_named("ingest-zk"), both)

    for spec in (ZK_CHANGES, ZK_STATE):
        _copy(ctx, spec, "demo", "demo-zk")
    _copy(ctx, CONTROLLER_EVENTS, "demo", "demo-logs")
    _copy(ctx, INGEST_STATS, "demo", "demo-logs")

    clusters = {c.name: c for c in (both, logs_only, zk_only)}
    for cluster in clusters.values():
        run_stage(ctx, stage_named("replay"), cluster)
    yield Demo(ctx, clusters)


ORDER = ["topic", "partition", "leader_epoch", "new_leader"]


def _answers(frame: DataFrame) -> DataFrame:
    return frame.select(*ANSWER_COLUMNS)


def _check_found(demo: Demo, cluster: str) -> None:
    expected = truth()
    wanted = demo.ctx.spark.createDataFrame(
        [tuple(r[c] for c in ANSWER_COLUMNS) for r in expected], ANSWER_SCHEMA
    )
    assert_frames_equal(_answers(demo.elections(cluster)), wanted, order_by=ORDER)
    # Each election is dated by its earliest evidence: within a second of the simulator's time.
    when = {
        (r.topic, r.partition, r.leader_epoch): r.elected_at
        for r in demo.elections(cluster)
        .select("topic", "partition", "leader_epoch", "elected_at")
        .collect()
    }
    for record in expected:
        at = when[(record["topic"], record["partition"], record["leader_epoch"])]
        assert abs(at.replace(tzinfo=UTC).timestamp() * 1000 - record["t"]) < 1000, record


@pytest.mark.parametrize("cluster", VARIANTS)
def test_every_planted_election_is_found_and_nothing_else(demo: Demo, cluster: str) -> None:
    _check_found(demo, cluster)


def test_logs_alone_give_the_fail_over_elections_isr_before(demo: Demo) -> None:
    """The fail-over's elections (controller epoch 2) start from leader -1, the ISR without 1."""
    found = (
        demo.elections("demo-logs")
        .filter((F.col("controller_epoch") == 2) & (F.col("trigger") == "offline"))
        .select("topic", "partition", "prev_leader", "isr_before")
        .collect()
    )
    assert sorted((r.topic, r.partition, r.prev_leader, r.isr_before) for r in found) == [
        ("orders", 0, -1, [3, 2]),
        ("orders", 4, -1, [3, 4]),
        ("payments", 2, -1, [3, 4]),
    ]


@pytest.mark.parametrize("cluster", VARIANTS)
def test_the_unclean_election_is_flagged_with_the_isr_before_it(demo: Demo, cluster: str) -> None:
    unclean = demo.elections(cluster).filter(F.col("unclean")).collect()
    assert [(r.topic, r.partition, r.prev_leader, r.new_leader) for r in unclean] == [
        ("audit", 0, 2, 4)
    ]
    (row,) = unclean
    assert row.isr_before == [2] and row.isr_after == [4]
    assert demo.elections(cluster).filter(F.col("unclean").isNull()).count() == 0


@pytest.mark.parametrize("cluster", VARIANTS)
def test_the_rules_agree_with_every_decision(demo: Demo, cluster: str) -> None:
    rows = demo.elections(cluster).collect()
    disagreeing = [r for r in rows if r.agrees is not True]
    if cluster == "demo-logs":
        # The topic config allowing unclean elections is in ZooKeeper only: from the logs the
        # release default (false) applies, and Kafka's rules would have elected nobody.
        (row,) = disagreeing
        assert (row.topic, row.partition, row.new_leader, row.expected_leader) == (
            "audit",
            0,
            4,
            -1,
        )
        assert (row.unclean_setting, row.unclean_setting_source) == (False, "version_default")
    else:
        assert disagreeing == []
        (audit,) = [r for r in rows if r.unclean]
        assert (audit.unclean_setting, audit.unclean_setting_source) == (True, "topic_config")
    kinds = {
        r.kind
        for r in demo.ctx.lakehouse.read(ANOMALIES)
        .filter(F.col("cluster") == cluster)
        .select("kind")
        .collect()
    }
    assert "decision_disagreement" not in kinds or cluster == "demo-logs"


EXPECTED_ANOMALIES: dict[str, list[tuple[str, str | None, int | None, int | None]]] = {
    "demo": [],
    "demo-zk": [],
    "demo-logs": [("decision_disagreement", "audit", 0, 1)],
}
"""Per variant, (kind, topic, partition, leader epoch) of every anomaly. Nothing inconsistent is
planted in the demo; from the logs alone the planted unclean election of ``audit-0`` is
against the release default, the topic-level setting being in ZooKeeper only."""


@pytest.mark.parametrize("cluster", VARIANTS)
def test_no_anomaly_but_what_the_evidence_cannot_tell(demo: Demo, cluster: str) -> None:
    rows = (
        demo.ctx.lakehouse.read(ANOMALIES)
        .filter((F.col("cluster") == cluster) & (F.col("scenario") == "actual"))
        .collect()
    )
    found = sorted(
        ((r.kind, r.topic, r.partition, r.leader_epoch) for r in rows),
        key=lambda a: tuple(str(v) for v in a),
    )
    assert found == EXPECTED_ANOMALIES[cluster], [(r.kind, r.detail, r.evidence) for r in rows]


def test_logs_zookeeper_and_both_give_the_same_answers(demo: Demo) -> None:
    both = _answers(demo.elections("demo"))
    assert_frames_equal(_answers(demo.elections("demo-zk")), both, order_by=ORDER)
    assert_frames_equal(_answers(demo.elections("demo-logs")), both, order_by=ORDER)


def test_version_inferred_from_the_logs(demo: Demo) -> None:
    from schemas.meta import RUNS

    notes = {
        r.cluster: r.notes
        for r in demo.ctx.lakehouse.read(RUNS).filter(F.col("stage") == "replay").collect()
    }
    # the simulated 2.8 cluster's wording reads [2.8, 3.2): its newest release's rules, the
    # same switches as 2.8's but the default inter-broker protocol
    assert any("Kafka 3.1 rules (inferred from the logs: [2.8, 3.2)" in n for n in notes["demo"])
    assert any("Kafka 2.8 rules (configured)" in n for n in notes["demo-zk"])
