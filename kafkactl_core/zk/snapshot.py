"""Streaming decoder of ZooKeeper snapshot files (``snapshot.<zxid>``, ``.gz``, ``.snappy``).

Layout (``FileSnap.serialize`` / ``SerializeUtils.serializeSnapshot`` / ``DataTree.serialize``
of ZooKeeper 3.4 to 3.9): ``FileHeader`` (magic ``ZKSN``, version, dbid); ``int`` session count
and (session id, timeout) pairs; the ACL cache (``int`` count, then a ``long`` reference and a
``vector<ACL>`` each); the DataTree as (path, ``DataNode``: data buffer, ``long`` ACL
reference, ``StatPersisted``) records in depth-first order starting at the root (path ``""``)
and ending with the path ``"/"``; then the seal: ``long`` Adler32 of every byte before it and
the string ``"/"``. From 3.6 a digest may follow (``DataTree.serializeZxidDigest``: ``long``
zxid, ``int`` digest version, the digest as ``long`` — or a hex string when the version is
below 2) with a second seal whose checksum runs on from the first. The snapshot's zxid is the
one in the file name. The checksum covers the decompressed bytes of ``.gz``/``.snappy`` files.

``read_snapshot`` streams nodes one at a time; damage ends decoding with a ``FileIssue``
naming the file and byte offset; nothing raises for bad input.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass

from kafkactl_core.zk.files import (
    Compression,
    Readable,
    Source,
    describe_magic,
    open_source,
    parse_data_file_name,
    sniff_compression,
    source_name,
    source_size,
)
from kafkactl_core.zk.jute import (
    DEFAULT_LIMITS,
    FILE_HEADER,
    LONG_INT,
    OPEN_ACL_REF,
    OPEN_ACL_UNSAFE,
    SNAP_MAGIC,
    STAT,
    Acl,
    ChunkReader,
    DecodeError,
    FileIssue,
    IssueKind,
    Limits,
    Stat,
)
from kafkactl_core.zk.snappy import SnappyJavaReader

_SEAL_PATH = "/"


@dataclass(frozen=True, slots=True)
class SnapshotNode:
    """One znode of a snapshot.

    Attributes:
        path: the znode path (``"/"`` for the root, stored as ``""`` in the file).
        data: the znode's data, None when ZooKeeper stored null.
        acl_ref: the reference into the snapshot's ACL cache (-1 = world:anyone, all perms).
        stat: the persisted stat.
        offset: byte offset of the node record (decompressed stream for .gz/.snappy).
    """

    path: str
    data: bytes | None
    acl_ref: int
    stat: Stat
    offset: int


@dataclass(frozen=True, slots=True)
class SnapshotSession:
    """A session alive when the snapshot was taken: id and negotiated timeout (ms)."""

    session_id: int
    timeout: int


@dataclass(frozen=True, slots=True)
class SnapshotDigest:
    """The 3.6+ digest trailer: the zxid it was computed at, its version and value."""

    zxid: int
    version: int
    digest: int


@dataclass(frozen=True, slots=True)
class SnapshotSummary:
    """What decoding one snapshot file gave.

    Attributes:
        file: the file as named by the caller.
        zxid: the snapshot's zxid (from the file name unless given), None when unknown.
        compression: none, gz or snappy.
        version: format version from the header (2).
        dbid: database id from the header (-1 for every ZooKeeper release).
        sessions: session count.
        acl_entries: ACL cache entries.
        nodes: znodes decoded (and yielded).
        checksum_ok: whether the seal's Adler32 matched (None when not reached).
        digest: the digest trailer, when present and sealed.
        end_offset: where decoding stopped.
        issues: problems found; a fatal one stopped decoding.
    """

    file: str
    zxid: int | None
    compression: Compression
    version: int | None
    dbid: int | None
    sessions: int
    acl_entries: int
    nodes: int
    checksum_ok: bool | None
    digest: SnapshotDigest | None
    end_offset: int
    issues: tuple[FileIssue, ...]

    @property
    def error(self) -> FileIssue | None:
        """The fatal issue that stopped decoding, None when the file decoded completely."""
        return next((issue for issue in self.issues if issue.fatal), None)

    @property
    def complete(self) -> bool:
        """Whether the whole file decoded and its checksum matched."""
        return self.error is None and self.checksum_ok is True


class _Prefixed:
    """Give back bytes already read for sniffing before reading on."""

    def __init__(self, head: bytes, rest: Readable) -> None:
        self._head = head
        self._rest = rest

    def seek(self, n: int, /) -> object:
        raise OSError("a snapshot stream is read forward only")

    def read(self, n: int = -1, /) -> bytes:
        if self._head:
            if n < 0:
                data = self._head + self._rest.read()
                self._head = b""
                return data
            data, self._head = self._head[:n], self._head[n:]
            if len(data) < n:
                data += self._rest.read(n - len(data))
            return data
        return self._rest.read(n)


class SnapshotReader:
    """Iterate a snapshot's znodes; sessions and ACLs fill in first, ``summary`` at the end."""

    def __init__(
        self,
        source: Source,
        name: str | None = None,
        *,
        zxid: int | None = None,
        limits: Limits = DEFAULT_LIMITS,
        chunk: int = 1 << 20,
    ) -> None:
        """Prepare to read ``source``.

        Args:
            source: a path or a binary file object.
            name: the name to cite in errors (default: the path or ``f.name``).
            zxid: the snapshot's zxid when the name does not carry it.
            limits: bounds for length fields.
            chunk: read size.
        """
        self._source = source
        self.file = source_name(source, name)
        parsed = parse_data_file_name(self.file)
        self._zxid = zxid if zxid is not None else parsed.zxid
        self._compression = parsed.compression
        self._limits = limits
        self._chunk = chunk
        self.sessions: tuple[SnapshotSession, ...] = ()
        self.acls: dict[int, tuple[Acl, ...]] = {}
        self._version: int | None = None
        self._dbid: int | None = None
        self._nodes = 0
        self._checksum_ok: bool | None = None
        self._digest: SnapshotDigest | None = None
        self._end = 0
        self._issues: list[FileIssue] = []

    def acl(self, ref: int) -> tuple[Acl, ...] | None:
        """The ACL list behind a node's ``acl_ref`` (None when the cache lacks it).

        Args:
            ref: ``SnapshotNode.acl_ref``.

        Returns:
            The ACL entries.
        """
        if ref == OPEN_ACL_REF:
            return OPEN_ACL_UNSAFE
        return self.acls.get(ref)

    @property
    def summary(self) -> SnapshotSummary:
        """The file's summary (complete after iteration)."""
        return SnapshotSummary(
            file=self.file,
            zxid=self._zxid,
            compression=self._compression,
            version=self._version,
            dbid=self._dbid,
            sessions=len(self.sessions),
            acl_entries=len(self.acls),
            nodes=self._nodes,
            checksum_ok=self._checksum_ok,
            digest=self._digest,
            end_offset=self._end,
            issues=tuple(self._issues),
        )

    def _issue(self, kind: IssueKind, offset: int | None, detail: str, fatal: bool = True) -> None:
        where = " (offset in the decompressed stream)" if self._compression.value != "none" else ""
        self._issues.append(FileIssue(self.file, offset, kind, detail + where, fatal))

    def __iter__(self) -> Iterator[SnapshotNode]:
        self._nodes, self._checksum_ok, self._digest, self._end = 0, None, None, 0
        self._issues = []
        try:
            with open_source(self._source) as raw:
                head = raw.read(16)
                sniffed = sniff_compression(head)
                if sniffed is not None:
                    self._compression = sniffed
                elif self._compression is not Compression.none:
                    self._issue(
                        IssueKind.decompression_error,
                        0,
                        f"named .{self._compression.value} but not {self._compression.value} "
                        f"data: {describe_magic(head)}",
                    )
                    return
                prefixed = _Prefixed(head, raw)
                stream: Readable = prefixed
                size = None
                if self._compression is Compression.gzip:
                    stream = gzip.GzipFile(fileobj=prefixed, mode="rb")
                elif self._compression is Compression.snappy:
                    stream = SnappyJavaReader(prefixed)
                else:
                    size = source_size(self._source)
                reader = ChunkReader(stream, chunk=self._chunk, size=size)
                try:
                    yield from self._nodes_of(reader)
                except DecodeError as exc:
                    self._end = exc.offset if exc.offset is not None else reader.offset
                    self._issue(exc.kind, exc.offset, exc.detail)
        except OSError as exc:
            self._issue(IssueKind.io_error, None, f"cannot read: {exc}")

    def _nodes_of(self, r: ChunkReader) -> Iterator[SnapshotNode]:
        limits = self._limits
        if not r.need(FILE_HEADER.size):
            head = r.buf[r.pos :]
            if head[:4] != b"ZKSN"[: len(head[:4])] or not head:
                raise DecodeError(
                    IssueKind.not_zookeeper, 0, f"not a ZooKeeper snapshot: {describe_magic(head)}"
                )
            raise DecodeError(
                IssueKind.truncated, 0, f"file ends inside the file header ({len(head)} bytes)"
            )
        magic, version, dbid = FILE_HEADER.unpack_from(r.buf, r.pos)
        if magic != SNAP_MAGIC:
            raise DecodeError(
                IssueKind.not_zookeeper,
                0,
                f"not a ZooKeeper snapshot: {describe_magic(r.buf[r.pos : r.pos + 16])}",
            )
        self._version, self._dbid = version, dbid
        r.pos += FILE_HEADER.size

        count = r.read_length("session count", limits.max_sessions)
        sessions = []
        for _ in range(count):
            r.require(LONG_INT.size, "a session entry")
            session_id, timeout = LONG_INT.unpack_from(r.buf, r.pos)
            r.pos += LONG_INT.size
            sessions.append(SnapshotSession(session_id, timeout))
        self.sessions = tuple(sessions)

        count = r.read_length("ACL cache size", limits.max_acl_cache)
        for _ in range(count):
            ref = r.read_long("ACL cache reference")
            acl = r.read_acls("ACL list", limits)
            self.acls[ref] = acl or ()

        max_buffer = limits.max_buffer
        stat_size = STAT.size
        while True:
            at = r.offset
            path = r.read_string("node path", max_buffer)
            if path == _SEAL_PATH:
                break
            if path is None:
                raise DecodeError(IssueKind.bad_record, at, "node path is null")
            # ZooKeeper refuses control characters in paths: one here is damage, and an issue
            # stays one line
            shown = path if path.isprintable() else repr(path)
            data = r.read_buffer(f"data of {shown or '/'}", max_buffer)
            r.require(8 + stat_size, f"ACL reference and stat of {shown or '/'}")
            buf, pos = r.buf, r.pos
            acl_ref = int.from_bytes(buf[pos : pos + 8], "big", signed=True)
            stat = Stat(*STAT.unpack_from(buf, pos + 8))
            r.pos = pos + 8 + stat_size
            self._nodes += 1
            self._end = r.offset
            yield SnapshotNode(path or "/", data, acl_ref, stat, at)

        self._check_seal(r, "the checksum after the nodes")
        self._end = r.offset
        if r.at_eof():
            return
        at = r.offset
        zxid = r.read_long("digest zxid")
        digest_version = r.read_int("digest version")
        if digest_version < 2:
            text = r.read_string("digest", 64)
            try:
                value = int(text or "0", 16)
            except ValueError as exc:
                raise DecodeError(IssueKind.bad_record, at, f"digest {text!r} is not hex") from exc
        else:
            value = r.read_long("digest")
        self._check_seal(r, "the checksum after the digest")
        self._digest = SnapshotDigest(zxid, digest_version, value)
        self._end = r.offset
        if not r.at_eof():
            self._issue(
                IssueKind.bad_end_marker,
                r.offset,
                "bytes after the final seal (ignored, as ZooKeeper does)",
                fatal=False,
            )

    def _check_seal(self, r: ChunkReader, what: str) -> None:
        at = r.offset
        expected = r.checksum()
        value = r.read_long(what)
        path = r.read_string(f"end marker of {what}", 16)
        if value != expected:
            self._checksum_ok = False
            raise DecodeError(
                IssueKind.checksum_mismatch,
                at,
                f"{what}: stored Adler32 {value & 0xFFFFFFFFFFFFFFFF:#x} != computed "
                f"{expected:#x} (the file is damaged)",
            )
        if path != _SEAL_PATH:
            raise DecodeError(
                IssueKind.bad_end_marker, at + 8, f"{what} is not followed by '/' ({path!r})"
            )
        self._checksum_ok = True


