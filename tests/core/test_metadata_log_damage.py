"""Damaged metadata log files: each a clear problem at its byte offset, and nothing else lost.

The inputs are written by ``kafkactl_lab.metadata_log_encode``, then cut, flipped, overwritten
or padded: a segment cut anywhere in its last batch, a flipped bit, a corrupted batch length,
garbage, zeros, a snapshot cut short, record types and versions the decoder does not know, and
length fields claiming gigabytes, which must fail fast without allocating them.
"""

from __future__ import annotations

import base64
import random
import struct
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import google_crc32c
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafkactl_core.metadata_log.batches import (
    HEADER_SIZE,
    Batch,
    BatchError,
    Compression,
    LogRecord,
    read_batch,
)
from kafkactl_core.metadata_log.payloads import decode
from kafkactl_core.metadata_log.record_types import METADATA_BY_KEY
from kafkactl_core.metadata_log.segments import SNAPSHOT, Problem, Scan, kind_of, scan
from kafkactl_core.metadata_log.wire import DecodeError, Reader
from kafkactl_lab.metadata_log_encode import (
    Record,
    control_record,
    encode_batch,
    encode_message,
    frame,
    metadata_record,
    uvarint,
    varint,
)

TOPIC, PARTITION, CHANGE = METADATA_BY_KEY[2], METADATA_BY_KEY[3], METADATA_BY_KEY[5]
LEADER_CHANGE, SNAPSHOT_HEADER, SNAPSHOT_FOOTER = 2, 3, 4
LENGTH_AT = 8  # a batch's length field
MAGIC_AT = 16


def _uuid(i: int) -> str:
    return base64.urlsafe_b64encode(i.to_bytes(16, "big")).rstrip(b"=").decode("ascii")


def _topic_records(i: int) -> list[Record]:
    topic_id = _uuid(i + 1)
    return [
        metadata_record(TOPIC, 0, {"name": f"topic-{i}-flip-me", "topicId": topic_id}),
        metadata_record(
            PARTITION,
            2,
            {
                "partitionId": 0,
                "topicId": topic_id,
                "replicas": [1, 2, 3],
                "isr": [1, 2, 3],
                "removingReplicas": [],
                "addingReplicas": [],
                "leader": 1 + i % 3,
                "leaderEpoch": 0,
                "partitionEpoch": 0,
                "directories": [_uuid(100 + d) for d in range(3)],
            },
            timestamp_delta=1,
        ),
        metadata_record(
            CHANGE, 2, {"partitionId": 0, "topicId": topic_id, "isr": [1, 2]}, timestamp_delta=2
        ),
    ]


def _segment(
    batches: int = 5, compression: Compression = Compression.none
) -> tuple[bytes, list[int]]:
    """A leader change then ``batches - 1`` batches of three records; the batches' positions."""
    parts = [
        encode_batch(
            [control_record(LEADER_CHANGE, _leader_change())], control=True, base_timestamp=1000
        )
    ]
    offset = 1
    for i in range(batches - 1):
        records = _topic_records(i)
        parts.append(
            encode_batch(
                records, base_offset=offset, compression=compression, base_timestamp=2000 + i
            )
        )
        offset += len(records)
    positions = [0]
    for part in parts:
        positions.append(positions[-1] + len(part))
    return b"".join(parts), positions[:-1]


def _leader_change() -> dict[str, Any]:
    return {"version": 0, "leaderId": 1, "voters": [{"voterId": 1}], "grantingVoters": []}


def _set_length(buf: bytes, pos: int, length: int) -> bytes:
    return buf[: pos + LENGTH_AT] + struct.pack(">i", length) + buf[pos + LENGTH_AT + 4 :]


def _fix_crc(batch: bytearray) -> bytes:
    struct.pack_into(">I", batch, 17, google_crc32c.value(bytes(batch[21:])))
    return bytes(batch)


def _clean(buf: bytes) -> list[Batch]:
    result = scan(buf)
    assert result.problems == [] and result.end == len(buf)
    return result.batches


def _kinds(result: Scan) -> list[tuple[int, str]]:
    return [(p.position, p.kind) for p in result.problems]


@contextmanager
def _allocates_at_most(limit: int) -> Iterator[None]:
    tracemalloc.start()
    try:
        yield
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit, f"peak allocation {peak} bytes"


def test_an_empty_file_has_no_batches_and_no_problems() -> None:
    assert scan(b"") == Scan([], [], 0)


