"""Elections the fold finds in hand-built evidence: every trigger (new partitions, broker
failures, controlled shutdown, preferred, reassignment, admin and KRaft elections), clean and
unclean elections across releases, and failed elections, each attempt its own row (helpers:
``replay_evidence``)."""

from __future__ import annotations

import pytest

from kafkactl_core.replay import (
    ElectionRow,
    Source,
)
from tests.core.replay_evidence import (
    ASSIGN,
    CTRL,
    SC,
    STABLE,
    T0,
    F,
    K,
    before_and_after,
    election_line,
    ev,
    fact,
    isr_change,
    kinds,
    only,
    registered,
    run,
    transition,
    unclean_enabled,
    unclean_stream,
    write,
)

# ---------------------------------------------------------------------------------- triggers


def test_new_partition():
    out = run(
        [
            transition(0, "NonExistentPartition", "NewPartition", replicas=(1, 2, 3)),
            write(5, 1, 0, [1, 2, 3], 0),
            election_line(6, "NewPartition", 1, 0, [1, 2, 3], 0),
        ],
        [registered(-10, 1, 2, 3)],
    )
    row = only(out.elections)
    assert (row.trigger, row.prev_leader, row.new_leader, row.leader_epoch) == (
        "new_partition",
        None,
        1,
        0,
    )
    assert row.assignment == (1, 2, 3) and row.isr_after == (1, 2, 3)
    assert (row.unclean, row.expected_leader, row.agrees) == (False, 1, True)
    assert row.source == "zk_txn+state_change_log" and len(row.evidence) == 3


def test_broker_failure_elects_the_first_live_isr_member_in_assignment_order():
    out = run(
        [*STABLE, write(1010, 3, 4, [3, 2], 11)],
        [registered(-10, 1, 2, 3), fact(K.broker_down, 1000, broker=1)],
    )
    row = only(out.elections)
    assert (row.trigger, row.prev_leader, row.new_leader, row.leader_epoch) == ("offline", 1, 3, 4)
    assert row.isr_before == (1, 2, 3) and row.isr_after == (3, 2) and row.unclean is False
    # 2.8 rule: first live ISR member in *assignment* order is 2, not 3: the log disagrees.
    assert (row.expected_leader, row.agrees) == (2, False)
    assert kinds(out) == ["decision_disagreement"]
    assert row.live_brokers == (2, 3)


def test_controller_failover_removes_the_dead_leader_before_electing():
    # A new controller moves the dead broker's replicas to OfflineReplica first (leader -1, the
    # ISR without it), then elects: one election from "no leader", no failed one.
    out = run(
        [*STABLE, write(1015, -1, 4, [2, 3], 11), write(1033, 2, 5, [2, 3], 12)],
        [registered(-10, 1, 2, 3), fact(K.broker_down, 1000, broker=1)],
    )
    row = only(out.elections)
    assert (row.trigger, row.prev_leader, row.new_leader, row.leader_epoch) == ("offline", -1, 2, 5)
    assert row.isr_before == (2, 3) and row.isr_after == (2, 3) and row.unclean is False
    assert (row.expected_leader, row.agrees) == (2, True)
    assert out.anomalies == []
    assert [(r.leader, r.leader_epoch) for r in out.timeline] == [(1, 3), (-1, 4), (2, 5)]


def test_pre_0_8_2_offline_rule_takes_the_head_of_the_live_isr():
    # 0.8.0/0.8.1: leader = head of the live ISR in ISR order (3), not assignment order.
    out = run(
        [ASSIGN, write(1, 1, 3, [1, 3, 2], 10), write(1010, 3, 4, [3, 2], 11)],
        [registered(-10, 1, 2, 3), fact(K.broker_down, 1000, broker=1)],
        version="0.8.1",
    )
    row = only(out.elections)
    assert (row.trigger, row.expected_leader, row.agrees) == ("offline", 3, True)


