"""How the fold's evidence becomes rows: one election seen in several sources is one row, the
partition timeline's intervals (deletion and recreation), chunked feeding gives the rows of one
call, rows settle and convert to plain values, and what-if replays of the same evidence."""

from __future__ import annotations

import itertools

import pytest

from kafkactl_core.replay import (
    ClusterFact,
    PartitionEvidence,
    PartitionReplay,
    ReplayOutput,
    ReplaySettings,
    build_timelines,
    evaluate_what_if,
    replay,
    with_what_if,
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
    election_line,
    ev,
    fact,
    kinds,
    only,
    registered,
    run,
    transition,
    unclean_stream,
    write,
)

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
            election_line(
                2000, "OnlinePartition", 2, 4, [2, 3], 11, controller_id=5, controller_epoch=9
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
            transition(1005, "OnlinePartition", "OfflinePartition"),
            election_line(1010, "OfflinePartition", 2, 4, [2, 3], 11),
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


def test_topic_deleted_and_created_again():
    stream = [
        ASSIGN,
        election_line(1, "NewPartition", 1, 0, [1, 2, 3], 0),
        # Deletion: the replicas go offline (leader -1), which is no failed election.
        write(500, -1, 1, [1], 1, SC, detail="isr_removal"),
        transition(20_000, "NonExistentPartition", "NewPartition", replicas=(2,)),
        election_line(20_050, "NewPartition", 2, 0, [2], 0),
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


def _unclean_stream_what_if(topic_unclean: bool, returning: ClusterFact, setting: str):
    """``unclean_stream`` with one more broker coming back, replayed under 2.8: the what-if
    scenario of ``setting``, its problems, its rows, and the evidence replayed under it."""
    evidence, facts = unclean_stream(topic_unclean=topic_unclean)
    timelines = build_timelines([*facts, returning])
    actual = ReplaySettings.of("2.8")
    out = replay(evidence, timelines, actual)
    scenario, problems = with_what_if(actual, [setting])
    rows = evaluate_what_if(out.elections, timelines, scenario)
    return scenario, problems, rows, replay(evidence, timelines, scenario)


def test_what_if_unclean_disabled_keeps_the_partition_offline_until_an_isr_member_returns():
    scenario, problems, rows, rerun = _unclean_stream_what_if(
        True, fact(K.broker_up, 300_000, broker=1), "unclean.leader.election.enable=false"
    )
    assert problems == [] and scenario.scenario == "what-if:unclean.leader.election.enable=false"
    row = only(rows)
    assert (row.actual_new_leader, row.actual_unclean) == (2, True)
    assert (row.scenario_new_leader, row.would_happen) == (-1, False)
    assert row.offline_from_ms == T0 + 60_000 and row.offline_until_ms == T0 + 300_000
    assert row.offline_seconds == pytest.approx(240.0) and row.scenario_leader_then == 1
    # The same evidence replayed under the scenario: the election now disagrees.
    last = rerun.elections[-1]
    assert last.scenario == scenario.scenario
    assert (last.unclean_setting_source, last.expected_leader, last.agrees) == (
        "what_if",
        -1,
        False,
    )


def test_what_if_unclean_enabled_rescues_a_failed_election():
    _, _, rows, _ = _unclean_stream_what_if(
        False, fact(K.broker_up, 1005, broker=3), "unclean.leader.election.enable=true"
    )
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
