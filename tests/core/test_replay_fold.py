"""The per-partition fold on hand-built evidence: every trigger, clean, unclean and failed
elections across releases, merging of one election seen in several sources, timelines,
anomalies, chunked feeding and what-if.

Evidence is built directly (``PartitionEvidence``) the way the normalizers produce it; times are
milliseconds after ``T0``. Liveness and configs come from cluster facts (``ClusterTimelines``).
"""

from __future__ import annotations

import itertools

import pytest

from kafkactl_core.replay import (
    ClusterFact,
    ClusterFactKind,
    ElectionRow,
    Fact,
    PartitionEvidence,
    PartitionReplay,
    ReplayOutput,
    ReplaySettings,
    Source,
    build_timelines,
    evaluate_what_if,
    replay,
    with_what_if,
)

T0 = 1_700_000_000_000
K = ClusterFactKind
F = Fact
ZK = Source.zk_txn
SC = Source.state_change_log
CTRL = Source.controller_log
SRV = Source.server_log


def ev(fact, t, source=ZK, *, topic="t", partition=0, ref=None, **values):
    return PartitionEvidence(
        "c", topic, partition, T0 + t, source, fact, ref or f"{source.name}:{t}", t, **values
    )


def write(t, leader, epoch, isr, version, source=ZK, **values):
    return ev(
        F.leadership_written,
        t,
        source,
        leader=leader,
        leader_epoch=epoch,
        isr=tuple(isr),
        partition_epoch=version,
        **values,
    )


def fact(kind, t, **values):
    return ClusterFact("c", T0 + t, CTRL, kind, f"controller.log:{t}", t, **values)


def registered(t, *brokers):
    return fact(K.registered_set, t, brokers=brokers)


def run(evidence, facts=(), version="2.8", **settings) -> ReplayOutput:
    return replay(evidence, build_timelines(facts), ReplaySettings.of(version, **settings))


def only(rows):
    assert len(rows) == 1, rows
    return rows[0]


def kinds(out):
    return sorted(a.kind for a in out.anomalies)


ASSIGN = ev(F.assignment, 0, replicas=(1, 2, 3), detail="topic_znode")
STABLE = [ASSIGN, write(1, 1, 3, [1, 2, 3], 10)]
"""Leader 1 at epoch 3 (znode version 10) with the full ISR."""


# ---------------------------------------------------------------------------------- triggers


