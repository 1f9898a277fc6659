"""A metadata log file read batch by batch, damage and all: log segments and KRaft snapshots.

``scan`` walks a file's batches from a byte position. Where no batch can be read (a header that
is not one, a batch cut short, garbage) it records a ``Problem`` with the byte offset and looks
for the next position that holds a whole batch with a matching CRC, so every batch before and
after the damage is still decoded. A batch whose CRC does not match is decoded all the same and
flagged; when a whole batch with a matching CRC starts inside it, its length field is the damage
and the walk goes on from that batch instead of skipping it. ``.index``, ``.timeindex`` and
other files of the directory are not segments and are not read; ``kind_of`` says what a file
name is.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass, field

from kafkactl_core.metadata_log.batches import (
    Batch,
    BatchError,
    FileBytes,
    crc_matches,
    header_problem,
    read_batch,
)

_SEGMENT = re.compile(r"^(\d{20})\.log$")
_SNAPSHOT = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")

SEGMENT = "segment"
SNAPSHOT = "snapshot"


@dataclass(frozen=True, slots=True)
class FileKind:
    """What a metadata log directory's file is, from its name.

    Attributes:
        kind: ``segment``, ``snapshot``, or None for a file that is neither.
        base_offset: a segment's first offset, a snapshot's end offset (exclusive).
        epoch: a snapshot's raft epoch.
    """

    kind: str | None
    base_offset: int | None = None
    epoch: int | None = None


def kind_of(name: str) -> FileKind:
    """``00000000000000000000.log`` is a segment; ``<end offset>-<epoch>.checkpoint`` a snapshot."""
    if m := _SEGMENT.match(name):
        return FileKind(SEGMENT, int(m.group(1)))
    if m := _SNAPSHOT.match(name):
        return FileKind(SNAPSHOT, int(m.group(1)), int(m.group(2)))
    return FileKind(None)


@dataclass(frozen=True, slots=True)
class Problem:
    """Damage found in a file.

    Attributes:
        position: the byte offset where it starts.
        kind: ``unreadable`` (no batch there; bytes skipped), ``truncated`` (the file ends in
            a partial batch), ``crc_mismatch`` or ``records`` (a batch's records section).
        reason: what is wrong, for people.
        skipped: the bytes left unread from ``position`` on (0 when the batch was still read).
    """

    position: int
    kind: str
    reason: str
    skipped: int = 0


@dataclass(slots=True)
class Scan:
    """What ``scan`` read from a file.

    Attributes:
        batches: the batches, in file order.
        problems: the damage, in file order.
        end: where the last whole batch ends: the next read of a growing file starts there.
    """

    batches: list[Batch] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    end: int = 0


def scan(buf: FileBytes, start: int = 0) -> Scan:
    """Read every batch of a file from ``start`` on.

    Args:
        buf: the file's bytes.
        start: where to begin (the ``end`` of an earlier scan of the same, grown file).

    Returns:
        The batches and problems; ``end`` is ``start`` when no batch was read.
    """
    # A scan makes several objects a record and no reference cycle: the cyclic collector's full
    # passes over a large file's growing heap took a third of its time. Paused meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _scan(buf, start)
    finally:
        if collecting:
            gc.enable()


def _scan(buf: FileBytes, start: int) -> Scan:
    out = Scan(end=start)
    pos, size = start, len(buf)
    while pos < size:
        try:
            batch = read_batch(buf, pos)
        except BatchError as exc:
            nxt = _next_batch(buf, pos + 1)
            if nxt is None:
                kind = "truncated" if exc.cut_short else "unreadable"
                out.problems.append(Problem(pos, kind, exc.reason, size - pos))
                break
            skipped = nxt - pos
            out.problems.append(
                Problem(pos, "unreadable", f"{exc.reason}; {skipped} bytes skipped", skipped)
            )
            pos = nxt
            continue
        nxt = pos + batch.size
        if not batch.crc_valid:
            reason = f"stored CRC-32C {batch.crc} does not match the batch"
            inner = _next_batch(buf, pos + 1, before=nxt)
            if inner is not None:  # a damaged length runs over the next batch
                reason += f"; its length runs over the batch at byte {inner}, read from there"
                nxt = inner
            out.problems.append(Problem(pos, "crc_mismatch", reason))
        if batch.problem is not None:
            out.problems.append(Problem(pos, "records", batch.problem))
        out.batches.append(batch)
        pos = out.end = nxt
    return out


def _next_batch(buf: FileBytes, pos: int, before: int | None = None) -> int | None:
    """The first position at or after ``pos`` (and before ``before``) holding a whole batch
    whose CRC matches."""
    size = len(buf)
    stop = size if before is None else min(size, before + 16)
    while True:
        magic_at = buf.find(b"\x02", pos + 16, stop)
        if magic_at < 0 or magic_at - 16 + 61 > size:
            return None
        candidate = magic_at - 16
        if header_problem(buf, candidate) is None and crc_matches(buf, candidate):
            return candidate
        pos = candidate + 1
