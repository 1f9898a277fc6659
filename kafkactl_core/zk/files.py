"""Naming and opening of ZooKeeper dataDir files: ``snapshot.<zxid>[.gz|.snappy]``, ``log.<zxid>``.

ZooKeeper names each file after a zxid in hex (``Util.getZxidFromName``) and picks a snapshot's
compression from its last suffix (``SnapStream.getStreamMode``). This module mirrors both, and
also accepts copies renamed by operators (``cluster1-snapshot.f7.bin``) by searching the name
and sniffing the first bytes. It opens paths or accepts already-open binary file objects.
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol, TypeAlias

Source: TypeAlias = "str | os.PathLike[str] | BinaryIO"
"""A file path or an open binary file object."""


class Readable(Protocol):
    """Anything with ``read(n)`` returning bytes: a file, a gzip or snappy stream."""

    def read(self, n: int = -1, /) -> bytes:
        """Read up to ``n`` bytes (all when negative); b"" at the end."""
        ...


GZIP_MAGIC = b"\x1f\x8b"
SNAPPY_JAVA_MAGIC = b"\x82SNAPPY\x00"

_SNAP_NAME = re.compile(r"(?:^|[^A-Za-z0-9])snapshot\.([0-9a-fA-F]+)(?=$|[^0-9a-zA-Z])")
_LOG_NAME = re.compile(r"(?:^|[^A-Za-z0-9])log\.([0-9a-fA-F]+)(?=$|[^0-9a-zA-Z])")


class FileKind(enum.Enum):
    """What a dataDir file is (by name, refined by its first bytes)."""

    snapshot = "snapshot"
    txnlog = "txnlog"
    snapshot_dump = "snapshot_dump"
    """Text output of ZooKeeper's ``SnapshotFormatter``."""
    txnlog_dump = "txnlog_dump"
    """Text output of ZooKeeper's ``TxnLogToolkit``."""
    other = "other"


_TXNLOG_DUMP_HEAD = b"ZooKeeper Transactional Log File with dbid"
_SNAPSHOT_DUMP_HEAD = b"ZNode Details (count="


def sniff_kind(head: bytes, by_name: FileKind) -> FileKind:
    """A file's kind from its first bytes, falling back to the kind its name suggests.

    A file whose content is recognisably ZooKeeper's (magic ``ZKSN``/``ZKLG``, or a
    ``SnapshotFormatter``/``TxnLogToolkit`` dump) gets that kind whatever its name; otherwise
    the name decides (so a damaged ``log.5`` is still decoded and reported as damaged).

    Args:
        head: the file's first 64 bytes or more.
        by_name: ``parse_data_file_name(...).kind``.

    Returns:
        The kind.
    """
    if head.startswith(b"ZKSN"):
        return FileKind.snapshot
    if head.startswith(b"ZKLG"):
        return FileKind.txnlog
    if head.startswith(_TXNLOG_DUMP_HEAD):
        return FileKind.txnlog_dump
    if head.startswith(_SNAPSHOT_DUMP_HEAD):
        return FileKind.snapshot_dump
    # gzip/snappy content keeps the kind its name gives: only snapshots are compressed, and a
    # stray archive in the directory is no snapshot
    return by_name


class Compression(enum.Enum):
    """How a snapshot's bytes are wrapped (``SnapStream.StreamMode``)."""

    none = "none"
    gzip = "gz"
    snappy = "snappy"


@dataclass(frozen=True, slots=True)
class DataFileName:
    """A dataDir file name parsed like ZooKeeper does.

    Attributes:
        kind: snapshot, transaction log or something else.
        zxid: the zxid in the name (hex), None when absent.
        compression: by the last suffix (``.gz``/``.snappy``), snapshots only.
    """

    kind: FileKind
    zxid: int | None
    compression: Compression


def parse_data_file_name(name: str) -> DataFileName:
    """Classify a dataDir file by its base name.

    ``snapshot.f7``, ``snapshot.1a2b.gz``, ``log.100000001`` are ZooKeeper's own names; a name
    that merely contains ``snapshot.<hex>`` (an operator's renamed copy) is also recognised.

    Args:
        name: a file name or path.

    Returns:
        The parsed name.
    """
    base = os.path.basename(str(name))
    suffix = base.rsplit(".", 1)[-1].lower() if "." in base else ""
    compression = {"gz": Compression.gzip, "snappy": Compression.snappy}.get(
        suffix, Compression.none
    )
    match = _SNAP_NAME.search(base)
    if match:
        return DataFileName(FileKind.snapshot, int(match.group(1), 16), compression)
    match = _LOG_NAME.search(base)
    if match:
        return DataFileName(FileKind.txnlog, int(match.group(1), 16), Compression.none)
    return DataFileName(FileKind.other, None, Compression.none)


def sniff_compression(head: bytes) -> Compression | None:
    """Compression recognised from a file's first bytes, None for none/unknown.

    Args:
        head: at least the first 8 bytes of the file.

    Returns:
        gzip, snappy or None.
    """
    if head.startswith(GZIP_MAGIC):
        return Compression.gzip
    if head.startswith(SNAPPY_JAVA_MAGIC):
        return Compression.snappy
    return None


def source_name(source: Source, name: str | None = None) -> str:
    """The name errors should cite for ``source``.

    Args:
        source: a path or a file object.
        name: an explicit name, which wins.

    Returns:
        The name.
    """
    if name is not None:
        return name
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "<stream>"))


def source_size(source: Source) -> int | None:
    """The size in bytes of a path or a seekable regular file object, None when unknown."""
    try:
        if isinstance(source, (str, os.PathLike)):
            return Path(source).stat().st_size
        return os.fstat(source.fileno()).st_size
    except (OSError, AttributeError, ValueError):
        return None


@contextmanager
def open_source(source: Source) -> Iterator[BinaryIO]:
    """Open a path for binary reading, or pass a file object through (not closing it).

    Args:
        source: a path or an open binary file object.

    Yields:
        The binary file object.

    Raises:
        OSError: when the path cannot be opened (callers turn it into a ``FileIssue``).
    """
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            yield f
    else:
        yield source


def describe_magic(head: bytes) -> str:
    """Say what a file's first bytes look like, for a 'not a ZooKeeper file' message.

    Args:
        head: the first bytes (up to 16 are shown).

    Returns:
        A short description.
    """
    if head.startswith(b"ZKSN"):
        return "it is a ZooKeeper snapshot (magic ZKSN)"
    if head.startswith(b"ZKLG"):
        return "it is a ZooKeeper transaction log (magic ZKLG)"
    kind = sniff_compression(head)
    if kind is not None:
        return f"it is {kind.value}-compressed data"
    if not head:
        return "it is empty"
    return f"it starts with {head[:16]!r}"
