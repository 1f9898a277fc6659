"""Log lines cut into a layout's head, message and tail, vectorised.

Kafka's layout (``[%d] %p %m (%c)%n``) is cut by position (``cut_kafka``): the head has a single
match, checked byte by byte (``kafka_head``), and the tail `` (logger)`` can only start at one
place. Other layouts are cut by two regexes, the head (with the rest of the line) and then the
tail on that rest, the steps of ``records._build`` (``LayoutParts.cut``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from jobs.logparse.arrow_arrays import (
    BoolArray,
    IntArray,
    as_mask,
    flat,
    from_codes,
    masked,
    string_parts,
)
from jobs.logparse.arrow_slices import string_slices
from jobs.logparse.entry_plans import named_groups
from jobs.logparse.kafka_head import KAFKA_HEAD, head_lengths
from kafkactl_core.grammars import KAFKA_LAYOUT, CompiledLayout, compile_layout

_MESSAGE = "([^\\n]*)"

_POSITIONAL_HEADS = frozenset({KAFKA_HEAD} & {compile_layout(KAFKA_LAYOUT).start_pattern})
"""Heads with at most one match on a line: ``[``, a fixed-width timestamp, ``] ``, a level and a
blank (``kafka_head`` checks them, ``kafka_head_roles`` reads timestamp and level, by position)."""
_UNIQUE_TAIL = compile_layout(KAFKA_LAYOUT).tail_pattern
"""`` (logger)`` at the end of the line, the logger without parentheses: one way to cut."""
_TAIL_BYTES = re.compile(rb" \(([^ \t\n()]+)\)\Z")
"""``_UNIQUE_TAIL`` without its message, on a line's bytes (UTF-8: multibyte characters have
no byte of the logger's excluded ASCII ones)."""
_TAIL_GUESSES = 16
"""Distinct tails ``_tail_starts`` compares every line with before cutting lines one by one."""


@dataclass
class LayoutPlan:
    """The regexes of one layout."""

    layout: CompiledLayout
    positional: bool  # the Kafka layout: cut by position (``cut_kafka``), not by regexes
    head_rest: str  # ^HEAD(?P<rest>[^\n]*)$, head groups named r_<role>
    tail: str  # ^TAIL$ with groups r_message, r_<role>
    roles: tuple[str, ...]  # layout roles other than the message

    @classmethod
    def of(cls, layout: CompiledLayout) -> LayoutPlan:
        roles = [f"r_{r}" for r in layout.start_roles]
        head = named_groups(layout.start_pattern, roles)
        tail = named_groups(layout.tail_pattern, [f"r_{r}" for r in layout.tail_roles])
        if not layout.tail_pattern.startswith(_MESSAGE):
            raise ValueError(f"unexpected tail pattern {layout.tail_pattern!r}")
        positional = (
            layout.start_pattern in _POSITIONAL_HEADS and layout.tail_pattern == _UNIQUE_TAIL
        )
        return cls(
            layout=layout,
            positional=positional,
            head_rest="^" + head + "(?P<rest>[^\\n]*)$",
            tail="^" + tail + "$",
            roles=(*layout.start_roles, *layout.tail_roles[1:]),
        )


_LEVEL_CODES = np.full(256, 0, dtype=np.int32)
_LEVEL_NAMES = pa.array(["INFO", "WARN", "WARNING", "TRACE", "DEBUG", "ERROR", "FATAL"])
for _code, _initial in enumerate("IWWTDEF"):
    _LEVEL_CODES[ord(_initial)] = _code if _initial != "W" else 1


def kafka_head_roles(text: pa.Array, rows: IntArray, matched: BoolArray) -> dict[str, pa.Array]:
    """Timestamp and level of Kafka-layout lines (``[%d] %p ``), read by position.

    Where the layout matched, the head is ``[``, 23 timestamp characters, ``] ``, then a level
    and a blank: the level is INFO/WARN when a blank follows 4 letters, WARNING when none
    follows 5, else the 5-letter level of its initial. Other rows are null.
    """
    offsets, raw = string_parts(flat(text))
    if len(raw) == 0:
        raw = np.zeros(1, dtype=np.uint8)
    last = len(raw) - 1
    start = offsets[:-1][rows].astype(np.int64)
    # Code points 1 to 24: the timestamp's bytes where the layout matched (ASCII there).
    stamps = pc.utf8_slice_codeunits(text, 1, 24)
    if not np.array_equal(rows, np.arange(len(text))):
        stamps = stamps.take(pa.array(rows))
    stamps = masked(flat(stamps), matched)
    code = _LEVEL_CODES[raw[np.minimum(start + 26, last)]]
    four = raw[np.minimum(start + 30, last)] == ord(" ")
    five = raw[np.minimum(start + 31, last)] == ord(" ")
    code = np.where((code == 1) & ~four, 2, code)
    code = np.where(four | five | (code == 2), code, -1)
    level = from_codes(np.where(matched, code, -1), _LEVEL_NAMES)
    return {"timestamp": stamps, "level": level}


