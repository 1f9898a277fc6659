"""Where rendered lines go: per-broker log files, written as they are produced.

``LogDirectory`` appends to ``<root>/broker-<id>/{controller,state-change,server}.log`` through
a small pool of open files (least recently used closed first), so memory and file handles stay
bounded whatever the number of brokers. ``Emitter`` stamps each line with the simulated clock in
Kafka's default layout ``[%d] %p %m (%c)`` and, for tests, can keep what every line was meant
to be (``Expect``) next to its text.
"""

from __future__ import annotations

import enum
import os
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol, TextIO

from kafkactl_lab.simulate.clock import Clock, Log4jTimestamps


class LogFile(enum.Enum):
    """The three files a broker writes with Kafka's default ``log4j.properties``."""

    controller = "controller.log"
    state_change = "state-change.log"
    server = "server.log"


class LineSink(Protocol):
    """Receives finished lines."""

    def write(self, broker: int, file: LogFile, text: str) -> None:
        """Append ``text`` (one record, newline included) to a broker's file."""
        ...

    def close(self) -> None:
        """Flush and close everything."""
        ...


class LogDirectory:
    """``LineSink`` writing ``<root>/broker-<id>/<file>`` with at most ``max_open`` open files."""

    def __init__(self, root: str | os.PathLike[str], max_open: int = 96) -> None:
        """Write under ``root`` (created when missing); existing files are truncated."""
        self.root = os.fspath(root)
        self.max_open = max_open
        self._open: OrderedDict[tuple[int, LogFile], TextIO] = OrderedDict()
        self._started: set[tuple[int, LogFile]] = set()
        os.makedirs(self.root, exist_ok=True)

    def path(self, broker: int, file: LogFile) -> str:
        """The file of a broker."""
        return os.path.join(self.root, f"broker-{broker}", file.value)

    def _handle(self, key: tuple[int, LogFile]) -> TextIO:
        handle = self._open.get(key)
        if handle is not None:
            self._open.move_to_end(key)
            return handle
        if len(self._open) >= self.max_open:
            _, oldest = self._open.popitem(last=False)
            oldest.close()
        path = self.path(*key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        mode = "a" if key in self._started else "w"
        self._started.add(key)
        handle = _open_text(path, mode)
        self._open[key] = handle
        return handle

    def touch(self, broker: int) -> None:
        """Create a broker's three files (empty when it writes nothing)."""
        for file in LogFile:
            self._handle((broker, file))

    def write(self, broker: int, file: LogFile, text: str) -> None:
        """Append a record."""
        self._handle((broker, file)).write(text)

    def close(self) -> None:
        """Close every open file."""
        while self._open:
            _, handle = self._open.popitem()
            handle.close()


@dataclass(frozen=True, slots=True)
class Expect:
    """What a rendered line must parse to: an event type (or ignored family) and some fields."""

    kind: str
    fields: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class Rendered:
    """A line as written, with its expectation (collected only when a test asks for it)."""

    broker: int
    file: LogFile
    text: str
    expect: Expect | None


class Emitter:
    """Formats records in ``[%d] %p %m (%c)`` at the clock's next tick and hands them on."""

    __slots__ = ("clock", "collected", "count", "sink", "stamps")

    def __init__(self, sink: LineSink, clock: Clock, collect: bool = False) -> None:
        """Emit to ``sink``; with ``collect`` keep every ``Rendered`` line in ``collected``."""
        self.sink = sink
        self.clock = clock
        self.stamps = Log4jTimestamps()
        self.collected: list[Rendered] | None = [] if collect else None
        self.count = 0

    def emit(
        self,
        broker: int,
        file: LogFile,
        level: str,
        logger: str,
        message: str,
        expect: Expect | None = None,
        throwable: str | None = None,
    ) -> None:
        """Write one record.

        Args:
            broker: the writing broker.
            file: which of its files.
            level: ``TRACE``, ``DEBUG``, ``INFO``, ``WARN`` or ``ERROR``.
            logger: the logger name (``%c``).
            message: the message (``%m``).
            expect: what the line must parse to (kept only when collecting).
            throwable: an exception's text, printed after the layout's line as log4j does.
        """
        ms = self.clock.tick() // 1000
        text = f"[{self.stamps.stamp(ms)}] {level} {message} ({logger})\n"
        if throwable:
            text += throwable + "\n"
        self.sink.write(broker, file, text)
        self.count += 1
        if self.collected is not None:
            self.collected.append(Rendered(broker, file, text, expect))


def _open_text(path: str, mode: str) -> TextIO:
    """Open a log file that the pool keeps open across writes (closed by ``LogDirectory``)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else os.O_TRUNC)
    return os.fdopen(os.open(path, flags, 0o644), "w", encoding="utf-8", newline="\n")
