"""A simulated cluster end to end: ``kafkactl-audit simulate``, then ``kafkactl-audit run`` on its
logs, then every election of ``gold.elections`` against the simulator's ground truth.

The cluster: 6 brokers, 1,000 partitions (10 topics x 100), two hours of Kafka 2.8 under a busy
random mix plus scripted steps, so every kind of churn happens at least once: broker crashes,
controlled shutdowns, a rolling restart, controller fail-overs, ISR shrinks and expansions,
reassignments, topic creation and deletion, auto-rebalances, and unclean elections (the brokers
allow them, as the cluster's ``kafka_defaults`` say). Logs only: the simulator's ZooKeeper
history needs a real ZooKeeper to become a dataDir (``scripts/zk_from_history.py``).

Checked: every election the simulator made is replayed with the same partition, leader epoch,
trigger, previous and new leader, ISR before and after, clean/unclean verdict and controller
(``kafkactl_lab.simulate.truth``), dated within a second; nothing else is reported as a
successful election; Kafka's rules agree with every decision, failed elections included; the
unclean elections are the report's.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.lakehouse.port import Lakehouse, open_lakehouse
from jobs.runtime.config import load_config
from jobs.stages.registry import stage_named
from kafkactl_lab.simulate import TRUTH_FILE
from kafkactl_lab.simulate.truth import GOLD_COLUMNS, Comparison, Election, compare, read_truth
from schemas.gold import ELECTIONS
from schemas.report import UNCLEAN_ELECTIONS
from tests.e2e.cli import run_cli, write_conf

pytestmark = [
    pytest.mark.spark,
    pytest.mark.e2e,
    pytest.mark.skipif(
        not all(stage_named(s).installed() for s in ("ingest-logs", "replay", "report")),
        reason="a stage of the pipeline is not installed in this build",
    ),
]
CLUSTER = "sim"
SCRIPT: dict[str, Any] = {
    "description": "e2e: churn of every kind over two hours",
    "settings": {
        "brokers": 6,
        "topics": 10,
        "partitions_per_topic": 100,
        "hours": 2,
        "seed": 11,
        "kafka_version": "2.8",
        "random_mix": True,
        "unclean_topic_fraction": 0.3,
        "unclean_broker_default": True,
        "rates": {
            "crash_broker": 1.0,
            "stop_broker": 1.5,
            "rolling_restart": 0.5,
            "shrink_isr_per_1000_partitions": 40.0,
            "expire_controller_session": 1.0,
            "reassign": 6.0,
            "create_topic": 2.0,
            "delete_topic": 1.0,
            "isolate_leader": 2.0,
        },
    },
    "steps": [
        {"at": "00:20:00", "op": "crash_broker", "broker": 2, "restart_after_s": 300},
        {"at": "00:30:00", "op": "reassign", "complete_after_s": 60},
        {"at": "00:40:00", "op": "stop_broker", "broker": 3, "restart_after_s": 120},
        {"at": "01:00:00", "op": "expire_controller_session"},
        {"at": "01:10:00", "op": "isolate_leader"},
        {"at": "01:30:00", "op": "rolling_restart"},
    ],
}
COLUMNS = (*GOLD_COLUMNS, "agrees", "expected_leader", "detail")


@dataclass
class Simulated:
    """The simulation and the lakehouse of its run."""

    out: Path
    summary: dict[str, Any]
    lakehouse: Lakehouse
    rows: list[dict[str, Any]]

    def comparison(self) -> Comparison:
        with open(self.out / TRUTH_FILE, encoding="utf-8") as truth:
            return compare(read_truth(truth), (Election.from_gold(r) for r in self.rows))


@pytest.fixture(scope="module")
def simulated(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Simulated:
    root = tmp_path_factory.mktemp("simulated")
    script = root / "script.json"
    script.write_text(json.dumps(SCRIPT))
    out = root / "sim"
    code, printed = run_cli("simulate", "--script", str(script), "--out", str(out))
    assert code == 0, printed
    conf = write_conf(
        root / "conf.yaml",
        root / "lakehouse",
        name=CLUSTER,
        kafka_defaults={"unclean.leader.election.enable": True},
        inputs={"logs": [str(out / "logs")]},
    )
    code, printed = run_cli("run", "--conf", str(conf))
    assert code == 0, printed
    lakehouse = open_lakehouse(load_config(conf), spark)
    rows = [
        row.asDict(recursive=True)
        for row in lakehouse.read(ELECTIONS)
        .filter((F.col("cluster") == CLUSTER) & (F.col("scenario") == "actual"))
        .select(*COLUMNS)
        .collect()
    ]
    summary = json.loads((out / "simulation.json").read_text())
    return Simulated(out, summary, lakehouse, rows)


def test_every_kind_of_churn_happened(simulated: Simulated) -> None:
    stats = simulated.summary["stats"]
    done = stats["operations"]
    for kind in (
        "crash_broker",
        "stop_broker",
        "rolling_restart",
        "expire_controller_session",
        "reassign",
        "complete_reassignment",
        "shrink_isr",
        "expand_isr",
        "create_topic",
        "delete_topic",
        "isolate_leader",
        "auto_rebalance",
    ):
        assert done.get(kind, 0) > 0, (kind, done)
    assert stats["unclean_elections"] > 0 and stats["controller_epoch"] > 2


def test_every_election_agrees_with_the_ground_truth(simulated: Simulated) -> None:
    result = simulated.comparison()
    assert [m.describe() for m in result.mismatches] == []
    assert result.ok and result.matched == result.truth == simulated.summary["stats"]["elections"]
    assert {"new_partition", "offline", "controlled_shutdown", "preferred", "reassign"} <= set(
        result.triggers
    )


def test_the_rules_agree_with_every_decision(simulated: Simulated) -> None:
    disagreeing = [
        (r["topic"], r["partition"], r["leader_epoch"], r["trigger"], r["new_leader"], r["detail"])
        for r in simulated.rows
        if r["agrees"] is not True
    ]
    assert disagreeing == []


def test_the_unclean_elections_are_the_reports(simulated: Simulated) -> None:
    truth = simulated.comparison()
    reported = simulated.lakehouse.read(UNCLEAN_ELECTIONS).filter(F.col("cluster") == CLUSTER)
    keys = Counter((r.topic, r.partition) for r in reported.select("topic", "partition").collect())
    unclean = Counter((r["topic"], r["partition"]) for r in simulated.rows if r["unclean"])
    assert keys == unclean and sum(keys.values()) == truth.unclean > 0
