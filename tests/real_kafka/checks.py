"""The pipeline on a real-cluster capture, checked against ZooKeeper's or Kafka's own dump of it.

``run_on_capture`` runs ``kafkactl-audit run`` (the CLI in this process, as ``tests/e2e`` do)
on the capture's broker logs, its ZooKeeper dataDir, or both; ``check`` compares
``gold.elections`` with the elections of the ``TxnLogToolkit`` dump (``tests.real_kafka.truth``)
and collects what else the scenario must explain: error-level anomalies and quarantined
records. ``check_kraft`` does what the text logs of a KRaft cluster allow against
``kafka-dump-log --cluster-metadata-decoder``'s dump (``tests.real_kafka.kraft_truth``). Both
check ``silver.broker_configs`` against the nodes' ``server.properties`` and the scenario's
topic configs (``compare_broker_configs``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.lakehouse.port import open_lakehouse
from jobs.runtime.config import load_config
from kafkactl_lab.real_cluster.cluster import config_text
from kafkactl_lab.real_cluster.scenario import CreateTopic, load_scenario
from schemas.gold import ANOMALIES, ELECTIONS
from schemas.kraft import KRAFT_INGEST_STATS
from schemas.logs import BROKER_CONFIGS, CONTROLLER_EVENTS, QUARANTINE
from schemas.report import (
    BROKER_TIMELINE,
    CONTROLLER_HISTORY,
    ISR_CHURN_DAILY,
    REASSIGNMENTS,
    REPORT_ANOMALIES,
    UNDER_REPLICATED,
)
from schemas.zk import ZK_INGEST_STATS
from tests.e2e.cli import run_cli, write_conf
from tests.real_kafka.kraft_truth import KRaftTruth, read_kraft_truth
from tests.real_kafka.truth import Truth, read_truth

CLUSTER = "real"
INPUTS = ("logs", "zookeeper", "both")
KRAFT_INPUTS = ("logs", "metadata", "logs+metadata")
"""What a KRaft capture is audited from: its logs, its metadata log, or both."""
TIME_TOLERANCE_S = 2.0
"""The dump prints transaction times to the second; the logs to the millisecond."""


@dataclass(frozen=True)
class Explained:
    """A quarantined record or an anomaly the scenario explains: its kind/reason, the grammar
    or logger it concerns, a regular expression its text must match, and why."""

    reason: str
    where: str
    text: str
    why: str

    def covers(self, reason: str, where: str | None, text: str) -> bool:
        return (
            reason == self.reason
            and (where or "") == self.where
            and re.search(self.text, text) is not None
        )


@dataclass
class Findings:
    """What the checks found on one run."""

    inputs: str
    truth_elections: int = 0
    gold_elections: int = 0
    compared: int = 0
    truth_offline: int = 0
    gold_failed: int = 0
    replication_stretches: int = 0
    mismatches: list[str] = field(default_factory=list)
    unexplained_anomalies: list[str] = field(default_factory=list)
    unexplained_quarantine: list[str] = field(default_factory=list)
    zk_issues: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return [
            *self.mismatches,
            *self.unexplained_anomalies,
            *self.unexplained_quarantine,
            *self.zk_issues,
        ]


def run_on_capture(root: Path, capture: Path, inputs: str, kafka_version: str) -> Path:
    """``kafkactl-audit run`` on a capture's logs, ZooKeeper dataDir or both (``INPUTS``), or
    its logs, KRaft metadata log or both (``KRAFT_INPUTS``).

    Returns:
        The config file of the run (its lakehouse is ``root/lakehouse``).
    """
    chosen: dict[str, list[str]] = {}
    if inputs in ("logs", "both", "logs+metadata"):
        chosen["logs"] = [str(capture / "brokers")]
    if inputs in ("zookeeper", "both"):
        chosen["zookeeper"] = [str(capture / "zookeeper")]
    if inputs in ("metadata", "logs+metadata"):
        chosen["kraft_metadata"] = [str(capture / "metadata")]
    conf = write_conf(
        root / "conf.yaml",
        root / "lakehouse",
        engine="delta-rs",
        name=CLUSTER,
        kafka_version=kafka_version,
        inputs=chosen,
    )
    code, printed = run_cli("run", "--conf", str(conf))
    assert code == 0, printed
    return conf


def table_rows(spark: SparkSession, conf: Path, table: Any) -> list[dict[str, Any]]:
    lakehouse = open_lakehouse(load_config(conf), spark)
    frame = lakehouse.read(table).filter(F.col("cluster") == CLUSTER)
    return [row.asDict(recursive=True) for row in frame.collect()]


def _seconds(value: datetime) -> float:
    return value.timestamp()


def _actual_rows(
    gold: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The actual (not what-if) gold rows: those that elected a leader, and the failed ones."""
    actual = [r for r in gold if r["scenario"] == "actual"]
    elected = [r for r in actual if r["new_leader"] is not None and r["new_leader"] >= 0]
    return elected, [r for r in actual if r["new_leader"] is None or r["new_leader"] < 0]


