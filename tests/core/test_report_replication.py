"""Under-replicated and under-min-ISR intervals and the daily ISR churn from a partition's
timeline (``kafkactl_core.report.replication``)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from kafkactl_core.replay.rows import TimelineRow
from kafkactl_core.report.imbalance import deletion_steps
from kafkactl_core.report.reassignments import reassignments
from kafkactl_core.report.replication import isr_churn_daily, under_replicated_intervals
from kafkactl_core.report.rows import IsrChurnDailyRow
from tests.core.test_replay_kraft_metadata import replay_logs
from tests.real_kafka.truth import read_truth

DAY = 86_400_000
T0 = 1_709_596_800_000  # 2024-03-05T00:00Z


def interval(
    start: int,
    end: int | None,
    leader: int | None,
    isr: tuple[int, ...] | None,
    assignment: tuple[int, ...] | None = (1, 2, 3),
    state: str | None = "OnlinePartition",
    topic: str = "orders",
) -> TimelineRow:
    return TimelineRow(
        "c", topic, 0, T0 + start, None if end is None else T0 + end, state, leader, isr,
        None, None, assignment, None, f"log:{start}",
    )  # fmt: skip


def min_isr_two(topic: str, time: int) -> tuple[int, str]:
    return (2, "topic_config") if topic == "orders" else (1, "version_default")


def test_a_replica_out_of_the_isr_opens_a_stretch_that_ends_when_it_is_back() -> None:
    timeline = [
        interval(0, 1000, 1, (1, 2, 3)),
        interval(1000, 4000, 1, (1, 2)),  # 3 out: under-replicated, not under min ISR
        interval(4000, 6000, 1, (1,)),  # 2 out too: both
        interval(6000, 9000, 1, (1, 3)),  # 3 back: still under-replicated
        interval(9000, None, 1, (1, 2, 3)),
    ]
    rows = under_replicated_intervals(timeline, min_isr_two, T0 + 20_000)
    urp, under_min = rows
    assert (urp.condition, urp.under_from_ms - T0, urp.under_to_ms) == (
        "under_replicated", 1000, T0 + 9000,
    )  # fmt: skip
    assert urp.duration_seconds == 8.0 and not urp.open_ended
    assert (urp.isr_at_start, urp.smallest_isr, urp.out_of_sync) == ((1, 2), 1, (2, 3))
    assert urp.evidence == ("log:1000", "log:9000") and urp.leader_at_start == 1
    assert (under_min.condition, under_min.under_from_ms - T0) == ("under_min_isr", 4000)
    assert (under_min.duration_seconds, under_min.out_of_sync) == (2.0, (2, 3))
    assert (under_min.min_insync_replicas, under_min.min_insync_replicas_source) == (
        2, "topic_config",
    )  # fmt: skip


def test_an_open_stretch_lasts_to_the_end_of_the_evidence() -> None:
    timeline = [interval(0, 500, 1, (1, 2, 3)), interval(500, None, 1, (1,))]
    rows = under_replicated_intervals(timeline, min_isr_two, T0 + 2500)
    assert [(r.condition, r.open_ended, r.under_to_ms, r.duration_seconds) for r in rows] == [
        ("under_min_isr", True, None, 2.0),
        ("under_replicated", True, None, 2.0),
    ]
    assert under_replicated_intervals(timeline, min_isr_two, None)[0].duration_seconds is None


def test_only_led_partitions_count_and_min_isr_is_capped_at_the_replicas() -> None:
    timeline = [
        interval(0, 1000, -1, (1,)),  # offline: in gold.offline_intervals instead
        interval(1000, 2000, 2, None),  # ISR unknown
        interval(2000, 3000, -2, (2,), state="OnlinePartition"),  # being deleted
        interval(3000, None, 2, (2,), assignment=(2,)),  # RF 1: min ISR 2 capped to 1
    ]
    assert under_replicated_intervals(timeline, min_isr_two, T0 + 5000) == []


def test_the_min_isr_in_force_when_the_stretch_begins() -> None:
    timeline = [interval(0, 1000, 1, (1,), topic="logs"), interval(1000, None, 1, (1, 2, 3))]
    (row,) = under_replicated_intervals(timeline, min_isr_two, T0 + 1000)
    assert (row.condition, row.min_insync_replicas, row.min_insync_replicas_source) == (
        "under_replicated", 1, "version_default",
    )  # fmt: skip


def test_isr_churn_per_day_partition_and_replica() -> None:
    timeline = [
        interval(0, 100, 1, (1, 2, 3)),
        interval(100, 200, 1, (1, 2)),  # 3 shrinks
        interval(200, 300, 1, (1, 2, 3)),  # 3 expands
        interval(300, 400, 1, (1, 3)),  # 2 shrinks
        interval(400, 500, 1, None),  # unknown: nothing counted across it
        interval(500, DAY + 10, 1, (1, 2, 3)),
        interval(DAY + 10, None, 1, (1, 2)),  # the next day: 3 shrinks
    ]
    assert isr_churn_daily(timeline) == [
        IsrChurnDailyRow("c", date(2024, 3, 5), "orders", 0, 2, 1, 0, T0 + 300, T0 + 300),
        IsrChurnDailyRow("c", date(2024, 3, 5), "orders", 0, 3, 1, 1, T0 + 100, T0 + 200),
        IsrChurnDailyRow("c", date(2024, 3, 6), "orders", 0, 3, 1, 0, T0 + DAY + 10, T0 + DAY + 10),
    ]


def moves(*intervals: TimelineRow, until: int | None = None) -> list[tuple[object, ...]]:
    return [
        (r.started_ms - T0, None if r.finished_ms is None else r.finished_ms - T0,
         r.replicas_from, r.replicas_to, r.adding, r.removing, r.leader_moved, r.outcome)
        for r in reassignments(intervals, until)
    ]  # fmt: skip


def test_a_move_starts_when_the_target_joins_and_ends_at_the_target() -> None:
    assert moves(
        interval(0, 100, 4, (4, 2, 3), (4, 2, 3)),
        interval(100, 200, 4, (4, 2, 3), (1, 2, 3, 4)),  # 1 added beside the old replicas
        interval(200, 300, 4, (4, 2, 3, 1), (1, 2, 3, 4)),
        interval(300, 400, 1, (2, 3, 1), (1, 2, 3, 4)),  # the leader moves off 4
        interval(400, None, 1, (2, 3, 1), (1, 2, 3)),  # the target alone
    ) == [(100, 400, (4, 2, 3), (1, 2, 3), (1,), (4,), True, "completed")]


def test_cancelled_one_step_in_progress_and_deleted_moves() -> None:
    cancelled = moves(
        interval(0, 100, 1, (1, 2), (1, 2)),
        interval(100, 200, 1, (1, 2), (1, 2, 3)),
        interval(200, None, 1, (1, 2), (1, 2)),
    )
    assert cancelled == [(100, 200, (1, 2), (1, 2), (), (), False, "cancelled")]
    one_step = moves(
        interval(0, 100, 1, (1, 2, 3), (1, 2, 3)),
        interval(100, 200, 1, (1, 2), (1, 2)),  # a removal only
        interval(200, None, 2, (1, 2), (2, 1)),  # a new order: 2 preferred
    )
    assert one_step == [
        (100, 100, (1, 2, 3), (1, 2), (), (3,), False, "completed"),
        (200, 200, (1, 2), (2, 1), (), (), False, "completed"),
    ]
    growing = [interval(0, 100, 1, (1,), (1,)), interval(100, None, 1, (1,), (1, 2))]
    assert moves(*growing) == [(100, None, (1,), (1, 2), (2,), (), None, "in_progress")]
    assert reassignments(growing, T0 + 1100)[0].duration_seconds == 1.0
    deleted = moves(
        interval(0, 100, 1, (1,), (1,)),
        interval(100, 200, 1, (1,), (1, 2)),
        interval(200, None, -2, (1,), (1, 2)),
    )
    assert deleted == [(100, 200, (1,), (1, 2), (2,), (), None, "topic_deleted")]


ZK_CAPTURES = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "real-kafka").glob("*-zk"))


@pytest.mark.parametrize("capture", ZK_CAPTURES, ids=lambda p: p.name)
def test_from_the_logs_each_replica_s_isr_churn_is_the_state_znodes(capture: Path) -> None:
    """ZooKeeper's own dump of the capture: every ISR a state write set, a replica leaving or
    joining it counted; the writes of a topic being deleted (its replicas taken out) are not."""
    out, timelines = replay_logs(capture)
    steps = deletion_steps(timelines.topic_facts(), timelines)
    ours: dict[tuple[str, int, int], tuple[int, int]] = {}
    for row in isr_churn_daily(out.timeline, steps):
        key = (row.topic, row.partition, row.broker)
        shrinks, expands = ours.get(key, (0, 0))
        ours[key] = (shrinks + row.shrinks, expands + row.expands)
    truth = read_truth(capture).isr_churn()
    assert ours == truth and truth
