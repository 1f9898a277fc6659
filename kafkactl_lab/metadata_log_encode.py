"""An encoder of KRaft metadata log bytes, the mirror image of ``kafkactl_core.metadata_log``.

Driven by the decoder's own schema tables (``MessageSchema``): ``encode_message`` turns the JSON
form the decoder returns (camelCase names, UUIDs in URL-safe base64, bytes in standard base64)
back into a flexible message; ``metadata_value`` frames a metadata record,
``control_key``/``control_value`` write a KRaft control record; ``encode_batch`` writes a record
batch of magic 2 with its CRC-32C, any codec, the control and transactional flags. Tests use it
for round trips and damage cases.
"""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import cramjam
import google_crc32c

from kafkactl_core.metadata_log.batches import HEADER_SIZE, LOG_OVERHEAD, Compression
from kafkactl_core.metadata_log.payloads import FRAME_VERSION
from kafkactl_core.metadata_log.record_types import CONTROL_BY_TYPE
from kafkactl_core.metadata_log.schema import UNKNOWN_TAGS, Field, Json, MessageSchema
from kafkactl_core.zk.files import SNAPPY_JAVA_MAGIC

_HEADER = struct.Struct(">qiibIhiqqqhii")
_CRC_START = 21
_SNAPPY_BLOCK = 32 * 1024
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # java.util.zip.GZIPOutputStream's
_LZ4_HEADER = b"\x04\x22\x4d\x18\x60\x40\x82"  # magic, FLG (independent blocks), BD (64 KiB), HC
_LZ4_BLOCK = 64 * 1024
_LZ4_RAW = 0x80000000
_FIXED = {
    "int8": struct.Struct(">b"),
    "int16": struct.Struct(">h"),
    "uint16": struct.Struct(">H"),
    "int32": struct.Struct(">i"),
    "int64": struct.Struct(">q"),
    "float64": struct.Struct(">d"),
    "bool": struct.Struct(">?"),
}
_SCALARS = frozenset((*_FIXED, "uuid", "string", "bytes"))


def uvarint(value: int) -> bytes:
    """An unsigned LEB128 varint.

    Args:
        value: a non-negative integer.

    Returns:
        Its bytes, seven bits at a time, low bits first.
    """
    if value < 0:
        raise ValueError(f"uvarint of negative {value}")
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def varint(value: int) -> bytes:
    """A zig-zag signed varint (the record layer's varint and varlong alike).

    Args:
        value: any integer.

    Returns:
        Its zig-zag encoding as an unsigned varint.
    """
    return uvarint(value << 1 if value >= 0 else ((-value) << 1) - 1)


def _compact(data: bytes | None) -> bytes:
    return b"\x00" if data is None else uvarint(len(data) + 1) + data


def _scalar(kind: str, value: Json, out: bytearray) -> None:
    fixed = _FIXED.get(kind)
    if fixed is not None:
        out += fixed.pack(value)
    elif kind == "uuid":
        raw = base64.urlsafe_b64decode(value + "==")
        if len(raw) != 16:
            raise ValueError(f"uuid {value!r} is {len(raw)} bytes, not 16")
        out += raw
    elif kind == "string":
        out += _compact(None if value is None else value.encode("utf-8"))
    else:  # bytes
        out += _compact(None if value is None else base64.b64decode(value, validate=True))


def _field(fld: Field, version: int, value: Json, out: bytearray) -> None:
    kind = fld.type
    if value is None and not fld.is_nullable(version):
        raise ValueError(f"{fld.name} is not nullable in version {version}")
    if kind.startswith("[]"):
        if value is None:
            out.append(0)
            return
        out += uvarint(len(value) + 1)
        element = kind[2:]
        for item in value:
            if element in _SCALARS:
                _scalar(element, item, out)
            else:
                _struct(fld.fields, version, item, out)
    elif kind in _SCALARS:
        _scalar(kind, value, out)
    elif fld.is_nullable(version):
        if value is None:
            out.append(0xFF)
            return
        out.append(1)
        _struct(fld.fields, version, value, out)
    else:
        _struct(fld.fields, version, value, out)


def _struct(
    fields: tuple[Field, ...], version: int, data: Mapping[str, Json], out: bytearray
) -> None:
    present = [fld for fld in fields if version in fld.versions]
    extra = set(data) - {fld.json_name for fld in present} - {UNKNOWN_TAGS}
    if extra:
        raise ValueError(f"fields {sorted(extra)} are not in version {version}")
    tagged: dict[int, bytes] = {tag: b"" for tag in data.get(UNKNOWN_TAGS, ())}
    for fld in present:
        name = fld.json_name
        if fld.is_tagged(version) and fld.tag is not None:
            default = fld.default_value()
            value = data.get(name, default)
            if value != default:
                if fld.tag in tagged:
                    raise ValueError(f"tag {fld.tag} of {fld.name} is also in {UNKNOWN_TAGS}")
                body = bytearray()
                _field(fld, version, value, body)
                tagged[fld.tag] = bytes(body)
        elif name not in data:
            raise ValueError(f"{fld.name} is missing (version {version})")
        else:
            _field(fld, version, data[name], out)
    out += uvarint(len(tagged))
    for tag in sorted(tagged):
        out += uvarint(tag) + uvarint(len(tagged[tag])) + tagged[tag]


