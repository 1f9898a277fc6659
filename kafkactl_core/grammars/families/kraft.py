"""KRaft controllers (``org.apache.kafka.controller.*``, controller.log) and raft/broker lifecycle.

KRaft controllers log with the prefix ``[QuorumController id=<node>] `` (KRAFT.md section 6):
activation and renouncing of the active controller, the quorum leader of each epoch, broker
fencing/unfencing and controlled shutdown granted by heartbeats, the partition changes those
cause (``handleBrokerFenced: changing 3 partition(s)``), unclean partition changes and the
periodic balancing / unclean-election tasks. The raft layer (``[RaftManager id=N]``, server.log)
logs its quorum state transitions, and ``BrokerLifecycleManager`` the broker's own
RECOVERY -> RUNNING transition when it is unfenced.

``UNCLEAN partition change for t-0 with topic ID X: isr: [3] -> [2], leader: -1 -> 2, ...`` is
decoded into ``previous_isr``/``isr``, ``previous_leader``/``leader``, the new
``leader_recovery_state``, ``previous_leader_epoch``/``leader_epoch`` and the new
``partition_epoch``; the whole diff is also kept in ``detail``.
"""

from __future__ import annotations

from functools import partial

from kafkactl_core.grammars.entry import GrammarEntry, Mode, controller_event, event, ignored
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.events import IgnoredFamily as F
from kafkactl_core.grammars.fragments import (
    CTRL_IDENT,
    CTRL_IDENT_SKIP,
    ID,
    INT,
    INTS,
    NUM,
    RECOVERY,
    REST,
    TEXT,
    TOPIC,
    TP,
    escape_literal,
)

_K = Mode.KRAFT
_LEADER_OR_NONE = r"(?:\(none\)|(-?[0-9]+))"
_LIST = r"\[[^\]\n]*\]"
_DIFF = (
    "("
    f"(?:replicas: {_LIST} -> {_LIST}(?:, )?)?"
    f"(?:directories: {_LIST} -> {_LIST}(?:, )?)?"
    rf"(?:isr: \[{INTS}\] -> \[{INTS}\](?:, )?)?"
    f"(?:removingReplicas: {_LIST} -> {_LIST}(?:, )?)?"
    f"(?:addingReplicas: {_LIST} -> {_LIST}(?:, )?)?"
    f"(?:leader: {INT} -> {INT}(?:, )?)?"
    f"(?:leaderRecoveryState: [A-Z]+ -> {RECOVERY}(?:, )?)?"
    f"(?:leaderEpoch: {INT} -> {INT}(?:, )?)?"
    f"(?:elr: {_LIST} -> {_LIST}(?:, )?)?"
    f"(?:lastKnownElr: {_LIST} -> {_LIST}(?:, )?)?"
    f"(?:partitionEpoch: -?[0-9]+ -> {INT})?"
    ")"
)
"""Nine groups: detail (the whole diff), previous_isr, isr, previous_leader, leader,
leader_recovery_state, previous_leader_epoch, leader_epoch, partition_epoch."""
_DIFF_FIELDS = (
    "detail previous_isr isr previous_leader leader leader_recovery_state previous_leader_epoch "
    "leader_epoch partition_epoch"
)


_event = partial(event, since="2.8", mode=_K)
"""A KRaft event entry; its wording is there since 2.8 (KRaft's first release) unless ``since``."""

_controller_event = partial(controller_event, since="2.8", mode=_K)
"""A KRaft ``controller_event`` entry (its writer is the active controller), since 2.8 unless
``since``."""

_PARTITION_CREATED: tuple[tuple[str, str, str, str | None], ...] = (
    ("created", "Replayed PartitionRecord for new partition ", "3.6", None),
    ("created_before_3.6", "Created partition ", "3.0", "3.6"),
)
"""(name, wording, since, before) of the controller's line about a new partition."""

