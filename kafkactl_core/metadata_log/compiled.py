"""Fast paths for well-formed input: schema decoders compiled to Python source, quick builders.

``schema``'s decoders are closures over a bounded ``Reader``: every primitive is a method call
that checks its window and names the damage. That is what damaged input needs, and most of the
time spent on a sound log. ``fast_decoder`` compiles the same fields of a version into one plain
function per struct, reads inlined, over a ``bytes`` object and an integer position: ``(data,
position)``. It raises (any exception) on anything ``schema``'s decoder would reject and on
nothing it would accept, and gives the same JSON object otherwise; callers run ``schema``'s
decoder after a failure, so errors and their messages are the bounded reader's own.

``builder`` makes a frozen slots dataclass through its slot descriptors, a third of the cost of
its generated ``__init__`` (which goes through ``object.__setattr__`` once a field).
"""

from __future__ import annotations

import base64
import re
import struct
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

from kafkactl_core.metadata_log.schema import UNKNOWN_TAGS, Field, Json, MessageSchema

FastRead = Callable[[bytes, int], tuple[Json, int]]
"""A compiled decoder: the value at a position of a ``bytes`` object, and the position after."""

T = TypeVar("T")


class Malformed(ValueError):
    """What a compiled decoder raises where the bounded reader would raise ``DecodeError``."""


def uvarint(buf: bytes, pos: int, max_bytes: int) -> tuple[int, int]:
    """``Reader.uvarint`` over ``buf`` from ``pos``: the value and the position after it."""
    value = shift = 0
    for i in range(max_bytes):
        b = buf[pos + i]
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos + i + 1
        shift += 7
    raise Malformed("varint too long")


_UUIDS: dict[bytes, str] = {}
_UUID_CACHE_SIZE = 1 << 16


def uuid(raw: bytes) -> str:
    """``Reader.uuid`` of 16 bytes, remembered: a log names the same topics and directories."""
    text = _UUIDS.get(raw)
    if text is None:
        if len(_UUIDS) >= _UUID_CACHE_SIZE:
            _UUIDS.clear()
        text = _UUIDS[raw] = base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
    return text


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


@lru_cache(maxsize=256)
def _int32s(n: int) -> Callable[[bytes, int], tuple[int, ...]]:
    return struct.Struct(f">{n}i").unpack_from


_FIXED = {
    "int16": ("_i16", 2),
    "uint16": ("_u16", 2),
    "int32": ("_i32", 4),
    "int64": ("_i64", 8),
    "float64": ("_f64", 8),
}

_SCALARS = frozenset({*_FIXED, "int8", "bool", "uuid", "string", "bytes"})
"""The types ``schema._SCALARS`` reads, ``uuid`` included."""

_GLOBALS: dict[str, Any] = {
    "_i16": struct.Struct(">h").unpack_from,
    "_u16": struct.Struct(">H").unpack_from,
    "_i32": struct.Struct(">i").unpack_from,
    "_i64": struct.Struct(">q").unpack_from,
    "_f64": struct.Struct(">d").unpack_from,
    "_int32s": _int32s,
    "_int32n": tuple(struct.Struct(f">{n}i").unpack_from for n in range(16)),
    "_uvarint": uvarint,
    "_uuids": _UUIDS,
    "_uuid": uuid,
    "_b64": _b64,
    "_Malformed": Malformed,
}


