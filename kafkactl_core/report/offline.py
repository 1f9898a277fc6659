"""Offline intervals: the stretches of time a partition had no leader, and why.

A partition is offline while its timeline says leader -1 or state ``OfflinePartition`` (not
while its topic is being deleted, leader -2, nor once it no longer exists). Consecutive offline
intervals (ISR changes while offline) are merged. The cause is read from the evidence around
the start: the lost leader's broker going down (``broker_events``: failure, session expiry,
fencing, controlled shutdown) and the failed election the replay recorded (``gold.elections``
with ``new_leader = -1``). What ended it is the election at its end, a topic deletion, or
nothing (still offline when the evidence ends).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kafkactl_core.replay.facts import ClusterFact, ClusterFactKind
from kafkactl_core.replay.rows import ElectionRow, TimelineRow
from kafkactl_core.report.imbalance import deleting_at
from kafkactl_core.report.rows import OfflineInterval

__all__ = [
    "BrokerEvent",
    "BrokerEvents",
    "being_deleted",
    "broker_events",
    "count_steps",
    "offline_intervals",
    "offline_steps",
    "partitions_of",
]

_WINDOW_MS = 5_000
"""How far apart a broker going down and its partitions' leader loss may be logged."""


@dataclass(frozen=True, slots=True)
class BrokerEvent:
    """A broker going down or into controlled shutdown.

    Attributes:
        time_ms: when (UTC ms).
        broker: the broker.
        what: ``failed``, ``session_expired``, ``session_closed``, ``deregistered``,
            ``fenced`` or ``controlled_shutdown``.
        ref: the line or zxid.
    """

    time_ms: int
    broker: int
    what: str
    ref: str


_DOWN_DETAIL = {
    "failure": "failed",
    "deleted": "deregistered",
    "session_expired": "session_expired",
    "session_closed": "session_closed",
    "fenced": "fenced",
}


class BrokerEvents:
    """Broker-down events of one cluster, searchable by broker and time."""

    def __init__(self, events: Iterable[BrokerEvent] = ()) -> None:
        """Index the events.

        Args:
            events: the events, any order.
        """
        self._by_broker: dict[int, list[BrokerEvent]] = {}
        for event in sorted(events, key=lambda e: (e.time_ms, e.ref)):
            self._by_broker.setdefault(event.broker, []).append(event)
        self._times = {b: [e.time_ms for e in items] for b, items in self._by_broker.items()}

    def near(self, broker: int, time: int, before_ms: int, after_ms: int) -> list[BrokerEvent]:
        """The broker's events in ``[time - before_ms, time + after_ms]``, in time order."""
        times = self._times.get(broker)
        if not times:
            return []
        low = bisect.bisect_left(times, time - before_ms)
        high = bisect.bisect_right(times, time + after_ms)
        return self._by_broker[broker][low:high]

    def __len__(self) -> int:
        return sum(len(items) for items in self._by_broker.values())


def broker_events(facts: Iterable[ClusterFact]) -> BrokerEvents:
    """The broker-down and controlled-shutdown events in a cluster's facts.

    Args:
        facts: the cluster's facts.

    Returns:
        The index (session ends are attributed to the broker that registered the session).
    """
    owners: dict[int, int] = {}
    events: list[BrokerEvent] = []
    for fact in sorted(facts, key=ClusterFact.order_key):
        if fact.time_ms is None:
            continue
        if fact.kind is ClusterFactKind.session_registered and fact.session and fact.broker:
            owners[fact.session] = fact.broker
        elif fact.kind is ClusterFactKind.broker_down and fact.broker is not None:
            what = _DOWN_DETAIL.get(fact.detail or "", fact.detail or "deregistered")
            events.append(BrokerEvent(fact.time_ms, fact.broker, what, fact.ref))
        elif fact.kind is ClusterFactKind.shutting_down_add and fact.broker is not None:
            events.append(BrokerEvent(fact.time_ms, fact.broker, "controlled_shutdown", fact.ref))
        elif fact.kind is ClusterFactKind.session_closed and fact.session is not None:
            owner = owners.get(fact.session)
            if owner is not None:
                what = "session_expired" if fact.detail == "session_expired" else "session_closed"
                events.append(BrokerEvent(fact.time_ms, owner, what, fact.ref))
    return BrokerEvents(events)