def test_unclean_since_1_1_is_found_from_the_isr_before():
    evidence, facts = unclean_stream(topic_unclean=True)
    out = run(evidence, facts)
    failed, unclean = out.elections
    assert (failed.new_leader, failed.trigger, failed.prev_leader) == (-1, "offline", 1)
    assert failed.isr_before == (1,) and failed.unclean is None
    assert (failed.expected_leader, failed.agrees) == (-1, True)
    assert (unclean.prev_leader, unclean.new_leader, unclean.leader_epoch) == (-1, 2, 5)
    assert unclean.isr_before == (1,) and unclean.isr_after == (2,)
    assert (unclean.trigger, unclean.unclean) == ("offline", True)
    assert (unclean.unclean_setting, unclean.unclean_setting_source) == (True, "topic_config")
    assert (unclean.expected_leader, unclean.agrees) == (2, True)
    # Broker 2 left the ISR at +100 ms and was elected at +60 s.
    assert unclean.new_leader_left_isr_ms == T0 + 100
    assert unclean.exposure_seconds == pytest.approx(59.9)
    assert (unclean.high_watermark, unclean.new_leader_start_offset) == (120, 90)
    assert unclean.offsets_at_risk == 30
    assert out.anomalies == []


def test_unclean_election_against_the_default_setting_disagrees():
    evidence, facts = unclean_stream(topic_unclean=False)
    out = run(evidence, facts)
    row = out.elections[-1]
    assert row.unclean is True
    assert (row.unclean_setting, row.unclean_setting_source) == (False, "version_default")
    assert (row.expected_leader, row.agrees) == (-1, False)
    assert kinds(out) == ["decision_disagreement"]
    # The configured static default counts before the release default.
    out = run(evidence, facts, broker_unclean_enable=True)
    row = out.elections[-1]
    assert (row.unclean_setting_source, row.agrees) == ("configured_default", True)


def test_pre_1_1_unclean_warning_lines_merge_into_one_election():
    # 0.10.2, logs only: the controller's WARN, the selector's choice and the state-change
    # line; the UpdateMetadata cache line before it gives the state the controller saw.
    out = run(
        [
            ev(
                F.leadership_observed, 0, SC, leader=1, leader_epoch=4, isr=(1,), replicas=(1, 2, 3)
            ),
            ev(F.no_live_isr, 1000, CTRL, live_brokers=(2,)),
            ev(
                F.unclean_warning,
                1001,
                CTRL,
                leader=2,
                live_brokers=(2,),
                trigger="offline",
                ref="controller.log:113",
            ),
            ev(
                F.leadership_written,
                1001,
                CTRL,
                leader=2,
                leader_epoch=5,
                isr=(2,),
                trigger="offline",
                ref="controller.log:114",
            ),
            transition(1008, "OfflinePartition", "OnlinePartition", leader=2),
        ],
        [
            registered(-10, 1, 2, 3),
            fact(K.broker_down, 900, broker=1),
            fact(K.broker_down, 950, broker=3),
        ],
        version="0.10.2",
    )
    row = only(out.elections)
    assert (row.prev_leader, row.new_leader, row.leader_epoch) == (1, 2, 5)
    assert (row.trigger, row.unclean, row.isr_before) == ("offline", True, (1,))
    assert (row.unclean_setting, row.unclean_setting_source) == (True, "version_default")
    assert (row.expected_leader, row.agrees) == (2, True)
    assert len(row.evidence) == 4 and row.source == "controller_log+state_change_log"
    assert out.anomalies == []


def test_controlled_shutdown_from_controller_log():
    out = run(
        [*STABLE, write(2005, 2, 4, [2, 3], 11)],
        [registered(-10, 1, 2, 3), fact(K.shutting_down_add, 2000, broker=1)],
    )
    row = only(out.elections)
    assert (row.trigger, row.new_leader, row.expected_leader, row.agrees) == (
        "controlled_shutdown",
        2,
        2,
        True,
    )
    assert row.live_brokers == (2, 3)


