"""Every record of the format-exact reference examples (0.11 - 3.9) is recognised, with the right
event type and fields; no message matches two entries; every match contains its entry's literal.
"""

from __future__ import annotations

import dataclasses
import functools

import pytest

from kafkactl_core.grammars import (
    EventType,
    LogRecord,
    Outcome,
    ParsedEvent,
    assemble_records,
    grammar_entries,
    parse_record,
    resolve_layout,
)
from kafkactl_core.grammars.executor import candidate_entries
from tests.conftest import needs_reference, reference_dir

EXAMPLES = reference_dir() / "examples"
pytestmark = needs_reference(EXAMPLES, "examples")
EXAMPLE_FILES = sorted(p.name for p in EXAMPLES.glob("*.log.*")) if EXAMPLES.is_dir() else []
LAYOUT = resolve_layout("kafka")


@functools.cache
def _parsed(name: str) -> tuple[tuple[LogRecord, Outcome], ...]:
    with (EXAMPLES / name).open("rb") as handle:
        return tuple((record, parse_record(record)) for record in assemble_records(handle, LAYOUT))


def _at(name: str, line: int) -> tuple[LogRecord, Outcome]:
    for record, outcome in _parsed(name):
        if record.first_line == line:
            return record, outcome
    raise AssertionError(f"no record starts at {name}:{line}")


def test_the_examples_are_all_there() -> None:
    versions = {"0.11", "1.0", "2.0", "2.4", "2.8", "3.0", "3.5", "3.9"}
    assert set(EXAMPLE_FILES) == {
        f"{kind}.log.{v}" for kind in ("controller", "state-change") for v in versions
    }


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_every_record_is_recognised_and_every_line_accounted_for(name: str) -> None:
    data = (EXAMPLES / name).read_bytes()
    parsed = _parsed(name)
    assert sum(record.line_count for record, _ in parsed) == data.count(b"\n")
    # The files open with a "#" header saying they are synthetic: the only lines outside a
    # record, accounted for as one orphan record.
    header, *rest = parsed
    assert header[0].orphan_reason == "before_first_record"
    assert all(line.startswith("#") for line in header[0].text.split("\n"))
    assert header[1].status == "quarantined"
    unrecognised = [
        (record.first_line, outcome) for record, outcome in rest if outcome.status == "quarantined"
    ]
    assert unrecognised == []
    # Recognised by a grammar entry, not by the foreign-logger fallback.
    assert [r.first_line for r, o in rest if o.status == "ignored" and o.grammar is None] == []


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_no_message_matches_two_entries_and_literals_prefilter_soundly(name: str) -> None:
    entries = grammar_entries()
    for record, _ in _parsed(name):
        if record.message is None:
            continue
        matching = [e for e in entries if e.regex.fullmatch(record.message)]
        assert len(matching) <= 1, (record.first_line, [e.name for e in matching])
        for entry in matching:
            assert entry.literal in record.message, (entry.name, record.first_line)


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_the_prefilter_finds_exactly_the_literals_a_message_contains(name: str) -> None:
    for record, _ in _parsed(name):
        if record.message is not None:
            expected = [e for e in grammar_entries() if e.literal in record.message]
            assert candidate_entries(record.message) == expected


