"""Input discovery and planning: Kafka log names, hashing, resuming grown files, splits."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from jobs.logparse.inputs import InputFile, KnownExtent, discover, log_kind, plan_file


def _lines(count: int, start: int = 1) -> bytes:
    return b"".join(
        b"[2024-01-01 00:00:00,000] INFO line %d (x)\n" % i for i in range(start, start + count)
    )


def test_log_kinds_by_name() -> None:
    assert log_kind("/a/controller.log") == "controller"
    assert log_kind("/a/state-change.log.1") == "state-change"
    assert log_kind("/a/server.log.2024-01-01-13") == "server"
    assert log_kind("/a/server.log.2024-01-01-13.gz") == "server"
    assert log_kind("/a/kafkaServer-gc.log") == "other"


def test_discover_takes_kafka_logs_from_directories_and_named_files(tmp_path: Path) -> None:
    (tmp_path / "broker-1").mkdir()
    for name in (
        "controller.log",
        "state-change.log.1",
        "server.log.2024-01-01-13.gz",
        "kafkaServer-gc.log",
        "log-cleaner.log",
    ):
        (tmp_path / "broker-1" / name).write_bytes(b"x\n")
    named = tmp_path / "incident-excerpt.txt"
    named.write_bytes(b"y\n")
    found = discover([str(tmp_path / "broker-1"), str(named), str(tmp_path / "broker-1" / "*.log")])
    names = sorted((Path(f.path).name, f.kind) for f in found)
    assert names == [
        ("controller.log", "controller"),
        ("incident-excerpt.txt", "other"),
        ("kafkaServer-gc.log", "other"),
        ("log-cleaner.log", "other"),
        ("server.log.2024-01-01-13.gz", "server"),
        ("state-change.log.1", "state-change"),
    ]
    with pytest.raises(FileNotFoundError, match="no such file"):
        discover([str(tmp_path / "absent")])


def test_plan_reads_everything_of_a_new_file(tmp_path: Path) -> None:
    path = tmp_path / "controller.log"
    path.write_bytes(_lines(10))
    plan = plan_file(InputFile(str(path), "controller"), [])
    assert plan.lines == 10 and plan.size == len(_lines(10))
    assert [(s.start, s.end, s.first_line) for s in plan.splits] == [(0, plan.size, 1)]
    assert plan.resume is None and not plan.skipped


def test_same_bytes_under_another_name_are_skipped(tmp_path: Path) -> None:
    first = tmp_path / "controller.log"
    first.write_bytes(_lines(5))
    done = plan_file(InputFile(str(first), "controller"), [])
    rotated = tmp_path / "controller.log.2024-01-01-00.gz"
    rotated.write_bytes(gzip.compress(_lines(5)))
    plan = plan_file(
        InputFile(str(rotated), "controller"), [KnownExtent(done.sha256, done.size, 5)]
    )
    assert plan.sha256 == done.sha256, "identity is the decompressed content"
    assert plan.skipped


def test_a_grown_file_resumes_after_what_was_ingested(tmp_path: Path) -> None:
    path = tmp_path / "controller.log"
    path.write_bytes(_lines(4))
    before = plan_file(InputFile(str(path), "controller"), [])
    path.write_bytes(_lines(7))
    plan = plan_file(
        InputFile(str(path), "controller"), [KnownExtent(before.sha256, before.size, 4)]
    )
    assert plan.resume is not None
    assert [(s.start, s.first_line) for s in plan.splits] == [(before.size, 5)]
    assert plan.lines == 7


def test_a_line_cut_while_written_is_read_again_whole(tmp_path: Path) -> None:
    path = tmp_path / "controller.log"
    whole = _lines(3)
    cut = len(_lines(2)) + 10
    path.write_bytes(whole[:cut])
    before = plan_file(InputFile(str(path), "controller"), [])
    assert before.lines == 3, "a last line without newline is a line"
    path.write_bytes(whole)
    plan = plan_file(
        InputFile(str(path), "controller"), [KnownExtent(before.sha256, before.size, 3)]
    )
    assert [(s.start, s.first_line) for s in plan.splits] == [(len(_lines(2)), 3)]


def test_big_files_are_cut_at_line_starts_with_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "state-change.log"
    data = _lines(1000)
    path.write_bytes(data)
    plan = plan_file(InputFile(str(path), "state-change"), [], split_bytes=4096)
    assert len(plan.splits) > 5
    assert plan.splits[0].start == 0 and plan.splits[-1].end == len(data)
    for previous, split in zip(plan.splits, plan.splits[1:], strict=False):
        assert previous.end == split.start
        assert data[split.start - 1 : split.start] == b"\n"
        assert split.first_line == data[: split.start].count(b"\n") + 1


def test_a_gz_file_cut_short_keeps_its_readable_bytes(tmp_path: Path) -> None:
    path = tmp_path / "server.log.1.gz"
    packed = gzip.compress(_lines(2000))
    path.write_bytes(packed[: len(packed) // 2])
    plan = plan_file(InputFile(str(path), "server"), [])
    assert plan.error is not None and "gzip data cut short after byte" in plan.error
    assert 0 < plan.size < len(_lines(2000))
