"""Daily rollup of leader imbalance per broker: the highest ratio, time above the threshold,
the checks the controller logged and the preferred elections that moved leadership back.

Each ``gold.leader_imbalance`` row of a broker holds until that broker's next row (the last one
until the end of the evidence); the span is cut at UTC midnight and each piece counts for its
own day, so a ratio in force across midnight counts for both days.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Protocol

from kafkactl_core.report.rows import ImbalanceDailyRow, ImbalanceRow

__all__ = [
    "ElectionOutcome",
    "day_of",
    "imbalance_daily",
    "moved_by_preference",
    "preferred_elections_by_day",
    "preferred_moves",
]

_DAY_MS = 86_400_000


def day_of(time_ms: int) -> date:
    """The UTC day of a moment."""
    return datetime.fromtimestamp(time_ms / 1000, tz=UTC).date()


def _pieces(start: int, end: int) -> Iterable[tuple[int, int]]:
    """``[start, end)`` cut at UTC midnights (a zero-length span yields one empty piece)."""
    if end <= start:
        yield start, start
        return
    cursor = start
    while cursor < end:
        midnight = (cursor // _DAY_MS + 1) * _DAY_MS
        stop = min(midnight, end)
        yield cursor, stop
        cursor = stop


@dataclass
class _Day:
    observations: int = 0
    max_ratio: float | None = None
    max_ratio_at: int | None = None
    above_ms: int = 0
    observed_ms: int = 0
    checks: int = 0
    over: int = 0
    mismatches: int = 0
    leaders_min: int | None = None
    leaders_max: int | None = None


class ElectionOutcome(Protocol):
    """What the preferred-election rule reads of an election (``ElectionRow`` has it)."""

    @property
    def scenario(self) -> str: ...

    @property
    def trigger(self) -> str: ...

    @property
    def new_leader(self) -> int: ...

    @property
    def elected_at_ms(self) -> int | None: ...


def moved_by_preference(election: ElectionOutcome) -> bool:
    """Whether an election is an ``actual`` preferred election that moved leadership to a broker
    at a known moment: the ones the daily rollup counts and the rebalances look for."""
    return (
        election.scenario == "actual"
        and election.trigger == "preferred"
        and election.new_leader >= 0
        and election.elected_at_ms is not None
    )


def preferred_moves(elections: Iterable[ElectionOutcome]) -> Iterator[tuple[int, int]]:
    """The broker each election ``moved_by_preference`` made leader, and when (UTC ms)."""
    for election in elections:
        if election.elected_at_ms is not None and moved_by_preference(election):
            yield election.new_leader, election.elected_at_ms


def preferred_elections_by_day(
    elections: Iterable[ElectionOutcome],
) -> dict[tuple[int, date], int]:
    """Preferred elections that moved leadership to a broker, per (broker, UTC day).

    Args:
        elections: ``gold.elections`` rows (only those ``moved_by_preference`` count).

    Returns:
        ``(broker, day) -> count``.
    """
    out: dict[tuple[int, date], int] = {}
    for broker, elected_at_ms in preferred_moves(elections):
        key = (broker, day_of(elected_at_ms))
        out[key] = out.get(key, 0) + 1
    return out


def imbalance_daily(
    rows: Iterable[ImbalanceRow],
    until_ms: int,
    preferred_elections: Mapping[tuple[int, date], int] | None = None,
) -> list[ImbalanceDailyRow]:
    """The daily rollup of ``gold.leader_imbalance`` rows.

    Args:
        rows: rows of one or more brokers of one cluster (any order).
        until_ms: the end of the evidence: the last row of each broker holds until then.
        preferred_elections: ``preferred_elections_by_day`` of the cluster.

    Returns:
        One row per broker and day with a row or a span, ordered by day then broker.
    """
    elections = preferred_elections or {}
    by_broker: dict[int, list[ImbalanceRow]] = {}
    cluster = ""
    threshold = 0.0
    for row in rows:
        by_broker.setdefault(row.broker, []).append(row)
        cluster, threshold = row.cluster, row.threshold
    out: list[ImbalanceDailyRow] = []
    for broker, items in by_broker.items():
        items.sort(key=lambda r: (r.observed_at_ms, r.observation != "check"))
        days: dict[date, _Day] = {}
        for index, row in enumerate(items):
            day = days.setdefault(day_of(row.observed_at_ms), _Day())
            day.observations += 1
            if row.logged_ratio is not None:
                day.checks += 1
                day.over += row.logged_ratio > row.threshold
                day.mismatches += row.logged_matches is False
            end = items[index + 1].observed_at_ms if index + 1 < len(items) else until_ms
            for start, stop in _pieces(row.observed_at_ms, max(end, row.observed_at_ms)):
                piece = days.setdefault(day_of(start), _Day())
                length = stop - start
                piece.observed_ms += length
                if row.would_trigger:
                    piece.above_ms += length
                ratio = row.imbalance_ratio
                if ratio is not None and (piece.max_ratio is None or ratio > piece.max_ratio):
                    piece.max_ratio, piece.max_ratio_at = ratio, start
                leaders = row.leaders
                if piece.leaders_min is None or leaders < piece.leaders_min:
                    piece.leaders_min = leaders
                if piece.leaders_max is None or leaders > piece.leaders_max:
                    piece.leaders_max = leaders
        for when, acc in days.items():
            out.append(
                ImbalanceDailyRow(
                    cluster=cluster,
                    day=when,
                    broker=broker,
                    observations=acc.observations,
                    max_ratio=acc.max_ratio,
                    max_ratio_at_ms=acc.max_ratio_at,
                    seconds_above_threshold=acc.above_ms / 1000,
                    observed_seconds=acc.observed_ms / 1000,
                    checks_logged=acc.checks,
                    checks_over_threshold=acc.over,
                    check_mismatches=acc.mismatches,
                    preferred_elections=elections.get((broker, when), 0),
                    leaders_min=acc.leaders_min,
                    leaders_max=acc.leaders_max,
                    threshold=threshold,
                )
            )
    out.sort(key=lambda r: (r.day, r.broker))
    return out