def test_controlled_shutdown_inferred_from_zookeeper_alone():
    # No log: the old leader is registered at the election and deregisters 3 s later.
    out = run(
        [*STABLE, write(2005, 2, 4, [2, 3], 11)],
        [registered(-10, 1, 2, 3), fact(K.broker_down, 5000, broker=1, detail="session_closed")],
    )
    row = only(out.elections)
    assert row.trigger == "controlled_shutdown" and "deregistered" in (row.detail or "")
    assert (row.expected_leader, row.agrees) == (2, True)


@pytest.mark.parametrize("hinted", [True, False])
def test_preferred_election(hinted):
    evidence = [
        ASSIGN,
        write(1, 2, 5, [2, 3, 1], 20),
        write(4000, 1, 6, [2, 3, 1], 21),
    ]
    if hinted:
        evidence.append(
            ev(F.election_started, 3999, CTRL, trigger="preferred", detail="AutoTriggered")
        )
    out = run(evidence, [registered(-10, 1, 2, 3)])
    row = only(out.elections)
    assert (row.trigger, row.prev_leader, row.new_leader) == ("preferred", 2, 1)
    assert (row.expected_leader, row.agrees, row.unclean) == (1, True, False)


def test_preferred_election_to_a_leader_outside_the_isr_seen_is_not_unclean():
    # the ISR expansion that put 1 back is not in the evidence (a real 4.1.1 capture's leader
    # did not log it): a preferred election elects only from the ISR, so the ISR had grown
    evidence = [
        ASSIGN,
        write(1, 2, 5, [2, 3], 20),
        ev(F.election_started, 3999, CTRL, trigger="preferred", detail="AutoTriggered"),
        write(4000, 1, 6, [2, 3, 1], 21),
    ]
    out = run(evidence, [registered(-10, 1, 2, 3)])
    row = only(out.elections)
    assert (row.trigger, row.new_leader, row.isr_before) == ("preferred", 1, (2, 3, 1))
    assert (row.expected_leader, row.agrees, row.unclean) == (1, True, False)
    assert out.anomalies == []


def test_reassignment_election_to_a_replica_no_evidence_assigns_is_not_checked():
    # a KRaft controller logs a reassignment's new replicas at DEBUG only: the leader it
    # elects from them is outside the assignment the evidence knows (a real 4.1.1 capture)
    out = run(
        [
            *STABLE,
            ev(F.election_started, 699, CTRL, trigger="reassign"),
            write(705, 4, 4, [2, 3, 4], 11),
        ],
        [registered(-10, 1, 2, 3, 4)],
    )
    row = only(out.elections)
    assert (row.trigger, row.new_leader, row.assignment) == ("reassign", 4, None)
    assert (row.expected_leader, row.agrees) == (None, None)
    assert [(a.kind, a.severity) for a in out.anomalies] == [("unknown_assignment", "warning")]


def test_reassignment_election():
    out = run(
        [
            *STABLE,
            ev(F.reassignment, 500, CTRL, replicas=(4, 5, 6), detail="started"),
            isr_change(600, [1, 2, 3], [1, 2, 3, 4, 5, 6]),
            ev(F.assignment, 700, replicas=(4, 5, 6), detail="topic_znode"),
            write(705, 4, 4, [1, 2, 3, 4, 5, 6], 12),
        ],
        [registered(-10, 1, 2, 3, 4, 5, 6)],
    )
    row = only(out.elections)
    assert (row.trigger, row.new_leader, row.expected_leader, row.agrees) == (
        "reassign",
        4,
        4,
        True,
    )
    assert row.assignment == (4, 5, 6)


def test_reassignment_in_flight_from_zookeeper_alone():
    # KIP-455 in ZooKeeper: the topic znode lists the union assignment with adding/removing
    # replicas until the move completes; the leader moves to the target when it caught up,
    # minutes after the request (no log line hints it).
    out = run(
        [
            *STABLE,
            ev(
                F.assignment,
                500,
                replicas=(4, 2, 3, 1),
                adding_replicas=(4,),
                removing_replicas=(1,),
            ),
            write(120_000, 1, 3, [1, 2, 3, 4], 11),
            write(120_010, 4, 4, [1, 2, 3, 4], 12),
        ],
        [registered(-10, 1, 2, 3, 4)],
    )
    row = only(out.elections)
    assert (row.trigger, row.prev_leader, row.new_leader) == ("reassign", 1, 4)
    assert (row.expected_leader, row.agrees) == (4, True)