@pytest.mark.parametrize("compression", [Compression.none, Compression.zstd], ids=str)
def test_a_segment_cut_anywhere_in_its_last_batch(compression: Compression) -> None:
    buf, positions = _segment(compression=compression)
    clean = _clean(buf)
    last = positions[-1]
    for cut in range(1, len(buf) - last):
        result = scan(buf[: last + cut])
        assert result.batches == clean[:-1], cut
        assert result.end == last
        [problem] = result.problems
        assert (problem.position, problem.kind, problem.skipped) == (last, "truncated", cut)
        assert problem.reason.startswith(
            f"{cut} bytes left" if cut < HEADER_SIZE else f"batch of {len(buf) - last} bytes"
        )


def test_a_flipped_bit_in_a_record_value_is_a_crc_mismatch_and_the_batch_still_decodes() -> None:
    buf, positions = _segment()
    clean = _clean(buf)
    at = buf.index(b"topic-1-flip-me")
    damaged = buf[:at] + bytes([buf[at] ^ 0x01]) + buf[at + 1 :]  # "t" becomes "u"
    result = scan(damaged)
    assert _kinds(result) == [(positions[2], "crc_mismatch")]
    assert result.end == len(buf)
    assert len(result.batches) == len(clean)
    for i, (got, want) in enumerate(zip(result.batches, clean, strict=True)):
        if i != 2:
            assert got == want
    flipped = result.batches[2]
    assert not flipped.crc_valid and flipped.problem is None
    assert len(flipped.records) == 3
    data = decode(flipped.records[0], control=False).data
    assert data is not None and data["name"] == "uopic-1-flip-me"


def test_a_flipped_bit_in_compressed_records_loses_that_batch_only() -> None:
    buf, positions = _segment(compression=Compression.gzip)
    clean = _clean(buf)
    at = positions[2] + HEADER_SIZE + 20
    damaged = buf[:at] + bytes([buf[at] ^ 0x10]) + buf[at + 1 :]
    result = scan(damaged)
    assert _kinds(result) == [(positions[2], "crc_mismatch"), (positions[2], "records")]
    assert "gzip records do not decompress" in result.problems[1].reason
    assert result.batches[:2] == clean[:2] and result.batches[3:] == clean[3:]
    assert result.batches[2].records == ()


@pytest.mark.parametrize(
    "length",
    [2**31 - 1, 1 << 30, -1, 0, 10, HEADER_SIZE - 13],
    ids=lambda n: f"length={n}",
)
def test_a_corrupted_batch_length_skips_that_batch_only(length: int) -> None:
    buf, positions = _segment()
    clean = _clean(buf)
    result = scan(_set_length(buf, positions[2], length))
    [problem] = result.problems
    assert (problem.position, problem.kind) == (positions[2], "unreadable")
    assert problem.skipped == positions[3] - positions[2]
    assert f"{problem.skipped} bytes skipped" in problem.reason
    assert result.batches == clean[:2] + clean[3:]
    assert result.end == len(buf)


@pytest.mark.parametrize("change", [-7, -1, 1, 7, 200], ids=lambda n: f"length{n:+d}")
def test_a_batch_length_off_by_a_little_loses_no_other_batch(change: int) -> None:
    """Shorter: the batch ends early, the rest of it is skipped. Longer: it runs over the next
    batch, whose matching CRC marks where the damaged one really ends."""
    buf, positions = _segment()
    clean = _clean(buf)
    length = positions[3] - positions[2] - 12
    result = scan(_set_length(buf, positions[2], length + change))
    assert result.end == len(buf)
    assert [b.position for b in result.batches] == positions
    assert result.batches[:2] == clean[:2] and result.batches[3:] == clean[3:]
    expected = [(positions[2], "crc_mismatch"), (positions[2], "records")]
    if change < 0:
        expected.append((positions[3] + change, "unreadable"))
        assert result.problems[-1].skipped == -change
    else:
        assert f"runs over the batch at byte {positions[3]}" in result.problems[0].reason
        assert f"{change} bytes after the last of 3 records" in result.problems[1].reason
        assert result.batches[2].records == clean[2].records
    assert _kinds(result) == expected


def test_a_segment_ending_in_garbage_or_zeros() -> None:
    buf, _ = _segment()
    clean = _clean(buf)
    for tail, kind in [
        (bytes(4096), "unreadable"),
        (bytes(HEADER_SIZE - 1), "truncated"),
        (random.Random(7).randbytes(3000), "unreadable"),
    ]:
        result = scan(buf + tail)
        assert result.batches == clean
        assert result.end == len(buf)
        assert result.problems == [Problem(len(buf), kind, result.problems[0].reason, len(tail))]


