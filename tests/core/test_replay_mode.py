"""``mode: auto`` follows the cluster's evidence: once a KRaft controller's fact is on record
(a KRaft controller.log line or a metadata record), every partition of the cluster is replayed
with KRaft rules from then on, also one whose own evidence is only a broker's state-change.log."""

from __future__ import annotations

from kafkactl_core.replay import ReplaySettings, build_timelines
from kafkactl_core.replay.evidence import Fact, PartitionEvidence, Source
from kafkactl_core.replay.facts import ClusterFact, ClusterFactKind
from kafkactl_core.replay.fold import PartitionReplay

SETTINGS = ReplaySettings.of("3.9.1", mode="auto")


def _broker_line(time: int) -> PartitionEvidence:
    return PartitionEvidence(
        "c",
        "t",
        0,
        time,
        Source.state_change_log,
        Fact.leader_started,
        "state-change.log:1",
        leader=1,
        leader_epoch=3,
    )


def _kraft_mode(facts: list[ClusterFact], time: int) -> bool:
    timelines = build_timelines(facts).get("c")
    replay = PartitionReplay("c", "t", 0, timelines, SETTINGS)
    replay.feed([_broker_line(time)])
    return replay.kraft


def _controller(source: Source, time: int) -> ClusterFact:
    return ClusterFact("c", time, source, ClusterFactKind.controller, "x:1", controller_id=101)


def test_a_broker_only_partition_of_a_kraft_cluster_uses_kraft_rules() -> None:
    assert _kraft_mode([_controller(Source.kraft_metadata, 1_000)], 5_000)
    assert _kraft_mode([_controller(Source.kraft_log, 1_000)], 5_000)


def test_a_zookeeper_cluster_stays_zookeeper() -> None:
    assert not _kraft_mode([_controller(Source.controller_log, 1_000)], 5_000)
    assert not _kraft_mode([], 5_000)


def test_evidence_before_the_first_kraft_fact_is_not_kraft_yet() -> None:
    # a cluster migrated from ZooKeeper: its KRaft controller starts at 9 000
    assert not _kraft_mode([_controller(Source.kraft_metadata, 9_000)], 5_000)