def _equal_at(raw: npt.NDArray[np.uint8], at: IntArray, expected: bytes) -> BoolArray:
    """Whether ``raw[at[i]:at[i] + len(expected)] == expected`` (every slice inside ``raw``)."""
    size = len(expected)
    same = np.ones(len(at), dtype=bool)
    if not len(at):
        return same
    if size < 8:
        for index, byte in enumerate(expected):
            same &= raw[at + index] == byte
        return same
    # Overlapping 8-byte words (unaligned little-endian reads), the last one ending the slice.
    words = np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))
    for offset in sorted({*range(0, size - 7, 8), size - 8}):
        value = np.uint64(int.from_bytes(expected[offset : offset + 8], "little"))
        same &= words[at + offset] == value
    return same


def _tail_starts(raw: npt.NDArray[np.uint8], lows: IntArray, ends: IntArray) -> IntArray:
    """Where `` (logger)`` starts in each line ``raw[lows[i]:ends[i]]`` (-1: no such tail).

    The tail is the logger's only way to end a line (``_UNIQUE_TAIL``). A file's lines have
    few distinct tails: the first line not yet cut is cut by ``_TAIL_BYTES``, then every line
    is compared with its tail at once; after ``_TAIL_GUESSES`` tails, lines are cut one by one.
    """
    starts = np.full(len(ends), -1, dtype=np.int64)
    if not len(ends):
        return starts
    room = ends - lows >= 4  # " (x)"
    pending = np.flatnonzero(room)
    pending = pending[raw[ends[pending] - 1] == ord(")")]
    guesses = 0
    while len(pending) and guesses < _TAIL_GUESSES:
        row = int(pending[0])
        match = _TAIL_BYTES.search(raw[lows[row] : ends[row]].tobytes())
        if match is None:
            pending = pending[1:]
            continue
        guesses += 1
        tail = match.group(0)
        at = ends[pending] - len(tail)
        same = at >= lows[pending]
        same[same] = _equal_at(raw, at[same], tail)
        starts[pending[same]] = at[same]
        pending = pending[~same]
    for row in pending.tolist():
        match = _TAIL_BYTES.search(raw[lows[row] : ends[row]].tobytes())
        if match is not None:
            starts[row] = lows[row] + match.start()
    return starts


def cut_kafka(text: pa.Array, order: IntArray | None) -> LayoutParts:
    """Lines of the Kafka layout (in ``order``) cut by position: head, message and tail.

    The head is checked bytewise (``kafka_head``: ``kafka_head_roles`` reads its roles later), the
    tail found by ``_tail_starts``; a line with both ``matched``. Message and logger are each
    one gather (``string_slices``); lines that do not match get empty ones.

    Args:
        text: lines without nulls (one physical line each).
        order: the positions to return (None: all, in order).

    Returns:
        The lines' parts, in ``order`` (arrays without offset).
    """
    text = flat(text)
    offsets, raw = string_parts(text)
    size = len(text)
    starts = offsets[:-1].astype(np.int64)
    ends = offsets[1:].astype(np.int64)
    head = head_lengths(raw, starts, ends)
    tail = _tail_starts(raw, starts + head, ends)
    ok = (head > 0) & (tail >= 0)
    data = text.buffers()[2] or pa.py_buffer(b"")
    message = string_slices(
        data, np.where(ok, starts + head, starts), np.where(ok, tail, starts), order
    )
    logger = string_slices(
        data, np.where(ok, tail + 2, starts), np.where(ok, ends - 1, starts), order
    )
    positions = np.arange(size, dtype=np.int64) if order is None else order
    return LayoutParts({"logger": logger}, ok[positions], message)


@dataclass
class LayoutParts:
    """A non-fused layout's cut of some lines: roles, whether it matched, the message."""

    roles: dict[str, pa.Array]
    matched: BoolArray
    message: pa.Array

    @classmethod
    def cut(cls, layout: LayoutPlan, lines: pa.Array) -> LayoutParts:
        """Head (and the rest of the line), then the tail on that rest: ``records._build``."""
        head = pc.extract_regex(lines, layout.head_rest)
        tail = pc.extract_regex(flat(head.field("rest")), layout.tail)
        start = layout.layout.start_roles
        roles = {
            role: flat(head.field(f"r_{role}") if role in start else tail.field(f"r_{role}"))
            for role in layout.roles
        }
        matched = as_mask(head.is_valid()) & as_mask(tail.is_valid())
        return cls(roles, matched, flat(tail.field("r_message")))

    def slice(self, start: int, length: int) -> LayoutParts:
        """The parts of ``length`` lines from ``start``."""
        return LayoutParts(
            {role: array.slice(start, length) for role, array in self.roles.items()},
            self.matched[start : start + length],
            self.message.slice(start, length),
        )

    def take(self, positions: IntArray) -> LayoutParts:
        """The parts of the lines at ``positions``, in that order."""
        at = pa.array(positions)
        return LayoutParts(
            {role: flat(array.take(at)) for role, array in self.roles.items()},
            self.matched[positions],
            flat(self.message.take(at)),
        )
