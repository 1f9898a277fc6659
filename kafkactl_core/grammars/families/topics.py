"""Topic creation, partition addition and topic deletion (controller.log).

``New topics: [Set(orders)], deleted topics: [Set()], new partition replica assignment [...]``
is logged by every release; the assignment's rendering tells the release apart (``Map([orders,0]
-> List(1, 2, 3))`` up to 0.11, ``Map(orders-0 -> ReplicaAssignment(...))`` 2.4 - 2.7,
``Set(TopicIdReplicaAssignment(orders,Some(<id>),Map(...)))`` from 2.8) and is kept verbatim in
``detail``. Deletion steps become one event type, ``topic_deletion``, with a ``phase``.
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, controller_event, ignored
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.events import IgnoredFamily as F
from kafkactl_core.grammars.fragments import (
    CTRL_IDENT,
    CTRL_IDENT_SKIP,
    INTS,
    REST,
    TEXT,
    TOPIC,
    TOPICS,
    TPS,
    TPS_BRACKET_NONEMPTY,
    TPS_NONEMPTY,
    escape_literal,
)

_SET = r"(?:Set|HashSet|ListSet|TreeSet)\("
_NEW_TOPICS = (
    rf"{CTRL_IDENT}New topics: \[{_SET}{TOPICS}\)\], deleted topics:"
    rf" \[{_SET}{TOPICS}\)\], new partition replica assignment \["
)


def _deletion(
    phase: str, literal: str, pattern: str, fields: str, since: str | None, before: str | None
) -> GrammarEntry:
    return controller_event(
        f"topic_deletion/{phase}" + (f"_{since}" if since else ""),
        T.TOPIC_DELETION,
        literal,
        CTRL_IDENT + pattern,
        f"origin_broker {fields}",
        since=since,
        before=before,
        constants={"phase": phase},
    )


ENTRIES: tuple[GrammarEntry, ...] = (
    controller_event(
        "topics_changed/topic_ids",
        T.TOPICS_CHANGED,
        "], new partition replica assignment [Set(TopicIdReplicaAssignment(",
        rf"{_NEW_TOPICS}(Set\(TopicIdReplicaAssignment\([^\n]*)\]",
        "origin_broker topics deleted_topics detail",
        since="2.8",
    ),
    controller_event(
        "topics_changed",
        T.TOPICS_CHANGED,
        "], new partition replica assignment [",
        rf"{_NEW_TOPICS}((?!Set\(TopicIdReplicaAssignment\()[^\n]*)\]",
        "origin_broker topics deleted_topics detail",
    ),
    controller_event(
        "topic_creation_callback/bracket",
        T.TOPIC_CREATION_CALLBACK,
        "New topic creation callback for ",
        f"{CTRL_IDENT}New topic creation callback for {TPS_BRACKET_NONEMPTY}",
        "origin_broker partitions",
        before="1.0",
    ),
    controller_event(
        "topic_creation_callback",
        T.TOPIC_CREATION_CALLBACK,
        "New topic creation callback for ",
        f"{CTRL_IDENT}New topic creation callback for {TPS_NONEMPTY}",
        "origin_broker partitions",
        since="1.0",
        before="1.1",
    ),
    controller_event(
        "partition_creation_callback/bracket",
        T.PARTITION_CREATION_CALLBACK,
        "New partition creation callback for ",
        f"{CTRL_IDENT}New partition creation callback for {TPS_BRACKET_NONEMPTY}",
        "origin_broker partitions",
        before="1.0",
    ),
    controller_event(
        "partition_creation_callback",
        T.PARTITION_CREATION_CALLBACK,
        "New partition creation callback for ",
        f"{CTRL_IDENT}New partition creation callback for {TPS_NONEMPTY}",
        "origin_broker partitions",
        since="1.0",
    ),
    controller_event(
        "partitions_added",
        T.PARTITIONS_ADDED,
        "New partitions to be added ",
        f"{CTRL_IDENT}New partitions to be added {TEXT}",
        "origin_broker detail",
    ),
    _deletion(
        "requested",
        "Delete topics listener fired for topics ",
        f"Delete topics listener fired for topics {TOPICS} to be deleted",
        "topics",
        None,
        None,
    ),
    _deletion(
        "started",
        "Starting topic deletion for topics ",
        f"Starting topic deletion for topics {TOPICS}",
        "topics",
        None,
        None,
    ),
    _deletion(
        "handling",
        "Handling deletion for topics ",
        f"Handling deletion for topics {TOPICS}",
        "topics",
        None,
        None,
    ),
    _deletion(
        "restarted",
        " (re)started",
        rf"Deletion of topic {TOPIC} \(re\)started",
        "topic",
        None,
        None,
    ),
    _deletion(
        "completed",
        " successfully completed",
        f"Deletion of topic {TOPIC} successfully completed",
        "topic",
        None,
        None,
    ),
    _deletion(
        "callback",
        "Topic deletion callback for ",
        f"Topic deletion callback for {TOPICS}",
        "topics",
        None,
        "2.8",
    ),
    _deletion(
        "partition_callback",
        "Partition deletion callback for ",
        f"Partition deletion callback for {TPS}",
        "partitions",
        None,
        "2.8",
    ),
    _deletion(
        "halted",
        "Halted deletion of topics ",
        f"Halted deletion of topics {TOPICS}",
        "topics",
        None,
        "2.4",
    ),
    _deletion(
        "halted",
        "Halted deletion of topics ",
        f"Halted deletion of topics {TOPICS} due to {TEXT}",
        "topics detail",
        "2.1",
        None,
    ),
    _deletion(
        "retrying",
        " were not successfully deleted",
        f"Retrying delete topic for topic {TOPIC} since"
        f" replicas {TEXT} were not successfully deleted",
        "topic detail",
        None,
        "2.4",
    ),
    _deletion(
        "retrying",
        " were not successfully deleted",
        f"Retrying deletion of topic {TOPIC} since replicas {TEXT} were not successfully deleted",
        "topic detail",
        "2.1",
        "2.8",
    ),
    _deletion(
        "retrying",
        " were not successfully deleted",
        f"Retrying deletion of topics {TOPICS} since replicas {TEXT} were not successfully deleted",
        "topics detail",
        "2.5",
        None,
    ),
    _deletion(
        "ineligible",
        " at this time since it is marked ineligible for deletion",
        f"Not retrying deletion of topic {TOPIC} at this"
        " time since it is marked ineligible for deletion",
        "topic",
        None,
        "2.4",
    ),
    _deletion(
        "nonexistent_topics",
        "Ignoring request to delete non-existing topics ",
        f"Ignoring request to delete non-existing topics {TOPICS}",
        "topics",
        None,
        None,
    ),
    _deletion(
        "disabled",
        " since delete topic is disabled",
        f"Removing {TEXT} since delete topic is disabled",
        "detail",
        None,
        None,
    ),
    _deletion(
        "restart_signaled",
        "Signaling restart of topic deletion for these topics",
        f"Some replicas {TEXT} for topics scheduled for deletion {TOPICS} are on the newly"
        rf" restarted brokers {INTS}\. ?Signaling restart of topic deletion for these topics",
        "detail topics brokers",
        None,
        None,
    ),
    controller_event(
        "partitions_added/skipped",
        T.PARTITIONS_ADDED,
        " since it is currently being deleted",
        f"{CTRL_IDENT}Skipping adding partitions ([0-9,]*) for"
        f" topic {TOPIC} since it is currently being deleted",
        "origin_broker detail topic",
        constants={"phase": "skipped_topic_deletion"},
    ),
)

_DETAIL: tuple[tuple[str, str], ...] = (
    ("deletion_started_replicas", "Deletion started for replicas "),
    ("deletion_completed_replicas", "Deletion successfully completed for replicas "),
    ("deletion_failed_replicas", "Deletion failed for replicas "),
    ("dead_replicas", "Dead Replicas ("),
    ("delete_callback", "Delete topic callback invoked "),
    ("in_progress", "Deletion for replicas "),
    ("topics_to_be_deleted", "List of topics to be deleted: "),
    ("topics_ineligible", "List of topics ineligible for deletion: "),
    ("initial_deletions", "Initializing manager with initial deletions: "),
    ("all_replicas_deleted", "Are all replicas for topic "),
    ("restoring_assignment", "Restoring the partition replica assignment for topic "),
    ("no_new_partitions", "Ignoring partition change during topic deletion as no new partitions"),
    ("zk_assignment_path", "Updated path "),
)

IGNORED: tuple[GrammarEntry, ...] = tuple(
    ignored(
        f"deletion_detail/{name}",
        F.DELETION_DETAIL,
        phrase,
        CTRL_IDENT_SKIP + escape_literal(phrase) + REST,
    )
    for name, phrase in _DETAIL
)
