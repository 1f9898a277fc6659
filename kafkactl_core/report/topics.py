"""Each topic's life: created, deletion requested, deleted or stuck (``gold.topic_lifecycle``).

The creation and deletion facts are the replay's own (``ClusterTimelines.topic_facts``: the
topic znodes and ``/admin/delete_topics``, the controller's topic lines, KRaft's topic records,
without what a restarted KRaft controller restates); a fact that repeats what is already known
(the same creation in the znodes and in the controller log) adds its evidence. The partitions,
replication factor and assignment come from the partitions' timelines (``partition_spans``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kafkactl_core.replay.facts import STATIC_SCOPE, ClusterFact, ClusterFactKind
from kafkactl_core.replay.rows import TimelineRow
from kafkactl_core.replay.settings import CONFIG_KEYS, DELETE_TOPIC_KEY
from kafkactl_core.replay.timelines import ClusterTimelines
from kafkactl_core.report.rows import PartitionSpan, TopicLifecycle
from kafkactl_core.zkcontroller.cluster import parse_bool_config

__all__ = ["STUCK_AFTER_MS", "TOPIC_STATES", "partition_spans", "topic_lifecycle"]

TOPIC_STATES = ("active", "deleting", "stuck", "deleted")
"""``TopicLifecycle.state`` values."""

STUCK_AFTER_MS = 60_000
"""A deletion still pending this long after its request at the end of the evidence is stuck
(the controller deletes a topic whose replicas are all online within seconds)."""

_NON_EXISTENT = "NonExistentPartition"
_CREATION_WINDOW_MS = 5_000
"""How long after its creation a partition's first interval or a topic config may be written."""
_K = ClusterFactKind


def partition_spans(intervals: Iterable[TimelineRow]) -> list[PartitionSpan]:
    """The stretches each partition existed: runs of consecutive intervals in a state other
    than ``NonExistentPartition``.

    Args:
        intervals: ``gold.partition_timeline`` intervals of one or more partitions.

    Returns:
        The spans, ordered by topic, partition and start.
    """
    ordered = sorted(
        intervals,
        key=lambda i: (i.topic, i.partition, -1 if i.valid_from_ms is None else i.valid_from_ms),
    )
    out: list[PartitionSpan] = []
    current: PartitionSpan | None = None
    for interval in ordered:
        same = current is not None and (current.topic, current.partition) == (
            interval.topic,
            interval.partition,
        )
        exists = interval.state != _NON_EXISTENT
        if current is not None and (
            not same or not exists or current.existed_to_ms != interval.valid_from_ms
        ):
            if same and not exists:
                current.existed_to_ms = interval.valid_from_ms
            out.append(current)
            current = None
        if not exists:
            continue
        if current is None:
            current = PartitionSpan(
                interval.cluster,
                interval.topic,
                interval.partition,
                interval.valid_from_ms,
                interval.valid_to_ms,
                interval.assignment or (),
            )
        else:
            current.existed_to_ms = interval.valid_to_ms
            if not current.replicas and interval.assignment:
                current.replicas = interval.assignment
    if current is not None:
        out.append(current)
    return out


def topic_lifecycle(
    cluster: str,
    timelines: ClusterTimelines,
    spans: Sequence[PartitionSpan],
    until_ms: int | None,
) -> list[TopicLifecycle]:
    """Every topic's life, one row per incarnation (a topic deleted and created again has two).

    Args:
        cluster: the cluster.
        timelines: its timelines (their topic facts, configs and liveness).
        spans: its partitions' spans (``partition_spans``).
        until_ms: the end of the evidence (pending deletions are judged there).

    Returns:
        The rows, ordered by topic and first seen.
    """
    rows: dict[str, list[TopicLifecycle]] = {}
    for fact in timelines.topic_facts():
        _apply(rows.setdefault(fact.topic or "", []), cluster, fact)
    by_topic: dict[str, list[PartitionSpan]] = {}
    for span in spans:
        by_topic.setdefault(span.topic, []).append(span)
    out: list[TopicLifecycle] = []
    for topic in sorted(set(rows) | set(by_topic)):
        lives = rows.get(topic) or []
        topic_spans = by_topic.get(topic, [])
        if not lives:
            lives = [_new(cluster, topic, None, min(_starts(topic_spans), default=None))]
        for index, life in enumerate(lives):
            following = lives[index + 1].first_seen_ms if index + 1 < len(lives) else None
            incarnation = _spans_of(life, following, topic_spans)
            _describe(life, timelines, incarnation)
            _judge(life, timelines, until_ms, {r for s in incarnation for r in s.replicas})
            out.append(life)
    return out