def _key(row: dict[str, Any]) -> tuple[str, int, int]:
    return (row["topic"], row["partition"], row["leader_epoch"])


def _compare_row(
    where: str, row: dict[str, Any], leader: int, unclean: bool, time_ms: int, findings: Findings
) -> None:
    """One gold row against the truth's election: leader, verdict and time (within 2 s)."""
    findings.compared += 1
    if row["new_leader"] != leader:
        findings.mismatches.append(f"{where}: new_leader {row['new_leader']} != {leader}")
    if bool(row["unclean"]) != unclean:
        findings.mismatches.append(f"{where}: unclean {row['unclean']} != {unclean}")
    lag = abs(_seconds(row["elected_at"]) - time_ms / 1000)
    if lag > TIME_TOLERANCE_S:
        findings.mismatches.append(f"{where}: elected_at {row['elected_at']} is {lag:.1f}s off")


def compare_elections(truth: Truth, gold: list[dict[str, Any]], findings: Findings) -> None:
    """Every truth election is one successful gold row with its leader, epoch and verdict;
    no successful gold row is without a truth election."""
    elected, _ = _actual_rows(gold)
    findings.gold_elections = len(elected)
    by_key: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
    for row in elected:
        by_key.setdefault(_key(row), []).append(row)
    expected = truth.elections()
    findings.truth_elections = len(expected)
    for election in expected:
        rows = by_key.pop(election.key, [])
        where = f"{findings.inputs}: zxid 0x{election.write.zxid:x} {election.key}"
        if len(rows) != 1:
            findings.mismatches.append(f"{where}: {len(rows)} gold rows (expected 1)")
            continue
        write = election.write
        _compare_row(where, rows[0], write.leader, election.unclean, write.time_ms, findings)
    for key, rows in sorted(by_key.items()):
        findings.mismatches.append(
            f"{findings.inputs}: gold election {key} (new leader {rows[0]['new_leader']}, "
            f"trigger {rows[0]['trigger']}) has no leader-setting write in the dump"
        )
    _compare_failed(truth, gold, findings)


def _compare_failed(truth: Truth, gold: list[dict[str, Any]], findings: Findings) -> None:
    """Every write of leader -1 over a leader is at least one failed gold row (no new leader)
    with its epoch; every failed row is for an epoch such a write put in force (the controller
    retries an offline partition at every broker change, each attempt its own row)."""
    _, failed = _actual_rows(gold)
    findings.gold_failed = len(failed)
    keys = {_key(r) for r in failed}
    offline = {(w.topic, w.partition, w.leader_epoch): w for w in truth.offline_writes()}
    findings.truth_offline = len(offline)
    for key, write in sorted(offline.items()):
        if key not in keys:
            findings.mismatches.append(
                f"{findings.inputs}: zxid 0x{write.zxid:x} {key} set leader -1: no failed row"
            )
    for key in sorted(keys - set(offline)):
        findings.mismatches.append(f"{findings.inputs}: failed gold row {key} without a -1 write")


def _config_value(text: str) -> tuple[str, ...]:
    """A config value as a list of items: Kafka prints lists as ``[a, b]``, properties ``a,b``."""
    body = text.strip().removeprefix("[").removesuffix("]")
    return tuple(item.strip() for item in body.split(",")) if body else ()


