"""KRaft records, the replay (merge) rule, directory ids and Java HashSet ordering."""

from __future__ import annotations

import pytest

from kafkactl_core.kraft import directory_ids
from kafkactl_core.kraft.java_collections import JavaIntHashSet
from kafkactl_core.kraft.metadata_version import MetadataVersion
from kafkactl_core.kraft.records import (
    BrokerRegistrationChangeRecord,
    PartitionChangeRecord,
    PartitionRecord,
    RecordAndVersion,
    record_from_json,
)
from kafkactl_core.kraft.registration import PartitionRegistration, election_was_clean
from kafkactl_core.model import LeaderRecoveryState

TOPIC = "FbrrdcfiR-KC2CPSTHaJrg"
BASE = PartitionRegistration(
    replicas=(2, 1, 3), isr=(2, 1, 3), leader=1, leader_epoch=100, partition_epoch=200
)


def test_merge_isr_only_bumps_partition_epoch() -> None:
    after = BASE.merge(PartitionChangeRecord(0, TOPIC, isr=(2, 1)))
    assert (after.isr, after.leader, after.leader_epoch, after.partition_epoch) == (
        (2, 1),
        1,
        100,
        201,
    )


def test_merge_same_leader_bumps_leader_epoch() -> None:
    after = BASE.merge(PartitionChangeRecord(0, TOPIC, leader=1))
    assert (after.leader, after.leader_epoch, after.partition_epoch) == (1, 101, 201)


def test_merge_recovery_state_unset_keeps_previous() -> None:
    recovering = BASE.merge(
        PartitionChangeRecord(
            0, TOPIC, leader=3, isr=(3,), leader_recovery_state=LeaderRecoveryState.RECOVERING
        )
    )
    assert recovering.leader_recovery_state is LeaderRecoveryState.RECOVERING
    assert recovering.merge(PartitionChangeRecord(0, TOPIC, leader=2)).leader_recovery_state is (
        LeaderRecoveryState.RECOVERING
    )


def test_directories_default_to_migrating_and_must_match_replicas() -> None:
    assert BASE.directories == (directory_ids.MIGRATING,) * 3
    with pytest.raises(ValueError, match="do not match"):
        BASE.merge(PartitionChangeRecord(0, TOPIC, directories=(directory_ids.UNASSIGNED,)))
    # Kafka keeps the old array when the record carries no directories (pre-3.7-IV2 records).
    moved = BASE.merge(PartitionChangeRecord(0, TOPIC, replicas=(2, 1)))
    assert [moved.directory(b) for b in moved.replicas] == [directory_ids.MIGRATING] * 2
    assert moved.directory(7) == directory_ids.UNASSIGNED


def test_election_was_clean_is_the_log_line_rule() -> None:
    assert election_was_clean(-1, (1,))
    assert election_was_clean(1, (1, 2))
    assert not election_was_clean(3, (1, 2))  # also true of an ELR election


def test_partition_change_json_shows_only_set_fields() -> None:
    record = PartitionChangeRecord(
        0, TOPIC, isr=(), leader=-1, eligible_leader_replicas=(1, 2, 3, 4), last_known_elr=(1,)
    )
    assert RecordAndVersion(record, 2).to_json_dict() == {
        "type": "PARTITION_CHANGE_RECORD",
        "version": 2,
        "data": {
            "partitionId": 0,
            "topicId": TOPIC,
            "isr": [],
            "leader": -1,
            "eligibleLeaderReplicas": [1, 2, 3, 4],
            "lastKnownElr": [1],
        },
    }
    assert PartitionChangeRecord(0, TOPIC).is_no_op()


def test_records_read_back_from_dump_json() -> None:
    data = {"partitionId": 0, "topicId": TOPIC, "isr": [1], "leader": 1, "leaderRecoveryState": 1}
    record = record_from_json("PARTITION_CHANGE_RECORD", data)
    assert record == PartitionChangeRecord(
        0, TOPIC, isr=(1,), leader=1, leader_recovery_state=LeaderRecoveryState.RECOVERING
    )
    assert record.to_json_dict() == data
    change = record_from_json(
        "BROKER_REGISTRATION_CHANGE_RECORD", {"brokerId": 3, "brokerEpoch": 57, "fenced": -1}
    )
    assert change == BrokerRegistrationChangeRecord(3, 57, fenced=-1)
    with pytest.raises(ValueError, match="unsupported"):
        record_from_json("NO_OP_RECORD", {})
    with pytest.raises(ValueError, match="lacks field"):
        record_from_json("TOPIC_RECORD", {"name": "foo"})
    with pytest.raises(ValueError, match="malformed"):
        record_from_json("UNREGISTER_BROKER_RECORD", {"brokerId": "x", "brokerEpoch": 1})


def test_partition_record_round_trip_through_registration() -> None:
    written = BASE.to_record(TOPIC, 4, MetadataVersion.parse("3.7-IV2"))
    assert written.version == 1
    assert isinstance(written.record, PartitionRecord)
    assert PartitionRegistration.from_record(written.record) == BASE
    assert (
        "directories"
        not in BASE.to_record(TOPIC, 4, MetadataVersion.parse("3.6-IV2")).record.to_json_dict()
    )


def test_directory_sentinels() -> None:
    assert directory_ids.from_text("UNASSIGNED") == "AAAAAAAAAAAAAAAAAAAAAQ"
    assert directory_ids.to_text("AAAAAAAAAAAAAAAAAAAAAg") == "LOST"
    assert directory_ids.is_reserved(directory_ids.LOST)
    assert not directory_ids.is_reserved("dpdvA5AZSWySmnPFTnu5Kw")
    assert directory_ids.is_online(directory_ids.UNASSIGNED, ["x"])
    assert not directory_ids.is_online(directory_ids.LOST, [])
    assert directory_ids.is_online("dpdvA5AZSWySmnPFTnu5Kw", [])
    assert not directory_ids.is_online("dpdvA5AZSWySmnPFTnu5Kw", ["V60B3cglScq3Xk8BX1NxAQ"])


def test_java_hash_set_order_small_ids_ascending() -> None:
    assert list(JavaIntHashSet([4, 3, 1, 2])) == [1, 2, 3, 4]


def test_java_hash_set_order_wraps_buckets() -> None:
    # 1008 & 15 == 0: it comes first in a 16-bucket table, as java.util.HashSet iterates.
    assert list(JavaIntHashSet(range(1001, 1009))) == [1008, *range(1001, 1008)]


def test_java_hash_set_resizes_past_three_quarters() -> None:
    values = JavaIntHashSet()
    for value in (16, 0, 32, 1):
        values.add(value)
    assert list(values) == [16, 0, 32, 1]  # one bucket (0) in insertion order, then 1
    for value in range(100, 109):
        values.add(value)  # 13 members: the table doubles to 32 buckets
    assert list(values)[:3] == [0, 32, 1]