def _new(cluster: str, topic: str, fact: ClusterFact | None, seen: int | None) -> TopicLifecycle:
    created = fact is not None and fact.kind is _K.topic_created
    return TopicLifecycle(
        cluster=cluster,
        topic=topic,
        topic_id=None if fact is None else fact.value,
        created_ms=fact.time_ms if created and fact is not None else None,
        first_seen_ms=seen,
        partitions=None,
        replication_factor=None,
        assignment=None,
        configs=None,
        deletion_requested_ms=None,
        deleted_ms=None,
        deletion_seconds=None,
        state="active",
        stuck_reason=None,
        evidence=() if fact is None else (fact.ref,),
    )


def _apply(lives: list[TopicLifecycle], cluster: str, fact: ClusterFact) -> None:
    life = lives[-1] if lives else None
    if fact.kind is _K.topic_created:
        if life is not None and life.deleted_ms is None:
            life.evidence = (*life.evidence, fact.ref)  # the same creation, another source
            life.topic_id = life.topic_id or fact.value
            return
        lives.append(_new(cluster, fact.topic or "", fact, fact.time_ms))
        return
    if life is None or (life.deleted_ms is not None and fact.kind is _K.topic_deletion_started):
        life = _new(cluster, fact.topic or "", fact, fact.time_ms)
        lives.append(life)
    else:
        life.evidence = (*life.evidence, fact.ref)
        if life.deleted_ms is not None:
            return  # the same deletion, another source
    life.topic_id = life.topic_id or (fact.value if fact.kind is _K.topic_deleted else None)
    if life.deletion_requested_ms is None:
        life.deletion_requested_ms = fact.time_ms
    if fact.kind is _K.topic_deleted:
        life.deleted_ms = fact.time_ms


def _starts(spans: Iterable[PartitionSpan]) -> list[int]:
    return [s.existed_from_ms for s in spans if s.existed_from_ms is not None]


def _spans_of(
    life: TopicLifecycle, following: int | None, spans: Sequence[PartitionSpan]
) -> list[PartitionSpan]:
    """The spans that began during this incarnation (from its creation, up to the next one)."""
    begin = None if life.created_ms is None else life.created_ms - _CREATION_WINDOW_MS
    return [
        s
        for s in spans
        if s.existed_from_ms is not None
        and (begin is None or s.existed_from_ms >= begin)
        and (following is None or s.existed_from_ms < following)
    ]


def _describe(
    life: TopicLifecycle, timelines: ClusterTimelines, spans: Sequence[PartitionSpan]
) -> None:
    first: dict[int, PartitionSpan] = {}
    for span in spans:
        first.setdefault(span.partition, span)
    if first:
        life.partitions = len(first)
        life.replication_factor = max(len(s.replicas) for s in first.values()) or None
        life.assignment = ";".join(
            f"{p}:{','.join(map(str, s.replicas))}" for p, s in sorted(first.items())
        )
        earliest = min(_starts(first.values()))
        life.first_seen_ms = earliest if life.first_seen_ms is None else life.first_seen_ms
    if life.created_ms is not None:
        at = life.created_ms + _CREATION_WINDOW_MS
        if life.deleted_ms is not None:
            at = min(at, life.deleted_ms - 1)
        found = [(k, timelines.config_at("topic", life.topic, k, at)) for k in CONFIG_KEYS]
        life.configs = ", ".join(f"{k}={v}" for k, v in found if v is not None) or None


def _judge(
    life: TopicLifecycle, timelines: ClusterTimelines, until_ms: int | None, replicas: set[int]
) -> None:
    requested = life.deletion_requested_ms
    if life.deleted_ms is not None:
        life.state = "deleted"
        if requested is not None:
            life.deletion_seconds = max(0, life.deleted_ms - requested) / 1000
        return
    if requested is None:
        return
    pending = None if until_ms is None else max(0, until_ms - requested)
    life.deletion_seconds = None if pending is None else pending / 1000
    life.state = "stuck" if pending is not None and pending >= STUCK_AFTER_MS else "deleting"
    life.stuck_reason = _pending_reason(timelines, until_ms, replicas)


def _pending_reason(timelines: ClusterTimelines, until_ms: int | None, replicas: set[int]) -> str:
    controller, _ = timelines.controller_at(until_ms)
    if controller is not None:
        setting = timelines.config_at(STATIC_SCOPE, str(controller), DELETE_TOPIC_KEY, until_ms)
        if parse_bool_config(setting) is False:
            return f"{DELETE_TOPIC_KEY}=false"
    registered = timelines.liveness_at(until_ms).registered
    down = sorted(r for r in replicas if r not in registered)
    if down:
        return f"replica brokers {','.join(map(str, down))} offline"
    return "not completed by the end of the evidence"
