"""A broker taking over a partition as leader or follower, and KIP-704 recovery (broker side).

From 2.6 these are INFO state-change lines (``[Broker id=1] Leader orders-0 starts at leader
epoch 0 from offset 0 with high watermark 0 ISR [1,2,3] ...``); 3.3 added the topic id and the
partition epoch, 3.6 the previous leader (``Previous leader Some(2) and previous leader epoch was
1.``). Before 2.6 the leader line is a ``kafka.cluster.Partition`` line in server.log
(``[Partition t-0 broker=1] t-0 starts at Leader Epoch 1 from offset 5. Previous Leader Epoch
was: 0``).
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, Mode, event
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.fragments import BROKER_IDENT, INT, INTS, PARTITION_IDENT, TP

_TOPIC_ID = r"(?:Some\(([A-Za-z0-9_-]+)\)|None)"
_PREVIOUS_LEADER = r"Previous leader (?:Some\((-?[0-9]+)\)|None) and previous leader epoch was "
_UNDER_MIN_ISR = r" (?:\(under-min-isr\))?\. "

ENTRIES: tuple[GrammarEntry, ...] = (
    event(
        "partition_leader_started/server_log",
        T.PARTITION_LEADER_STARTED,
        " starts at Leader Epoch ",
        rf"{PARTITION_IDENT}[^ \n]+ starts at Leader"
        rf" Epoch {INT} from offset {INT}\. Previous Leader Epoch was: {INT}",
        "topic partition origin_broker leader_epoch start_offset previous_leader_epoch",
        since="0.11",
        before="2.6",
        copies="leader=origin_broker",
    ),
    event(
        "partition_leader_started/2.6",
        T.PARTITION_LEADER_STARTED,
        " starts at leader epoch ",
        f"{BROKER_IDENT}Leader {TP} starts at leader epoch {INT} from offset {INT}"
        rf" with high watermark {INT} ISR \[{INTS}\] addingReplicas \[{INTS}\]"
        rf" removingReplicas \[{INTS}\]\. Previous leader epoch was {INT}\.",
        "origin_broker topic partition leader_epoch start_offset high_watermark isr "
        "adding_replicas removing_replicas previous_leader_epoch",
        since="2.6",
        before="3.3",
        copies="leader=origin_broker",
    ),
    event(
        "partition_leader_started/3.3",
        T.PARTITION_LEADER_STARTED,
        " starts at leader epoch ",
        f"{BROKER_IDENT}Leader {TP} with topic id {_TOPIC_ID} starts at leader"
        f" epoch {INT} from offset {INT} with partition epoch {INT}, high watermark"
        rf" {INT}, ISR \[{INTS}\], adding replicas \[{INTS}\] and removing"
        rf" replicas \[{INTS}\]{_UNDER_MIN_ISR}Previous leader epoch was {INT}\.",
        "origin_broker topic partition topic_id leader_epoch start_offset partition_epoch "
        "high_watermark isr adding_replicas removing_replicas previous_leader_epoch",
        since="3.3",
        before="3.6",
        mode=Mode.ANY,
        copies="leader=origin_broker",
    ),
    event(
        "partition_leader_started/3.6",
        T.PARTITION_LEADER_STARTED,
        " starts at leader epoch ",
        f"{BROKER_IDENT}Leader {TP} with topic id {_TOPIC_ID} starts at leader"
        f" epoch {INT} from offset {INT} with partition epoch {INT}, high"
        rf" watermark {INT}, ISR \[{INTS}\], adding replicas \[{INTS}\] and"
        rf" removing replicas \[{INTS}\]{_UNDER_MIN_ISR}{_PREVIOUS_LEADER}{INT}\.",
        "origin_broker topic partition topic_id leader_epoch start_offset partition_epoch "
        "high_watermark isr adding_replicas removing_replicas previous_leader "
        "previous_leader_epoch",
        since="3.6",
        mode=Mode.ANY,
        copies="leader=origin_broker",
    ),
    event(
        "partition_follower_started/2.6",
        T.PARTITION_FOLLOWER_STARTED,
        " starts at leader epoch ",
        f"{BROKER_IDENT}Follower {TP} starts at leader epoch {INT} from offset"
        rf" {INT} with high watermark {INT}\. Previous leader epoch was {INT}\.",
        "origin_broker topic partition leader_epoch start_offset high_watermark "
        "previous_leader_epoch",
        since="2.6",
        before="3.3",
        copies="replica=origin_broker",
    ),
    event(
        "partition_follower_started/3.3",
        T.PARTITION_FOLLOWER_STARTED,
        " starts at leader epoch ",
        f"{BROKER_IDENT}Follower {TP} starts at leader epoch {INT} from"
        rf" offset {INT} with partition epoch {INT} and high watermark {INT}\."
        rf" Current leader is {INT}\. Previous leader epoch was {INT}\.",
        "origin_broker topic partition leader_epoch start_offset partition_epoch high_watermark "
        "leader previous_leader_epoch",
        since="3.3",
        before="3.6",
        mode=Mode.ANY,
        copies="replica=origin_broker",
    ),
    event(
        "partition_follower_started/3.6",
        T.PARTITION_FOLLOWER_STARTED,
        " starts at leader epoch ",
        f"{BROKER_IDENT}Follower {TP} starts at leader epoch {INT} from"
        f" offset {INT} with partition epoch {INT} and high watermark"
        rf" {INT}\. Current leader is {INT}\. {_PREVIOUS_LEADER}{INT}\.",
        "origin_broker topic partition leader_epoch start_offset partition_epoch high_watermark "
        "leader previous_leader previous_leader_epoch",
        since="3.6",
        mode=Mode.ANY,
        copies="replica=origin_broker",
    ),
    event(
        "partition_recovered",
        T.PARTITION_RECOVERED,
        " was marked as RECOVERING. Marking the topic partition as RECOVERED.",
        f"{BROKER_IDENT}The topic partition {TP} was marked as"
        r" RECOVERING\. Marking the topic partition as RECOVERED\.",
        "origin_broker topic partition",
        since="3.2",
        mode=Mode.ANY,
        constants={"leader_recovery_state": "RECOVERED"},
        copies="leader=origin_broker",
    ),
)
