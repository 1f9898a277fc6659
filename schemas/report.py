"""Gold tables of the report stage: leader imbalance (per observation and per day), unclean
elections (each, and per topic and day), offline intervals, controller history, the anomalies
the report finds, under-replicated intervals, the daily ISR churn, each broker's history and
the reassignments, and each topic's life.

Each table carries one ``kafkactl_core.report`` record per row (``ImbalanceRow``,
``ImbalanceDailyRow``, ``UncleanRow``, ``UncleanDailyRow``, ``OfflineInterval``,
``ControllerTenure``, ``UnderReplicatedInterval``, ``IsrChurnDailyRow``, ``BrokerInterval``,
``Reassignment``, ``TopicLifecycle``): the record declares the columns, their order and types
(``record_columns``), this module their comments, then ``run_id``. ``gold.report_anomalies`` has
the columns of ``gold.anomalies``: the report replaces its own rows per cluster there, because
appending to ``gold.anomalies`` would be wiped by the next replay (which replaces that table's
cluster rows) and duplicated by the next report. Query both with ``UNION ALL``.
"""

from __future__ import annotations

from pyspark.sql.types import LongType, StringType, StructType

from kafkactl_core.report import rows
from schemas.catalog import TableSpec, column
from schemas.gold import ANOMALIES, OFFSETS
from schemas.records import record_columns

__all__ = [
    "BROKER_TIMELINE",
    "CONTROLLER_HISTORY",
    "ISR_CHURN_DAILY",
    "LEADER_IMBALANCE",
    "LEADER_IMBALANCE_DAILY",
    "OFFLINE_INTERVALS",
    "PARTITION_SPANS",
    "REASSIGNMENTS",
    "REPORT_ANOMALIES",
    "TABLES",
    "TOPIC_LIFECYCLE",
    "UNCLEAN_ELECTIONS",
    "UNCLEAN_ELECTIONS_DAILY",
    "UNDER_REPLICATED",
]

_CLUSTER = {"cluster": "Cluster."}
_KEY = {**_CLUSTER, "topic": "Topic.", "partition": "Partition number."}
_BROKER = "Broker id."
_DAY = "UTC day."
_RUN = column("run_id", StringType(), "Report run that wrote the row.", nullable=False)


