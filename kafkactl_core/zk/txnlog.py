"""Streaming decoder of ZooKeeper transaction log files (``log.<zxid>`` in ``version-2/``).

Layout (``FileTxnLog``): a ``FileHeader`` (magic ``ZKLG``, version, dbid), then entries of
``long crc`` (Adler32 of the payload), ``int length``, payload (``TxnHeader`` + txn record +,
from 3.6, an optional ``TxnDigest``) and the end-of-record byte ``'B'``; the file is
preallocated, so the log ends at the first entry of length 0 followed by zero padding.

``read_txnlog`` yields ``TxnEntry`` values one at a time and never holds more than a chunk of
the file. Damage (truncation, checksum mismatch, an absurd length, a missing end-of-record
byte, non-zero bytes inside the padding) stops decoding at that entry: every entry before it
has been yielded, and the reader's ``summary`` names the file and byte offset. Nothing raises
for bad input.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from kafkactl_core.zk.files import (
    Source,
    describe_magic,
    open_source,
    parse_data_file_name,
    source_name,
)
from kafkactl_core.zk.files import source_size as _source_size
from kafkactl_core.zk.jute import (
    DEFAULT_LIMITS,
    DIGEST,
    END_OF_RECORD,
    FILE_HEADER,
    HEADER,
    LONG_INT,
    TXNLOG_MAGIC,
    BytesCursor,
    ChunkReader,
    DecodeError,
    FileIssue,
    IssueKind,
    Limits,
    TxnDigest,
    TxnHeader,
    TxnRecord,
    UnknownTxn,
    decode_record,
    decode_record_fast,
    op_name,
)

_ENTRY_HEAD = LONG_INT.size  # crc (long) + length (int)
_HEADER_SIZE = HEADER.size


@dataclass(frozen=True, slots=True)
class TxnEntry:
    """One transaction of a log file.

    Attributes:
        offset: byte offset of the entry (its checksum field) in the file.
        length: payload length in bytes.
        header: the ``TxnHeader`` (session, cxid, zxid, time, type).
        record: the decoded txn record (``SetDataTxn``, ``MultiTxn`` …).
        digest: the 3.6+ tree digest, when present.
    """

    offset: int
    length: int
    header: TxnHeader
    record: TxnRecord
    digest: TxnDigest | None

    @property
    def zxid(self) -> int:
        """The transaction's zxid."""
        return self.header.zxid

    @property
    def time(self) -> int:
        """The transaction's time, ms since the epoch."""
        return self.header.time

    @property
    def op(self) -> str:
        """The op name."""
        return op_name(self.header.type)


@dataclass(frozen=True, slots=True)
class TxnLogSummary:
    """What decoding one log file gave.

    Attributes:
        file: the file as named by the caller.
        name_zxid: the zxid in the file name (``log.<zxid>``), None when absent.
        version: file format version from the header (2 for every ZooKeeper since 3.0).
        dbid: database id from the header.
        entries: entries decoded (and yielded).
        first_zxid: zxid of the first entry.
        last_zxid: zxid of the last entry.
        end_offset: where decoding stopped: start of the padding, end of file or the damage.
        size: the file size when known.
        issues: problems found; a fatal one stopped decoding.
    """

    file: str
    name_zxid: int | None
    version: int | None
    dbid: int | None
    entries: int
    first_zxid: int | None
    last_zxid: int | None
    end_offset: int
    size: int | None
    issues: tuple[FileIssue, ...]

    @property
    def error(self) -> FileIssue | None:
        """The fatal issue that stopped decoding, None when the file was read to its end."""
        return next((issue for issue in self.issues if issue.fatal), None)

    @property
    def complete(self) -> bool:
        """Whether the whole file decoded without a fatal issue."""
        return self.error is None