def test_admin_unclean_election():
    out = run(
        [
            *STABLE,
            isr_change(100, [1, 2, 3], [1]),
            write(1012, -1, 4, [1], 12),
            ev(F.election_started, 9000, CTRL, trigger="admin_unclean", detail="AdminClient"),
            write(9005, 3, 5, [3], 13),
        ],
        [registered(-10, 1, 2, 3), fact(K.broker_down, 1000, broker=1)],
    )
    failed, admin = out.elections
    assert failed.new_leader == -1
    assert (admin.trigger, admin.new_leader, admin.unclean) == ("admin_unclean", 3, True)
    assert (admin.unclean_setting, admin.unclean_setting_source) == (True, "admin")
    assert (admin.expected_leader, admin.agrees) == (2, False)  # assignment order: 2 before 3


def _broker_3_fenced_at(t):
    """KRaft facts: brokers 2 and 3 registered, 3 fenced at ``t``, unclean elections enabled."""
    return [
        fact(K.broker_up, -10, broker=2),
        fact(K.broker_up, -10, broker=3),
        fact(K.broker_down, t, broker=3, detail="fenced"),
        unclean_enabled(-5),
    ]


def test_kraft_unclean_partition_change_with_fencing_context():
    kraft = Source.kraft_log
    out = run(
        [
            ev(
                F.leadership_written,
                0,
                kraft,
                leader=3,
                leader_epoch=100,
                isr=(3,),
                partition_epoch=200,
                replicas=(3, 2),
                trigger="new_partition",
            ),
            ev(
                F.election_started, 5000, kraft, trigger="offline", detail="kraft_unclean_triggered"
            ),
            ev(
                F.leadership_written,
                5001,
                kraft,
                leader=2,
                leader_epoch=101,
                isr=(2,),
                partition_epoch=201,
                previous_isr=(3,),
                previous_leader=-1,
                previous_leader_epoch=100,
                recovering=True,
            ),
            ev(F.unclean_warning, 5001, kraft, leader=2, trigger="kraft_unclean"),
        ],
        _broker_3_fenced_at(1000),
        version="3.9",
        mode="kraft",
    )
    first, row = out.elections
    assert first.trigger == "new_partition"
    assert (row.prev_leader, row.new_leader, row.isr_before, row.unclean) == (3, 2, (3,), True)
    assert (row.trigger, row.expected_leader, row.agrees) == ("offline", 2, True)
    assert row.source == "kraft_log"


def test_kraft_before_3_9_never_elects_uncleanly_on_its_own():
    kraft = Source.kraft_log
    out = run(
        [
            ev(F.assignment, 0, kraft, replicas=(3, 2)),
            ev(F.leadership_written, 1, kraft, leader=3, leader_epoch=7, isr=(3,)),
            ev(F.leadership_written, 5001, kraft, leader=2, leader_epoch=8, isr=(2,)),
        ],
        _broker_3_fenced_at(5000),
        version="3.6",
        mode="kraft",
    )
    row = only(out.elections)
    assert row.unclean is True and (row.expected_leader, row.agrees) == (-1, False)


# ---------------------------------------------------------------------------------- failures


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
        isr_change(t, [1, 2, 3], [1]),
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
        (r.elected_at_ms - T0, r.new_leader, r.trigger, *before_and_after(r)) for r in failed
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
    unknown = dict.fromkeys(
        (
            "controller_id",
            "controller_epoch",
            "leader_epoch",
            "isr_before",
            "isr_after",
            "assignment",
            "live_brokers",
            "unclean",
            "expected_leader",
            "agrees",
        )
    )
    row = ElectionRow(
        cluster="c",
        topic="t",
        partition=0,
        scenario="actual",
        elected_at_ms=T0,
        trigger="offline",
        prev_leader=1,
        new_leader=-1,
        evidence=(),
        source="zk_txn",
        **unknown,
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
