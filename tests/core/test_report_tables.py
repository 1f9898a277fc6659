"""The report's other tables on hand-built gold rows: unclean elections and their exposure,
offline intervals and their causes, controller history, the daily rollups, and the gold-row
adapters (a row written by Spark reads back as the replay's own record).
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from kafkactl_core.replay.evidence import Source
from kafkactl_core.replay.facts import ClusterFact, ClusterFactKind
from kafkactl_core.replay.rows import AnomalyRow, ElectionRow, TimelineRow
from kafkactl_core.report.controllers import controller_history
from kafkactl_core.report.daily import imbalance_daily
from kafkactl_core.report.offline import broker_events, offline_intervals, offline_steps
from kafkactl_core.report.rows import (
    ImbalanceRow,
    anomaly_from_row,
    election_from_row,
    timeline_from_row,
)
from kafkactl_core.report.unclean import left_isr_at, offline_before, unclean_daily, unclean_rows

K = ClusterFactKind
DAY = 86_400_000
T0 = 1_709_596_800_000  # 2024-03-05 00:00:00 UTC


def iv(start, end, leader, isr, state="OnlinePartition", partition=0, assignment=(1, 2, 3)):
    return TimelineRow(
        "c", "t", partition, start, end, state, leader, isr, None, None, assignment, 1, f"f:{start}"
    )


def election(at, new, prev, isr_before, *, unclean=False, trigger="offline", **extra):
    return ElectionRow(
        "c", "t", 0, "actual", at, 1, 1, trigger, prev, new, 3, isr_before, (new,) if new >= 0
        else isr_before, (1, 2, 3), (2, 3), unclean, new, True, (f"e:{at}",), "state_change_log",
        **extra,
    )  # fmt: skip


def fact(time, kind, **fields):
    return ClusterFact("c", time, Source.controller_log, kind, f"controller.log:{time}", **fields)


# ------------------------------------------------------------------ unclean elections


def test_exposure_is_recomputed_from_the_isr_history_when_the_replay_has_none():
    timeline = [
        iv(0, 1_000, 1, (1, 2, 3)),
        iv(1_000, 5_000, 1, (1, 3)),  # 2 leaves the ISR at 1 s
        iv(5_000, 9_000, -1, (1,)),  # 1 dies, nobody electable
        iv(9_000, None, 2, (2,)),  # 2 elected uncleanly at 9 s
    ]
    assert left_isr_at(timeline, 2, 9_000) == 1_000
    assert left_isr_at(timeline, 3, 9_000) == 5_000
    assert left_isr_at(timeline, 1, 9_000) is None  # still in the ISR
    assert left_isr_at(timeline, 4, 9_000) is None  # never seen in it
    assert offline_before(timeline, 9_000) == 4.0
    assert offline_before(timeline, 5_000) == 0.0
    rows = unclean_rows([election(9_000, 2, -1, (1,), unclean=True)], timeline)
    (row,) = rows
    assert (row.new_leader_left_isr_ms, row.exposure_seconds) == (1_000, 8.0)
    assert (row.exposure_source, row.offline_seconds) == ("timeline", 4.0)
    assert row.day == date(1970, 1, 1)


def test_the_replays_exposure_wins_and_clean_or_failed_elections_are_left_out():
    replayed = election(
        9_000, 2, 1, (1,), unclean=True, new_leader_left_isr_ms=2_000, exposure_seconds=7.0,
        unclean_setting=True, unclean_setting_source="topic_config", high_watermark=50,
        new_leader_start_offset=40, offsets_at_risk=10,
    )  # fmt: skip
    clean = election(3_000, 3, 1, (1, 3))
    failed = election(4_000, -1, 1, (1,), unclean=None)
    (row,) = unclean_rows([replayed, clean, failed], [])
    assert (row.exposure_seconds, row.exposure_source, row.new_leader_left_isr_ms) == (
        7.0,
        "replay",
        2_000,
    )
    assert (row.unclean_setting, row.unclean_setting_source, row.offsets_at_risk) == (
        True,
        "topic_config",
        10,
    )
    assert row.offline_seconds is None  # no timeline known


def test_unclean_daily_rolls_up_per_topic_and_day():
    rows = unclean_rows(
        [
            election(T0 + 10, 2, 1, (1,), unclean=True, exposure_seconds=5.0,
                     new_leader_left_isr_ms=T0 - 4_990, offsets_at_risk=3),
            election(T0 + 20, 3, 1, (1,), unclean=True),
            election(T0 + DAY, 2, 1, (1,), unclean=True, exposure_seconds=1.5,
                     new_leader_left_isr_ms=T0 + DAY - 1_500, unclean_setting_source="admin"),
        ],
        [],
    )  # fmt: skip
    first, second = unclean_daily(rows)
    assert (first.day, first.topic, first.unclean_elections, first.partitions) == (
        date(2024, 3, 5), "t", 2, 1,
    )  # fmt: skip
    assert (first.max_exposure_seconds, first.total_exposure_seconds) == (5.0, 5.0)
    assert (first.unknown_exposure, first.offsets_at_risk) == (1, 3)
    assert (first.first_at_ms, first.last_at_ms) == (T0 + 10, T0 + 20)
    assert second.setting_sources == ("admin",) and second.offsets_at_risk is None


def test_unclean_daily_without_a_known_exposure_totals_a_float():
    # a KRaft unclean election seen in text logs only: no exposure known (a real 4.1.1 capture
    # failed the report's DoubleType column with an int 0)
    (row,) = unclean_daily(unclean_rows([election(T0, 2, 1, (1,), unclean=True)], []))
    assert row.max_exposure_seconds is None and row.unknown_exposure == 1
    assert isinstance(row.total_exposure_seconds, float) and row.total_exposure_seconds == 0.0


# ------------------------------------------------------------------ offline intervals


def test_offline_stretch_is_merged_and_explained():
    timeline = [
        iv(0, 1_000, 1, (1, 2)),
        iv(1_000, 1_500, -1, (1,)),
        iv(1_500, 4_000, -1, (1,), state="OfflinePartition"),
        iv(4_000, None, 2, (2,)),
    ]
    facts = [fact(990, K.broker_down, broker=1, detail="failure")]
    elections = [
        election(1_000, -1, 1, (1,), unclean_setting=False),
        election(4_000, 2, -1, (1,), unclean=True),
    ]
    (gap,) = offline_intervals(timeline, elections, broker_events(facts), until_ms=10_000)
    assert (gap.offline_from_ms, gap.offline_to_ms, gap.duration_seconds) == (1_000, 4_000, 3.0)
    assert (gap.prev_leader, gap.next_leader, gap.open_ended) == (1, 2, False)
    assert gap.cause == (
        "leader broker 1 failed; offline election found no leader "
        "(no live ISR member of [1], unclean election disabled)"
    )
    assert gap.ended_by == "unclean offline election"
    assert gap.evidence == ("f:1000", "f:4000")
    assert offline_steps([gap]) == [(1_000, 1), (4_000, 0)]


def test_open_and_deleted_offline_stretches():
    open_one = [iv(0, 100, 3, (3,)), iv(100, None, -1, (3,))]
    deleted = [
        iv(0, 100, -1, (1,), partition=1),
        iv(100, None, None, None, state="NonExistentPartition", partition=1),
    ]
    facts = [fact(95, K.session_registered, broker=3, session=7), fact(99, K.session_closed,
             session=7, detail="session_expired")]  # fmt: skip
    gaps = offline_intervals(open_one + deleted, [], broker_events(facts), until_ms=1_100)
    first, second = sorted(gaps, key=lambda g: g.partition)
    assert (first.open_ended, first.offline_to_ms, first.duration_seconds) == (True, None, 1.0)
    assert first.ended_by == "evidence ends" and first.cause == "leader broker 3 session expired"
    assert (second.ended_by, second.cause) == ("topic deleted", "no leader when first seen")
    assert offline_steps(gaps) == [(0, 1)]  # one ends as the other begins


def test_a_topic_being_deleted_is_out_of_the_offline_count():
    # ControllerContext: topics queued for deletion never count in OfflinePartitionsCount and,
    # since 2.4, beginTopicDeletion drops those already offline from it.
    outage = [iv(0, 100, 1, (1,)), iv(100, 500, -1, (1,)), iv(500, None, -1, (1,))]
    deletion_write = [
        iv(0, 300, 2, (2,), partition=1),
        iv(300, 600, -1, (2,), partition=1),  # the deletion's OfflineReplica step: leader -1
        iv(600, None, None, None, state="NonExistentPartition", partition=1),
    ]
    steps = {"t": [(200, True), (600, False)]}
    (gap,) = offline_intervals(outage + deletion_write, [], until_ms=1_000, deletion=steps)
    assert (gap.partition, gap.offline_from_ms, gap.offline_to_ms, gap.open_ended) == (
        0, 100, 200, False,
    )  # fmt: skip
    assert gap.ended_by == "topic deletion began" and gap.duration_seconds == 0.1
    # without the steps both count
    assert [g.offline_to_ms for g in offline_intervals(outage + deletion_write)] == [None, 600]


def test_partitions_always_led_have_no_offline_interval():
    assert offline_intervals([iv(0, 10, 1, (1,)), iv(10, None, 2, (2,))]) == []


# ------------------------------------------------------------------ controller history


def test_controller_terms_and_how_they_ended():
    facts = [
        fact(100, K.controller, controller_id=1, epoch=1),
        fact(101, K.controller_epoch, controller_id=1, epoch=1),
        # broker 3 takes over; broker 1's resignation is logged just after
        fact(5_000, K.controller, controller_id=3, epoch=2),
        fact(5_001, K.controller, controller_id=1, detail="resigned"),
        # broker 3's broker fails: its term ends there
        fact(9_000, K.broker_down, broker=3, detail="session_expired"),
        fact(9_050, K.controller_epoch, controller_id=2, epoch=3),
        # broker 2 is seen again at a higher epoch: it won a new election
        fact(12_000, K.controller, controller_id=2, epoch=4),
        fact(15_000, K.controller, controller_id=4, epoch=5),
    ]
    terms = controller_history("c", facts, until_ms=20_000)
    assert [(t.controller_id, t.controller_epoch, t.ended_by, t.successor_id) for t in terms] == [
        (1, 1, "resigned", 3),
        (3, 2, "session_expired", 2),
        (2, 3, "re-elected", 2),
        (2, 4, "superseded", 4),
        (4, 5, "still_active", None),
    ]
    assert (terms[0].active_from_ms, terms[0].active_to_ms) == (100, 5_000)
    assert terms[0].duration_seconds == 4.9
    assert (terms[-1].active_to_ms, terms[-1].duration_seconds) == (None, 5.0)
    assert "controller.log:5001" in terms[0].evidence


def test_no_controller_facts_no_history():
    assert controller_history("c", [fact(1, K.broker_up, broker=1)]) == []


# ------------------------------------------------------------------ daily rollup


def imbalance(time, broker, ratio, trigger, leaders=1, logged=None, observation="change"):
    return ImbalanceRow(
        "c", time, observation, broker, 4, 0, 0, ratio, 0.1, trigger, leaders, 4, 0.25, 0, 0,
        "zk_2_7", None, None, logged, None if logged is None else logged == ratio,
    )  # fmt: skip


def test_daily_rollup_cuts_spans_at_midnight():
    rows = [
        imbalance(T0 + DAY - 3_600_000, 1, 0.5, True, leaders=0),  # 23:00, above
        imbalance(T0 + DAY + 1_800_000, 1, 0.0, False, leaders=2),  # 00:30 next day
        imbalance(T0 + DAY + 1_800_000, 1, 0.5, True, logged=0.5, observation="check"),
    ]
    late = {(1, date(2024, 3, 6)): 2}
    first, second = imbalance_daily(rows, until_ms=T0 + DAY + 3_600_000, preferred_elections=late)
    assert (first.day, first.seconds_above_threshold, first.observed_seconds) == (
        date(2024, 3, 5), 3600.0, 3600.0,
    )  # fmt: skip
    assert (first.max_ratio, first.max_ratio_at_ms, first.observations) == (
        0.5, T0 + DAY - 3_600_000, 1,
    )  # fmt: skip
    assert (second.seconds_above_threshold, second.observed_seconds) == (1800.0, 3600.0)
    assert (second.checks_logged, second.checks_over_threshold, second.check_mismatches) == (
        1, 1, 0,
    )  # fmt: skip
    assert (second.leaders_min, second.leaders_max, second.preferred_elections) == (0, 2, 2)
    assert second.max_ratio_at_ms == T0 + DAY  # carried over midnight


# ------------------------------------------------------------------ gold-row adapters


def test_gold_rows_read_back_as_the_replays_records():
    timeline = iv(T0, T0 + 5, 2, (2, 3))
    assert timeline_from_row(timeline.to_row()) == timeline
    row = election(T0, 2, 1, (1,), unclean=True, exposure_seconds=1.5,
                   new_leader_left_isr_ms=T0 - 1_500, detail="x")  # fmt: skip
    assert election_from_row(row.to_row()) == row
    anomaly = AnomalyRow("c", None, None, T0, "log_gap", "warning", 3, "a", "b", "d", ("e",), "s")
    assert anomaly_from_row(anomaly.to_row()) == anomaly
    spark_like = {
        **row.to_row(),
        "elected_at": datetime(2024, 3, 5, tzinfo=UTC).replace(tzinfo=None),
        "exposure_seconds": float("nan"),
        "new_leader_left_isr_at": None,
    }
    back = election_from_row(spark_like)
    assert back.elected_at_ms == T0 and back.exposure_seconds is None


@pytest.mark.parametrize("value", [None, "x", float("nan")])
def test_missing_new_leader_reads_as_failed(value):
    assert election_from_row({"new_leader": value}).new_leader == -1
