"""Spark-task side of ingest-kraft: KRaft metadata log files into Arrow batches.

``decode_files_task`` runs by ``mapInArrow`` over ``spark.range``; each task reads the files
``assign`` gave its id. A file is read from the byte its plan says (0, or where the previous
read of a grown file ended): ``kafkactl_core.metadata_log.segments.scan`` walks its batches
(stepping over damage and saying where) and every record's payload is decoded. A file gives one
``record`` row per record, holding the columns of ``bronze.kraft_records`` and of
``silver.kraft_changes`` (the stage splits them), and one ``stats`` row
(``silver.kraft_ingest_stats``). The typed columns of a change come from its decoded JSON
(``typed_columns``); a record that names its topic only by id gets the name in the stage, which
sees every file's TopicRecords.
"""

from __future__ import annotations

import json
import mmap
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from jobs.lakehouse.arrow_types import arrow_schema
from jobs.tasks.zk_tasks import union_schema
from kafkactl_core.metadata_log.batches import Batch, FileBytes, LogRecord
from kafkactl_core.metadata_log.payloads import Payload, decode
from kafkactl_core.metadata_log.segments import Problem, scan
from schemas.kraft import KRAFT_CHANGES, KRAFT_INGEST_STATS, KRAFT_RECORDS

UNION = union_schema(KRAFT_RECORDS.schema, KRAFT_CHANGES.schema, KRAFT_INGEST_STATS.schema)
"""Every column of the three tables, plus ``row_type`` (``record`` or ``stats``)."""


@dataclass(frozen=True)
class FileTask:
    """A file to read.

    Attributes:
        cluster: its cluster.
        file: its path.
        file_kind: segment or snapshot.
        content_sha256: the hash of its bytes when planned.
        size_bytes: its size when planned (bytes after it are left for the next run).
        read_start: the byte to start at.
        error: why it could not be read when planned (then it is not read now either).
    """

    cluster: str
    file: str
    file_kind: str
    content_sha256: str
    size_bytes: int
    read_start: int
    error: str | None = None


BATCH_ROWS = 4096
MAP_FROM_BYTES = 64 << 20
"""Files at least this big are memory-mapped, smaller ones read: a mapping of a file that is
truncated meanwhile (a raft follower truncating its log) kills the worker, a copy cannot."""
READ_ERROR = "read_error"
DECODER_ERROR = "decoder_error"
UNREAD = (READ_ERROR, DECODER_ERROR)
"""Problems that leave a file not (wholly) read: it is not recorded as ingested, and the next
run reads it again."""

CONFIG_RESOURCE_TYPES: Mapping[int, str] = {
    0: "UNKNOWN",
    2: "TOPIC",
    4: "BROKER",
    8: "BROKER_LOGGER",
    16: "CLIENT_METRICS",
    32: "GROUP",
}
"""Kafka's ``ConfigResource.Type`` ids, as a ConfigRecord's ``resourceType`` holds them."""

TYPED_COLUMNS: tuple[str, ...] = tuple(
    name
    for name in KRAFT_CHANGES.schema.fieldNames()
    if name
    in {
        "topic_id",
        "topic",
        "partition",
        "replicas",
        "isr",
        "eligible_leader_replicas",
        "last_known_elr",
        "leader",
        "leader_epoch",
        "partition_epoch",
        "leader_recovery_state",
        "removing_replicas",
        "adding_replicas",
        "directories",
        "broker_id",
        "broker_epoch",
        "fenced",
        "in_controlled_shutdown",
        "config_resource_type",
        "config_resource_name",
        "config_name",
        "config_value",
        "feature_name",
        "feature_level",
        "raft_leader_id",
        "voters",
    }
)
"""The change columns ``typed_columns`` fills, in the table's order."""

