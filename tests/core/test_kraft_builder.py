"""PartitionChangeBuilder rules beyond the published oracle cases."""

from __future__ import annotations

from kafkactl_core.kraft.builder import Election, ElectionResult, PartitionChangeBuilder
from kafkactl_core.kraft.metadata_version import MetadataVersion
from kafkactl_core.kraft.records import NO_LEADER_CHANGE, PartitionChangeRecord
from kafkactl_core.kraft.registration import PartitionRegistration
from kafkactl_core.model import LeaderRecoveryState
from kafkactl_core.versions import KafkaRelease

TOPIC = "FbrrdcfiR-KC2CPSTHaJrg"
MV_36 = MetadataVersion.parse("3.6-IV0")
MV_40 = MetadataVersion.parse("4.0-IV0")
RELEASE_39 = KafkaRelease(3, 9)


def _builder(
    partition: PartitionRegistration,
    acceptable: set[int] | None = None,
    mv: MetadataVersion = MV_36,
    min_isr: int = 1,
    release: KafkaRelease = RELEASE_39,
) -> PartitionChangeBuilder:
    return PartitionChangeBuilder(
        partition,
        TOPIC,
        0,
        lambda broker: acceptable is None or broker in acceptable,
        mv,
        min_isr,
        release=release,
    )


def test_fencing_the_last_isr_member_keeps_it_in_the_isr() -> None:
    partition = PartitionRegistration(replicas=(1, 2), isr=(1,), leader=1)
    built = _builder(partition, acceptable={2}).set_target_isr(()).build()
    assert built.record == PartitionChangeRecord(0, TOPIC, leader=-1)
    assert partition.merge(built.record).isr == (1,)


def test_online_election_is_sticky() -> None:
    partition = PartitionRegistration(replicas=(1, 2, 3), isr=(1, 2, 3), leader=2)
    built = _builder(partition).set_target_isr((1, 2)).build()
    assert built.record == PartitionChangeRecord(0, TOPIC, isr=(1, 2))
    assert built.election == ElectionResult(2, False)


def test_preferred_falls_back_to_another_isr_member() -> None:
    partition = PartitionRegistration(replicas=(1, 2, 3), isr=(1, 2, 3), leader=1)
    builder = _builder(partition, acceptable={3}).set_election(Election.PREFERRED)
    assert builder.elect_leader() == ElectionResult(3, False)


def test_preferred_with_no_target_replicas_elects_nobody_instead_of_failing() -> None:
    partition = PartitionRegistration(replicas=(1,), isr=(1,), leader=1)
    builder = _builder(partition, acceptable=set()).set_election(Election.PREFERRED)
    assert builder.set_target_replicas(()).elect_leader() == ElectionResult(-1, False)


def test_unclean_election_marks_recovering_and_shrinks_isr() -> None:
    partition = PartitionRegistration(replicas=(1, 2), isr=(1,), leader=-1)
    built = _builder(partition, acceptable={2}).set_election(Election.UNCLEAN).build()
    assert built.election == ElectionResult(2, True)
    assert built.record == PartitionChangeRecord(
        0, TOPIC, isr=(2,), leader=2, leader_recovery_state=LeaderRecoveryState.RECOVERING
    )


def test_leader_reporting_recovered_clears_recovering() -> None:
    partition = PartitionRegistration(
        replicas=(1, 2), isr=(2,), leader=2, leader_recovery_state=LeaderRecoveryState.RECOVERING
    )
    built = (
        _builder(partition)
        .set_target_isr((2, 1))
        .set_target_leader_recovery_state(LeaderRecoveryState.RECOVERED)
        .build()
    )
    assert built.record == PartitionChangeRecord(
        0, TOPIC, isr=(2, 1), leader_recovery_state=LeaderRecoveryState.RECOVERED
    )


