"""The partition timeline the fold writes: contiguous intervals, the last one open, deletion
ending the partition and a recreation starting over."""

from __future__ import annotations

import itertools

import pytest

from kafkactl_core.replay import (
    PartitionReplay,
    ReplayOutput,
    ReplaySettings,
    build_timelines,
)
from tests.core.replay_evidence import (
    ASSIGN,
    SC,
    STABLE,
    T0,
    F,
    K,
    ev,
    fact,
    kinds,
    registered,
    run,
    unclean_stream,
    write,
)

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