_NO_LEADER_CHANGE = -2
_NO_RECOVERY_STATE_CHANGE = -1
_PARTITION_FIELDS = (
    ("topic_id", "topicId"),
    ("partition", "partitionId"),
    ("replicas", "replicas"),
    ("isr", "isr"),
    ("eligible_leader_replicas", "eligibleLeaderReplicas"),
    ("last_known_elr", "lastKnownElr"),
    ("leader", "leader"),
    ("leader_recovery_state", "leaderRecoveryState"),
    ("removing_replicas", "removingReplicas"),
    ("adding_replicas", "addingReplicas"),
    ("directories", "directories"),
)


def _change_flag(value: Any) -> bool | None:
    """A BrokerRegistrationChangeRecord's int8 change: 1 set, -1 cleared, 0 (absent) unchanged."""
    if value == 1:
        return True
    if value == -1:
        return False
    return None


def _partition(record_type: str, data: Mapping[str, Any]) -> dict[str, Any]:
    out = {column: data.get(key) for column, key in _PARTITION_FIELDS}
    if record_type == "PARTITION_RECORD":
        out["leader_epoch"] = data.get("leaderEpoch")
        out["partition_epoch"] = data.get("partitionEpoch")
        if out["leader_recovery_state"] is None:  # tagged, left out when RECOVERED
            out["leader_recovery_state"] = 0
        return out
    if out["leader"] == _NO_LEADER_CHANGE:
        out["leader"] = None
    if out["leader_recovery_state"] == _NO_RECOVERY_STATE_CHANGE:
        out["leader_recovery_state"] = None
    return out


def _config(data: Mapping[str, Any]) -> dict[str, Any]:
    resource_type = data.get("resourceType")
    name = data.get("resourceName")
    out: dict[str, Any] = {
        "config_resource_type": None
        if resource_type is None
        else CONFIG_RESOURCE_TYPES.get(resource_type, str(resource_type)),
        "config_resource_name": name,
        "config_name": data.get("name"),
        "config_value": data.get("value"),
    }
    if resource_type == 2 and name:
        out["topic"] = name
    elif resource_type == 4 and isinstance(name, str) and name.isdigit():
        out["broker_id"] = int(name)
    return out


def _voter_ids(data: Mapping[str, Any]) -> list[int] | None:
    voters = data.get("voters")
    return None if voters is None else [v.get("voterId") for v in voters]


def typed_columns(record_type: str, data: Mapping[str, Any] | None) -> dict[str, Any]:
    """The typed change columns a decoded record carries (a column it does not carry is absent).

    A PartitionChangeRecord's columns are null where it leaves the field unchanged (Kafka's
    tagged defaults: leader -2, leader recovery state -1, lists null); a PartitionRecord, a
    whole state, has its leader recovery state 0 when the tagged field is left out.

    Args:
        record_type: the dump tool's name of the record's type.
        data: the decoded record (None for an undecoded one).

    Returns:
        Column name -> value, for some of ``TYPED_COLUMNS``.
    """
    if data is None:
        return {}
    if record_type in ("PARTITION_RECORD", "PARTITION_CHANGE_RECORD"):
        return _partition(record_type, data)
    if record_type == "TOPIC_RECORD":
        return {"topic": data.get("name"), "topic_id": data.get("topicId")}
    if record_type == "REMOVE_TOPIC_RECORD":
        return {"topic_id": data.get("topicId")}
    if record_type == "CLEAR_ELR_RECORD":
        return {"topic": data.get("topicName") or None}
    if record_type == "REGISTER_BROKER_RECORD":
        return {
            "broker_id": data.get("brokerId"),
            "broker_epoch": data.get("brokerEpoch"),
            "fenced": data.get("fenced"),
            "in_controlled_shutdown": data.get("inControlledShutdown"),
        }
    if record_type in ("UNREGISTER_BROKER_RECORD", "PRODUCER_IDS_RECORD"):
        return {"broker_id": data.get("brokerId"), "broker_epoch": data.get("brokerEpoch")}
    if record_type == "BROKER_REGISTRATION_CHANGE_RECORD":
        return {
            "broker_id": data.get("brokerId"),
            "broker_epoch": data.get("brokerEpoch"),
            "fenced": _change_flag(data.get("fenced")),
            "in_controlled_shutdown": _change_flag(data.get("inControlledShutdown")),
        }
    if record_type in ("FENCE_BROKER_RECORD", "UNFENCE_BROKER_RECORD"):
        return {
            "broker_id": data.get("id"),
            "broker_epoch": data.get("epoch"),
            "fenced": record_type == "FENCE_BROKER_RECORD",
        }
    if record_type == "CONFIG_RECORD":
        return _config(data)
    if record_type == "FEATURE_LEVEL_RECORD":
        return {"feature_name": data.get("name"), "feature_level": data.get("featureLevel")}
    if record_type == "LeaderChange":
        return {"raft_leader_id": data.get("leaderId"), "voters": _voter_ids(data)}
    if record_type == "KRaftVoters":
        return {"voters": _voter_ids(data)}
    return {}


