"""Our metadata log decoder's reading of a segment against ``kafka-dump-log``'s dump of it.

Shared by the checks on real KRaft captures (``test_metadata_log_dumps``) and on the segments
Kafka's own classes wrote with every codec (``test_metadata_log_codecs``): the decoder must read
the same batches (every header field the tool prints) and the same records, and every metadata
and control record must decode to the JSON object the tool prints.
"""

from __future__ import annotations

from pathlib import Path

from kafkactl_core.metadata_log.batches import Batch, LogRecord
from kafkactl_core.metadata_log.payloads import decode
from kafkactl_core.metadata_log.segments import scan
from tests.real_kafka.kraft_dump import DumpBatch, DumpRecord, read_dump


def check_segment(segment: Path, dump: Path) -> list[Batch]:
    """Assert that the decoder reads ``segment`` as the tool's ``dump`` of it says; its batches."""
    want = read_dump(dump)
    result = scan(segment.read_bytes())
    assert result.problems == []
    assert result.end == segment.stat().st_size
    assert len(result.batches) == len(want)
    for ours, batch in zip(result.batches, want, strict=True):
        check_batch(ours, batch)
    return result.batches


_INT32_MAX = 2**31 - 1


def sequence(base: int, delta: int) -> int:
    """A producer sequence ``delta`` after ``base``, wrapping past int32 as Kafka's does."""
    if base < 0:
        return -1
    return delta - (_INT32_MAX - base) - 1 if base > _INT32_MAX - delta else base + delta


def batch_fields(b: Batch) -> dict[str, str]:
    """A batch's header as the dump tool prints it."""
    horizon = b.delete_horizon_ms
    return {
        "baseOffset": str(b.base_offset),
        "lastOffset": str(b.last_offset),
        "count": str(b.count),
        "baseSequence": str(b.base_sequence),
        "lastSequence": str(sequence(b.base_sequence, b.last_offset_delta)),
        "producerId": str(b.producer_id),
        "producerEpoch": str(b.producer_epoch),
        "partitionLeaderEpoch": str(b.partition_leader_epoch),
        "isTransactional": str(b.is_transactional).lower(),
        "isControl": str(b.is_control).lower(),
        "deleteHorizonMs": "OptionalLong.empty" if horizon is None else f"OptionalLong[{horizon}]",
        "position": str(b.position),
        "CreateTime": str(b.max_timestamp),
        "size": str(b.size),
        "magic": str(b.magic),
        "compresscodec": "?" if b.compression is None else b.compression.name,
        "crc": str(b.crc),
        "isvalid": str(b.crc_valid).lower(),
    }


def record_fields(r: LogRecord, b: Batch) -> dict[str, str]:
    """A record's fields as the dump tool prints them (before its payload)."""
    return {
        "offset": str(r.offset),
        "CreateTime": str(r.timestamp),
        "sequence": str(sequence(b.base_sequence, r.offset - b.base_offset)),
        "keySize": str(-1 if r.key is None else len(r.key)),
        "valueSize": str(-1 if r.value is None else len(r.value)),
        "headerKeys": "[" + ",".join(k for k, _ in r.headers) + "]",
    }


def _expected_json(want: DumpRecord, ours: LogRecord, control: bool) -> object:
    payload = decode(ours, control=control)
    assert payload.problem is None, payload.problem
    if want.label == "payload":
        return {"type": payload.type, "version": payload.version, "data": payload.data}
    assert want.label == payload.type
    return payload.data


def check_batch(ours: Batch, want: DumpBatch) -> None:
    """Assert that a decoded batch and its records match the tool's lines for it."""
    fields = batch_fields(ours)
    assert {k: want.fields[k] for k in fields} == fields
    assert len(ours.records) == len(want.records) == ours.count
    for record, line in zip(ours.records, want.records, strict=True):
        got = record_fields(record, ours)
        assert {k: line.fields[k] for k in got} == got
        if "controlType" in line.fields:
            # Up to 3.9 the tool names the control type only: LEADER_CHANGE(2).
            payload = decode(record, control=True)
            assert payload.problem is None
            assert line.fields["controlType"].endswith(f"({payload.api_key})")
        else:
            assert line.json == _expected_json(line, record, ours.is_control)
