"""Finding a cluster's input files and deciding which bytes of each are new.

Inputs are files, directories and globs. In a directory, Kafka's own log files are taken:
``controller.log``, ``state-change.log``, ``server.log`` and their rotations (``.1``,
``.2024-01-01-13``) and compressed copies (``.gz``); a file named explicitly is always taken.
Symlinked directories are followed, each directory walked once (a loop is noted, not followed
again); a file reached by two paths is read once; a file whose first bytes are another format
(a ZooKeeper file, binary data) is refused with the reason.

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
from collections.abc import Generator, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from stat import S_ISREG

from kafkactl_core.zk.files import FileKind, sniff_kind

KAFKA_LOG_NAME = re.compile(
    r"^(?P<kind>controller|state-change|server)\.log(?:\.[0-9A-Za-z_-]+)?(?:\.gz)?$"
)
_CHUNK = 1 << 20
DEFAULT_SPLIT_BYTES = 64 << 20
HEAD_BYTES = 4096
"""Bytes of a file's start that decide whether it is text."""
BINARY_SHARE = 0.3
"""Share of control bytes in a file's head above which it is binary, not a log: a log has none
but a stray NUL or escape, a ZooKeeper or metadata-log file has runs of zero bytes."""
_CONTROL_BYTES = bytes([*range(0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
"""Bytes no text holds (tab, newlines, form feed and escape are text)."""


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


@dataclass
class Discovery:
    """What the inputs hold.

    Attributes:
        files: the files to read, sorted by path, each once.
        refused: ``(path, reason)`` of files that are not Kafka logs by their first bytes or
            not regular files, and of directories that cannot be listed: inputs skipped.
        notes: remarks that skip nothing: a directory without log files, a file reached by two
            paths, a directory reached again through a symlink.
    """

    files: list[InputFile] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def file_head(file: InputFile, size: int = HEAD_BYTES) -> bytes:
    """The first bytes of a file (decompressed), at most ``size``; empty when unreadable.

    A file that cannot be read is left to planning, which reports the read error with its row.
    """
    head = b""
    chunks = iter_bytes(file, size)
    try:
        while len(head) < size and (chunk := next(chunks, b"")):
            head += chunk
    except DamagedInput:
        pass
    finally:
        chunks.close()
    return head[:size]


def first_lines(file: InputFile, count: int, max_bytes: int = HEAD_BYTES) -> list[bytes]:
    """The first ``count`` physical lines of a file (decompressed), fewer when it is shorter.

    Each line is cut at ``max_bytes``: a huge line costs its reading, never its copying or
    keeping (layout detection reads the lines' heads).
    """
    lines: list[bytes] = []
    pending = b""
    try:
        for chunk in iter_bytes(file, 1 << 16):
            *complete, rest = chunk.split(b"\n", count - len(lines))
            for piece in complete:
                lines.append((pending + piece[:max_bytes])[:max_bytes])
                pending = b""
            if len(lines) >= count:
                break
            if len(pending) < max_bytes:
                pending = (pending + rest[:max_bytes])[:max_bytes]
    except DamagedInput:
        pass
    if pending and len(lines) < count:
        lines.append(pending)
    return lines[:count]


def control_share(head: bytes) -> float:
    """The share of ``head``'s bytes that no text holds (NUL and other control bytes)."""
    return (len(head) - len(head.translate(None, _CONTROL_BYTES))) / len(head) if head else 0.0


_ZOOKEEPER_KINDS = {
    FileKind.snapshot: "a ZooKeeper snapshot",
    FileKind.txnlog: "a ZooKeeper transaction log",
    FileKind.snapshot_dump: "a ZooKeeper snapshot dump",
    FileKind.txnlog_dump: "a ZooKeeper transaction log dump",
}


def zookeeper_file(head: bytes) -> str | None:
    """What ZooKeeper file ``head`` starts (its magic or dump header), None when none."""
    return _ZOOKEEPER_KINDS.get(sniff_kind(head, FileKind.other))


def not_a_log(file: InputFile) -> str | None:
    """Why ``file`` is no Kafka log, by its first bytes; None when it may be one.

    Args:
        file: the input.

    Returns:
        The reason (a ZooKeeper file, binary data), or None.
    """
    head = file_head(file)
    zookeeper = zookeeper_file(head)
    if zookeeper is not None:
        return f"{zookeeper}, not a Kafka log (ingest-zk reads it)"
    share = control_share(head)
    if share > BINARY_SHARE:
        return (
            f"binary data, not a Kafka log ({share:.0%} of its first {len(head)} bytes are "
            "control bytes)"
        )
    return None


def _same_directory(root: str, walked: dict[tuple[int, int], str]) -> str | None:
    """The path ``root`` was walked by before (through another path), else None (now walked)."""
    try:
        stat = os.stat(root)
    except OSError:
        return None
    key = (stat.st_dev, stat.st_ino)
    if key in walked:
        return walked[key]
    walked[key] = root
    return None


def _walk(top: str, found: Discovery) -> list[str]:
    """The Kafka log files under ``top``, following symlinked directories, each walked once."""
    paths: list[str] = []
    walked: dict[tuple[int, int], str] = {}

    def unlistable(error: OSError) -> None:
        found.refused.append((error.filename or top, f"cannot list directory: {error.strerror}"))

    for root, dirs, names in os.walk(top, onerror=unlistable, followlinks=True):
        first = _same_directory(root, walked)
        if first is not None:
            dirs.clear()
            real = os.path.realpath(root)
            parent = os.path.realpath(os.path.dirname(root))
            loop = parent == real or parent.startswith(real + os.sep)
            what = "symlink loop" if loop else "symlink"
            found.notes.append(f"{root}: {what} to {first}, walked once, not followed again")
            continue
        paths.extend(os.path.join(root, name) for name in names if KAFKA_LOG_NAME.match(name))
    return paths


NOT_REGULAR = "not a regular file (a FIFO, socket or device)"
"""Why a special file is refused: reading a FIFO or a device could block forever or never end."""


def special_file(path: str) -> bool:
    """Whether ``path`` exists but is neither a regular file nor a directory (``NOT_REGULAR``)."""
    return os.path.exists(path) and not (os.path.isfile(path) or os.path.isdir(path))


def _one_path_per_file(paths: Sequence[str], found: Discovery) -> list[str]:
    """``paths`` but one per file (its own path rather than a symlink's) and regular files only;
    the others are noted or refused in ``found``."""
    kept: dict[tuple[int, int] | str, str] = {}
    for path in paths:
        try:
            stat = os.stat(path)
        except OSError:
            kept[path] = path  # planning reports why it cannot be read
            continue
        if not S_ISREG(stat.st_mode):
            found.refused.append((path, NOT_REGULAR))
            continue
        key = (stat.st_dev, stat.st_ino)
        first = kept.setdefault(key, path)
        if first != path and os.path.realpath(path) == path:
            kept[key] = path
            found.notes.append(f"{first}: the same file as {path}, read once")
        elif first != path:
            found.notes.append(f"{path}: the same file as {first}, read once")
    return sorted(kept.values())


def discover_inputs(paths: Iterable[str]) -> Discovery:
    """Expand files, directories (recursively, Kafka log names only) and globs into the files to
    read, refusing those of another format (see the module docstring).

    Raises:
        FileNotFoundError: for an entry that matches nothing.
    """
    found = Discovery()
    candidates: list[str] = []
    for match in expand(paths):
        if os.path.isdir(match):
            logs = _walk(match, found)
            if not logs:
                found.notes.append(
                    f"{match}: no Kafka log files (controller.log*, state-change.log*, "
                    "server.log*) in this directory"
                )
            candidates.extend(logs)
        else:
            candidates.append(match)
    for path in _one_path_per_file(sorted(dict.fromkeys(candidates)), found):
        file = InputFile(path, log_kind(path))
        reason = not_a_log(file)
        if reason is None:
            found.files.append(file)
        else:
            found.refused.append((path, reason))
    return found


def discover(paths: Iterable[str]) -> list[InputFile]:
    """The files ``discover_inputs`` finds to read, sorted, unique.

    Raises:
        FileNotFoundError: for an entry that matches nothing.
    """
    return discover_inputs(paths).files


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


def iter_bytes(file: InputFile, chunk_size: int = _CHUNK) -> Generator[bytes, None, None]:
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
                    # A chunk of output at a time: gzip inflates up to 1032-fold (a bomb).
                    out = inflater.decompress(data, chunk_size)
                    in_member = True
                    while out:
                        offset += len(out)
                        yield out
                        out = inflater.decompress(inflater.unconsumed_tail, chunk_size)
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
