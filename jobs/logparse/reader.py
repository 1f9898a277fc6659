"""Task-side reading of log splits into records (``mapInArrow``): bytes in, one row per record out.

A ``SplitTask`` is a byte range of a file that starts at a line start (``inputs.plan_file``). The
task reads it and cuts records exactly as ``kafkactl_core.grammars.records.assemble_records``
does on the whole file:

* a split that is not the first of its file skips its leading lines that do not start a record:
  they belong to the previous split's last record, which reads past its own end while lines do
  not start a record (a stack trace crossing the cut);
* inside a split, records are cut in *regions* of about ``region_bytes`` that end right before
  a record-start line, so no record spans two regions.

A region that is ASCII, without ``\\r`` and without records near the size caps, is cut with
C-level work only: the record-start lines are found by numpy word tests for Kafka's layout
(``kafka_head``) or by one RE2 pass over the region's lines (on such bytes both equal the core's
per-line ``str`` regex), numpy gives line numbers and offsets, and the record texts are one Arrow
gather over the region's bytes (each record without its final newline). Any other region (invalid
or non-ASCII UTF-8, CRLF, huge records) goes through the core's ``assemble_records`` itself, so
its semantics are the reference's by construction.

For the grammar executor each record also carries its *candidates*: a superset of the grammar
entries whose literal its text contains (``CandidateIndex``). Literals never contain digits, so
the candidates of a text are those of the text without its digits; that key repeats across
records (ids, offsets and epochs are what vary), and Arrow's hash-based ``dictionary_encode``
leaves one Python-level lookup per distinct shape in a batch.
"""

from __future__ import annotations

import io
import re
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from jobs.logparse.arrow_slices import string_slices
from jobs.logparse.candidates import CandidateIndex, compiles_in_re2
from jobs.logparse.inputs import DamagedInput, InputFile, iter_bytes
from jobs.logparse.kafka_head import KAFKA_HEAD, head_lengths
from kafkactl_core.grammars import CompiledLayout, assemble_records, compile_layout
from kafkactl_core.grammars.records import DEFAULT_MAX_RECORD_CHARS, DEFAULT_MAX_RECORD_LINES

__all__ = [
    "DEFAULT_REGION_BYTES",
    "READER_SCHEMA",
    "ReaderSettings",
    "SplitTask",
    "assigned_splits",
    "read_split",
]

DEFAULT_REGION_BYTES = 8 << 20
_CHUNK = 4 << 20
_DIGIT_TABLE = str.maketrans("", "", "0123456789")
_DIGITS = b"0123456789"


@dataclass(frozen=True)
class SplitTask:
    """One split to read (picklable: it travels to the executors).

    Attributes:
        file_index: the file's index in the run (tables get the path from it).
        path: the file to read (readable from every executor).
        compressed: gzip (decompressed from its start; the split covers decompressed bytes).
        start: first byte of the split (a line start).
        end: first byte of the next split (or the planned end of the file).
        first_line: number of the line at ``start``.
        owns_leading: whether lines before the first record-start line are this split's (the
            first split of a file, or of the new bytes of a grown file): they become a
            ``before_first_record`` orphan record. Other splits leave them to their predecessor.
        file_size: bytes planned for the file: nothing at or after it is read.
        layout: the PatternLayout string the file is cut with.
    """

    file_index: int
    path: str
    compressed: bool
    start: int
    end: int
    first_line: int
    owns_leading: bool
    file_size: int
    layout: str


@dataclass(frozen=True)
class ReaderSettings:
    """Task-wide settings.

    Attributes:
        version_hint: the configured Kafka release (trial order of the candidates), or None.
        region_bytes: target size of a region.
        max_extension: how far past its target a region may grow looking for a record start
            before the rest of the split is streamed line by line.
        exact_only: always use the core's ``assemble_records`` (tests compare both paths).
    """

    version_hint: str | None = None
    region_bytes: int = DEFAULT_REGION_BYTES
    max_extension: int = 64 << 20
    exact_only: bool = False


