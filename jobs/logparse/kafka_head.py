"""The Kafka layout's record head, ``[yyyy-MM-dd HH:mm:ss,SSS] LEVEL ``, checked byte by byte.

Kafka's ``log4j.properties`` renders every record as ``[%d] %p %m (%c)%n``: each record starts
with a bracketed timestamp of fixed width, a level and a blank. Where a file uses that layout
(nearly always), the reader's record-start test and the Arrow executor's head cut read the
head's 8-byte words with numpy instead of running a regex over every line.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["KAFKA_HEAD", "head_lengths"]

_Positions = npt.NDArray[np.int32] | npt.NDArray[np.int64]

KAFKA_HEAD = (
    "\\[((?:[0-9]{4})-(?:[0-9]{2})-(?:[0-9]{2}) "
    "(?:[0-9]{2}):(?:[0-9]{2}):(?:[0-9]{2}),(?:[0-9]{3}))"
    "\\] (TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL) "
)
"""The head ``head_lengths`` checks, as a layout's start pattern (users compare with it: only
a layout whose start pattern is this one may be checked here)."""


def _word_test(template: str) -> tuple[int, int, int]:
    """Masks testing 8 bytes read as a little-endian word against ``template``.

    ``template`` has one character per byte: ``d`` a digit, ``.`` any byte, others themselves.

    Returns:
        ``(mask, value, digits)``: the word passes when ``word & mask == value`` and
        ``((word & 0x0F..) + 0x06..) & digits`` is 0 (the low nibble of each digit at most 9).
    """
    mask = value = digits = 0
    for index, char in enumerate(template):
        shift = 8 * index
        if char == "d":
            mask |= 0xF0 << shift
            value |= 0x30 << shift
            digits |= 0x10 << shift
        elif char != ".":
            mask |= 0xFF << shift
            value |= ord(char) << shift
    return mask, value, digits


_HEAD_TESTS = (
    (0, _word_test("[dddd-dd")),
    (8, _word_test("-dd dd:d")),
    (16, _word_test("d:dd,ddd")),
    (18, _word_test("dd,ddd] ")),
)
"""Where to read a word in a line and what it must be: together, every one of the head's 26
bytes before the level."""
_LEVEL_TESTS = tuple(
    (26 + len(level) + 1, _word_test(f"{level} ".ljust(8, ".")))
    for level in ("TRACE", "DEBUG", "INFO", "WARN", "WARNING", "ERROR", "FATAL")
)
"""Head length with each level (and its blank), and the word at byte 26 it needs."""
_LOW_NIBBLES = np.uint64(0x0F0F0F0F0F0F0F0F)
_SIXES = np.uint64(0x0606060606060606)
_READ = 34
"""Bytes a head test reads from a line's start (the level's word ends at byte 34)."""


def _lengths(raw: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    # 8 bytes from each byte position (unaligned little-endian 64-bit reads); every start
    # has _READ bytes after it.
    words = np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))
    ok = np.ones(len(starts), dtype=bool)
    for at, (mask, value, digits) in _HEAD_TESTS:
        word = words[starts + at]
        ok &= (word & np.uint64(mask)) == np.uint64(value)
        ok &= (((word & _LOW_NIBBLES) + _SIXES) & np.uint64(digits)) == 0
    word = words[starts + 26]
    length = np.zeros(len(starts), dtype=np.int64)
    for head, (mask, value, _) in _LEVEL_TESTS:
        length[(word & np.uint64(mask)) == np.uint64(value)] = head
    return np.where(ok, length, 0)


def head_lengths(
    raw: npt.NDArray[np.uint8], starts: _Positions, ends: _Positions
) -> npt.NDArray[np.int64]:
    """The length of the Kafka head at the start of each line (0: the line has none).

    A line has at most one such head: ``WARN`` is followed by a blank, ``WARNING``'s ``I`` is
    not one.

    Args:
        raw: the bytes holding the lines.
        starts: each line's first byte.
        ends: each line's end (exclusive): the head must fit in its line.

    Returns:
        Per line, the head's length in bytes (its trailing blank included), or 0.
    """
    at = starts.astype(np.int64, copy=False)
    if not len(at):
        return np.zeros(0, dtype=np.int64)
    # Lines too near the end to read a whole head from are tested on a zero-padded copy of
    # the last bytes (zeros match no byte of a head).
    near = at + _READ > len(raw)
    if not near.any():
        length = _lengths(raw, at)
    else:
        length = np.zeros(len(at), dtype=np.int64)
        far = ~near
        if far.any():
            length[far] = _lengths(raw, at[far])
        base = max(0, len(raw) - 2 * _READ)
        tail = np.concatenate((raw[base:], np.zeros(_READ, dtype=np.uint8)))
        length[near] = _lengths(tail, at[near] - base)
    return np.where(length <= ends - at, length, 0)