def encode_message(schema: MessageSchema, version: int, data: Mapping[str, Json]) -> bytes:
    """A message in ``version`` of ``schema``, from the JSON form the decoder returns.

    Non-tagged fields must all be given; tagged fields are written (in tag order) only when
    they differ from their default, missing ones count as the default; the tags listed under
    ``_unknownTags`` are written with empty bodies.

    Args:
        schema: the message definition.
        version: the version to write, within ``schema.valid``.
        data: the JSON object.

    Returns:
        The message bytes, flexible encoding.

    Raises:
        ValueError: a version outside the schema's, a field missing, unknown to the version,
            null where it may not be, or a UUID or base64 that is not one.
        struct.error: an integer outside its type's range.
    """
    if version not in schema.valid:
        raise ValueError(f"{schema.name} has no version {version}")
    out = bytearray()
    _struct(schema.fields, version, data, out)
    return bytes(out)


def frame(api_key: int, version: int, message: bytes) -> bytes:
    """A metadata record's value around message bytes: frame version 1, api key, version.

    Args:
        api_key: the metadata record type.
        version: the record's version.
        message: the encoded message (any bytes, for damage cases).

    Returns:
        The record value.
    """
    return uvarint(FRAME_VERSION) + uvarint(api_key) + uvarint(version) + message


def metadata_value(schema: MessageSchema, version: int, data: Mapping[str, Json]) -> bytes:
    """A metadata record's value: ``data`` encoded in ``version`` of ``schema``, framed.

    Args:
        schema: a metadata record schema (``METADATA_BY_KEY``).
        version: the record's version.
        data: the JSON object.

    Returns:
        The record value.
    """
    return frame(schema.api_key, version, encode_message(schema, version, data))


def control_key(type_id: int, version: int = 0) -> bytes:
    """A control record's key: its version and ``ControlRecordType``, two int16s.

    Args:
        type_id: the control record type (``CONTROL_BY_TYPE``).
        version: the key's version.

    Returns:
        The 4-byte key.
    """
    return struct.pack(">hh", version, type_id)


def control_value(type_id: int, data: Mapping[str, Json]) -> bytes:
    """A KRaft control record's value: its message at layout version 0, as Kafka reads it.

    Args:
        type_id: the control record type, a key of ``CONTROL_BY_TYPE``.
        data: the JSON object.

    Returns:
        The record value.
    """
    return encode_message(CONTROL_BY_TYPE[type_id][1], 0, data)


@dataclass(frozen=True, slots=True)
class Record:
    """One record to write into a batch.

    Attributes:
        value: its value, None for null.
        key: its key, None for null.
        headers: its headers (key, value).
        timestamp_delta: its timestamp minus the batch's base timestamp.
        offset_delta: its offset minus the batch's base offset; its index when None.
        attributes: its attribute byte (unused by Kafka, 0).
    """

    value: bytes | None
    key: bytes | None = None
    headers: tuple[tuple[str, bytes | None], ...] = ()
    timestamp_delta: int = 0
    offset_delta: int | None = None
    attributes: int = 0


def metadata_record(
    schema: MessageSchema, version: int, data: Mapping[str, Json], *, timestamp_delta: int = 0
) -> Record:
    """A metadata record (null key) holding ``data``.

    Args:
        schema: a metadata record schema.
        version: the record's version.
        data: the JSON object.
        timestamp_delta: its timestamp minus the batch's base timestamp.

    Returns:
        The record.
    """
    return Record(metadata_value(schema, version, data), timestamp_delta=timestamp_delta)


def control_record(type_id: int, data: Mapping[str, Json], *, timestamp_delta: int = 0) -> Record:
    """A KRaft control record of ``type_id`` holding ``data``.

    Args:
        type_id: the control record type.
        data: the JSON object.
        timestamp_delta: its timestamp minus the batch's base timestamp.

    Returns:
        The record.
    """
    return Record(
        control_value(type_id, data), control_key(type_id), timestamp_delta=timestamp_delta
    )


def _bytes_field(data: bytes | None) -> bytes:
    return varint(-1) if data is None else varint(len(data)) + data


