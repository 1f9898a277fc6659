"""Anomalies the fold finds in hand-built evidence: log gaps, epoch regressions, conflicting
copies, invalid and mismatched transitions by release, unknown assignments, bad evidence."""

from __future__ import annotations

from kafkactl_core.replay import (
    PartitionEvidence,
    ReplayOutput,
)
from tests.core.replay_evidence import (
    ASSIGN,
    CTRL,
    SC,
    SRV,
    STABLE,
    T0,
    ZK,
    F,
    K,
    election_line,
    ev,
    fact,
    kinds,
    only,
    registered,
    run,
    transition,
    write,
)

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


def test_elections_logged_as_transitions_are_epochs_of_the_state_change_log():
    """2.8: elections are logged only as transitions; an ISR removal after them is no gap."""
    stream = [
        ASSIGN,
        election_line(1, "NewPartition", 1, 0, [1, 2, 3], 0),
        election_line(1000, "OfflinePartition", 2, 1, [2, 3], 1),
        election_line(2000, "OnlinePartition", 1, 2, [2, 3, 1], 3),
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
            transition(1, "OfflinePartition", "NewPartition"),
            transition(2, "NewPartition", "OnlinePartition", leader=1, leader_epoch=0, isr=(1,)),
            transition(
                3, "OfflinePartition", "OnlinePartition", leader=1, leader_epoch=0, isr=(1,)
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
        transition(1, "NonExistentPartition", "NewPartition"),
        *extra,
        transition(2, "NewPartition", "OnlinePartition", leader=1, leader_epoch=0, isr=(1, 2, 3)),
        transition(
            1000, "OfflinePartition", "OnlinePartition", leader=2, leader_epoch=1, isr=(2, 3)
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
            transition(2000, "NewPartition", "OnlinePartition", leader=3, leader_epoch=2, isr=(3,)),
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
        transition(3, "Bogus", "AlsoBogus"),
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


def test_0_8_1_logs_the_state_after_the_update_as_the_from_state():
    creation = [
        transition(0, "NonExistentPartition", "NewPartition", replicas=(0,)),
        # 0.8.0/0.8.1 wrote "from OnlinePartition to OnlinePartition" for New -> Online.
        transition(100, "OnlinePartition", "OnlinePartition", leader=0),
        ev(F.leadership_observed, 110, SC, leader=0, leader_epoch=0, isr=(0,)),
    ]
    facts = [registered(-10, 0)]
    quirky = run(creation, facts, version="0.8.1")
    assert quirky.anomalies == []
    assert only(quirky.elections).trigger == "new_partition"
    assert kinds(run(creation, facts, version="0.10.2")) == ["transition_mismatch"]