_WORST = ("failed", "session_expired", "fenced", "session_closed", "controlled_shutdown")


def being_deleted(interval: TimelineRow) -> bool:
    """Whether the interval is of a partition gone (``NonExistentPartition``) or being deleted
    (leader -2)."""
    return interval.state == "NonExistentPartition" or interval.leader == -2


def _offline(interval: TimelineRow) -> bool:
    if being_deleted(interval):
        return False
    return interval.leader == -1 or interval.state == "OfflinePartition"


def _cause(
    prev_leader: int | None,
    start: int,
    end: int | None,
    failures: Sequence[ElectionRow],
    events: BrokerEvents,
) -> str:
    parts: list[str] = []
    if prev_leader is not None and prev_leader >= 0:
        near = events.near(prev_leader, start, _WINDOW_MS, _WINDOW_MS)
        if near:
            whats = {e.what for e in near}
            what = next((w for w in _WORST if w in whats), near[0].what)
            parts.append(f"leader broker {prev_leader} {what.replace('_', ' ')}")
    limit = end if end is not None else start + _WINDOW_MS
    for election in failures:
        at = election.elected_at_ms
        if at is None or not start - _WINDOW_MS <= at <= limit:
            continue
        text = f"{election.trigger} election found no leader"
        if election.isr_before is not None and election.live_brokers is not None:
            live_isr = [b for b in election.isr_before if b in election.live_brokers]
            if not live_isr:
                text += f" (no live ISR member of {list(election.isr_before)}"
                if election.unclean_setting is False:
                    text += ", unclean election disabled"
                text += ")"
        parts.append(text)
        break
    if not parts:
        parts.append(
            "leader -1 written" if prev_leader is not None else "no leader when first seen"
        )
    return "; ".join(parts)


def _ended_by(next_interval: TimelineRow | None, elections: Sequence[ElectionRow], end: int) -> str:
    if next_interval is None:
        return "evidence ends"
    if being_deleted(next_interval):
        return "topic deleted"
    best: ElectionRow | None = None
    for election in elections:
        at = election.elected_at_ms
        if election.failed or at is None or abs(at - end) > _WINDOW_MS:
            continue
        if best is None or abs(at - end) < abs((best.elected_at_ms or 0) - end):
            best = election
    if best is None:
        return "leader elected"
    return f"{'unclean ' if best.unclean else ''}{best.trigger} election"


def partitions_of(timeline: Iterable[TimelineRow]) -> dict[tuple[str, int], list[TimelineRow]]:
    """Intervals by ``(topic, partition)``, each partition's in time order (undated ones left
    out)."""
    by_partition: dict[tuple[str, int], list[TimelineRow]] = {}
    for interval in timeline:
        if interval.valid_from_ms is not None:
            by_partition.setdefault((interval.topic, interval.partition), []).append(interval)
    for intervals in by_partition.values():
        intervals.sort(key=lambda iv: iv.valid_from_ms or 0)
    return by_partition


