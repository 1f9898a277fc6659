"""Partition state machine transitions, leader elections and unclean elections.

Renderings by release (FORMATS.md 3.1, 4.3, 4.5):

* 0.8 - 0.11: no state-change prefix, ``Controller 1 epoch 7 changed partition [orders,0] ...``;
  elections are announced (``started leader election``/``elected leader 3 for Offline
  partition``) and the leader selectors log in controller.log, including the only explicit
  unclean-election line (``There's potential data loss``). 0.8.1 hard-codes ``from NotExists to
  New`` for the creation transition.
* 1.0: prefix ``[Controller id=1 epoch=7] ``, partitions ``orders-0``, same sentences.
* 1.1+: ``... with state LeaderAndIsr(...)`` whose rendering changed in 3.2
  (``leaderRecoveryState=``), 3.3 (``partitionEpoch=``) and 3.5 (``isrWithBrokerEpoch=``); the
  version variants are separate entries so that each tells the version apart.
"""

from __future__ import annotations

from functools import partial

from kafkactl_core.grammars.entry import GrammarEntry, controller_event, event
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.fragments import (
    CTRL_IDENT,
    ID,
    INT,
    INTS,
    LAI_JSON,
    LAI_V1_1,
    LAI_V3_2,
    LAI_V3_3,
    LAI_V3_5,
    LICE,
    LICE_FIELDS,
    NUM,
    OPT_COLL_INTS,
    PARTITION_STATE,
    SC_IDENT,
    SC_IDENT_NO_EPOCH,
    SC_IDENT_OLD,
    SELECTOR_IDENT,
    TEXT,
    TOPIC,
    TP,
    TPB,
    coll,
)

_C = "controller_id=origin_broker"
_OLD_FIELDS = "origin_broker controller_epoch"
_SC_FIELDS = "origin_broker controller_epoch"
_PS2 = f"{PARTITION_STATE} to {PARTITION_STATE}"

_LAI_VARIANTS: tuple[tuple[str, str, str, str | None, str | None], ...] = (
    ("1.1", LAI_V1_1, "leader leader_epoch isr zk_version", "1.1", "3.2"),
    ("3.2", LAI_V3_2, "leader leader_epoch isr leader_recovery_state zk_version", "3.2", "3.3"),
    (
        "3.3",
        LAI_V3_3,
        "leader leader_epoch isr leader_recovery_state partition_epoch",
        "3.3",
        "3.5",
    ),
    ("3.5", LAI_V3_5, "leader leader_epoch isr leader_recovery_state partition_epoch", "3.5", None),
)
"""``LeaderAndIsr.toString`` variants: (label, fragment, fields, since, before)."""


def _tp_variants(
    name: str,
    event_type: T,
    literal: str,
    before_tp: str,
    after_tp: str,
    before_fields: str,
    after_fields: str,
    *,
    ident: str = CTRL_IDENT,
    constants: dict[str, str] | None = None,
) -> tuple[GrammarEntry, GrammarEntry]:
    """The ``[t,p]`` (up to 0.11) and ``t-p`` (1.0) variants of one controller.log sentence.

    These sentences (the 0.8 - 1.0 PartitionStateMachine and leader selectors) are gone in 1.1.
    """
    writer = "origin_broker " if ident == CTRL_IDENT else ""
    fields_bracket = f"{writer}{before_fields} topic partition {after_fields}"
    copies = _C if writer else None
    return (
        event(
            f"{name}/bracket",
            event_type,
            literal,
            ident + before_tp + TPB + after_tp,
            fields_bracket,
            before="1.0",
            constants=constants,
            copies=copies,
        ),
        event(
            name,
            event_type,
            literal,
            ident + before_tp + TP + after_tp,
            fields_bracket,
            since="1.0",
            before="1.1",
            constants=constants,
            copies=copies,
        ),
    )


_selector_variants = partial(_tp_variants, ident=SELECTOR_IDENT)
"""``_tp_variants`` of a 0.8 - 1.0 leader selector (``[OfflinePartitionLeaderSelector]: ``)."""

