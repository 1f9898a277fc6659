"""The closed vocabulary of controller event types and of ignored-record families.

``EventType`` names what a recognised record says happened
(``silver.controller_events.event_type``); ``EVENT_TYPE_MEANINGS`` gives the one-line meaning of
each. Several procedures that Kafka logs as a series of steps (reassignment, topic deletion,
controlled shutdown, request handling) use a single event type with a ``phase`` field rather than
one event type per step.

``IgnoredFamily`` names the records that are recognised but carry nothing the audit uses (thread
lifecycle, connection noise, context dumps, ...): they are counted per family, never quarantined.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["EVENT_TYPE_MEANINGS", "IGNORED_FAMILY_MEANINGS", "EventType", "IgnoredFamily"]


class EventType(enum.Enum):
    """What a recognised record says happened."""

    # ZooKeeper-mode controller election and lifecycle.
    CONTROLLER_ELECTED = "controller_elected"
    CONTROLLER_EPOCH_INCREMENTED = "controller_epoch_incremented"
    CONTROLLER_EPOCH_INITIALIZED = "controller_epoch_initialized"
    CONTROLLER_FAILOVER_STARTED = "controller_failover_started"
    CONTROLLER_READY = "controller_ready"
    CONTROLLER_RESIGNING = "controller_resigning"
    CONTROLLER_RESIGNED = "controller_resigned"
    CONTROLLER_MOVED = "controller_moved"
    CONTROLLER_ELECTION_FAILED = "controller_election_failed"
    CONTROLLER_STARTUP = "controller_startup"
    CONTROLLER_SHUTDOWN = "controller_shutdown"
    CONTROLLER_ERROR = "controller_error"
    # Broker membership.
    BROKER_CHANGE = "broker_change"
    BROKER_STARTUP_CALLBACK = "broker_startup_callback"
    BROKER_FAILURE_CALLBACK = "broker_failure_callback"
    LIVE_BROKERS = "live_brokers"
    SHUTTING_DOWN_BROKERS = "shutting_down_brokers"
    CONTROLLED_SHUTDOWN = "controlled_shutdown"
    # Partition and replica state machines, elections.
    PARTITION_STATE_CHANGE = "partition_state_change"
    PARTITION_STATE_CHANGE_FAILED = "partition_state_change_failed"
    LEADER_ELECTION_STARTED = "leader_election_started"
    LEADER_ELECTED = "leader_elected"
    LEADER_SELECTED = "leader_selected"
    OFFLINE_PARTITION_NO_LIVE_ISR = "offline_partition_no_live_isr"
    UNCLEAN_LEADER_ELECTION = "unclean_leader_election"
    UNCLEAN_ELECTION_ENABLED = "unclean_election_enabled"
    LAST_ISR_RETAINED = "last_isr_retained"
    LEADER_AND_ISR_INITIALIZED = "leader_and_isr_initialized"
    REPLICA_STATE_CHANGE = "replica_state_change"
    REPLICA_STATE_CHANGE_FAILED = "replica_state_change_failed"
    REPLICAS_MARKED_OFFLINE = "replicas_marked_offline"
    # ISR changes.
    ISR_REMOVAL_STARTED = "isr_removal_started"
    REPLICA_REMOVED_FROM_ISR = "replica_removed_from_isr"
    ISR_REMOVAL_SKIPPED = "isr_removal_skipped"
    ISR_CHANGE_NOTIFICATION = "isr_change_notification"
    ALTER_ISR_RECEIVED = "alter_isr_received"
    ALTER_ISR_APPLIED = "alter_isr_applied"
    ALTER_ISR_FAILED = "alter_isr_failed"
    ALTER_ISR_REJECTED = "alter_isr_rejected"
    ISR_SHRINK = "isr_shrink"
    ISR_EXPAND = "isr_expand"
    ISR_UPDATE_COMMITTED = "isr_update_committed"
    # Preferred replica election and auto rebalance.
    AUTO_REBALANCE_CHECK = "auto_rebalance_check"
    PREFERRED_REPLICA_IMBALANCE = "preferred_replica_imbalance"
    LEADER_IMBALANCE_RATIO = "leader_imbalance_ratio"
    PREFERRED_ELECTION_STARTED = "preferred_election_started"
    PREFERRED_ELECTION_COMPLETED = "preferred_election_completed"
    PREFERRED_ELECTION_FAILED = "preferred_election_failed"
    # Reassignment, topics.
    REASSIGNMENT = "reassignment"
    LEADER_EPOCH_UPDATED = "leader_epoch_updated"
    TOPICS_CHANGED = "topics_changed"
    TOPIC_CREATION_CALLBACK = "topic_creation_callback"
    PARTITION_CREATION_CALLBACK = "partition_creation_callback"
    PARTITIONS_ADDED = "partitions_added"
    TOPIC_DELETION = "topic_deletion"
    # Requests between controller and brokers (state-change.log).
    LEADER_AND_ISR_SENT = "leader_and_isr_sent"
    UPDATE_METADATA_SENT = "update_metadata_sent"
    STOP_REPLICA_SENT = "stop_replica_sent"
    REQUEST_NOT_SENT = "request_not_sent"
    RESPONSE_RECEIVED = "response_received"
    LEADER_AND_ISR_RECEIVED = "leader_and_isr_received"
    LEADER_AND_ISR_IGNORED = "leader_and_isr_ignored"
    BECOME_TRANSITION = "become_transition"
    UPDATE_METADATA_RECEIVED = "update_metadata_received"
    STOP_REPLICA_RECEIVED = "stop_replica_received"
    # Broker side of a partition (server.log / state-change.log).
    PARTITION_LEADER_STARTED = "partition_leader_started"
    PARTITION_FOLLOWER_STARTED = "partition_follower_started"
    PARTITION_RECOVERED = "partition_recovered"
    # KRaft controllers and raft.
    KRAFT_CONTROLLER_ACTIVATED = "kraft_controller_activated"
    KRAFT_LEADERSHIP_RENOUNCED = "kraft_leadership_renounced"
    KRAFT_LEADER_CHANGED = "kraft_leader_changed"
    KRAFT_BROKER_FENCED = "kraft_broker_fenced"
    KRAFT_BROKER_UNFENCED = "kraft_broker_unfenced"
    KRAFT_BROKER_REGISTERED = "kraft_broker_registered"
    KRAFT_BROKER_REGISTRATION_CHANGED = "kraft_broker_registration_changed"
    KRAFT_CONTROLLED_SHUTDOWN = "kraft_controlled_shutdown"
    KRAFT_PARTITIONS_CHANGING = "kraft_partitions_changing"
    KRAFT_PARTITION_CHANGE = "kraft_partition_change"
    KRAFT_UNCLEAN_ELECTION = "kraft_unclean_election"
    KRAFT_PERIODIC_TASK = "kraft_periodic_task"
    KRAFT_TOPIC_CREATED = "kraft_topic_created"
    KRAFT_TOPIC_DELETED = "kraft_topic_deleted"
    KRAFT_CONFIG_REPLAYED = "kraft_config_replayed"
    RAFT_STATE_TRANSITION = "raft_state_transition"
    BROKER_LIFECYCLE_TRANSITION = "broker_lifecycle_transition"
    # A broker's own configuration, printed by the broker (server.log).
    BROKER_CONFIG_LOGGED = "broker_config_logged"
    TOPIC_CONFIG_LOGGED = "topic_config_logged"


EVENT_TYPE_MEANINGS: Mapping[EventType, str] = MappingProxyType(
    {
        EventType.CONTROLLER_ELECTED: "a broker won the ZooKeeper controller election "
        "(2.1+: with the new epoch and the /controller_epoch zk version)",
        EventType.CONTROLLER_EPOCH_INCREMENTED: "the new controller incremented the controller "
        "epoch",
        EventType.CONTROLLER_EPOCH_INITIALIZED: "the controller epoch and its zk version were read",
        EventType.CONTROLLER_FAILOVER_STARTED: "the elected broker starts its become-controller "
        "transition",
        EventType.CONTROLLER_READY: "the new controller is ready to serve with epoch E",
        EventType.CONTROLLER_RESIGNING: "the controller starts resigning",
        EventType.CONTROLLER_RESIGNED: "the broker is no longer the controller",
        EventType.CONTROLLER_MOVED: "another broker is (or became) the controller: lost election, "
        "or the controller moved while processing an event",
        EventType.CONTROLLER_ELECTION_FAILED: "an error while electing or becoming controller",
        EventType.CONTROLLER_STARTUP: "the controller component starts up (phase start/complete)",
        EventType.CONTROLLER_SHUTDOWN: "the controller component shut down",
        EventType.CONTROLLER_ERROR: "the controller reports an error processing an event",
        EventType.BROKER_CHANGE: "the controller saw brokers added, deleted or bounced; "
        "with the resulting live set",
        EventType.BROKER_STARTUP_CALLBACK: "the controller handles newly started brokers",
        EventType.BROKER_FAILURE_CALLBACK: "the controller handles failed brokers",
        EventType.LIVE_BROKERS: "the controller's live broker set (context dump or controlled "
        "shutdown)",
        EventType.SHUTTING_DOWN_BROKERS: "brokers in controlled shutdown (phase current/removed)",
        EventType.CONTROLLED_SHUTDOWN: "a controlled shutdown step (controller: started; broker: "
        "requested/succeeded/retrying/failed)",
        EventType.PARTITION_STATE_CHANGE: "a partition moved between PartitionStateMachine states "
        "(with its leader/ISR/epochs when logged)",
        EventType.PARTITION_STATE_CHANGE_FAILED: "a partition state change failed (e.g. no live "
        "replica to elect)",
        EventType.LEADER_ELECTION_STARTED: "the controller starts electing a partition leader "
        "(0.8-1.0)",
        EventType.LEADER_ELECTED: "the controller elected a partition leader (0.8-1.0)",
        EventType.LEADER_SELECTED: "a pre-1.1 leader selector chose a leader (trigger says which "
        "selector)",
        EventType.OFFLINE_PARTITION_NO_LIVE_ISR: "no ISR member of an offline partition is alive; "
        "the live assigned replicas are listed (0.8-1.0)",
        EventType.UNCLEAN_LEADER_ELECTION: "a leader outside the ISR was elected: potential data "
        "loss (0.8-1.0)",
        EventType.UNCLEAN_ELECTION_ENABLED: "unclean leader election was enabled (by default or "
        "for a topic)",
        EventType.LAST_ISR_RETAINED: "the last ISR member was kept because unclean election is "
        "disabled",
        EventType.LEADER_AND_ISR_INITIALIZED: "a new partition's first leader and ISR (0.8-1.0 "
        "DEBUG)",
        EventType.REPLICA_STATE_CHANGE: "a replica moved between ReplicaStateMachine states",
        EventType.REPLICA_STATE_CHANGE_FAILED: "a replica state change failed",
        EventType.REPLICAS_MARKED_OFFLINE: "replicas on a broker were marked offline (log dir "
        "failure)",
        EventType.ISR_REMOVAL_STARTED: "the controller starts removing a replica from an ISR "
        "(0.8-1.0 DEBUG)",
        EventType.REPLICA_REMOVED_FROM_ISR: "the controller removed a replica from the ISR; the "
        "new leader/ISR state",
        EventType.ISR_REMOVAL_SKIPPED: "the replica to remove was not in the ISR",
        EventType.ISR_CHANGE_NOTIFICATION: "the controller processed ISR change notifications "
        "(propagates metadata)",
        EventType.ALTER_ISR_RECEIVED: "the controller received AlterIsr/AlterPartition for "
        "partitions (2.7+)",
        EventType.ALTER_ISR_APPLIED: "the controller wrote a partition's new ISR (2.7+)",
        EventType.ALTER_ISR_FAILED: "an AlterIsr/AlterPartition write failed (bad ZK version)",
        EventType.ALTER_ISR_REJECTED: "an AlterIsr/AlterPartition request was ignored or rejected",
        EventType.ISR_SHRINK: "a partition leader shrank the ISR (server.log)",
        EventType.ISR_EXPAND: "a partition leader expanded the ISR (server.log)",
        EventType.ISR_UPDATE_COMMITTED: "a partition leader's ISR change was committed "
        "(server.log, 2.7+)",
        EventType.AUTO_REBALANCE_CHECK: "the controller checks whether to trigger auto leader "
        "balancing (phase check/processing)",
        EventType.PREFERRED_REPLICA_IMBALANCE: "partitions whose leader is not the preferred "
        "replica, for one broker (DEBUG)",
        EventType.LEADER_IMBALANCE_RATIO: "the controller's leader imbalance ratio for a broker "
        "(TRACE)",
        EventType.PREFERRED_ELECTION_STARTED: "a replica leader election starts for partitions "
        "(type and trigger 2.4+)",
        EventType.PREFERRED_ELECTION_COMPLETED: "a partition's preferred replica became leader",
        EventType.PREFERRED_ELECTION_FAILED: "a partition's preferred replica election did not "
        "move leadership",
        EventType.REASSIGNMENT: "a partition reassignment step (phase: started, waiting, "
        "caught_up, assignment_updated, completed, ...)",
        EventType.LEADER_EPOCH_UPDATED: "the controller bumped a partition's leader epoch "
        "(reassignment)",
        EventType.TOPICS_CHANGED: "the controller saw new/deleted topics, with the new assignment",
        EventType.TOPIC_CREATION_CALLBACK: "the controller creates new topics' partitions "
        "(0.8-1.0)",
        EventType.PARTITION_CREATION_CALLBACK: "the controller creates new partitions",
        EventType.PARTITIONS_ADDED: "partitions were added to an existing topic",
        EventType.TOPIC_DELETION: "a topic deletion step (phase: requested, started, handling, "
        "completed, halted, retrying, ...)",
        EventType.LEADER_AND_ISR_SENT: "the controller sends LeaderAndIsr (per partition <=2.5 "
        "TRACE, per broker summary 2.6+)",
        EventType.UPDATE_METADATA_SENT: "the controller sends UpdateMetadata (per partition "
        "<=2.5, summary 2.6+)",
        EventType.STOP_REPLICA_SENT: "the controller sends StopReplica (per partition or summary)",
        EventType.REQUEST_NOT_SENT: "the controller did not send a request: the broker is offline",
        EventType.RESPONSE_RECEIVED: "the controller received a broker's response (TRACE)",
        EventType.LEADER_AND_ISR_RECEIVED: "a broker received LeaderAndIsr (per partition or "
        "summary)",
        EventType.LEADER_AND_ISR_IGNORED: "a broker ignored a LeaderAndIsr request (stale epoch, "
        "not a replica, ...)",
        EventType.BECOME_TRANSITION: "a broker's become-leader/become-follower step for a "
        "partition (phase)",
        EventType.UPDATE_METADATA_RECEIVED: "a broker applied UpdateMetadata to its cache",
        EventType.STOP_REPLICA_RECEIVED: "a broker handled StopReplica",
        EventType.PARTITION_LEADER_STARTED: "a broker became leader of a partition: epoch, start "
        "offset, high watermark, ISR",
        EventType.PARTITION_FOLLOWER_STARTED: "a broker became follower of a partition",
        EventType.PARTITION_RECOVERED: "a leader finished KIP-704 recovery (RECOVERING -> "
        "RECOVERED)",
        EventType.KRAFT_CONTROLLER_ACTIVATED: "a KRaft controller became active at an epoch",
        EventType.KRAFT_LEADERSHIP_RENOUNCED: "a KRaft controller renounced leadership",
        EventType.KRAFT_LEADER_CHANGED: "a KRaft controller saw a new quorum leader (or none) "
        "for an epoch",
        EventType.KRAFT_BROKER_FENCED: "the KRaft controller fenced a broker whose session timed "
        "out",
        EventType.KRAFT_BROKER_UNFENCED: "the KRaft controller granted a broker's unfence request",
        EventType.KRAFT_BROKER_REGISTERED: "a broker registered a new incarnation (KRaft)",
        EventType.KRAFT_BROKER_REGISTRATION_CHANGED: "a broker's registration (fenced, "
        "controlled shutdown) changed (KRaft)",
        EventType.KRAFT_CONTROLLED_SHUTDOWN: "a KRaft controlled shutdown step (phase granted / "
        "shutdown_granted)",
        EventType.KRAFT_PARTITIONS_CHANGING: "the KRaft controller changes N partitions for a "
        "reason (fenced, controlled shutdown, ...)",
        EventType.KRAFT_PARTITION_CHANGE: "a replayed partition change (unclean flag, diff kept "
        "in detail)",
        EventType.KRAFT_UNCLEAN_ELECTION: "the KRaft controller elects, or fails to elect, an "
        "unclean leader",
        EventType.KRAFT_PERIODIC_TASK: "a KRaft periodic task (balancing, unclean election) "
        "generated records",
        EventType.KRAFT_TOPIC_CREATED: "a replayed TopicRecord",
        EventType.KRAFT_TOPIC_DELETED: "a replayed RemoveTopicRecord",
        EventType.KRAFT_CONFIG_REPLAYED: "a replayed ConfigRecord: a topic, broker or cluster "
        "default config set (``key to value``, ``null`` when removed)",
        EventType.RAFT_STATE_TRANSITION: "a raft node's quorum state transition (candidate, "
        "leader, follower, ...)",
        EventType.BROKER_LIFECYCLE_TRANSITION: "a KRaft broker's lifecycle state transition "
        "(e.g. RECOVERY -> RUNNING)",
        EventType.BROKER_CONFIG_LOGGED: "a broker or controller printed its static configuration "
        "at start (``KafkaConfig values:``, one ``key = value`` line each; silver.broker_configs)",
        EventType.TOPIC_CONFIG_LOGGED: "a broker created a partition's log with the topic's "
        "config overrides (``Created log for partition``; silver.broker_configs)",
    }
)
"""One-line meaning of every event type."""


class IgnoredFamily(enum.Enum):
    """Families of records recognised as carrying nothing the audit uses."""

    THREAD_LIFECYCLE = "thread_lifecycle"
    CONTROLLER_FAILOVER_STEP = "controller_failover_step"
    CONTROLLER_CONTEXT = "controller_context"
    CONTROLLER_CONNECTION = "controller_connection"
    STATE_MACHINE_LIFECYCLE = "state_machine_lifecycle"
    STATE_MACHINE_BATCH = "state_machine_batch"
    ZK_LISTENER = "zk_listener"
    LOG4J_JMX = "log4j_jmx"
    BROKER_EPOCHS = "broker_epochs"
    BROKER_METADATA = "broker_metadata"
    DELETION_DETAIL = "deletion_detail"
    LEADERSHIP_DUMP = "leadership_dump"
    PREFERRED_ELECTION_CONTEXT = "preferred_election_context"
    FEATURE_ZNODE = "feature_znode"
    PARTITION_DETAIL = "partition_detail"
    KRAFT_EVENT_QUEUE = "kraft_event_queue"
    KRAFT_REGISTRATION_DETAIL = "kraft_registration_detail"
    KRAFT_REPLAY_DETAIL = "kraft_replay_detail"
    RAFT_DETAIL = "raft_detail"
    PRODUCER_ID_BLOCK = "producer_id_block"
    FOREIGN_LOGGER = "foreign_logger"


IGNORED_FAMILY_MEANINGS: Mapping[IgnoredFamily, str] = MappingProxyType(
    {
        IgnoredFamily.THREAD_LIFECYCLE: "ShutdownableThread Starting/Stopped/Shutdown lines",
        IgnoredFamily.CONTROLLER_FAILOVER_STEP: "failover step lines without data (Registering "
        "handlers, Initializing controller context, ...)",
        IgnoredFamily.CONTROLLER_CONTEXT: "context dumps at failover (topics, reassignments, "
        "deletions, state machine initial states)",
        IgnoredFamily.CONTROLLER_CONNECTION: "controller-to-broker connection lines",
        IgnoredFamily.STATE_MACHINE_LIFECYCLE: "state machine start/stop/initialise lines",
        IgnoredFamily.STATE_MACHINE_BATCH: "batch announcements (Invoking state change to X for "
        "...), live assigned replicas",
        IgnoredFamily.ZK_LISTENER: "ZooKeeper listener fired / handler (un)registration lines",
        IgnoredFamily.LOG4J_JMX: "log4j's own JMX registration line (preRegister called)",
        IgnoredFamily.BROKER_EPOCHS: "broker epoch cache dumps",
        IgnoredFamily.BROKER_METADATA: "broker endpoint metadata updates",
        IgnoredFamily.DELETION_DETAIL: "topic deletion bookkeeping at replica level",
        IgnoredFamily.LEADERSHIP_DUMP: "whole-cluster leadership dumps (All leaders = ..., "
        "leader cache)",
        IgnoredFamily.PREFERRED_ELECTION_CONTEXT: "preferred election bookkeeping at failover",
        IgnoredFamily.FEATURE_ZNODE: "/feature znode creation and updates",
        IgnoredFamily.PARTITION_DETAIL: "broker-side partition bookkeeping (checkpointed high "
        "watermark, ...)",
        IgnoredFamily.KRAFT_EVENT_QUEUE: "KRaft controller event queue and periodic task "
        "bookkeeping",
        IgnoredFamily.KRAFT_REGISTRATION_DETAIL: "KRaft registration replays that change nothing "
        "audited",
        IgnoredFamily.KRAFT_REPLAY_DETAIL: "KRaft metadata replays and request results that "
        "change nothing audited (metadata transactions, feature levels, producer ids, "
        "CreateTopics results)",
        IgnoredFamily.RAFT_DETAIL: "raft vote requests, high watermark and fetch bookkeeping",
        IgnoredFamily.PRODUCER_ID_BLOCK: "producer id block allocation in ZooKeeper by the "
        "controller (3.0+)",
        IgnoredFamily.FOREIGN_LOGGER: "a record from a logger outside the audited set, that no "
        "grammar recognises (server.log noise)",
    }
)
"""One-line meaning of every ignored family."""
