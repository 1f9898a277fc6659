"""Log4j PatternLayouts compiled into the regexes that cut a log file into records.

A layout string such as Kafka's ``[%d] %p %m (%c)%n`` is split at ``%m``:

* the **head** (everything before ``%m``) becomes ``start_pattern``, matched at the start of a
  physical line: a line that matches starts a new record, and its groups are the timestamp text
  and the level (each only when the layout has ``%d`` / ``%p``);
* the **tail** (everything after ``%m`` up to ``%n``) becomes ``tail_pattern``, matched at the end
  of a line: ``^([^\\n]*)TAIL$`` with a greedy message group, so the logger ``(%c)`` is taken at
  the *end* of the line, never at the first ``(`` of a message that contains parentheses. Its
  groups are the message part, then the logger and thread when the layout has ``%c`` / ``%t``.

A record whose first line has no tail is a wrapped message: the tail is searched on the following
lines and the message spans them (``records.assemble_records`` does this). Both patterns stay in
the Python/RE2 common subset (``lint.lint_pattern``).

Presets: ``kafka`` (``[%d] %p %m (%c)%n``, the default of every Kafka release) and ``strimzi``
(``%d{yyyy-MM-dd HH:mm:ss,SSS} %p %m (%c) [%t]%n``). ``detect_layout`` picks the preset whose
head matches most of a file's first lines (the ``auto`` setting).

Supported conversions: ``%d``/``%date`` (``timestamps.TimestampFormat`` options), ``%p``/``%level``,
``%m``/``%msg``/``%message``, ``%c``/``%logger`` (precision options accepted), ``%t``/``%thread``,
``%n``, ``%%``; ``%r`` (elapsed ms), ``%L`` (line), and ``%C %F %M %l %x %X`` (matched as
opaque text). Width and justification modifiers (``%-5p``) are honoured as optional padding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from kafkactl_core.grammars.fragments import escape_literal
from kafkactl_core.grammars.timestamps import TimestampFormat, UnsupportedFormatError

__all__ = [
    "KAFKA_LAYOUT",
    "LAYOUT_PRESETS",
    "STRIMZI_LAYOUT",
    "CompiledLayout",
    "LayoutError",
    "compile_layout",
    "detect_layout",
    "resolve_layout",
]

KAFKA_LAYOUT = "[%d] %p %m (%c)%n"
"""Kafka's ``config/log4j.properties`` / ``log4j2.yaml`` ConversionPattern (every release)."""

STRIMZI_LAYOUT = "%d{yyyy-MM-dd HH:mm:ss,SSS} %p %m (%c) [%t]%n"
"""Strimzi's broker log4j ConversionPattern."""

LAYOUT_PRESETS = {"kafka": KAFKA_LAYOUT, "strimzi": STRIMZI_LAYOUT}
"""Named layouts the configuration may use instead of a pattern string."""

_LEVELS = "TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL"
_CONVERSION = re.compile(r"%(-?)([0-9]*)(?:\.([0-9]+))?([A-Za-z]+|%)((?:\{[^}]*\})*)")
_OPTION = re.compile(r"\{([^}]*)\}")
_MESSAGE = "([^\\n]*)"
_OPAQUE = {"C", "class", "F", "file", "M", "method", "l", "location", "x", "NDC", "X", "mdc", "MDC"}


class LayoutError(ValueError):
    """A layout string this module cannot compile."""


@dataclass(frozen=True, slots=True)
class CompiledLayout:
    """A PatternLayout compiled into record-cutting regexes (see the module docstring).

    Attributes:
        layout: the PatternLayout string.
        start_pattern: portable regex matched at the start of a line; its groups are named, in
            order, by ``start_roles`` (``timestamp``, ``level``, ``logger``, ``thread``).
        tail_pattern: portable regex matched against a whole line; its groups are named, in
            order, by ``tail_roles`` (``message`` first, then ``logger``, ``thread``).
        start_roles: what each group of ``start_pattern`` captures.
        tail_roles: what each group of ``tail_pattern`` captures.
        timestamp: the ``%d`` format, ``None`` when the layout has no ``%d``.
    """

    layout: str
    start_pattern: str
    tail_pattern: str
    start_roles: tuple[str, ...]
    tail_roles: tuple[str, ...]
    timestamp: TimestampFormat | None
    start_regex: re.Pattern[str] = field(repr=False, compare=False)
    tail_regex: re.Pattern[str] = field(repr=False, compare=False)

    @property
    def has_tail(self) -> bool:
        """Whether anything follows ``%m`` (then a record's message must end with it)."""
        return self.tail_pattern != _MESSAGE

    @property
    def has_logger(self) -> bool:
        """Whether records name their logger."""
        return "logger" in self.start_roles or "logger" in self.tail_roles


def _padded(inner: str, justify_left: bool, width: str) -> str:
    if not width:
        return inner
    return inner + "[ ]*" if justify_left else "[ ]*" + inner


