"""Simulated time: a monotonic microsecond clock and log4j's ``%d`` rendering.

Every line and every ZooKeeper write takes the clock's next tick, so each file is in time order
and the history's order is the order of the writes. ``%d`` with no option is log4j's ISO8601
format ``yyyy-MM-dd HH:mm:ss,SSS`` in the cluster's time zone (UTC here).
"""

from __future__ import annotations

import datetime as dt

UTC = dt.timezone(dt.timedelta(0), "UTC")
"""The cluster's time zone (log4j renders ``%d`` in local time; simulated brokers run in UTC)."""

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)


class Clock:
    """Simulated time in microseconds since the Unix epoch; never goes back."""

    __slots__ = ("now_us", "step_us")

    def __init__(self, start_us: int, step_us: int = 120) -> None:
        """Start at ``start_us``; each ``tick`` moves ``step_us`` forward."""
        self.now_us = start_us
        self.step_us = step_us

    def advance_to(self, t_us: int) -> None:
        """Move to ``t_us`` unless the clock is already past it (work still in progress)."""
        if t_us > self.now_us:
            self.now_us = t_us

    def tick(self, step_us: int | None = None) -> int:
        """Move forward one step and return the new time (µs)."""
        self.now_us += self.step_us if step_us is None else step_us
        return self.now_us

    @property
    def now_ms(self) -> int:
        """The current time in milliseconds."""
        return self.now_us // 1000


def to_us(moment: dt.datetime) -> int:
    """A timezone-aware datetime as microseconds since the Unix epoch."""
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_ms(ms: int) -> dt.datetime:
    """Milliseconds since the epoch as an aware UTC datetime."""
    return _EPOCH + dt.timedelta(milliseconds=ms)


def iso_ms(ms: int) -> str:
    """``2024-03-05T10:00:00.123Z``."""
    return from_ms(ms).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


class Log4jTimestamps:
    """Renders ``[%d]`` stamps, formatting each second once."""

    __slots__ = ("_second", "_text")

    def __init__(self) -> None:
        self._second = -1
        self._text = ""

    def stamp(self, ms: int) -> str:
        """``2024-03-05 10:00:00,123`` for ``ms`` since the epoch (UTC)."""
        second, millis = divmod(ms, 1000)
        if second != self._second:
            self._second = second
            self._text = (_EPOCH + dt.timedelta(seconds=second)).strftime("%Y-%m-%d %H:%M:%S")
        return f"{self._text},{millis:03d}"