LEADER_IMBALANCE = TableSpec(
    layer="gold",
    name="leader_imbalance",
    description="Per broker and observation time: Kafka's leader imbalance ratio, leaders, "
    "PreferredReplicaImbalanceCount, compared with the controller's logged ratios.",
    schema=StructType(
        [
            *record_columns(
                rows.ImbalanceRow,
                {
                    **_CLUSTER,
                    "observed_at": "Observation time (UTC): a leadership, assignment or "
                    "deletion change, or the controller's 'Leader imbalance ratio' line for the "
                    "broker (its check's start when the check logged none for it).",
                    "observation": "change (state after the change at observed_at) or check "
                    "(the state the controller's auto-rebalance check saw: before that "
                    "millisecond's changes).",
                    "broker": _BROKER,
                    "preferred_partitions": "Partitions whose preferred replica (first "
                    "assigned) is the broker, topics queued for deletion excluded.",
                    "led_preferred": "Of those, partitions the broker leads.",
                    "not_led": "Of those, partitions with leadership whose leader is another "
                    "broker or none (-1).",
                    "imbalance_ratio": "not_led / preferred_partitions: the ratio the ZooKeeper "
                    "controller's auto-rebalance computes (null when the broker is no "
                    "partition's preferred replica).",
                    "threshold": "leader.imbalance.per.broker.percentage / 100.",
                    "would_trigger": "imbalance_ratio > threshold (strict): the controller's "
                    "auto-rebalance acts for this broker (ZooKeeper mode; null for KRaft).",
                    "leaders": "Partitions the broker leads (all topics).",
                    "leaders_total": "Partitions of the cluster that have a leader.",
                    "leader_share": "leaders / leaders_total.",
                    "preferred_imbalance": "Partitions preferred to the broker counted by "
                    "PreferredReplicaImbalanceCount under the release's definition.",
                    "preferred_imbalance_total": "The cluster's PreferredReplicaImbalanceCount "
                    "(JMX kafka.controller:type=KafkaController,"
                    "name=PreferredReplicaImbalanceCount).",
                    "preferred_imbalance_rule": "Definition used: zk_before_2_7 (leader != "
                    "first replica), zk_2_7 (reassignment exception, KAFKA-10040) or kraft "
                    "(offline partitions count).",
                    "kraft_candidates": "KRaft: partitions preferred to the broker it does not "
                    "lead (the KRaft controller's preferred-election candidates); null for "
                    "ZooKeeper.",
                    "kraft_candidates_total": "KRaft: the cluster's imbalanced partitions; null "
                    "for ZooKeeper.",
                    "logged_ratio": "Check rows: the ratio the controller logged ('Leader "
                    "imbalance ratio for broker B is R').",
                    "logged_matches": "Check rows: logged_ratio equals imbalance_ratio exactly "
                    "(a difference is in gold.report_anomalies).",
                    "controller_id": "Check rows: the controller that logged.",
                    "evidence": "Check rows: file:line of the logged ratio.",
                    "check_started_at": "Check rows: when the check began (UTC; its 'Checking "
                    "need to trigger auto leader balancing' line, else its first ratio line). "
                    "The counts are the state then; observed_at is the time of the broker's own "
                    "ratio line.",
                },
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
            *record_columns(
                rows.ImbalanceDailyRow,
                {
                    **_CLUSTER,
                    "day": _DAY,
                    "broker": _BROKER,
                    "observations": "Rows of gold.leader_imbalance that day.",
                    "max_ratio": "Highest imbalance ratio in force that day.",
                    "max_ratio_at": "When it was first in force that day.",
                    "seconds_above_threshold": "Seconds of the day the ratio was strictly above "
                    "the threshold.",
                    "observed_seconds": "Seconds of the day the evidence covers.",
                    "checks_logged": "Auto-rebalance checks the controller logged for the broker.",
                    "checks_over_threshold": "Of those, checks whose logged ratio exceeded the "
                    "threshold (the controller ran a preferred election for the broker's "
                    "partitions that could move).",
                    "check_mismatches": "Checks whose logged ratio differs from the computed one.",
                    "preferred_elections": "Preferred-replica elections that moved leadership "
                    "to the broker that day.",
                    "leaders_min": "Fewest partitions led that day.",
                    "leaders_max": "Most partitions led that day.",
                    "threshold": "The threshold in force.",
                },
            ),
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
            *record_columns(
                rows.UncleanRow,
                {
                    **_KEY,
                    "elected_at": "When (UTC).",
                    "day": "Its UTC day.",
                    "controller_id": "Controller that elected.",
                    "controller_epoch": "Its epoch.",
                    "trigger": "offline (broker failure or return), admin_unclean "
                    "(kafka-leader-election --election-type unclean), ...",
                    "prev_leader": "Leader before (-1: none).",
                    "new_leader": "The out-of-sync replica elected.",
                    "leader_epoch": "New leader epoch.",
                    "isr_before": "ISR just before the election (without new_leader).",
                    "isr_after": "ISR written with the new leader.",
                    "assignment": "Replica assignment.",
                    "live_brokers": "Live brokers at the time.",
                    "unclean_setting": "unclean.leader.election.enable in force for the topic.",
                    "unclean_setting_source": "Where it came from: topic_config, "
                    "broker_config, configured_default, version_default, admin or what_if.",
                    "new_leader_left_isr_at": "When the new leader last left the ISR (UTC).",
                    "exposure_seconds": "Seconds from new_leader_left_isr_at to the election: "
                    "the window of acknowledged writes the new leader may lack.",
                    "exposure_source": "replay (the election row gave it) or timeline "
                    "(recomputed from the partition's ISR history); null when unknown.",
                    "offline_seconds": "How long the partition had no leader before this "
                    "election (0: straight from another leader).",
                    "high_watermark": "Last high watermark a broker logged before the election.",
                    "new_leader_start_offset": "Offset the new leader started its epoch at (or "
                    "its log end offset when it left the ISR).",
                    "offsets_at_risk": "high_watermark - new_leader_start_offset, when both are "
                    "known.",
                    "expected_leader": "Leader Kafka's rules give.",
                    "agrees": "The evidence agrees with Kafka's rules.",
                    "evidence": "Lines or ZooKeeper writes showing it.",
                    "detail": "How the trigger and verdict were inferred.",
                },
                types=OFFSETS,
            ),
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
            *record_columns(
                rows.UncleanDailyRow,
                {
                    **_CLUSTER,
                    "day": _DAY,
                    "topic": _KEY["topic"],
                    "unclean_elections": "Unclean elections.",
                    "partitions": "Distinct partitions concerned.",
                    "max_exposure_seconds": "Longest known exposure.",
                    "total_exposure_seconds": "Sum of the known exposures.",
                    "unknown_exposure": "Elections whose exposure is unknown.",
                    "offsets_at_risk": "Sum of the known offsets at risk.",
                    "first_at": "First unclean election that day.",
                    "last_at": "Last unclean election that day.",
                    "setting_sources": "Where the unclean settings in force came from.",
                },
                types={"offsets_at_risk": LongType()},
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
            *record_columns(
                rows.OfflineInterval,
                {
                    **_KEY,
                    "offline_from": "When it lost its leader (UTC).",
                    "offline_to": "When a leader was elected again; null when still offline at "
                    "the end.",
                    "duration_seconds": "offline_to - offline_from (open: up to the end of the "
                    "evidence).",
                    "open_ended": "Still offline when the evidence ends.",
                    "prev_leader": "Leader it lost.",
                    "next_leader": "Leader that ended it.",
                    "isr_at_start": "ISR while offline.",
                    "assignment": "Replica assignment.",
                    "cause": "Why: the lost leader's broker failing (failed, session expired, "
                    "fenced, controlled shutdown) and the failed election (no live ISR member, "
                    "unclean disabled).",
                    "ended_by": "The election that ended it (offline election, unclean offline "
                    "election, admin_unclean election, ...), topic deleted, or evidence ends.",
                    "evidence": "Lines or writes that opened/closed it.",
                },
            ),
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
            *record_columns(
                rows.ControllerTenure,
                {
                    **_CLUSTER,
                    "controller_id": "Active controller (broker or KRaft node id).",
                    "controller_epoch": "Its epoch (ZooKeeper or KRaft quorum).",
                    "active_from": "Start of the term (UTC).",
                    "active_to": "End of the term; null when still active.",
                    "duration_seconds": "Length of the term (still active: up to the end of "
                    "the evidence).",
                    "ended_by": "resigned, session_expired, broker_failed, re-elected, "
                    "superseded (another controller took over, no resignation on record) or "
                    "still_active.",
                    "successor_id": "Next controller.",
                    "evidence": "Lines or writes that opened/closed it.",
                },
            ),
            _RUN,
        ]
    ),
)

_REPORT_COMMENTS = {
    "kind": "imbalance_ratio_mismatch (a logged ratio differs from the computed one) or "
    "imbalance_ratio_unlogged (a check logged no ratio for a broker with preferred partitions).",
    "run_id": _RUN.metadata["comment"],
}

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
                _REPORT_COMMENTS.get(f.name, f.metadata["comment"]),
                nullable=f.nullable,
            )
            for f in ANOMALIES.schema.fields
        ]
    ),
)

