"""Record batches of magic 2, as Kafka writes them to a log segment or a KRaft snapshot.

``read_batch`` decodes one batch at a byte position: its 61-byte header, its CRC-32C (over the
attributes to the batch's end, as ``DefaultRecordBatch.isValid`` computes it), its records
section (decompressed by the codec its attributes name) and every record's varints, key, value
and headers. The records are kept raw here; ``payloads`` turns their values into metadata and
control records.

A sound records section is read by ``_records_fast``, plain index arithmetic over the batch's
bytes; anything it does not expect (damage, headers, long varints) sends the batch to the
bounded ``Reader`` of ``_read_records``, which says what is wrong and where.
"""

from __future__ import annotations

import enum
import io
import mmap
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

import cramjam
import google_crc32c

from kafkactl_core.metadata_log.compiled import builder, uvarint
from kafkactl_core.metadata_log.wire import DecodeError, Reader
from kafkactl_core.zk.files import SNAPPY_JAVA_MAGIC
from kafkactl_core.zk.snappy import SnappyJavaReader, uncompress_block

FileBytes: TypeAlias = "bytes | mmap.mmap"
"""A whole file: read into memory, or mapped."""

HEADER_SIZE = 61
"""``DefaultRecordBatch.RECORD_BATCH_OVERHEAD``."""
LOG_OVERHEAD = 12
"""Base offset and batch length: the bytes before the length counts from."""
_CRC_START = 21
_HEADER = struct.Struct(">qiibIhiqqqhii")


