"""Gold tables of the report stage: leader imbalance (per observation and per day), unclean
elections (each, and per topic and day), offline intervals, controller history, and the
anomalies the report finds.

Each table carries one ``kafkactl_core.report`` record per row (``ImbalanceRow``,
``ImbalanceDailyRow``, ``UncleanRow``, ``UncleanDailyRow``, ``OfflineInterval``,
``ControllerTenure``), with the columns of the record's ``to_row()`` in its order, then
``run_id``; a test ties every schema to its record. ``gold.report_anomalies`` has the columns of
``gold.anomalies``: the report replaces its own rows per cluster there, because appending to
``gold.anomalies`` would be wiped by the next replay (which replaces that table's cluster rows)
and duplicated by the next report. Query both with ``UNION ALL``.
"""

from __future__ import annotations

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DateType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from schemas.catalog import TableSpec, column
from schemas.gold import ANOMALIES

__all__ = [
    "CONTROLLER_HISTORY",
    "LEADER_IMBALANCE",
    "LEADER_IMBALANCE_DAILY",
    "OFFLINE_INTERVALS",
    "REPORT_ANOMALIES",
    "TABLES",
    "UNCLEAN_ELECTIONS",
    "UNCLEAN_ELECTIONS_DAILY",
]

_BROKERS = ArrayType(IntegerType())
_CLUSTER = column("cluster", StringType(), "Cluster.", nullable=False)
_TOPIC = column("topic", StringType(), "Topic.", nullable=False)
_PARTITION = column("partition", IntegerType(), "Partition number.", nullable=False)
_BROKER = column("broker", IntegerType(), "Broker id.", nullable=False)
_DAY = column("day", DateType(), "UTC day.", nullable=False)
_RUN = column("run_id", StringType(), "Report run that wrote the row.", nullable=False)


def _int(name: str, comment: str, *, nullable: bool = False) -> StructField:
    return column(name, IntegerType(), comment, nullable=nullable)


LEADER_IMBALANCE = TableSpec(
    layer="gold",
    name="leader_imbalance",
    description="Per broker and observation time: Kafka's leader imbalance ratio, leaders, "
    "PreferredReplicaImbalanceCount, compared with the controller's logged ratios.",
    schema=StructType(
        [
            _CLUSTER,
            column(
                "observed_at",
                TimestampType(),
                "Observation time (UTC): a leadership, assignment or deletion change, or the "
                "controller's 'Leader imbalance ratio' line for the broker (its check's start "
                "when the check logged none for it).",
                nullable=False,
            ),
            column(
                "observation",
                StringType(),
                "change (state after the change at observed_at) or check (the state the "
                "controller's auto-rebalance check saw: before that millisecond's changes).",
                nullable=False,
            ),
            _BROKER,
            _int(
                "preferred_partitions",
                "Partitions whose preferred replica (first assigned) is the broker, topics "
                "queued for deletion excluded.",
            ),
            _int("led_preferred", "Of those, partitions the broker leads."),
            _int(
                "not_led",
                "Of those, partitions with leadership whose leader is another broker or none (-1).",
            ),
            column(
                "imbalance_ratio",
                DoubleType(),
                "not_led / preferred_partitions: the ratio the ZooKeeper controller's "
                "auto-rebalance computes (null when the broker is no partition's preferred "
                "replica).",
            ),
            column(
                "threshold",
                DoubleType(),
                "leader.imbalance.per.broker.percentage / 100.",
                nullable=False,
            ),
            column(
                "would_trigger",
                BooleanType(),
                "imbalance_ratio > threshold (strict): the controller's auto-rebalance acts for "
                "this broker (ZooKeeper mode; null for KRaft).",
            ),
            _int("leaders", "Partitions the broker leads (all topics)."),
            _int("leaders_total", "Partitions of the cluster that have a leader."),
            column("leader_share", DoubleType(), "leaders / leaders_total."),
            _int(
                "preferred_imbalance",
                "Partitions preferred to the broker counted by PreferredReplicaImbalanceCount "
                "under the release's definition.",
            ),
            _int(
                "preferred_imbalance_total",
                "The cluster's PreferredReplicaImbalanceCount (JMX kafka.controller:"
                "type=KafkaController,name=PreferredReplicaImbalanceCount).",
            ),
            column(
                "preferred_imbalance_rule",
                StringType(),
                "Definition used: zk_before_2_7 (leader != first replica), zk_2_7 (reassignment "
                "exception, KAFKA-10040) or kraft (offline partitions count).",
                nullable=False,
            ),
            _int(
                "kraft_candidates",
                "KRaft: partitions preferred to the broker it does not lead (the KRaft "
                "controller's preferred-election candidates); null for ZooKeeper.",
                nullable=True,
            ),
            _int(
                "kraft_candidates_total",
                "KRaft: the cluster's imbalanced partitions; null for ZooKeeper.",
                nullable=True,
            ),
            column(
                "logged_ratio",
                DoubleType(),
                "Check rows: the ratio the controller logged ('Leader imbalance ratio for "
                "broker B is R').",
            ),
            column(
                "logged_matches",
                BooleanType(),
                "Check rows: logged_ratio equals imbalance_ratio exactly (a difference is in "
                "gold.report_anomalies).",
            ),
            _int("controller_id", "Check rows: the controller that logged.", nullable=True),
            column("evidence", StringType(), "Check rows: file:line of the logged ratio."),
            column(
                "check_started_at",
                TimestampType(),
                "Check rows: when the check began (UTC; its 'Checking need to trigger auto "
                "leader balancing' line, else its first ratio line). The counts are the state "
                "then; observed_at is the time of the broker's own ratio line.",
            ),
            _RUN,
        ]
    ),
)