ENTRIES: tuple[GrammarEntry, ...] = (
    _controller_event(
        "kraft_controller_activated",
        T.KRAFT_CONTROLLER_ACTIVATED,
        "Becoming the active controller at epoch ",
        f"{CTRL_IDENT}Becoming the active controller at epoch"
        f" {NUM}(?:, (?:next write|committed) offset {INT})?{REST}",
        "origin_broker controller_epoch offset",
    ),
    _controller_event(
        "kraft_leadership_renounced/metadata_log_event",
        T.KRAFT_LEADERSHIP_RENOUNCED,
        "Renouncing the leadership due to a metadata log event.",
        rf"{CTRL_IDENT}Renouncing the leadership due to a metadata log event\."
        f" We were the leader at epoch {NUM}, but in the new epoch {NUM}, the"
        rf" leader is {_LEADER_OR_NONE}\. Reverting to last stable offset {INT}\.",
        "origin_broker previous_controller_epoch controller_epoch leader offset",
        constants={"phase": "metadata_log_event"},
    ),
    _controller_event(
        "kraft_leadership_renounced/not_leader",
        T.KRAFT_LEADERSHIP_RENOUNCED,
        "Renouncing leadership and reverting to the last committed offset ",
        rf"{CTRL_IDENT}([A-Za-z]+): event failed with ([A-Za-z]+) \([^)\n]*\)"
        rf" at epoch {NUM} in {NUM} microseconds\. Renouncing leadership"
        rf" and reverting to the last committed offset {INT}\.{REST}",
        "origin_broker detail error controller_epoch duration_us offset",
        constants={"phase": "not_leader"},
    ),
    _event(
        "kraft_leader_changed",
        T.KRAFT_LEADER_CHANGED,
        ", the leader is ",
        rf"{CTRL_IDENT}In the new epoch {NUM}, the leader is {_LEADER_OR_NONE}\.",
        "origin_broker controller_epoch leader",
    ),
    _controller_event(
        "kraft_broker_fenced",
        T.KRAFT_BROKER_FENCED,
        " because its session has timed out.",
        rf"{CTRL_IDENT}Fencing broker {ID} because its session has timed out\.",
        "origin_broker broker",
        before="4.0",
    ),
    _controller_event(
        "kraft_broker_fenced/with_epoch",
        T.KRAFT_BROKER_FENCED,
        " because its session has timed out.",
        rf"{CTRL_IDENT}Fencing broker {ID} at epoch {INT} because its session has timed out\.",
        "origin_broker broker broker_epoch",
        since="4.0",
    ),
    _controller_event(
        "kraft_broker_unfenced",
        T.KRAFT_BROKER_UNFENCED,
        " to unfence has been granted because ",
        f"{CTRL_IDENT}The request from broker {ID} to unfence has been granted because"
        rf" it has caught up with the offset of its register broker record {INT}\.",
        "origin_broker broker offset",
    ),
    _controller_event(
        "kraft_controlled_shutdown/granted",
        T.KRAFT_CONTROLLED_SHUTDOWN,
        " has requested and been granted a",
        f"{CTRL_IDENT}Unfenced broker {ID} has requested and been"
        r" granted (?:a|an) (controlled|immediate) shutdown\.",
        "origin_broker broker detail",
        constants={"phase": "granted"},
    ),
    _controller_event(
        "kraft_controlled_shutdown/shutdown_granted",
        T.KRAFT_CONTROLLED_SHUTDOWN,
        " to shut down has been granted since the lowest active offset ",
        f"{CTRL_IDENT}The request from broker {ID} to shut down has"
        f" been granted since the lowest active offset {INT} is now"
        rf" greater than the broker's controlled shutdown offset {INT}\.",
        "origin_broker broker offset start_offset",
        constants={"phase": "shutdown_granted"},
    ),
    _controller_event(
        "kraft_partitions_changing",
        T.KRAFT_PARTITIONS_CHANGING,
        " partition(s)",
        rf"{CTRL_IDENT}([A-Za-z]+)(?:\[([0-9]+)(?::[^\]\n]*)?\])?: changing {NUM} partition\(s\)",
        "origin_broker detail broker count",
    ),
    _controller_event(
        "kraft_partition_change/unclean",
        T.KRAFT_PARTITION_CHANGE,
        "UNCLEAN partition change for ",
        f"{CTRL_IDENT}UNCLEAN partition change for {TP} with topic ID ([A-Za-z0-9_-]+): {_DIFF}",
        f"origin_broker topic partition topic_id {_DIFF_FIELDS}",
        constants={"election_type": "UNCLEAN"},
    ),
    _controller_event(
        "kraft_partition_change/clean",
        T.KRAFT_PARTITION_CHANGE,
        "partition change for ",
        f"{CTRL_IDENT}partition change for {TP} with topic ID ([A-Za-z0-9_-]+): {_DIFF}",
        f"origin_broker topic partition topic_id {_DIFF_FIELDS}",
    ),
    _event(
        "kraft_unclean_election/building",
        T.KRAFT_UNCLEAN_ELECTION,
        " using an unclean election",
        f"(?:{CTRL_IDENT})?Setting new leader for topicId ([A-Za-z0-9_-]+),"
        f" partition {NUM} to {INT}"
        # 4.1 goes on with ". Previous partition: PartitionRegistration(...), change record: ..."
        r" using an unclean election(?:\. Previous partition: [^\n]*)?",
        "origin_broker topic_id partition leader",
        since="3.6",
        constants={"phase": "building"},
    ),
    _controller_event(
        "kraft_unclean_election/triggered",
        T.KRAFT_UNCLEAN_ELECTION,
        "Triggering unclean leader election for offline partition ",
        rf"{CTRL_IDENT}Triggering unclean leader election for offline partition {TP}\.",
        "origin_broker topic partition",
        since="3.9",
        constants={"phase": "triggered"},
    ),
    _controller_event(
        "kraft_unclean_election/failed",
        T.KRAFT_UNCLEAN_ELECTION,
        "Cannot trigger unclean leader election for offline partition ",
        f"{CTRL_IDENT}Cannot trigger unclean leader election for offline partition {TP}: {TEXT}",
        "origin_broker topic partition error",
        since="3.9",
        constants={"phase": "failed"},
    ),
    _controller_event(
        "kraft_periodic_task/named",
        T.KRAFT_PERIODIC_TASK,
        " records in ",
        f"{CTRL_IDENT}Periodic task ([A-Za-z]+) generated"
        rf" {NUM} records in {NUM} microseconds\.{REST}",
        "origin_broker detail count duration_us",
        since="4.0",
    ),
    _controller_event(
        "kraft_periodic_task/method",
        T.KRAFT_PERIODIC_TASK,
        " records in ",
        f"{CTRL_IDENT}(maybeBalancePartitionLeaders|maybeElectUncleanLeaders):"
        rf" generated {NUM} records in {NUM} microseconds\.{REST}",
        "origin_broker detail count duration_us",
        before="4.0",
    ),
    _event(
        "kraft_topic_created",
        T.KRAFT_TOPIC_CREATED,
        "Replayed TopicRecord for topic ",
        rf"{CTRL_IDENT}Replayed TopicRecord for topic {TOPIC} with topic ID ([A-Za-z0-9_-]+)\.",
        "origin_broker topic topic_id",
    ),
    *(
        _event(
            f"kraft_config_replayed/{name}",
            T.KRAFT_CONFIG_REPLAYED,
            f"Replayed ConfigRecord for ConfigResource(type={kind}",
            rf"{CTRL_IDENT}Replayed ConfigRecord for ConfigResource\(type={kind},"
            rf" name='{resource}'\) which set configuration ([^ \n]+ to [^\n]*)",
            "origin_broker " + (f"{target} " if target else "") + "detail",
            since="3.6",
            constants={"phase": name},
        )
        for name, kind, resource, target in (
            ("topic", "TOPIC", TOPIC, "topic"),
            ("broker", "BROKER", "([0-9]+)", "broker"),
            ("broker_default", "BROKER", "", ""),
        )
    ),
    _event(
        "kraft_topic_deleted",
        T.KRAFT_TOPIC_DELETED,
        "Replayed RemoveTopicRecord for topic ",
        rf"{CTRL_IDENT}Replayed RemoveTopicRecord for topic {TOPIC} with ID ([A-Za-z0-9_-]+)\.",
        "origin_broker topic topic_id",
    ),
    _controller_event(
        "kraft_broker_registered/new_incarnation",
        T.KRAFT_BROKER_REGISTERED,
        "Registering a new incarnation of broker ",
        f"{CTRL_IDENT}Registering a new incarnation of broker"
        rf" {ID}\.{REST}Broker epoch will become {INT}\.",
        "origin_broker broker broker_epoch",
        constants={"phase": "registering"},
    ),
    _event(
        "kraft_broker_registered/replayed",
        T.KRAFT_BROKER_REGISTERED,
        "Replayed RegisterBrokerRecord establishing a new incarnation of broker ",
        f"{CTRL_IDENT}Replayed RegisterBrokerRecord establishing a new incarnation of broker"
        rf" {ID}: RegisterBrokerRecord\(brokerId=[0-9]+, {REST}brokerEpoch={INT}{REST}",
        "origin_broker broker broker_epoch",
        constants={"phase": "replayed"},
    ),
    _event(
        "kraft_broker_registered/replayed_initial",
        T.KRAFT_BROKER_REGISTERED,
        "Replayed initial RegisterBrokerRecord for broker ",
        f"{CTRL_IDENT}Replayed initial RegisterBrokerRecord"
        f" for broker {ID}: {REST}brokerEpoch={INT}{REST}",
        "origin_broker broker broker_epoch",
        constants={"phase": "replayed"},
    ),
    _event(
        "kraft_broker_registration_changed",
        T.KRAFT_BROKER_REGISTRATION_CHANGED,
        "Replayed BrokerRegistrationChangeRecord modifying the registration for broker ",
        f"{CTRL_IDENT}Replayed BrokerRegistrationChangeRecord modifying the registration"
        rf" for broker {ID}: BrokerRegistrationChangeRecord\(brokerId=[0-9]+,"
        f" brokerEpoch={INT}, (fenced=-?[0-9]+, inControlledShutdown=-?[0-9]+){REST}",
        "origin_broker broker broker_epoch detail",
    ),
    # --- raft and broker lifecycle (server.log) ---
    _event(
        "raft_state_transition/completed",
        T.RAFT_STATE_TRANSITION,
        "Completed transition to ",
        rf"{CTRL_IDENT}Completed transition to ([A-Za-z]+)\((?:[^\n]*?, )?epoch=([0-9]+){REST}",
        "origin_broker to_state controller_epoch",
        constants={"phase": "completed"},
    ),
    _event(
        "raft_state_transition/attempting",
        T.RAFT_STATE_TRANSITION,
        "Attempting durable transition to ",
        f"{CTRL_IDENT}Attempting durable transition to"
        rf" ([A-Za-z]+)\((?:[^\n]*?, )?epoch=([0-9]+){REST}",
        "origin_broker to_state controller_epoch",
        constants={"phase": "attempting"},
    ),
    _event(
        "broker_lifecycle_transition/unfenced",
        T.BROKER_LIFECYCLE_TRANSITION,
        "The broker has been unfenced. Transitioning from ",
        rf"{CTRL_IDENT}The broker has been unfenced\. Transitioning from ([A-Z_]+) to ([A-Z_]+)\.",
        "origin_broker from_state to_state",
        copies="broker=origin_broker",
    ),
    _event(
        "broker_lifecycle_transition/state",
        T.BROKER_LIFECYCLE_TRANSITION,
        "The broker is in ",
        rf"{CTRL_IDENT}The broker is in ([A-Z_]+)\.",
        "origin_broker to_state",
        copies="broker=origin_broker",
    ),
    *(
        _event(
            f"kraft_partition_change/{name}",
            T.KRAFT_PARTITION_CHANGE,
            wording,
            f"{CTRL_IDENT}{escape_literal(wording)}{TP} with topic ID [A-Za-z0-9_-]+ and {TEXT}",
            "origin_broker topic partition detail",
            since=since,
            before=before,
            constants={"phase": "created"},
        )
        for name, wording, since, before in _PARTITION_CREATED
    ),
    _event(
        "kraft_partition_change/assignment_changed",
        T.KRAFT_PARTITION_CHANGE,
        "Replayed partition assignment change ",
        f"{CTRL_IDENT}Replayed partition assignment change {TEXT} for topic {TOPIC}",
        "origin_broker detail topic",
        constants={"phase": "assignment_changed"},
    ),
    _event(
        "kraft_partition_change/replayed",
        T.KRAFT_PARTITION_CHANGE,
        "Replayed partition change ",
        f"{CTRL_IDENT}Replayed partition change {TEXT} for topic {TOPIC}",
        "origin_broker detail topic",
        constants={"phase": "replayed"},
    ),
    _event(
        "kraft_broker_registration_changed/unregistered",
        T.KRAFT_BROKER_REGISTRATION_CHANGED,
        "Replayed UnregisterBrokerRecord",
        rf"{CTRL_IDENT}Replayed UnregisterBrokerRecord\(brokerId=([0-9]+), brokerEpoch={INT}\)",
        "origin_broker broker broker_epoch",
        constants={"phase": "unregistered"},
    ),
    _event(
        "kraft_broker_registration_changed/directories_offline",
        T.KRAFT_BROKER_REGISTRATION_CHANGED,
        " marked offline, remaining directories: ",
        f"{CTRL_IDENT}Directories {TEXT} in broker {ID}"
        f" marked offline, remaining directories: {REST}",
        "origin_broker detail broker",
        since="3.7",
        constants={"phase": "directories_offline"},
    ),
    _event(
        "controller_error/overlapping_isr_elr",
        T.CONTROLLER_ERROR,
        " has overlapping ISR=",
        rf"{CTRL_IDENT}{TP} has overlapping ISR=\[?{INTS}\]? and ELR={REST}",
        "origin_broker topic partition isr",
        since="3.7",
        constants={"detail": "overlapping_isr_elr"},
    ),
)

