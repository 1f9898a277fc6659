"""Gold tables of the replay: elections, partition timelines, anomalies and what-if outcomes.

Each table carries one ``kafkactl_core.replay`` output record per row: ``gold.elections`` the
``ElectionRow``, ``gold.partition_timeline`` the ``TimelineRow``, ``gold.anomalies`` the
``AnomalyRow`` and ``gold.what_if`` the ``WhatIfRow``, with the columns of the record's
``to_row()`` in its order (times as UTC timestamps, broker lists as arrays), then ``scenario``
where the record has none (timeline, anomalies) and ``run_id``. A test ties every schema to its
record. Every table is partitioned by ``cluster``: a replay replaces one cluster's rows.
"""

from __future__ import annotations

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from schemas.catalog import TableSpec, column

__all__ = ["ANOMALIES", "ELECTIONS", "PARTITION_TIMELINE", "TABLES", "WHAT_IF"]

_BROKERS = ArrayType(IntegerType())
_CLUSTER = column("cluster", StringType(), "Cluster.", nullable=False)
_TOPIC = column("topic", StringType(), "Topic.", nullable=False)
_PARTITION = column("partition", IntegerType(), "Partition number.", nullable=False)
_RUN = column("run_id", StringType(), "Replay run that wrote the row.", nullable=False)


def _scenario(what: str) -> StructField:
    return column(
        "scenario",
        StringType(),
        f"'actual' for what really happened, else the what-if scenario {what} was replayed "
        "under ('what-if:unclean.leader.election.enable=false').",
        nullable=False,
    )