def test_isr_shrink_bump_before_3_6_only() -> None:
    partition = PartitionRegistration(replicas=(1, 2, 3), isr=(1, 2, 3), leader=1)
    old = _builder(partition, mv=MetadataVersion.parse("3.5-IV2")).set_target_isr((1, 2)).build()
    assert old.record is not None and old.record.leader == 1
    new = _builder(partition, mv=MV_36).set_target_isr((1, 2)).build()
    assert new.record is not None and new.record.leader == NO_LEADER_CHANGE


def test_zk_migration_bump_is_gone_on_trunk() -> None:
    partition = PartitionRegistration(replicas=(1, 2, 3), isr=(1, 2, 3), leader=1)
    for release, leader in ((KafkaRelease(3, 9), 1), (KafkaRelease(4, 0), NO_LEADER_CHANGE)):
        built = (
            _builder(partition, release=release)
            .set_zk_migration_enabled(True)
            .set_target_isr((1, 2))
            .build()
        )
        assert built.record is not None and built.record.leader == leader


def test_elr_lists_follow_java_hash_set_order() -> None:
    brokers = tuple(range(1001, 1009))
    partition = PartitionRegistration(replicas=brokers, isr=brokers, leader=1001)
    built = (
        _builder(partition, mv=MV_40, min_isr=5)
        .set_eligible_leader_replicas_enabled(True)
        .set_target_isr((1001,))
        .build()
    )
    assert built.record is not None
    assert built.record.eligible_leader_replicas == (1008, 1002, 1003, 1004, 1005, 1006, 1007)


def test_elr_member_elected_cleanly_when_isr_is_empty() -> None:
    partition = PartitionRegistration(
        replicas=(1, 2, 3), isr=(), leader=-1, elr=(2, 3), last_known_elr=(1,)
    )
    builder = _builder(partition, acceptable={3}, mv=MV_40, min_isr=2)
    built = builder.set_eligible_leader_replicas_enabled(True).build()
    assert built.election == ElectionResult(3, False) and built.elected_from_elr
    assert built.record == PartitionChangeRecord(
        0, TOPIC, isr=(3,), leader=3, eligible_leader_replicas=(2,), last_known_elr=()
    )


def test_unchanged_partition_builds_nothing() -> None:
    partition = PartitionRegistration(replicas=(1, 2), isr=(1, 2), leader=1)
    assert _builder(partition).set_election(Election.UNCLEAN).build().record is None


def test_last_known_leader_that_is_still_the_leader_keeps_leading_an_empty_isr() -> None:
    # The record Kafka 3.9.0-rc3 writes, traced through PartitionChangeBuilder.java: ELR and the
    # last known ELR populate to [] and [1] (1 shut down uncleanly); no ISR or ELR member may
    # lead, so canElectLastKnownLeader picks 1 unclean without checking isAcceptableLeader;
    # tryElection skips because 1 is already the leader (no leader field, no ISR = [1], no
    # RECOVERING); build() writes the empty target ISR; maybeUpdateLastKnownLeader clears the
    # last known ELR since the partition keeps a leader. Kafka's own tests
    # (testEligibleLeaderReplicas_ElectLastKnownLeader) only elect it from leader -1.
    partition = PartitionRegistration(
        replicas=(1, 2), isr=(1,), leader=1, leader_epoch=7, last_known_elr=(1,)
    )
    built = (
        _builder(partition, acceptable={2}, mv=MV_40, min_isr=2)
        .set_election(Election.PREFERRED)
        .set_eligible_leader_replicas_enabled(True)
        .set_unclean_shutdown_replicas((1,))
        .set_target_isr(())
        .build()
    )
    assert built.election == ElectionResult(1, True)
    assert built.record == PartitionChangeRecord(0, TOPIC, isr=(), last_known_elr=())
    after = partition.merge(built.record)
    assert (after.leader, after.leader_epoch, after.isr) == (1, 7, ())
    assert (after.elr, after.last_known_elr) == ((), ())
    assert after.leader_recovery_state is LeaderRecoveryState.RECOVERED
