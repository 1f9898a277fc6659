"""The checks run on each fuzzed log file: the split reader and both grammar executors.

A file's records as the Spark tasks read them (``inputs.plan_file`` cuts the splits,
``reader.read_split`` reads them) must be ``assemble_records``'s records of the whole file, and
the Arrow executor's row of each must be the reference executor's (``parse_record``) field for
field. Neither may raise, whatever the bytes.
"""

from __future__ import annotations

import gzip
import io
import math
import tempfile
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any

import pyarrow as pa

from jobs.logparse.arrow_executor import ArrowExecutor
from jobs.logparse.candidates import CandidateIndex
from jobs.logparse.inputs import FilePlan, InputFile, plan_file
from jobs.logparse.parse_contract import PARSED_ARROW_SCHEMA, ExecutorSettings, TrialOrder
from jobs.logparse.reader import ReaderSettings, SplitTask, read_split
from kafkactl_core.grammars import CompiledLayout, assemble_records, parse_record
from kafkactl_core.versions import KafkaRelease
from tests.grammar_rows import reference_row

RECORD_FIELDS = ("first_line", "line_count", "text", "orphan_reason", "invalid_utf8", "truncated")
COMPARED = [n for n in PARSED_ARROW_SCHEMA.names if n not in ("byte_offset", "byte_length")]


@dataclass(frozen=True)
class ReadPlan:
    """How the reader cuts a file: split and region sizes, and whether only the core path runs."""

    split_bytes: int = 1 << 20
    region_bytes: int = 4096
    exact_only: bool = False
    hint: str | None = None


def _order(hint: str | None) -> TrialOrder:
    return TrialOrder.for_hint(KafkaRelease.parse(hint) if hint else None)


def read_file(
    path: Path, layout: CompiledLayout, plan: ReadPlan
) -> tuple[FilePlan, list[pa.RecordBatch]]:
    """The file's plan and every batch the reader gives for its splits, in file order."""
    file = InputFile(str(path), "other")
    planned = plan_file(file, [], plan.split_bytes)
    index = CandidateIndex([entry.name for entry in _order(plan.hint).entries], plan.hint)
    settings = ReaderSettings(
        version_hint=plan.hint, region_bytes=plan.region_bytes, exact_only=plan.exact_only
    )
    batches: list[pa.RecordBatch] = []
    for number, split in enumerate(planned.splits):
        task = SplitTask(
            0, str(path), file.compressed, split.start, split.end, split.first_line,
            number == 0, planned.size, layout.layout,
        )  # fmt: skip
        batches.extend(read_split(task, settings, index))
    return planned, batches


def _core_records(data: bytes, layout: CompiledLayout) -> list[tuple[Any, ...]]:
    return [
        tuple(getattr(record, name) for name in RECORD_FIELDS)
        for record in assemble_records(io.BytesIO(data), layout)
    ]


def check_reader(data: bytes, layout: CompiledLayout, plan: ReadPlan) -> list[pa.RecordBatch]:
    """Assert the reader cuts ``data`` (a plain file) as the core does; return its batches."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "controller.log"
        path.write_bytes(data)
        planned, batches = read_file(path, layout, plan)
    assert planned.error is None and planned.size == len(data)
    rows = [row for batch in batches for row in batch.to_pylist()]
    assert all(row["read_error"] is None for row in rows)
    rows.sort(key=line_of)
    got = [tuple(row[name] for name in RECORD_FIELDS) for row in rows]
    assert got == _core_records(data, layout)
    offset = 0
    for row in rows:
        assert row["byte_offset"] == offset, row["first_line"]
        offset += row["byte_length"]
    assert offset == len(data)
    return batches


def check_gzip(data: bytes, cut: int, layout: CompiledLayout) -> None:
    """A gzip copy of ``data`` cut after ``cut`` bytes, and ``data`` itself named ``.gz``.

    The cut copy's plan holds the bytes that inflated (a prefix of ``data``), with a one-line
    error exactly when it was cut; the reader gives the core's records of that prefix and stops
    at it, before the damage. Arbitrary bytes named ``.gz`` plan and read without raising.
    """
    whole = gzip.compress(data, mtime=0)
    for content in (whole[:cut], data):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "server.log.gz"
            path.write_bytes(content)
            planned, batches = read_file(path, layout, ReadPlan())
        rows = sorted((r for b in batches for r in b.to_pylist()), key=line_of)
        assert all(row["read_error"] is None for row in rows)
        assert "\n" not in (planned.error or "")
        if content is data:
            continue
        complete = cut >= len(whole)
        assert (planned.error is None) == (complete or cut == 0)
        assert planned.size == len(data) if complete else planned.size <= len(data)
        got = [tuple(row[name] for name in RECORD_FIELDS) for row in rows]
        assert got == _core_records(data[: planned.size], layout)


def line_of(row: dict[str, Any]) -> int:
    """A reader row's first line (its sort key)."""
    return int(row["first_line"])


def _comparable(row: dict[str, Any]) -> dict[str, Any]:
    def value(item: Any) -> Any:
        return "NaN" if isinstance(item, float) and math.isnan(item) else item

    return {name: value(row[name]) for name in COMPARED}


def check_executors(
    data: bytes, layout: CompiledLayout, batches: list[pa.RecordBatch], hint: str | None
) -> None:
    """Assert the Arrow executor's rows for the reader's ``batches`` are the reference's."""
    release = KafkaRelease.parse(hint) if hint else None
    expected = []
    for record in assemble_records(io.BytesIO(data), layout):
        stamp = record.timestamp
        log_time = stamp.replace(tzinfo=UTC) if stamp else None
        row = reference_row(0, record, parse_record(record, release), log_time)
        expected.append(_comparable({**row, "read_error": None}))
    executor = ArrowExecutor(ExecutorSettings(_order(hint), (layout,), "UTC"))
    got = [_comparable(row) for batch in batches for row in executor.execute(batch, 0).to_pylist()]
    got.sort(key=line_of)
    assert len(got) == len(expected)
    for actual, want in zip(got, expected, strict=True):
        assert actual == want, want["first_line"]