LEADER_IMBALANCE_DAILY = TableSpec(
    layer="gold",
    name="leader_imbalance_daily",
    description="Per broker and UTC day: highest imbalance ratio, time above the threshold, "
    "logged checks and the preferred elections that followed.",
    schema=StructType(
        [
            _CLUSTER,
            _DAY,
            _BROKER,
            _int("observations", "Rows of gold.leader_imbalance that day."),
            column("max_ratio", DoubleType(), "Highest imbalance ratio in force that day."),
            column("max_ratio_at", TimestampType(), "When it was first in force that day."),
            column(
                "seconds_above_threshold",
                DoubleType(),
                "Seconds of the day the ratio was strictly above the threshold.",
                nullable=False,
            ),
            column(
                "observed_seconds",
                DoubleType(),
                "Seconds of the day the evidence covers.",
                nullable=False,
            ),
            _int("checks_logged", "Auto-rebalance checks the controller logged for the broker."),
            _int(
                "checks_over_threshold",
                "Of those, checks whose logged ratio exceeded the threshold (the controller ran "
                "a preferred election for the broker's partitions that could move).",
            ),
            _int("check_mismatches", "Checks whose logged ratio differs from the computed one."),
            _int(
                "preferred_elections",
                "Preferred-replica elections that moved leadership to the broker that day.",
            ),
            _int("leaders_min", "Fewest partitions led that day.", nullable=True),
            _int("leaders_max", "Most partitions led that day.", nullable=True),
            column("threshold", DoubleType(), "The threshold in force.", nullable=False),
            _RUN,
        ]
    ),
)

UNCLEAN_ELECTIONS = TableSpec(
    layer="gold",
    name="unclean_elections",
    description="Every unclean election: the setting that allowed it, the ISR before, when the "
    "new leader left the ISR and the exposure, offsets at risk.",
    schema=StructType(
        [
            _CLUSTER,
            _TOPIC,
            _PARTITION,
            column("elected_at", TimestampType(), "When (UTC)."),
            column("day", DateType(), "Its UTC day."),
            _int("controller_id", "Controller that elected.", nullable=True),
            _int("controller_epoch", "Its epoch.", nullable=True),
            column(
                "trigger",
                StringType(),
                "offline (broker failure or return), admin_unclean (kafka-leader-election "
                "--election-type unclean), ...",
                nullable=False,
            ),
            _int("prev_leader", "Leader before (-1: none).", nullable=True),
            _int("new_leader", "The out-of-sync replica elected."),
            _int("leader_epoch", "New leader epoch.", nullable=True),
            column("isr_before", _BROKERS, "ISR just before the election (without new_leader)."),
            column("isr_after", _BROKERS, "ISR written with the new leader."),
            column("assignment", _BROKERS, "Replica assignment."),
            column("live_brokers", _BROKERS, "Live brokers at the time."),
            column(
                "unclean_setting",
                BooleanType(),
                "unclean.leader.election.enable in force for the topic.",
            ),
            column(
                "unclean_setting_source",
                StringType(),
                "Where it came from: topic_config, broker_config, configured_default, "
                "version_default, admin or what_if.",
            ),
            column(
                "new_leader_left_isr_at",
                TimestampType(),
                "When the new leader last left the ISR (UTC).",
            ),
            column(
                "exposure_seconds",
                DoubleType(),
                "Seconds from new_leader_left_isr_at to the election: the window of acknowledged "
                "writes the new leader may lack.",
            ),
            column(
                "exposure_source",
                StringType(),
                "replay (the election row gave it) or timeline (recomputed from the partition's "
                "ISR history); null when unknown.",
            ),
            column(
                "offline_seconds",
                DoubleType(),
                "How long the partition had no leader before this election (0: straight from "
                "another leader).",
            ),
            column(
                "high_watermark",
                LongType(),
                "Last high watermark a broker logged before the election.",
            ),
            column(
                "new_leader_start_offset",
                LongType(),
                "Offset the new leader started its epoch at (or its log end offset when it left "
                "the ISR).",
            ),
            column(
                "offsets_at_risk",
                LongType(),
                "high_watermark - new_leader_start_offset, when both are known.",
            ),
            _int("expected_leader", "Leader Kafka's rules give.", nullable=True),
            column("agrees", BooleanType(), "The evidence agrees with Kafka's rules."),
            column("evidence", ArrayType(StringType()), "Lines or ZooKeeper writes showing it."),
            column("detail", StringType(), "How the trigger and verdict were inferred."),
            _RUN,
        ]
    ),
)