def test_garbage_before_the_batches_is_skipped_to_the_first_of_them() -> None:
    buf, _ = _segment()
    clean = _clean(buf)
    garbage = random.Random(3).randbytes(777)
    result = scan(garbage + buf)
    assert _kinds(result) == [(0, "unreadable")]
    assert result.problems[0].skipped == len(garbage)
    assert [[(r.offset, r.value) for r in b.records] for b in result.batches] == [
        [(r.offset, r.value) for r in b.records] for b in clean
    ]
    assert [b.position - len(garbage) for b in result.batches] == [b.position for b in clean]


TEXT = b"".join(
    f"[2024-05-01 10:00:{s:02d},000] INFO [Controller id=1] Processing automatic preferred "
    f"replica leader election (kafka.controller.KafkaController)\n".encode()
    for s in range(60)
)


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (TEXT, "unreadable"),
        (random.Random(11).randbytes(10_000), "unreadable"),
        (b"x", "truncated"),  # too short for a header
        (b"\x02" * 5000, "truncated"),  # a header claiming 33 MB
    ],
    ids=["text", "random", "one-byte", "magic-bytes"],
)
def test_a_file_that_is_no_segment_is_one_problem(content: bytes, kind: str) -> None:
    result = scan(content)
    assert result.batches == [] and result.end == 0
    [problem] = result.problems
    assert (problem.position, problem.skipped) == (0, len(content))
    assert problem.kind == kind


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_scan_without_raising(content: bytes) -> None:
    result = scan(content)
    assert result.batches == []
    assert sum(p.skipped for p in result.problems) == len(content)


def _snapshot() -> tuple[bytes, list[int]]:
    header = {"version": 0, "lastContainedLogTimestamp": 1_700_000_000_000}
    parts = [
        encode_batch([control_record(SNAPSHOT_HEADER, header)], control=True),
        encode_batch(_topic_records(0), base_offset=0),
        encode_batch(_topic_records(1), base_offset=3, compression=Compression.lz4),
        encode_batch(_topic_records(2), base_offset=6),
        encode_batch([control_record(SNAPSHOT_FOOTER, {"version": 0})], control=True),
    ]
    positions = [sum(len(p) for p in parts[:i]) for i in range(len(parts))]
    return b"".join(parts), positions


