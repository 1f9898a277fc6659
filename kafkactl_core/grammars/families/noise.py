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

_PHRASES: dict[F, tuple[tuple[str, str], ...]] = {
    F.THREAD_LIFECYCLE: (("latch_reached_zero", "shutdownInitiated latch count reached zero"),),
    F.CONTROLLER_CONNECTION: (
        ("connected", " for sending state change requests"),
        ("trying_to_connect", " trying to connect to broker "),
        ("unsuccessful", "'s connection to broker "),
        ("send_failed", " fails to send "),
    ),
    F.LOG4J_JMX: (("pre_register", "preRegister called. Server="),),
    F.ZK_LISTENER: (
        ("broker_change_fired", "Broker change listener fired for path "),
        ("topic_change_fired", "Topic change listener fired for path "),
        ("epoch_listener_fired", "Controller epoch listener fired with new epoch "),
        ("isr_change_fired", "ISR change notification listener fired"),
        ("add_partition_triggered", "Add Partition triggered "),
        ("register_broker_modifications", "Register BrokerModifications handler for "),
        ("unregister_broker_modifications", "Unregister BrokerModifications handler for "),
    ),
    F.BROKER_EPOCHS: (
        ("initialized", "Initialized broker epochs cache: "),
        ("updated", "Updated broker epochs cache: "),
    ),
    F.BROKER_METADATA: (
        ("updated_metadata", "Updated broker metadata: "),
        ("updated", "Updated broker: "),
        ("info_update_callback", "Broker info update callback for "),
    ),
    F.LEADERSHIP_DUMP: (
        ("all_leaders", "All leaders = "),
        ("leader_cache", "After leader election, leader cache "),
    ),
    F.FEATURE_ZNODE: (
        ("creating", "Creating FeatureZNode at path: "),
        ("updating", "Updating FeatureZNode at path: "),
    ),
    F.CONTROLLER_CONTEXT: (
        ("topics", "Current list of topics in the cluster: "),
        ("reassigning", "Partitions being reassigned: "),
        ("reassigned", "Partitions already reassigned: "),
        ("resuming_reassignment", "Resuming reassignment of partitions: "),
        ("leader_not_assigned", "Leader not yet assigned for partition "),
    ),
    F.STATE_MACHINE_LIFECYCLE: (
        ("partition_started", "Started partition state machine with initial state -> "),
        ("replica_started", "Started replica state machine with initial state -> "),
        ("partition_stopped", "Stopped partition state machine"),
        ("replica_stopped", "Stopped replica state machine"),
        ("partition_initializing", "Initializing partition state"),
        ("replica_initializing", "Initializing replica state"),
        ("online_partitions", "Triggering online partition state changes"),
        ("online_replicas", "Triggering online replica state changes"),
        ("offline_replicas", "Triggering offline replica state changes"),
        (
            "no_transitions",
            "No state transitions triggered since no partitions are assigned to brokers ",
        ),
    ),
    F.STATE_MACHINE_BATCH: (
        ("invoking", "Invoking state change to "),
        ("live_assigned", "Live assigned replicas for partition "),
    ),
}
"""Family -> (name, phrase) of its entries. The phrase starts the message, after an optional
prefix, except in ``CONTROLLER_CONNECTION`` lines, which any text of the line may precede."""


def _entry(family: F, name: str, phrase: str) -> GrammarEntry:
    if family is F.CONTROLLER_CONNECTION:
        pattern = _ANY_BRACKET + REST + escape_literal(phrase) + REST
    else:
        pattern = f"(?:{_ANY_BRACKET})?{escape_literal(phrase)}{REST}"
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
    *(_entry(family, name, phrase) for family, rows in _PHRASES.items() for name, phrase in rows),
)