# (file, line, grammar, event type, every non-null field of the event)
SPOT_CHECKS: list[tuple[str, int, str, EventType, dict[str, object]]] = [
    ("controller.log.0.11", 9, "controller_elected/plain", EventType.CONTROLLER_ELECTED,
     {"origin_broker": 1, "controller_id": 1}),
    ("controller.log.0.11", 12, "controller_epoch_incremented/0.8",
     EventType.CONTROLLER_EPOCH_INCREMENTED,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7}),
    ("controller.log.0.11", 52, "broker_change/no_bounced", EventType.BROKER_CHANGE,
     {"origin_broker": 1, "controller_id": 1, "added_brokers": (), "deleted_brokers": (2,),
      "live_brokers": (1, 3)}),
    ("controller.log.0.11", 63, "unclean_leader_election/bracket",
     EventType.UNCLEAN_LEADER_ELECTION,
     {"topic": "audit", "partition": 0, "leader": 3, "live_brokers": (3,)}),
    ("controller.log.0.11", 62, "offline_partition_no_live_isr/bracket",
     EventType.OFFLINE_PARTITION_NO_LIVE_ISR,
     {"topic": "audit", "partition": 0, "live_brokers": (3,)}),
    ("controller.log.0.11", 61, "leader_selected/offline/bracket", EventType.LEADER_SELECTED,
     {"topic": "orders", "partition": 1, "leader": 3, "leader_epoch": 1, "isr": (3,),
      "trigger": "offline", "phase": "selected"}),
    ("controller.log.0.11", 84, "leader_imbalance_ratio", EventType.LEADER_IMBALANCE_RATIO,
     {"origin_broker": 1, "controller_id": 1, "broker": 2, "ratio": 1.0}),
    ("controller.log.0.11", 83, "preferred_replica_imbalance/0.11",
     EventType.PREFERRED_REPLICA_IMBALANCE,
     {"origin_broker": 1, "controller_id": 1,
      "detail": "[orders,1] -> List(2, 3), [audit,0] -> List(2, 3)"}),
    ("controller.log.0.11", 87, "preferred_election_started/bracket",
     EventType.PREFERRED_ELECTION_STARTED,
     {"origin_broker": 1, "controller_id": 1, "partitions": ("[orders,1]",),
      "election_type": "PREFERRED"}),
    ("controller.log.0.11", 99, "leader_selected/controlled_shutdown/bracket",
     EventType.LEADER_SELECTED,
     {"topic": "orders", "partition": 1, "previous_leader": 2, "leader": 3,
      "trigger": "controlled_shutdown", "phase": "selected"}),
    ("controller.log.0.11", 95, "controlled_shutdown/controller_started",
     EventType.CONTROLLED_SHUTDOWN,
     {"origin_broker": 1, "controller_id": 1, "broker": 2, "phase": "started"}),
    ("controller.log.0.11", 66, "isr_removal_started/bracket", EventType.ISR_REMOVAL_STARTED,
     {"origin_broker": 1, "controller_id": 1, "topic": "orders", "partition": 0, "replica": 2,
      "previous_isr": (1, 2)}),
    ("controller.log.0.11", 133, "reassignment/caught_up/bracket", EventType.REASSIGNMENT,
     {"origin_broker": 1, "controller_id": 1, "topic": "audit", "partition": 0, "count": 2,
      "phase": "caught_up"}),
    ("controller.log.0.11", 163, "controller_moved/already_elected", EventType.CONTROLLER_MOVED,
     {"origin_broker": 1, "controller_id": 3, "phase": "already_elected"}),
    ("state-change.log.0.11", 8, "partition_state_change/0.11_assigned",
     EventType.PARTITION_STATE_CHANGE,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "topic": "orders",
      "partition": 0, "from_state": "NonExistentPartition", "to_state": "NewPartition",
      "replicas": (1, 2, 3)}),
    ("state-change.log.0.11", 55, "partition_state_change/0.11_leader",
     EventType.PARTITION_STATE_CHANGE,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "topic": "orders",
      "partition": 1, "from_state": "OfflinePartition", "to_state": "OnlinePartition",
      "leader": 3}),
    ("state-change.log.0.11", 11, "replica_state_change/0.11", EventType.REPLICA_STATE_CHANGE,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "replica": 1,
      "topic": "orders", "partition": 0, "from_state": "NonExistentReplica",
      "to_state": "NewReplica"}),
    ("state-change.log.0.11", 21, "leader_and_isr_sent/0.8", EventType.LEADER_AND_ISR_SENT,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "role": "become-leader",
      "leader": 1, "isr": (1, 2, 3), "leader_epoch": 0, "state_controller_epoch": 7,
      "broker": 1, "topic": "orders", "partition": 0}),
    ("state-change.log.0.11", 38, "leader_and_isr_received/0.11",
     EventType.LEADER_AND_ISR_RECEIVED,
     {"origin_broker": 1, "state_controller_epoch": 7, "leader": 1, "leader_epoch": 0,
      "isr": (1, 2, 3), "zk_version": 0, "replicas": (1, 2, 3), "correlation_id": 2,
      "controller_id": 1, "controller_epoch": 7, "topic": "orders", "partition": 0}),
    ("controller.log.1.0", 64, "unclean_leader_election", EventType.UNCLEAN_LEADER_ELECTION,
     {"topic": "audit", "partition": 0, "leader": 3, "live_brokers": (3,)}),
    ("controller.log.1.0", 68, "replica_removed_from_isr/json",
     EventType.REPLICA_REMOVED_FROM_ISR,
     {"origin_broker": 1, "controller_id": 1, "topic": "orders", "partition": 0, "leader": 1,
      "leader_epoch": 1, "isr": (1,)}),
    ("controller.log.1.0", 12, "controller_epoch_incremented/1.0",
     EventType.CONTROLLER_EPOCH_INCREMENTED,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7}),
    ("state-change.log.1.0", 55, "partition_state_change/1.0_leader",
     EventType.PARTITION_STATE_CHANGE,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "topic": "orders",
      "partition": 1, "from_state": "OfflinePartition", "to_state": "OnlinePartition",
      "leader": 3}),
    ("state-change.log.1.0", 21, "leader_and_isr_sent/partition_state",
     EventType.LEADER_AND_ISR_SENT,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "role": "become-leader",
      "state_controller_epoch": 7, "leader": 1, "leader_epoch": 0, "isr": (1, 2, 3),
      "zk_version": 0, "replicas": (1, 2, 3), "broker": 1, "topic": "orders",
      "partition": 0}),
    ("controller.log.2.0", 13, "controller_epoch_incremented/1.1",
     EventType.CONTROLLER_EPOCH_INCREMENTED,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7}),
    ("controller.log.2.0", 65, "preferred_replica_imbalance", EventType.PREFERRED_REPLICA_IMBALANCE,
     {"origin_broker": 1, "controller_id": 1, "broker": 2,
      "detail": "orders-1 -> List(2, 3), audit-0 -> List(2, 3)"}),
    ("controller.log.2.0", 106, "reassignment/completed_2.0", EventType.REASSIGNMENT,
     {"origin_broker": 1, "controller_id": 1, "partitions": ("audit-0",), "phase": "completed"}),
    ("state-change.log.2.0", 51, "partition_state_change/leader_and_isr_1.1",
     EventType.PARTITION_STATE_CHANGE,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "topic": "orders",
      "partition": 1, "from_state": "OfflinePartition", "to_state": "OnlinePartition",
      "leader": 3, "leader_epoch": 1, "isr": (3,), "zk_version": 1}),
    ("controller.log.2.4", 9, "controller_elected/with_epoch", EventType.CONTROLLER_ELECTED,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7,
      "controller_epoch_zk_version": 6}),
    ("controller.log.2.4", 39, "preferred_election_started", EventType.PREFERRED_ELECTION_STARTED,
     {"origin_broker": 1, "controller_id": 1, "election_type": "PREFERRED", "partitions": (),
      "trigger": "ZkTriggered"}),
    ("controller.log.2.4", 47, "broker_change/bounced", EventType.BROKER_CHANGE,
     {"origin_broker": 1, "controller_id": 1, "added_brokers": (), "deleted_brokers": (2,),
      "bounced_brokers": (), "live_brokers": (1, 3)}),
    ("controller.log.2.4", 84, "reassignment/assignment_updated_2.4", EventType.REASSIGNMENT,
     {"origin_broker": 1, "controller_id": 1, "topic": "audit", "partition": 0,
      "replicas": (1, 3, 2), "adding_replicas": (1,), "removing_replicas": (2,),
      "phase": "assignment_updated"}),
    ("controller.log.2.4", 87, "reassignment/target_caught_up", EventType.REASSIGNMENT,
     {"origin_broker": 1, "controller_id": 1, "replicas": (1, 3), "topic": "audit",
      "partition": 0, "phase": "caught_up"}),
    ("state-change.log.2.4", 21, "leader_and_isr_sent/generated_zk_version",
     EventType.LEADER_AND_ISR_SENT,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "role": "become-leader",
      "topic": "orders", "partition": 0, "state_controller_epoch": 7, "leader": 1,
      "leader_epoch": 0, "isr": (1, 2, 3), "zk_version": 0, "replicas": (1, 2, 3),
      "adding_replicas": (), "removing_replicas": (), "broker": 1}),
    ("state-change.log.2.4", 130, "reassignment/leader_and_isr_sent", EventType.REASSIGNMENT,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "leader": 3, "isr": (3,),
      "leader_epoch": 4, "state_controller_epoch": 7, "replicas": (1, 3, 2),
      "adding_replicas": (1,), "removing_replicas": (2,), "topic": "audit", "partition": 0,
      "phase": "leader_and_isr_sent"}),
    ("controller.log.2.8", 47, "alter_isr_applied/zk_version", EventType.ALTER_ISR_APPLIED,
     {"origin_broker": 1, "controller_id": 1, "topic": "orders", "partition": 0, "isr": (1, 2),
      "zk_version": 1}),
    ("controller.log.2.8", 90, "leader_epoch_updated/zk_version", EventType.LEADER_EPOCH_UPDATED,
     {"origin_broker": 1, "controller_id": 1, "topic": "audit", "partition": 0,
      "leader_epoch": 4, "zk_version": 6, "phase": "updated"}),
    ("state-change.log.2.8", 8, "update_metadata_sent/summary", EventType.UPDATE_METADATA_SENT,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "brokers": (1, 2, 3),
      "count": 0}),
    ("state-change.log.2.8", 18, "leader_and_isr_sent/summary", EventType.LEADER_AND_ISR_SENT,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "broker": 1,
      "become_leader_count": 1, "become_follower_count": 0}),
    ("state-change.log.2.8", 25, "partition_leader_started/2.6",
     EventType.PARTITION_LEADER_STARTED,
     {"origin_broker": 1, "leader": 1, "topic": "orders", "partition": 0, "leader_epoch": 0,
      "start_offset": 0, "high_watermark": 0, "isr": (1, 2, 3), "adding_replicas": (),
      "removing_replicas": (), "previous_leader_epoch": -1}),
    ("state-change.log.2.8", 38, "replica_removed_from_isr/offline_replica",
     EventType.REPLICA_REMOVED_FROM_ISR,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "topic": "orders",
      "partition": 0, "leader": 1, "isr": (1,), "leader_epoch": 1, "zk_version": 2,
      "state_controller_epoch": 7, "replica": 2, "to_state": "OfflineReplica"}),
    ("state-change.log.2.8", 69, "stop_replica_sent/summary", EventType.STOP_REPLICA_SENT,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "count": 1, "broker": 2}),
    ("state-change.log.2.8", 93, "partition_follower_started/2.6",
     EventType.PARTITION_FOLLOWER_STARTED,
     {"origin_broker": 1, "replica": 1, "topic": "audit", "partition": 0, "leader_epoch": 4,
      "start_offset": 412, "high_watermark": 412, "previous_leader_epoch": 3}),
    ("controller.log.3.0", 47, "alter_isr_applied/zk_version", EventType.ALTER_ISR_APPLIED,
     {"origin_broker": 1, "controller_id": 1, "topic": "orders", "partition": 0, "isr": (1, 2),
      "zk_version": 1}),
    ("state-change.log.3.0", 33, "partition_state_change/leader_and_isr_1.1",
     EventType.PARTITION_STATE_CHANGE,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "topic": "orders",
      "partition": 1, "from_state": "OfflinePartition", "to_state": "OnlinePartition",
      "leader": 3, "leader_epoch": 1, "isr": (3,), "zk_version": 1}),
    ("controller.log.3.5", 47, "alter_isr_applied/leader_and_isr_3.5", EventType.ALTER_ISR_APPLIED,
     {"origin_broker": 1, "controller_id": 1, "topic": "orders", "partition": 0, "leader": 1,
      "leader_epoch": 0, "isr": (1, 2), "leader_recovery_state": "RECOVERED",
      "partition_epoch": 1}),
    ("state-change.log.3.5", 34, "partition_state_change/leader_and_isr_3.5",
     EventType.PARTITION_STATE_CHANGE,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "topic": "audit",
      "partition": 0, "from_state": "OfflinePartition", "to_state": "OnlinePartition",
      "leader": 3, "leader_epoch": 1, "isr": (3,), "leader_recovery_state": "RECOVERING",
      "partition_epoch": 2}),
    ("state-change.log.3.5", 40, "replica_removed_from_isr/offline_replica",
     EventType.REPLICA_REMOVED_FROM_ISR,
     {"origin_broker": 1, "controller_id": 1, "controller_epoch": 7, "topic": "audit",
      "partition": 0, "leader": 3, "isr": (3,), "leader_recovery_state": "RECOVERING",
      "leader_epoch": 1, "zk_version": 2, "state_controller_epoch": 7, "replica": 2,
      "to_state": "OfflineReplica"}),
    ("state-change.log.3.5", 25, "partition_leader_started/3.3",
     EventType.PARTITION_LEADER_STARTED,
     {"origin_broker": 1, "leader": 1, "topic": "orders", "partition": 0,
      "topic_id": "kW3aGe1cQ1yN8vQ0bYj3Pw", "leader_epoch": 0, "start_offset": 0,
      "partition_epoch": 0, "high_watermark": 0, "isr": (1, 2, 3), "adding_replicas": (),
      "removing_replicas": (), "previous_leader_epoch": -1}),
    ("controller.log.3.9", 49, "alter_isr_applied/leader_and_isr_3.5", EventType.ALTER_ISR_APPLIED,
     {"origin_broker": 1, "controller_id": 1, "topic": "audit", "partition": 0, "leader": 2,
      "leader_epoch": 0, "isr": (2,), "leader_recovery_state": "RECOVERED",
      "partition_epoch": 1}),
    ("state-change.log.3.9", 25, "partition_leader_started/3.6",
     EventType.PARTITION_LEADER_STARTED,
     {"origin_broker": 1, "leader": 1, "topic": "orders", "partition": 0,
      "topic_id": "kW3aGe1cQ1yN8vQ0bYj3Pw", "leader_epoch": 0, "start_offset": 0,
      "partition_epoch": 0, "high_watermark": 0, "isr": (1, 2, 3), "adding_replicas": (),
      "removing_replicas": (), "previous_leader_epoch": -1}),
    ("state-change.log.3.9", 95, "partition_follower_started/3.6",
     EventType.PARTITION_FOLLOWER_STARTED,
     {"origin_broker": 1, "replica": 1, "topic": "audit", "partition": 0, "leader_epoch": 4,
      "start_offset": 412, "partition_epoch": 7, "high_watermark": 412, "leader": 3,
      "previous_leader": 3, "previous_leader_epoch": 3}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "line", "grammar", "event_type", "fields"),
    SPOT_CHECKS,
    ids=[f"{c[0]}:{c[1]}" for c in SPOT_CHECKS],
)
def test_event_fields(
    name: str, line: int, grammar: str, event_type: EventType, fields: dict[str, object]
) -> None:
    _, outcome = _at(name, line)
    assert isinstance(outcome, ParsedEvent), outcome
    assert outcome.grammar == grammar
    assert outcome.event.event_type is event_type
    set_fields = {
        key: value
        for key, value in dataclasses.asdict(outcome.event).items()
        if value is not None and key != "event_type"
    }
    assert set_fields == fields


