"""The values of a metadata log's records: metadata records and KRaft control records.

A metadata record's value is ``AbstractApiMessageSerde``'s frame: an unsigned varint frame
version (1), the api key and the version as unsigned varints, then the message. A control
record's key is a version and a ``ControlRecordType`` (two int16s) and its value the control
message at version 0, as ``ControlRecordUtils`` reads it. Either way the decoded ``data`` is the
JSON object ``kafka-dump-log --cluster-metadata-decoder`` prints; a type, version or frame this
module cannot read is kept with the reason instead.

A metadata record is read first by its version's ``compiled`` decoder; when that one fails, the
schema's bounded decoder reads it again and says what is wrong.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from kafkactl_core.metadata_log.batches import LogRecord
from kafkactl_core.metadata_log.compiled import FastRead, builder, fast_decoder
from kafkactl_core.metadata_log.record_types import CONTROL_BY_TYPE, METADATA_BY_KEY
from kafkactl_core.metadata_log.wire import DecodeError, Reader

METADATA = "metadata"
CONTROL = "control"
FRAME_VERSION = 1
_CONTROL_KEY = struct.Struct(">hh")


@dataclass(frozen=True, slots=True)
class Payload:
    """A record's value, decoded.

    Attributes:
        kind: ``metadata`` or ``control``.
        type: the dump tool's name (``PARTITION_CHANGE_RECORD``, ``LeaderChange``), or
            ``api_key=N`` / ``control_type=N`` for a type this decoder does not know.
        api_key: the metadata api key, or the control record type.
        version: the record's version (a control record's own ``Version`` field).
        data: the decoded JSON object, None when ``problem``.
        problem: why it stays undecoded, or None.
    """

    kind: str
    type: str
    api_key: int | None
    version: int | None
    data: dict[str, Any] | None
    problem: str | None = None


_payload = builder(Payload)

_FAST: dict[bytes, tuple[str, int, int, FastRead]] = {}
"""By a value's first three bytes (frame 1, api key and version in one byte each): the type's
name, api key, version and compiled decoder."""


def _fast_entry(head: bytes) -> tuple[str, int, int, FastRead] | None:
    if len(head) < 3 or head[0] != FRAME_VERSION or head[1] > 0x7F or head[2] > 0x7F:
        return None
    api_key, version = head[1], head[2]
    schema = METADATA_BY_KEY.get(api_key)
    if schema is None or version not in schema.valid:
        return None
    entry = _FAST[head] = (schema.type_name, api_key, version, fast_decoder(schema, version))
    return entry


def decode(record: LogRecord, *, control: bool) -> Payload:
    """Decode a record of a metadata log.

    Args:
        record: the record, from its batch.
        control: whether its batch is a control batch.

    Returns:
        The payload; undecodable ones keep their reason (and their bytes stay in the record).
    """
    if control:
        return _control(record)
    value = record.value
    if value is not None:
        try:  # the compiled decoder first; anything amiss is _metadata's to say
            head = value[:3]
            entry = _FAST.get(head) or _fast_entry(head)
            if entry is not None:
                name, api_key, version, read = entry
                data, end = read(value, 3)
                if end == len(value):
                    return _payload(METADATA, name, api_key, version, data, None)
        except Exception:
            pass
    return _metadata(record)


def _metadata(record: LogRecord) -> Payload:
    value = record.value
    if value is None:
        return Payload(METADATA, "null", None, None, None, "a metadata record with a null value")
    r = Reader(value)
    api_key = version = None
    try:
        frame = r.uvarint()
        if frame != FRAME_VERSION:
            return Payload(
                METADATA, "frame", None, None, None, f"frame version {frame}, only 1 is read"
            )
        api_key = r.uvarint()
        version = r.uvarint()
        schema = METADATA_BY_KEY.get(api_key)
        if schema is None:
            return Payload(
                METADATA,
                f"api_key={api_key}",
                api_key,
                version,
                None,
                f"unknown metadata record type {api_key}",
            )
        if version not in schema.valid:
            return Payload(
                METADATA,
                schema.type_name,
                api_key,
                version,
                None,
                f"{schema.name} version {version} is unknown here",
            )
        data = schema.decoder(version)(r)
        if r.remaining:
            raise r.fail(f"{r.remaining} bytes of garbage after the record")
    except DecodeError as exc:
        name = (
            METADATA_BY_KEY[api_key].type_name
            if api_key in METADATA_BY_KEY
            else f"api_key={api_key}"
        )
        return Payload(
            METADATA, name, api_key, version, None, f"value byte {exc.offset}: {exc.reason}"
        )
    return Payload(METADATA, schema.type_name, api_key, version, data)


def _control(record: LogRecord) -> Payload:
    key = record.key
    if key is None or len(key) < _CONTROL_KEY.size:
        return Payload(CONTROL, "key", None, None, None, "a control record without its 4-byte key")
    _, type_id = _CONTROL_KEY.unpack_from(key)
    known = CONTROL_BY_TYPE.get(type_id)
    if known is None:
        return Payload(
            CONTROL,
            f"control_type={type_id}",
            type_id,
            None,
            None,
            f"control type {type_id} is not KRaft's",
        )
    label, schema = known
    if record.value is None:
        return Payload(CONTROL, label, type_id, None, None, "a control record with a null value")
    r = Reader(record.value)
    try:
        data = schema.decoder(0)(r)
        if r.remaining:
            raise r.fail(f"{r.remaining} bytes of garbage after the record")
    except DecodeError as exc:
        return Payload(
            CONTROL, label, type_id, None, None, f"value byte {exc.offset}: {exc.reason}"
        )
    return Payload(CONTROL, label, type_id, data.get("version"), data)
