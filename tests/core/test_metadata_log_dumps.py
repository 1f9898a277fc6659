"""The metadata log decoder against Kafka's own ``kafka-dump-log --cluster-metadata-decoder``.

Every KRaft capture of ``tests/fixtures/real-kafka`` holds a controller's ``__cluster_metadata-0``
segment, recorded from a real cluster, and the tool's dump of it. The decoder must read the same
batches (every header field the tool prints) and the same records, and every metadata and control
record must decode to the JSON object the tool prints.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkactl_core.metadata_log.batches import Batch, LogRecord
from kafkactl_core.metadata_log.payloads import decode
from kafkactl_core.metadata_log.segments import scan
from tests.real_kafka.kraft_dump import DumpBatch, DumpRecord, read_dump

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real-kafka"
KRAFT = sorted(p for p in CAPTURES.glob("*-kraft") if (p / "metadata").is_dir())


def _batch_fields(b: Batch) -> dict[str, str]:
    horizon = b.delete_horizon_ms
    return {
        "baseOffset": str(b.base_offset),
        "lastOffset": str(b.last_offset),
        "count": str(b.count),
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


def _record_fields(r: LogRecord) -> dict[str, str]:
    return {
        "offset": str(r.offset),
        "CreateTime": str(r.timestamp),
        "keySize": str(-1 if r.key is None else len(r.key)),
        "valueSize": str(-1 if r.value is None else len(r.value)),
        "headerKeys": "[" + ", ".join(k for k, _ in r.headers) + "]",
    }


def _expected_json(want: DumpRecord, ours: LogRecord, control: bool) -> object:
    payload = decode(ours, control=control)
    assert payload.problem is None, payload.problem
    if want.label == "payload":
        return {"type": payload.type, "version": payload.version, "data": payload.data}
    assert want.label == payload.type
    return payload.data


@pytest.mark.parametrize("capture", KRAFT, ids=lambda p: p.name)
def test_segment_decodes_as_kafka_dump_log_prints_it(capture: Path) -> None:
    for segment in sorted((capture / "metadata").glob("*.log")):
        dump = read_dump(capture / "truth" / f"dump-{segment.name}.txt.gz")
        result = scan(segment.read_bytes())
        assert result.problems == []
        assert result.end == segment.stat().st_size
        assert len(result.batches) == len(dump)
        for ours, want in zip(result.batches, dump, strict=True):
            _check_batch(ours, want)


def _check_batch(ours: Batch, want: DumpBatch) -> None:
    fields = _batch_fields(ours)
    assert {k: want.fields[k] for k in fields} == fields
    assert len(ours.records) == len(want.records) == ours.count
    for record, line in zip(ours.records, want.records, strict=True):
        got = _record_fields(record)
        assert {k: line.fields[k] for k in got} == got
        if "controlType" in line.fields:
            # Up to 3.9 the tool names the control type only: LEADER_CHANGE(2).
            payload = decode(record, control=True)
            assert payload.problem is None
            assert line.fields["controlType"].endswith(f"({payload.api_key})")
        else:
            assert line.json == _expected_json(line, record, ours.is_control)


def test_every_capture_set_is_checked() -> None:
    assert len(KRAFT) >= 6