_QUEUE: tuple[tuple[str, str, str], ...] = (
    (
        "event_unable_to_start",
        ": event unable to start processing because of ",
        f"[A-Za-z]+: event unable to start processing because of {REST}",
    ),
    (
        "event_failed",
        ": event failed with ",
        rf"[A-Za-z]+: event failed with [A-Za-z]+ in [0-9]+ microseconds\. {REST}",
    ),
    (
        "tasks_activated",
        "ctivated periodic tasks: ",
        f"(?:Activated|Deactivated) periodic tasks: {REST}",
    ),
    ("task_registered", "Registering periodic task ", f"Registering periodic task {REST}"),
    ("performance", " controller events were completed", f"In the last {REST}"),
    (
        "slow_event",
        "Exceptionally slow controller event ",
        f"Exceptionally slow controller event {REST}",
    ),
    (
        "deferred_cancelled",
        "Cancelling deferred write event ",
        f"Cancelling deferred write event {REST}",
    ),
    (
        "activation",
        "Performing controller activation.",
        rf"Performing controller activation\.{REST}",
    ),
    (
        "created",
        "Creating new QuorumController with clusterId ",
        f"Creating new QuorumController with clusterId {REST}",
    ),
)

_REGISTRATION: tuple[tuple[str, str], ...] = (
    ("noop_change", "Ignoring no-op registration change for "),
    ("controller_record", "Replayed RegisterControllerRecord containing "),
    # 3.7 - 3.9 spell it so
    ("controller_record_contaning", "Replayed RegisterControllerRecord contaning "),
    ("no_previous_registration", "No previous registration found for broker "),
)

