"""Streaming assembly of physical log lines into log records.

``assemble_records`` turns an iterator of physical lines into an iterator of ``LogRecord``s in
constant memory (one record is held at a time; a record is capped, see below):

* a line that matches the layout's head (``CompiledLayout.start_regex``) starts a record;
* any other line (stack trace, ``Caused by:``/``Suppressed:``, a wrapped message, garbage)
  belongs to the record before it;
* lines before the first record of a file form one *orphan* record
  (``orphan_reason="before_first_record"``) so they are accounted for;
* a record stops growing at ``max_record_lines`` lines or ``max_record_chars`` characters; the
  lines after that form orphan records (``orphan_reason="continuation_overflow"``; an orphan
  run before the first record is cut the same way and keeps its reason). A single physical line
  is never split, whatever its length.

Every physical line ends up in exactly one record: ``sum(r.line_count) == lines read``.

Lines may be ``bytes`` (preferred: read the file in binary mode) or ``str``. Bytes are decoded as
UTF-8; invalid sequences are replaced by U+FFFD and the record is flagged ``invalid_utf8``. A line
terminator is ``\\n`` with an optional preceding ``\\r``; a last line without one is flagged
``truncated`` (a file cut while being written).

For a record that starts properly, the message is the text after the head up to the layout's
tail (``(%c)``) matched at the end of the first line; when the first line has no tail the message
is wrapped and runs to the first following line that ends with one. When no line has the tail,
the record is flagged ``layout_error`` (``truncated_record`` if it is the file's truncated last
record, else ``missing_tail``) and keeps the first line's remainder as its message.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from kafkactl_core.grammars.layout import CompiledLayout

__all__ = [
    "DEFAULT_MAX_RECORD_CHARS",
    "DEFAULT_MAX_RECORD_LINES",
    "LogRecord",
    "assemble_records",
]

DEFAULT_MAX_RECORD_LINES = 10_000
"""Continuation lines beyond this many start an orphan record (memory bound)."""

DEFAULT_MAX_RECORD_CHARS = 16 * 1024 * 1024
"""A record stops taking continuation lines once it holds this many characters."""


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One log record: a record-start line and the physical lines that belong to it.

    Attributes:
        first_line: 1-based number of its first physical line in the file.
        line_count: how many physical lines it spans.
        text: the physical lines, terminators removed, joined with ``\\n``.
        orphan_reason: why the lines belong to no record (``before_first_record``,
            ``continuation_overflow``), ``None`` for a record that starts properly.
        timestamp_text: the ``%d`` text, ``None`` for orphans or layouts without ``%d``.
        timestamp: ``timestamp_text`` parsed (naive; the caller applies the timezone), ``None``
            when absent or not a valid date.
        level: the ``%p`` text.
        message: the ``%m`` text (may span lines for a wrapped message).
        logger: the ``%c`` text.
        thread: the ``%t`` text.
        invalid_utf8: some line was not valid UTF-8 (decoded with replacement characters).
        truncated: the record's last line had no line terminator (end of a cut file).
        layout_error: ``missing_tail`` / ``truncated_record`` when no line ends with the
            layout's tail, else ``None``.
    """

    first_line: int
    line_count: int
    text: str
    orphan_reason: str | None = None
    timestamp_text: str | None = None
    timestamp: datetime | None = None
    level: str | None = None
    message: str | None = None
    logger: str | None = None
    thread: str | None = None
    invalid_utf8: bool = False
    truncated: bool = False
    layout_error: str | None = None

    @property
    def is_orphan(self) -> bool:
        """Whether the lines belong to no record."""
        return self.orphan_reason is not None

    @property
    def last_line(self) -> int:
        """1-based number of its last physical line."""
        return self.first_line + self.line_count - 1


def _decode(line: bytes | str) -> tuple[str, bool, bool]:
    """Return (text without terminator, invalid_utf8, had_terminator)."""
    if isinstance(line, bytes):
        terminated = line.endswith(b"\n")
        if terminated:
            line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
        try:
            return line.decode("utf-8"), False, terminated
        except UnicodeDecodeError:
            return line.decode("utf-8", errors="replace"), True, terminated
    terminated = line.endswith("\n")
    if terminated:
        line = line[:-2] if line.endswith("\r\n") else line[:-1]
    return line, False, terminated