UNDER_REPLICATED = TableSpec(
    layer="gold",
    name="under_replicated",
    description="Every stretch of time a led partition had fewer in-sync replicas than replicas "
    "(under_replicated) or than min.insync.replicas (under_min_isr), with its duration.",
    schema=StructType(
        [
            *record_columns(
                rows.UnderReplicatedInterval,
                {
                    **_KEY,
                    "condition": "under_replicated (ISR smaller than the replicas, as Kafka's "
                    "UnderReplicatedPartitions) or under_min_isr (ISR smaller than "
                    "min.insync.replicas capped at the replicas, UnderMinIsrPartitionCount: "
                    "acks=all producers refused).",
                    "under_from": "When it began (UTC).",
                    "under_to": "When it ended; null when it still held at the end.",
                    "duration_seconds": "under_to - under_from (open: up to the end of the "
                    "evidence).",
                    "open_ended": "Still holding when the evidence ends.",
                    "leader_at_start": "Leader when it began.",
                    "replicas": "Replica assignment when it began (during a reassignment, with "
                    "the replicas being added).",
                    "isr_at_start": "ISR when it began.",
                    "smallest_isr": "Fewest in-sync replicas during it.",
                    "out_of_sync": "Every replica out of the ISR at some moment during it.",
                    "min_insync_replicas": "min.insync.replicas in force when it began.",
                    "min_insync_replicas_source": "topic_config, broker_config, "
                    "static_broker_config, configured_default (kafka_defaults) or "
                    "version_default.",
                    "evidence": "Lines or writes that opened/closed it.",
                },
            ),
            _RUN,
        ]
    ),
)

BROKER_TIMELINE = TableSpec(
    layer="gold",
    name="broker_timeline",
    description="Per broker, every stretch it was online, in controlled shutdown or offline, "
    "with the cause and the evidence.",
    schema=StructType(
        [
            *record_columns(
                rows.BrokerInterval,
                {
                    **_CLUSTER,
                    "broker": _BROKER,
                    "state": "online (registered, not shutting down), controlled_shutdown, or "
                    "offline (not registered, or fenced in KRaft).",
                    "state_from": "When it began (UTC).",
                    "state_to": "When it ended; null when still so at the end.",
                    "duration_seconds": "state_to - state_from (open: up to the end of the "
                    "evidence).",
                    "open_ended": "Still so when the evidence ends.",
                    "cause": "registered, controlled_shutdown, or the broker-down event (failed, "
                    "session_expired, session_closed, deregistered, fenced; '... after "
                    "controlled shutdown' when it followed one).",
                    "broker_epoch": "Broker epoch of the registration in force when it began "
                    "(ZooKeeper: creation zxid of /brokers/ids/N; KRaft: brokerEpoch); null when "
                    "no evidence gave it.",
                    "evidence": "Lines or records that opened/closed it.",
                },
            ),
            _RUN,
        ]
    ),
)