def _micros(ms: int) -> int | None:
    """A Kafka timestamp (ms) as Arrow microseconds; negative (NO_TIMESTAMP) is unknown."""
    return None if ms < 0 else ms * 1000


def record_row(batch: Batch, record: LogRecord, payload: Payload) -> dict[str, Any]:
    """The bronze and silver columns of one record (without cluster, file and run).

    Args:
        batch: its batch.
        record: the record.
        payload: its value, decoded.

    Returns:
        Column name -> value.
    """
    row: dict[str, Any] = dict.fromkeys(TYPED_COLUMNS)
    row.update(typed_columns(payload.type, payload.data))
    row.update(
        batch_position=batch.position,
        position=record.position,
        base_offset=batch.base_offset,
        offset=record.offset,
        partition_leader_epoch=batch.partition_leader_epoch,
        is_control=batch.is_control,
        is_transactional=batch.is_transactional,
        crc_valid=batch.crc_valid,
        timestamp=_micros(record.timestamp),
        record_type=payload.type,
        record_version=payload.version,
        key=record.key,
        value=record.value,
        headers=[{"key": k, "value": v} for k, v in record.headers],
        kind=payload.kind,
        data_json=None
        if payload.data is None
        else json.dumps(payload.data, ensure_ascii=False, separators=(",", ":")),
        problem=payload.problem,
        row_type="record",
    )
    return row


def _problem(problem: Problem) -> dict[str, Any]:
    return {
        "position": problem.position,
        "kind": problem.kind,
        "reason": problem.reason,
        "skipped": problem.skipped,
    }


class _Counts:
    """What one file's read adds up to, for its stats row."""

    def __init__(self, start: int) -> None:
        self.end = start
        self.batches = self.batch_bytes = self.records = self.undecoded = 0
        self.lost = self.crc_mismatches = 0
        self.first_offset: int | None = None
        self.last_offset: int | None = None
        self.problems: list[dict[str, Any]] = []

    def add_batch(self, batch: Batch) -> None:
        self.batches += 1
        self.batch_bytes += batch.size
        self.crc_mismatches += not batch.crc_valid
        self.lost += max(0, batch.count - len(batch.records)) if batch.problem else 0

    def add_record(self, record: LogRecord, payload: Payload) -> None:
        self.records += 1
        self.undecoded += payload.problem is not None
        if self.first_offset is None:
            self.first_offset = record.offset
        self.last_offset = record.offset


def _read(task: FileTask) -> FileBytes:
    """The first ``size_bytes`` bytes of the file: mapped when big, else read.

    Raises:
        OSError: unreadable (now or when planned), or shorter than planned now.
    """
    if task.error is not None:
        raise OSError(task.error)
    path, size = task.file, task.size_bytes
    with open(path, "rb") as handle:
        if size >= MAP_FROM_BYTES:
            try:
                return mmap.mmap(handle.fileno(), size, access=mmap.ACCESS_READ)
            except ValueError as exc:  # the file is shorter than the mapping asked for
                raise OSError(f"cannot map {size} bytes: {exc}") from None
        data = handle.read(size)
    if len(data) < size:
        raise OSError(f"the file holds {len(data)} bytes now, {size} when planned")
    return data