UNCLEAN_ELECTIONS_DAILY = TableSpec(
    layer="gold",
    name="unclean_elections_daily",
    description="Unclean elections per topic and UTC day: count, partitions, exposure, offsets.",
    schema=StructType(
        [
            _CLUSTER,
            _DAY,
            _TOPIC,
            _int("unclean_elections", "Unclean elections."),
            _int("partitions", "Distinct partitions concerned."),
            column("max_exposure_seconds", DoubleType(), "Longest known exposure."),
            column(
                "total_exposure_seconds",
                DoubleType(),
                "Sum of the known exposures.",
                nullable=False,
            ),
            _int("unknown_exposure", "Elections whose exposure is unknown."),
            column("offsets_at_risk", LongType(), "Sum of the known offsets at risk."),
            column("first_at", TimestampType(), "First unclean election that day."),
            column("last_at", TimestampType(), "Last unclean election that day."),
            column(
                "setting_sources",
                ArrayType(StringType()),
                "Where the unclean settings in force came from.",
            ),
            _RUN,
        ]
    ),
)

OFFLINE_INTERVALS = TableSpec(
    layer="gold",
    name="offline_intervals",
    description="Every stretch of time a partition had no leader: start, end, duration, cause, "
    "what ended it.",
    schema=StructType(
        [
            _CLUSTER,
            _TOPIC,
            _PARTITION,
            column(
                "offline_from",
                TimestampType(),
                "When it lost its leader (UTC).",
                nullable=False,
            ),
            column(
                "offline_to",
                TimestampType(),
                "When a leader was elected again; null when still offline at the end.",
            ),
            column(
                "duration_seconds",
                DoubleType(),
                "offline_to - offline_from (open: up to the end of the evidence).",
            ),
            column(
                "open_ended",
                BooleanType(),
                "Still offline when the evidence ends.",
                nullable=False,
            ),
            _int("prev_leader", "Leader it lost.", nullable=True),
            _int("next_leader", "Leader that ended it.", nullable=True),
            column("isr_at_start", _BROKERS, "ISR while offline."),
            column("assignment", _BROKERS, "Replica assignment."),
            column(
                "cause",
                StringType(),
                "Why: the lost leader's broker failing (failed, session expired, fenced, "
                "controlled shutdown) and the failed election (no live ISR member, unclean "
                "disabled).",
                nullable=False,
            ),
            column(
                "ended_by",
                StringType(),
                "The election that ended it (offline election, unclean offline election, "
                "admin_unclean election, ...), topic deleted, or evidence ends.",
                nullable=False,
            ),
            column("evidence", ArrayType(StringType()), "Lines or writes that opened/closed it."),
            _RUN,
        ]
    ),
)

CONTROLLER_HISTORY = TableSpec(
    layer="gold",
    name="controller_history",
    description="Every active controller's term: id, epoch, from, to, how it ended.",
    schema=StructType(
        [
            _CLUSTER,
            _int("controller_id", "Active controller (broker or KRaft node id).", nullable=True),
            _int("controller_epoch", "Its epoch (ZooKeeper or KRaft quorum).", nullable=True),
            column("active_from", TimestampType(), "Start of the term (UTC)."),
            column("active_to", TimestampType(), "End of the term; null when still active."),
            column(
                "duration_seconds",
                DoubleType(),
                "Length of the term (still active: up to the end of the evidence).",
            ),
            column(
                "ended_by",
                StringType(),
                "resigned, session_expired, broker_failed, re-elected, superseded (another "
                "controller took over, no resignation on record) or still_active.",
                nullable=False,
            ),
            _int("successor_id", "Next controller.", nullable=True),
            column("evidence", ArrayType(StringType()), "Lines or writes that opened/closed it."),
            _RUN,
        ]
    ),
)

REPORT_ANOMALIES = TableSpec(
    layer="gold",
    name="report_anomalies",
    description="Anomalies the report finds (logged imbalance ratios that differ from the "
    "computed ones), in gold.anomalies' columns.",
    schema=StructType(
        [
            column(
                f.name,
                f.dataType,
                "imbalance_ratio_mismatch (a logged ratio differs from the computed one) or "
                "imbalance_ratio_unlogged (a check logged no ratio for a broker with preferred "
                "partitions)."
                if f.name == "kind"
                else (
                    "Report run that wrote the row."
                    if f.name == "run_id"
                    else str(f.metadata.get("comment", ""))
                ),
                nullable=f.nullable,
            )
            for f in ANOMALIES.schema.fields
        ]
    ),
)

TABLES: tuple[TableSpec, ...] = (
    LEADER_IMBALANCE,
    LEADER_IMBALANCE_DAILY,
    UNCLEAN_ELECTIONS,
    UNCLEAN_ELECTIONS_DAILY,
    OFFLINE_INTERVALS,
    CONTROLLER_HISTORY,
    REPORT_ANOMALIES,
)
