"""Replica state machine transitions and the controller's removal of replicas from the ISR.

Up to 0.11 the state-change line is ``Controller 1 epoch 7 changed state of replica 2 for
partition [orders,0] from OnlineReplica to OfflineReplica`` (0.8.1: ``... to NewReplica`` without
a from-state); from 1.0 it is ``[Controller id=1 epoch=7] Changed state of replica ...``, which is
TRACE and therefore absent by default from 2.6. From 2.6 the ISR removal that accompanies an
``OfflineReplica`` transition is logged at INFO as ``Partition t-0 state changed to (Leader:..,
ISR:..) after removing replica 2 from the ISR as part of transition to OfflineReplica``. Up to 1.0
the same removal is logged in controller.log (``Removing replica 2 from ISR 1,2 for partition``
then ``New leader and ISR for partition ... is {json}``).
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, controller_event, event
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.fragments import (
    CTRL_IDENT,
    ID,
    INT,
    INTS,
    LAI_JSON,
    LICE,
    LICE_FIELDS,
    NUM,
    REPLICA_STATE,
    SC_IDENT,
    SC_IDENT_NO_EPOCH,
    SC_IDENT_OLD,
    TEXT,
    TP,
    TPB,
    TPS,
    coll,
)

_RS2 = f"{REPLICA_STATE} to {REPLICA_STATE}"


def _bracket_and_dash(
    name: str, event_type: T, literal: str, head: str, tail: str, head_fields: str, tail_fields: str
) -> tuple[GrammarEntry, GrammarEntry]:
    """controller.log sentences naming a partition: ``[t,p]`` up to 0.11, ``t-p`` in 1.0."""
    fields = f"origin_broker {head_fields} topic partition {tail_fields}"
    return (
        controller_event(
            f"{name}/bracket",
            event_type,
            literal,
            CTRL_IDENT + head + TPB + tail,
            fields,
            before="1.0",
        ),
        controller_event(
            name,
            event_type,
            literal,
            CTRL_IDENT + head + TP + tail,
            fields,
            since="1.0",
            before="1.1",
        ),
    )


ENTRIES: tuple[GrammarEntry, ...] = (
    controller_event(
        "replica_state_change/0.8",
        T.REPLICA_STATE_CHANGE,
        " changed state of replica ",
        f"{SC_IDENT_OLD}changed state of replica {INT} for partition {TPB} to {REPLICA_STATE}",
        "origin_broker controller_epoch replica topic partition to_state",
        before="0.10",
    ),
    controller_event(
        "replica_state_change/0.11",
        T.REPLICA_STATE_CHANGE,
        " changed state of replica ",
        f"{SC_IDENT_OLD}changed state of replica {INT} for partition {TPB} from {_RS2}",
        "origin_broker controller_epoch replica topic partition from_state to_state",
        before="1.0",
    ),
    controller_event(
        "replica_state_change",
        T.REPLICA_STATE_CHANGE,
        "Changed state of replica ",
        f"{SC_IDENT}Changed state of replica {INT} for partition {TP} from {_RS2}",
        "origin_broker controller_epoch replica topic partition from_state to_state",
        since="1.0",
    ),
    controller_event(
        "replica_state_change_failed/0.11",
        T.REPLICA_STATE_CHANGE_FAILED,
        " initiated state change of replica ",
        f"{SC_IDENT_OLD}initiated state change of replica {INT}"
        f" for partition {TPB} from {_RS2} failed",
        "origin_broker controller_epoch replica topic partition from_state to_state",
        before="1.0",
    ),
    controller_event(
        "replica_state_change_failed/1.0",
        T.REPLICA_STATE_CHANGE_FAILED,
        "Initiated state change of replica ",
        f"{SC_IDENT}Initiated state change of replica {INT} for partition {TP} from {_RS2} failed",
        "origin_broker controller_epoch replica topic partition from_state to_state",
        since="1.0",
        before="1.1",
    ),
    event(
        "replica_state_change_failed/1.1",
        T.REPLICA_STATE_CHANGE_FAILED,
        " initiated state change of replica ",
        f"{SC_IDENT_NO_EPOCH}Controller {ID} epoch {NUM} initiated state"
        f" change of replica {INT} for partition {TP} from {_RS2} failed",
        "origin_broker controller_id controller_epoch replica topic partition from_state to_state",
        since="1.1",
    ),
    controller_event(
        "replica_removed_from_isr/offline_replica",
        T.REPLICA_REMOVED_FROM_ISR,
        " after removing replica ",
        f"{SC_IDENT}Partition {TP} state changed to {LICE} after removing"
        f" replica {INT} from the ISR as part of transition to OfflineReplica",
        f"origin_broker controller_epoch topic partition {LICE_FIELDS} replica",
        since="2.6",
        constants={"to_state": "OfflineReplica"},
    ),
    controller_event(
        "replicas_marked_offline",
        T.REPLICAS_MARKED_OFFLINE,
        "Mark replicas ",
        f"{SC_IDENT}Mark replicas {TPS} on broker {ID} as offline",
        "origin_broker controller_epoch partitions broker",
        since="1.0",
    ),
    *_bracket_and_dash(
        "isr_removal_started",
        T.ISR_REMOVAL_STARTED,
        " for partition ",
        f"Removing replica {INT} from ISR {INTS} for partition ",
        r"\.",
        "replica previous_isr",
        "",
    ),
    *_bracket_and_dash(
        "replica_removed_from_isr/json",
        T.REPLICA_REMOVED_FROM_ISR,
        "New leader and ISR for partition ",
        "New leader and ISR for partition ",
        f" is {LAI_JSON}",
        "",
        "leader leader_epoch isr",
    ),
    *_bracket_and_dash(
        "isr_removal_skipped",
        T.ISR_REMOVAL_SKIPPED,
        " since it is not in the ISR. Leader = ",
        f"Cannot remove replica {INT} from ISR of partition ",
        rf" since it is not in the ISR\. Leader = {INT} ; ISR = {coll(INTS)}",
        "replica",
        "leader isr",
    ),
    controller_event(
        "alter_isr_failed/remove_replica",
        T.ALTER_ISR_FAILED,
        "Controller failed to remove replica ",
        f"{CTRL_IDENT}Controller failed to remove replica {INT} from"
        rf" ISR of partition {TP}\. Attempted to write state {TEXT},"
        r" but failed with bad ZK version\. This will be retried\.",
        "origin_broker replica topic partition detail",
        since="2.7",
    ),
)