REASSIGNMENTS = TableSpec(
    layer="gold",
    name="reassignments",
    description="Every change of a partition's replicas: from, to, when it started and "
    "finished, whether the leader moved, and its outcome.",
    schema=StructType(
        [
            *record_columns(
                rows.Reassignment,
                {
                    **_KEY,
                    "started": "When the replicas being added joined the assignment (UTC), or "
                    "when it changed in one step.",
                    "finished": "When the assignment became the target (or went back); null "
                    "while in progress at the end.",
                    "duration_seconds": "finished - started (in progress: up to the end of the "
                    "evidence).",
                    "replicas_from": "Assignment before.",
                    "replicas_to": "Assignment after (in progress: with the replicas being added).",
                    "adding": "Replicas the move added.",
                    "removing": "Replicas the move removed.",
                    "leader_before": "Leader when it started.",
                    "leader_after": "Leader when it finished.",
                    "leader_moved": "The leader changed between its start and its end.",
                    "outcome": "completed, cancelled (back to the replicas before), in_progress "
                    "or topic_deleted.",
                    "evidence": "Lines or records that started/finished it.",
                },
            ),
            _RUN,
        ]
    ),
)

ISR_CHURN_DAILY = TableSpec(
    layer="gold",
    name="isr_churn_daily",
    description="Per UTC day, partition and replica: how often it left (shrinks) and joined "
    "(expands) the ISR.",
    schema=StructType(
        [
            *record_columns(
                rows.IsrChurnDailyRow,
                {
                    **_CLUSTER,
                    "day": _DAY,
                    "topic": "Topic.",
                    "partition": "Partition number.",
                    "broker": "The replica (broker id).",
                    "shrinks": "Times it left the ISR that day.",
                    "expands": "Times it joined the ISR again that day.",
                    "first_at": "The day's first shrink or expand (UTC).",
                    "last_at": "The day's last shrink or expand (UTC).",
                },
            ),
            _RUN,
        ]
    ),
)

TOPIC_LIFECYCLE = TableSpec(
    layer="gold",
    name="topic_lifecycle",
    description="Per topic (and per incarnation of a recreated one): its creation, partitions, "
    "replication factor and overrides, its deletion request and completion, or why a deletion "
    "is stuck.",
    schema=StructType(
        [
            *record_columns(
                rows.TopicLifecycle,
                {
                    **_CLUSTER,
                    "topic": "Topic.",
                    "topic_id": "Topic ID (KRaft); null when no evidence gave it.",
                    "created": "When it was created (UTC); null when before the evidence.",
                    "first_seen": "Its creation, or the first evidence of it.",
                    "partitions": "Partitions it had when first seen.",
                    "replication_factor": "Replicas per partition (the largest when they differ).",
                    "assignment": "Each partition's replicas when first seen: 'p:r,r;p:r,r'.",
                    "configs": "Its overrides in force after its creation, of the keys the "
                    "replay reads ('key=value, ...').",
                    "deletion_requested": "When its deletion was requested (KRaft: removed).",
                    "deleted": "When its deletion completed.",
                    "deletion_seconds": "deleted - deletion_requested (pending: up to the end "
                    "of the evidence).",
                    "state": "active, deleting (pending less than 60 s at the end), stuck "
                    "(pending longer) or deleted.",
                    "stuck_reason": "Why a deletion is pending at the end: "
                    "delete.topic.enable=false, 'replica brokers N offline', or 'not completed "
                    "by the end of the evidence'.",
                    "evidence": "Lines or records of its creation, deletion request and deletion.",
                },
            ),
            _RUN,
        ]
    ),
)

PARTITION_SPANS = TableSpec(
    layer="gold",
    name="partition_spans",
    description="Not written: the stretches each partition existed, read from one partition "
    "at a time for gold.topic_lifecycle.",
    schema=StructType(
        record_columns(
            rows.PartitionSpan,
            {
                **_KEY,
                "existed_from": "Its first interval in a state other than NonExistentPartition.",
                "existed_to": "When it stopped existing; null when it still existed.",
                "replicas": "Its assignment when the stretch began.",
            },
        )
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
    UNDER_REPLICATED,
    ISR_CHURN_DAILY,
    BROKER_TIMELINE,
    REASSIGNMENTS,
    TOPIC_LIFECYCLE,
)
