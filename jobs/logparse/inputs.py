"""Finding a cluster's input files and deciding which bytes of each are new.

Inputs are files, directories and globs. In a directory, Kafka's own log files are taken:
``controller.log``, ``state-change.log``, ``server.log`` and their rotations (``.1``,
``.2024-01-01-13``) and compressed copies (``.gz``); a file named explicitly is always taken.

A file is identified by the SHA-256 of its (decompressed) bytes. While hashing, the prefix hash
at every size already ingested for the cluster is taken too, so a log that grew since the last
run (or was rotated, or gzipped, after it) resumes where the last run stopped, with its line
numbers continuing. Big plain files are cut at line starts into splits that Spark tasks read in
parallel; the line number at each cut is counted on the way.
"""

from __future__ import annotations

import bisect
import glob
import hashlib
import os
import re
import zlib
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

KAFKA_LOG_NAME = re.compile(
    r"^(?P<kind>controller|state-change|server)\.log(?:\.[0-9A-Za-z_-]+)?(?:\.gz)?$"
)
_CHUNK = 1 << 20
DEFAULT_SPLIT_BYTES = 64 << 20


@dataclass(frozen=True)
class InputFile:
    """A file to ingest and what kind of Kafka log it is (by name; ``other`` when unknown)."""

    path: str
    kind: str

    @property
    def compressed(self) -> bool:
        """Whether the file is gzip-compressed (by name)."""
        return self.path.endswith(".gz")


def log_kind(path: str) -> str:
    """``controller``, ``state-change``, ``server`` or ``other``, from the file name."""
    match = KAFKA_LOG_NAME.match(os.path.basename(path))
    return match.group("kind") if match else "other"


def expand(entries: Iterable[str]) -> list[str]:
    """Configured input entries as absolute paths: ``~`` and globs expanded, in order, unique.

    Evidence rows name their file; absolute paths make them the same whatever the working
    directory of the run.

    Raises:
        FileNotFoundError: for an entry that matches nothing.
    """
    paths: list[str] = []
    for entry in entries:
        matches = sorted(glob.glob(os.path.expanduser(entry)))
        if not matches:
            raise FileNotFoundError(f"no such file, directory or glob match: {entry}")
        paths.extend(os.path.abspath(match) for match in matches)
    return list(dict.fromkeys(paths))


def discover(paths: Iterable[str]) -> list[InputFile]:
    """Expand files, directories (recursively, Kafka log names only) and globs, sorted, unique.

    Raises:
        FileNotFoundError: for an entry that matches nothing.
    """
    found: dict[str, InputFile] = {}
    for match in expand(paths):
        if os.path.isdir(match):
            for root, _dirs, names in os.walk(match):
                for name in names:
                    if KAFKA_LOG_NAME.match(name):
                        full = os.path.join(root, name)
                        found[full] = InputFile(full, log_kind(full))
        else:
            found[match] = InputFile(match, log_kind(match))
    return [found[p] for p in sorted(found)]


@dataclass(frozen=True)
class KnownExtent:
    """Bytes of some file already ingested for the cluster: their hash, size and line count."""

    sha256: str
    size: int
    lines: int


@dataclass(frozen=True)
class Split:
    """A byte range of a file that starts at a line start, and the number of that line."""

    start: int
    end: int
    first_line: int


@dataclass
class FilePlan:
    """What to ingest of one file.

    Attributes:
        file: the input.
        sha256: hash of all its (decompressed) bytes.
        size: its (decompressed) size.
        lines: physical lines in it (a last line without a newline counts).
        resume: the already-ingested extent it extends, if any.
        splits: byte ranges to read (empty: nothing new).
        error: a read/decompression problem; bytes before it are still planned.
    """

    file: InputFile
    sha256: str
    size: int
    lines: int
    resume: KnownExtent | None = None
    splits: list[Split] = field(default_factory=list)
    error: str | None = None

    @property
    def skipped(self) -> bool:
        """Whether every byte of the file was ingested before."""
        return not self.splits and self.error is None


