"""The split reader against the core's ``assemble_records``: any split plan, either reading path
(C-level fast path, core fallback), plain or gzip, gives exactly the records of the whole file.
Candidates are a superset of the entries that match. No Spark session: the reader is the Python
side of ``mapInArrow``.
"""

from __future__ import annotations

import functools
import gzip
import os
from pathlib import Path

import pytest

from jobs.logparse.candidates import CandidateIndex, required_literals
from jobs.logparse.inputs import InputFile, plan_file
from jobs.logparse.parse_contract import TrialOrder
from jobs.logparse.reader import ReaderSettings, SplitTask, read_split
from kafkactl_core.grammars import (
    KAFKA_LAYOUT,
    ParsedEvent,
    assemble_records,
    grammar_entries,
    parse_record,
    resolve_layout,
)
from kafkactl_core.grammars.records import DEFAULT_MAX_RECORD_LINES
from tests.conftest import reference_dir

LAYOUT = resolve_layout("kafka")
EXAMPLES = reference_dir() / "examples"
REAL_LOGS = reference_dir() / "real-logs"
NO_DIGITS = str.maketrans("", "", "0123456789")
REFERENCE_FILES = sorted(EXAMPLES.glob("*.log.*")) + sorted(REAL_LOGS.glob("*.log"))


@functools.cache
def _index(hint: str | None = None) -> CandidateIndex:
    order = TrialOrder.for_hint(None)
    return CandidateIndex([e.name for e in order.entries], hint)


def _read(path: Path, split_bytes: int, settings: ReaderSettings, start_known: int = 0):
    """Every record the reader gives for a file cut into splits of ``split_bytes``."""
    file = InputFile(str(path), "other")
    plan = plan_file(file, [], split_bytes)
    rows = []
    for number, split in enumerate(plan.splits):
        task = SplitTask(
            0, str(path), file.compressed, split.start, split.end, split.first_line,
            number == 0, plan.size, KAFKA_LAYOUT,
        )  # fmt: skip
        for batch in read_split(task, settings, _index()):
            rows.extend(batch.to_pylist())
    return plan, sorted(rows, key=lambda r: r["first_line"])


def _expected(data: bytes):
    """(first_line, line_count, byte_offset, byte_length, text, orphan, utf8, truncated)."""
    lines = data.splitlines(keepends=True) if b"\r" not in data else _lines(data)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    out = []
    for record in assemble_records(lines, LAYOUT):
        start = offsets[record.first_line - 1]
        stop = offsets[record.first_line - 1 + record.line_count]
        out.append(
            (
                record.first_line, record.line_count, start, stop - start, record.text,
                record.orphan_reason, record.invalid_utf8, record.truncated,
            )
        )  # fmt: skip
    return out


def _lines(data: bytes) -> list[bytes]:
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def _got(rows):
    return [
        (
            r["first_line"], r["line_count"], r["byte_offset"], r["byte_length"], r["text"],
            r["orphan_reason"], r["invalid_utf8"], r["truncated"],
        )
        for r in rows
        if r["read_error"] is None
    ]  # fmt: skip


def _line(ts: int, message: str, level: str = "INFO", logger: str = "state.change.logger") -> str:
    return f"[2024-03-01 10:00:{ts:02d},{ts:03d}] {level} {message} ({logger})\n"


def _messy_log() -> bytes:
    """Orphans first, stack traces, a wrapped message, CRLF-free ASCII."""
    parts = ["garbage before the first record\n", "more garbage\n"]
    for i in range(40):
        parts.append(_line(i % 60, f"[Controller id=1 epoch=7] Changed partition t-{i} state "
                                   "from NewPartition to OnlinePartition"))  # fmt: skip
        if i % 7 == 0:
            parts.append("java.lang.IllegalStateException: boom\n\tat a.b.C(C.java:1)\n")
            parts.append("Caused by: x\n\tat d.e.F(F.java:2)\n")
        if i % 11 == 0:
            parts.append("[2024-03-01 10:00:00,000] INFO a message wrapped\n")
            parts.append("over two lines (kafka.controller.KafkaController)\n")
    return "".join(parts).encode()


@pytest.mark.parametrize("exact", [False, True], ids=["fast", "exact"])
@pytest.mark.parametrize("split_bytes", [64, 300, 1 << 20])
def test_any_split_plan_gives_the_core_records(tmp_path: Path, exact: bool, split_bytes: int):
    data = _messy_log() + b"[2024-03-01 10:00:00,000] INFO cut while being wr"
    path = tmp_path / "state-change.log"
    path.write_bytes(data)
    plan, rows = _read(path, split_bytes, ReaderSettings(exact_only=exact, region_bytes=256))
    if split_bytes == 64:
        assert len(plan.splits) > 20, "the plan really cuts inside stack traces"
    assert _got(rows) == _expected(data)
    assert sum(r["line_count"] for r in rows) == plan.lines
    assert rows[-1]["truncated"] and rows[0]["orphan_reason"] == "before_first_record"