def offline_intervals(
    timeline: Iterable[TimelineRow],
    elections: Iterable[ElectionRow] = (),
    events: BrokerEvents | None = None,
    until_ms: int | None = None,
    deletion: Mapping[str, Sequence[tuple[int, bool]]] | None = None,
) -> list[OfflineInterval]:
    """The offline intervals of some partitions.

    A topic being deleted is out of Kafka's ``OfflinePartitionsCount`` (the ZooKeeper
    controller's count skips topics queued for deletion, and since 2.4 drops them from it when
    their deletion begins, ``ControllerContext.beginTopicDeletion``): the leader -1 its deletion
    writes is no outage, and an outage ends when the deletion begins.

    Args:
        timeline: the partitions' intervals (any order).
        elections: their ``gold.elections`` rows (``actual`` ones are read).
        events: the cluster's broker events (``broker_events``).
        until_ms: the end of the evidence, for the duration of intervals still open.
        deletion: topic -> its ``deletion_steps``.

    Returns:
        One row per offline stretch, ordered by start, topic and partition.
    """
    known = events or BrokerEvents()
    elections_of: dict[tuple[str, int], list[ElectionRow]] = {}
    for election in elections:
        if election.scenario == "actual":
            elections_of.setdefault((election.topic, election.partition), []).append(election)
    out: list[OfflineInterval] = []
    for key, intervals in partitions_of(timeline).items():
        mine = elections_of.get(key, [])
        failures = [e for e in mine if e.failed]
        index = 0
        while index < len(intervals):
            if not _offline(intervals[index]):
                index += 1
                continue
            first = index
            while index + 1 < len(intervals) and _offline(intervals[index + 1]):
                index += 1
            last = index
            index += 1
            start = intervals[first].valid_from_ms or 0
            following = intervals[index] if index < len(intervals) else None
            end = following.valid_from_ms if following is not None else intervals[last].valid_to_ms
            steps = (deletion or {}).get(key[0], ())
            if deleting_at(steps, start):
                continue
            begun = next(
                (t for t, on in steps if on and start < t and (end is None or t < end)), None
            )
            if begun is not None:
                end, following = begun, None
            previous = intervals[first - 1] if first > 0 else None
            prev_leader = previous.leader if previous is not None else None
            open_ended = end is None
            stop = end if end is not None else until_ms
            duration = None if stop is None else max(0, stop - start) / 1000
            evidence = [intervals[first].evidence]
            if following is not None:
                evidence.append(following.evidence)
            next_leader = following.leader if following is not None else None
            out.append(
                OfflineInterval(
                    cluster=intervals[first].cluster,
                    topic=key[0],
                    partition=key[1],
                    offline_from_ms=start,
                    offline_to_ms=end,
                    duration_seconds=duration,
                    open_ended=open_ended,
                    prev_leader=prev_leader,
                    next_leader=next_leader
                    if next_leader is not None and next_leader >= 0
                    else None,
                    isr_at_start=intervals[first].isr,
                    assignment=intervals[first].assignment,
                    cause=_cause(prev_leader, start, end, failures, known),
                    ended_by="evidence ends"
                    if open_ended
                    else "topic deletion began"
                    if begun is not None
                    else _ended_by(following, mine, end or start),
                    evidence=tuple(e for e in evidence if e),
                )
            )
    out.sort(key=lambda r: (r.offline_from_ms, r.topic, r.partition))
    return out


def offline_steps(intervals: Iterable[OfflineInterval]) -> list[tuple[int, int]]:
    """The number of offline partitions over time, as a step function.

    Args:
        intervals: offline intervals of one cluster.

    Returns:
        ``(time, count)`` at every moment the count changes, in time order; open intervals
        never end.
    """
    return count_steps((i.offline_from_ms, i.offline_to_ms) for i in intervals)


def count_steps(spans: Iterable[tuple[int, int | None]]) -> list[tuple[int, int]]:
    """How many spans are open over time.

    Args:
        spans: ``(start, end)`` pairs; ``end`` ``None`` never closes.

    Returns:
        ``(time, count)`` at every moment the count changes, in time order.
    """
    changes: dict[int, int] = {}
    for start, end in spans:
        changes[start] = changes.get(start, 0) + 1
        if end is not None:
            changes[end] = changes.get(end, 0) - 1
    out: list[tuple[int, int]] = []
    count = 0
    for time in sorted(changes):
        if changes[time] == 0:
            continue
        count += changes[time]
        out.append((time, count))
    return out
