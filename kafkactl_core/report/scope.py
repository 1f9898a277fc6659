"""What a report covers: a time window, a topic glob and brokers (``report --from/--to/--topic
/--broker``).

The gold tables always hold the whole evidence; a scope narrows what the report files, the
console or JSON summary and ``--fail-on`` look at. A row is in scope when it falls in the window
(an interval: when it overlaps it), its topic matches the glob and it involves one of the
brokers (a leader before or after, a replica, the broker itself, the controller).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Protocol

__all__ = ["ReportScope", "ScopedElection", "parse_time"]


class ScopedElection(Protocol):
    """What a scope reads of an election (``ElectionRow`` and ``UncleanRow`` have it)."""

    @property
    def elected_at_ms(self) -> int | None: ...

    @property
    def topic(self) -> str: ...

    @property
    def prev_leader(self) -> int | None: ...

    @property
    def new_leader(self) -> int: ...


def parse_time(text: str, option: str) -> datetime:
    """A time given on the command line, as an aware UTC time.

    Args:
        text: ISO 8601: ``2024-03-05``, ``2024-03-05T10:00``, ``2024-03-05 10:00:00+01:00``,
            ``...Z``; without an offset the time is UTC.
        option: the option it was given to, for the error.

    Returns:
        The time, in UTC.

    Raises:
        ValueError: text that is not such a time.
    """
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"{option}: not an ISO 8601 date or time: {text!r} (e.g. 2024-03-05T22:00)"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


@dataclass(frozen=True)
class ReportScope:
    """The part of the evidence a report covers; the default covers everything.

    Attributes:
        from_ms: the window's start (inclusive, UTC ms), ``None`` for the evidence's start.
        to_ms: the window's end (exclusive, UTC ms), ``None`` for the evidence's end.
        topic: a shell glob topics must match (``orders-*``), ``None`` for every topic.
        brokers: the brokers rows must involve; empty for every broker.
    """

    from_ms: int | None = None
    to_ms: int | None = None
    topic: str | None = None
    brokers: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        """Refuse a window that ends before it starts."""
        if self.from_ms is not None and self.to_ms is not None and self.to_ms <= self.from_ms:
            raise ValueError("--to must be after --from")

    @property
    def whole(self) -> bool:
        """Whether the scope covers everything (no window, topic or broker given)."""
        return self == ReportScope()

    @property
    def topic_pattern(self) -> str | None:
        """The topic glob as a regular expression Python and Spark (Java) read alike.

        Anchored at both ends, as Spark's ``rlike`` finds a match anywhere; fnmatch's
        translation uses ``(?s:...)``, atomic groups and ``\\Z``, all of which Java has too.
        """
        if self.topic is None:
            return None
        return "^" + fnmatch.translate(self.topic)

    def clip(self, start: int | None, end: int | None) -> tuple[int | None, int | None]:
        """The evidence range ``(start, end)`` narrowed to the window."""
        if self.from_ms is not None:
            start = self.from_ms if start is None else max(start, self.from_ms)
        if self.to_ms is not None:
            end = self.to_ms if end is None else min(end, self.to_ms)
        return start, end

    def at(self, time_ms: int | None) -> bool:
        """Whether a moment is in the window (an unknown moment is in a whole window only)."""
        if time_ms is None:
            return self.from_ms is None and self.to_ms is None
        return (self.from_ms is None or time_ms >= self.from_ms) and (
            self.to_ms is None or time_ms < self.to_ms
        )

    def overlaps(self, start_ms: int | None, end_ms: int | None) -> bool:
        """Whether an interval (``end_ms`` ``None``: still open) overlaps the window."""
        starts_in_time = self.to_ms is None or start_ms is None or start_ms < self.to_ms
        ends_in_time = self.from_ms is None or end_ms is None or end_ms >= self.from_ms
        return starts_in_time and ends_in_time

    def covers_day(self, day: date) -> bool:
        """Whether a UTC day is one the window touches."""
        first = None if self.from_ms is None else _day(self.from_ms)
        last = None if self.to_ms is None else _day(self.to_ms - 1)
        return (first is None or day >= first) and (last is None or day <= last)

    def covers_topic(self, topic: str | None) -> bool:
        """Whether a topic matches the glob (a row without a topic only when none is given)."""
        pattern = self.topic_pattern
        if pattern is None:
            return True
        return topic is not None and re.match(pattern, topic) is not None

    def involves(self, brokers: Iterable[int | None]) -> bool:
        """Whether any of a row's brokers is one of the scope's (any, when none is given)."""
        if not self.brokers:
            return True
        return any(broker in self.brokers for broker in brokers if broker is not None)

    def covers_election(self, election: ScopedElection) -> bool:
        """Whether an election is in scope: in the window, of a matching topic, with a leader
        before or after among the brokers."""
        return (
            self.at(election.elected_at_ms)
            and self.covers_topic(election.topic)
            and self.involves([election.prev_leader, election.new_leader])
        )

    def describe(self) -> str:
        """The scope in words for the console, e.g. ``topic orders-*, brokers 1, 3``."""
        parts: list[str] = []
        if self.from_ms is not None:
            parts.append(f"from {_iso(self.from_ms)}")
        if self.to_ms is not None:
            parts.append(f"to {_iso(self.to_ms)}")
        if self.topic is not None:
            parts.append(f"topic {self.topic}")
        if self.brokers:
            parts.append(
                "broker"
                + ("s " if len(self.brokers) > 1 else " ")
                + ", ".join(str(b) for b in self.brokers)
            )
        return ", ".join(parts) or "everything"


def _day(time_ms: int) -> date:
    return datetime.fromtimestamp(time_ms / 1000, UTC).date()


def _iso(time_ms: int) -> str:
    return datetime.fromtimestamp(time_ms / 1000, UTC).isoformat(timespec="seconds")
