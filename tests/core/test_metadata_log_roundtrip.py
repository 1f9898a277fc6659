"""The metadata log decoder against its mirror image, ``kafkactl_lab.metadata_log_encode``.

For every metadata and control record schema and every version of it, data drawn from the
schema's own field tables must encode and decode back to itself (tagged fields at their default
left out, as the decoder leaves them out); whole files of random batches, with every codec,
control or not, must scan back record for record. The encoder is itself checked against Kafka:
it rewrites every record of the real KRaft captures (segments and snapshots) and of the
segments Kafka's own classes wrote with every codec byte for byte, and their batches too (but
for snappy's and zstd's compressed bytes).
"""

from __future__ import annotations

import base64
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafkactl_core.metadata_log.batches import Batch, Compression, LogRecord
from kafkactl_core.metadata_log.payloads import CONTROL, METADATA, decode
from kafkactl_core.metadata_log.record_types import CONTROL_BY_TYPE, METADATA_BY_KEY
from kafkactl_core.metadata_log.schema import Field, MessageSchema
from kafkactl_core.metadata_log.segments import scan
from kafkactl_core.metadata_log.wire import Reader
from kafkactl_lab.metadata_log_encode import (
    Record,
    control_key,
    control_value,
    encode_batch,
    encode_message,
    metadata_value,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CAPTURES = FIXTURES / "real-kafka"
CODECS = FIXTURES / "kraft-codecs"

_INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
_SCALARS: dict[str, st.SearchStrategy[Any]] = {
    **{kind: st.integers(low, high) for kind, (low, high) in _INT_RANGES.items()},
    "float64": st.floats(allow_nan=False, allow_infinity=False),
    "bool": st.booleans(),
    "uuid": st.binary(min_size=16, max_size=16).map(
        lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
    ),
    "string": st.text(st.characters(codec="utf-8"), max_size=12),
    "bytes": st.binary(max_size=24).map(lambda raw: base64.b64encode(raw).decode("ascii")),
}


def _versions(schema: MessageSchema) -> range:
    assert schema.valid.high is not None, schema.name
    return range(schema.valid.low, schema.valid.high + 1)


METADATA_VERSIONS = [
    (schema, version) for schema in METADATA_BY_KEY.values() for version in _versions(schema)
]
CONTROL_VERSIONS = [
    (type_id, schema, version)
    for type_id, (_, schema) in CONTROL_BY_TYPE.items()
    for version in _versions(schema)
]


def _field_data(fld: Field, version: int) -> st.SearchStrategy[Any]:
    kind = fld.type
    if kind.startswith("[]"):
        element = kind[2:]
        items = _SCALARS[element] if element in _SCALARS else _struct_data(fld.fields, version)
        data: st.SearchStrategy[Any] = st.lists(items, max_size=4)
    else:
        data = _SCALARS[kind] if kind in _SCALARS else _struct_data(fld.fields, version)
    return st.none() | data if fld.is_nullable(version) else data


def _struct_data(fields: tuple[Field, ...], version: int) -> st.SearchStrategy[dict[str, Any]]:
    present = [fld for fld in fields if version in fld.versions]
    return st.fixed_dictionaries(
        {fld.json_name: _field_data(fld, version) for fld in present if not fld.is_tagged(version)},
        optional={
            fld.json_name: st.just(fld.default_value()) | _field_data(fld, version)
            for fld in present
            if fld.is_tagged(version)
        },
    )


def _as_decoded(fields: tuple[Field, ...], version: int, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as the decoder returns it: tagged fields at their default left out."""
    out = {}
    for fld in fields:
        name = fld.json_name
        if version not in fld.versions or name not in data:
            continue
        value = data[name]
        if fld.is_tagged(version) and value == fld.default_value():
            continue
        if fld.fields and isinstance(value, list):
            value = [_as_decoded(fld.fields, version, item) for item in value]
        elif fld.fields and value is not None:
            value = _as_decoded(fld.fields, version, value)
        out[name] = value
    return out


def _message_data(schema: MessageSchema, version: int) -> st.SearchStrategy[dict[str, Any]]:
    return _struct_data(schema.fields, version)


def _value_record(value: bytes, key: bytes | None = None) -> LogRecord:
    return LogRecord(0, 0, 0, key, value)


EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(
    ("schema", "version"),
    METADATA_VERSIONS,
    ids=[f"{s.name}-v{v}" for s, v in METADATA_VERSIONS],
)
def test_metadata_record_round_trips(schema: MessageSchema, version: int) -> None:
    @EXAMPLES
    @given(_message_data(schema, version))
    def check(data: dict[str, Any]) -> None:
        payload = decode(_value_record(metadata_value(schema, version, data)), control=False)
        assert payload.problem is None
        assert (payload.kind, payload.type, payload.api_key, payload.version) == (
            METADATA,
            schema.type_name,
            schema.api_key,
            version,
        )
        assert payload.data == _as_decoded(schema.fields, version, data)

    check()


@pytest.mark.parametrize(
    ("type_id", "schema", "version"),
    CONTROL_VERSIONS,
    ids=[f"{s.name}-v{v}" for _, s, v in CONTROL_VERSIONS],
)
def test_control_record_round_trips(type_id: int, schema: MessageSchema, version: int) -> None:
    """Every version through the schema; version 0, the one Kafka reads, as a control record."""
    label = CONTROL_BY_TYPE[type_id][0]

    @EXAMPLES
    @given(_message_data(schema, version))
    def check(data: dict[str, Any]) -> None:
        want = _as_decoded(schema.fields, version, data)
        r = Reader(encode_message(schema, version, data))
        assert schema.decoder(version)(r) == want
        assert r.remaining == 0
        if version == 0:
            record = _value_record(control_value(type_id, data), control_key(type_id))
            payload = decode(record, control=True)
            assert payload.problem is None
            assert (payload.kind, payload.type, payload.api_key) == (CONTROL, label, type_id)
            assert (payload.data, payload.version) == (want, data["version"])

    check()


def test_unknown_tags_round_trip() -> None:
    schema = METADATA_BY_KEY[5]  # PartitionChangeRecord: tags 0-8 known in version 2
    data = {"partitionId": 1, "topicId": "A" * 22, "leader": 4, "_unknownTags": [9, 40, 300]}
    payload = decode(_value_record(metadata_value(schema, 2, data)), control=False)
    assert payload.data == data


def test_the_encoder_refuses_what_the_schema_does_not_allow() -> None:
    topic = METADATA_BY_KEY[2]  # TopicRecord v0: Name, TopicId
    with pytest.raises(ValueError, match="TopicId is missing"):
        encode_message(topic, 0, {"name": "t"})
    with pytest.raises(ValueError, match="not in version 0"):
        encode_message(topic, 0, {"name": "t", "topicId": "A" * 22, "extra": 1})
    with pytest.raises(ValueError, match="not nullable"):
        encode_message(topic, 0, {"name": None, "topicId": "A" * 22})
    with pytest.raises(ValueError, match="no version 1"):
        encode_message(topic, 1, {"name": "t", "topicId": "A" * 22})
    with pytest.raises(ValueError, match="not 16"):
        encode_message(topic, 0, {"name": "t", "topicId": "AAAA"})


# Whole files: batches of random records, random codecs, control or not.

_METADATA_RECORD = st.sampled_from(METADATA_VERSIONS).flatmap(
    lambda sv: st.tuples(st.just(sv[0]), st.just(sv[1]), _message_data(sv[0], sv[1]))
)
_CONTROL_RECORD = st.sampled_from(sorted(CONTROL_BY_TYPE)).flatmap(
    lambda t: st.tuples(st.just(t), _message_data(CONTROL_BY_TYPE[t][1], 0))
)
_HEADERS = st.lists(
    st.tuples(st.text(max_size=6), st.none() | st.binary(max_size=6)), max_size=2
).map(tuple)


@st.composite
def _batch(draw: st.DrawFn) -> dict[str, Any]:
    control = draw(st.booleans())
    records: list[Record] = []
    expected: list[tuple[str, int | None, dict[str, Any]]] = []
    for _ in range(draw(st.integers(1, 6))):
        delta = draw(st.integers(0, 10_000))
        if control:
            type_id, data = draw(_CONTROL_RECORD)
            schema = CONTROL_BY_TYPE[type_id][1]
            records.append(
                Record(control_value(type_id, data), control_key(type_id), timestamp_delta=delta)
            )
            expected.append(
                (CONTROL_BY_TYPE[type_id][0], type_id, _as_decoded(schema.fields, 0, data))
            )
        else:
            schema, version, data = draw(_METADATA_RECORD)
            key = draw(st.none() | st.binary(max_size=4))
            value = metadata_value(schema, version, data)
            records.append(Record(value, key, draw(_HEADERS), timestamp_delta=delta))
            expected.append(
                (schema.type_name, schema.api_key, _as_decoded(schema.fields, version, data))
            )
    return {
        "records": records,
        "expected": expected,
        "control": control,
        "transactional": draw(st.booleans()),
        "compression": draw(st.sampled_from(list(Compression))),
        "epoch": draw(st.integers(0, 2**31 - 1)),
        "base_timestamp": draw(st.integers(0, 2**41)),
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_batch(), min_size=1, max_size=5))
def test_batches_scan_back_record_for_record(batches: list[dict[str, Any]]) -> None:
    parts, offset = [], 0
    for spec in batches:
        parts.append(
            encode_batch(
                spec["records"],
                base_offset=offset,
                compression=spec["compression"],
                control=spec["control"],
                transactional=spec["transactional"],
                partition_leader_epoch=spec["epoch"],
                base_timestamp=spec["base_timestamp"],
            )
        )
        offset += len(spec["records"])
    buf = b"".join(parts)
    result = scan(buf)
    assert result.problems == []
    assert result.end == len(buf)
    assert len(result.batches) == len(batches)
    offset = position = 0
    for batch, spec, part in zip(result.batches, batches, parts, strict=True):
        records: list[Record] = spec["records"]
        assert batch.crc_valid and batch.problem is None
        assert (batch.position, batch.size, batch.base_offset) == (position, len(part), offset)
        assert batch.compression == spec["compression"]
        assert batch.is_control == spec["control"]
        assert batch.is_transactional == spec["transactional"]
        assert batch.partition_leader_epoch == spec["epoch"]
        assert batch.count == len(records) == len(batch.records)
        assert batch.last_offset == offset + len(records) - 1
        for i, (got, sent) in enumerate(zip(batch.records, records, strict=True)):
            assert got.offset == offset + i
            assert got.timestamp == spec["base_timestamp"] + sent.timestamp_delta
            assert (got.key, got.value, got.headers) == (sent.key, sent.value, sent.headers)
        payloads = [decode(r, control=batch.is_control) for r in batch.records]
        assert [(p.type, p.api_key, p.data) for p in payloads] == spec["expected"]
        assert all(p.problem is None for p in payloads)
        offset += len(records)
        position += len(part)


@pytest.mark.parametrize("codec", list(Compression), ids=lambda c: c.name)
def test_a_records_section_of_many_codec_blocks_round_trips(codec: Compression) -> None:
    """Past snappy-java's 32 KiB and lz4's 64 KiB blocks, incompressible bytes included."""
    noise = random.Random(5).randbytes(70_000)
    records = [Record(noise), Record(b"a" * 150_000, b"k"), Record(b""), Record(None)]
    [batch] = scan(encode_batch(records, compression=codec)).batches
    assert batch.crc_valid and batch.problem is None
    assert [(r.key, r.value) for r in batch.records] == [(r.key, r.value) for r in records]
    assert scan(encode_batch([], compression=codec)).batches[0].records == ()


# Kafka's own segments: the captures of real clusters and the codec fixtures Kafka 4.1.1 wrote.
KAFKA_SEGMENTS = sorted(
    [*CAPTURES.glob("*-kraft/metadata/*.log"), *CAPTURES.glob("*-kraft/metadata/*.checkpoint")]
) + sorted(CODECS.glob("*/*.log"))
BYTE_FOR_BYTE = {Compression.none, Compression.gzip, Compression.lz4}


def _header_fields(batch: Batch) -> tuple[int, ...]:
    return (
        batch.base_offset,
        batch.partition_leader_epoch,
        batch.attributes,
        batch.last_offset_delta,
        batch.base_timestamp,
        batch.max_timestamp,
        batch.producer_id,
        batch.producer_epoch,
        batch.base_sequence,
        batch.count,
    )


def _contents(batch: Batch) -> list[tuple[Any, ...]]:
    return [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in batch.records]


@pytest.mark.parametrize("segment", KAFKA_SEGMENTS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_encoder_rewrites_kafkas_own_segments(segment: Path) -> None:
    """Every record value byte for byte; every batch too, but the snappy and zstd ones, whose
    compressors differ from Kafka's: those hold the same records."""
    buf = segment.read_bytes()
    result = scan(buf)
    assert result.problems == [] and result.batches
    for batch in result.batches:
        records = []
        for r in batch.records:
            p = decode(r, control=batch.is_control)
            assert p.data is not None and p.api_key is not None and p.version is not None
            if batch.is_control:
                assert control_value(p.api_key, p.data) == r.value
            else:
                assert metadata_value(METADATA_BY_KEY[p.api_key], p.version, p.data) == r.value
            records.append(
                Record(
                    r.value,
                    r.key,
                    r.headers,
                    timestamp_delta=r.timestamp - batch.base_timestamp,
                    offset_delta=r.offset - batch.base_offset,
                )
            )
        assert batch.compression is not None
        rewritten = encode_batch(
            records,
            base_offset=batch.base_offset,
            compression=batch.compression,
            control=batch.is_control,
            transactional=batch.is_transactional,
            partition_leader_epoch=batch.partition_leader_epoch,
            base_timestamp=batch.base_timestamp,
            max_timestamp=batch.max_timestamp,
            producer_id=batch.producer_id,
            producer_epoch=batch.producer_epoch,
            base_sequence=batch.base_sequence,
        )
        if batch.compression in BYTE_FOR_BYTE:
            assert rewritten == buf[batch.position : batch.position + batch.size]
        [again] = scan(rewritten).batches
        assert again.crc_valid and again.problem is None
        assert _header_fields(again) == _header_fields(batch)
        assert _contents(again) == _contents(batch)


def test_every_kafka_segment_is_rewritten() -> None:
    assert len(KAFKA_SEGMENTS) >= 6 + len(Compression)