class _Pending:
    """The record being assembled."""

    __slots__ = (
        "chars",
        "first_line",
        "invalid_utf8",
        "lines",
        "orphan_reason",
        "start",
        "truncated",
    )

    def __init__(
        self, first_line: int, text: str, orphan_reason: str | None, start: tuple[str, ...]
    ) -> None:
        self.first_line = first_line
        self.lines = [text]
        self.chars = len(text)
        self.orphan_reason = orphan_reason
        self.start = start  # the start match's groups, then the text after the head
        self.invalid_utf8 = False
        self.truncated = False


def _build(pending: _Pending, layout: CompiledLayout) -> LogRecord:
    lines = pending.lines
    text = "\n".join(lines)
    if pending.orphan_reason is not None:
        return LogRecord(
            first_line=pending.first_line,
            line_count=len(lines),
            text=text,
            orphan_reason=pending.orphan_reason,
            invalid_utf8=pending.invalid_utf8,
            truncated=pending.truncated,
        )
    *head_groups, rest = pending.start
    values: dict[str, str | None] = dict(zip(layout.start_roles, head_groups, strict=True))
    layout_error: str | None = None
    tail = layout.tail_regex.fullmatch(rest)
    message: str | None
    if tail is not None:
        message = tail.group(1)
    else:
        message = rest
        for index in range(1, len(lines)):
            tail = layout.tail_regex.fullmatch(lines[index])
            if tail is not None:
                message = "\n".join([rest, *lines[1:index], tail.group(1)])
                break
    if tail is not None:
        values.update(zip(layout.tail_roles[1:], tail.groups()[1:], strict=True))
    else:
        layout_error = "truncated_record" if pending.truncated else "missing_tail"
    timestamp_text = values.get("timestamp")
    timestamp = None
    if timestamp_text is not None and layout.timestamp is not None:
        timestamp = layout.timestamp.parse(timestamp_text)
    return LogRecord(
        first_line=pending.first_line,
        line_count=len(lines),
        text=text,
        timestamp_text=timestamp_text,
        timestamp=timestamp,
        level=values.get("level"),
        message=message,
        logger=values.get("logger"),
        thread=values.get("thread"),
        invalid_utf8=pending.invalid_utf8,
        truncated=pending.truncated,
        layout_error=layout_error,
    )


def assemble_records(
    lines: Iterable[bytes | str],
    layout: CompiledLayout,
    *,
    max_record_lines: int = DEFAULT_MAX_RECORD_LINES,
    max_record_chars: int = DEFAULT_MAX_RECORD_CHARS,
) -> Iterator[LogRecord]:
    """Cut physical lines into records (see the module docstring).

    Args:
        lines: the file's physical lines in order, with their terminators (as a binary file
            iterates them).
        layout: the compiled layout of the file.
        max_record_lines: cap on the lines of one record.
        max_record_chars: cap on the characters of one record (a longer single line is kept).

    Yields:
        Records in file order; their line counts sum to the number of lines read.
    """
    start_regex = layout.start_regex
    pending: _Pending | None = None
    for number, raw in enumerate(lines, start=1):
        text, invalid, terminated = _decode(raw)
        match = start_regex.match(text)
        if match is not None:
            if pending is not None:
                yield _build(pending, layout)
            pending = _Pending(number, text, None, (*match.groups(), text[match.end() :]))
        elif pending is None:
            pending = _Pending(number, text, "before_first_record", ())
        elif len(pending.lines) >= max_record_lines or pending.chars + len(text) > max_record_chars:
            reason = pending.orphan_reason or "continuation_overflow"
            yield _build(pending, layout)
            pending = _Pending(number, text, reason, ())
        else:
            pending.lines.append(text)
            pending.chars += len(text) + 1
        pending.invalid_utf8 = pending.invalid_utf8 or invalid
        pending.truncated = not terminated
    if pending is not None:
        yield _build(pending, layout)