def _convert(
    name: str, options: list[str], justify_left: bool, width: str, part: str
) -> tuple[str, str | None, TimestampFormat | None]:
    """Regex of one conversion, the role of its group (or None) and its timestamp format."""
    if name in ("d", "date"):
        try:
            fmt = TimestampFormat.compile(options[0] if options else None)
        except UnsupportedFormatError as exc:
            raise LayoutError(str(exc)) from exc
        return _padded(f"({fmt.regex})", justify_left, width), "timestamp", fmt
    if name in ("p", "level"):
        return _padded(f"({_LEVELS})", justify_left, width), "level", None
    if name in ("c", "logger"):
        # At the end of a record the logger is delimited by the layout's own literals, and
        # Kafka's messages contain parentheses: a logger name never contains blanks or them.
        return _padded("([^ \\t\\n()]+)", justify_left, width), "logger", None
    if name in ("t", "thread"):
        # Thread names may contain blanks; before %m the shortest text up to the next
        # literal is the thread, after %m the tail is anchored at the end of the line.
        inner = "([^\\n]*?)" if part == "head" else "([^\\n]*)"
        return _padded(inner, justify_left, width), "thread", None
    if name in ("r", "relative", "L", "line"):
        return _padded("[0-9]+", justify_left, width), None, None
    if name in _OPAQUE:
        return "[^\\n]*?", None, None
    raise LayoutError(f"conversion %{name} is not supported")


def compile_layout(layout: str) -> CompiledLayout:
    """Compile a log4j PatternLayout string.

    Args:
        layout: the ConversionPattern, e.g. ``[%d] %p %m (%c)%n``.

    Returns:
        The compiled layout.

    Raises:
        LayoutError: when the layout has no ``%m``, puts ``%c``/``%t`` before ``%m``, or uses an
            unsupported conversion or date format.
    """
    pieces: dict[str, list[str]] = {"head": [], "tail": []}
    roles: dict[str, list[str]] = {"head": [], "tail": []}
    timestamp: TimestampFormat | None = None
    part = "head"
    position = 0
    seen_message = False
    for match in _CONVERSION.finditer(layout):
        literal = layout[position : match.start()]
        position = match.end()
        if literal:
            pieces[part].append(escape_literal(literal))
        justify, width, _, name, raw_options = match.groups()
        options = _OPTION.findall(raw_options)
        if name == "%":
            pieces[part].append("%")
            continue
        if name == "n":
            if layout[position:].strip():
                raise LayoutError("%n must end the layout")
            break
        if name in ("m", "msg", "message"):
            if seen_message:
                raise LayoutError("%m appears twice")
            seen_message = True
            part = "tail"
            continue
        regex, role, fmt = _convert(name, options, justify == "-", width, part)
        if fmt is not None:
            if timestamp is not None:
                raise LayoutError("%d appears twice")
            timestamp = fmt
        if role is not None:
            roles[part].append(role)
        pieces[part].append(regex)
    else:
        trailing = layout[position:]
        if trailing:
            pieces[part].append(escape_literal(trailing))
    if not seen_message:
        raise LayoutError(f"layout {layout!r} has no %m")
    for where in ("head", "tail"):
        if len(roles[where]) != len(set(roles[where])):
            raise LayoutError(f"a conversion appears twice in {layout!r}")
    if not pieces["head"]:
        raise LayoutError(f"layout {layout!r} has nothing before %m to recognise a record by")
    start_pattern = "".join(pieces["head"])
    tail_pattern = _MESSAGE + "".join(pieces["tail"])
    return CompiledLayout(
        layout=layout,
        start_pattern=start_pattern,
        tail_pattern=tail_pattern,
        start_roles=tuple(roles["head"]),
        tail_roles=("message", *roles["tail"]),
        timestamp=timestamp,
        start_regex=re.compile(start_pattern),
        tail_regex=re.compile(tail_pattern),
    )


def resolve_layout(setting: str) -> CompiledLayout:
    """Compile a configuration value: a preset name (``kafka``, ``strimzi``) or a layout string.

    Args:
        setting: the configured layout (``auto`` is handled by ``detect_layout``).

    Returns:
        The compiled layout.

    Raises:
        LayoutError: when the layout does not compile.
    """
    return compile_layout(LAYOUT_PRESETS.get(setting, setting))


def detect_layout(
    lines: Iterable[str | bytes], candidates: Iterable[str] = (KAFKA_LAYOUT, STRIMZI_LAYOUT)
) -> CompiledLayout | None:
    """Pick the layout whose whole record line matches most of a file's first lines (``auto``).

    Args:
        lines: the file's first physical lines (a few dozen suffice); bytes are decoded as UTF-8
            with replacement, line terminators are ignored.
        candidates: layout strings or preset names, in order of preference on a tie.

    Returns:
        The best layout, or ``None`` when no candidate matches any line (an unknown format).
    """
    compiled = [resolve_layout(candidate) for candidate in candidates]
    scores = [0] * len(compiled)
    for raw in lines:
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        line = text.rstrip("\r\n")
        for index, layout in enumerate(compiled):
            match = layout.start_regex.match(line)
            if match is not None and layout.tail_regex.fullmatch(line[match.end() :]) is not None:
                scores[index] += 1
    best = max(range(len(compiled)), key=lambda index: (scores[index], -index))
    return compiled[best] if scores[best] else None
