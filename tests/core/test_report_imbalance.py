"""Leader imbalance: the per-partition counters against hand-computed cases and against the
controller engine's own computation (``zkcontroller.rebalance.imbalance_groups`` and
``ControllerContext.preferred_replica_imbalance_count``) on generated cluster states; the
deltas and running sums against a whole-cluster recomputation at every observation time;
logged checks, their grouping, and the mismatch anomalies.
"""

from __future__ import annotations

import dataclasses
from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import LeaderAndIsr, TopicPartition
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.replay.evidence import Source
from kafkactl_core.replay.facts import ClusterFact, ClusterFactKind
from kafkactl_core.replay.rows import TimelineRow
from kafkactl_core.replay.timelines import ClusterTimelines
from kafkactl_core.report.daily import moved_by_preference, preferred_elections_by_day
from kafkactl_core.report.document import preferred_times
from kafkactl_core.report.imbalance import (
    ImbalanceSettings,
    LoggedRatio,
    PartitionView,
    PricRule,
    assign_checks,
    contributions,
    deletion_steps,
    derive_row,
    imbalance_rows,
    logged_ratio_from_row,
    not_preferred_from_row,
    partition_deltas,
    ratio_anomalies,
)
from kafkactl_core.versions import KafkaRelease
from kafkactl_core.zkcontroller.context import ControllerContext
from kafkactl_core.zkcontroller.rebalance import imbalance_groups

ZK28 = ImbalanceSettings(10, "zk", KafkaRelease.parse("2.8"))


def totals(views, rule):
    """Sum the contributions of several partitions: broker -> counters."""
    out: dict[int, list[int]] = {}
    for view in views:
        for broker, vector in contributions(view, rule).items():
            acc = out.setdefault(broker, [0] * 6)
            for i, v in enumerate(vector):
                acc[i] += v
    return out


def rows_of(views, settings=ZK28):
    counts = totals(views, settings.rule)
    sums = [sum(v[3] for v in counts.values()), sum(v[4] for v in counts.values())]
    sums.append(sum(v[5] for v in counts.values()))
    return {b: derive_row("c", 0, "change", b, v, sums, settings) for b, v in counts.items()}


# ------------------------------------------------------------------ hand-computed cases


def test_ratio_counts_other_leaders_and_no_leader_but_not_new_partitions():
    views = [
        PartitionView((1, 2, 3), 1),  # led by its preferred replica
        PartitionView((1, 2, 3), 2),  # led by another broker
        PartitionView((1, 3), -1),  # offline: counts as not led (leadership exists)
        PartitionView((1, 2), None),  # new, no leadership: in the denominator only
    ]
    row = rows_of(views)[1]
    assert (row.preferred_partitions, row.led_preferred, row.not_led) == (4, 1, 2)
    assert row.imbalance_ratio == 0.5 and row.would_trigger is True
    assert row.leaders == 1 and rows_of(views)[2].leaders == 1
    assert row.leaders_total == 2 and row.leader_share == 0.5


def test_threshold_is_strictly_greater():
    one_of_ten = [PartitionView((1, 2), 2)] + [PartitionView((1, 2), 1)] * 9
    row = rows_of(one_of_ten)[1]
    assert row.imbalance_ratio == 0.1 and row.threshold == 0.1
    assert row.would_trigger is False  # 0.1 > 0.1 is false: the controller does nothing
    two_of_ten = [PartitionView((1, 2), 2)] * 2 + [PartitionView((1, 2), 1)] * 8
    assert rows_of(two_of_ten)[1].would_trigger is True
    zero = ImbalanceSettings(0, "zk", KafkaRelease.parse("2.8"))
    assert rows_of([PartitionView((1, 2), 1)], zero)[1].would_trigger is False
    assert rows_of([PartitionView((1, 2), 2)] + [PartitionView((1, 2), 1)] * 99, zero)[
        1
    ].would_trigger


def test_topics_being_deleted_leave_the_ratio_but_keep_their_leaders():
    views = [PartitionView((1, 2), 2, deleting=True), PartitionView((1, 2), 1)]
    row = rows_of(views)
    assert (row[1].preferred_partitions, row[1].not_led, row[1].imbalance_ratio) == (1, 0, 0.0)
    assert row[2].leaders == 1 and row[2].preferred_partitions == 0
    assert row[2].imbalance_ratio is None and row[2].would_trigger is None


