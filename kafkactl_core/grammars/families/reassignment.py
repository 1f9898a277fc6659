"""Partition reassignment steps (event ``reassignment`` with a ``phase``) and leader epoch bumps.

Up to 2.3 a reassignment logs ``Handling reassignment of partition ... to new replicas 1,3``,
catch-up progress (``2/2 replicas have caught up ...``; no space before ``Resuming`` up to 1.0),
the leader's fate and ``Removed partition ... from the list of reassigned partitions``
(``Removing partitions Set(...) ...`` from 2.0). From 2.4 (KIP-455) the steps print
``ReplicaAssignment(replicas=1,3,2, addingReplicas=1, removingReplicas=2)`` values and ``Target
replicas List(1, 3) have all caught up``. The state-change side (``Sent LeaderAndIsr request ...
for partition being reassigned``) is here too.
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, event
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.fragments import (
    CTRL_IDENT,
    INT,
    INTS,
    LICE,
    LICE_FIELDS,
    NUM,
    REPLICA_ASSIGNMENT,
    REPLICA_ASSIGNMENT_SKIP,
    SC_IDENT,
    TEXT,
    TP,
    TPB,
    TPS,
    coll,
)

_C = "controller_id=origin_broker"


def _steps(
    phase: str,
    literal: str,
    head: str,
    tail: str,
    head_fields: str,
    tail_fields: str,
    *,
    dash_since: str | None = "1.0",
    dash_before: str | None = None,
    event_type: T = T.REASSIGNMENT,
    name: str | None = None,
) -> tuple[GrammarEntry, GrammarEntry]:
    """A reassignment sentence in its ``[t,p]`` (up to 0.11) and ``t-p`` (1.0+) renderings."""
    fields = f"origin_broker {head_fields} topic partition {tail_fields}"
    constants = {"phase": phase}
    base = name or f"reassignment/{phase}"
    return (
        event(
            base + "/bracket",
            event_type,
            literal,
            CTRL_IDENT + head + TPB + tail,
            fields,
            before="1.0",
            constants=constants,
            copies=_C,
        ),
        event(
            base,
            event_type,
            literal,
            CTRL_IDENT + head + TP + tail,
            fields,
            since=dash_since,
            before=dash_before,
            constants=constants,
            copies=_C,
        ),
    )


ENTRIES: tuple[GrammarEntry, ...] = (
    *_steps(
        "started",
        "Handling reassignment of partition ",
        "Handling reassignment of partition ",
        " to new replicas " + INTS,
        "",
        "replicas",
        dash_before="2.4",
    ),
    *_steps(
        "not_caught_up",
        " being reassigned not yet caught up with the leader",
        "New replicas " + INTS + " for partition ",
        " being reassigned not yet caught up with the leader",
        "replicas",
        "",
        dash_before="2.4",
    ),
    *_steps(
        "waiting",
        " being reassigned to catch up with the leader",
        "Waiting for new replicas " + INTS + " for partition ",
        " being reassigned to catch up with the leader",
        "replicas",
        "",
        dash_before="2.4",
    ),
    *_steps(
        "caught_up",
        " replicas have caught up with the leader for partition ",
        NUM + "/[0-9]+ replicas have caught up with the leader for partition ",
        r" being reassigned\.[ ]?Resuming partition reassignment",
        "count",
        "",
        dash_before="2.4",
    ),
    *_steps(
        "partially_caught_up",
        " replicas have caught up with the leader for partition ",
        NUM + "/[0-9]+ replicas have caught up with the leader for partition ",
        r" being reassigned\.[ ]?Replica\(s\) " + INTS + " still need to catch up",
        "count",
        "replicas",
        dash_before="2.4",
    ),
    *_steps(
        "assignment_updated",
        "Updated assigned replicas for partition ",
        "Updated assigned replicas for partition ",
        " being reassigned to " + INTS + "[ ]?",
        "",
        "replicas",
        dash_before="2.4",
    ),
    *_steps(
        "leader_alive_in_new_replicas",
        " and is alive",
        "Leader " + INT + " for partition ",
        " being reassigned, is already in the new list of replicas " + INTS + " and is alive",
        "leader",
        "replicas",
    ),
    *_steps(
        "leader_dead_in_new_replicas",
        " but is dead",
        "Leader " + INT + " for partition ",
        " being reassigned, is already in the new list of replicas " + INTS + " but is dead",
        "leader",
        "replicas",
    ),
    *_steps(
        "leader_not_in_new_replicas",
        ". Re-electing leader",
        "Leader " + INT + " for partition ",
        " being reassigned, is not in the new list of replicas " + INTS + r"\. Re-electing leader",
        "leader",
        "replicas",
    ),
    *_steps(
        "completed",
        " from the list of reassigned partitions in zookeeper",
        "Removed partition ",
        " from the list of reassigned partitions in zookeeper",
        "",
        "",
        dash_before="1.1",
    ),
    event(
        "reassignment/completed_1.1",
        T.REASSIGNMENT,
        " from the list of reassigned partitions in zookeeper",
        CTRL_IDENT
        + "Removing partition "
        + TP
        + " from the list of reassigned partitions in zookeeper",
        "origin_broker topic partition",
        since="1.1",
        before="2.0",
        constants={"phase": "completed"},
        copies=_C,
    ),
    event(
        "reassignment/completed_2.0",
        T.REASSIGNMENT,
        " from the list of reassigned partitions in zookeeper",
        CTRL_IDENT
        + "Removing partitions "
        + coll(TPS)
        + " from the list of reassigned partitions in zookeeper",
        "origin_broker partitions",
        since="2.0",
        constants={"phase": "completed"},
        copies=_C,
    ),
    event(
        "reassignment/zk_path_deleted",
        T.REASSIGNMENT,
        "No more partitions need to be reassigned. Deleting zk path ",
        CTRL_IDENT + r"No more partitions need to be reassigned\. Deleting zk path " + TEXT,
        "origin_broker detail",
        since="1.1",
        constants={"phase": "zk_path_deleted"},
        copies=_C,
    ),
    event(
        "reassignment/assignment_updating",
        T.REASSIGNMENT,
        "Updating assignment of partition ",
        CTRL_IDENT
        + "Updating assignment of partition "
        + TP
        + " from "
        + REPLICA_ASSIGNMENT_SKIP
        + " to "
        + REPLICA_ASSIGNMENT,
        "origin_broker topic partition replicas adding_replicas removing_replicas",
        since="2.4",
        constants={"phase": "assignment_updating"},
        copies=_C,
    ),
    event(
        "reassignment/assignment_updated_2.4",
        T.REASSIGNMENT,
        "Successfully updated assignment of partition ",
        CTRL_IDENT
        + "Successfully updated assignment of partition "
        + TP
        + " to "
        + REPLICA_ASSIGNMENT,
        "origin_broker topic partition replicas adding_replicas removing_replicas",
        since="2.4",
        constants={"phase": "assignment_updated"},
        copies=_C,
    ),
    event(
        "reassignment/target_caught_up",
        T.REASSIGNMENT,
        " have all caught up with the leader for reassigning partition ",
        CTRL_IDENT
        + "Target replicas "
        + coll(INTS)
        + " have all caught up with the leader for reassigning partition "
        + TP,
        "origin_broker replicas topic partition",
        since="2.4",
        constants={"phase": "caught_up"},
        copies=_C,
    ),
    event(
        "reassignment/skipped_topic_deletion",
        T.REASSIGNMENT,
        " since the topic is currently being deleted",
        CTRL_IDENT + "Skipping reassignment of " + TP + " since the topic is currently being "
        "deleted",
        "origin_broker topic partition",
        since="1.1",
        constants={"phase": "skipped_topic_deletion"},
        copies=_C,
    ),
    # --- leader epoch bumps made for reassignments ---
    *_steps(
        "updated",
        "Updated leader epoch for partition ",
        "Updated leader epoch for partition ",
        " to " + INT,
        "",
        "leader_epoch",
        dash_before=None,
        event_type=T.LEADER_EPOCH_UPDATED,
        name="leader_epoch_updated",
    ),
    event(
        "leader_epoch_updated/zk_version",
        T.LEADER_EPOCH_UPDATED,
        "Updated leader epoch for partition ",
        CTRL_IDENT
        + "Updated leader epoch for partition "
        + TP
        + " to "
        + INT
        + ", zkVersion="
        + INT,
        "origin_broker topic partition leader_epoch zk_version",
        since="2.7",
        constants={"phase": "updated"},
        copies=_C,
    ),
    *_steps(
        "updating",
        "Updating leader epoch for partition ",
        "Updating leader epoch for partition ",
        r"\.",
        "",
        "",
        dash_before="1.1",
        event_type=T.LEADER_EPOCH_UPDATED,
        name="leader_epoch_updated/updating",
    ),
    event(
        "leader_epoch_updated/updating_1.1",
        T.LEADER_EPOCH_UPDATED,
        "Updating leader epoch for partition ",
        CTRL_IDENT + "Updating leader epoch for partition " + TP,
        "origin_broker topic partition",
        since="1.1",
        constants={"phase": "updating"},
        copies=_C,
    ),
    # --- state-change.log: the LeaderAndIsr sent to the leader of a partition being reassigned ---
    event(
        "reassignment/leader_and_isr_sent_0.11",
        T.REASSIGNMENT,
        " for partition being reassigned ",
        r"Controller ([0-9]+) epoch ([0-9]+) sent LeaderAndIsr request "
        + LICE
        + " with new assigned replica list "
        + INTS
        + " to leader [0-9-]+ for partition being "
        "reassigned " + TPB,
        "origin_broker controller_epoch " + LICE_FIELDS + " replicas topic partition",
        before="1.0",
        constants={"phase": "leader_and_isr_sent"},
        copies=_C,
    ),
    event(
        "reassignment/leader_and_isr_sent_1.0",
        T.REASSIGNMENT,
        " for partition being reassigned ",
        SC_IDENT
        + "Sent LeaderAndIsr request "
        + LICE
        + " with new assigned replica list "
        + INTS
        + " to leader [0-9-]+ for partition being reassigned "
        + TP,
        "origin_broker controller_epoch " + LICE_FIELDS + " replicas topic partition",
        since="1.0",
        before="2.4",
        constants={"phase": "leader_and_isr_sent"},
        copies=_C,
    ),
    event(
        "reassignment/leader_and_isr_sent",
        T.REASSIGNMENT,
        " for partition being reassigned ",
        SC_IDENT
        + "Sent LeaderAndIsr request "
        + LICE
        + " with new replica assignment "
        + REPLICA_ASSIGNMENT
        + " to leader [0-9-]+ for partition being reassigned "
        + TP,
        "origin_broker controller_epoch "
        + LICE_FIELDS
        + " replicas adding_replicas removing_replicas topic partition",
        since="2.4",
        constants={"phase": "leader_and_isr_sent"},
        copies=_C,
    ),
    *_steps(
        "skipped_topic_deletion",
        " since it is currently being deleted",
        "Skipping reassignment of partition ",
        " since it is currently being deleted",
        "",
        "",
        dash_before="1.1",
        name="reassignment/skipped_topic_deletion_1.0",
    ),
    *_steps(
        "failed",
        "Error completing reassignment of partition ",
        "Error completing reassignment of partition ",
        "",
        "",
        "",
        dash_before=None,
        name="reassignment/failed_completing",
    ),
    *_steps(
        "never_created",
        " as it was never created",
        "Error handling reassignment of partition ",
        " to replicas " + INTS + " as it was never created",
        "",
        "replicas",
        dash_before="2.4",
    ),
    event(
        "reassignment/nonexistent_partition",
        T.REASSIGNMENT,
        " that doesn't exist.",
        CTRL_IDENT + "Ignoring request to reassign partition " + TP + r" that doesn't exist\.",
        "origin_broker topic partition",
        since="1.1",
        before="2.4",
        constants={"phase": "nonexistent_partition"},
        copies=_C,
    ),
    event(
        "reassignment/already_assigned",
        T.REASSIGNMENT,
        ". Ignoring request for partition reassignment.",
        CTRL_IDENT
        + "Partition "
        + TP
        + " to be reassigned is already assigned to replicas "
        + INTS
        + r"\. Ignoring request for partition reassignment\.",
        "origin_broker topic partition replicas",
        since="1.1",
        before="2.4",
        constants={"phase": "already_assigned"},
        copies=_C,
    ),
    event(
        "reassignment/controller_moved",
        T.REASSIGNMENT,
        " because controller has moved to another broker",
        CTRL_IDENT
        + "Failed completing reassignment of partition "
        + TP
        + " because controller has moved to another broker",
        "origin_broker topic partition",
        since="2.4",
        constants={"phase": "failed", "error": "controller_moved"},
        copies=_C,
    ),
    event(
        "reassignment/failed_through_zk",
        T.REASSIGNMENT,
        "Failed reassignment through zk with the following errors: ",
        CTRL_IDENT + "Failed reassignment through zk with the following errors: " + TEXT,
        "origin_broker detail",
        since="2.4",
        constants={"phase": "failed"},
        copies=_C,
    ),
)