ELECTIONS = TableSpec(
    layer="gold",
    name="elections",
    description=(
        "One row per leader change or failed election attempt, checked against Kafka's rules."
    ),
    schema=StructType(
        [
            _CLUSTER,
            _TOPIC,
            _PARTITION,
            _scenario("the election"),
            column(
                "elected_at",
                TimestampType(),
                "When the election happened (UTC): its earliest evidence.",
            ),
            column("controller_id", IntegerType(), "Broker id of the controller that elected."),
            column("controller_epoch", IntegerType(), "That controller's epoch."),
            column(
                "trigger",
                StringType(),
                "Why there was an election: new_partition, offline (broker failure), reassign, "
                "preferred (rebalance), controlled_shutdown, admin_unclean or unknown.",
                nullable=False,
            ),
            column(
                "prev_leader",
                IntegerType(),
                "Leader before the election or failed attempt (-1: none).",
            ),
            column(
                "new_leader",
                IntegerType(),
                "Leader elected; -1 when no leader could be elected (partition left offline).",
                nullable=False,
            ),
            column(
                "leader_epoch",
                IntegerType(),
                "New leader epoch; for a failed attempt, the epoch the controller wrote right "
                "after it (leader -1, the OfflineReplica step of a broker failure), else the "
                "epoch in force.",
            ),
            column("isr_before", _BROKERS, "In-sync replicas just before the election."),
            column(
                "isr_after",
                _BROKERS,
                "In-sync replicas written with the new leader; for a failed attempt, written "
                "right after it, else in force.",
            ),
            column("assignment", _BROKERS, "Replica assignment in force, preferred replica first."),
            column(
                "live_brokers",
                _BROKERS,
                "Brokers alive then (registered and not shutting down).",
            ),
            column(
                "unclean",
                BooleanType(),
                "The new leader was not in isr_before: data may have been lost (null: unknown).",
            ),
            column(
                "expected_leader",
                IntegerType(),
                "Leader Kafka's rules give for this trigger, release and settings "
                "(-1: none can be elected; null: not computable).",
            ),
            column(
                "agrees",
                BooleanType(),
                "new_leader equals expected_leader (null when not computable).",
            ),
            column(
                "evidence",
                ArrayType(StringType()),
                "Every log line (file:line) or ZooKeeper write (file:zxid=...) showing it.",
            ),
            column(
                "source",
                StringType(),
                "Sources that showed it, '+'-joined (controller_log+zk_txn, ...).",
            ),
            column(
                "unclean_setting",
                BooleanType(),
                "unclean.leader.election.enable in force for the topic then.",
            ),
            column(
                "unclean_setting_source",
                StringType(),
                "Where that setting came from: what_if, topic_config, broker_config, "
                "configured_default, version_default or admin.",
            ),
            column(
                "new_leader_left_isr_at",
                TimestampType(),
                "Unclean elections: when the new leader last left the ISR (UTC).",
            ),
            column(
                "exposure_seconds",
                DoubleType(),
                "Unclean elections: seconds between that and the election.",
            ),
            column(
                "high_watermark",
                LongType(),
                "Last high watermark a broker logged for the partition before the election.",
            ),
            column(
                "new_leader_start_offset",
                LongType(),
                "Offset the new leader started its epoch at (else its log end offset when it "
                "left the ISR).",
            ),
            column(
                "offsets_at_risk",
                LongType(),
                "high_watermark - new_leader_start_offset, when both are known.",
            ),
            column("detail", StringType(), "How the trigger and the verdict were inferred."),
            column(
                "prev_leader_epoch",
                IntegerType(),
                "Leader epoch in force just before the election or failed attempt.",
            ),
            column(
                "partition_epoch",
                IntegerType(),
                "zkVersion of the partition state znode (KRaft: partition epoch) written with "
                "the new leader; for a failed attempt, written right after it, else in force.",
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
            _CLUSTER,
            _TOPIC,
            _PARTITION,
            column("valid_from", TimestampType(), "Start of the interval (UTC)."),
            column(
                "valid_to",
                TimestampType(),
                "End of the interval (UTC); null for the last one: in force at the end of the "
                "evidence.",
            ),
            column(
                "state",
                StringType(),
                "Partition state (OnlinePartition, OfflinePartition, ...), null when unknown.",
            ),
            column("leader", IntegerType(), "Leader (-1: none, -2: being deleted)."),
            column("isr", _BROKERS, "In-sync replicas, in Kafka's order."),
            column("leader_epoch", IntegerType(), "Leader epoch."),
            column(
                "partition_epoch",
                IntegerType(),
                "ZooKeeper znode version (zkVersion) or KRaft partition epoch.",
            ),
            column("assignment", _BROKERS, "Replica assignment, preferred replica first."),
            column("controller_epoch", IntegerType(), "Epoch of the controller that wrote it."),
            column(
                "evidence",
                StringType(),
                "The log line or ZooKeeper write that opened the interval.",
            ),
            _scenario("the timeline"),
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
            _CLUSTER,
            column("topic", StringType(), "Topic (null for a cluster-level anomaly)."),
            column("partition", IntegerType(), "Partition (null for a cluster-level anomaly)."),
            column("observed_at", TimestampType(), "When (UTC)."),
            column(
                "kind",
                StringType(),
                "log_gap, epoch_regression, invalid_transition, transition_mismatch, "
                "decision_disagreement, evidence_conflict, unknown_assignment, unknown_liveness, "
                "unusable_evidence or controller_epoch_regression.",
                nullable=False,
            ),
            column(
                "severity",
                StringType(),
                "error (a contradiction), warning (missing evidence) or info.",
                nullable=False,
            ),
            column("leader_epoch", IntegerType(), "Leader epoch concerned, when there is one."),
            column("expected", StringType(), "What the replay expected."),
            column("observed", StringType(), "What the evidence says."),
            column("detail", StringType(), "Explanation.", nullable=False),
            column(
                "evidence",
                ArrayType(StringType()),
                "Log lines (file:line) or ZooKeeper writes involved.",
            ),
            column("source", StringType(), "Sources involved, '+'-joined."),
            _scenario("the evidence"),
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
            _CLUSTER,
            _TOPIC,
            _PARTITION,
            column(
                "scenario",
                StringType(),
                "The scenario ('what-if:unclean.leader.election.enable=false').",
                nullable=False,
            ),
            column("elected_at", TimestampType(), "When the actual election happened (UTC)."),
            column("trigger", StringType(), "The actual election's trigger.", nullable=False),
            column(
                "actual_new_leader",
                IntegerType(),
                "Who was really elected (-1: none).",
                nullable=False,
            ),
            column("actual_unclean", BooleanType(), "Whether the real election was unclean."),
            column(
                "scenario_new_leader",
                IntegerType(),
                "Who the scenario's rules elect then (-1: none; null: not computable).",
            ),
            column(
                "would_happen",
                BooleanType(),
                "Whether the scenario elects a leader at that moment.",
            ),
            column(
                "offline_from",
                TimestampType(),
                "Scenario: since when the partition would have stayed without a leader (UTC).",
            ),
            column(
                "offline_until",
                TimestampType(),
                "Scenario: when an in-sync replica came back so a clean election was possible "
                "(null: not within the evidence).",
            ),
            column(
                "offline_seconds",
                DoubleType(),
                "Seconds the partition would have stayed offline (null: open-ended).",
            ),
            column(
                "scenario_leader_then",
                IntegerType(),
                "The leader the scenario elects once an in-sync replica is back.",
            ),
            column("detail", StringType(), "Why.", nullable=False),
            column(
                "evidence",
                ArrayType(StringType()),
                "The actual election's log lines and ZooKeeper writes.",
            ),
            _RUN,
        ]
    ),
)

TABLES: tuple[TableSpec, ...] = (ELECTIONS, PARTITION_TIMELINE, ANOMALIES, WHAT_IF)
"""The replay's tables, in the order the job writes them."""
