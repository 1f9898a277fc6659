"""Each broker's history (``kafkactl_core.report.brokers``) from a cluster's facts: the
replay's own liveness view, the cause of an offline stretch from its broker-down event."""

from __future__ import annotations

from typing import Any

from kafkactl_core.replay import ClusterFact, ClusterFactKind, Source
from kafkactl_core.replay.timelines import ClusterTimelines
from kafkactl_core.report.brokers import broker_timeline
from kafkactl_core.report.offline import broker_events

K = ClusterFactKind


def fact(kind: ClusterFactKind, t: int, **values: Any) -> ClusterFact:
    return ClusterFact("c", t, Source.kraft_metadata, kind, f"metadata:{t}", t, **values)


def history(*facts: ClusterFact, until: int | None = 10_000) -> list[tuple[object, ...]]:
    timelines = ClusterTimelines.from_facts("c", facts)
    return [
        (r.broker, r.state, r.state_from_ms, r.state_to_ms, r.cause, r.evidence, r.open_ended)
        for r in broker_timeline("c", timelines, broker_events(facts), until)
    ]


def test_fencing_a_clean_stop_and_a_late_registration() -> None:
    rows = history(
        fact(K.registered_set, 100, brokers=(1, 2)),
        fact(K.broker_down, 2_000, broker=2, detail="fenced"),
        fact(K.broker_up, 3_000, broker=2),
        fact(K.shutting_down_add, 4_000, broker=1),
        fact(K.broker_down, 4_500, broker=1, detail="fenced"),
        fact(K.broker_up, 5_000, broker=3),
    )
    assert rows == [
        (1, "online", 100, 4_000, "registered", ("metadata:100", "metadata:4000"), False),
        (1, "controlled_shutdown", 4_000, 4_500, "controlled_shutdown",
         ("metadata:4000", "metadata:4500"), False),
        (1, "offline", 4_500, None, "fenced after controlled shutdown", ("metadata:4500",), True),
        (2, "online", 100, 2_000, "registered", ("metadata:100", "metadata:2000"), False),
        (2, "offline", 2_000, 3_000, "fenced", ("metadata:2000", "metadata:3000"), False),
        (2, "online", 3_000, None, "registered", ("metadata:3000",), True),
        (3, "online", 5_000, None, "registered", ("metadata:5000",), True),
    ]  # fmt: skip


def test_durations_run_to_the_end_of_the_evidence() -> None:
    facts = (fact(K.registered_set, 100, brokers=(1,)),)
    (row,) = broker_timeline(
        "c", ClusterTimelines.from_facts("c", facts), broker_events(facts), 2_100
    )
    assert (row.duration_seconds, row.open_ended, row.state_to_ms) == (2.0, True, None)
    (unknown_end,) = broker_timeline(
        "c", ClusterTimelines.from_facts("c", facts), broker_events(facts), None
    )
    assert unknown_end.duration_seconds is None


def test_a_broker_first_seen_down_has_its_cause_and_none_before_it_registers() -> None:
    rows = history(
        fact(K.broker_down, 500, broker=4, detail="failure"),
        fact(K.registered_set, 1_000, brokers=(1,)),
        fact(K.broker_up, 2_000, broker=2),
    )
    assert [(b, s, f, c) for b, s, f, _, c, _, _ in rows] == [
        (1, "online", 1_000, "registered"),
        (2, "online", 2_000, "registered"),
        (4, "offline", 500, "failed"),
    ]