class _Compiler:
    """Writes the source of one message version's struct functions."""

    def __init__(self, version: int) -> None:
        self.version = version
        self.functions: list[str] = []
        self.names: dict[str, Any] = {}
        self.structs: dict[tuple[Field, ...], str] = {}
        self.counter = 0

    def tmp(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def const(self, value: Any) -> str:
        name = self.tmp("_k")
        self.names[name] = value
        return name

    def uvarint(self, out: list[str], ind: str, var: str, b: str, p: str) -> None:
        out += [
            f"{ind}{var} = {b}[{p}]",
            f"{ind}if {var} < 128:",
            f"{ind}    {p} += 1",
            f"{ind}else:",
            f"{ind}    {var}, {p} = _uvarint({b}, {p}, 5)",
        ]

    def field(self, fld: Field, out: list[str], ind: str, var: str, b: str, p: str) -> None:
        """Lines reading ``fld`` (as ``schema._field_reader`` does) into ``var``."""
        kind = fld.type
        if kind.startswith("[]"):
            element = kind[2:]
            if element in _SCALARS:
                self.array(
                    out,
                    ind,
                    var,
                    b,
                    p,
                    element,
                    lambda o, i, v: self.scalar(element, o, i, v, b, p),
                )
                return
            inner = self.struct(fld.fields)
            self.array(
                out,
                ind,
                var,
                b,
                p,
                None,
                lambda o, i, v: o.append(f"{i}{v}, {p} = {inner}({b}, {p})"),
            )
            return
        if kind in _SCALARS:
            self.scalar(kind, out, ind, var, b, p)
            return
        inner = self.struct(fld.fields)
        if fld.is_nullable(self.version):
            out += [
                f"{ind}{var} = {b}[{p}]",
                f"{ind}{p} += 1",
                f"{ind}if {var} > 127:",
                f"{ind}    {var} = None",
                f"{ind}else:",
                f"{ind}    {var}, {p} = {inner}({b}, {p})",
            ]
        else:
            out.append(f"{ind}{var}, {p} = {inner}({b}, {p})")

    def array(
        self,
        out: list[str],
        ind: str,
        var: str,
        b: str,
        p: str,
        kind: str | None,
        element: Callable[[list[str], str, str], None],
    ) -> None:
        """Lines reading a compact nullable array (``schema._array_reader``) into ``var``."""
        n = self.tmp("n")
        self.uvarint(out, ind, n, b, p)
        out += [
            f"{ind}{n} -= 1",
            f"{ind}if {n} > len({b}) - {p}:",
            f"{ind}    raise _Malformed",
            f"{ind}if {n} < 0:",
            f"{ind}    {var} = None",
            f"{ind}else:",
        ]
        if kind == "int32":  # all at once: a struct of n big-endian ints
            unpack = f"(_int32n[{n}] if {n} < 16 else _int32s({n}))"
            out += [f"{ind}    {var} = list({unpack}({b}, {p}))", f"{ind}    {p} += 4 * {n}"]
            return
        item = self.tmp("x")
        body: list[str] = []
        element(body, ind + "        ", item)
        out += [f"{ind}    {var} = []", f"{ind}    for _ in range({n}):", *body]
        out.append(f"{ind}        {var}.append({item})")

    def scalar(self, kind: str, out: list[str], ind: str, var: str, b: str, p: str) -> None:
        if kind in _FIXED:
            unpack, size = _FIXED[kind]
            out += [f"{ind}{var} = {unpack}({b}, {p})[0]", f"{ind}{p} += {size}"]
        elif kind == "int8":
            out += [
                f"{ind}{var} = {b}[{p}]",
                f"{ind}{p} += 1",
                f"{ind}if {var} > 127:",
                f"{ind}    {var} -= 256",
            ]
        elif kind == "bool":
            out += [f"{ind}{var} = {b}[{p}] != 0", f"{ind}{p} += 1"]
        elif kind == "uuid":
            e = self.tmp("e")
            out += [
                f"{ind}{e} = {p} + 16",
                f"{ind}if {e} > len({b}):",
                f"{ind}    raise _Malformed",
                f"{ind}{var} = {b}[{p}:{e}]",
                f"{ind}{var} = _uuids.get({var}) or _uuid({var})",
                f"{ind}{p} = {e}",
            ]
        else:  # string, bytes: compact and nullable
            n, e = self.tmp("n"), self.tmp("e")
            text = f"{b}[{p}:{e}].decode('utf-8')" if kind == "string" else f"_b64({b}[{p}:{e}])"
            self.uvarint(out, ind, n, b, p)
            out += [
                f"{ind}if {n} == 0:",
                f"{ind}    {var} = None",
                f"{ind}else:",
                f"{ind}    {e} = {p} + {n} - 1",
                f"{ind}    if {e} > len({b}):",
                f"{ind}        raise _Malformed",
                f"{ind}    {var} = {text}",
                f"{ind}    {p} = {e}",
            ]

    def tagged(self, fld: Field, out: list[str], ind: str, var: str) -> None:
        """Lines reading a tagged field in its ``size`` bytes from ``p`` (up to ``end``).

        A fixed-width value and an array of them (its count in one byte) are read in place,
        checked against ``end``; anything else from a copy of its bytes, where the copy's end
        bounds every read as the window bounds the ``Reader``.
        """
        kind = fld.type
        if kind in _FIXED:
            unpack, width = _FIXED[kind]
            out += [
                f"{ind}if size < {width}:",
                f"{ind}    raise _Malformed",
                f"{ind}{var} = {unpack}(b, p)[0]",
            ]
        elif kind == "[]int32":
            n = self.tmp("n")
            out += [
                f"{ind}if size == 0:",
                f"{ind}    raise _Malformed",
                f"{ind}{n} = b[p] - 1",
                f"{ind}if {n} < 0:",
                f"{ind}    {var} = None",
                f"{ind}elif {n} > 126 or 4 * {n} > size - 1:",  # a longer count: the copy
                f"{ind}    raise _Malformed",
                f"{ind}else:",
                f"{ind}    {var} = list((_int32n[{n}] if {n} < 16 else _int32s({n}))(b, p + 1))",
            ]
        else:
            out += [f"{ind}w = b[p:end]", f"{ind}q = 0"]
            self.field(fld, out, ind, var, "w", "q")

    def struct(self, fields: tuple[Field, ...]) -> str:
        """The name of the function reading a struct of ``fields`` (``schema._struct_reader``)."""
        known = self.structs.get(fields)
        if known is not None:
            return known
        name = self.tmp("_struct")
        self.structs[fields] = name
        version = self.version
        present = [fld for fld in fields if version in fld.versions]
        plain = [fld for fld in present if not fld.is_tagged(version)]
        tagged = {fld.tag: fld for fld in present if fld.is_tagged(version) and fld.tag is not None}
        body: list[str] = []
        values = []
        for fld in plain:
            var = self.tmp("v")
            self.field(fld, body, "    ", var, "b", "p")
            values.append(f"{fld.json_name!r}: {var}")
        body.append(f"    out = {{{', '.join(values)}}}")
        self.uvarint(body, "    ", "count", "b", "p")
        body += ["    if count:", "        unknown = []", "        for _ in range(count):"]
        ind = "            "
        self.uvarint(body, ind, "tag", "b", "p")
        self.uvarint(body, ind, "size", "b", "p")
        body += [
            f"{ind}if size > len(b) - p:",
            f"{ind}    raise _Malformed",
            f"{ind}end = p + size",
        ]
        branch = "if"
        for tag, fld in tagged.items():
            var = self.tmp("t")
            default = self.const(fld.default_value())
            body.append(f"{ind}{branch} tag == {tag}:")
            self.tagged(fld, body, ind + "    ", var)
            body += [
                f"{ind}    if {var} != {default}:",
                f"{ind}        out[{fld.json_name!r}] = {var}",
            ]
            branch = "elif"
        if tagged:
            body += [f"{ind}else:", f"{ind}    unknown.append(tag)"]
        else:
            body.append(f"{ind}unknown.append(tag)")
        body += [
            f"{ind}p = end",
            "        if unknown:",
            f"            out[{UNKNOWN_TAGS!r}] = unknown",
            "    return out, p",
        ]
        source = "\n".join(body)
        # what the body reads from the module bound as defaults: locals, not dict look-ups
        bound = [n for n in self.bindable() if re.search(rf"\b{n}\b", source)]
        params = ", ".join(["b", "p", *(f"{n}={n}" for n in bound)])
        self.functions.append(f"def {name}({params}):\n{source}")
        return name

    def bindable(self) -> list[str]:
        return ["len", *_GLOBALS, *self.names, *self.structs.values()]


def compile_fields(fields: tuple[Field, ...], version: int) -> FastRead:
    """The compiled decoder of a struct of ``fields`` in ``version``."""
    compiler = _Compiler(version)
    top = compiler.struct(fields)
    namespace: dict[str, Any] = {**_GLOBALS, **compiler.names}
    exec("\n\n".join(compiler.functions), namespace)  # source written above, from our tables
    read: FastRead = namespace[top]
    return read


_COMPILED: dict[tuple[str, int], FastRead] = {}


def fast_decoder(schema: MessageSchema, version: int) -> FastRead:
    """The compiled decoder of a message version (compiled once, then kept)."""
    key = (schema.name, version)
    read = _COMPILED.get(key)
    if read is None:
        read = _COMPILED[key] = compile_fields(schema.fields, version)
    return read


def builder(cls: type[T]) -> Callable[..., T]:
    """A positional constructor of a frozen slots dataclass that sets its slots directly.

    Same object as ``cls(*args)`` for a dataclass without ``__post_init__`` and with every
    field given: the generated ``__init__`` sets each field through ``object.__setattr__``.
    """
    names = [name for name in cls.__dataclass_fields__]  # type: ignore[attr-defined]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def build({', '.join(names)}):", "    obj = _new(_cls)"]
    for name in names:
        namespace[f"_set_{name}"] = getattr(cls, name).__set__
        lines.append(f"    _set_{name}(obj, {name})")
    lines.append("    return obj")
    exec("\n".join(lines), namespace)  # source written above, from the dataclass's own fields
    build: Callable[..., T] = namespace["build"]
    return build