def test_record_metadata_is_kept() -> None:
    record, outcome = _at("state-change.log.3.5", 34)
    assert isinstance(outcome, ParsedEvent)
    assert outcome.level == "INFO" and outcome.logger == "state.change.logger"
    assert (
        outcome.timestamp is not None
        and outcome.timestamp.isoformat() == "2023-12-05T14:20:44.030000"
    )
    assert (
        (outcome.first_line, outcome.line_count)
        == (34, 1)
        == (record.first_line, record.line_count)
    )


def test_topic_ids_assignment_is_kept_verbatim() -> None:
    _, outcome = _at("controller.log.2.8", 44)
    assert isinstance(outcome, ParsedEvent) and outcome.grammar == "topics_changed/topic_ids"
    assert outcome.event.topics == ("orders", "audit") and outcome.event.deleted_topics == ()
    assert outcome.event.detail is not None
    assert outcome.event.detail.startswith(
        "Set(TopicIdReplicaAssignment(orders,Some(kW3aGe1cQ1yN8vQ0bYj3Pw),Map(orders-0 -> "
        "ReplicaAssignment(replicas=1,2,3, addingReplicas=, removingReplicas=)"
    )


def test_every_family_of_the_brief_is_seen_in_the_examples() -> None:
    seen = {
        outcome.event.event_type
        for name in EXAMPLE_FILES
        for _, outcome in _parsed(name)
        if isinstance(outcome, ParsedEvent)
    }
    required = {
        EventType.CONTROLLER_ELECTED, EventType.CONTROLLER_EPOCH_INCREMENTED,
        EventType.CONTROLLER_RESIGNED, EventType.CONTROLLER_MOVED, EventType.BROKER_CHANGE,
        EventType.BROKER_FAILURE_CALLBACK, EventType.BROKER_STARTUP_CALLBACK,
        EventType.CONTROLLED_SHUTDOWN, EventType.PARTITION_STATE_CHANGE,
        EventType.REPLICA_REMOVED_FROM_ISR, EventType.REPLICA_STATE_CHANGE,
        EventType.UNCLEAN_LEADER_ELECTION, EventType.OFFLINE_PARTITION_NO_LIVE_ISR,
        EventType.ALTER_ISR_RECEIVED, EventType.ALTER_ISR_APPLIED,
        EventType.ISR_CHANGE_NOTIFICATION, EventType.AUTO_REBALANCE_CHECK,
        EventType.LEADER_IMBALANCE_RATIO, EventType.PREFERRED_REPLICA_IMBALANCE,
        EventType.PREFERRED_ELECTION_STARTED, EventType.PREFERRED_ELECTION_COMPLETED,
        EventType.REASSIGNMENT, EventType.TOPICS_CHANGED, EventType.LEADER_AND_ISR_SENT,
        EventType.UPDATE_METADATA_SENT, EventType.STOP_REPLICA_SENT,
        EventType.LEADER_AND_ISR_RECEIVED, EventType.UPDATE_METADATA_RECEIVED,
        EventType.PARTITION_LEADER_STARTED, EventType.PARTITION_FOLLOWER_STARTED,
    }  # fmt: skip
    assert required - seen == set()