READER_SCHEMA = pa.schema(
    [
        pa.field("file_index", pa.int32(), False),
        pa.field("first_line", pa.int64(), False),
        pa.field("line_count", pa.int64(), False),
        pa.field("byte_offset", pa.int64(), False),
        pa.field("byte_length", pa.int64(), False),
        pa.field("text", pa.string(), False),
        pa.field("orphan_reason", pa.string(), True),
        pa.field("invalid_utf8", pa.bool_(), False),
        pa.field("truncated", pa.bool_(), False),
        pa.field("first_candidate", pa.int32(), False),
        pa.field("other_candidates", pa.list_(pa.field("element", pa.int32(), False)), False),
        pa.field("read_error", pa.string(), True),
    ]
)
"""The reader's rows: one per record (or one per read error, with ``read_error`` set)."""


@lru_cache(maxsize=16)
def _layout(layout: str) -> CompiledLayout:
    return compile_layout(layout)


class _StartTest:
    """Whether a physical line starts a record: the core's test, and a bytes form for regions."""

    def __init__(self, layout: CompiledLayout) -> None:
        self.layout = layout
        pattern = layout.start_pattern.encode("utf-8")
        self.bytes_regex = re.compile(pattern)
        self.after_newline = re.compile(b"\n(?:" + pattern + b")")
        anchored = "^(?:" + layout.start_pattern + ")"
        self.anchored = anchored if compiles_in_re2(anchored) else None
        self.kafka_head = layout.start_pattern == KAFKA_HEAD

    def starts(self, data: bytes, line_starts: np.ndarray) -> np.ndarray:
        """Which lines of an ASCII region start a record (the lines begin at ``line_starts``).

        The Kafka layout's head is checked byte by byte (``kafka_head``). Other layouts: one
        RE2 pass over the lines as an Arrow array when the pattern is RE2's (the layout
        regexes are plain classes, literals and alternations: both engines agree on them);
        otherwise Python's regex after every newline.
        """
        if self.kafka_head:
            raw = np.frombuffer(data, dtype=np.uint8)
            ends = np.append(line_starts[1:], len(data))
            return head_lengths(raw, line_starts, ends) > 0
        if self.anchored is not None:
            offsets = np.append(line_starts, len(data)).astype(np.int32)
            lines = pa.StringArray.from_buffers(
                len(line_starts), pa.py_buffer(offsets.tobytes()), pa.py_buffer(data)
            )
            found = pc.match_substring_regex(lines, self.anchored)
            return np.asarray(found.to_numpy(zero_copy_only=False), dtype=bool)
        result = np.zeros(len(line_starts), dtype=bool)
        result[0] = self.bytes_regex.match(data) is not None
        # Count in C first: when every line starts a record (the common case) no Python loop
        # over matches is needed.
        if self.after_newline.subn(b"", data)[1] == len(line_starts) - 1:
            result[1:] = True
        else:
            after = [match.start() + 1 for match in self.after_newline.finditer(data)]
            result[np.searchsorted(line_starts, after)] = True
        return result

    def is_start(self, line: bytes) -> bool:
        """The core's test on one line (terminator removed, UTF-8 decoded with replacement)."""
        if line.endswith(b"\n"):
            line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
        if line.isascii():
            return self.bytes_regex.match(line) is not None
        text = line.decode("utf-8", errors="replace")
        return self.layout.start_regex.match(text) is not None


class _Source:
    """The split's bytes from ``start`` (decompressed for gzip), never past ``file_size``."""

    def __init__(self, task: SplitTask) -> None:
        self._task = task
        self._chunks = self._generate()
        self.exhausted = False

    def _generate(self) -> Iterator[bytes]:
        task = self._task
        remaining = task.file_size - task.start
        if remaining <= 0:
            return
        if not task.compressed:
            with open(task.path, "rb") as handle:
                handle.seek(task.start)
                while remaining > 0:
                    chunk = handle.read(min(_CHUNK, remaining))
                    if not chunk:
                        end = task.file_size - remaining
                        raise DamagedInput(
                            f"{task.path}: cut short while read: it ends at byte {end}, "
                            f"{task.file_size} were planned",
                            end,
                        )
                    remaining -= len(chunk)
                    yield chunk
            return
        skip = task.start
        source = iter_bytes(InputFile(task.path, "other"), _CHUNK)
        for chunk in source:
            if skip >= len(chunk):
                skip -= len(chunk)
                continue
            piece = chunk[skip:] if skip else chunk
            skip = 0
            if len(piece) >= remaining:
                yield piece[:remaining]
                return
            remaining -= len(piece)
            yield piece
        end = task.file_size - remaining
        raise DamagedInput(
            f"{task.path}: cut short while read: its data ends at byte {end}, "
            f"{task.file_size} were planned",
            end,
        )

    def read(self) -> bytes:
        """The next chunk, ``b""`` at the end."""
        if self.exhausted:
            return b""
        chunk = next(self._chunks, b"")
        if not chunk:
            self.exhausted = True
        return chunk


