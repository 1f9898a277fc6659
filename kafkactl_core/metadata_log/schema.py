"""Kafka's message schemas as data, and the decoder each one compiles to for a version.

A ``MessageSchema`` holds what one of Kafka's ``*.json`` message definitions says: its api key,
its valid versions and its fields (type, versions, nullable versions, tag, default, nested
fields). Every metadata and KRaft control record is flexible in all its versions, so fields use
the compact encodings and every struct ends with a tagged-field section.

``decoder(version)`` compiles the fields present in that version into closures over ``Reader``
once; the decoded value is the JSON object Kafka's generated ``JsonConverter`` writes and
``kafka-dump-log --cluster-metadata-decoder`` prints: camelCase names, UUIDs in URL-safe base64,
bytes in standard base64, non-tagged fields always, a tagged field only when it differs from its
default. Tags the schema does not know are skipped and listed under ``_unknownTags``.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from kafkactl_core.metadata_log.wire import Reader

Json = Any
"""A decoded JSON value: int, float, bool, str, None, list or dict."""

Read = Callable[[Reader], Json]

UNKNOWN_TAGS = "_unknownTags"
"""The key that lists the tags a decoded struct carried but its schema does not define."""


@dataclass(frozen=True, slots=True)
class Versions:
    """A version range as Kafka writes it: ``0+``, ``1-2``, ``3`` or ``none``."""

    low: int
    high: int | None

    @classmethod
    def parse(cls, text: str) -> Versions:
        """Parse ``0+``, ``1-2``, ``3`` or ``none``."""
        if text == "none":
            return cls(0, -1)
        if text.endswith("+"):
            return cls(int(text[:-1]), None)
        low, _, high = text.partition("-")
        return cls(int(low), int(high or low))

    def __contains__(self, version: int) -> bool:
        return self.low <= version and (self.high is None or version <= self.high)


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a message schema.

    Attributes:
        name: the schema's PascalCase name.
        type: ``int8`` .. ``int64``, ``uint16``, ``float64``, ``bool``, ``uuid``, ``string``,
            ``bytes``, ``[]<type>`` for an array, or a struct name (with ``fields``).
        versions: the versions that have it.
        nullable: the versions in which it may be null.
        tag: its tag when tagged.
        tagged: the versions in which it is tagged (its ``versions`` when not given).
        default: the schema's default as written there (``"null"``, ``"-1"``, ``"true"``).
        fields: a struct's (or struct array's) fields.
    """

    name: str
    type: str
    versions: Versions
    nullable: Versions | None = None
    tag: int | None = None
    tagged: Versions | None = None
    default: str | None = None
    fields: tuple[Field, ...] = ()

    @property
    def json_name(self) -> str:
        """The name ``JsonConverter`` writes: the first letter in lower case."""
        return self.name[:1].lower() + self.name[1:]

    def is_tagged(self, version: int) -> bool:
        """Whether the field travels in the tagged section in ``version``."""
        return self.tag is not None and version in (self.tagged or self.versions)

    def is_nullable(self, version: int) -> bool:
        """Whether the field may be null in ``version``."""
        return self.nullable is not None and version in self.nullable

    def default_value(self) -> Json:
        """The field's default as its decoded JSON value."""
        text = self.default
        if text == "null":
            return None
        kind = self.type
        if kind.startswith("[]"):
            return []
        if kind == "bool":
            return text == "true"
        if kind in ("int8", "int16", "int32", "int64", "uint16"):
            return int(text or "0", 0)
        if kind == "float64":
            return float(text or "0")
        if kind == "uuid":
            return "AAAAAAAAAAAAAAAAAAAAAA"
        if kind in ("string", "bytes"):
            return text or ""
        return None


def f(
    name: str,
    type_: str,
    versions: str,
    *,
    nullable: str | None = None,
    tag: int | None = None,
    tagged: str | None = None,
    default: str | None = None,
    fields: tuple[Field, ...] = (),
) -> Field:
    """A ``Field`` written as compactly as the schema tables want it."""
    return Field(
        name,
        type_,
        Versions.parse(versions),
        None if nullable is None else Versions.parse(nullable),
        tag,
        None if tagged is None else Versions.parse(tagged),
        default,
        fields,
    )


