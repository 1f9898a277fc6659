"""Pure-Python reader of snappy-java streams, the format of ZooKeeper's ``snapshot.<zxid>.snappy``.

ZooKeeper compresses snapshots with ``org.xerial.snappy.SnappyOutputStream`` when
``zookeeper.snapshot.compression.method=snappy``: a 16-byte header (magic ``\\x82SNAPPY\\x00``,
version, compatible version) then blocks, each an int32 big-endian compressed length followed
by one raw Snappy block. ``SnappyJavaReader`` decodes it block by block behind a ``read(n)``
interface, so a snapshot is still streamed. Damage raises ``ValueError`` with the offset in the
compressed file; the snapshot decoder turns that into a per-file error.
"""

from __future__ import annotations

import struct

from kafkactl_core.zk.files import SNAPPY_JAVA_MAGIC, Readable

_HEADER_SIZE = 16
_BLOCK_LEN = struct.Struct(">i")
_MAX_BLOCK = 64 << 20  # snappy-java writes 32 KiB blocks; anything huge is damage


def uncompress_block(block: bytes, *, max_size: int = _MAX_BLOCK) -> bytes:
    """Decompress one raw Snappy block.

    Args:
        block: the compressed bytes (varint length, then literals and copies).
        max_size: the largest decompressed size accepted.

    Returns:
        The decompressed bytes.

    Raises:
        ValueError: on a malformed block.
    """
    n = len(block)
    pos = 0
    size = 0
    shift = 0
    while True:
        if pos >= n or shift > 28:
            raise ValueError("bad snappy length varint")
        byte = block[pos]
        pos += 1
        size |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    if size > max_size:
        raise ValueError(f"snappy block claims {size} bytes, above {max_size}")
    out = bytearray()
    while pos < n:
        tag = block[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            length = tag >> 2
            if length >= 60:
                extra = length - 59
                if pos + extra > n:
                    raise ValueError("snappy literal length runs past the block")
                length = int.from_bytes(block[pos : pos + extra], "little")
                pos += extra
            length += 1
            if pos + length > n:
                raise ValueError("snappy literal runs past the block")
            out += block[pos : pos + length]
            pos += length
            continue
        if kind == 1:
            if pos >= n:
                raise ValueError("snappy copy runs past the block")
            length = 4 + ((tag >> 2) & 7)
            offset = ((tag >> 5) << 8) | block[pos]
            pos += 1
        elif kind == 2:
            if pos + 2 > n:
                raise ValueError("snappy copy runs past the block")
            length = (tag >> 2) + 1
            offset = block[pos] | (block[pos + 1] << 8)
            pos += 2
        else:
            if pos + 4 > n:
                raise ValueError("snappy copy runs past the block")
            length = (tag >> 2) + 1
            offset = int.from_bytes(block[pos : pos + 4], "little")
            pos += 4
        have = len(out)
        if offset == 0 or offset > have:
            raise ValueError(f"snappy copy offset {offset} outside the {have} bytes produced")
        start = have - offset
        if offset >= length:
            out += out[start : start + length]
        else:  # overlapping copy repeats the last `offset` bytes
            pattern = bytes(out[start:])
            out += (pattern * (length // offset + 1))[:length]
        if len(out) > size:
            raise ValueError("snappy block decompresses past its declared length")
    if len(out) != size:
        raise ValueError(f"snappy block decompressed to {len(out)} bytes, expected {size}")
    return bytes(out)


class SnappyJavaReader:
    """A ``read(n)`` file object over a snappy-java (``SnappyOutputStream``) stream."""

    def __init__(self, raw: Readable) -> None:
        """Wrap ``raw``, positioned at the start of the stream.

        Args:
            raw: the compressed file.
        """
        self._raw = raw
        self._pending = b""
        self._offset = 0  # in the compressed stream, for error messages
        self._header_read = False
        self._eof = False

    def _read_exact(self, n: int, what: str) -> bytes | None:
        data = self._raw.read(n)
        while 0 < len(data) < n:
            more = self._raw.read(n - len(data))
            if not more:
                break
            data += more
        if not data:
            return None
        if len(data) < n:
            raise ValueError(
                f"snappy stream ends inside {what} at compressed offset {self._offset}"
            )
        self._offset += n
        return data

    def _header(self) -> None:
        head = self._read_exact(_HEADER_SIZE, "the snappy-java header")
        if head is None or not head.startswith(SNAPPY_JAVA_MAGIC):
            raise ValueError("not a snappy-java stream (missing the \\x82SNAPPY header)")
        self._header_read = True

    def _next_block(self) -> bytes | None:
        if not self._header_read:
            self._header()
        while True:
            at = self._offset
            head = self._read_exact(4, "a block length")
            if head is None:
                return None
            if head == SNAPPY_JAVA_MAGIC[:4]:  # concatenated stream: skip its header
                self._read_exact(_HEADER_SIZE - 4, "the snappy-java header")
                continue
            length = _BLOCK_LEN.unpack(head)[0]
            if length < 0 or length > _MAX_BLOCK:
                raise ValueError(f"snappy block length {length} at compressed offset {at}")
            block = self._read_exact(length, "a block")
            if block is None:
                raise ValueError(f"snappy stream ends after a block length at offset {at}")
            try:
                return uncompress_block(block)
            except ValueError as exc:
                raise ValueError(f"{exc} (block at compressed offset {at})") from exc

    def read(self, n: int = -1, /) -> bytes:
        """Read up to ``n`` decompressed bytes (all when ``n`` < 0); b"" at the end.

        Raises:
            ValueError: on a damaged stream.
        """
        parts = [self._pending]
        have = len(self._pending)
        while (n < 0 or have < n) and not self._eof:
            block = self._next_block()
            if block is None:
                self._eof = True
                break
            parts.append(block)
            have += len(block)
        data = b"".join(parts)
        if n < 0 or len(data) <= n:
            self._pending = b""
            return data
        self._pending = data[n:]
        return data[:n]