def read_snapshot(
    source: Source,
    name: str | None = None,
    *,
    zxid: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> SnapshotReader:
    """Open a snapshot for streaming decoding.

    Args:
        source: a path or a binary file object.
        name: the name to cite in errors.
        zxid: the snapshot's zxid when the file name does not carry it.
        limits: bounds for length fields.

    Returns:
        A reader: iterate it for ``SnapshotNode`` values (``sessions``/``acls`` are set before
        the first node), then read ``summary``.
    """
    return SnapshotReader(source, name, zxid=zxid, limits=limits)


@dataclass(slots=True)
class Snapshot:
    """A snapshot decoded into memory (for small files, tests and the state model).

    Attributes:
        nodes: znodes by path, in file order.
        sessions: session id → timeout.
        acls: the ACL cache.
        summary: the file summary.
    """

    nodes: dict[str, SnapshotNode]
    sessions: dict[int, int]
    acls: dict[int, tuple[Acl, ...]]
    summary: SnapshotSummary

    def acl(self, ref: int) -> tuple[Acl, ...] | None:
        """The ACL list behind a reference (-1 is world:anyone)."""
        if ref == OPEN_ACL_REF:
            return OPEN_ACL_UNSAFE
        return self.acls.get(ref)


def load_snapshot(
    source: Source,
    name: str | None = None,
    *,
    zxid: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Snapshot:
    """Decode a whole snapshot into memory.

    Args:
        source: a path or a binary file object.
        name: the name to cite in errors.
        zxid: the snapshot's zxid when the file name does not carry it.
        limits: bounds for length fields.

    Returns:
        The nodes decoded before any damage, sessions, ACL cache and summary.
    """
    reader = read_snapshot(source, name, zxid=zxid, limits=limits)
    nodes = {node.path: node for node in reader}
    sessions = {s.session_id: s.timeout for s in reader.sessions}
    return Snapshot(nodes, sessions, dict(reader.acls), reader.summary)
