"""The fold fed in chunks gives the rows of one call; rows are emitted once settled, evidence
of other partitions is ignored, rows convert to plain values; what-if replays of the same
evidence."""

from __future__ import annotations

import pytest

from kafkactl_core.replay import (
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
    T0,
    F,
    K,
    ev,
    fact,
    only,
    registered,
    run,
    unclean_stream,
    write,
)

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
