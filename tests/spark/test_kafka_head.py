"""``kafka_head.head_lengths`` (numpy word tests) against the Kafka layout's start regex.

The reader's record-start test and the Arrow executor's head cut rely on it: every line below
must get the length of the regex's match, or 0 where the regex does not match.
"""

from __future__ import annotations

import random
import re

import numpy as np

from jobs.logparse.kafka_head import KAFKA_HEAD, head_lengths
from kafkactl_core.grammars import KAFKA_LAYOUT, compile_layout

HEAD = re.compile(KAFKA_HEAD.encode())
GOOD = b"[2024-02-29 23:59:59,123] "
LEVELS = (b"TRACE", b"DEBUG", b"INFO", b"WARN", b"WARNING", b"ERROR", b"FATAL")


def _expected(line: bytes) -> int:
    match = HEAD.match(line)
    return match.end() if match else 0


def _check(lines: list[bytes], separator: bytes) -> None:
    data = separator.join(lines)
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + len(separator)
    ends = [start + len(line) for start, line in zip(starts, lines, strict=True)]
    got = head_lengths(
        np.frombuffer(data, dtype=np.uint8), np.asarray(starts), np.asarray(ends, dtype=np.int32)
    )
    assert got.tolist() == [_expected(line) for line in lines]


def test_the_head_is_the_kafka_layouts_start_pattern() -> None:
    """The reader and the executor compare a layout's start pattern with ``KAFKA_HEAD``."""
    assert compile_layout(KAFKA_LAYOUT).start_pattern == KAFKA_HEAD


def test_every_level_and_its_length() -> None:
    lines = [GOOD + level + b" message (logger)" for level in LEVELS]
    lines += [GOOD + b"WARNING message", GOOD + b"WARNINGS x", GOOD + b"INFOX x", GOOD + b"INFO"]
    _check(lines, b"\n")


def test_lines_near_the_end_and_short_lines() -> None:
    """Heads at the very end of the bytes, cut short, or longer than their line."""
    for cut in range(len(GOOD) + 6):
        line = (GOOD + b"INFO ")[:cut]
        _check([GOOD + b"INFO first", line], b"\n")
        _check([line], b"")
    _check([GOOD + b"INFO x", b"", b"[", GOOD + b"WARN "], b"\n")
    _check([], b"\n")


def test_mutated_heads_agree_with_the_regex() -> None:
    """Every byte of the head replaced by characters next to the expected ones (``/`` and
    ``:`` around the digits, other brackets, letters): only the regex's matches pass."""
    rng = random.Random(7)
    template = GOOD + b"ERROR x"
    neighbours = b"/0123456789:[]-, ABCDEIJNORTWZ\t\n\x00\xff"
    lines = [template]
    for position in range(len(template)):
        for value in neighbours:
            lines.append(template[:position] + bytes([value]) + template[position + 1 :])
    for _ in range(2000):
        line = bytearray(template)
        for _ in range(rng.randint(1, 3)):
            line[rng.randrange(len(line))] = rng.choice(neighbours)
        lines.append(bytes(line))
    # Separated by a byte no head holds, as the reader's lines are by newlines.
    _check([line.replace(b"\n", b" ") for line in lines], b"\n")
    assert sum(_expected(line) > 0 for line in lines) > 50