class TxnLogReader:
    """Iterate a transaction log's entries; ``summary`` is final once iteration ends.

    Iterating twice re-reads a path but not a file object (its position has moved).
    """

    def __init__(
        self,
        source: Source,
        name: str | None = None,
        *,
        limits: Limits = DEFAULT_LIMITS,
        chunk: int = 1 << 20,
        verify_padding: bool = True,
    ) -> None:
        """Prepare to read ``source``.

        Args:
            source: a path or a binary file object.
            name: the name to cite in errors (default: the path or ``f.name``).
            limits: bounds for length fields.
            chunk: read size.
            verify_padding: check that everything after the end-of-log marker is zero padding
                (costs one read of the padding; damage hidden behind a zeroed entry head
                would otherwise go unnoticed).
        """
        self._source = source
        self.file = source_name(source, name)
        self._limits = limits
        self._chunk = chunk
        self._verify_padding = verify_padding
        self._size = _source_size(source)
        self._name_zxid = parse_data_file_name(self.file).zxid
        self._version: int | None = None
        self._dbid: int | None = None
        self._entries = 0
        self._first: int | None = None
        self._last: int | None = None
        self._end = 0
        self._issues: list[FileIssue] = []

    @property
    def summary(self) -> TxnLogSummary:
        """The file's summary (complete after iteration)."""
        return TxnLogSummary(
            file=self.file,
            name_zxid=self._name_zxid,
            version=self._version,
            dbid=self._dbid,
            entries=self._entries,
            first_zxid=self._first,
            last_zxid=self._last,
            end_offset=self._end,
            size=self._size,
            issues=tuple(self._issues),
        )

    def _issue(self, kind: IssueKind, offset: int | None, detail: str, fatal: bool = True) -> None:
        self._issues.append(FileIssue(self.file, offset, kind, detail, fatal))

    def __iter__(self) -> Iterator[TxnEntry]:
        self._entries, self._first, self._last, self._end = 0, None, None, 0
        self._issues = []
        try:
            with open_source(self._source) as f:
                reader = ChunkReader(f, chunk=self._chunk, size=self._size, checksum=False)
                try:
                    yield from self._entries_of(reader)
                except DecodeError as exc:
                    self._end = exc.offset if exc.offset is not None else reader.offset
                    self._issue(exc.kind, exc.offset, exc.detail)
        except OSError as exc:
            self._issue(IssueKind.io_error, None, f"cannot read: {exc}")

    def _entries_of(self, r: ChunkReader) -> Iterator[TxnEntry]:
        if not r.need(FILE_HEADER.size):
            head = r.buf[r.pos :]
            if head and head != TXNLOG_MAGIC.to_bytes(4, "big")[: len(head)]:
                raise DecodeError(
                    IssueKind.not_zookeeper,
                    0,
                    f"not a ZooKeeper transaction log: {describe_magic(head)}",
                )
            raise DecodeError(
                IssueKind.truncated, 0, f"file ends inside the file header ({len(head)} bytes)"
            )
        magic, version, dbid = FILE_HEADER.unpack_from(r.buf, r.pos)
        if magic != TXNLOG_MAGIC:
            raise DecodeError(
                IssueKind.not_zookeeper,
                0,
                f"not a ZooKeeper transaction log: {describe_magic(r.buf[r.pos : r.pos + 4])}",
            )
        self._version, self._dbid = version, dbid
        r.pos += FILE_HEADER.size
        max_buffer = self._limits.max_buffer
        size = self._size
        unpack_head = LONG_INT.unpack_from
        adler32 = zlib.adler32
        buf, pos, base = r.buf, r.pos, r.base
        view = memoryview(buf)
        try:
            while True:
                if len(buf) - pos < _ENTRY_HEAD:
                    r.pos = pos
                    self._end = r.offset
                    if not r.need(_ENTRY_HEAD):
                        self._end_of_file(r)
                        return
                    buf, pos, base = r.buf, r.pos, r.base
                    view = memoryview(buf)
                crc, length = unpack_head(buf, pos)
                at = base + pos
                self._end = at
                if length <= 0 or length > max_buffer:
                    r.pos = pos
                    if length == 0:
                        if self._verify_padding:
                            self._check_padding(r)
                        return
                    raise DecodeError(
                        IssueKind.length_out_of_bounds,
                        at,
                        f"entry length {length} is outside 1..{max_buffer}",
                    )
                total = _ENTRY_HEAD + length + 1
                if size is not None and at + total > size:
                    raise DecodeError(
                        IssueKind.truncated,
                        at,
                        f"entry of {length} bytes runs past the end of the file "
                        f"({size - at} bytes left): the file is truncated or the length damaged",
                    )
                if len(buf) - pos < total:
                    r.pos = pos
                    if not r.need(total):
                        raise DecodeError(
                            IssueKind.truncated,
                            at,
                            f"file ends inside the entry ({len(r.buf) - r.pos} of {total} bytes)",
                        )
                    buf, pos, base = r.buf, r.pos, r.base
                    view = memoryview(buf)
                start = pos + _ENTRY_HEAD
                end = start + length
                actual = adler32(view[start:end])
                if crc != actual:
                    raise DecodeError(
                        IssueKind.checksum_mismatch,
                        at,
                        f"entry checksum {crc & 0xFFFFFFFFFFFFFFFF:#x} != Adler32 {actual:#x} "
                        f"of its {length} bytes",
                    )
                if buf[end] != END_OF_RECORD:
                    raise DecodeError(
                        IssueKind.bad_end_marker,
                        at,
                        "entry is not followed by the end-of-record byte 'B' "
                        f"(found {buf[end]:#04x})",
                    )
                entry = self._decode(buf, start, end, at, length)
                pos += total
                self._entries += 1
                zxid = entry.header.zxid
                if self._first is None:
                    self._first = zxid
                self._last = zxid
                yield entry
        finally:
            view.release()

    def _end_of_file(self, r: ChunkReader) -> None:
        tail = r.buf[r.pos :]
        if tail.strip(b"\0"):
            raise DecodeError(
                IssueKind.truncated,
                r.offset,
                f"file ends inside an entry head ({len(tail)} of {_ENTRY_HEAD} bytes)",
            )
        # ZooKeeper always leaves zero padding after the last entry; a file ending
        # without it was most likely cut at an entry boundary.
        self._issue(
            IssueKind.truncated,
            r.offset,
            "file ends without ZooKeeper's end-of-log zero padding: it may have been "
            "truncated at an entry boundary (later entries would be missing)",
            fatal=False,
        )

    def _decode(self, buf: bytes, start: int, end: int, at: int, length: int) -> TxnEntry:
        if length < _HEADER_SIZE:
            raise DecodeError(
                IssueKind.bad_record,
                at,
                f"entry of {length} bytes is shorter than a txn header ({_HEADER_SIZE})",
            )
        header = TxnHeader(*HEADER.unpack_from(buf, start))
        body = start + _HEADER_SIZE
        fast = decode_record_fast(header.type, buf, body, end)
        if fast is not None:
            record, pos = fast
            digest = TxnDigest(*DIGEST.unpack_from(buf, pos)) if end - pos >= DIGEST.size else None
            return TxnEntry(at, length, header, record, digest)
        payload_base = at + _ENTRY_HEAD - start
        cur = BytesCursor(buf, body, end, base=payload_base, limits=self._limits)
        try:
            record = decode_record(header.type, cur)
        except DecodeError as exc:
            self._issue(
                IssueKind.bad_record,
                exc.offset,
                f"zxid {header.zxid:#x} {op_name(header.type)}: {exc.detail}; kept raw",
                fatal=False,
            )
            record = UnknownTxn(header.type, buf[body:end], exc.detail)
            cur.pos = end
        digest = None
        if cur.left >= DIGEST.size:
            digest = TxnDigest(*DIGEST.unpack_from(buf, cur.pos))
        return TxnEntry(at, length, header, record, digest)

    def _check_padding(self, r: ChunkReader) -> None:
        while r.need(1):
            chunk = r.buf[r.pos :]
            stripped = chunk.lstrip(b"\0")
            if stripped:
                bad = r.offset + len(chunk) - len(stripped)
                raise DecodeError(
                    IssueKind.bad_end_marker,
                    bad,
                    f"non-zero byte in the padding after the last entry (log ended at "
                    f"{self._end}); a damaged entry head may hide later entries",
                )
            r.pos = len(r.buf)


def read_txnlog(
    source: Source,
    name: str | None = None,
    *,
    limits: Limits = DEFAULT_LIMITS,
    verify_padding: bool = True,
) -> TxnLogReader:
    """Open a transaction log for streaming decoding.

    Args:
        source: a path or a binary file object.
        name: the name to cite in errors.
        limits: bounds for length fields.
        verify_padding: check the zero padding after the last entry.

    Returns:
        A reader: iterate it for ``TxnEntry`` values, then read ``summary``.
    """
    return TxnLogReader(source, name, limits=limits, verify_padding=verify_padding)


def decode_txnlog(
    source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS
) -> tuple[list[TxnEntry], TxnLogSummary]:
    """Decode a whole transaction log into a list (for small files and tests).

    Args:
        source: a path or a binary file object.
        name: the name to cite in errors.
        limits: bounds for length fields.

    Returns:
        The entries before any damage, and the summary.
    """
    reader = read_txnlog(source, name, limits=limits)
    entries = list(reader)
    return entries, reader.summary