def test_a_snapshot_cut_short_keeps_everything_before_the_cut() -> None:
    assert kind_of("00000000000000000009-0000000003.checkpoint").kind == SNAPSHOT
    buf, positions = _snapshot()
    clean = _clean(buf)
    labels = [decode(b.records[0], control=b.is_control).type for b in clean]
    assert labels[0] == "SnapshotHeader" and labels[-1] == "SnapshotFooter"
    for k, start in enumerate(positions):
        for cut in (start + 1, start + HEADER_SIZE, start + (len(buf) - start) // 2):
            if k + 1 < len(positions) and cut >= positions[k + 1]:
                continue
            result = scan(buf[:cut])
            assert result.batches == clean[:k]
            assert result.end == start
            assert result.problems == [
                Problem(start, "truncated", result.problems[0].reason, cut - start)
            ]


def test_unknown_record_types_and_versions_are_kept_with_their_problem() -> None:
    known = metadata_record(TOPIC, 0, {"name": "t", "topicId": _uuid(1)})
    body = encode_message(TOPIC, 0, {"name": "t", "topicId": _uuid(1)})
    records = [
        known,
        Record(frame(99, 0, b"\x00")),
        Record(frame(TOPIC.api_key, 7, body)),
        Record(uvarint(2) + frame(2, 0, body)[1:]),
        Record(frame(TOPIC.api_key, 0, body + b"\x00")),
        Record(None),
        known,
    ]
    controls = [
        control_record(LEADER_CHANGE, _leader_change()),
        Record(b"\x00", struct.pack(">hh", 0, 9)),
        Record(b"\x00", None),
    ]
    buf = encode_batch(records) + encode_batch(controls, base_offset=len(records), control=True)
    result = scan(buf)
    assert result.problems == []
    metadata, control = result.batches
    assert len(metadata.records) == len(records) and len(control.records) == len(controls)
    payloads = [decode(r, control=False) for r in metadata.records]
    payloads += [decode(r, control=True) for r in control.records]
    got = [(p.type, p.api_key, p.version, p.problem) for p in payloads]
    assert got == [
        ("TOPIC_RECORD", 2, 0, None),
        ("api_key=99", 99, 0, "unknown metadata record type 99"),
        ("TOPIC_RECORD", 2, 7, "TopicRecord version 7 is unknown here"),
        ("frame", None, None, "frame version 2, only 1 is read"),
        ("TOPIC_RECORD", 2, 0, "value byte 22: 1 bytes of garbage after the record"),
        ("null", None, None, "a metadata record with a null value"),
        ("TOPIC_RECORD", 2, 0, None),
        ("LeaderChange", 2, 0, None),
        ("control_type=9", 9, None, "control type 9 is not KRaft's"),
        ("key", None, None, "a control record without its 4-byte key"),
    ]
    # The record stays with its bytes: nothing is dropped.
    assert metadata.records[1].value == frame(99, 0, b"\x00")


def _measure(read: Callable[[], object]) -> object:
    with _allocates_at_most(1 << 20):
        return read()


GIGABYTES = uvarint(3 << 30)  # a compact length of 3 GiB


@pytest.mark.parametrize(
    ("what", "message", "at"),
    [
        ("string", GIGABYTES + b"abc", 0),
        ("bytes", b"\x01" + GIGABYTES, 1),
        ("array", b"\x05" + GIGABYTES, 1),
    ],
)
def test_a_compact_length_of_gigabytes_fails_fast_at_its_offset(
    what: str, message: bytes, at: int
) -> None:
    def read() -> object:
        r = Reader(message, base=1000)
        r.pos = at
        if what == "string":
            return r.compact_string()
        if what == "bytes":
            return r.compact_bytes()
        return r.compact_length("array")

    with pytest.raises(DecodeError) as info:
        _measure(read)
    assert info.value.offset == 1000 + at + len(GIGABYTES)
    assert "claimed" in info.value.reason


def test_a_gigabyte_field_in_a_record_is_its_problem_without_allocating() -> None:
    value = frame(TOPIC.api_key, 0, GIGABYTES + b"topic")  # TopicRecord's name
    payload = _measure(lambda: decode(LogRecord(0, 0, 0, None, value), control=False))
    assert getattr(payload, "problem", None) == (
        f"value byte {3 + len(GIGABYTES)}: string of {(3 << 30) - 1} claimed, only 5 bytes left"
    )
    tagged = frame(CHANGE.api_key, 0, bytes(4) + bytes(16) + b"\x01\x00" + GIGABYTES)
    payload = _measure(lambda: decode(LogRecord(0, 0, 0, None, tagged), control=False))
    assert "tagged field 0 of 3221225472 bytes" in str(getattr(payload, "problem", ""))


def test_a_gigabyte_record_length_is_the_batch_problem_without_allocating() -> None:
    good = encode_batch([Record(b"v" * 10)])
    raw = bytearray(good[:HEADER_SIZE] + varint(2**31 - 1) + bytes(20))
    struct.pack_into(">i", raw, LENGTH_AT, len(raw) - 12)
    batch = _fix_crc(raw)
    read = _measure(lambda: read_batch(batch, 0))
    assert isinstance(read, Batch) and read.crc_valid
    assert read.problem == (
        f"records section: record length {2**31 - 1} with 20 bytes left "
        f"(record 0 of 1, byte {HEADER_SIZE + len(varint(2**31 - 1))})"
    )
    assert _kinds(scan(batch)) == [(0, "records")]


def test_a_gigabyte_batch_length_fails_fast_naming_its_offset() -> None:
    buf, positions = _segment()
    damaged = _set_length(buf, positions[-1], 2**31 - 1)
    with pytest.raises(BatchError) as info:
        _measure(lambda: read_batch(damaged, positions[-1]))
    assert info.value.offset == positions[-1] and info.value.cut_short
    result = _measure(lambda: scan(damaged))
    assert isinstance(result, Scan)
    assert _kinds(result) == [(positions[-1], "truncated")]


def test_a_zstd_frame_claiming_a_terabyte_is_the_batch_problem_without_allocating() -> None:
    frame_header = b"\x28\xb5\x2f\xfd\xe0" + struct.pack("<Q", 1 << 40) + b"\x01\x00\x00"
    batch = bytearray(encode_batch([Record(b"v")], compression=Compression.zstd))
    batch = bytearray(batch[:HEADER_SIZE] + frame_header)
    struct.pack_into(">i", batch, LENGTH_AT, len(batch) - 12)
    read = _measure(lambda: read_batch(_fix_crc(batch), 0))
    assert isinstance(read, Batch) and read.crc_valid and read.records == ()
    assert read.problem is not None and "zstd records do not decompress" in read.problem
