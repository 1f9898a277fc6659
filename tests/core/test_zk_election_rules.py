"""Election rules by release where the oracle is thin: pre-1.1 selectors, ISR removal, layouts."""

from __future__ import annotations

import pytest

from kafkactl_core.assignment import ReplicaAssignment, scala_set_order
from kafkactl_core.model import NO_LEADER, LeaderAndIsr, LeaderRecoveryState
from kafkactl_core.profiles import KafkaVersion, ReassignmentLayout
from kafkactl_core.zkcontroller.election import (
    elect_controlled_shutdown,
    elect_offline,
    elect_preferred,
    elect_reassign,
)
from kafkactl_core.zkcontroller.isr import remove_replica_from_isr

V = KafkaVersion.of


@pytest.mark.parametrize(
    ("release", "leader"),
    [("0.8.0", 3), ("0.8.1", 3), ("0.8.2", 2), ("0.10.2", 2), ("1.1", 2), ("3.8", 2)],
)
def test_offline_clean_leader_order_by_release(release: str, leader: int) -> None:
    # ISR order [3, 2, 1], assignment order [1, 2, 3], broker 1 dead.
    out = elect_offline(V(release), LeaderAndIsr(1, 4, (3, 2, 1)), (1, 2, 3), (2, 3), False, False)
    assert out.leader_and_isr == LeaderAndIsr(leader, 5, (3, 2))
    assert not out.unclean


@pytest.mark.parametrize(
    ("release", "elected"), [("0.8.1", True), ("0.8.2", False), ("0.10.2", False)]
)
def test_unclean_config_ignored_before_0_8_2(release: str, elected: bool) -> None:
    out = elect_offline(V(release), LeaderAndIsr(1, 0, (1,)), (1, 2), (2,), False, False)
    assert (out.leader_and_isr is not None) is elected
    if elected:
        assert out.unclean and out.leader_and_isr is not None and out.leader_and_isr.isr == (2,)


def test_unclean_recovery_state_and_kept_state() -> None:
    prev = LeaderAndIsr(1, 0, (1,), 3, LeaderRecoveryState.RECOVERING)
    unclean = elect_offline(V("3.8"), LeaderAndIsr(1, 0, (1,)), (1, 2), (2,), True, True)
    assert unclean.leader_and_isr is not None
    assert unclean.leader_and_isr.leader_recovery_state is LeaderRecoveryState.RECOVERING
    # A later clean election keeps RECOVERING (only the leader's AlterPartition resets it).
    clean = elect_offline(V("3.8"), prev, (1, 2), (1, 2), False, True)
    assert clean.leader_and_isr is not None
    assert clean.leader_and_isr.leader_recovery_state is LeaderRecoveryState.RECOVERING
    assert clean.leader_and_isr.partition_epoch == 3


@pytest.mark.parametrize(
    ("release", "leader", "isr", "recipients"),
    [
        ("0.8.0", 3, (3, 2), (1, 2, 3)),  # ISR minus the current leader, ISR head
        ("0.9.0", 3, (3, 2), (1, 2, 3)),  # ISR minus shutting down, ISR head
        ("0.10.0", 2, (3, 2), (1, 2, 3)),  # first live-or-shutting-down assigned in new ISR
        ("1.1", 2, (3, 2), (2, 3)),  # algorithm; LeaderAndIsr not sent to the shutting-down
        ("2.1", 2, (3, 2), (1, 2, 3)),  # KAFKA-7482: shutting-down broker notified again
    ],
)
def test_controlled_shutdown_by_release(
    release: str, leader: int, isr: tuple[int, ...], recipients: tuple[int, ...]
) -> None:
    out = elect_controlled_shutdown(
        V(release), LeaderAndIsr(1, 0, (3, 2, 1)), (1, 2, 3), (1, 2, 3), {1}
    )
    assert out.leader_and_isr == LeaderAndIsr(leader, 1, isr)
    assert out.recipients == recipients


def test_preferred_already_leading_by_release() -> None:
    current = LeaderAndIsr(1, 4, (1, 2))
    old = elect_preferred(V("1.0"), current, (1, 2), {1, 2})
    assert old.not_needed and old.leader_and_isr is None
    new = elect_preferred(V("1.1"), current, (1, 2), {1, 2})
    assert new.leader_and_isr == LeaderAndIsr(1, 5, (1, 2))
    # Never falls back to another replica.
    assert (
        elect_preferred(V("3.8"), LeaderAndIsr(2, 0, (2,)), (1, 2), {1, 2}).leader_and_isr is None
    )


def test_reassign_uses_target_order_and_keeps_isr() -> None:
    out = elect_reassign(LeaderAndIsr(1, 2, (1, 3, 4)), (4, 3), {3, 4})
    assert out.leader_and_isr == LeaderAndIsr(4, 3, (1, 3, 4))
    assert out.recipients == (4, 3)


@pytest.mark.parametrize(
    ("release", "unclean", "isr"),
    [
        ("0.8.1", False, ()),
        ("0.8.2", False, (5,)),
        ("0.8.2", True, ()),
        ("1.0", True, ()),
        ("1.1", True, (5,)),
        ("3.8", False, (5,)),
    ],
)
def test_last_isr_member_rule(release: str, unclean: bool, isr: tuple[int, ...]) -> None:
    rule = V(release).last_isr_member_rule
    out = remove_replica_from_isr(rule, LeaderAndIsr(5, 7, (5,)), 5, unclean)
    assert out == LeaderAndIsr(NO_LEADER, 8, isr)


def test_isr_removal_of_follower_and_non_member() -> None:
    rule = V("3.8").last_isr_member_rule
    assert remove_replica_from_isr(rule, LeaderAndIsr(5, 7, (6, 5, 7)), 6, False) == LeaderAndIsr(
        5, 8, (5, 7)
    )
    assert remove_replica_from_isr(rule, LeaderAndIsr(5, 7, (5, 7)), 6, False) is None


def test_reassign_to_layouts() -> None:
    current = ReplicaAssignment((1, 2, 3))
    assert current.reassign_to((4, 2, 5, 3)).replicas == (4, 2, 5, 3, 1)
    legacy = ReplicaAssignment((1, 2, 3)).reassign_to((4, 5), ReassignmentLayout.scala_set)
    # (RAR ++ OAR).toSet.toSeq: Scala 2.12 prints Set(1, 2, 3, 4, 5) as Set(5, 1, 2, 3, 4).
    assert legacy.replicas == (5, 1, 2, 3, 4)
    assert (legacy.adding, legacy.removing) == ((5, 4), (1, 2, 3))
    # Up to four elements a Scala Set iterates in insertion order.
    assert scala_set_order((4, 5, 1, 4)) == (4, 5, 1)
    # From five on, the HashTrieSet order (the same set in any insertion order).
    assert scala_set_order((1, 2, 3, 4, 5)) == scala_set_order((5, 4, 3, 2, 1)) == (5, 1, 2, 3, 4)
    assert scala_set_order(range(1, 8)) == (5, 1, 6, 2, 7, 3, 4)
    assert current.remove_replica(2) == ReplicaAssignment((1, 3))