def _properties(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()
    pairs = (line.partition("=") for line in lines if line and not line.startswith("#"))
    return {key.strip(): value.strip() for key, _, value in pairs}


def compare_broker_configs(capture: Path, rows: list[dict[str, Any]], findings: Findings) -> None:
    """``silver.broker_configs`` against the capture: every key of a node's
    ``server.properties`` has, in every ``KafkaConfig`` block the node printed, the value the
    file set, and the block is named by the node's id; every topic the scenario created with
    configs has them in the ``Created log`` rows of its replicas."""
    blocks = [r for r in rows if r["scope"] == "broker"]
    for node in sorted((capture / "brokers").iterdir()):
        printed = [r for r in blocks if Path(r["file"]).parent.name == node.name]
        if not printed:
            continue  # a 3.9 KRaft controller prints no KafkaConfig block
        names = {(r["broker"], r["name"]) for r in printed}
        if names != {(int(node.name), node.name)}:
            findings.mismatches.append(f"broker_configs of node {node.name}: named {names}")
        for key, value in _properties(node / "server.properties").items():
            got = {r["value"] for r in printed if r["key"] == key}
            if not got or any(_config_value(g) != _config_value(value) for g in got):
                findings.mismatches.append(
                    f"broker_configs of node {node.name}: {key} {sorted(got)} != {value!r}"
                )
    for step in load_scenario(capture / "scenario.yaml").steps:
        if not isinstance(step, CreateTopic):
            continue
        topic = [r for r in rows if r["scope"] == "topic" and r["name"] == step.topic]
        for key, value in step.configs.items():
            got = {r["value"] for r in topic if r["key"] == key}
            if got != {config_text(value)}:
                findings.mismatches.append(
                    f"broker_configs of topic {step.topic}: {key} {sorted(got)} != {value!r}"
                )


def check(
    spark: SparkSession,
    conf: Path,
    capture: Path,
    inputs: str,
    explained: tuple[Explained, ...] = (),
) -> Findings:
    """Compare a run on a capture with the capture's truth; collect what is unexplained."""
    findings = Findings(inputs)
    truth = read_truth(capture)
    assert truth.writes, "the dump has no partition state writes"
    assert not truth.lossy_state_zxids, truth.lossy_state_zxids
    compare_elections(truth, table_rows(spark, conf, ELECTIONS), findings)
    if inputs != "zookeeper":
        compare_broker_configs(capture, table_rows(spark, conf, BROKER_CONFIGS), findings)
    _unexplained(spark, conf, inputs, explained, findings)
    if inputs != "logs":
        brokers = table_rows(spark, conf, BROKER_TIMELINE)
        compare_zk_histories(truth, brokers, table_rows(spark, conf, REASSIGNMENTS), findings)
        churn: dict[tuple[str, int, int], tuple[int, int]] = {}
        for row in table_rows(spark, conf, ISR_CHURN_DAILY):
            key = (row["topic"], row["partition"], row["broker"])
            shrinks, expands = churn.get(key, (0, 0))
            churn[key] = (shrinks + row["shrinks"], expands + row["expands"])
        if churn != truth.isr_churn():
            findings.mismatches.append(f"{inputs}: ISR churn {churn} != {truth.isr_churn()}")
        for row in table_rows(spark, conf, ZK_INGEST_STATS):
            if row["issues"] or row["error"] or not row["checksum_ok"]:
                findings.zk_issues.append(
                    f"{inputs}: {row['file']}: {row['issues']} {row['error']}"
                )
    return findings


def compare_zk_histories(
    truth: Truth,
    brokers: list[dict[str, Any]],
    moves: list[dict[str, Any]],
    findings: Findings,
) -> None:
    """``gold.broker_timeline``'s broker epochs are exactly the zxids that created each
    broker's registration, and ``gold.reassignments`` holds exactly the finished moves of the
    topic znodes, started and finished within 2 s of their writes."""
    for broker in sorted({b for b, _, _ in truth.registrations}):
        expected = {zxid for b, zxid, _ in truth.registrations if b == broker}
        got = {r["broker_epoch"] for r in brokers if r["broker"] == broker} - {None}
        if got != expected:
            findings.mismatches.append(
                f"{findings.inputs}: broker {broker} epochs {sorted(got)} != the registrations' "
                f"zxids {sorted(expected)}"
            )
    done = [r for r in moves if r["outcome"] == "completed"]
    ours = sorted(
        (r["topic"], r["partition"], tuple(r["replicas_from"]), tuple(r["replicas_to"]))
        for r in done
    )
    theirs = sorted((t, p, a, b) for t, p, a, b, _, _ in truth.reassignments())
    if ours != theirs:
        findings.mismatches.append(f"{findings.inputs}: reassignments {ours} != {theirs}")
    for topic, partition, _, _, started, finished in truth.reassignments():
        for row in done:
            if (row["topic"], row["partition"]) != (topic, partition):
                continue
            for name, ms in (("started", started), ("finished", finished)):
                if abs(_seconds(row[name]) - ms / 1000) > TIME_TOLERANCE_S:
                    findings.mismatches.append(
                        f"{findings.inputs}: {topic}-{partition} {name} {row[name]} is not "
                        f"within {TIME_TOLERANCE_S} s of {ms} ms"
                    )


def _unexplained(
    spark: SparkSession,
    conf: Path,
    inputs: str,
    explained: tuple[Explained, ...],
    findings: Findings,
) -> None:
    """Error-level anomalies and quarantined log records the scenario does not explain."""
    for table in (ANOMALIES, REPORT_ANOMALIES):
        for row in table_rows(spark, conf, table):
            if row.get("scenario", "actual") != "actual" or row["severity"] != "error":
                continue
            text = f"{row['expected']} / {row['observed']} / {row['detail']}"
            if not any(e.covers(row["kind"], row["topic"], text) for e in explained):
                findings.unexplained_anomalies.append(
                    f"{inputs}: anomaly {row['kind']} {row['topic']}-{row['partition']}: {text}"
                )
    if inputs in ("logs", "both", "logs+metadata"):
        for row in table_rows(spark, conf, QUARANTINE):
            where = row["grammar"] or row["logger"]
            if not any(e.covers(row["reason"], where, row["text"]) for e in explained):
                findings.unexplained_quarantine.append(
                    f"{inputs}: {Path(row['file']).parent.name}/{Path(row['file']).name}:"
                    f"{row['first_line']} {row['reason']} ({where}): {row['text'][:200]}"
                )


def compare_kraft_elections(
    truth: KRaftTruth, gold: list[dict[str, Any]], findings: Findings
) -> None:
    """What KRaft text logs give, against the metadata log.

    Every successful gold row is a record that set that leader with that epoch (no election
    is made up), unclean exactly when the record set RECOVERING; every partition creation and
    every unclean election of the metadata log is a gold row (the controller logs both at
    INFO); a failed gold row is a record that took a led partition to no leader. Clean
    changes the logs did not show are counted, not failed: the controller logs them at DEBUG.
    """
    changes = {c.key: c for c in truth.elections()}
    findings.truth_elections = len(changes)
    elected, _ = _actual_rows(gold)
    findings.gold_elections = len(elected)
    seen: set[tuple[str, int, int]] = set()
    for row in elected:
        key = _key(row)
        where = f"{findings.inputs}: gold election {key} (trigger {row['trigger']})"
        change = changes.get(key)
        if change is None:
            findings.mismatches.append(f"{where}: no record sets a new leader at that epoch")
            continue
        if key in seen:
            findings.mismatches.append(f"{where}: a second gold row")
            continue
        seen.add(key)
        time_ms = change.record.time_ms
        _compare_row(where, row, change.leader, change.recovering, time_ms, findings)
    for key, change in sorted(changes.items()):
        if key not in seen and (change.before_leader is None or change.recovering):
            kind = "creation" if change.before_leader is None else "unclean election"
            findings.mismatches.append(
                f"{findings.inputs}: offset {change.record.offset} {key}: {kind} without a row"
            )
    offline = {c.key for c in truth.offline()}
    findings.truth_offline = len(offline)
    _, failed = _actual_rows(gold)
    findings.gold_failed = len(failed)
    for row in failed:
        key = _key(row)
        if key not in offline:
            findings.mismatches.append(f"{findings.inputs}: failed gold row {key}: no -1 record")


def compare_kraft_controllers(
    truth: KRaftTruth, history: list[dict[str, Any]], findings: Findings
) -> None:
    """``gold.controller_history`` holds exactly the quorum leaders of the metadata log (their
    epochs only, where the dump does not print the leader)."""
    leaders = set(truth.raft_leaders())
    ids_known = all(leader is not None for leader, _ in leaders)
    expected = sorted((leader if ids_known else None, epoch) for leader, epoch in leaders)
    got = sorted(
        {(r["controller_id"] if ids_known else None, r["controller_epoch"]) for r in history}
    )
    if got != expected:
        findings.mismatches.append(f"controller history {got} != the log's leaders {expected}")


def compare_kraft_fencing(
    truth: KRaftTruth, events: list[dict[str, Any]], findings: Findings
) -> None:
    """Every record that fences a broker is seen in the logs within 2 s: a session timeout as
    ``Fencing broker N ...`` (``kraft_broker_fenced``), a controlled shutdown's end as the
    replayed registration change with ``fenced=1``."""
    fenced = [
        (e["broker"], _seconds(e["log_time"]))
        for e in events
        if e["event_type"] == "kraft_broker_fenced"
        or (
            e["event_type"] == "kraft_broker_registration_changed"
            and "fenced=1" in (e["detail"] or "")
        )
    ]
    for broker, time_ms in truth.fencings():
        if not any(b == broker and abs(t - time_ms / 1000) <= TIME_TOLERANCE_S for b, t in fenced):
            findings.mismatches.append(f"broker {broker} fenced at {time_ms} ms: no fencing event")


def compare_replication(truth: KRaftTruth, gold: list[dict[str, Any]], findings: Findings) -> None:
    """Every under-replicated and under-min-ISR stretch of the metadata log's dump is one
    ``gold.under_replicated`` row of its partition and condition, starting and ending within
    1 ms (both sides date it by the record's time), and no row lacks one."""
    expected = truth.replication_stretches()
    actual = sorted(
        (
            r["condition"],
            r["topic"],
            r["partition"],
            round(_seconds(r["under_from"]) * 1000),
            None if r["under_to"] is None else round(_seconds(r["under_to"]) * 1000),
        )
        for r in gold
    )
    findings.replication_stretches = len(expected)
    if sorted(expected, key=str) != sorted(actual, key=str):
        findings.mismatches.append(
            f"{findings.inputs}: under_replicated rows {actual} are not the dump's {expected}"
        )


def check_kraft(
    spark: SparkSession,
    conf: Path,
    capture: Path,
    explained: tuple[Explained, ...] = (),
    inputs: str = "logs",
) -> Findings:
    """Compare a run on a KRaft capture's logs, metadata log or both with the metadata log's
    dump."""
    findings = Findings(inputs)
    truth = read_kraft_truth(capture)
    assert truth.records, "the dump has no records"
    compare_kraft_elections(truth, table_rows(spark, conf, ELECTIONS), findings)
    compare_kraft_controllers(truth, table_rows(spark, conf, CONTROLLER_HISTORY), findings)
    if inputs != "metadata":
        compare_kraft_fencing(truth, table_rows(spark, conf, CONTROLLER_EVENTS), findings)
        compare_broker_configs(capture, table_rows(spark, conf, BROKER_CONFIGS), findings)
    _unexplained(spark, conf, inputs, explained, findings)
    if "metadata" in inputs:
        compare_replication(truth, table_rows(spark, conf, UNDER_REPLICATED), findings)
        for row in table_rows(spark, conf, KRAFT_INGEST_STATS):
            findings.mismatches.extend(
                f"{inputs}: {Path(row['file']).name}: byte {p['position']}: {p['reason']}"
                for p in row["problems"] or ()
            )
    return findings