class Compression(enum.IntEnum):
    """The codec in a batch's attributes (bits 0-2), named as the dump tool prints it."""

    none = 0
    gzip = 1
    snappy = 2
    lz4 = 3
    zstd = 4


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One record of a batch, undecoded.

    Attributes:
        offset: its offset (the batch's base offset plus its delta).
        timestamp: its CreateTime (the batch's max timestamp under LogAppendTime).
        position: its byte offset in the file; its batch's when the batch is compressed.
        key: its key, None when null.
        value: its value, None when null.
        headers: its headers (key, value).
    """

    offset: int
    timestamp: int
    position: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()


@dataclass(frozen=True, slots=True)
class Batch:
    """One record batch and its records.

    Attributes:
        position: its byte offset in the file.
        base_offset: the offset of its first record.
        size: its size in bytes, header included.
        partition_leader_epoch: the raft epoch it was written in.
        magic: the format version (2).
        crc: the stored CRC-32C.
        crc_valid: whether the stored CRC matches the bytes.
        attributes: the raw attribute bits.
        last_offset_delta: its last record's offset minus its base offset.
        base_timestamp: the first timestamp (or the delete horizon, see ``delete_horizon_ms``).
        max_timestamp: the largest timestamp.
        producer_id: -1 outside transactions and idempotent producers.
        producer_epoch: the producer's epoch.
        base_sequence: the producer's first sequence number.
        count: the record count the header claims.
        records: the records decoded (all of them unless ``problem``).
        problem: why the records section could not be read to its end, or None.
    """

    position: int
    base_offset: int
    size: int
    partition_leader_epoch: int
    magic: int
    crc: int
    crc_valid: bool
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    count: int
    records: tuple[LogRecord, ...]
    problem: str | None = None

    @property
    def last_offset(self) -> int:
        """The offset of its last record."""
        return self.base_offset + self.last_offset_delta

    @property
    def compression(self) -> Compression | None:
        """Its codec, None for an unknown codec id."""
        codec = self.attributes & 0x07
        return Compression(codec) if codec in Compression._value2member_map_ else None

    @property
    def log_append_time(self) -> bool:
        """Whether its timestamps are LogAppendTime (attribute bit 3)."""
        return bool(self.attributes & 0x08)

    @property
    def is_transactional(self) -> bool:
        """Attribute bit 4."""
        return bool(self.attributes & 0x10)

    @property
    def is_control(self) -> bool:
        """Attribute bit 5: its records are control records."""
        return bool(self.attributes & 0x20)

    @property
    def delete_horizon_ms(self) -> int | None:
        """The delete horizon when attribute bit 6 is set (it is then the base timestamp)."""
        return self.base_timestamp if self.attributes & 0x40 else None


class BatchError(DecodeError):
    """No batch can be read at a position.

    Attributes:
        cut_short: whether the file ends before the batch does (else the bytes are no batch).
    """

    def __init__(self, offset: int, reason: str, *, cut_short: bool) -> None:
        super().__init__(offset, reason)
        self.cut_short = cut_short


def header_problem(buf: FileBytes, pos: int) -> BatchError | None:
    """Why no batch starts at ``pos`` (bad magic, impossible length, cut short), or None."""
    left = len(buf) - pos
    if left < HEADER_SIZE:
        return BatchError(pos, f"{left} bytes left, too few for a batch header", cut_short=True)
    length = int.from_bytes(buf[pos + 8 : pos + 12], "big", signed=True)
    magic = buf[pos + 16]
    if magic != 2:
        return BatchError(pos, f"magic {magic} where a batch of magic 2 starts", cut_short=False)
    if length < HEADER_SIZE - LOG_OVERHEAD:
        return BatchError(pos, f"batch length {length} is smaller than a header", cut_short=False)
    if length + LOG_OVERHEAD > left:
        reason = f"batch of {length + LOG_OVERHEAD} bytes, only {left} left"
        return BatchError(pos, reason, cut_short=True)
    return None


def crc_matches(buf: FileBytes, pos: int) -> bool:
    """Whether the batch at ``pos`` (with a sound header) has a matching CRC-32C."""
    length = int.from_bytes(buf[pos + 8 : pos + 12], "big", signed=True)
    stored = int.from_bytes(buf[pos + 17 : pos + 21], "big")
    return (
        int(google_crc32c.value(bytes(buf[pos + _CRC_START : pos + LOG_OVERHEAD + length])))
        == stored
    )


def read_batch(buf: FileBytes, pos: int) -> Batch:
    """Decode the batch at ``pos``.

    Args:
        buf: the file's bytes.
        pos: where the batch starts.

    Returns:
        The batch; a CRC mismatch is flagged, not fatal, and a records section that cannot be
        read to its end keeps the records before the damage and says why in ``problem``.

    Raises:
        BatchError: no batch starts there (see ``header_problem``).
    """
    header = _HEADER.unpack_from(buf, pos) if len(buf) - pos >= HEADER_SIZE else None
    if (
        header is None
        or header[3] != 2
        or not HEADER_SIZE - LOG_OVERHEAD <= header[1] <= len(buf) - pos - LOG_OVERHEAD
    ):
        # header_problem names what is wrong (the second reason is for the type checker)
        raise header_problem(buf, pos) or BatchError(pos, "no batch", cut_short=False)
    (
        base_offset,
        length,
        epoch,
        magic,
        crc,
        attributes,
        last_delta,
        base_ts,
        max_ts,
        pid,
        pepoch,
        base_seq,
        count,
    ) = header
    size = length + LOG_OVERHEAD
    # from the CRC's start to the batch's end: what the CRC covers, the records from byte 40
    body = bytes(buf[pos + _CRC_START : pos + size])
    crc_valid = int(google_crc32c.value(body)) == crc
    records = _records_fast(body, pos, attributes, base_offset, base_ts, max_ts, count)
    problem: str | None = None
    if records is None:
        records = []
        try:
            _read_records(buf, pos, size, attributes, base_offset, base_ts, max_ts, count, records)
        except DecodeError as exc:
            problem = (
                f"records section: {exc.reason} (record {len(records)} of {count}, "
                f"byte {exc.offset})"
            )
    return _batch(
        pos,
        base_offset,
        size,
        epoch,
        magic,
        crc,
        crc_valid,
        attributes,
        last_delta,
        base_ts,
        max_ts,
        pid,
        pepoch,
        base_seq,
        count,
        tuple(records),
        problem,
    )


_log_record = builder(LogRecord)
_batch = builder(Batch)
_RECORDS_START = HEADER_SIZE - _CRC_START
_SHAPE = struct.Struct(">BxBBBB").unpack_from
"""A record's length, timestamp delta, offset delta, key length and value length bytes, when
each is one byte."""


def _records_fast(
    body: bytes,
    pos: int,
    attributes: int,
    base_offset: int,
    base_ts: int,
    max_ts: int,
    count: int,
) -> list[LogRecord] | None:
    """``_read_records`` for a sound records section: the same records, or None on anything
    else (then ``_read_records`` reads it and says what is wrong). Records with headers are
    left to it too."""
    codec = attributes & 0x07
    try:
        if codec == Compression.none:
            data, p, at_base = body, _RECORDS_START, pos + _CRC_START
        else:
            data, p, at_base = _decompress(codec, body[_RECORDS_START:], pos), 0, -1
        return _records(
            data, p, at_base, pos, bool(attributes & 0x08), base_offset, base_ts, max_ts, count
        )
    except Exception:  # anything amiss: the bounded reader says what
        return None


def _records(
    data: bytes,
    p: int,
    at_base: int,
    pos: int,
    log_append: bool,
    base_offset: int,
    base_ts: int,
    max_ts: int,
    count: int,
) -> list[LogRecord] | None:
    n = len(data)
    out: list[LogRecord] = []
    append = out.append
    make = _log_record
    shape = _SHAPE
    for _ in range(count):
        at = pos if at_base < 0 else at_base + p
        # most records: length, timestamp and offset deltas and value length in one byte each
        # (even: not negative), a null key; their first 6 bytes (a record has 7 at least) say so
        ln, t, o, k, vl = shape(data, p)
        if ln < 0x80 and t < 0x80 and o < 0x80 and k == 1 and vl < 0x80 and not (ln | vl) & 1:
            end = p + 1 + (ln >> 1)
            p += 6
            e = p + (vl >> 1)
            if e + 1 != end or end > n or data[e]:  # headers, or bytes left in the record
                return None
            append(
                make(
                    base_offset + ((o >> 1) ^ -(o & 1)),
                    max_ts if log_append else base_ts + ((t >> 1) ^ -(t & 1)),
                    at,
                    None,
                    data[p:e],
                    (),
                )
            )
            p = end
            continue
        v = data[p]
        if v < 0x80:
            p += 1
        else:
            v, p = uvarint(data, p, 5)
        length = (v >> 1) ^ -(v & 1)
        if length < 0 or length > n - p:
            return None
        end = p + length
        p += 1  # attributes
        v = data[p]
        if v < 0x80:
            p += 1
        else:
            v, p = uvarint(data, p, 10)
        ts_delta = (v >> 1) ^ -(v & 1)
        v = data[p]
        if v < 0x80:
            p += 1
        else:
            v, p = uvarint(data, p, 5)
        offset_delta = (v >> 1) ^ -(v & 1)
        v = data[p]
        if v < 0x80:
            p += 1
        else:
            v, p = uvarint(data, p, 5)
        key_len = (v >> 1) ^ -(v & 1)
        if key_len < 0:
            key = None
        else:
            e = p + key_len
            if e > n:
                return None
            key = data[p:e]
            p = e
        v = data[p]
        if v < 0x80:
            p += 1
        else:
            v, p = uvarint(data, p, 5)
        value_len = (v >> 1) ^ -(v & 1)
        if value_len < 0:
            value = None
        else:
            e = p + value_len
            if e > n:
                return None
            value = data[p:e]
            p = e
        if data[p] != 0 or p + 1 != end:  # headers, or bytes left in the record
            return None
        p = end
        append(
            make(
                base_offset + offset_delta,
                max_ts if log_append else base_ts + ts_delta,
                at,
                key,
                value,
                (),
            )
        )
    return out if p == n else None


MAX_EXPANSION = 256
"""How many times its compressed size (plus ``_EXPANSION_FLOOR``) a batch's records may inflate
to. Metadata records compress a few times; gzip can reach 1032 times and zstd has no limit, so an
8 KiB batch decompressed to 256 MiB, and a hostile one could ask for gigabytes."""
_EXPANSION_FLOOR = 64 << 10
_GROWTH = 8


def _inflate(data: bytes, limit: int) -> bytes:
    """gzip members, up to ``limit + 1`` bytes (one past: the caller sees it was exceeded)."""
    parts: list[bytes] = []
    have = 0
    while data and have <= limit:
        inflater = zlib.decompressobj(wbits=31)
        parts.append(inflater.decompress(data, limit + 1 - have))
        have += len(parts[-1])
        if not inflater.eof:
            if have <= limit:
                raise EOFError("compressed data ended before the end-of-stream marker")
            break
        data = inflater.unused_data
    return b"".join(parts)


def _into(
    decompress_into: Callable[[bytes, bytearray], int], data: bytes, limit: int
) -> bytes | None:
    """A cramjam codec's output, in buffers growing up to ``limit`` bytes; None past it."""
    size = min(limit, max(_EXPANSION_FLOOR, _GROWTH * len(data)))
    while True:
        out = bytearray(size)
        try:
            return bytes(memoryview(out)[: decompress_into(data, out)])
        except cramjam.DecompressionError as exc:
            if size < limit:
                size = min(limit, size * _GROWTH)
            elif "whole buffer" in str(exc):  # the output did not fit in ``limit`` bytes
                return None
            else:
                raise


def _decompress(codec: int, data: bytes, pos: int) -> bytes:
    if codec not in (Compression.gzip, Compression.snappy, Compression.lz4, Compression.zstd):
        raise DecodeError(pos, f"unknown compression codec {codec}")
    name = Compression(codec).name
    limit = _EXPANSION_FLOOR + MAX_EXPANSION * len(data)
    out: bytes | None
    try:
        if codec == Compression.gzip:
            out = _inflate(data, limit)
        elif codec == Compression.snappy:
            if data.startswith(SNAPPY_JAVA_MAGIC):
                out = SnappyJavaReader(io.BytesIO(data)).read(limit + 1)
            else:
                out = uncompress_block(data, max_size=limit + 1)
        elif codec == Compression.lz4:
            out = _into(cramjam.lz4.decompress_into, data, limit)
        else:
            out = _into(cramjam.zstd.decompress_into, data, limit)
    except (OSError, EOFError, ValueError, zlib.error, cramjam.DecompressionError) as exc:
        raise DecodeError(pos, f"{name} records do not decompress: {exc}") from None
    if out is None or len(out) > limit:
        raise DecodeError(
            pos,
            f"{name} records decompress past {limit} bytes, {MAX_EXPANSION} times their "
            f"{len(data)} (a decompression bomb)",
        )
    return out


def _read_records(
    buf: FileBytes,
    pos: int,
    size: int,
    attributes: int,
    base_offset: int,
    base_ts: int,
    max_ts: int,
    count: int,
    out: list[LogRecord],
) -> None:
    codec = attributes & 0x07
    start = pos + HEADER_SIZE
    if codec == Compression.none:
        r = Reader(buf, start, pos + size)
    else:
        # Offsets inside decompressed bytes are no file offsets: errors name the batch's.
        r = Reader(_decompress(codec, bytes(buf[start : pos + size]), pos), base=0)
    log_append = bool(attributes & 0x08)
    for _ in range(count):
        at = r.base + r.pos if codec == Compression.none else pos
        length = r.varint()
        if length < 0 or length > r.remaining:
            raise r.fail(f"record length {length} with {r.remaining} bytes left")
        end = r.pos + length
        r.int8()
        ts_delta = r.varlong()
        offset_delta = r.varint()
        key_len = r.varint()
        key = None if key_len < 0 else r.raw(key_len, "record key")
        value_len = r.varint()
        value = None if value_len < 0 else r.raw(value_len, "record value")
        headers = tuple(_header(r) for _ in range(r.varint()))
        if r.pos != end:
            raise r.fail(f"record of {length} bytes ends at {r.pos - end:+d} bytes from its length")
        out.append(
            LogRecord(
                base_offset + offset_delta,
                max_ts if log_append else base_ts + ts_delta,
                at,
                key,
                value,
                headers,
            )
        )
    if r.remaining:
        raise r.fail(f"{r.remaining} bytes after the last of {count} records")


def _header(r: Reader) -> tuple[str, bytes | None]:
    key = r.raw(r.varint(), "header key").decode("utf-8", "replace")
    value_len = r.varint()
    return key, None if value_len < 0 else r.raw(value_len, "header value")