def test_new_partition():
    out = run(
        [
            ev(
                F.partition_transition,
                0,
                SC,
                from_state="NonExistentPartition",
                to_state="NewPartition",
                replicas=(1, 2, 3),
            ),
            write(5, 1, 0, [1, 2, 3], 0),
            ev(
                F.partition_transition,
                6,
                SC,
                from_state="NewPartition",
                to_state="OnlinePartition",
                leader=1,
                leader_epoch=0,
                isr=(1, 2, 3),
                partition_epoch=0,
            ),
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


def unclean_stream(topic_unclean: bool):
    """2.8: broker 2 falls out of the ISR, leader 1 dies (election fails, leader -1 with ISR
    [1] kept), broker 2 comes back and is elected although it is not in the ISR."""
    evidence = [
        *STABLE,
        ev(
            F.isr_changed,
            100,
            SRV,
            leader=1,
            previous_isr=(1, 2, 3),
            isr=(1, 3),
            high_watermark=120,
            end_offset=125,
            broker=1,
            detail="(brokerId: 2, endOffset: 90)",
        ),
        write(101, 1, 3, [1, 3], 11),
        ev(F.isr_changed, 200, SRV, leader=1, previous_isr=(1, 3), isr=(1,), broker=1),
        write(201, 1, 3, [1], 12),
        ev(F.election_failed, 1010, SC, from_state="OfflinePartition", to_state="OnlinePartition"),
        write(1012, -1, 4, [1], 13),
        write(60_000, 2, 5, [2], 14),
    ]
    facts = [
        registered(-10, 1, 2, 3),
        fact(K.broker_down, 150, broker=2),
        fact(K.broker_down, 180, broker=3),
        fact(K.broker_down, 1000, broker=1),
        fact(K.broker_up, 59_990, broker=2),
    ]
    if topic_unclean:
        facts.append(
            fact(
                K.config,
                50,
                scope="topic",
                name="t",
                key="unclean.leader.election.enable",
                value="true",
            )
        )
    return evidence, facts


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
            ev(
                F.partition_transition,
                1008,
                SC,
                from_state="OfflinePartition",
                to_state="OnlinePartition",
                leader=2,
            ),
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


def test_reassignment_election():
    out = run(
        [
            *STABLE,
            ev(F.reassignment, 500, CTRL, replicas=(4, 5, 6), detail="started"),
            ev(
                F.isr_changed,
                600,
                SRV,
                leader=1,
                previous_isr=(1, 2, 3),
                isr=(1, 2, 3, 4, 5, 6),
                broker=1,
            ),
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
            ev(F.isr_changed, 100, SRV, leader=1, previous_isr=(1, 2, 3), isr=(1,), broker=1),
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
        [
            fact(K.broker_up, -10, broker=2),
            fact(K.broker_up, -10, broker=3),
            fact(K.broker_down, 1000, broker=3, detail="fenced"),
            fact(
                K.config,
                -5,
                scope="topic",
                name="t",
                key="unclean.leader.election.enable",
                value="true",
            ),
        ],
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
        [
            fact(K.broker_up, -10, broker=2),
            fact(K.broker_up, -10, broker=3),
            fact(K.broker_down, 5000, broker=3, detail="fenced"),
            fact(
                K.config,
                -5,
                scope="topic",
                name="t",
                key="unclean.leader.election.enable",
                value="true",
            ),
        ],
        version="3.6",
        mode="kraft",
    )
    row = only(out.elections)
    assert row.unclean is True and (row.expected_leader, row.agrees) == (-1, False)


# ---------------------------------------------------------------------------------- merging


def test_same_election_in_several_sources_is_one_row_despite_clock_skew():
    out = run(
        [
            *STABLE,
            # The new leader's own line is stamped 300 ms *before* the controller's.
            ev(
                F.leader_started,
                1700,
                SRV,
                leader=2,
                leader_epoch=4,
                previous_leader_epoch=3,
                start_offset=77,
                broker=2,
            ),
            ev(
                F.partition_transition,
                2000,
                SC,
                from_state="OnlinePartition",
                to_state="OnlinePartition",
                leader=2,
                leader_epoch=4,
                isr=(2, 3),
                partition_epoch=11,
                controller_id=5,
                controller_epoch=9,
            ),
            write(2001, 2, 4, [2, 3], 11),
            ev(
                F.leadership_observed,
                2002,
                SC,
                leader=2,
                leader_epoch=4,
                isr=(2, 3),
                partition_epoch=11,
                replicas=(1, 2, 3),
            ),
        ],
        [registered(-10, 1, 2, 3), fact(K.shutting_down_add, 1500, broker=1)],
    )
    row = only(out.elections)
    assert row.elected_at_ms == T0 + 1700 and row.new_leader_start_offset == 77
    assert row.source == "zk_txn+state_change_log+server_log"
    assert len(row.evidence) == 4
    assert (row.controller_id, row.controller_epoch) == (5, 9)
    assert (row.trigger, row.agrees) == ("controlled_shutdown", True)
    assert out.anomalies == []


def test_zookeeper_and_logs_give_the_same_election():
    base_facts = [registered(-10, 1, 2, 3), fact(K.broker_down, 1000, broker=1)]
    zk_only = run([*STABLE, write(1010, 2, 4, [2, 3], 11)], base_facts)
    logs_only = run(
        [
            ev(
                F.leadership_observed,
                1,
                SC,
                leader=1,
                leader_epoch=3,
                isr=(1, 2, 3),
                replicas=(1, 2, 3),
            ),
            ev(
                F.partition_transition,
                1005,
                SC,
                from_state="OnlinePartition",
                to_state="OfflinePartition",
            ),
            ev(
                F.partition_transition,
                1010,
                SC,
                from_state="OfflinePartition",
                to_state="OnlinePartition",
                leader=2,
                leader_epoch=4,
                isr=(2, 3),
                partition_epoch=11,
            ),
        ],
        base_facts,
    )
    fields = (
        "trigger",
        "prev_leader",
        "new_leader",
        "leader_epoch",
        "isr_before",
        "isr_after",
        "unclean",
        "expected_leader",
        "agrees",
    )
    assert [getattr(only(zk_only.elections), f) for f in fields] == [
        getattr(only(logs_only.elections), f) for f in fields
    ]


# ---------------------------------------------------------------------------------- timeline


def test_timeline_intervals_are_contiguous_and_the_last_is_open():
    evidence, facts = unclean_stream(topic_unclean=True)
    out = run(evidence, facts)
    rows = out.timeline
    assert rows[-1].valid_to_ms is None
    for before, after in itertools.pairwise(rows):
        assert before.valid_to_ms == after.valid_from_ms
    epochs = [r.leader_epoch for r in rows if r.leader_epoch is not None]
    assert epochs == sorted(epochs) and epochs[-1] == 5
    assert (rows[-1].leader, rows[-1].isr, rows[-1].partition_epoch) == (2, (2,), 14)
    assert rows[-1].state == "OnlinePartition"
    offline = [r for r in rows if r.leader == -1]
    assert offline and offline[0].state == "OfflinePartition"


def test_deletion_ends_the_partition_and_a_recreation_starts_over():
    out = run(
        [*STABLE, ev(F.deletion, 500, detail="state_znode_deleted"), write(900, 2, 0, [2], 0)],
        [registered(-10, 1, 2, 3), fact(K.topic_created, 850, topic="t")],
    )
    states = [r.state for r in out.timeline]
    assert "NonExistentPartition" in states
    assert [a.kind for a in out.anomalies if a.kind == "epoch_regression"] == []


@pytest.mark.parametrize("size", [1, 2, 1000])
def test_the_topics_completed_deletion_alone_ends_the_partition(size):
    # TopicDeletionManager.completeDeleteTopic moves the partitions to Offline, then
    # NonExistent: TRACE lines, absent at the default level; "Deletion of topic t successfully
    # completed" (a cluster fact) is all the logs say.
    evidence = [*STABLE, write(450, -1, 4, [1], 11, SC, detail="isr_removal")]
    facts = [
        registered(-10, 1, 2, 3),
        fact(K.topic_deleted, -5, topic="t"),  # an earlier incarnation's: nothing to end
        fact(K.topic_deletion_started, 400, topic="t"),
        fact(K.topic_deleted, 900, topic="t"),
        fact(K.topic_deleted, 950, topic="t"),  # the znode's removal, seen after: already gone
    ]
    fold = PartitionReplay("c", "t", 0, build_timelines(facts)["c"], ReplaySettings.of("2.8"))
    out = ReplayOutput()
    for start in range(0, len(evidence), size):
        out.extend(fold.feed(evidence[start : start + size]))
    out.extend(fold.finish())
    assert [(r.valid_from_ms - T0, r.state) for r in out.timeline] == [
        (0, "OnlinePartition"),
        (450, "OfflinePartition"),
        (900, "NonExistentPartition"),
    ]
    last = out.timeline[-1]
    assert (last.valid_to_ms, last.leader, last.evidence) == (None, None, "controller.log:900")


# ---------------------------------------------------------------------------------- anomalies


def test_log_gap_from_a_znode_version_jump():
    out = run([*STABLE, write(50, 1, 3, [1, 2], 13)], [registered(-10, 1, 2, 3)])
    assert kinds(out) == ["log_gap"]
    assert "2 write(s)" in out.anomalies[0].detail


def test_log_gap_from_a_leader_epoch_jump_in_the_state_change_log():
    out = run(
        [
            ASSIGN,
            write(1, 1, 3, [1, 2, 3], 10, SC),
            write(50, 1, 6, [1, 2, 3], 11, SC),
        ],
        [registered(-10, 1, 2, 3)],
    )
    assert kinds(out) == ["log_gap"]


def test_controller_log_epochs_skip_the_controllers_own_isr_removals():
    # Real 3.9.1 rolling restart: "ISR for partition payments-2 updated to LeaderAndIsr(leader=1,
    # leaderEpoch=1 ...)", then leaderEpoch=3: epoch 2 was the controlled shutdown's
    # removeReplicasFromIsr, which controller.log does not log.
    stream = [
        ASSIGN,
        write(1, 1, 1, [1, 2, 3], 1, CTRL),
        write(2, 1, 2, [1, 3], 2, SC, detail="isr_removal"),
        write(50, 3, 3, [1, 3, 2], 4, CTRL),
    ]
    assert "log_gap" not in kinds(run(stream, [registered(-10, 1, 2, 3)]))


def _election_line(t, from_state, leader, epoch, isr, version):
    return ev(
        F.partition_transition,
        t,
        SC,
        from_state=from_state,
        to_state="OnlinePartition",
        leader=leader,
        leader_epoch=epoch,
        isr=tuple(isr),
        partition_epoch=version,
    )


def test_elections_logged_as_transitions_are_epochs_of_the_state_change_log():
    """2.8: elections are logged only as transitions; an ISR removal after them is no gap."""
    stream = [
        ASSIGN,
        _election_line(1, "NewPartition", 1, 0, [1, 2, 3], 0),
        _election_line(1000, "OfflinePartition", 2, 1, [2, 3], 1),
        _election_line(2000, "OnlinePartition", 1, 2, [2, 3, 1], 3),
        ev(
            F.reassignment,
            3000,
            SC,
            leader=1,
            leader_epoch=3,
            isr=(2, 3, 1),
            partition_epoch=4,
            replicas=(1, 2, 3),
            detail="leader_and_isr_sent",
        ),
        write(4000, 1, 4, [1, 2], 5, SC, detail="isr_removal"),
    ]
    facts = [registered(-10, 1, 2, 3), fact(K.broker_down, 999, broker=1)]
    assert "log_gap" not in kinds(run(stream, facts))
    # Without the preferred election's line (epoch 2), the jump from 1 to 3 is a gap.
    out = run([e for e in stream if e.time_ms != T0 + 2000], facts)
    gaps = [a for a in out.anomalies if a.kind == "log_gap"]
    assert [(a.expected, a.observed) for a in gaps] == [("leader epoch 2", "leader epoch 3")]


def test_epoch_regression_of_an_authoritative_source():
    out = run(
        [*STABLE, write(50, 1, 4, [1, 2, 3], 11), write(60, 1, 2, [1, 2, 3], 12)],
        [registered(-10, 1, 2, 3)],
    )
    assert "epoch_regression" in kinds(out)


def test_stale_copies_of_an_older_epoch_are_not_anomalies():
    out = run(
        [
            *STABLE,
            write(1010, 2, 4, [2, 3], 11),
            ev(F.leadership_observed, 1500, SRV, leader=1, leader_epoch=3, isr=(1, 2, 3)),
        ],
        [registered(-10, 1, 2, 3), fact(K.broker_down, 1000, broker=1)],
    )
    assert out.anomalies == [] and len(out.elections) == 1


def test_evidence_conflict_on_the_leader_of_one_epoch():
    out = run(
        [
            *STABLE,
            write(1010, 2, 4, [2, 3], 11),
            ev(F.leader_started, 1020, SRV, leader=3, leader_epoch=4, broker=3),
        ],
        [registered(-10, 1, 2, 3), fact(K.broker_down, 1000, broker=1)],
    )
    assert "evidence_conflict" in kinds(out)


def test_invalid_and_mismatched_transitions():
    out = run(
        [
            ASSIGN,
            ev(
                F.partition_transition,
                1,
                SC,
                from_state="OfflinePartition",
                to_state="NewPartition",
            ),
            ev(
                F.partition_transition,
                2,
                SC,
                from_state="NewPartition",
                to_state="OnlinePartition",
                leader=1,
                leader_epoch=0,
                isr=(1,),
            ),
            ev(
                F.partition_transition,
                3,
                SC,
                from_state="OfflinePartition",
                to_state="OnlinePartition",
                leader=1,
                leader_epoch=0,
                isr=(1,),
            ),
            ev(
                F.replica_transition,
                4,
                SC,
                replica=2,
                from_state="OnlineReplica",
                to_state="ReplicaDeletionSuccessful",
            ),
        ],
        [registered(-10, 1, 2, 3)],
        # Up to 2.5 state.change.logger is at TRACE by default: Online -> Offline would be logged.
        version="2.5",
    )
    assert kinds(out) == ["invalid_transition", "invalid_transition", "transition_mismatch"]


def _fail_over(*extra: PartitionEvidence) -> list[PartitionEvidence]:
    """Created with leader 1, then 1 fails and 2 is elected: the INFO lines a 2.6+ log has."""
    return [
        ASSIGN,
        ev(
            F.partition_transition,
            1,
            SC,
            from_state="NonExistentPartition",
            to_state="NewPartition",
        ),
        *extra,
        ev(
            F.partition_transition,
            2,
            SC,
            from_state="NewPartition",
            to_state="OnlinePartition",
            leader=1,
            leader_epoch=0,
            isr=(1, 2, 3),
        ),
        ev(
            F.partition_transition,
            1000,
            SC,
            from_state="OfflinePartition",
            to_state="OnlinePartition",
            leader=2,
            leader_epoch=1,
            isr=(2, 3),
        ),
    ]


def test_online_to_offline_unlogged_at_the_default_level_since_2_6():
    facts = [registered(-10, 1, 2, 3), fact(K.broker_down, 999, broker=1)]
    out = run(_fail_over(), facts)
    assert out.anomalies == []
    assert [(r.trigger, r.new_leader, r.agrees) for r in out.elections] == [
        ("new_partition", 1, True),
        ("offline", 2, True),
    ]
    # Up to 2.5 the default level is TRACE: the missing Online -> Offline line is a mismatch.
    assert kinds(run(_fail_over(), facts, version="2.5")) == ["transition_mismatch"]
    # A TRACE line of the partition shows the log was at TRACE: the omission counts again.
    replica = ev(
        F.replica_transition,
        1,
        SC,
        replica=1,
        from_state="NonExistentReplica",
        to_state="NewReplica",
    )
    assert kinds(run(_fail_over(replica), facts)) == ["transition_mismatch"]


def test_an_unexplained_transition_origin_is_still_a_mismatch_since_2_6():
    out = run(
        [
            *_fail_over(),
            ev(
                F.partition_transition,
                2000,
                SC,
                from_state="NewPartition",
                to_state="OnlinePartition",
                leader=3,
                leader_epoch=2,
                isr=(3,),
            ),
        ],
        [registered(-10, 1, 2, 3), fact(K.broker_down, 999, broker=1)],
    )
    assert "transition_mismatch" in kinds(out)


def test_replica_deletion_ineligible_from_offline_by_release():
    stream = [
        ASSIGN,
        ev(
            F.replica_transition,
            1,
            SC,
            replica=2,
            from_state="OfflineReplica",
            to_state="ReplicaDeletionIneligible",
        ),
    ]
    assert kinds(run(stream, version="2.2")) == ["invalid_transition"]
    assert kinds(run(stream, version="2.3")) == []


def test_unknown_assignment_is_reported_and_not_judged():
    out = run(
        [write(1, 1, 3, [1, 2], 10), write(1010, 2, 4, [2], 11)],
        [registered(-10, 1, 2), fact(K.broker_down, 1000, broker=1)],
    )
    row = only(out.elections)
    assert (row.assignment, row.expected_leader, row.agrees) == (None, None, None)
    assert kinds(out) == ["unknown_assignment"]


def test_bad_evidence_never_raises():
    odd = [
        ev(F.leadership_written, 1, leader=None, leader_epoch=None),
        ev(F.isr_changed, 2, SRV),
        ev(F.partition_transition, 3, SC, from_state="Bogus", to_state="AlsoBogus"),
        ev(F.replica_transition, 4, SC, replica=None, to_state=None),
        ev(F.election_failed, 5, SC),
        ev(F.reassignment, 6, CTRL),
        ev(F.leader_claimed, 7, CTRL, leader=-5),
        PartitionEvidence(
            "c", "t", 0, None, ZK, F.leadership_written, "x:1", leader=1, leader_epoch=1
        ),
        ev(F.unclean_warning, 8, CTRL),
    ]
    out = run(odd)
    assert isinstance(out, ReplayOutput)


# ---------------------------------------------------------------------------------- chunking


def _everything():
    evidence, facts = unclean_stream(topic_unclean=True)
    evidence = [
        *evidence,
        ev(F.election_started, 70_000, CTRL, trigger="preferred"),
        write(70_005, 1, 6, [2, 1], 15),
        ev(F.leader_started, 70_010, SRV, leader=1, leader_epoch=6, start_offset=5, broker=1),
        ev(
            F.replica_transition,
            70_020,
            SC,
            replica=3,
            from_state="OfflineReplica",
            to_state="OnlineReplica",
        ),
        write(200_000, 1, 6, [1, 2, 3], 16),
    ]
    facts = [*facts, fact(K.broker_up, 65_000, broker=1), fact(K.broker_up, 66_000, broker=3)]
    evidence.sort(key=PartitionEvidence.order_key)
    return evidence, build_timelines(facts)["c"]


def _rows(out):
    return (
        [r.to_row() for r in out.elections],
        [r.to_row() for r in out.timeline],
        [r.to_row() for r in out.anomalies],
    )


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_chunked_feeding_gives_the_rows_of_one_call(size):
    evidence, timelines = _everything()
    settings = ReplaySettings.of("2.8")
    whole = PartitionReplay("c", "t", 0, timelines, settings)
    expected = whole.feed(evidence)
    expected.extend(whole.finish())
    chunked = PartitionReplay("c", "t", 0, timelines, settings)
    got = ReplayOutput()
    for start in range(0, len(evidence), size):
        got.extend(chunked.feed(evidence[start : start + size]))
    got.extend(chunked.finish())
    assert _rows(got) == _rows(expected)
    assert len(expected.elections) == 3


def test_rows_are_emitted_incrementally_once_settled():
    evidence, timelines = _everything()
    fold = PartitionReplay("c", "t", 0, timelines, ReplaySettings.of("2.8", settle_ms=10_000))
    early = fold.feed([e for e in evidence if e.time_ms < T0 + 100_000])
    assert [r.new_leader for r in early.elections] == [-1, 2]  # settled; +70 s not yet
    rest = fold.feed([e for e in evidence if e.time_ms >= T0 + 100_000])
    rest.extend(fold.finish())
    assert [r.new_leader for r in rest.elections] == [1]
    assert fold.finish() == ReplayOutput() and fold.feed(evidence) == ReplayOutput()


def test_evidence_of_other_partitions_is_ignored():
    fold = PartitionReplay("c", "t", 0, None, ReplaySettings.of("2.8"))
    out = fold.feed(
        [write(1, 1, 0, [1], 0), ev(F.leadership_written, 2, partition=1, leader=2, leader_epoch=9)]
    )
    out.extend(fold.finish())
    assert only(out.timeline).leader == 1


def test_rows_to_plain_python_values():
    evidence, facts = unclean_stream(topic_unclean=True)
    out = run(evidence, facts)
    row = out.elections[-1].to_row()
    assert isinstance(row["isr_before"], list) and isinstance(row["evidence"], list)
    assert row["elected_at"].tzinfo is not None and row["elected_at"].year == 2023
    timeline = out.timeline[0].to_row()
    assert timeline["valid_from"].tzinfo is not None
    assert all(not isinstance(v, tuple) for v in row.values())


# ---------------------------------------------------------------------------------- what-if


def test_what_if_unclean_disabled_keeps_the_partition_offline_until_an_isr_member_returns():
    evidence, facts = unclean_stream(topic_unclean=True)
    facts = [*facts, fact(K.broker_up, 300_000, broker=1)]
    timelines = build_timelines(facts)
    actual = ReplaySettings.of("2.8")
    out = replay(evidence, timelines, actual)
    scenario, problems = with_what_if(actual, ["unclean.leader.election.enable=false"])
    assert problems == [] and scenario.scenario == "what-if:unclean.leader.election.enable=false"
    rows = evaluate_what_if(out.elections, timelines, scenario)
    row = only(rows)
    assert (row.actual_new_leader, row.actual_unclean) == (2, True)
    assert (row.scenario_new_leader, row.would_happen) == (-1, False)
    assert row.offline_from_ms == T0 + 60_000 and row.offline_until_ms == T0 + 300_000
    assert row.offline_seconds == pytest.approx(240.0) and row.scenario_leader_then == 1
    # The same evidence replayed under the scenario: the election now disagrees.
    rerun = replay(evidence, timelines, scenario)
    last = rerun.elections[-1]
    assert last.scenario == scenario.scenario
    assert (last.unclean_setting_source, last.expected_leader, last.agrees) == (
        "what_if",
        -1,
        False,
    )


def test_what_if_unclean_enabled_rescues_a_failed_election():
    evidence, facts = unclean_stream(topic_unclean=False)
    facts = [*facts, fact(K.broker_up, 1005, broker=3)]
    timelines = build_timelines(facts)
    actual = ReplaySettings.of("2.8")
    out = replay(evidence, timelines, actual)
    scenario, _ = with_what_if(actual, ["unclean.leader.election.enable=true"])
    rows = evaluate_what_if(out.elections, timelines, scenario)
    rescued = [r for r in rows if r.actual_new_leader == -1]
    assert rescued and rescued[0].scenario_new_leader == 3 and rescued[0].would_happen


def test_what_if_problems_are_reported_not_raised():
    settings, problems = with_what_if(
        ReplaySettings.of("2.8"), ["no.such.key=1", "unclean.leader.election.enable=maybe", "x"]
    )
    assert len(problems) == 3 and settings.forced_unclean is None
    settings, problems = with_what_if(
        ReplaySettings.of("2.8"), ["kafka.version=0.10.2", "auto.leader.rebalance.enable=false"]
    )
    assert problems == [] and str(settings.release) == "0.10.2"
    assert settings.auto_rebalance_enable is False


def test_what_if_without_auto_rebalance_drops_preferred_elections():
    out = run(
        [ASSIGN, write(1, 2, 5, [2, 3, 1], 20), write(4000, 1, 6, [2, 3, 1], 21)],
        [registered(-10, 1, 2, 3)],
    )
    scenario, _ = with_what_if(ReplaySettings.of("2.8"), ["auto.leader.rebalance.enable=false"])
    row = only(
        evaluate_what_if(out.elections, build_timelines([registered(-10, 1, 2, 3)]), scenario)
    )
    assert (row.trigger, row.would_happen) == ("preferred", False)


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


def test_0_8_1_logs_the_state_after_the_update_as_the_from_state():
    creation = [
        ev(
            F.partition_transition,
            0,
            SC,
            from_state="NonExistentPartition",
            to_state="NewPartition",
            replicas=(0,),
        ),
        # 0.8.0/0.8.1 wrote "from OnlinePartition to OnlinePartition" for New -> Online.
        ev(
            F.partition_transition,
            100,
            SC,
            from_state="OnlinePartition",
            to_state="OnlinePartition",
            leader=0,
        ),
        ev(F.leadership_observed, 110, SC, leader=0, leader_epoch=0, isr=(0,)),
    ]
    facts = [registered(-10, 0)]
    quirky = run(creation, facts, version="0.8.1")
    assert quirky.anomalies == []
    assert only(quirky.elections).trigger == "new_partition"
    assert kinds(run(creation, facts, version="0.10.2")) == ["transition_mismatch"]


def test_topic_deleted_and_created_again():
    stream = [
        ASSIGN,
        ev(
            F.partition_transition,
            1,
            SC,
            from_state="NewPartition",
            to_state="OnlinePartition",
            leader=1,
            leader_epoch=0,
            isr=(1, 2, 3),
            partition_epoch=0,
        ),
        # Deletion: the replicas go offline (leader -1), which is no failed election.
        write(500, -1, 1, [1], 1, SC, detail="isr_removal"),
        ev(
            F.partition_transition,
            20_000,
            SC,
            from_state="NonExistentPartition",
            to_state="NewPartition",
            replicas=(2,),
        ),
        ev(
            F.partition_transition,
            20_050,
            SC,
            from_state="NewPartition",
            to_state="OnlinePartition",
            leader=2,
            leader_epoch=0,
            isr=(2,),
            partition_epoch=0,
        ),
    ]
    facts = [
        registered(-10, 1, 2, 3),
        fact(K.topic_deletion_started, 400, topic="t"),
        fact(K.topic_deleted, 900, topic="t"),
    ]
    out = run(stream, facts)
    assert [(r.trigger, r.new_leader) for r in out.elections] == [
        ("new_partition", 1),
        ("new_partition", 2),
    ]
    assert out.anomalies == []
    # Without the deletion facts the same lines are suspicious.
    out = run(stream, [registered(-10, 1, 2, 3)])
    assert [r.new_leader for r in out.elections] == [1, -1, 2]
    assert "transition_mismatch" in kinds(out)


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
