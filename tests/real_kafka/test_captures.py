"""Recorded real-cluster captures (``tests/fixtures/real-kafka/<name>/``, recorded with
``python -m kafkactl_lab.real_cluster``): ``kafkactl-audit run`` on each capture's broker logs,
on its ZooKeeper dataDir, and on both, checked against ZooKeeper's own ``TxnLogToolkit`` dump
of the same dataDir (``tests.real_kafka.truth``):

* every write of ``/brokers/topics/*/partitions/*/state`` that sets a new leader is exactly one
  successful ``gold.elections`` row with that leader and leader epoch, dated within 2 s of the
  transaction, and no successful row lacks such a write;
* ``unclean`` is true exactly when the new leader is not in the ISR of the write before;
* every write of leader -1 over a leader is a failed election row with its epoch, and every
  failed row is for such an epoch;
* no error-level anomaly (``gold.anomalies``, ``gold.report_anomalies``) and no quarantined log
  record that ``EXPLAINED`` does not list for the capture; the ZooKeeper files decode cleanly;
* ``silver.broker_configs`` holds what each node's ``server.properties`` and the scenario's topic
  configs set (``compare_broker_configs``), and the unclean captures' failed elections state
  the controller's static ``unclean.leader.election.enable`` from it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.stages.registry import stage_named
from schemas.gold import ELECTIONS
from schemas.meta import RUNS
from tests.real_kafka.checks import (
    INPUTS,
    Explained,
    check,
    check_kraft,
    run_on_capture,
    table_rows,
)

pytestmark = [
    pytest.mark.spark,
    pytest.mark.e2e,
    pytest.mark.skipif(
        not all(
            stage_named(s).installed() for s in ("ingest-logs", "ingest-zk", "replay", "report")
        ),
        reason="a stage of the pipeline is not installed in this build",
    ),
]

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real-kafka"

EXPLAINED: dict[str, tuple[Explained, ...]] = {
    # kill -9 of broker 3, clean offline elections of its 2 partitions: nothing to explain
    "broker-crash-3.9.1-zk": (),
    # the same scenario on Kafka 2.8.2 (on Java 17; ZooKeeper 3.5.9, dumped by 3.8.4's tools)
    "broker-crash-2.8.2-zk": (),
    # lonely-0's only replica killed: a failed election (leader -1), then broker 3's return
    "failed-election-3.9.1-zk": (),
    # controlled shutdowns of brokers 3, 2, then 1 (the controller), then auto rebalances
    "rolling-restart-3.9.1-zk": (),
    # ISR [3] goes offline; broker 2 returns (a failed election), then the topic allows unclean
    # elections and the controller elects 2 (unclean: not in the ISR [3] of the write before)
    "unclean-election-3.9.1-zk": (),
    # controlled shutdown, admin preferred election, reassignment, topic deletion, controller
    # killed (epoch 2)
    "admin-and-failover-3.9.1-zk": (),
    # the other four scenarios on Kafka 2.8.2 (as broker-crash-2.8.2-zk)
    "failed-election-2.8.2-zk": (),
    "unclean-election-2.8.2-zk": (),
    "rolling-restart-2.8.2-zk": (),
    "admin-and-failover-2.8.2-zk": (),
    # KRaft 4.1.1, one controller: broker 3 fenced, its 2 partitions move (clean)
    "broker-crash-4.1.1-kraft": (),
    # ISR [3] fenced (ISR [], ELR [3]); broker 2 returns, the topic allows unclean elections and
    # the periodic task elects 2 (RECOVERING)
    "unclean-election-4.1.1-kraft": (),
    # lonely-0's only replica fenced (leader -1); back after kill -9 it is out of the ELR, and
    # the controller elects it from the last known ELR: unclean (RECOVERING)
    "failed-election-4.1.1-kraft": (),
    # controlled shutdowns of brokers 3, 2, 1, then of the active controller (a new quorum
    # leader), then auto rebalances
    "rolling-restart-4.1.1-kraft": (),
    # a 3-controller quorum: controlled shutdown, admin preferred election, reassignment, topic
    # deletion, the active controller killed (a new quorum leader) and back
    "admin-and-failover-4.1.1-kraft": (),
    # the broker crash on 3.9.1 in KRaft mode (Log4j 1 layout, no ELR)
    "broker-crash-3.9.1-kraft": (),
    # KRaft 4.1.1, one controller rolling its metadata log every 30 s and writing snapshots:
    # topics created, broker 3 fenced (its leaderships move, clean) and back; the truth is the
    # dumps of the segments, the snapshots restating what they hold
    "snapshots-4.1.1-kraft": (),
    # KRaft 4.1.1, min.insync.replicas 2: brokers 3 and 2 shut down cleanly (ELR [2]), the
    # leader 1 is killed (ISR [], ELR [1, 2]); broker 2 returns and is elected from the ELR
    # (clean, RECOVERED)
    "elr-election-4.1.1-kraft": (),
}
"""Per capture: the anomalies and quarantined records its scenario explains."""


def _captures(mode: str | None = None) -> list[str]:
    return sorted(
        p.name
        for p in CAPTURES.iterdir()
        if (p / "truth").is_dir()
        and (mode is None or json.loads((p / "capture.json").read_text())["mode"] == mode)
    )


def _series(capture: Path) -> str:
    version = (capture / "kafka-version").read_text().strip()
    return ".".join(version.split(".")[:2])


def test_every_capture_lists_what_it_explains() -> None:
    assert _captures() == sorted(EXPLAINED)


@pytest.mark.parametrize("inputs", INPUTS)
@pytest.mark.parametrize("name", _captures("zk"))
def test_capture(spark: SparkSession, tmp_path: Path, name: str, inputs: str) -> None:
    capture = CAPTURES / name
    conf = run_on_capture(tmp_path, capture, inputs, _series(capture))
    findings = check(spark, conf, capture, inputs, EXPLAINED[name])
    assert findings.truth_elections > 0
    assert findings.problems == [], "\n".join(findings.problems)
    assert findings.compared == findings.truth_elections == findings.gold_elections
    if name.startswith("unclean-election") and inputs != "zookeeper":
        # before the topic allowed it, the controller's static config (its KafkaConfig block)
        failed = [r for r in table_rows(spark, conf, ELECTIONS) if r["new_leader"] == -1]
        sources = {(r["unclean_setting"], r["unclean_setting_source"]) for r in failed}
        assert sources == {(False, "static_broker_config")}, sources
    if inputs != "zookeeper":
        # the IBP the brokers printed (3.9-IV0, 2.8-IV1) is the one the replay judges by
        runs = table_rows(spark, conf, RUNS)
        notes = [n for r in runs if r["stage"] == "replay" for n in r["notes"]]
        printed = f"inter.broker.protocol.version={_series(capture)}-IV"
        assert any(printed in n for n in notes), notes


@pytest.mark.parametrize("name", _captures("kraft"))
def test_kraft_capture(spark: SparkSession, tmp_path: Path, name: str) -> None:
    capture = CAPTURES / name
    conf = run_on_capture(tmp_path, capture, "logs", _series(capture))
    findings = check_kraft(spark, conf, capture, EXPLAINED[name])
    assert findings.truth_elections > 0
    assert findings.problems == [], "\n".join(findings.problems)
    print(
        f"{name}: {findings.compared} of the metadata log's {findings.truth_elections} "
        f"leader elections are in the logs; {findings.gold_failed} failed rows"
    )


@pytest.mark.parametrize(
    ("name", "inputs"),
    [
        # ISR and ELR emptied, the last known leader elected (RECOVERING)
        ("failed-election-4.1.1-kraft", "metadata"),
        # the periodic task's unclean election once the topic allows it
        ("unclean-election-4.1.1-kraft", "metadata"),
        ("unclean-election-4.1.1-kraft", "logs+metadata"),
        # KIP-966: a leader elected from the ELR while the ISR is empty (clean)
        ("elr-election-4.1.1-kraft", "metadata"),
        ("elr-election-4.1.1-kraft", "logs+metadata"),
        # a controller killed and restarted: it logs the deleted topic's history again
        ("admin-and-failover-4.1.1-kraft", "logs+metadata"),
        # a 3.9 cluster: the release the controller registered is 3.9
        ("broker-crash-3.9.1-kraft", "metadata"),
    ],
)
def test_kraft_capture_from_its_metadata_log(
    spark: SparkSession, tmp_path: Path, name: str, inputs: str
) -> None:
    """The metadata log as an input (``kafka_version: auto``): every leader change of the log is
    a gold row (the logs miss the clean ones a KRaft controller logs at DEBUG), every record
    that took a led partition to -1 a failed row, the controller history the quorum's leaders,
    every under-replicated and under-min-ISR stretch a ``gold.under_replicated`` row (the
    elr-election capture's topic has min.insync.replicas 2); with the logs too, the same rows,
    each successful election cited from both."""
    capture = CAPTURES / name
    conf = run_on_capture(tmp_path, capture, inputs, "auto")
    findings = check_kraft(spark, conf, capture, EXPLAINED[name], inputs)
    assert findings.problems == [], "\n".join(findings.problems)
    assert findings.gold_elections == findings.truth_elections > 0
    assert findings.gold_failed == findings.truth_offline
    assert findings.replication_stretches > 0  # each scenario takes a replica out of an ISR
    runs = table_rows(spark, conf, RUNS)
    notes = [n for r in runs if r["stage"] == "replay" for n in r["notes"]]
    series = _series(capture)
    assert any(f"Kafka {series} rules (the newest metadata.version" in n for n in notes), notes
    if inputs == "logs+metadata":
        rows = table_rows(spark, conf, ELECTIONS)
        sources = {r["source"] for r in rows if r["new_leader"] >= 0}
        assert all("kraft_metadata" in s and "log" in s for s in sources), sources
