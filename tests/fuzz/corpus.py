"""Seeds and hypothesis strategies for hostile input: real lines and files, then mutated.

Log lines come from the reference material's real logs and the repository's real-Kafka
captures (a few hundred, sampled), mixed with NUL bytes, invalid UTF-8, very long lines and
every mix of CR and LF; binary seeds are the repository's real ZooKeeper and KRaft files.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

from hypothesis import strategies as st

from tests.conftest import REPO, reference_dir

FIXTURES = REPO / "tests" / "fixtures"
_LINES_PER_FILE = 40


def _sample_lines(path: Path, rng: random.Random) -> list[bytes]:
    lines = path.read_bytes().splitlines(keepends=True)
    return rng.sample(lines, min(_LINES_PER_FILE, len(lines)))


@functools.cache
def real_lines() -> tuple[bytes, ...]:
    """Lines (with their terminators) of real Kafka logs: reference real logs and captures."""
    rng = random.Random(21)
    files = sorted((reference_dir() / "real-logs").glob("*.log"))
    files += sorted((FIXTURES / "real-kafka").glob("*/brokers/*/*.log"))
    files += sorted((reference_dir() / "examples").glob("*.log.*"))
    lines = [line for path in files for line in _sample_lines(path, rng)]
    return tuple(lines) or (b"[2024-03-01 10:00:00,000] INFO x (kafka.Log)\n",)


def binary_seeds(pattern: str) -> tuple[bytes, ...]:
    """The bytes of the fixture files matching ``pattern`` under ``tests/fixtures``."""
    return tuple(path.read_bytes() for path in sorted(FIXTURES.glob(pattern)))


_ODD = [b"\x00", b"\xff", b"\xc3", b"\xe2\x82", b"\r", b"\r\n", b"\n", b"\t", b" ", b"(", b")",
        b"[", b"]", b"\xf0\x9f\x98\x80", b"\xed\xa0\x80", b"99999999999999999999", b"-1",
        b","]  # fmt: skip
"""Pieces that break assumptions: NUL, invalid or partial UTF-8, surrogates, CR, brackets."""


@st.composite
def mutated(draw: st.DrawFn, seed: bytes, max_edits: int = 6) -> bytes:
    """``seed`` with a few bytes overwritten, pieces inserted, deleted or repeated, and cut."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(0, max_edits))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["set", "insert", "delete", "repeat"]))
        if action == "set" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif action == "insert":
            data[at:at] = draw(st.one_of(st.sampled_from(_ODD), st.binary(max_size=8)))
        elif action == "delete":
            del data[at : at + draw(st.integers(1, 16))]
        elif action == "repeat":
            data[at:at] = data[at : at + draw(st.integers(1, 64))] * draw(st.integers(1, 8))
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return bytes(data)


def _line() -> st.SearchStrategy[bytes]:
    real = st.sampled_from(real_lines())
    return st.one_of(
        real,
        real.flatmap(lambda line: mutated(line, 4)),
        st.binary(max_size=120),
        st.lists(st.sampled_from(_ODD), max_size=12).map(b"".join),
        st.tuples(real, st.integers(1, 400)).map(lambda pair: pair[0].rstrip(b"\n") * pair[1]),
    )


def _terminator() -> st.SearchStrategy[bytes]:
    return st.sampled_from([b"\n", b"\n", b"\n", b"\r\n", b"\r", b"", b"\n\n"])


log_bytes = st.lists(st.tuples(_line(), _terminator()), max_size=30).map(
    lambda parts: b"".join(line.rstrip(b"\r\n") + end for line, end in parts)
)
"""A log file's bytes: real, mutated and random lines, with every mix of line terminators."""