def test_preferred_imbalance_count_by_version_during_a_reassignment():
    # payments-1 of the demo: [4,2,3] -> [1,2,3]; while in flight RS = [1,2,3,4], 1 adding.
    catching_up = PartitionView((1, 2, 3, 4), 4, (3, 2, 4), adding=(1,))
    caught_up = PartitionView((1, 2, 3, 4), 4, (3, 2, 4, 1), adding=(1,))
    old = ImbalanceSettings(10, "zk", KafkaRelease.parse("2.6"))
    assert old.rule is PricRule.zk_before_2_7 and ZK28.rule is PricRule.zk_2_7
    # < 2.7: leader != head counts at once; >= 2.7: not until the adding head is in the ISR.
    assert rows_of([catching_up], old)[1].preferred_imbalance == 1
    assert rows_of([catching_up])[1].preferred_imbalance == 0
    assert rows_of([caught_up])[1].preferred_imbalance == 1
    # The controller's auto-rebalance ratio uses replicas.head either way.
    assert rows_of([catching_up])[1].imbalance_ratio == 1.0


def test_kraft_counts_offline_partitions_and_ignores_the_threshold():
    kraft = ImbalanceSettings(10, "kraft", KafkaRelease.parse("3.7"))
    views = [PartitionView((1, 2), -1), PartitionView((1, 2), 1), PartitionView((2, 1), 1)]
    rows = rows_of(views, kraft)
    assert rows[1].kraft_candidates == 1 and rows[2].kraft_candidates == 1
    assert rows[1].kraft_candidates_total == 2 and rows[1].preferred_imbalance_total == 2
    assert rows[1].would_trigger is None and rows[1].imbalance_ratio == 0.5
    assert rows_of(views)[1].kraft_candidates is None


# ------------------------------------------------------------------ against the controller engine

brokers = st.integers(min_value=1, max_value=5)


@st.composite
def cluster_states(draw):
    """Partitions with assignments, optional leadership, ISR, deletion and reassignment."""
    partitions = []
    deleting = draw(st.sets(st.sampled_from(["a", "b", "c"]), max_size=2))
    for topic in ("a", "b", "c"):
        for number in range(draw(st.integers(0, 6))):
            replicas = tuple(draw(st.lists(brokers, min_size=1, max_size=4, unique=True)))
            leadership = draw(st.booleans())
            leader = draw(st.sampled_from((-1, *replicas))) if leadership else None
            isr = tuple(r for r in replicas if draw(st.booleans()))
            adding = tuple(r for r in replicas[:1] if len(replicas) > 1 and draw(st.booleans()))
            partitions.append((TopicPartition(topic, number), replicas, leader, isr, adding))
    return partitions, deleting


def context_of(partitions, deleting):
    ctx = ControllerContext(KafkaVersion.of("2.8"))
    for tp, replicas, leader, isr, adding in partitions:
        ctx.set_assignment(tp, ReplicaAssignment(replicas, adding))
        if leader is not None:
            ctx.leadership[tp] = LeaderAndIsr(leader, 0, isr)
    ctx.topics_to_be_deleted |= deleting
    return ctx


@settings(max_examples=300, deadline=None)
@given(cluster_states(), st.integers(min_value=0, max_value=100))
def test_counters_equal_the_controllers_own_computation(state, percentage):
    partitions, deleting = state
    ctx = context_of(partitions, deleting)
    groups = imbalance_groups(ctx, percentage)
    settings_ = ImbalanceSettings(percentage, "zk", KafkaRelease.parse("2.8"))
    views = [
        PartitionView(replicas, leader, isr, adding, tp.topic in deleting)
        for tp, replicas, leader, isr, adding in partitions
    ]
    rows = rows_of(views, settings_)
    with_groups = {b for b, r in rows.items() if r.preferred_partitions > 0}
    assert with_groups == set(groups)
    for broker, group in groups.items():
        row = rows[broker]
        assert row.preferred_partitions == group.partitions
        assert row.not_led == len(group.not_preferred)
        assert row.imbalance_ratio == group.ratio  # the same IEEE double
        assert row.would_trigger == group.rebalance
    total = sum(r.preferred_imbalance for r in rows.values())
    assert total == ctx.preferred_replica_imbalance_count()


@st.composite
def histories(draw):
    """A few partitions, each a sequence of timeline intervals at increasing times."""
    rows = []
    for number in range(draw(st.integers(1, 4))):
        replicas = tuple(draw(st.lists(brokers, min_size=1, max_size=3, unique=True)))
        time = draw(st.integers(0, 50))
        for _ in range(draw(st.integers(1, 6))):
            length = draw(st.integers(1, 40))
            leader = draw(st.sampled_from((None, -1, *replicas)))
            state = "NewPartition" if leader is None else "OnlinePartition"
            if draw(st.integers(0, 9)) == 0:
                replicas = tuple(draw(st.lists(brokers, min_size=1, max_size=3, unique=True)))
            rows.append(
                TimelineRow(
                    "c",
                    "t",
                    number,
                    time,
                    time + length,
                    state,
                    leader,
                    replicas,
                    None,
                    None,
                    replicas,
                    None,
                    f"f:{time}",
                )
            )
            time += length
        if draw(st.booleans()):
            rows[-1].valid_to_ms = None
    return rows


