"""Failed elections on hand-built evidence: every attempt of an offline partition is its own
row, one attempt seen in several sources is one, and what a failed election leaves in force."""

from __future__ import annotations

import pytest

from kafkactl_core.replay import (
    ElectionRow,
)
from tests.core.replay_evidence import (
    ASSIGN,
    CTRL,
    SC,
    SRV,
    STABLE,
    T0,
    F,
    K,
    ev,
    fact,
    only,
    registered,
    run,
    write,
)


def _attempt(t, *sources, controller_epoch=5):
    """One failed offline election as Kafka logs it (``logFailedStateChange``), per source."""
    return [
        ev(
            F.election_failed,
            t,
            source,
            from_state="OfflinePartition",
            to_state="OnlinePartition",
            controller_id=1,
            controller_epoch=controller_epoch,
        )
        for source in sources
    ]


def _offline_isr(t=100):
    """Leader 1 alone in the ISR [1] (znode version 11), brokers 2 and 3 out of it."""
    return [
        *STABLE,
        ev(F.isr_changed, t, SRV, leader=1, previous_isr=(1, 2, 3), isr=(1,), broker=1),
        write(t + 1, 1, 3, [1], 11, controller_epoch=5),
    ]


def test_every_failed_attempt_of_an_offline_partition_is_its_own_row():
    # 2.8 KafkaController: leader 1, alone in the ISR, dies: onReplicasBecomeOffline fails to
    # elect (the ERROR in state-change.log), then OfflineReplica writes leader -1, epoch + 1
    # (removeReplicasFromIsr keeps a one-member ISR). Brokers 2 and 3 restart 2 s apart: each
    # onBrokerStartup runs triggerOnlinePartitionStateChange, which fails again and writes
    # nothing. A new controller (epoch 6) first moves replica 1 to OfflineReplica again (leader
    # -1 rewritten, epoch + 1), then its triggerOnlinePartitionStateChange fails. Broker 1 comes
    # back and is elected.
    out = run(
        [
            *_offline_isr(),
            *_attempt(1010, SC),
            write(1012, -1, 4, [1], 12, controller_epoch=5),
            *_attempt(20_005, SC),
            *_attempt(22_003, SC),
            write(40_010, -1, 5, [1], 13, controller_epoch=6),
            *_attempt(40_010, SC, controller_epoch=6),
            write(90_000, 1, 6, [1], 14, controller_epoch=6),
        ],
        [
            registered(-10, 1, 2, 3),
            fact(K.broker_down, 50, broker=2),
            fact(K.broker_down, 60, broker=3),
            fact(K.broker_down, 1000, broker=1),
            fact(K.broker_up, 20_000, broker=2),
            fact(K.broker_up, 22_000, broker=3),
            fact(K.broker_up, 89_000, broker=1),
        ],
    )
    *failed, back = out.elections
    assert [
        (
            r.elected_at_ms - T0,
            r.new_leader,
            r.trigger,
            r.controller_epoch,
            r.prev_leader,
            r.prev_leader_epoch,
            r.isr_before,
            r.leader_epoch,
            r.isr_after,
            r.partition_epoch,
        )
        for r in failed
    ] == [
        # before: leader 1 at epoch 3; written right after: leader -1, epoch 4, version 12
        (1010, -1, "offline", 5, 1, 3, (1,), 4, (1,), 12),
        # nothing written after: what is in force
        (20_005, -1, "offline", 5, -1, 4, (1,), 4, (1,), 12),
        (22_003, -1, "offline", 5, -1, 4, (1,), 4, (1,), 12),
        # the failover's OfflineReplica write came before the attempt
        (40_010, -1, "offline", 6, -1, 5, (1,), 5, (1,), 13),
    ]
    assert all((r.expected_leader, r.agrees) == (-1, True) for r in failed)
    assert [len(r.evidence) for r in failed] == [2, 1, 1, 1]
    assert (back.prev_leader, back.prev_leader_epoch, back.new_leader) == (-1, 5, 1)
    assert (back.leader_epoch, back.partition_epoch, back.trigger) == (6, 14, "offline")
    assert (back.unclean, back.expected_leader, back.agrees) == (False, 1, True)
    assert out.anomalies == []


@pytest.mark.parametrize("write_first", [False, True])
def test_one_attempt_seen_in_three_sources_is_one_row(write_first: bool) -> None:
    # The state-change ERROR, the controller.log copy of a release that logs it there too and
    # the ZooKeeper write of the OfflineReplica step right after, in either order (stamped in
    # the same millisecond, the ZooKeeper transaction sorts first).
    attempt = _attempt(1010, SC, CTRL)
    written = write(1010 if write_first else 1012, -1, 4, [1], 12, controller_epoch=5)
    evidence = [written, *attempt] if write_first else [*attempt, written]
    out = run(
        [*_offline_isr(), *evidence],
        [
            registered(-10, 1, 2, 3),
            fact(K.broker_down, 50, broker=2),
            fact(K.broker_down, 60, broker=3),
            fact(K.broker_down, 1000, broker=1),
        ],
    )
    row = only(out.elections)
    assert (row.elected_at_ms, row.new_leader, row.prev_leader, row.prev_leader_epoch) == (
        T0 + 1010,
        -1,
        1,
        3,
    )
    assert (row.isr_before, row.leader_epoch, row.isr_after, row.partition_epoch) == (
        (1,),
        4,
        (1,),
        12,
    )
    assert row.source == "zk_txn+controller_log+state_change_log" and len(row.evidence) == 3
    assert (row.controller_id, row.controller_epoch, row.agrees) == (1, 5, True)


def test_a_failed_online_to_online_election_is_not_an_offline_one():
    # Offline elections start from OfflinePartition: an Online -> Online attempt that fails
    # right after a preferred-election request is the preferred election's.
    out = run(
        [
            *STABLE,
            ev(F.preferred_requested, 500, CTRL),
            ev(
                F.election_failed,
                501,
                SC,
                from_state="OnlinePartition",
                to_state="OnlinePartition",
                controller_id=1,
                controller_epoch=5,
            ),
        ],
        [registered(-10, 1, 2, 3)],
    )
    row = only(out.elections)
    assert (row.new_leader, row.trigger, row.prev_leader, row.leader_epoch) == (
        -1,
        "preferred",
        1,
        3,
    )


def test_attempts_of_two_controller_epochs_are_two_rows():
    # The same second, but another controller epoch: another controller event.
    out = run(
        [
            *_offline_isr(),
            *_attempt(1010, SC),
            *_attempt(1500, CTRL, controller_epoch=6),
        ],
        [registered(-10, 1, 2, 3), fact(K.broker_down, 1000, broker=1)],
    )
    assert [(r.new_leader, r.controller_epoch) for r in out.elections] == [(-1, 5), (-1, 6)]


def test_election_row_failed_property():
    row = ElectionRow(
        "c",
        "t",
        0,
        "actual",
        T0,
        None,
        None,
        "offline",
        1,
        -1,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        (),
        "zk_txn",
    )
    assert row.failed and row.elected_at is not None


def test_failed_preferred_election_tells_the_current_leader():
    out = run(
        [
            ASSIGN,
            ev(F.transition_failed, 10, CTRL, leader=2, trigger="preferred"),
            ev(F.leader_claimed, 5000, CTRL, leader=1, trigger="preferred"),
        ],
        [registered(-10, 1, 2, 3)],
    )
    row = only(out.elections)
    assert (row.prev_leader, row.new_leader, row.trigger) == (2, 1, "preferred")
