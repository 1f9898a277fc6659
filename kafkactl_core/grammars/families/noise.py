"""Recognised records that carry nothing the audit uses (ignored, counted by family).

Thread lifecycle lines of every ``ShutdownableThread`` (``Starting``, ``Stopped``, ...; 0.8 - 0.10
wrote ``[name], Starting `` with a comma and a trailing space), controller-to-broker connection
lines, ZooKeeper listener chatter, context dumps at failover and state machine bookkeeping.
Entries are generated from (name, literal phrase) tables: the phrase is both the pre-filter
literal and, escaped, the start of the message after an optional writer prefix.
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, ignored
from kafkactl_core.grammars.events import IgnoredFamily as F
from kafkactl_core.grammars.fragments import REST, escape_literal

_ANY_BRACKET = r"\[[^\]\n]+\][:,]? "
"""A ShutdownableThread / logIdent prefix of any shape (no group)."""

_THREAD: tuple[tuple[str, str], ...] = (
    ("starting", "Starting"),
    ("stopped", "Stopped"),
    ("shutting_down", "Shutting down"),
    ("shutdown_completed", "Shutdown completed"),
)

_WITH_PREFIX: tuple[tuple[F, str, str, bool], ...] = (
    (F.THREAD_LIFECYCLE, "latch_reached_zero", "shutdownInitiated latch count reached zero", True),
    (F.CONTROLLER_CONNECTION, "connected", " for sending state change requests", False),
    (F.CONTROLLER_CONNECTION, "trying_to_connect", " trying to connect to broker ", False),
    (F.CONTROLLER_CONNECTION, "unsuccessful", "'s connection to broker ", False),
    (F.CONTROLLER_CONNECTION, "send_failed", " fails to send ", False),
    (F.LOG4J_JMX, "pre_register", "preRegister called. Server=", True),
    (F.ZK_LISTENER, "broker_change_fired", "Broker change listener fired for path ", True),
    (F.ZK_LISTENER, "topic_change_fired", "Topic change listener fired for path ", True),
    (
        F.ZK_LISTENER,
        "epoch_listener_fired",
        "Controller epoch listener fired with new epoch ",
        True,
    ),
    (F.ZK_LISTENER, "isr_change_fired", "ISR change notification listener fired", True),
    (F.ZK_LISTENER, "add_partition_triggered", "Add Partition triggered ", True),
    (
        F.ZK_LISTENER,
        "register_broker_modifications",
        "Register BrokerModifications handler for ",
        True,
    ),
    (
        F.ZK_LISTENER,
        "unregister_broker_modifications",
        "Unregister BrokerModifications handler for ",
        True,
    ),
    (F.BROKER_EPOCHS, "initialized", "Initialized broker epochs cache: ", True),
    (F.BROKER_EPOCHS, "updated", "Updated broker epochs cache: ", True),
    (F.BROKER_METADATA, "updated_metadata", "Updated broker metadata: ", True),
    (F.BROKER_METADATA, "updated", "Updated broker: ", True),
    (F.BROKER_METADATA, "info_update_callback", "Broker info update callback for ", True),
    (F.LEADERSHIP_DUMP, "all_leaders", "All leaders = ", True),
    (F.LEADERSHIP_DUMP, "leader_cache", "After leader election, leader cache ", True),
    (F.FEATURE_ZNODE, "creating", "Creating FeatureZNode at path: ", True),
    (F.FEATURE_ZNODE, "updating", "Updating FeatureZNode at path: ", True),
    (F.CONTROLLER_CONTEXT, "topics", "Current list of topics in the cluster: ", True),
    (F.CONTROLLER_CONTEXT, "reassigning", "Partitions being reassigned: ", True),
    (F.CONTROLLER_CONTEXT, "reassigned", "Partitions already reassigned: ", True),
    (F.CONTROLLER_CONTEXT, "resuming_reassignment", "Resuming reassignment of partitions: ", True),
    (F.CONTROLLER_CONTEXT, "leader_not_assigned", "Leader not yet assigned for partition ", True),
    (
        F.STATE_MACHINE_LIFECYCLE,
        "partition_started",
        "Started partition state machine with initial state -> ",
        True,
    ),
    (
        F.STATE_MACHINE_LIFECYCLE,
        "replica_started",
        "Started replica state machine with initial state -> ",
        True,
    ),
    (F.STATE_MACHINE_LIFECYCLE, "partition_stopped", "Stopped partition state machine", True),
    (F.STATE_MACHINE_LIFECYCLE, "replica_stopped", "Stopped replica state machine", True),
    (F.STATE_MACHINE_LIFECYCLE, "partition_initializing", "Initializing partition state", True),
    (F.STATE_MACHINE_LIFECYCLE, "replica_initializing", "Initializing replica state", True),
    (
        F.STATE_MACHINE_LIFECYCLE,
        "online_partitions",
        "Triggering online partition state changes",
        True,
    ),
    (F.STATE_MACHINE_LIFECYCLE, "online_replicas", "Triggering online replica state changes", True),
    (
        F.STATE_MACHINE_LIFECYCLE,
        "offline_replicas",
        "Triggering offline replica state changes",
        True,
    ),
    (
        F.STATE_MACHINE_LIFECYCLE,
        "no_transitions",
        "No state transitions triggered since no partitions are assigned to brokers ",
        True,
    ),
    (F.STATE_MACHINE_BATCH, "invoking", "Invoking state change to ", True),
    (F.STATE_MACHINE_BATCH, "live_assigned", "Live assigned replicas for partition ", True),
)
"""(family, name, phrase, phrase_starts_message): when the phrase does not start the message,
any text of the line may precede it."""


def _entry(family: F, name: str, phrase: str, starts: bool) -> GrammarEntry:
    if starts:
        pattern = f"(?:{_ANY_BRACKET})?{escape_literal(phrase)}{REST}"
    else:
        pattern = _ANY_BRACKET + REST + escape_literal(phrase) + REST
    return ignored(f"{family.value}/{name}", family, phrase, pattern)


IGNORED: tuple[GrammarEntry, ...] = (
    *(
        ignored(
            f"thread_lifecycle/{name}",
            F.THREAD_LIFECYCLE,
            phrase,
            f"{_ANY_BRACKET}{escape_literal(phrase)}[ ]?",
        )
        for name, phrase in _THREAD
    ),
    *(_entry(family, name, phrase, starts) for family, name, phrase, starts in _WITH_PREFIX),
)