def encode_records(records: Iterable[Record]) -> bytes:
    """A batch's records section, uncompressed (``DefaultRecord`` layout).

    Args:
        records: the records in order.

    Returns:
        Each record's varint length, attributes, timestamp and offset deltas, key, value and
        headers.
    """
    out = bytearray()
    for i, rec in enumerate(records):
        body = bytearray(struct.pack(">b", rec.attributes))
        body += varint(rec.timestamp_delta)
        body += varint(i if rec.offset_delta is None else rec.offset_delta)
        body += _bytes_field(rec.key) + _bytes_field(rec.value)
        body += varint(len(rec.headers))
        for name, value in rec.headers:
            body += _bytes_field(name.encode("utf-8")) + _bytes_field(value)
        out += varint(len(body)) + body
    return bytes(out)


def _gzip(data: bytes) -> bytes:
    deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflate.compress(data) + deflate.flush()
    return _GZIP_HEADER + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def _lz4(data: bytes) -> bytes:
    out = bytearray(_LZ4_HEADER)
    for at in range(0, len(data), _LZ4_BLOCK):
        chunk = data[at : at + _LZ4_BLOCK]
        block = bytes(cramjam.lz4.compress_block(chunk, store_size=False))
        if len(block) < len(chunk):
            out += struct.pack("<I", len(block)) + block
        else:
            out += struct.pack("<I", len(chunk) | _LZ4_RAW) + chunk
    return bytes(out + bytes(4))


def _snappy(data: bytes) -> bytes:
    out = bytearray(SNAPPY_JAVA_MAGIC + struct.pack(">ii", 1, 1))
    for at in range(0, len(data), _SNAPPY_BLOCK):
        block = bytes(cramjam.snappy.compress_raw(data[at : at + _SNAPPY_BLOCK]))
        out += struct.pack(">i", len(block)) + block
    return bytes(out)


def compress(codec: Compression, data: bytes) -> bytes:
    """Compress a records section as Kafka's producers and controllers do.

    Args:
        codec: the codec. gzip is ``GZIPOutputStream``'s (level 6, its header) and lz4 Kafka's
            ``Lz4BlockOutputStream`` frame (independent 64 KiB blocks, no checksums; Kafka
            refuses linked blocks): both byte for byte what Kafka 4.1 writes. snappy is
            snappy-java's framing (header, then int32-length-prefixed raw blocks of 32 KiB of
            input), zstd a standard frame; their blocks may differ from Kafka's compressors'.
        data: the records section.

    Returns:
        The compressed bytes (``data`` itself for ``none``).
    """
    if codec == Compression.none:
        return data
    if codec == Compression.gzip:
        return _gzip(data)
    if codec == Compression.snappy:
        return _snappy(data)
    if codec == Compression.lz4:
        return _lz4(data)
    return bytes(cramjam.zstd.compress(data))


def encode_batch(
    records: Sequence[Record],
    *,
    base_offset: int = 0,
    compression: Compression = Compression.none,
    control: bool = False,
    transactional: bool = False,
    log_append_time: bool = False,
    partition_leader_epoch: int = 0,
    base_timestamp: int = 0,
    max_timestamp: int | None = None,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
) -> bytes:
    """A record batch of magic 2 (``DefaultRecordBatch``) with its CRC-32C.

    Args:
        records: its records.
        base_offset: its first offset.
        compression: the codec of its records section.
        control: whether it holds control records (attribute bit 5).
        transactional: attribute bit 4.
        log_append_time: attribute bit 3.
        partition_leader_epoch: the raft epoch.
        base_timestamp: the first timestamp.
        max_timestamp: the largest; the base plus the largest record delta when None.
        producer_id: the producer id, -1 for none.
        producer_epoch: the producer's epoch.
        base_sequence: the producer's first sequence number.

    Returns:
        The batch's bytes, from its base offset to its last record.
    """
    deltas = [i if r.offset_delta is None else r.offset_delta for i, r in enumerate(records)]
    if max_timestamp is None:
        max_timestamp = base_timestamp + max((r.timestamp_delta for r in records), default=0)
    attributes = (
        int(compression)
        | (0x08 if log_append_time else 0)
        | (0x10 if transactional else 0)
        | (0x20 if control else 0)
    )
    body = compress(compression, encode_records(records))
    header = bytearray(
        _HEADER.pack(
            base_offset,
            HEADER_SIZE - LOG_OVERHEAD + len(body),
            partition_leader_epoch,
            2,
            0,
            attributes,
            max(deltas, default=0),
            base_timestamp,
            max_timestamp,
            producer_id,
            producer_epoch,
            base_sequence,
            len(records),
        )
    )
    crc = int(google_crc32c.value(bytes(header[_CRC_START:]) + body))
    struct.pack_into(">I", header, _CRC_START - 4, crc)
    return bytes(header) + body