_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True, slots=True)
class MessageSchema:
    """One message definition: a metadata record (by api key) or a KRaft control record.

    Attributes:
        name: the schema's name (``PartitionChangeRecord``).
        api_key: the metadata record type, -1 for a control record.
        valid: the versions Kafka defines.
        fields: the top-level fields.
    """

    name: str
    api_key: int
    valid: Versions
    fields: tuple[Field, ...]
    _decoders: dict[int, Read] = field(default_factory=dict, compare=False, repr=False)

    @property
    def type_name(self) -> str:
        """The dump tool's name: ``PartitionChangeRecord`` as ``PARTITION_CHANGE_RECORD``."""
        return _CAMEL_BOUNDARY.sub("_", self.name).upper()

    def decoder(self, version: int) -> Read:
        """The compiled decoder of ``version`` (compiled once, then kept)."""
        read = self._decoders.get(version)
        if read is None:
            read = _struct_reader(self.fields, version)
            self._decoders[version] = read
        return read


def message(api_key: int, valid: str, fields: tuple[Field, ...]) -> Callable[[str], MessageSchema]:
    """A schema table entry; the table's key supplies the name."""
    return lambda name: MessageSchema(name, api_key, Versions.parse(valid), fields)


def _uuid_array(r: Reader) -> list[str] | None:
    n = r.compact_length("array")
    return None if n < 0 else [r.uuid() for _ in range(n)]


def _bytes_json(r: Reader) -> str | None:
    value = r.compact_bytes()
    return None if value is None else base64.b64encode(value).decode("ascii")


_SCALARS: dict[str, Read] = {
    "int8": Reader.int8,
    "int16": Reader.int16,
    "uint16": Reader.uint16,
    "int32": Reader.int32,
    "int64": Reader.int64,
    "float64": Reader.float64,
    "bool": Reader.boolean,
    "uuid": Reader.uuid,
    "string": Reader.compact_string,
    "bytes": _bytes_json,
}


def _array_reader(element: Read) -> Read:
    def read(r: Reader) -> list[Json] | None:
        n = r.compact_length("array")
        return None if n < 0 else [element(r) for _ in range(n)]

    return read


def _nullable_struct(inner: Read) -> Read:
    def read(r: Reader) -> Json:
        return None if r.int8() < 0 else inner(r)

    return read


@cache
def _scalar_array(kind: str) -> Read:
    return _uuid_array if kind == "uuid" else _array_reader(_SCALARS[kind])


def _field_reader(fld: Field, version: int) -> Read:
    kind = fld.type
    if kind.startswith("[]"):
        element = kind[2:]
        if element in _SCALARS:
            return _scalar_array(element)
        return _array_reader(_struct_reader(fld.fields, version))
    if kind in _SCALARS:
        return _SCALARS[kind]
    inner = _struct_reader(fld.fields, version)
    return _nullable_struct(inner) if fld.is_nullable(version) else inner


def _struct_reader(fields: tuple[Field, ...], version: int) -> Read:
    present = [fld for fld in fields if version in fld.versions]
    plain = tuple(
        (fld.json_name, _field_reader(fld, version))
        for fld in present
        if not fld.is_tagged(version)
    )
    tagged = {
        fld.tag: (fld.json_name, _field_reader(fld, version), fld.default_value())
        for fld in present
        if fld.is_tagged(version) and fld.tag is not None
    }

    def read(r: Reader) -> dict[str, Json]:
        out = {name: read_field(r) for name, read_field in plain}
        count = r.uvarint()
        unknown: list[int] = []
        for _ in range(count):
            tag = r.uvarint()
            size = r.uvarint()
            if size > r.remaining:
                raise r.fail(f"tagged field {tag} of {size} bytes, only {r.remaining} left")
            known = tagged.get(tag)
            if known is None:
                r.skip(size, "tagged field")
                unknown.append(tag)
                continue
            name, read_field, default = known
            end = r.pos + size
            value = read_field(Reader(r.buf, r.pos, end, r.base))
            r.pos = end
            if value != default:
                out[name] = value
        if unknown:
            out[UNKNOWN_TAGS] = unknown
        return out

    return read