@dataclass
class _Region:
    """Whole records in memory (``data``), or, with ``stream``, the rest of the split as lines."""

    data: bytes
    offset: int
    first_line: int
    at_file_start: bool
    at_eof: bool
    stream: Iterator[bytes] | None = None


class _Buffer:
    """Bytes read but not yet cut, with their absolute offset and first line number."""

    def __init__(self, source: _Source, offset: int, line: int) -> None:
        self.source = source
        self.data = bytearray()
        self.offset = offset
        self.line = line

    def fill(self, size: int) -> bool:
        """Read until at least ``size`` bytes are buffered; False when the source ended first."""
        while len(self.data) < size:
            chunk = self.source.read()
            if not chunk:
                return False
            self.data += chunk
        return True

    def line_end(self, start: int) -> int:
        """Index after the line holding byte ``start`` (reading as needed); -1 past the end."""
        searched = start
        while True:
            newline = self.data.find(b"\n", searched)
            if newline >= 0:
                return newline + 1
            searched = max(start, len(self.data))
            if not self.fill(len(self.data) + 1):
                newline = self.data.find(b"\n", searched)
                if newline >= 0:
                    return newline + 1
                return len(self.data) if start < len(self.data) else -1

    def take(self, size: int) -> bytes:
        """Remove and return the first ``size`` bytes."""
        piece = bytes(self.data[:size])
        del self.data[:size]
        self.offset += len(piece)
        self.line += piece.count(b"\n")
        return piece


def _stream_lines(buffer: _Buffer, test: _StartTest, end: int) -> Iterator[bytes]:
    """The buffered and remaining lines, up to the first record-start line at or after ``end``."""
    offset = buffer.offset
    pending = bytes(buffer.data)
    buffer.data.clear()
    while True:
        newline = pending.find(b"\n")
        if newline < 0:
            chunk = buffer.source.read()
            if chunk:
                pending += chunk
                continue
            if pending and not (offset >= end and test.is_start(pending)):
                yield pending
            return
        line = pending[: newline + 1]
        if offset >= end and test.is_start(line):
            return
        yield line
        offset += len(line)
        pending = pending[newline + 1 :]


def _regions(
    task: SplitTask, test: _StartTest, region_bytes: int, max_extension: int
) -> Iterator[_Region]:
    """The split's regions: whole records, each ending right before a record-start line.

    When no record-start line comes within ``max_extension`` bytes past a region's target size
    (a huge stack trace, a file without records), the rest of the split is handed over as a
    line stream so that memory stays bounded by the longest line.
    """
    buffer = _Buffer(_Source(task), task.start, task.first_line)
    if not task.owns_leading:
        while True:
            end = buffer.line_end(0)
            if end < 0:
                return
            if test.is_start(bytes(buffer.data[:end])):
                break
            buffer.take(end)
        if buffer.offset >= task.end:
            return
    at_file_start = task.owns_leading
    while buffer.offset < task.end:
        target = min(region_bytes, task.end - buffer.offset)
        cut = -1
        position = buffer.line_end(target - 1)
        while position >= 0:
            if position >= len(buffer.data) and not buffer.fill(position + 1):
                break
            if position > target + max_extension:
                yield _Region(
                    b"",
                    buffer.offset,
                    buffer.line,
                    at_file_start,
                    True,
                    _stream_lines(buffer, test, task.end),
                )
                return
            end = buffer.line_end(position)
            if test.is_start(bytes(buffer.data[position:end])):
                cut = position
                break
            position = end
        at_eof = cut < 0
        if at_eof:
            cut = len(buffer.data)
        if cut == 0:
            return
        start_offset, start_line = buffer.offset, buffer.line
        data = buffer.take(cut)
        yield _Region(data, start_offset, start_line, at_file_start, at_eof)
        at_file_start = False
        if at_eof:
            return


