"""The metadata log decoder's fast paths give what its bounded readers give, or step aside.

``compiled`` decoders (payloads) and ``batches._records_fast`` (a batch's records) read sound
input only: on every record of the codec fixtures and the real KRaft captures they must give
exactly what the bounded ``Reader`` paths give, and on damaged input (seeded random byte
changes, insertions and cuts) either the same or nothing, never something else.
"""

from __future__ import annotations

import gc
import random
from pathlib import Path

import pytest

from kafkactl_core.metadata_log import batches
from kafkactl_core.metadata_log.batches import Batch, LogRecord, read_batch
from kafkactl_core.metadata_log.compiled import builder, fast_decoder
from kafkactl_core.metadata_log.payloads import Payload
from kafkactl_core.metadata_log.record_types import CONTROL_BY_TYPE, METADATA_BY_KEY
from kafkactl_core.metadata_log.schema import Json, MessageSchema
from kafkactl_core.metadata_log.segments import scan
from kafkactl_core.metadata_log.wire import DecodeError, Reader

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SEGMENTS = sorted(
    [
        *(FIXTURES / "kraft-codecs").glob("*/*.log"),
        *(FIXTURES / "real-kafka").glob("*-kraft/metadata/*.log"),
    ]
)
FAILED = "failed"


def _checked(schema: MessageSchema, version: int, value: bytes, start: int) -> Json:
    r = Reader(value, start)
    try:
        data = schema.decoder(version)(r)
    except DecodeError:
        return FAILED
    return FAILED if r.remaining else data


def _compiled(schema: MessageSchema, version: int, value: bytes, start: int) -> Json:
    try:
        data, end = fast_decoder(schema, version)(value, start)
    except Exception:
        return FAILED
    return FAILED if end != len(value) else data


def _values() -> list[tuple[MessageSchema, int, bytes, int]]:
    out = []
    for segment in SEGMENTS:
        for batch in scan(segment.read_bytes()).batches:
            for record in batch.records:
                assert record.value is not None
                if batch.is_control:
                    assert record.key is not None
                    _, schema = CONTROL_BY_TYPE[int.from_bytes(record.key[2:4], "big")]
                    out.append((schema, 0, record.value, 0))
                else:
                    value = record.value
                    out.append((METADATA_BY_KEY[value[1]], value[2], value, 3))
    return out


VALUES = _values()


def _same(a: Json, b: Json) -> bool:
    # repr too: the same key order, and True is not 1
    return bool(a == b) and repr(a) == repr(b)


def test_compiled_decoders_read_every_record_as_the_bounded_reader() -> None:
    assert len(VALUES) > 3000
    assert len({schema.name for schema, *_ in VALUES}) >= 25
    for schema, version, value, start in VALUES:
        want = _checked(schema, version, value, start)
        assert want != FAILED
        assert _same(_compiled(schema, version, value, start), want), (schema.name, value.hex())


def _damage(rnd: random.Random, data: bytes, start: int) -> bytes:
    out = bytearray(data)
    for _ in range(rnd.randint(1, 3)):
        where = rnd.randrange(start, len(out) + 1)
        roll = rnd.random()
        if roll < 0.6 and where < len(out):
            out[where] = rnd.choice([0, 1, 2, 0x7F, 0x80, 0xFF, rnd.randrange(256)])
        elif roll < 0.8:
            del out[where:]
        else:
            out.insert(where, rnd.randrange(256))
    return bytes(out)


@pytest.mark.parametrize("seed", range(4))
def test_compiled_decoders_on_damaged_records_agree_or_step_aside(seed: int) -> None:
    rnd = random.Random(seed)
    decoded = 0
    for _ in range(5000):
        schema, version, value, start = rnd.choice(VALUES)
        damaged = _damage(rnd, value, start)
        high = schema.valid.high if schema.valid.high is not None else schema.valid.low
        for v in {version, rnd.randint(schema.valid.low, high)}:
            want = _checked(schema, v, damaged, start)
            got = _compiled(schema, v, damaged, start)
            assert _same(got, want) or got == FAILED, (schema.name, v, damaged.hex())
            decoded += want != FAILED
    assert decoded > 200  # some damage still decodes: those must agree too


def _slow_records(buf: bytes, b: Batch) -> tuple[list[LogRecord], str | None]:
    out: list[LogRecord] = []
    try:
        batches._read_records(
            buf,
            b.position,
            b.size,
            b.attributes,
            b.base_offset,
            b.base_timestamp,
            b.max_timestamp,
            b.count,
            out,
        )
    except DecodeError as exc:
        return out, exc.reason
    return out, None


@pytest.mark.parametrize("segment", SEGMENTS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_records_fast_path_reads_batches_as_the_bounded_reader(segment: Path) -> None:
    buf = segment.read_bytes()
    rnd = random.Random(segment.name)
    for b in scan(buf).batches:
        assert b.problem is None
        assert list(b.records) == _slow_records(buf, b)[0]
        start, end = b.position + batches.HEADER_SIZE, b.position + b.size
        section = buf[start:end]
        for _ in range(20):  # damage inside its records section, the batch's size kept
            bad = (_damage(rnd, section, 0) + bytes(len(section)))[: len(section)]
            damaged = buf[:start] + bad + buf[end:]
            got = read_batch(damaged, b.position)
            want, problem = _slow_records(damaged, b)
            if problem is None:
                assert got.problem is None
                assert list(got.records) == want
            else:
                assert got.problem is not None and problem in got.problem
                assert list(got.records) == want


def test_builders_make_the_dataclasses_own_objects() -> None:
    args = ("metadata", "NO_OP_RECORD", 20, 0, None, "a problem")
    made = builder(Payload)(*args)
    assert made == Payload(*args) and hash(made) == hash(Payload(*args))
    assert repr(made) == repr(Payload(*args))
    with pytest.raises(AttributeError):
        made.type = "other"  # type: ignore[misc]
    record = builder(LogRecord)(1, 2, 3, None, b"v", ())
    assert record == LogRecord(1, 2, 3, None, b"v", ())


def test_a_scan_leaves_the_cyclic_collector_as_it_found_it() -> None:
    buf = SEGMENTS[0].read_bytes()
    assert gc.isenabled()
    assert scan(buf).batches
    assert gc.isenabled()
    gc.disable()
    try:
        assert scan(buf).batches
        assert not gc.isenabled()
    finally:
        gc.enable()
