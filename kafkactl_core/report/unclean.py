"""Unclean elections: every election of an out-of-sync replica, with its exposure, and rollups.

An election is unclean when the new leader was not in the ISR just before it
(``gold.elections.unclean``). Its *exposure* is the time between the moment the new leader last
left the ISR and the election: writes acknowledged in that window may be missing from the new
leader's log and are truncated away on the other replicas. The replay computes it where it saw
the ISR shrink (``exposure_source = replay``); otherwise it is recomputed here from the
partition's ISR history in ``gold.partition_timeline`` (``timeline``). ``offline_seconds`` says
how long the partition waited without a leader before the unclean election.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kafkactl_core.replay.rows import ElectionRow, TimelineRow
from kafkactl_core.report.daily import day_of
from kafkactl_core.report.rows import UncleanDailyRow, UncleanRow

__all__ = ["left_isr_at", "offline_before", "unclean_daily", "unclean_rows"]


def _before(timeline: Iterable[TimelineRow], time: int) -> list[TimelineRow]:
    """The intervals that began strictly before ``time``, in order."""
    return sorted(
        (iv for iv in timeline if iv.valid_from_ms is not None and iv.valid_from_ms < time),
        key=lambda iv: iv.valid_from_ms or 0,
    )


def left_isr_at(timeline: Iterable[TimelineRow], broker: int, time: int) -> int | None:
    """When ``broker`` last left the partition's ISR before ``time``.

    Args:
        timeline: the partition's intervals.
        broker: the replica.
        time: the election (UTC ms).

    Returns:
        The start of the first interval without ``broker`` in the ISR after the last interval
        with it, ``None`` when the evidence never shows it in the ISR, or shows it there until
        ``time``, or shows no ISR after it.
    """
    left: int | None = None
    seen_in = False
    for interval in _before(timeline, time):
        isr = interval.isr
        if isr is None:
            continue
        if broker in isr:
            seen_in, left = True, None
        elif seen_in and left is None:
            left = interval.valid_from_ms
    return left


def offline_before(timeline: Iterable[TimelineRow], time: int) -> float | None:
    """How long the partition had had no leader when a leader was elected at ``time``.

    Args:
        timeline: the partition's intervals.
        time: the election (UTC ms).

    Returns:
        Seconds since the leader became -1 (0.0 when the interval just before had a leader),
        ``None`` when no interval precedes the election or its leader is unknown.
    """
    intervals = _before(timeline, time)
    if not intervals or intervals[-1].leader is None:
        return None
    start: int | None = None
    for interval in reversed(intervals):
        if interval.leader != -1:
            break
        start = interval.valid_from_ms
    return 0.0 if start is None else (time - start) / 1000


def unclean_rows(
    elections: Iterable[ElectionRow], timeline: Sequence[TimelineRow] = ()
) -> list[UncleanRow]:
    """The ``gold.unclean_elections`` rows of some elections.

    Args:
        elections: ``gold.elections`` rows (only ``actual`` unclean elections of a leader are
            kept).
        timeline: the intervals of the partitions concerned (any others are ignored).

    Returns:
        One row per unclean election, ordered by time, topic and partition.
    """
    by_partition: dict[tuple[str, int], list[TimelineRow]] = {}
    for interval in timeline:
        by_partition.setdefault((interval.topic, interval.partition), []).append(interval)
    out: list[UncleanRow] = []
    for election in elections:
        if election.scenario != "actual" or election.unclean is not True or election.failed:
            continue
        intervals = by_partition.get((election.topic, election.partition), [])
        at = election.elected_at_ms
        left = election.new_leader_left_isr_ms
        exposure = election.exposure_seconds
        source: str | None = "replay"
        if left is None or exposure is None:
            left = None if at is None else left_isr_at(intervals, election.new_leader, at)
            exposure = None if left is None or at is None else (at - left) / 1000
            source = None if exposure is None else "timeline"
        out.append(
            UncleanRow(
                cluster=election.cluster,
                topic=election.topic,
                partition=election.partition,
                elected_at_ms=at,
                day=None if at is None else day_of(at),
                controller_id=election.controller_id,
                controller_epoch=election.controller_epoch,
                trigger=election.trigger,
                prev_leader=election.prev_leader,
                new_leader=election.new_leader,
                leader_epoch=election.leader_epoch,
                isr_before=election.isr_before,
                isr_after=election.isr_after,
                assignment=election.assignment,
                live_brokers=election.live_brokers,
                unclean_setting=election.unclean_setting,
                unclean_setting_source=election.unclean_setting_source,
                new_leader_left_isr_ms=left,
                exposure_seconds=exposure,
                exposure_source=source,
                offline_seconds=None if at is None else offline_before(intervals, at),
                high_watermark=election.high_watermark,
                new_leader_start_offset=election.new_leader_start_offset,
                offsets_at_risk=election.offsets_at_risk,
                expected_leader=election.expected_leader,
                agrees=election.agrees,
                evidence=election.evidence,
                detail=election.detail,
            )
        )
    out.sort(key=lambda r: (r.elected_at_ms or 0, r.topic, r.partition))
    return out


def unclean_daily(rows: Iterable[UncleanRow]) -> list[UncleanDailyRow]:
    """Unclean elections per UTC day and topic (``gold.unclean_elections_daily``).

    Args:
        rows: ``unclean_rows`` of one cluster (rows without a time are left out: they have no
            day).

    Returns:
        One row per day and topic, ordered by day then topic.
    """
    groups: dict[tuple[object, str], list[UncleanRow]] = {}
    for row in rows:
        if row.day is not None:
            groups.setdefault((row.day, row.topic), []).append(row)
    out: list[UncleanDailyRow] = []
    for (_, topic), items in groups.items():
        exposures = [r.exposure_seconds for r in items if r.exposure_seconds is not None]
        offsets = [r.offsets_at_risk for r in items if r.offsets_at_risk is not None]
        times = [r.elected_at_ms for r in items if r.elected_at_ms is not None]
        first = items[0]
        out.append(
            UncleanDailyRow(
                cluster=first.cluster,
                day=first.day or day_of(0),
                topic=topic,
                unclean_elections=len(items),
                partitions=len({r.partition for r in items}),
                max_exposure_seconds=max(exposures) if exposures else None,
                total_exposure_seconds=float(sum(exposures)),
                unknown_exposure=len(items) - len(exposures),
                offsets_at_risk=sum(offsets) if offsets else None,
                first_at_ms=min(times) if times else None,
                last_at_ms=max(times) if times else None,
                setting_sources=tuple(
                    sorted({r.unclean_setting_source or "unknown" for r in items})
                ),
            )
        )
    out.sort(key=lambda r: (r.day, r.topic))
    return out
