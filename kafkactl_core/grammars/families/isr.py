"""ISR changes: notifications and AlterIsr/AlterPartition (controller), shrink/expand (brokers).

Controller side (controller.log, FORMATS.md 4.6): before 2.7 a leader's ISR change reaches the
controller as a ZooKeeper notification, logged only as ``Sending MetadataRequest to Brokers: ...
for TopicPartitions: ...``; from 2.7 (AlterIsr, AlterPartition from 3.2) the controller logs
``Updating ISRs for partitions: ...`` and, per partition, ``ISR for partition t-0 updated to
[1,2] and zkVersion updated to [5]`` (2.7 - 3.2) or ``... updated to LeaderAndIsr(...).`` (3.3+).

Broker side (server.log, logger ``kafka.cluster.Partition``): ``Shrinking ISR``/``Expanding ISR``
(prefix ``Partition [t,0] on broker 1: `` up to 0.11, ``[Partition t-0 broker=1] `` from 1.0; 2.4
appended the leader's high watermark and end offset to the shrink line) and, from 2.7, ``ISR
updated to 2,1 and version updated to [3]``. The later form ``ISR updated to 3,1  and version
updated to 51`` (the double space is an empty ``(under-min-isr)`` marker) is seen in 4.0; the
release that introduced it is not pinned down here, so its range overlaps the bracketed one.
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, Mode, controller_event, event, ignored
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.events import IgnoredFamily as F
from kafkactl_core.grammars.fragments import (
    CTRL_IDENT,
    ID,
    INT,
    INTS,
    LAI_V3_3,
    LAI_V3_5,
    PARTITION_IDENT,
    PARTITION_IDENT_OLD,
    REST,
    TEXT,
    TP,
    TPS,
    TPS_BRACKET_NONEMPTY,
    TPS_NONEMPTY,
    coll,
)

_WRITER = "topic partition origin_broker"

ENTRIES: tuple[GrammarEntry, ...] = (
    controller_event(
        "isr_change_notification/bracket",
        T.ISR_CHANGE_NOTIFICATION,
        "Sending MetadataRequest to Brokers:",
        f"{CTRL_IDENT}Sending MetadataRequest to Brokers:{coll(INTS)}"
        f" for TopicAndPartitions:{coll(TPS_BRACKET_NONEMPTY)}",
        "origin_broker brokers partitions",
        before="1.0",
    ),
    controller_event(
        "isr_change_notification/1.0",
        T.ISR_CHANGE_NOTIFICATION,
        "Sending MetadataRequest to Brokers:",
        f"{CTRL_IDENT}Sending MetadataRequest to Brokers:{coll(INTS)}"
        f" for TopicAndPartitions:{coll(TPS_NONEMPTY)}",
        "origin_broker brokers partitions",
        since="1.0",
        before="1.1",
    ),
    controller_event(
        "isr_change_notification",
        T.ISR_CHANGE_NOTIFICATION,
        "Sending MetadataRequest to Brokers: ",
        f"{CTRL_IDENT}Sending MetadataRequest to Brokers:"
        f" {coll(INTS)} for TopicPartitions: {coll(TPS)}",
        "origin_broker brokers partitions",
        since="1.1",
    ),
    controller_event(
        "alter_isr_received",
        T.ALTER_ISR_RECEIVED,
        "Updating ISRs for partitions: ",
        rf"{CTRL_IDENT}Updating ISRs for partitions: {coll(TPS)}\.",
        "origin_broker partitions",
        since="2.7",
    ),
    controller_event(
        "alter_isr_applied/zk_version",
        T.ALTER_ISR_APPLIED,
        " and zkVersion updated to [",
        f"{CTRL_IDENT}ISR for partition {TP} updated to"
        rf" \[{INTS}\] and zkVersion updated to \[{INT}\]",
        "origin_broker topic partition isr zk_version",
        since="2.7",
        before="3.3",
    ),
    controller_event(
        "alter_isr_applied/leader_and_isr_3.3",
        T.ALTER_ISR_APPLIED,
        " updated to LeaderAndIsr(",
        rf"{CTRL_IDENT}ISR for partition {TP} updated to {LAI_V3_3}\.",
        "origin_broker topic partition leader leader_epoch isr leader_recovery_state "
        "partition_epoch",
        since="3.3",
        before="3.5",
    ),
    controller_event(
        "alter_isr_applied/leader_and_isr_3.5",
        T.ALTER_ISR_APPLIED,
        " updated to LeaderAndIsr(",
        rf"{CTRL_IDENT}ISR for partition {TP} updated to {LAI_V3_5}\.",
        "origin_broker topic partition leader leader_epoch isr leader_recovery_state "
        "partition_epoch",
        since="3.5",
    ),
    controller_event(
        "alter_isr_failed/with_state",
        T.ALTER_ISR_FAILED,
        ", bad ZK version.",
        rf"{CTRL_IDENT}Failed to update ISR to {TEXT} for partition {TP}, bad ZK version\.",
        "origin_broker detail topic partition",
        since="2.7",
    ),
    controller_event(
        "alter_isr_failed/3.0",
        T.ALTER_ISR_FAILED,
        ", bad ZK version",
        f"{CTRL_IDENT}Failed to update ISR for partition {TP}, bad ZK version",
        "origin_broker topic partition",
        since="3.0",
        before="3.1",
    ),
    controller_event(
        "alter_isr_rejected/unknown_broker",
        T.ALTER_ISR_REJECTED,
        " due to unknown broker ",
        f"{CTRL_IDENT}Ignoring (AlterIsr|AlterPartition) due to unknown broker {ID}",
        "origin_broker detail broker",
        since="2.7",
        constants={"error": "unknown_broker"},
    ),
    controller_event(
        "alter_isr_rejected/stale_broker_epoch",
        T.ALTER_ISR_REJECTED,
        " due to stale broker epoch ",
        f"{CTRL_IDENT}Ignoring (AlterIsr|AlterPartition) due to stale broker"
        f" epoch {INT}(?: and local broker epoch {REST})? for broker {ID}",
        "origin_broker detail broker_epoch broker",
        since="2.7",
        constants={"error": "stale_broker_epoch"},
    ),
    controller_event(
        "alter_isr_rejected/rejected",
        T.ALTER_ISR_REJECTED,
        "Rejecting AlterPartition ",
        f"{CTRL_IDENT}Rejecting (AlterPartition)(?: request)?"
        f" from node {ID} for {TP} because {TEXT}",
        "origin_broker detail broker topic partition error",
        since="3.2",
    ),
    # --- broker side, kafka.cluster.Partition (server.log) ---
    event(
        "isr_shrink/0.8",
        T.ISR_SHRINK,
        ": Shrinking ISR ",
        rf"{PARTITION_IDENT_OLD}Shrinking ISR (?:for partition [^ \n]+ )?from {INTS} to {INTS}",
        f"{_WRITER} previous_isr isr",
        before="1.0",
        copies="leader=origin_broker",
    ),
    event(
        "isr_expand/0.8",
        T.ISR_EXPAND,
        ": Expanding ISR ",
        rf"{PARTITION_IDENT_OLD}Expanding ISR (?:for partition [^ \n]+ )?from {INTS} to {INTS}",
        f"{_WRITER} previous_isr isr",
        before="1.0",
        copies="leader=origin_broker",
    ),
    event(
        "isr_shrink/1.0",
        T.ISR_SHRINK,
        "] Shrinking ISR from ",
        f"{PARTITION_IDENT}Shrinking ISR from {INTS} to {INTS}",
        f"{_WRITER} previous_isr isr",
        since="1.0",
        before="2.4",
        copies="leader=origin_broker",
    ),
    event(
        "isr_shrink/with_offsets",
        T.ISR_SHRINK,
        "] Shrinking ISR from ",
        rf"{PARTITION_IDENT}Shrinking ISR from {INTS} to {INTS}\. Leader: \(highWatermark:"
        rf" {INT}, endOffset: {INT}\)\. Out of sync replicas: {TEXT}\.",
        f"{_WRITER} previous_isr isr high_watermark end_offset detail",
        since="2.1",
        mode=Mode.ANY,
        copies="leader=origin_broker",
    ),
    event(
        "isr_expand",
        T.ISR_EXPAND,
        "] Expanding ISR from ",
        f"{PARTITION_IDENT}Expanding ISR from {INTS} to {INTS}",
        f"{_WRITER} previous_isr isr",
        since="1.0",
        mode=Mode.ANY,
        copies="leader=origin_broker",
    ),
    event(
        "isr_update_committed/zk_version",
        T.ISR_UPDATE_COMMITTED,
        " and version updated to [",
        rf"{PARTITION_IDENT}ISR updated to {INTS} and version updated to \[{INT}\]",
        f"{_WRITER} isr zk_version",
        since="2.7",
        before="3.6",
        mode=Mode.ANY,
        copies="leader=origin_broker",
    ),
    event(
        "isr_update_committed/partition_epoch",
        T.ISR_UPDATE_COMMITTED,
        " and version updated to ",
        f"{PARTITION_IDENT}ISR updated to {INTS}"
        rf" (?:\(under-min-isr\) )?[ ]?and version updated to {INT}",
        f"{_WRITER} isr partition_epoch",
        since="3.3",
        mode=Mode.ANY,
        copies="leader=origin_broker",
    ),
    ignored(
        "partition_detail/log_loaded",
        F.PARTITION_DETAIL,
        "Log loaded for partition ",
        rf"\[Partition [^\]\n]+\] Log loaded for partition {REST}",
        since="2.4",
        mode=Mode.ANY,
    ),
    ignored(
        "partition_detail/missing_created",
        F.PARTITION_DETAIL,
        " to exist, but it was missing. Creating...",
        r"\[Broker id=[0-9]+\] Expected partition [^ \n]+ with topic id [A-Za-z0-9_-]+ to exist,"
        r" but it was missing\. Creating\.\.\.",
        since="3.0",
        mode=Mode.KRAFT,
    ),
    ignored(
        "partition_detail/no_checkpointed_hw",
        F.PARTITION_DETAIL,
        "No checkpointed highwatermark is found for partition ",
        r"(?:Partition \[[^\]\n]+\] on broker [0-9]+: |\[Partition [^\]\n]+\] )No"
        f" checkpointed highwatermark is found for partition {REST}",
    ),
    controller_event(
        "alter_isr_failed/processing",
        T.ALTER_ISR_FAILED,
        "Error when processing Alter",
        f"{CTRL_IDENT}Error when processing (AlterIsr|AlterPartition)(?: for partitions)?: {TEXT}",
        "origin_broker api detail",
        since="2.7",
    ),
)