_RAFT: tuple[tuple[str, str], ...] = (
    ("vote_request", "Vote request "),
    ("high_watermark", "High watermark set to "),
    ("insufficient_votes", "Insufficient remaining votes to become leader"),
    ("fetch_failed", "Failed to handle fetch from "),
    ("no_majority_fetch", "Did not receive fetch request from the majority of the voters"),
    ("prospective", "Transitioning to Prospective state"),
)

_REPLAY: dict[str, tuple[tuple[str, str], ...]] = {
    "3.6": (
        ("transaction_begin", "Replayed BeginTransactionRecord("),
        ("transaction_end", "Replayed EndTransactionRecord("),
        ("transaction_abort", "Replayed AbortTransactionRecord("),
    ),
    "3.3": (("feature_level", "Replayed a FeatureLevelRecord setting "),),
    "2.8": (
        ("producer_ids", "Replaying ProducerIdsRecord "),
        ("create_topics_result", "CreateTopics result(s): "),
        ("delete_topics_result", "DeleteTopics result(s): "),
    ),
    "3.0": (("reassignments_altered", "Successfully altered "),),
    # a ClearElrRecord (KIP-966): the metadata log's record is what the replay applies
    "4.0": (("elrs_cleared", "Removed ELRs from "),),
}
"""KRaft replays and results that change nothing audited, by the first release that logs them
(the metadata transactions of KIP-868 came with 3.6, metadata.version with 3.3, the ELR's
records with 4.0)."""