ENTRIES: tuple[GrammarEntry, ...] = (
    # --- 0.8 - 0.11: no prefix, [t,p] ---
    controller_event(
        "partition_state_change/0.8_created",
        T.PARTITION_STATE_CHANGE,
        " state from NotExists to New with assigned replicas ",
        f"{SC_IDENT_OLD}changed partition {TPB} state from NotExists"
        f" to New with assigned replicas {OPT_COLL_INTS}",
        f"{_OLD_FIELDS} topic partition replicas",
        before="0.10",
        constants={"from_state": "NonExistentPartition", "to_state": "NewPartition"},
    ),
    controller_event(
        "partition_state_change/0.11_assigned",
        T.PARTITION_STATE_CHANGE,
        " with assigned replicas ",
        f"{SC_IDENT_OLD}changed partition {TPB} state from {_PS2}"
        f" with assigned replicas {OPT_COLL_INTS}",
        f"{_OLD_FIELDS} topic partition from_state to_state replicas",
        before="1.0",
    ),
    controller_event(
        "partition_state_change/0.11_leader",
        T.PARTITION_STATE_CHANGE,
        " with leader ",
        f"{SC_IDENT_OLD}changed partition {TPB} from {_PS2} with leader {INT}",
        f"{_OLD_FIELDS} topic partition from_state to_state leader",
        before="1.0",
    ),
    controller_event(
        "partition_state_change/0.11_plain",
        T.PARTITION_STATE_CHANGE,
        " changed partition ",
        f"{SC_IDENT_OLD}changed partition {TPB} state from {_PS2}",
        f"{_OLD_FIELDS} topic partition from_state to_state",
        before="1.0",
    ),
    controller_event(
        "leader_election_started/0.11",
        T.LEADER_ELECTION_STARTED,
        " started leader election for partition ",
        f"{SC_IDENT_OLD}started leader election for partition {TPB}",
        f"{_OLD_FIELDS} topic partition",
        before="1.0",
    ),
    controller_event(
        "leader_elected/0.11",
        T.LEADER_ELECTED,
        " for Offline partition ",
        f"{SC_IDENT_OLD}elected leader {INT} for Offline partition {TPB}",
        f"{_OLD_FIELDS} leader topic partition",
        before="1.0",
    ),
    controller_event(
        "partition_state_change_failed/0.11",
        T.PARTITION_STATE_CHANGE_FAILED,
        " initiated state change for partition ",
        f"{SC_IDENT_OLD}initiated state change for partition {TPB} from {_PS2} failed",
        f"{_OLD_FIELDS} topic partition from_state to_state",
        before="1.0",
    ),
    controller_event(
        "partition_state_change_failed/0.11_no_live_replica",
        T.PARTITION_STATE_CHANGE_FAILED,
        " encountered error during state change of partition ",
        f"{SC_IDENT_OLD}encountered error during state change of partition {TPB}"
        rf" from New to Online, assigned replicas are \[{INTS}\], live"
        rf" brokers are \[{OPT_COLL_INTS}\]\. No assigned replica is alive\.",
        f"{_OLD_FIELDS} topic partition replicas live_brokers",
        before="1.0",
        constants={"from_state": "NewPartition", "to_state": "OnlinePartition"},
    ),
    # --- 1.0: [Controller id=1 epoch=7], t-p ---
    controller_event(
        "partition_state_change/assigned",
        T.PARTITION_STATE_CHANGE,
        " with assigned replicas ",
        f"{SC_IDENT}Changed partition {TP} state from"
        f" {_PS2} with assigned replicas {OPT_COLL_INTS}",
        f"{_SC_FIELDS} topic partition from_state to_state replicas",
        since="1.0",
    ),
    controller_event(
        "partition_state_change/1.0_leader",
        T.PARTITION_STATE_CHANGE,
        " with leader ",
        f"{SC_IDENT}Changed partition {TP} from {_PS2} with leader {INT}",
        f"{_SC_FIELDS} topic partition from_state to_state leader",
        since="1.0",
        before="1.1",
    ),
    controller_event(
        "partition_state_change/plain",
        T.PARTITION_STATE_CHANGE,
        "Changed partition ",
        f"{SC_IDENT}Changed partition {TP} state from {_PS2}",
        f"{_SC_FIELDS} topic partition from_state to_state",
        since="1.0",
    ),
    controller_event(
        "leader_election_started/1.0",
        T.LEADER_ELECTION_STARTED,
        "Started leader election for partition ",
        f"{SC_IDENT}Started leader election for partition {TP}",
        f"{_SC_FIELDS} topic partition",
        since="1.0",
        before="1.1",
    ),
    controller_event(
        "leader_elected/1.0",
        T.LEADER_ELECTED,
        " for Offline partition ",
        f"{SC_IDENT}Elected leader {INT} for Offline partition {TP}",
        f"{_SC_FIELDS} leader topic partition",
        since="1.0",
        before="1.1",
    ),
    controller_event(
        "partition_state_change_failed/1.0",
        T.PARTITION_STATE_CHANGE_FAILED,
        "Initiated state change for partition ",
        f"{SC_IDENT}Initiated state change for partition {TP} from {_PS2} failed",
        f"{_SC_FIELDS} topic partition from_state to_state",
        since="1.0",
        before="1.1",
    ),
    # --- 1.1+: with state LeaderAndIsr(...) ---
    *(
        controller_event(
            f"partition_state_change/leader_and_isr_{label}",
            T.PARTITION_STATE_CHANGE,
            " with state LeaderAndIsr(",
            f"{SC_IDENT}Changed partition {TP} from {_PS2} with state {fragment}",
            f"{_SC_FIELDS} topic partition from_state to_state {fields}",
            since=since,
            before=before,
        )
        for label, fragment, fields, since, before in _LAI_VARIANTS
    ),
    event(
        "partition_state_change_failed/1.1",
        T.PARTITION_STATE_CHANGE_FAILED,
        " failed to change state for partition ",
        f"{SC_IDENT_NO_EPOCH}Controller {ID} epoch {NUM} failed"
        f" to change state for partition {TP} from {_PS2}",
        "origin_broker controller_id controller_epoch topic partition from_state to_state",
        since="1.1",
    ),
    # --- controller.log, 0.8 - 1.0 PartitionStateMachine and leader selectors ---
    *_tp_variants(
        "leader_and_isr_initialized",
        T.LEADER_AND_ISR_INITIALIZED,
        "Initializing leader and isr for partition ",
        "Initializing leader and isr for partition ",
        f" to {LICE}",
        "",
        LICE_FIELDS,
    ),
    *_tp_variants(
        "unclean_leader_election",
        T.UNCLEAN_LEADER_ELECTION,
        "There's potential data loss.",
        "No broker in ISR is alive for ",
        rf"\. Elect leader {INT} from live brokers {INTS}\. There's potential data loss\.",
        "",
        "leader live_brokers",
        ident=SELECTOR_IDENT,
    ),
    *_tp_variants(
        "offline_partition_no_live_isr",
        T.OFFLINE_PARTITION_NO_LIVE_ISR,
        ". Pick the leader from the alive assigned replicas: ",
        "No broker in ISR is alive for ",
        rf"\. Pick the leader from the alive assigned replicas: {INTS}",
        "",
        "live_brokers",
        ident=SELECTOR_IDENT,
    ),
    *_selector_variants(
        "leader_selected/offline_from_isr",
        T.LEADER_SELECTED,
        "Some broker in ISR is alive for ",
        "Some broker in ISR is alive for ",
        rf"\. Select {INT} from ISR {INTS} to be the leader\.",
        "",
        "leader isr",
        constants={"trigger": "offline", "phase": "from_isr"},
    ),
    *_selector_variants(
        "leader_selected/offline",
        T.LEADER_SELECTED,
        "Selected new leader and ISR ",
        f"Selected new leader and ISR {LAI_JSON} for offline partition ",
        "",
        "leader leader_epoch isr",
        "",
        constants={"trigger": "offline", "phase": "selected"},
    ),
    *_selector_variants(
        "leader_selected/preferred",
        T.LEADER_SELECTED,
        " is not the preferred replica. Triggering preferred replica leader election",
        f"Current leader {INT} for partition ",
        r" is not the preferred replica\. Triggering preferred replica leader election",
        "previous_leader",
        "",
        constants={"trigger": "preferred", "phase": "selected"},
    ),
    *_selector_variants(
        "leader_selected/controlled_shutdown",
        T.LEADER_SELECTED,
        " : current leader = ",
        "Partition ",
        f" : current leader = {INT}, new leader = {INT}",
        "",
        "previous_leader leader",
        constants={"trigger": "controlled_shutdown", "phase": "selected"},
    ),
    *_tp_variants(
        "last_isr_retained",
        T.LAST_ISR_RETAINED,
        " since unclean leader election is disabled",
        f"Retaining last ISR {INT} of partition ",
        " since unclean leader election is disabled",
        "replica",
        "",
    ),
    controller_event(
        "unclean_election_enabled/default",
        T.UNCLEAN_ELECTION_ENABLED,
        "Unclean leader election has been enabled by default",
        f"{CTRL_IDENT}Unclean leader election has been enabled by default",
        "origin_broker",
        since="2.3",
    ),
    controller_event(
        "unclean_election_enabled/topic",
        T.UNCLEAN_ELECTION_ENABLED,
        "Unclean leader election has been enabled for topic ",
        f"{CTRL_IDENT}Unclean leader election has been enabled for topic {TOPIC}",
        "origin_broker topic",
        since="2.3",
    ),
    controller_event(
        "leader_election_started/retry",
        T.LEADER_ELECTION_STARTED,
        "Retrying leader election with strategy ",
        CTRL_IDENT
        + "Retrying leader election with strategy "
        + TEXT
        + " for partitions "
        + coll("([^\\n]*)"),
        "origin_broker strategy partitions",
        since="2.1",
        constants={"phase": "retry"},
    ),
)