@dataclass
class _Records:
    """Columns of a region's records."""

    first_line: np.ndarray
    line_count: np.ndarray
    byte_offset: np.ndarray
    byte_length: np.ndarray
    text: pa.Array
    keys: pa.Array
    orphan_reason: pa.Array
    invalid_utf8: np.ndarray
    truncated: np.ndarray


def _fast(region: _Region, test: _StartTest) -> _Records | None:
    """Cut a clean region with C-level work; None when it is not clean (see the docstring)."""
    data = region.data
    if not data or not data.isascii() or b"\r" in data:
        return None
    size = len(data)
    raw = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(raw == 10)
    line_starts = np.concatenate(([0], newlines + 1))
    if data.endswith(b"\n"):
        line_starts = line_starts[:-1]
    is_start = test.starts(data, line_starts)
    starts = line_starts[1:][is_start[1:]]
    first_is_start = bool(is_start[0])
    orphan_first = not first_is_start
    if orphan_first and not region.at_file_start:
        return None
    bounds = np.concatenate(([0], starts)).astype(np.int64)
    count = len(bounds)
    ends = np.append(bounds[1:], size)
    lengths = ends - bounds
    line_index = np.searchsorted(line_starts, bounds)
    line_count = np.diff(np.append(line_index, len(line_starts)))
    if line_count.max() >= DEFAULT_MAX_RECORD_LINES or lengths.max() >= DEFAULT_MAX_RECORD_CHARS:
        return None
    terminated = np.ones(count, dtype=np.int64)
    if not data.endswith(b"\n"):
        terminated[-1] = 0
    text = string_slices(data, bounds, ends - terminated)
    # The keys: the region without its digits, whose lines are the region's lines.
    stripped = data.translate(None, _DIGITS)
    stripped_newlines = np.flatnonzero(np.frombuffer(stripped, dtype=np.uint8) == 10)
    key_bounds = np.concatenate(([0], stripped_newlines + 1))[line_index]
    key_ends = np.append(key_bounds[1:], len(stripped))
    keys = string_slices(stripped, key_bounds, key_ends - terminated)
    reasons: list[str | None] = [None] * count
    if orphan_first:
        reasons[0] = "before_first_record"
    truncated = np.zeros(count, dtype=bool)
    if region.at_eof and not data.endswith(b"\n"):
        truncated[-1] = True
    return _Records(
        first_line=region.first_line + line_index,
        line_count=line_count,
        byte_offset=region.offset + bounds,
        byte_length=lengths,
        text=text,
        keys=keys,
        orphan_reason=pa.array(reasons, pa.string()),
        invalid_utf8=np.zeros(count, dtype=bool),
        truncated=truncated,
    )


def _lines(data: bytes) -> list[bytes]:
    """Physical lines with their terminators (only ``\\n`` ends a line, as in a binary file)."""
    return io.BytesIO(data).readlines()


_Row = tuple[int, int, int, int, str, "str | None", bool, bool]


def _exact(
    lines: Iterable[bytes], layout: CompiledLayout, first_line: int, offset: int
) -> Iterator[_Row]:
    """Records by the core's ``assemble_records``, with their byte offsets and lengths.

    Yields:
        ``(first_line, line_count, byte_offset, byte_length, text, orphan_reason,
        invalid_utf8, truncated)``.
    """
    lengths: deque[int] = deque()

    def tracked() -> Iterator[bytes]:
        for line in lines:
            lengths.append(len(line))
            yield line

    position = offset
    for record in assemble_records(tracked(), layout):
        size = sum(lengths.popleft() for _ in range(record.line_count))
        yield (
            first_line + record.first_line - 1,
            record.line_count,
            position,
            size,
            record.text,
            record.orphan_reason,
            record.invalid_utf8,
            record.truncated,
        )
        position += size


