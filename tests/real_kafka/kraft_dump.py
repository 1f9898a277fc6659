"""``kafka-dump-log --cluster-metadata-decoder`` output, parsed line by line.

A batch line is ``key: value`` pairs (``baseOffset: 0 lastOffset: 0 count: 1 ... isvalid:
true``); a record line starts with ``| offset:`` and ends with the record's JSON after
``payload:`` (a metadata record) or after a control record's label (``LeaderChange:``; up to 3.9
only ``controlType: LEADER_CHANGE(2)``). 4.1 prints a snapshot's control records' labels
without the colon (``SnapshotHeader {"version":0,...}``, ``SnapshotFooter {"version":0}``), and
a snapshot's dump names its id before the batches: ``Snapshot end offset: 111, epoch: 1``.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_PAIR = re.compile(r"(\w+): (\[[^\]]*\]|\S+)")
_JSON_TAIL = re.compile(r" (payload|[A-Za-z]+):? (\{.*\})$")
_SNAPSHOT_ID = re.compile(r"^Snapshot end offset: (\d+), epoch: (\d+)$")


@dataclass(frozen=True)
class DumpRecord:
    """A record line: its ``key: value`` pairs, and its JSON with the label before it."""

    fields: dict[str, str]
    label: str | None
    json: dict[str, Any] | None

    @property
    def offset(self) -> int:
        return int(self.fields["offset"])


@dataclass(frozen=True)
class DumpBatch:
    """A batch line's ``key: value`` pairs and the record lines under it."""

    fields: dict[str, str]
    records: list[DumpRecord] = field(default_factory=list)


def _pairs(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in _PAIR.finditer(text)}


def parse_dump(lines: list[str]) -> list[DumpBatch]:
    """The batches of a dump, each with its records."""
    batches: list[DumpBatch] = []
    for line in lines:
        if line.startswith("baseOffset: "):
            batches.append(DumpBatch(_pairs(line)))
        elif line.startswith("| offset: "):
            tail = _JSON_TAIL.search(line)
            head = line[: tail.start()] if tail else line
            batches[-1].records.append(
                DumpRecord(
                    _pairs(head),
                    tail.group(1) if tail else None,
                    json.loads(tail.group(2)) if tail else None,
                )
            )
    return batches


def dump_lines(path: Path) -> list[str]:
    """A dump file's lines (gzipped when its name ends in ``.gz``)."""
    raw = path.read_bytes()
    return (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("utf-8").splitlines()


def read_dump(path: Path) -> list[DumpBatch]:
    """Parse a dump file (gzipped when its name ends in ``.gz``)."""
    return parse_dump(dump_lines(path))


def snapshot_id(lines: list[str]) -> tuple[int, int] | None:
    """The (end offset, epoch) a snapshot's dump names; None in a segment's dump."""
    for line in lines:
        if m := _SNAPSHOT_ID.match(line):
            return int(m.group(1)), int(m.group(2))
    return None
