"""Under-replicated and under-min-ISR intervals, and the daily ISR churn, from the partitions'
timelines (``gold.under_replicated``, ``gold.isr_churn_daily``).

Only partitions with a leader count, as in Kafka's ``UnderReplicatedPartitions`` and
``UnderMinIsrPartitionCount`` (the leader reports them); a partition without one is in
``gold.offline_intervals``. The replicas are the timeline's assignment: during a reassignment
that includes the replicas being added until they join the ISR. ``min.insync.replicas`` is the
one in force for the topic at each interval (``ClusterTimelines.min_isr_setting``), capped at
the replicas as KRaft's ``getTopicEffectiveMinIsr`` caps it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kafkactl_core.replay.rows import TimelineRow
from kafkactl_core.replay.timelines import ClusterTimelines
from kafkactl_core.report.daily import day_of
from kafkactl_core.report.imbalance import deleting_at
from kafkactl_core.report.offline import being_deleted, partitions_of
from kafkactl_core.report.rows import IsrChurnDailyRow, UnderReplicatedInterval

__all__ = [
    "CONDITIONS",
    "MinIsr",
    "MinIsrInForce",
    "isr_churn_daily",
    "under_replicated_intervals",
]

CONDITIONS = ("under_replicated", "under_min_isr")
"""``UnderReplicatedInterval.condition`` values."""

MinIsr = Callable[[str, int], tuple[int, str]]
"""``min.insync.replicas`` in force for a topic at a time, and where it came from."""


@dataclass(frozen=True)
class MinIsrInForce:
    """``min.insync.replicas`` in force from a cluster's configuration facts (a ``MinIsr``).

    Attributes:
        timelines: the cluster's timelines (its topic and broker configs).
        default: the configured default (``kafka_defaults``), if any.
    """

    timelines: ClusterTimelines
    default: int | None = None

    def __call__(self, topic: str, time: int) -> tuple[int, str]:
        """The value for ``topic`` at ``time`` and its source (the cluster-wide broker config,
        the controller's own being unknown here)."""
        return self.timelines.min_isr_setting(topic, time, self.default, None)


@dataclass
class _Open:
    first: TimelineRow
    min_isr: tuple[int, str]
    smallest: int
    out_of_sync: set[int] = field(default_factory=set)


def _led(interval: TimelineRow) -> bool:
    return (
        interval.leader is not None
        and interval.leader >= 0
        and interval.isr is not None
        and bool(interval.assignment)
        and interval.state != "NonExistentPartition"
    )


def _holds(condition: str, interval: TimelineRow, min_isr: int) -> bool:
    isr = interval.isr or ()
    replicas = interval.assignment or ()
    if condition == "under_replicated":
        return any(replica not in isr for replica in replicas)
    return len(isr) < min(min_isr, len(replicas))


def under_replicated_intervals(
    timeline: Iterable[TimelineRow], min_isr: MinIsr, until_ms: int | None
) -> list[UnderReplicatedInterval]:
    """The under-replicated and under-min-ISR stretches of some partitions.

    Args:
        timeline: the partitions' intervals (any order).
        min_isr: ``min.insync.replicas`` in force for a topic at a time.
        until_ms: the end of the evidence, for the duration of stretches still open.

    Returns:
        One row per stretch and condition, ordered by start, topic, partition and condition.
    """
    out: list[UnderReplicatedInterval] = []
    for intervals in partitions_of(timeline).values():
        open_: dict[str, _Open] = {}
        for interval in intervals:
            # one lookup per led interval, shared by both conditions
            setting = (
                min_isr(interval.topic, interval.valid_from_ms or 0) if _led(interval) else None
            )
            isr = interval.isr or ()
            for condition in CONDITIONS:
                current = open_.get(condition)
                if setting is not None and _holds(condition, interval, setting[0]):
                    if current is None:
                        current = open_[condition] = _Open(interval, setting, len(isr))
                    current.smallest = min(current.smallest, len(isr))
                    current.out_of_sync.update(r for r in interval.assignment or () if r not in isr)
                elif current is not None:
                    out.append(_row(condition, open_.pop(condition), interval, until_ms))
        out += [_row(condition, current, None, until_ms) for condition, current in open_.items()]
    out.sort(key=lambda r: (r.under_from_ms, r.topic, r.partition, r.condition))
    return out


def _row(
    condition: str, stretch: _Open, following: TimelineRow | None, until_ms: int | None
) -> UnderReplicatedInterval:
    first = stretch.first
    start = first.valid_from_ms or 0
    end = None if following is None else following.valid_from_ms
    stop = end if end is not None else until_ms
    evidence = [first.evidence] + ([following.evidence] if following is not None else [])
    duration = None if stop is None else max(0, stop - start) / 1000
    setting, source = stretch.min_isr
    return UnderReplicatedInterval(
        first.cluster, first.topic, first.partition, condition, start, end, duration,
        end is None, first.leader, first.assignment or (), first.isr or (), stretch.smallest,
        tuple(sorted(stretch.out_of_sync)), setting, source, tuple(e for e in evidence if e),
    )  # fmt: skip


def isr_churn_daily(
    timeline: Iterable[TimelineRow],
    deletion: Mapping[str, Sequence[tuple[int, bool]]] | None = None,
) -> list[IsrChurnDailyRow]:
    """Each replica's ISR shrinks and expands per partition and UTC day.

    A shrink is a replica in one interval's ISR and not in the next one's, an expand the
    reverse; an interval whose ISR is unknown, or a partition being deleted (its topic in the
    deletion queue, a leader of -2, or gone), breaks the chain: the controller takes the
    replicas of a topic it deletes out of the ISR, which is no churn.

    Args:
        timeline: the partitions' intervals (any order).
        deletion: topic -> its ``deletion_steps``.

    Returns:
        One row per day, partition and replica that changed, ordered by day, topic, partition
        and broker.
    """
    rows: dict[tuple[str, str, int, int], IsrChurnDailyRow] = {}
    for intervals in partitions_of(timeline).values():
        previous: tuple[int, ...] | None = None
        for interval in intervals:
            at = interval.valid_from_ms
            steps = (deletion or {}).get(interval.topic, ())
            deleting = at is not None and bool(steps) and deleting_at(steps, at)
            isr = None if deleting or being_deleted(interval) else interval.isr
            if previous is not None and isr is not None and at is not None:
                day = day_of(at)
                left = [b for b in previous if b not in isr]
                joined = [b for b in isr if b not in previous]
                for broker in (*left, *joined):
                    key = (day.isoformat(), interval.topic, interval.partition, broker)
                    row = rows.get(key)
                    if row is None:
                        row = rows[key] = IsrChurnDailyRow(
                            interval.cluster, day, key[1], key[2], broker, 0, 0, at, at
                        )
                    if broker in joined:
                        row.expands += 1
                    else:
                        row.shrinks += 1
                    row.first_at_ms = min(row.first_at_ms, at)
                    row.last_at_ms = max(row.last_at_ms, at)
            previous = isr
    return [rows[key] for key in sorted(rows)]
