"""Partition reassignments from the partitions' timelines (``gold.reassignments``).

A reassignment shows in any evidence as the assignment's changes: Kafka first writes the old
replicas with the target's (ZooKeeper's topic znode since 2.4, KRaft's ``PartitionChangeRecord``
with ``addingReplicas``), then, once the target's replicas are in the ISR, the target alone. So
an assignment that grows is a move starting, the next change that shrinks it its end: to the
replicas before is a cancellation, to anything else the completed target. An assignment that
changes in one step (a removal only, a new order of the same replicas) is a move that started
and finished at once. The first assignment of a partition is its creation, not a move.
"""

from __future__ import annotations

from collections.abc import Iterable

from kafkactl_core.replay.rows import TimelineRow
from kafkactl_core.report.offline import being_deleted, partitions_of
from kafkactl_core.report.rows import Reassignment

__all__ = ["OUTCOMES", "reassignments"]

OUTCOMES = ("completed", "cancelled", "in_progress", "topic_deleted")
"""``Reassignment.outcome`` values."""


def reassignments(timeline: Iterable[TimelineRow], until_ms: int | None) -> list[Reassignment]:
    """The reassignments of some partitions.

    Args:
        timeline: the partitions' intervals (any order).
        until_ms: the end of the evidence, for the duration of moves in progress.

    Returns:
        One row per move, ordered by start, topic and partition.
    """
    out: list[Reassignment] = []
    for intervals in partitions_of(timeline).values():
        settled: tuple[int, ...] | None = None
        moving: Reassignment | None = None
        for interval in intervals:
            replicas = interval.assignment
            time = interval.valid_from_ms or 0
            if being_deleted(interval):
                if moving is not None:
                    _finish(moving, interval, time, "topic_deleted")
                    out.append(moving)
                moving, settled = None, None
                continue
            if replicas is None:
                continue
            if moving is not None:
                if set(replicas) >= set(moving.replicas_to) and replicas != moving.replicas_to:
                    moving.replicas_to = replicas  # more replicas joined the move
                elif replicas != moving.replicas_to:
                    cancelled = set(replicas) == set(moving.replicas_from)
                    moving.replicas_to = moving.replicas_from if cancelled else replicas
                    _finish(moving, interval, time, "cancelled" if cancelled else "completed")
                    out.append(moving)
                    moving, settled = None, replicas
                continue
            if settled is None or replicas == settled:
                settled = replicas
                continue
            # started now, not finished; from, to; nothing added or removed yet; the leader
            move = Reassignment(
                interval.cluster, interval.topic, interval.partition, time, None, None,
                settled, replicas, (), (), interval.leader, None, None, "in_progress",
                (interval.evidence,),
            )  # fmt: skip
            if set(replicas) > set(settled):
                moving = move
            else:
                _finish(move, interval, time, "completed")
                out.append(move)
                settled = replicas
        if moving is not None:
            moving.adding = tuple(r for r in moving.replicas_to if r not in moving.replicas_from)
            if until_ms is not None:
                moving.duration_seconds = max(0, until_ms - moving.started_ms) / 1000
            out.append(moving)
    out.sort(key=lambda r: (r.started_ms, r.topic, r.partition))
    return out


def _finish(move: Reassignment, interval: TimelineRow, time: int, outcome: str) -> None:
    move.finished_ms = time
    move.duration_seconds = max(0, time - move.started_ms) / 1000
    move.adding = tuple(r for r in move.replicas_to if r not in move.replicas_from)
    move.removing = tuple(r for r in move.replicas_from if r not in move.replicas_to)
    move.leader_after = None if outcome == "topic_deleted" else interval.leader
    before, after = move.leader_before, move.leader_after
    move.leader_moved = None if before is None or after is None else before != after
    move.outcome = outcome
    move.evidence = (*move.evidence, interval.evidence)