def _detail(family: F, name: str, phrase: str, since: str = "2.8") -> GrammarEntry:
    """An ignored KRaft line: ``phrase`` after the writer's prefix, then anything."""
    return ignored(
        f"{family.value}/{name}",
        family,
        phrase,
        CTRL_IDENT_SKIP + escape_literal(phrase) + REST,
        since,
        mode=_K,
    )


IGNORED: tuple[GrammarEntry, ...] = (
    *(
        ignored(
            f"kraft_event_queue/{name}",
            F.KRAFT_EVENT_QUEUE,
            literal,
            CTRL_IDENT_SKIP + pattern,
            since="2.8",
            mode=_K,
        )
        for name, literal, pattern in _QUEUE
    ),
    *(_detail(F.KRAFT_REGISTRATION_DETAIL, name, phrase) for name, phrase in _REGISTRATION),
    *(
        _detail(F.KRAFT_REPLAY_DETAIL, name, phrase, since)
        for since, rows in _REPLAY.items()
        for name, phrase in rows
    ),
    *(_detail(F.RAFT_DETAIL, name, phrase) for name, phrase in _RAFT),
    # names the topic by id only, and the leader: the change's own line, or the metadata log's
    # record, is the election (its ELR says it was clean)
    ignored(
        "kraft_replay_detail/elr_election",
        F.KRAFT_REPLAY_DETAIL,
        " using ELR. Previous partition: ",
        rf"(?:{CTRL_IDENT_SKIP})?Setting new leader for topicId [A-Za-z0-9_-]+,"
        rf" partition [0-9]+ to [0-9]+ using ELR\. Previous partition: {REST}",
        since="4.0",
        mode=_K,
    ),
    ignored(
        "kraft_replay_detail/reassignment_completed",
        F.KRAFT_REPLAY_DETAIL,
        " completed the ongoing partition reassignment",
        rf"{CTRL_IDENT_SKIP}AlterPartition request from node [0-9]+ for [^ \n]+ completed the"
        f" ongoing partition reassignment{REST}",
        since="3.0",
        mode=_K,
    ),
)