def test_unclean_bytes_take_the_core_path(tmp_path: Path):
    body = _messy_log().decode()
    data = (
        body.replace("\n", "\r\n", 30).encode()
        + _line(1, "caf\u00e9 topic \u2713").encode()
        + b"[2024-03-01 10:00:02,002] INFO bad \xff\xfe bytes (state.change.logger)\n"
    )
    path = tmp_path / "server.log"
    path.write_bytes(data)
    for split_bytes in (97, 1 << 20):
        _, rows = _read(path, split_bytes, ReaderSettings(region_bytes=512))
        assert _got(rows) == _expected(data)
    assert any(r["invalid_utf8"] for r in rows)


def test_records_over_the_line_cap_are_cut_like_the_core(tmp_path: Path):
    data = (
        _line(1, "huge").encode()
        + b"\tat x\n" * (DEFAULT_MAX_RECORD_LINES + 5)
        + _line(2, "after").encode()
    )
    path = tmp_path / "controller.log"
    path.write_bytes(data)
    _, rows = _read(path, 1 << 16, ReaderSettings(region_bytes=4096, max_extension=8192))
    assert _got(rows) == _expected(data)
    assert [r["orphan_reason"] for r in rows] == [None, "continuation_overflow", None]


def test_a_long_line_and_a_file_without_records(tmp_path: Path):
    long_line = _line(3, "x" * (3 << 20)).encode()
    data = long_line + _line(4, "y").encode()
    path = tmp_path / "controller.log"
    path.write_bytes(data)
    _, rows = _read(path, 1 << 20, ReaderSettings())
    assert _got(rows) == _expected(data)
    garbage = bytes(range(256)) * 64 + b"\n" + os.urandom(5000)
    junk = tmp_path / "server.log.1"
    junk.write_bytes(garbage)
    _, rows = _read(junk, 1000, ReaderSettings(region_bytes=500, max_extension=1000))
    assert _got(rows) == _expected(garbage)
    assert {r["orphan_reason"] for r in rows} == {"before_first_record"}


def test_gzip_copies_and_gzip_cut_short(tmp_path: Path):
    data = _messy_log()
    plain = tmp_path / "state-change.log"
    plain.write_bytes(data)
    packed = tmp_path / "state-change.log.1.gz"
    packed.write_bytes(gzip.compress(data))
    _, rows = _read(packed, 1 << 20, ReaderSettings(region_bytes=300))
    assert _got(rows) == _expected(data)
    cut = tmp_path / "state-change.log.2.gz"
    packed_more = gzip.compress(data * 50)
    cut.write_bytes(packed_more[: len(packed_more) // 2])
    plan, rows = _read(cut, 1 << 20, ReaderSettings())
    assert plan.error is not None and "cut short" in plan.error
    assert 0 < sum(r["line_count"] for r in rows) == plan.lines
    assert all(r["read_error"] is None for r in rows)


def test_a_file_gone_before_its_split_is_read_is_a_read_error_row(tmp_path: Path):
    path = tmp_path / "controller.log"
    path.write_bytes(_messy_log())
    plan = plan_file(InputFile(str(path), "controller"), [])
    path.unlink()
    split = plan.splits[0]
    task = SplitTask(3, str(path), False, 0, split.end, 1, True, plan.size, KAFKA_LAYOUT)
    rows = [r for b in read_split(task, ReaderSettings(), _index()) for r in b.to_pylist()]
    assert len(rows) == 1 and rows[0]["file_index"] == 3 and rows[0]["line_count"] == 0
    assert "No such file" in rows[0]["read_error"]


@pytest.mark.skipif(not REFERENCE_FILES, reason="reference logs not found")
def test_reference_files_read_exactly_and_candidates_hold_the_matching_entry():
    index = _index()
    positions = {e.name: p for p, e in enumerate(TrialOrder.for_hint(None).entries)}
    checked = 0
    for path in REFERENCE_FILES:
        data = path.read_bytes()
        _, rows = _read(path, 4096, ReaderSettings(region_bytes=2048))
        assert _got(rows) == _expected(data), path.name
        with path.open("rb") as handle:
            for record in assemble_records(handle, LAYOUT):
                outcome = parse_record(record)
                if isinstance(outcome, ParsedEvent) or outcome.status == "ignored":
                    grammar = outcome.grammar
                    if grammar is None:
                        continue
                    first, others = index.lookup(
                        record.text.translate({c: None for c in range(48, 58)})
                    )
                    assert positions[grammar] in (first, *others), (path.name, record.first_line)
                    checked += 1
    assert checked > 4000


def test_required_literals_are_in_every_match():
    assert required_literals(
        r"\[Controller id=([0-9]+)\] Changed partition ([a-z]+) state from"
    ) == (
        "] Changed partition ",
        "[Controller id=",
        " state from",
    )
    # Alternatives, optional parts and short runs require nothing; a repeated group its body.
    assert required_literals(r"(?:abc|abd)x(?:yyy)?zzz(?:www)+q(?=lookahead)") == ("www", "zzz")
    by_name = {e.name: e for e in grammar_entries()}
    for path in REFERENCE_FILES:
        with path.open("rb") as handle:
            for record in assemble_records(handle, LAYOUT):
                outcome = parse_record(record)
                grammar = getattr(outcome, "grammar", None)
                if grammar is None or outcome.status == "quarantined":
                    continue
                message = record.message or ""
                for run in required_literals(by_name[grammar].pattern):
                    assert run in message, (grammar, run, message[:80])
