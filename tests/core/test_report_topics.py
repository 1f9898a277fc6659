"""``gold.topic_lifecycle`` and the partition spans it reads.

Rules on small histories (two sources of one creation, a pending deletion with a replica's broker
down, a topic deleted and created again), then every real capture against what its scenario did:
each ``create_topic`` step a row created during the step with the step's partitions, replication
factor and configs, each ``delete_topic`` step its deletion completed within seconds of the
step, the other topics still active. ZooKeeper captures from their logs, KRaft captures from
their logs and from their metadata log.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from kafkactl_core.replay import (
    ClusterFact,
    ClusterFactKind,
    ClusterTimelines,
)
from kafkactl_core.replay.evidence import Source
from kafkactl_core.replay.from_configs import normalize_broker_config
from kafkactl_core.replay.rows import TimelineRow
from kafkactl_core.report.rows import PartitionSpan, TopicLifecycle
from kafkactl_core.report.topics import STUCK_AFTER_MS, partition_spans, topic_lifecycle
from tests.core.test_replay_kraft_metadata import KRAFT, _replay, replay_logs

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real-kafka"
_K = ClusterFactKind


def _interval(topic: str, partition: int, start: int, end: int | None, state: str) -> TimelineRow:
    return TimelineRow(
        "c", topic, partition, start, end, state, 1, (1, 2), 0, 0, (1, 2), 1, f"l:{start}"
    )


def _fact(kind: ClusterFactKind, topic: str, time: int, ref: str, **values: Any) -> ClusterFact:
    return ClusterFact("c", time, Source.controller_log, kind, ref, topic=topic, **values)


def _live(brokers: tuple[int, ...], time: int) -> ClusterFact:
    return ClusterFact("c", time, Source.controller_log, _K.live_set, "live", brokers=brokers)


def test_a_span_runs_until_the_partition_stops_existing_or_its_intervals_break() -> None:
    intervals = [
        _interval("t", 0, 100, 200, "OnlinePartition"),
        _interval("t", 0, 200, 300, "OfflinePartition"),
        _interval("t", 0, 300, 400, "NonExistentPartition"),
        _interval("t", 0, 500, None, "OnlinePartition"),
        _interval("t", 1, 100, 150, "OnlinePartition"),
        _interval("t", 1, 160, None, "OnlinePartition"),
    ]
    spans = [
        (s.partition, s.existed_from_ms, s.existed_to_ms, s.replicas)
        for s in partition_spans(intervals)
    ]
    assert spans == [
        (0, 100, 300, (1, 2)),
        (0, 500, None, (1, 2)),
        (1, 100, 150, (1, 2)),
        (1, 160, None, (1, 2)),
    ]


def _lifecycle(facts: list[ClusterFact], spans: list[PartitionSpan], end: int) -> list[Any]:
    return topic_lifecycle("c", ClusterTimelines.from_facts("c", facts), spans, end)


def test_one_creation_from_two_sources_is_one_row_with_both_lines() -> None:
    facts = [
        _fact(_K.topic_created, "t", 1_000, "zk:0x10"),
        _fact(_K.topic_created, "t", 1_020, "controller.log:5"),
    ]
    spans = [PartitionSpan("c", "t", p, 1_050, None, (1, 2, 3)) for p in range(4)]
    (row,) = _lifecycle(facts, spans, 9_000)
    assert (row.created_ms, row.partitions, row.replication_factor) == (1_000, 4, 3)
    assert row.assignment == "0:1,2,3;1:1,2,3;2:1,2,3;3:1,2,3"
    assert (row.state, row.evidence) == ("active", ("zk:0x10", "controller.log:5"))


def test_a_deletion_pending_with_a_replica_broker_down_is_stuck_and_says_why() -> None:
    facts = [
        _live((1, 2, 3), 0),
        _fact(_K.topic_created, "t", 1_000, "a"),
        _live((1, 2), 2_000),
        _fact(_K.topic_deletion_started, "t", 3_000, "b"),
    ]
    spans = [PartitionSpan("c", "t", 0, 1_000, None, (2, 3))]
    (stuck,) = _lifecycle(facts, spans, 3_000 + STUCK_AFTER_MS)
    assert (stuck.state, stuck.stuck_reason) == ("stuck", "replica brokers 3 offline")
    assert (stuck.deletion_requested_ms, stuck.deleted_ms) == (3_000, None)
    assert stuck.deletion_seconds == STUCK_AFTER_MS / 1000
    (pending,) = _lifecycle(facts, spans, 3_000 + STUCK_AFTER_MS - 1)
    assert pending.state == "deleting"


def test_a_controller_started_with_deletion_disabled_is_the_reason_a_deletion_is_stuck() -> None:
    config = normalize_broker_config(
        {"cluster": "c", "ts": 10, "file": "server.log", "line": 40, "source_kind": "kafka_config",
         "name": "1", "key": "delete.topic.enable", "value": "false"}
    )  # fmt: skip
    facts = [
        ClusterFact("c", 5, Source.controller_log, _K.controller, "ctl", controller_id=1),
        *config.facts,
        _live((1, 2), 20),
        _fact(_K.topic_created, "t", 1_000, "a"),
        _fact(_K.topic_deletion_started, "t", 3_000, "b"),
    ]
    spans = [PartitionSpan("c", "t", 0, 1_000, None, (1, 2))]
    (row,) = _lifecycle(facts, spans, 3_000 + STUCK_AFTER_MS)
    assert (row.state, row.stuck_reason) == ("stuck", "delete.topic.enable=false")


def test_a_topic_deleted_and_created_again_has_a_row_per_incarnation() -> None:
    facts = [
        _fact(_K.topic_created, "t", 1_000, "a", value="id-1"),
        _fact(_K.topic_deletion_started, "t", 5_000, "b"),
        _fact(_K.topic_deleted, "t", 5_400, "c", value="id-1"),
        _fact(_K.topic_deleted, "t", 5_401, "d"),
        _fact(_K.topic_created, "t", 8_000, "e", value="id-2"),
    ]
    spans = [
        PartitionSpan("c", "t", 0, 1_000, 5_400, (1,)),
        PartitionSpan("c", "t", 1, 1_000, 5_400, (2,)),
        PartitionSpan("c", "t", 0, 8_000, None, (3, 1)),
    ]
    first, second = _lifecycle(facts, spans, 9_000)
    assert (first.topic_id, first.created_ms, first.partitions) == ("id-1", 1_000, 2)
    assert (first.deletion_requested_ms, first.deleted_ms, first.deletion_seconds) == (
        5_000,
        5_400,
        0.4,
    )
    assert (first.state, first.evidence) == ("deleted", ("a", "b", "c", "d"))
    assert (second.topic_id, second.partitions, second.replication_factor) == ("id-2", 1, 2)
    assert (second.state, second.assignment) == ("active", "0:3,1")


def test_a_topic_known_only_from_its_partitions_was_created_before_the_evidence() -> None:
    (row,) = _lifecycle([], [PartitionSpan("c", "old", 0, 700, None, (1, 2))], 9_000)
    assert (row.created_ms, row.first_seen_ms, row.partitions, row.state) == (
        None,
        700,
        1,
        "active",
    )


# ------------------------------------------------------------------------- real captures


def _ms(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp() * 1000)


def _steps(capture: Path) -> list[dict[str, Any]]:
    lines = (capture / "steps.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line]


def check_against_scenario(capture: Path, rows: list[TopicLifecycle]) -> None:
    """Every topic step of the capture's scenario is in ``rows`` as it happened."""
    by_topic = {r.topic: r for r in rows}
    steps = _steps(capture)
    deleted = {s["topic"] for s in steps if s["op"] == "delete_topic"}
    for step in steps:
        if step["op"] == "create_topic":
            row = by_topic[step["topic"]]
            assert row.created_ms is not None
            assert _ms(step["started"]) - 1_000 <= row.created_ms <= _ms(step["ended"]) + 1_000
            shape = step["assignment"] or [[0] * step["replication_factor"]] * step["partitions"]
            assert (row.partitions, row.replication_factor) == (len(shape), len(shape[0]))
            if step["assignment"]:
                assert row.assignment == ";".join(
                    f"{p}:{','.join(map(str, r))}" for p, r in enumerate(step["assignment"])
                )
            for key, value in step["configs"].items():
                assert f"{key}={value}" in (row.configs or "")
            assert row.state == ("deleted" if step["topic"] in deleted else "active"), row
        elif step["op"] == "delete_topic":
            row = by_topic[step["topic"]]
            assert row.deleted_ms is not None and row.deletion_requested_ms is not None
            assert _ms(step["started"]) - 1_000 <= row.deletion_requested_ms <= row.deleted_ms
            assert row.deleted_ms <= _ms(step["ended"]) + 30_000


def _from_logs(capture: Path) -> list[TopicLifecycle]:
    out, timelines = replay_logs(capture)
    times = [t for r in out.timeline for t in (r.valid_from_ms, r.valid_to_ms) if t is not None]
    return topic_lifecycle("c", timelines, partition_spans(out.timeline), max(times))


LOGGED = sorted(p for p in CAPTURES.iterdir() if (p / "steps.jsonl").is_file())


@pytest.mark.parametrize("capture", LOGGED, ids=lambda p: p.name)
def test_every_capture_s_topics_from_its_logs_are_what_its_scenario_did(capture: Path) -> None:
    check_against_scenario(capture, _from_logs(capture))


@pytest.mark.parametrize("capture", KRAFT, ids=lambda p: p.name)
def test_every_kraft_capture_s_topics_from_its_metadata_log(capture: Path) -> None:
    out, facts = _replay(capture)
    end = max(f.time_ms for f in facts if f.time_ms is not None)
    timelines = ClusterTimelines.from_facts("c", facts)
    rows = topic_lifecycle("c", timelines, partition_spans(out.timeline), end)
    check_against_scenario(capture, rows)
    assert all(r.topic_id for r in rows)