def _exact_records(rows: Sequence[_Row]) -> _Records:
    texts = [row[4] for row in rows]
    return _Records(
        first_line=np.asarray([row[0] for row in rows], dtype=np.int64),
        line_count=np.asarray([row[1] for row in rows], dtype=np.int64),
        byte_offset=np.asarray([row[2] for row in rows], dtype=np.int64),
        byte_length=np.asarray([row[3] for row in rows], dtype=np.int64),
        text=pa.array(texts, pa.string()),
        keys=pa.array([text.translate(_DIGIT_TABLE) for text in texts], pa.string()),
        orphan_reason=pa.array([row[5] for row in rows], pa.string()),
        invalid_utf8=np.asarray([row[6] for row in rows], dtype=bool),
        truncated=np.asarray([row[7] for row in rows], dtype=bool),
    )


def _batch(task: SplitTask, records: _Records, index: CandidateIndex) -> pa.RecordBatch:
    first, others = index.columns(records.keys)
    count = len(records.first_line)
    columns: list[pa.Array] = [
        pa.array(np.full(count, task.file_index, dtype=np.int32)),
        pa.array(records.first_line.astype(np.int64)),
        pa.array(records.line_count.astype(np.int64)),
        pa.array(records.byte_offset.astype(np.int64)),
        pa.array(records.byte_length.astype(np.int64)),
        records.text,
        records.orphan_reason,
        pa.array(records.invalid_utf8),
        pa.array(records.truncated),
        pa.array(first),
        others,
        pa.nulls(count, pa.string()),
    ]
    return pa.RecordBatch.from_arrays(columns, schema=READER_SCHEMA)


def _error_batch(task: SplitTask, message: str) -> pa.RecordBatch:
    row: dict[str, list[object]] = {name: [0] for name in READER_SCHEMA.names}
    row.update(
        file_index=[task.file_index],
        byte_offset=[task.start],
        text=[""],
        orphan_reason=[None],
        invalid_utf8=[False],
        truncated=[False],
        first_candidate=[-1],
        other_candidates=[[]],
        read_error=[message],
    )
    return pa.RecordBatch.from_pydict(row, schema=READER_SCHEMA)


_BATCH_ROWS = 65_536


def read_split(
    task: SplitTask, settings: ReaderSettings, index: CandidateIndex
) -> Iterator[pa.RecordBatch]:
    """Read one split into record batches (``READER_SCHEMA``).

    A read error (a file gone or shorter than planned) ends the split with one row whose
    ``read_error`` says what happened; the rows before it stand.

    Args:
        task: the split.
        settings: reader settings.
        index: the candidate index (shared by the task's splits: its memo carries over).

    Yields:
        Batches of records (``READER_SCHEMA``), in file order.
    """
    layout = _layout(task.layout)
    test = _StartTest(layout)
    try:
        for region in _regions(task, test, settings.region_bytes, settings.max_extension):
            records = None
            if region.stream is None and not settings.exact_only:
                records = _fast(region, test)
            if records is not None:
                yield _batch(task, records, index)
                continue
            lines = region.stream if region.stream is not None else _lines(region.data)
            rows: list[_Row] = []
            for row in _exact(lines, layout, region.first_line, region.offset):
                rows.append(row)
                if len(rows) >= _BATCH_ROWS:
                    yield _batch(task, _exact_records(rows), index)
                    rows = []
            if rows:
                yield _batch(task, _exact_records(rows), index)
    except OSError as exc:
        yield _error_batch(task, str(exc) or type(exc).__name__)


def assigned_splits(
    batches: Iterator[pa.RecordBatch], assignments: Sequence[Sequence[SplitTask]]
) -> Iterator[SplitTask]:
    """The splits of the partitions a ``mapInArrow`` task gets (rows of ``spark.range``).

    Args:
        batches: the task's input: partition numbers.
        assignments: splits per partition number.

    Yields:
        The splits, partition by partition.
    """
    for batch in batches:
        for part in batch.column(0).to_pylist():
            yield from assignments[part]
