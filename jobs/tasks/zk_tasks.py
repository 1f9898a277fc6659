"""Spark-task side of ingest-zk: decode ZooKeeper files into Arrow batches.

Two task functions, run by ``mapInArrow``:

* ``decode_files_task``: one input file per row (the files are spread over tasks); yields its
  raw records (``bronze.zk_records``) and one stats row (``silver.zk_ingest_stats``).
* ``replay_task``: all of a cluster's files in one row; replays them in zxid order with
  ``kafkactl_core.zk.DataDirReplay`` and yields ``silver.zk_state`` and ``silver.zk_changes``
  rows. The replay is sequential by nature (previous values, session expiries), so one task
  per cluster does it; decoding runs at tens of MB/s.

Each yielded batch has a union schema with a ``row_type`` column; the job splits it by table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
from pyspark.sql.types import StringType, StructField, StructType

from jobs.lakehouse.arrow_types import arrow_schema
from kafkactl_core.zk import (
    FileIssue,
    ZkChange,
    ZkRecord,
    ZkStateRow,
    find_data_files,
    parse_snapshot_dump,
    parse_txnlog_dump,
    read_snapshot,
    read_txnlog,
    snapshot_records,
    txn_records,
)
from kafkactl_core.zk.datadir import DataDirReplay
from kafkactl_core.zk.files import FileKind
from schemas.zk import ZK_CHANGES, ZK_INGEST_STATS, ZK_RECORDS, ZK_STATE

BATCH_ROWS = 8192
_MS_FIELDS = ("time", "ctime", "mtime")


def union_schema(*schemas: StructType) -> StructType:
    """All columns of ``schemas`` (first occurrence wins), nullable, plus ``row_type``."""
    fields: dict[str, StructField] = {}
    for schema in schemas:
        for f in schema.fields:
            fields.setdefault(f.name, StructField(f.name, f.dataType, True))
    return StructType([*fields.values(), StructField("row_type", StringType(), False)])


FILES_UNION = union_schema(ZK_RECORDS.schema, ZK_INGEST_STATS.schema)
REPLAY_UNION = union_schema(ZK_CHANGES.schema, ZK_STATE.schema)


def _micros(ms: Any) -> int | None:
    """ZooKeeper's ms epoch times as Arrow microseconds (negative: unknown)."""
    if ms is None or ms < 0:
        return None
    return int(ms) * 1000


def _issue_text(issue: FileIssue) -> str:
    where = "?" if issue.offset is None else str(issue.offset)
    return f"offset {where}: {issue.kind.value}: {issue.detail}"


class _Batcher:
    """Collects row dicts and emits Arrow batches of a fixed schema."""

    def __init__(self, schema: StructType) -> None:
        self.schema = arrow_schema(schema)
        self.rows: list[dict[str, Any]] = []

    def add(self, row: dict[str, Any]) -> pa.RecordBatch | None:
        for name in _MS_FIELDS:
            if name in row:
                row[name] = _micros(row[name])
        self.rows.append(row)
        return self.flush() if len(self.rows) >= BATCH_ROWS else None

    def flush(self) -> pa.RecordBatch | None:
        if not self.rows:
            return None
        batch = pa.RecordBatch.from_pylist(self.rows, schema=self.schema)
        self.rows = []
        return batch


def _file_records(path: str, kind: str) -> tuple[Iterator[ZkRecord], Any]:
    """Raw records of one file, and a callable giving its summary once they are consumed."""
    if kind == FileKind.snapshot.value:
        reader = read_snapshot(path)
        return snapshot_records(reader), lambda: reader.summary
    if kind == FileKind.txnlog.value:
        log = read_txnlog(path)
        return txn_records(log, path), lambda: log.summary
    with open(path, encoding="utf-8", errors="replace", newline="\n") as handle:
        if kind == FileKind.snapshot_dump.value:
            dump = parse_snapshot_dump(handle, path)
            return snapshot_records(dump), lambda: dump.summary
        txns = parse_txnlog_dump(handle, path)
        return txn_records(txns.entries, path), lambda: txns.summary


def _stats_row(
    base: dict[str, Any], records: int, summary: Any, error: str | None
) -> dict[str, Any]:
    issues: Sequence[FileIssue] = tuple(getattr(summary, "issues", ()) or ())
    fatal = [i for i in issues if i.fatal]
    first = getattr(summary, "first_zxid", None)
    last = getattr(summary, "last_zxid", None)
    if first is None and getattr(summary, "zxid", None) is not None:
        first = last = summary.zxid
    checksum = getattr(summary, "checksum_ok", None)
    if checksum is None and hasattr(summary, "entries"):
        checksum = not any(i.kind.value.startswith("checksum") for i in issues)
    return {
        **base,
        "records": records,
        "first_zxid": first,
        "last_zxid": last,
        "checksum_ok": checksum,
        "issues": [_issue_text(i) for i in issues],
        "error": error or (_issue_text(fatal[0]) if fatal else None),
        "ingested_at": int(datetime.now(UTC).timestamp() * 1_000_000),
        "row_type": "stats",
    }


def decode_files_task(
    batches: Iterable[pa.RecordBatch], *, run_id: str
) -> Iterator[pa.RecordBatch]:
    """Decode each file named in the input rows into raw records plus one stats row.

    Input columns: cluster, file, content_sha256, kind, size_bytes.
    """
    out = _Batcher(FILES_UNION)
    for batch in batches:
        for task in batch.to_pylist():
            base = {
                "cluster": task["cluster"],
                "file": task["file"],
                "content_sha256": task["content_sha256"],
                "kind": task["kind"],
                "size_bytes": task["size_bytes"],
                "run_id": run_id,
            }
            if task["kind"] == FileKind.other.value:
                stats = _stats_row(base, 0, None, "not a ZooKeeper snapshot, log or dump")
                if (ready := out.add(stats)) is not None:
                    yield ready
                continue
            count = 0
            error: str | None = None
            summary: Any = None
            try:
                records, summary_of = _file_records(task["file"], task["kind"])
                for record in records:
                    row = record.to_row()
                    row.update(
                        cluster=task["cluster"],
                        content_sha256=task["content_sha256"],
                        run_id=run_id,
                        row_type="record",
                    )
                    count += 1
                    if (ready := out.add(row)) is not None:
                        yield ready
                summary = summary_of()
            except OSError as exc:
                error = f"cannot read: {exc}"
            row_kind = {**base, "kind": task["kind"]}
            if (ready := out.add(_stats_row(row_kind, count, summary, error))) is not None:
                yield ready
    if (ready := out.flush()) is not None:
        yield ready


def replay_task(batches: Iterable[pa.RecordBatch], *, run_id: str) -> Iterator[pa.RecordBatch]:
    """Replay all files of a cluster (input columns: cluster, files_json) into state/changes."""
    out = _Batcher(REPLAY_UNION)
    for batch in batches:
        for task in batch.to_pylist():
            files, _others = find_data_files(json.loads(task["files_json"]))
            for item in DataDirReplay(files):
                row = item.to_row()
                row["cluster"] = task["cluster"]
                row["run_id"] = run_id
                if isinstance(item, ZkChange):
                    row["row_type"] = "change"
                elif isinstance(item, ZkStateRow):
                    row["row_type"] = "state"
                if (ready := out.add(row)) is not None:
                    yield ready
    if (ready := out.flush()) is not None:
        yield ready