class DamagedInput(OSError):
    """A file that cannot be read to its end; ``offset`` bytes were read before the damage."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def iter_bytes(file: InputFile, chunk_size: int = _CHUNK) -> Iterator[bytes]:
    """The file's (decompressed) bytes in chunks, in constant memory.

    gzip members are inflated incrementally, so a file cut short yields every byte before the
    cut, then raises.

    Raises:
        DamagedInput: truncated or corrupt compressed data (after the good bytes), or an I/O error.
    """
    offset = 0
    try:
        with open(file.path, "rb") as handle:
            if not file.compressed:
                while chunk := handle.read(chunk_size):
                    offset += len(chunk)
                    yield chunk
                return
            inflater = zlib.decompressobj(wbits=31)
            in_member = False
            while raw := handle.read(chunk_size):
                data = raw
                while data:
                    if not in_member and not data.strip(b"\0"):
                        break  # zero padding after the last member, as gzip tolerates
                    out = inflater.decompress(data)
                    in_member = True
                    if out:
                        offset += len(out)
                        yield out
                    data = b""
                    if inflater.eof:
                        data = inflater.unused_data
                        inflater = zlib.decompressobj(wbits=31)
                        in_member = False
            if in_member:
                raise DamagedInput(f"gzip data cut short after byte {offset}", offset)
    except zlib.error as exc:
        raise DamagedInput(f"corrupt gzip data after byte {offset}: {exc}", offset) from None
    except OSError as exc:
        if isinstance(exc, DamagedInput):
            raise
        raise DamagedInput(f"read error after byte {offset}: {exc}", offset) from None


class _BackgroundHash:
    """SHA-256 computed in a thread while the caller counts lines (hashlib releases the GIL).

    Updates run in order on one thread; at most ``_PENDING`` pieces wait, so memory stays
    bounded when hashing is the slower of the two. ``hexdigest`` waits for the pending ones.
    """

    _PENDING = 2

    def __init__(self) -> None:
        self._sha = hashlib.sha256()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="plan-sha256")
        self._pending: deque[Future[None]] = deque()

    def update(self, piece: bytes) -> None:
        """Hash ``piece`` after the pieces before it."""
        self._pending.append(self._pool.submit(self._sha.update, piece))
        while len(self._pending) > self._PENDING:
            self._pending.popleft().result()

    def hexdigest(self) -> str:
        """The digest of every piece so far."""
        while self._pending:
            self._pending.popleft().result()
        return self._sha.copy().hexdigest()

    def close(self) -> None:
        """Stop the thread (pending updates are finished first)."""
        self._pool.shutdown(wait=True)


def plan_file(
    file: InputFile,
    known: Sequence[KnownExtent],
    split_bytes: int = DEFAULT_SPLIT_BYTES,
) -> FilePlan:
    """Hash ``file``, find the longest already-ingested prefix, and cut the rest into splits.

    Args:
        file: the input.
        known: extents already ingested for the cluster (any path).
        split_bytes: target size of a split of a plain file (a gz file is one split).

    Returns:
        The plan; a damaged file yields the plan of its readable bytes and an ``error``.
    """
    by_size: dict[int, list[KnownExtent]] = {}
    for extent in known:
        by_size.setdefault(extent.size, []).append(extent)
    checkpoints = sorted(by_size)
    sha = _BackgroundHash()
    offset = lines = line_start = 0
    matched: tuple[KnownExtent, int, int] | None = None
    cuts: list[tuple[int, int]] = []
    next_cut = split_bytes
    ends_with_newline = True
    error: str | None = None

    def consume(piece: bytes) -> None:
        nonlocal offset, lines, line_start, next_cut, ends_with_newline, matched
        if not file.compressed:
            while offset + len(piece) > next_cut:
                newline = piece.find(b"\n", max(0, next_cut - offset - 1))
                if newline < 0:
                    break
                cut = offset + newline + 1
                cuts.append((cut, lines + piece.count(b"\n", 0, newline + 1)))
                next_cut = cut + split_bytes
        sha.update(piece)
        last_newline = piece.rfind(b"\n")
        if last_newline >= 0:
            line_start = offset + last_newline + 1
        offset += len(piece)
        lines += piece.count(b"\n")
        ends_with_newline = piece.endswith(b"\n")
        for extent in by_size.get(offset, ()):
            if extent.sha256 == sha.hexdigest():
                # Resume at the start of the line this extent ended in, so a line cut while
                # being written is read whole this time: ``lines`` counts the newlines so far,
                # i.e. the complete lines before that start.
                matched = (extent, line_start, lines)

    try:
        for chunk in iter_bytes(file):
            view = chunk
            while view:
                position = bisect.bisect_right(checkpoints, offset)
                room = checkpoints[position] - offset if position < len(checkpoints) else len(view)
                consume(view[:room])
                view = view[room:]
    except DamagedInput as exc:
        error = str(exc)
    finally:
        sha.close()
    total_lines = lines + (0 if ends_with_newline or offset == 0 else 1)
    plan = FilePlan(file, sha.hexdigest(), offset, total_lines, error=error)
    start, first_line = 0, 1
    if matched is not None:
        plan.resume, start, complete_lines = matched
        first_line = complete_lines + 1
    if start >= offset:
        return plan
    points = [(start, first_line - 1), *[(c, n) for c, n in cuts if start < c < offset]]
    for index, (begin, lines_before) in enumerate(points):
        end = points[index + 1][0] if index + 1 < len(points) else offset
        plan.splits.append(Split(begin, end, lines_before + 1))
    return plan