@settings(max_examples=150, deadline=None)
@given(histories())
def test_running_sums_equal_a_recomputation_at_every_change(timeline):
    deltas = [
        d
        for number in {r.partition for r in timeline}
        for d in partition_deltas([r for r in timeline if r.partition == number], ZK28.rule)
    ]
    rows = imbalance_rows("c", deltas, ZK28)
    times = sorted({r.observed_at_ms for r in rows})
    for time in times:
        in_force = [
            r
            for r in timeline
            if r.valid_from_ms <= time and (r.valid_to_ms is None or time < r.valid_to_ms)
        ]
        ctx = context_of(
            [
                (TopicPartition("t", r.partition), r.assignment, r.leader, r.isr or (), ())
                for r in in_force
            ],
            set(),
        )
        groups = imbalance_groups(ctx, 10)
        at = {r.broker: r for r in rows if r.observed_at_ms == time}
        for broker, group in groups.items():
            assert at[broker].imbalance_ratio == group.ratio
            assert at[broker].not_led == len(group.not_preferred)
        for broker, row in at.items():
            if broker not in groups:
                assert row.preferred_partitions == 0
            led = sum(1 for r in in_force if r.leader == broker)
            assert row.leaders == led


def test_a_topic_leaves_the_ratio_when_queued_for_deletion_and_for_good_when_deleted():
    facts = [
        ClusterFact("c", 100, Source.controller_log, ClusterFactKind.topic_deletion_started, "x:1",
                    topic="t"),
        ClusterFact("c", 200, Source.controller_log, ClusterFactKind.topic_deleted, "x:2",
                    topic="t"),
    ]  # fmt: skip
    steps = deletion_steps(facts, ClusterTimelines.from_facts("c", facts))
    assert steps == {"t": [(100, True), (200, False)]}
    # The replay ends a deleted topic's partitions when the deletion completes.
    intervals = [
        TimelineRow("c", "t", 0, 0, 200, "OnlinePartition", 2, (2,), 1, 1, (1, 2), 1, ""),
        TimelineRow("c", "t", 0, 200, None, "NonExistentPartition", None, None, None, None,
                    (1, 2), 1, "x:2"),
    ]  # fmt: skip
    deltas = partition_deltas(intervals, ZK28.rule, steps["t"])
    rows = [r for r in imbalance_rows("c", deltas, ZK28) if r.broker in (1, 2)]
    assert [(r.observed_at_ms, r.broker, r.preferred_partitions, r.leaders) for r in rows] == [
        (0, 1, 1, 0),
        (0, 2, 0, 1),
        (100, 1, 0, 0),  # queued: out of the ratio (Kafka's topicsToBeDeleted), still led
        (100, 2, 0, 1),
        (200, 2, 0, 0),  # gone for good
    ]


def test_isr_only_changes_are_not_observations():
    a = TimelineRow("c", "t", 0, 0, 10, "OnlinePartition", 1, (1, 2), 1, 1, (1, 2), 1, "")
    b = TimelineRow("c", "t", 0, 10, None, "OnlinePartition", 1, (1,), 1, 2, (1, 2), 1, "")
    assert [(d.time_ms, d.broker) for d in partition_deltas([a, b], ZK28.rule)] == [(0, 1)]


# ------------------------------------------------------------------ logged checks


def ratio_row(ts, broker, ratio, line, controller=1):
    return {
        "event_type": "leader_imbalance_ratio",
        "ts": ts,
        "origin_broker": controller,
        "broker": broker,
        "ratio": ratio,
        "file": "controller.log",
        "first_line": line,
    }


def test_check_rows_see_the_state_before_the_same_millisecond():
    before = TimelineRow("c", "t", 0, 0, 1000, "OnlinePartition", 2, (1, 2), 1, 1, (1, 2), 1, "")
    after = TimelineRow("c", "t", 0, 1000, None, "OnlinePartition", 1, (1, 2), 2, 2, (1, 2), 1, "")
    # the check began at 1000 (the elections it triggers come after); broker 1's line is at 1004
    logged = [LoggedRatio(1004, 1, 1, 1.0, "controller.log:7", 1000)]
    rows = imbalance_rows("c", partition_deltas([before, after], ZK28.rule), ZK28, logged)
    check = next(r for r in rows if r.observation == "check" and r.broker == 1)
    assert (check.imbalance_ratio, check.logged_ratio, check.logged_matches) == (1.0, 1.0, True)
    assert (check.observed_at_ms, check.check_started_at_ms) == (1004, 1000)
    unlogged = next(r for r in rows if r.observation == "check" and r.broker == 2)
    assert (unlogged.observed_at_ms, unlogged.check_started_at_ms) == (1000, 1000)
    change = [r for r in rows if r.observation == "change" and r.broker == 1]
    assert [r.imbalance_ratio for r in change] == [1.0, 0.0]
    assert ratio_anomalies(rows, logged) == []


