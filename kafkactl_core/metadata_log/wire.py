"""Kafka's wire primitives as a bounded reader: fixed-width big-endian integers, the varints of
record batches and the unsigned varints, compact strings, arrays and tagged fields of flexible
message versions.

Every read checks the bytes it needs against the end of its window, and every length field is
checked against the bytes left before anything is sliced, so damaged input raises
``DecodeError`` with the absolute byte offset instead of reading past its record or allocating
what a corrupt length asks for.
"""

from __future__ import annotations

import base64
import mmap
import struct
from typing import TypeAlias

Buffer: TypeAlias = "bytes | bytearray | memoryview | mmap.mmap"
"""What a reader reads: file bytes in memory, or the file mapped."""

_I16 = struct.Struct(">h")
_U16 = struct.Struct(">H")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_F64 = struct.Struct(">d")


class DecodeError(ValueError):
    """Bytes that are not what the format says, at an absolute byte offset.

    Attributes:
        offset: where the damage was found (bytes from the start of the file).
        reason: what is wrong there.
    """

    def __init__(self, offset: int, reason: str) -> None:
        super().__init__(f"byte {offset}: {reason}")
        self.offset = offset
        self.reason = reason


class Reader:
    """Reads Kafka's wire types from ``buf[pos:end]``; ``base`` maps positions to file offsets.

    Args:
        buf: the bytes (a ``bytes`` object or an ``mmap``).
        pos: where reading starts.
        end: where the window ends (exclusive); the buffer's end when None.
        base: added to a position in an error's offset (the window's place in the file when
            ``buf`` is a decompressed copy).
    """

    __slots__ = ("base", "buf", "end", "pos")

    def __init__(self, buf: Buffer, pos: int = 0, end: int | None = None, base: int = 0) -> None:
        self.buf = memoryview(buf)
        self.pos = pos
        self.end = len(self.buf) if end is None else end
        self.base = base

    @property
    def remaining(self) -> int:
        """Bytes left in the window."""
        return self.end - self.pos

    def fail(self, reason: str) -> DecodeError:
        """A ``DecodeError`` at the current position."""
        return DecodeError(self.base + self.pos, reason)

    def _take(self, n: int, what: str) -> int:
        start = self.pos
        if n > self.end - start:
            raise self.fail(f"{what} needs {n} bytes, {self.end - start} left")
        self.pos = start + n
        return start

    def int8(self) -> int:
        """A signed byte."""
        value = self.buf[self._take(1, "int8")]
        return value - 256 if value > 127 else value

    def boolean(self) -> bool:
        """A byte, true when not zero."""
        return self.buf[self._take(1, "bool")] != 0

    def int16(self) -> int:
        """A big-endian int16."""
        return int(_I16.unpack_from(self.buf, self._take(2, "int16"))[0])

    def uint16(self) -> int:
        """A big-endian unsigned int16."""
        return int(_U16.unpack_from(self.buf, self._take(2, "uint16"))[0])

    def int32(self) -> int:
        """A big-endian int32."""
        return int(_I32.unpack_from(self.buf, self._take(4, "int32"))[0])

    def int64(self) -> int:
        """A big-endian int64."""
        return int(_I64.unpack_from(self.buf, self._take(8, "int64"))[0])

    def float64(self) -> float:
        """A big-endian IEEE double."""
        return float(_F64.unpack_from(self.buf, self._take(8, "float64"))[0])

    def uvarint(self, max_bytes: int = 5) -> int:
        """An unsigned LEB128 varint of at most ``max_bytes`` bytes (5: an int32, 10: an int64)."""
        buf, pos, end = self.buf, self.pos, self.end
        value = shift = 0
        for i in range(max_bytes):
            if pos + i >= end:
                raise self.fail("varint runs past the end")
            b = buf[pos + i]
            value |= (b & 0x7F) << shift
            if b < 0x80:
                self.pos = pos + i + 1
                return value
            shift += 7
        raise self.fail(f"varint longer than {max_bytes} bytes")

    def varint(self) -> int:
        """A zig-zag signed varint (int32)."""
        raw = self.uvarint(5)
        return (raw >> 1) ^ -(raw & 1)

    def varlong(self) -> int:
        """A zig-zag signed varint (int64)."""
        raw = self.uvarint(10)
        return (raw >> 1) ^ -(raw & 1)

    def raw(self, n: int, what: str) -> bytes:
        """``n`` bytes, checked against the window first."""
        if n < 0:
            raise self.fail(f"{what} has negative length {n}")
        start = self._take(n, what)
        return bytes(self.buf[start : start + n])

    def uuid(self) -> str:
        """A 16-byte UUID as Kafka prints it: URL-safe base64 without padding."""
        return base64.urlsafe_b64encode(self.raw(16, "uuid")).rstrip(b"=").decode("ascii")

    def compact_length(self, what: str) -> int:
        """A compact length (unsigned varint N+1; -1 for null), checked against the bytes left."""
        n = self.uvarint() - 1
        if n > self.end - self.pos:
            raise self.fail(f"{what} of {n} claimed, only {self.end - self.pos} bytes left")
        return n

    def compact_string(self) -> str | None:
        """A compact nullable UTF-8 string."""
        n = self.compact_length("string")
        if n < 0:
            return None
        start = self._take(n, "string")
        try:
            return str(self.buf[start : start + n], "utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(self.base + start, f"string is not UTF-8: {exc.reason}") from None

    def compact_bytes(self) -> bytes | None:
        """A compact nullable byte string."""
        n = self.compact_length("bytes")
        return None if n < 0 else self.raw(n, "bytes")

    def skip(self, n: int, what: str) -> None:
        """Skip ``n`` bytes, checked against the window first."""
        self._take(n, what)