def file_rows(task: FileTask, run_id: str) -> Iterator[dict[str, Any]]:
    """The record rows of one file, from ``read_start`` on, then its stats row.

    A file that cannot be read gives a stats row with a ``read_error`` problem; damage inside
    the file is a problem of its stats row (the scan reads every batch before and after it).
    Should the decoder fail on a file (it is meant never to raise), the failure is the stats
    row's ``decoder_error`` problem, at the batch it stopped in, rather than the run's end.
    The stats row's ``ingested_at`` is left to the driver.

    Args:
        task: the file.
        run_id: the run.

    Yields:
        Row dicts of ``UNION``'s columns (``row_type`` says which table).
    """
    base = {"cluster": task.cluster, "file": task.file, "file_kind": task.file_kind}
    start, size = task.read_start, task.size_bytes
    counts = _Counts(start)
    try:
        buf = _read(task)
    except OSError as exc:
        counts.problems.append(
            {"position": start, "kind": READ_ERROR, "reason": str(exc), "skipped": size - start}
        )
    else:
        at = start
        try:
            result = scan(buf, start)
            counts.end = result.end
            counts.problems.extend(_problem(p) for p in result.problems)
            for batch in result.batches:
                at = batch.position
                counts.add_batch(batch)
                for record in batch.records:
                    payload = decode(record, control=batch.is_control)
                    counts.add_record(record, payload)
                    row = record_row(batch, record, payload)
                    row.update(base, run_id=run_id)
                    yield row
        except Exception as exc:  # a decoder bug must not end the run: the file is reported
            reason = f"the decoder failed: {type(exc).__name__}: {exc}"
            counts.problems.append(
                {"position": at, "kind": DECODER_ERROR, "reason": reason, "skipped": size - at}
            )
        finally:
            if isinstance(buf, mmap.mmap):
                buf.close()
    yield {
        **base,
        "content_sha256": task.content_sha256,
        "size_bytes": size,
        "read_start": start,
        "read_end": counts.end,
        "batches": counts.batches,
        "batch_bytes": counts.batch_bytes,
        "records": counts.records,
        "records_decoded": counts.records - counts.undecoded,
        "records_undecoded": counts.undecoded,
        "records_lost": counts.lost,
        "crc_mismatches": counts.crc_mismatches,
        "first_offset": counts.first_offset,
        "last_offset": counts.last_offset,
        "problems": counts.problems,
        "run_id": run_id,
        "row_type": "stats",
    }


def assign(tasks: Sequence[FileTask], slots: int) -> tuple[tuple[FileTask, ...], ...]:
    """Spread the files over at most ``slots`` tasks, balancing the bytes each reads.

    Largest first, each to the task with the fewest bytes so far.

    Args:
        tasks: the files.
        slots: how many tasks at most (at least 1).

    Returns:
        The files of each task, none empty.
    """
    count = max(1, min(slots, len(tasks)))
    loads = [0] * count
    out: list[list[FileTask]] = [[] for _ in range(count)]
    for task in sorted(tasks, key=lambda t: (t.read_start - t.size_bytes, t.file)):
        least = loads.index(min(loads))
        out[least].append(task)
        loads[least] += task.size_bytes - task.read_start
    return tuple(tuple(files) for files in out if files)


def decode_files_task(
    batches: Iterable[pa.RecordBatch],
    *,
    assignments: Sequence[Sequence[FileTask]],
    run_id: str,
) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` function over ``spark.range``: each id's files into ``UNION`` batches.

    Args:
        batches: ``id`` rows, the indexes into ``assignments`` of this task's share.
        assignments: the files of each task (``assign``).
        run_id: the run.

    Yields:
        Arrow batches of ``UNION``.
    """
    schema = arrow_schema(UNION)
    rows: list[dict[str, Any]] = []
    for batch in batches:
        for index in batch.column("id").to_pylist():
            for task in assignments[index]:
                for row in file_rows(task, run_id):
                    rows.append(row)
                    if len(rows) >= BATCH_ROWS:
                        yield pa.RecordBatch.from_pylist(rows, schema=schema)
                        rows = []
    if rows:
        yield pa.RecordBatch.from_pylist(rows, schema=schema)