def test_mismatches_and_unlogged_brokers_become_anomalies():
    intervals = [
        TimelineRow("c", "t", 0, 0, None, "OnlinePartition", 2, (1, 2), 1, 1, (1, 2), 1, ""),
        TimelineRow("c", "t", 1, 0, None, "OnlinePartition", 2, (2, 1), 1, 1, (2, 1), 1, ""),
    ]
    deltas = [d for iv in intervals for d in partition_deltas([iv], ZK28.rule)]
    logged = [LoggedRatio(500, 1, 1, 0.5, "controller.log:9", 500)]
    listing = [
        LoggedRatio(500, 1, 1, 0.5, "controller.log:9", 500, ("t-0",)),
    ]
    rows = imbalance_rows("c", deltas, ZK28, logged)
    anomalies = ratio_anomalies(rows, listing)
    kinds = sorted((a.kind, a.expected, a.observed) for a in anomalies)
    assert kinds == [
        ("imbalance_ratio_mismatch", "1.0", "0.5"),
        ("imbalance_ratio_unlogged", "0.0", None),
    ]
    mismatch = next(a for a in anomalies if a.kind == "imbalance_ratio_mismatch")
    assert mismatch.evidence == ("controller.log:9",) and "t-0" in mismatch.detail
    assert mismatch.observed_at_ms == 500


def test_checks_are_grouped_by_their_start_line_and_listings_attached():
    rows = [ratio_row(1000 + i, b, 0.0, 10 + i) for i, b in enumerate((1, 2, 3))]
    rows += [ratio_row(301_000 + i, b, 0.0, 20 + i) for i, b in enumerate((1, 2))]
    ratios = [logged_ratio_from_row(r) for r in rows]
    starts = [(999, 1), (300_999, 1)]
    listing = not_preferred_from_row(
        {
            "ts": 301_000,
            "origin_broker": 1,
            "broker": 2,
            "detail": "orders-2 -> List(3, 4, 1), payments-0 -> List(3, 1, 2)",
        }
    )
    assert listing == (301_000, 1, 2, ("orders-2", "payments-0"))
    placed = assign_checks([r for r in ratios if r], starts, [listing])
    assert [(r.check_ms, r.broker) for r in placed] == [
        (999, 1), (999, 2), (999, 3), (300_999, 1), (300_999, 2),
    ]  # fmt: skip
    assert placed[-1].not_preferred == ("orders-2", "payments-0")
    assert placed[0].evidence == "controller.log:10"
    # Without start lines: a gap or a repeated broker begins a new check.
    unstarted = assign_checks([r for r in ratios if r])
    assert sorted({r.check_ms for r in unstarted}) == [1000, 301_000]


def test_logged_ratio_rows_are_read_tolerantly():
    assert logged_ratio_from_row({"ts": None, "broker": 1, "ratio": 0.5}) is None
    assert logged_ratio_from_row({"ts": 5, "broker": 1, "ratio": float("nan")}) is None
    read = logged_ratio_from_row(
        {"log_time": 7, "controller_id": 3, "broker": 2, "ratio": "0.25", "evidence": "x:1"}
    )
    assert read == LoggedRatio(7, 3, 2, 0.25, "x:1")


@dataclasses.dataclass(frozen=True)
class _Election:
    scenario: str
    trigger: str
    new_leader: int
    elected_at_ms: int | None


def test_preferred_elections_that_moved_leadership_are_counted_by_day_and_timed_by_broker():
    day = 1_709_596_800_000  # 2024-03-05T00:00Z
    moved = _Election("actual", "preferred", 2, day + 1_000)
    elections = [
        moved,
        dataclasses.replace(moved, elected_at_ms=day + 86_400_000),
        dataclasses.replace(moved, new_leader=-1),
        dataclasses.replace(moved, elected_at_ms=None),
        dataclasses.replace(moved, trigger="offline"),
        dataclasses.replace(moved, scenario="what-if:unclean.leader.election.enable=true"),
    ]
    assert [moved_by_preference(e) for e in elections] == [True, True, False, False, False, False]
    assert preferred_elections_by_day(elections) == {
        (2, date(2024, 3, 5)): 1,
        (2, date(2024, 3, 6)): 1,
    }
    assert preferred_times(elections) == {2: [day + 1_000, day + 86_400_000]}
