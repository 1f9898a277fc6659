"""Gold tables of the replay: elections, partition timelines, anomalies and what-if outcomes.

Each table carries one ``kafkactl_core.replay`` output record per row: ``gold.elections`` the
``ElectionRow``, ``gold.partition_timeline`` the ``TimelineRow``, ``gold.anomalies`` the
``AnomalyRow`` and ``gold.what_if`` the ``WhatIfRow``. The record declares the columns, their
order and types (``record_columns``: times as UTC timestamps, broker lists as arrays); this
module adds their comments, then ``scenario`` where the record has none (timeline, anomalies)
and ``run_id``. Every table is partitioned by ``cluster``: a replay replaces one cluster's rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from pyspark.sql.types import DataType, LongType, StringType, StructField, StructType

from kafkactl_core.replay import AnomalyRow, ClusterFact, ElectionRow, TimelineRow, WhatIfRow
from schemas.catalog import TableSpec, column
from schemas.records import record_columns

__all__ = [
    "ANOMALIES",
    "CLUSTER_FACTS",
    "ELECTIONS",
    "OFFSETS",
    "PARTITION_TIMELINE",
    "TABLES",
    "WHAT_IF",
]

OFFSETS: Mapping[str, DataType] = MappingProxyType(
    dict.fromkeys(("high_watermark", "new_leader_start_offset", "offsets_at_risk"), LongType())
)
"""The offset columns of an election: Kafka offsets are 64-bit."""

_KEY = {"cluster": "Cluster.", "topic": "Topic.", "partition": "Partition number."}
_RUN = column("run_id", StringType(), "Replay run that wrote the row.", nullable=False)


def _scenario(what: str) -> str:
    return (
        f"'actual' for what really happened, else the what-if scenario {what} was replayed "
        "under ('what-if:unclean.leader.election.enable=false')."
    )


def _scenario_column(what: str) -> StructField:
    return column("scenario", StringType(), _scenario(what), nullable=False)


ELECTIONS = TableSpec(
    layer="gold",
    name="elections",
    description=(
        "One row per leader change or failed election attempt, checked against Kafka's rules."
    ),
    schema=StructType(
        [
            *record_columns(
                ElectionRow,
                {
                    **_KEY,
                    "scenario": _scenario("the election"),
                    "elected_at": "When the election happened (UTC): its earliest evidence.",
                    "controller_id": "Broker id of the controller that elected.",
                    "controller_epoch": "That controller's epoch.",
                    "trigger": "Why there was an election: new_partition, offline (broker "
                    "failure), reassign, preferred (rebalance), controlled_shutdown, "
                    "admin_unclean or unknown.",
                    "prev_leader": "Leader before the election or failed attempt (-1: none).",
                    "new_leader": "Leader elected; -1 when no leader could be elected "
                    "(partition left offline).",
                    "leader_epoch": "New leader epoch; for a failed attempt, the epoch the "
                    "controller wrote right after it (leader -1, the OfflineReplica step of a "
                    "broker failure), else the epoch in force.",
                    "isr_before": "In-sync replicas just before the election.",
                    "isr_after": "In-sync replicas written with the new leader; for a failed "
                    "attempt, written right after it, else in force.",
                    "assignment": "Replica assignment in force, preferred replica first.",
                    "live_brokers": "Brokers alive then (registered and not shutting down).",
                    "unclean": "The new leader was not in isr_before: data may have been lost "
                    "(null: unknown).",
                    "expected_leader": "Leader Kafka's rules give for this trigger, release and "
                    "settings (-1: none can be elected; null: not computable).",
                    "agrees": "new_leader equals expected_leader (null when not computable).",
                    "evidence": "Every log line (file:line) or ZooKeeper write (file:zxid=...) "
                    "showing it.",
                    "source": "Sources that showed it, '+'-joined (controller_log+zk_txn, ...).",
                    "unclean_setting": "unclean.leader.election.enable in force for the topic "
                    "then.",
                    "unclean_setting_source": "Where that setting came from: what_if, "
                    "topic_config, broker_config, static_broker_config, configured_default, "
                    "version_default or admin.",
                    "new_leader_left_isr_at": "Unclean elections: when the new leader last left "
                    "the ISR (UTC).",
                    "exposure_seconds": "Unclean elections: seconds between that and the election.",
                    "high_watermark": "Last high watermark a broker logged for the partition "
                    "before the election.",
                    "new_leader_start_offset": "Offset the new leader started its epoch at (else "
                    "its log end offset when it left the ISR).",
                    "offsets_at_risk": "high_watermark - new_leader_start_offset, when both are "
                    "known.",
                    "detail": "How the trigger and the verdict were inferred.",
                    "prev_leader_epoch": "Leader epoch in force just before the election or "
                    "failed attempt.",
                    "partition_epoch": "zkVersion of the partition state znode (KRaft: "
                    "partition epoch) written with the new leader; for a failed attempt, written "
                    "right after it, else in force.",
                    "elr_before": "KRaft: Eligible Leader Replicas just before (KIP-966; from "
                    "the metadata log).",
                    "elr_after": "KRaft: Eligible Leader Replicas written with the new leader.",
                    "leader_recovery_state": "RECOVERING when the controller marked the new "
                    "leader as elected uncleanly (KIP-704), RECOVERED when it did not (null: "
                    "unknown).",
                    "min_insync_replicas": "min.insync.replicas in force for the topic then "
                    "(KRaft fills the ELR from it, capped at the replication factor).",
                    "min_insync_replicas_source": "Where that setting came from: "
                    "topic_config, broker_config, static_broker_config, configured_default or "
                    "version_default.",
                },
                types=OFFSETS,
                nullable=("source",),
            ),
            _RUN,
        ]
    ),
)

PARTITION_TIMELINE = TableSpec(
    layer="gold",
    name="partition_timeline",
    description="Intervals of each partition's state, leader, ISR, epochs and assignment.",
    schema=StructType(
        [
            *record_columns(
                TimelineRow,
                {
                    **_KEY,
                    "valid_from": "Start of the interval (UTC).",
                    "valid_to": "End of the interval (UTC); null for the last one: in force at "
                    "the end of the evidence.",
                    "state": "Partition state (OnlinePartition, OfflinePartition, ...), null "
                    "when unknown.",
                    "leader": "Leader (-1: none, -2: being deleted).",
                    "isr": "In-sync replicas, in Kafka's order.",
                    "leader_epoch": "Leader epoch.",
                    "partition_epoch": "ZooKeeper znode version (zkVersion) or KRaft partition "
                    "epoch.",
                    "assignment": "Replica assignment, preferred replica first.",
                    "controller_epoch": "Epoch of the controller that wrote it.",
                    "evidence": "The log line or ZooKeeper write that opened the interval.",
                },
                nullable=("evidence",),
            ),
            _scenario_column("the timeline"),
            _RUN,
        ]
    ),
)

ANOMALIES = TableSpec(
    layer="gold",
    name="anomalies",
    description="Gaps, regressions, invalid transitions and disagreements found in the evidence.",
    schema=StructType(
        [
            *record_columns(
                AnomalyRow,
                {
                    "cluster": _KEY["cluster"],
                    "topic": "Topic (null for a cluster-level anomaly).",
                    "partition": "Partition (null for a cluster-level anomaly).",
                    "observed_at": "When (UTC).",
                    "kind": "log_gap, epoch_regression, invalid_transition, "
                    "transition_mismatch, decision_disagreement, evidence_conflict, "
                    "unknown_assignment, unknown_liveness, unusable_evidence or "
                    "controller_epoch_regression.",
                    "severity": "error (a contradiction), warning (missing evidence) or info.",
                    "leader_epoch": "Leader epoch concerned, when there is one.",
                    "expected": "What the replay expected.",
                    "observed": "What the evidence says.",
                    "detail": "Explanation.",
                    "evidence": "Log lines (file:line) or ZooKeeper writes involved.",
                    "source": "Sources involved, '+'-joined.",
                },
                nullable=("source",),
            ),
            _scenario_column("the evidence"),
            _RUN,
        ]
    ),
)

WHAT_IF = TableSpec(
    layer="gold",
    name="what_if",
    description="Elections whose outcome a what-if scenario changes, and the offline time.",
    schema=StructType(
        [
            *record_columns(
                WhatIfRow,
                {
                    **_KEY,
                    "scenario": "The scenario ('what-if:unclean.leader.election.enable=false').",
                    "elected_at": "When the actual election happened (UTC).",
                    "trigger": "The actual election's trigger.",
                    "actual_new_leader": "Who was really elected (-1: none).",
                    "actual_unclean": "Whether the real election was unclean.",
                    "scenario_new_leader": "Who the scenario's rules elect then (-1: none; "
                    "null: not computable).",
                    "would_happen": "Whether the scenario elects a leader at that moment.",
                    "offline_from": "Scenario: since when the partition would have stayed "
                    "without a leader (UTC).",
                    "offline_until": "Scenario: when an in-sync replica came back so a clean "
                    "election was possible (null: not within the evidence).",
                    "offline_seconds": "Seconds the partition would have stayed offline (null: "
                    "open-ended).",
                    "scenario_leader_then": "The leader the scenario elects once an in-sync "
                    "replica is back.",
                    "detail": "Why.",
                    "evidence": "The actual election's log lines and ZooKeeper writes.",
                },
            ),
            _RUN,
        ]
    ),
)

CLUSTER_FACTS = TableSpec(
    layer="gold",
    name="cluster_facts",
    description=(
        "The cluster-level facts the replay read from the evidence: broker registrations and "
        "failures, controllers, configs, topic creations and deletions."
    ),
    schema=StructType(
        [
            *record_columns(
                ClusterFact,
                {
                    "cluster": _KEY["cluster"],
                    "observed_at": "When (UTC); null when the evidence gives no time.",
                    "source": "controller_log, state_change_log, server_log, zk_txn, "
                    "zk_snapshot or kraft_metadata.",
                    "kind": "What it says: broker_up, broker_down, controller, config, "
                    "topic_created, topic_deleted, ... (the kinds of ClusterFactKind).",
                    "ref": "The log line (file:line) or ZooKeeper write it comes from.",
                    "seq": "Position within its source (breaks ties at equal times).",
                    "broker": "The broker it is about.",
                    "brokers": "A broker set it lists (registered, live, shutting down).",
                    "controller_id": "A controller id.",
                    "epoch": "A controller epoch, or the broker epoch of a registration.",
                    "topic": "A topic.",
                    "scope": "A config's scope: topic, broker, broker_default or broker_static.",
                    "name": "The config's entity: a topic name or a broker id.",
                    "key": "A config key.",
                    "value": "A config value (null: deleted).",
                    "session": "A ZooKeeper session id.",
                    "detail": "Free text: a reason, an assignment, a cause.",
                },
                types=dict.fromkeys(("seq", "epoch", "session"), LongType()),
                renamed={"time_ms": "observed_at"},
            ),
            _RUN,
        ]
    ),
)

TABLES: tuple[TableSpec, ...] = (ELECTIONS, PARTITION_TIMELINE, ANOMALIES, WHAT_IF, CLUSTER_FACTS)
"""The replay's tables, in the order the job writes them."""
