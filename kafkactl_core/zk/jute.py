"""ZooKeeper's jute wire records as they appear on disk, and the bounded reader that decodes them.

Holds the value types shared by the snapshot and transaction-log decoders (``Stat`` for
``StatPersisted``, ``Acl``, ``TxnHeader``, one frozen dataclass per txn record, ``FileIssue``
for a damaged file), the ZooKeeper op codes and their names as ``Request.op2String`` prints
them, the ``Limits`` that bound every length field, and ``ChunkReader``: a streaming reader over
a binary file object that keeps a running Adler32 and never holds more than one chunk plus one
record in memory. Record layouts follow ``zookeeper.jute`` of ZooKeeper 3.4 to 3.9.
"""

from __future__ import annotations

import enum
import gzip
import struct
import zlib
from dataclasses import dataclass
from typing import TypeAlias

from kafkactl_core.zk.files import Readable


class OpCode(enum.IntEnum):
    """ZooKeeper request/txn types (``ZooDefs.OpCode``)."""

    notification = 0
    create = 1
    delete = 2
    exists = 3
    getData = 4
    setData = 5
    getACL = 6
    setACL = 7
    getChildren = 8
    sync = 9
    ping = 11
    getChildren2 = 12
    check = 13
    multi = 14
    create2 = 15
    reconfig = 16
    checkWatches = 17
    removeWatches = 18
    createContainer = 19
    deleteContainer = 20
    createTTL = 21
    multiRead = 22
    auth = 100
    setWatches = 101
    sasl = 102
    getEphemerals = 103
    getAllChildrenNumber = 104
    setWatches2 = 105
    addWatch = 106
    whoAmI = 107
    createSession = -10
    closeSession = -11
    error = -1


_OP_NAMES: dict[int, str] = {op.value: op.name for op in OpCode}
_OP_NAMES[OpCode.createTTL] = "createTtl"  # Request.op2String spells it this way
_OP_NAMES_REVERSE: dict[str, int] = {name: code for code, name in _OP_NAMES.items()}


def op_name(op: int) -> str:
    """Name of an op code as ZooKeeper's ``Request.op2String`` (and ``TxnLogToolkit``) prints it.

    Args:
        op: the txn type from a ``TxnHeader`` or a multi sub-txn.

    Returns:
        ``create``, ``setData``, ``createTtl`` …, or ``unknown <op>``.
    """
    return _OP_NAMES.get(op, f"unknown {op}")


def op_code(name: str) -> int | None:
    """The op code printed as ``name`` by ``op_name``, or None when the name is unknown.

    Args:
        name: an op name such as ``setData`` or ``unknown 42``.

    Returns:
        The numeric op code, or None.
    """
    code = _OP_NAMES_REVERSE.get(name)
    if code is not None:
        return code
    head, _, number = name.partition(" ")
    if head == "unknown" and number.lstrip("-").isdigit():
        return int(number)
    return None


SNAP_MAGIC = 0x5A4B534E  # "ZKSN"
TXNLOG_MAGIC = 0x5A4B4C47  # "ZKLG"
END_OF_RECORD = 0x42  # 'B', written after every txn log entry
OPEN_ACL_REF = -1  # ReferenceCountedACLCache.OPEN_UNSAFE_ACL_ID
CONTAINER_EPHEMERAL_OWNER = -(1 << 63)  # EphemeralType.CONTAINER_EPHEMERAL_OWNER
TTL_MASK = 0xFF00000000000000  # EphemeralType: TTL owners have 0xFF in the top byte
MAX_SESSION_OWNER = 0x00FFFFFFFFFFFFFF


class IssueKind(enum.Enum):
    """Why a file could not be decoded (completely)."""

    not_zookeeper = "not_zookeeper"
    truncated = "truncated"
    checksum_mismatch = "checksum_mismatch"
    length_out_of_bounds = "length_out_of_bounds"
    bad_record = "bad_record"
    bad_end_marker = "bad_end_marker"
    io_error = "io_error"
    decompression_error = "decompression_error"
    bad_name = "bad_name"
    unparsable_text = "unparsable_text"


@dataclass(frozen=True, slots=True)
class FileIssue:
    """A problem found in one input file; decoding stopped (or skipped a record) there.

    Attributes:
        file: the file's name or path as given by the caller.
        offset: byte offset in the file (for a compressed snapshot: in the decompressed stream;
            for a text dump: the 1-based line number) where the damage starts.
        kind: the class of problem.
        detail: one readable sentence.
        fatal: True when decoding of the file stopped here (entries before it are kept).
    """

    file: str
    offset: int | None
    kind: IssueKind
    detail: str
    fatal: bool = True

    def __str__(self) -> str:
        where = f" at offset {self.offset}" if self.offset is not None else ""
        return f"{self.file}{where}: {self.kind.value}: {self.detail}"


@dataclass(frozen=True, slots=True)
class Limits:
    """Upper bounds for every length field, so a damaged length gives an error, not a MemoryError.

    Attributes:
        max_buffer: largest string/byte buffer (znode data, path, txn entry). ZooKeeper's own
            ``jute.maxbuffer`` defaults to 1 MiB; clusters raise it, so the default is generous.
        max_vector: largest element count of a jute vector (ACL list, multi sub-txns, paths).
        max_sessions: largest session count in a snapshot.
        max_acl_cache: largest ACL-cache entry count in a snapshot.
    """

    max_buffer: int = 64 << 20
    max_vector: int = 1 << 20
    max_sessions: int = 50_000_000
    max_acl_cache: int = 10_000_000


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True, slots=True)
class Acl:
    """One ACL entry: permission bits and the identity (``scheme:id``)."""

    perms: int
    scheme: str
    id: str


OPEN_ACL_UNSAFE: tuple[Acl, ...] = (Acl(31, "world", "anyone"),)


@dataclass(frozen=True, slots=True)
class Stat:
    """A znode's persisted stat (``StatPersisted``); times are ms since the epoch.

    Attributes:
        czxid: zxid of the create.
        mzxid: zxid of the last data change.
        ctime: create time.
        mtime: last data change time.
        version: data version (Kafka's ``zkVersion`` of a partition state znode).
        cversion: child version as persisted: the number of child creates (ZooKeeper's API
            reports ``2 * cversion - numChildren``, counting deletes too).
        aversion: ACL version.
        ephemeral_owner: owning session id of an ephemeral node, 0 otherwise (TTL and
            container nodes use marker values).
        pzxid: zxid of the last child change.
    """

    czxid: int
    mzxid: int
    ctime: int
    mtime: int
    version: int
    cversion: int
    aversion: int
    ephemeral_owner: int
    pzxid: int

    @property
    def ephemeral_session(self) -> int | None:
        """The owning session of an ephemeral znode; None for persistent, TTL and container."""
        return ephemeral_session(self.ephemeral_owner)


def ephemeral_session(owner: int) -> int | None:
    """The session behind a stat's ``ephemeralOwner``, None for persistent/TTL/container nodes.

    Args:
        owner: ``StatPersisted.ephemeralOwner`` as a signed long.

    Returns:
        The session id or None.
    """
    if owner == 0 or owner == CONTAINER_EPHEMERAL_OWNER or owner & TTL_MASK == TTL_MASK:
        return None
    return owner


@dataclass(frozen=True, slots=True)
class TxnHeader:
    """Header of every transaction (``TxnHeader``).

    Attributes:
        session_id: the client session (``clientId``).
        cxid: the client's request xid; 0 for server-initiated txns such as session expiry.
        zxid: the transaction id.
        time: ms since the epoch, the leader's clock when it proposed the txn.
        type: the op code.
    """

    session_id: int
    cxid: int
    zxid: int
    time: int
    type: int

    @property
    def op(self) -> str:
        """The op name (``op_name(type)``)."""
        return op_name(self.type)


@dataclass(frozen=True, slots=True)
class TxnDigest:
    """The tree digest appended to a txn by ZooKeeper 3.6+ (``TxnDigest``)."""

    version: int
    tree_digest: int


@dataclass(frozen=True, slots=True)
class CreateTxn:
    """create/create2 (also the pre-3.3 ``CreateTxnV0``, then ``parent_cversion`` is -1)."""

    path: str
    data: bytes | None
    acl: tuple[Acl, ...] | None
    ephemeral: bool
    parent_cversion: int


@dataclass(frozen=True, slots=True)
class CreateContainerTxn:
    """createContainer."""

    path: str
    data: bytes | None
    acl: tuple[Acl, ...] | None
    parent_cversion: int


@dataclass(frozen=True, slots=True)
class CreateTTLTxn:
    """createTTL."""

    path: str
    data: bytes | None
    acl: tuple[Acl, ...] | None
    parent_cversion: int
    ttl: int


@dataclass(frozen=True, slots=True)
class DeleteTxn:
    """delete/deleteContainer."""

    path: str


@dataclass(frozen=True, slots=True)
class SetDataTxn:
    """setData (and reconfig, which writes ``/zookeeper/config``); ``version`` is the new version.

    ``version`` is None only when it was recovered from a lossy text dump.
    """

    path: str
    data: bytes | None
    version: int | None


@dataclass(frozen=True, slots=True)
class CheckVersionTxn:
    """check (inside a multi).

    ``version`` is what ZooKeeper logs: the required version plus one (``PrepRequestProcessor``
    stores ``checkAndIncVersion``'s result); None only from a lossy text dump.
    """

    path: str
    version: int | None


@dataclass(frozen=True, slots=True)
class SetACLTxn:
    """setACL; ``version`` is the new ACL version."""

    path: str
    acl: tuple[Acl, ...] | None
    version: int


@dataclass(frozen=True, slots=True)
class CreateSessionTxn:
    """createSession; ``timeout`` is the negotiated session timeout in ms."""

    timeout: int


@dataclass(frozen=True, slots=True)
class CloseSessionTxn:
    """closeSession. ``paths`` lists the session's ephemerals (3.6+); None in older logs."""

    paths: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class ErrorTxn:
    """error: a failed request (or a failed multi's sub-op); ``err`` is the KeeperException code."""

    err: int | None


@dataclass(frozen=True, slots=True)
class UnknownTxn:
    """A txn whose type this decoder (or ZooKeeper) does not know, kept raw."""

    type: int
    raw: bytes
    reason: str


@dataclass(frozen=True, slots=True)
class SubTxn:
    """One operation of a multi: its op code and decoded record."""

    type: int
    record: TxnRecord

    @property
    def op(self) -> str:
        """The op name."""
        return op_name(self.type)


@dataclass(frozen=True, slots=True)
class MultiTxn:
    """multi: the sub-operations in order. A multi with an error sub-txn changed nothing."""

    txns: tuple[SubTxn, ...]

    @property
    def failed(self) -> bool:
        """Whether the multi failed as a whole (ZooKeeper then applies none of its ops)."""
        return any(sub.type == OpCode.error for sub in self.txns)


TxnRecord: TypeAlias = (
    CreateTxn
    | CreateContainerTxn
    | CreateTTLTxn
    | DeleteTxn
    | SetDataTxn
    | CheckVersionTxn
    | SetACLTxn
    | CreateSessionTxn
    | CloseSessionTxn
    | ErrorTxn
    | MultiTxn
    | UnknownTxn
    | None
)
"""Every record a txn can carry; None for a closeSession of a pre-3.6 log (no record)."""


class DecodeError(Exception):
    """Internal signal of damage at an offset; decoders turn it into a ``FileIssue``."""

    def __init__(self, kind: IssueKind, offset: int | None, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.offset = offset
        self.detail = detail


INT = struct.Struct(">i")
LONG = struct.Struct(">q")
LONG_INT = struct.Struct(">qi")  # a long then an int: txn log entry head, session entry
HEADER = struct.Struct(">qiqqi")  # TxnHeader
FILE_HEADER = struct.Struct(">iiq")  # FileHeader: magic, version, dbid
STAT = struct.Struct(">qqqqiiiqq")  # StatPersisted
DIGEST = struct.Struct(">iq")  # TxnDigest
ACL_HEAD = struct.Struct(">ii")  # perms, scheme length


class ChunkReader:
    """Streams a binary file object in chunks, with bounds, offsets and a running Adler32.

    Only one chunk (plus, for a record larger than a chunk, that record) is held at a time.
    Parsing code asks ``need(n)`` before touching ``buf[pos:pos + n]``; ``base`` is the
    stream offset of ``buf[0]``.
    """

    __slots__ = (
        "_adler",
        "_checksum",
        "_chunk",
        "_eof",
        "_f",
        "_sum_pos",
        "base",
        "buf",
        "pos",
        "size",
    )

    def __init__(
        self,
        f: Readable,
        *,
        chunk: int = 1 << 20,
        size: int | None = None,
        checksum: bool = True,
    ) -> None:
        """Wrap ``f``.

        Args:
            f: a binary file object opened for reading.
            chunk: how many bytes to read at a time.
            size: the stream's total size when known (bounds length fields further).
            checksum: keep the running Adler32 of consumed bytes (snapshots need it; logs
                checksum each entry instead).
        """
        self._checksum = checksum
        self._f = f
        self._chunk = chunk
        self.base = 0
        self._eof = False
        self._adler = 1
        self._sum_pos = 0
        self.buf = b""
        self.pos = 0
        self.size = size

    @property
    def offset(self) -> int:
        """Absolute offset of ``pos`` in the stream."""
        return self.base + self.pos

    def remaining_hint(self) -> int | None:
        """Bytes left in the stream when its size is known."""
        if self.size is None:
            return None
        return self.size - self.offset

    def need(self, n: int) -> bool:
        """Make ``buf[pos:pos + n]`` available; False when the stream ends first.

        Args:
            n: bytes needed from ``pos``.

        Returns:
            True when available.
        """
        if len(self.buf) - self.pos >= n:
            return True
        return self._fill(n)

    def _fill(self, n: int) -> bool:
        if self._eof:
            return False
        self._fold()
        rest = self.buf[self.pos :]
        self.base += self.pos
        self.pos = 0
        self._sum_pos = 0
        parts = [rest]
        have = len(rest)
        while have < n:
            try:
                # A chunk at a time: read(n) of a gzip or snappy stream allocates n bytes first,
                # and a damaged length field may claim up to ``Limits.max_buffer``.
                data = self._f.read(self._chunk)
            except EOFError as exc:  # gzip: the compressed stream ends early
                raise DecodeError(IssueKind.truncated, self.base + have, str(exc)) from exc
            except (zlib.error, ValueError, gzip.BadGzipFile) as exc:
                raise DecodeError(
                    IssueKind.decompression_error, self.base + have, f"cannot decompress: {exc}"
                ) from exc
            except OSError as exc:
                raise DecodeError(IssueKind.io_error, self.base + have, str(exc)) from exc
            if not data:
                self._eof = True
                break
            parts.append(data)
            have += len(data)
        self.buf = b"".join(parts) if len(parts) > 1 else rest
        return have >= n

    def at_eof(self) -> bool:
        """Whether the stream has no byte left at ``pos``."""
        return not self.need(1)

    def _fold(self) -> None:
        if self._checksum and self.pos > self._sum_pos:
            self._adler = zlib.adler32(memoryview(self.buf)[self._sum_pos : self.pos], self._adler)
            self._sum_pos = self.pos

    def checksum(self) -> int:
        """Adler32 of every byte consumed so far (up to ``pos``)."""
        self._fold()
        return self._adler

    def require(self, n: int, what: str) -> None:
        """Like ``need`` but raises a truncation ``DecodeError`` naming ``what``.

        Raises:
            DecodeError: when the stream ends first.
        """
        if not self.need(n):
            have = len(self.buf) - self.pos
            raise DecodeError(
                IssueKind.truncated,
                self.offset,
                f"file ends inside {what}: needed {n} bytes, {have} left",
            )

    def read_int(self, what: str) -> int:
        """Read a big-endian int32."""
        self.require(4, what)
        value: int = INT.unpack_from(self.buf, self.pos)[0]
        self.pos += 4
        return value

    def read_long(self, what: str) -> int:
        """Read a big-endian int64."""
        self.require(8, what)
        value: int = LONG.unpack_from(self.buf, self.pos)[0]
        self.pos += 8
        return value

    def read_length(self, what: str, limit: int) -> int:
        """Read a jute length (-1 = null) and bound it by ``limit`` and the bytes left.

        Raises:
            DecodeError: on a negative (other than -1) or too large length.
        """
        at = self.offset
        n = self.read_int(what)
        check_length(n, limit, what, at, self.remaining_hint())
        return n

    def read_buffer(self, what: str, limit: int) -> bytes | None:
        """Read a jute buffer: int length then bytes; None for length -1."""
        n = self.read_length(what, limit)
        if n < 0:
            return None
        self.require(n, what)
        value = self.buf[self.pos : self.pos + n]
        self.pos += n
        return value

    def read_string(self, what: str, limit: int) -> str | None:
        """Read a jute ustring (UTF-8); None for length -1."""
        at = self.offset
        raw = self.read_buffer(what, limit)
        if raw is None:
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(IssueKind.bad_record, at, f"{what} is not UTF-8: {exc}") from exc

    def read_acls(self, what: str, limits: Limits) -> tuple[Acl, ...] | None:
        """Read a ``vector<ACL>``."""
        count = self.read_length(what, limits.max_vector)
        if count < 0:
            return None
        acls = []
        for _ in range(count):
            perms = self.read_int("ACL perms")
            scheme = self.read_string("ACL scheme", limits.max_buffer) or ""
            ident = self.read_string("ACL id", limits.max_buffer) or ""
            acls.append(Acl(perms, scheme, ident))
        return tuple(acls)


def check_length(n: int, limit: int, what: str, at: int, remaining: int | None) -> None:
    """Validate a jute length field.

    Args:
        n: the length read (-1 is jute's null).
        limit: the largest acceptable value.
        what: the field, for the message.
        at: the field's offset.
        remaining: bytes left after the field when known.

    Raises:
        DecodeError: when ``n`` is below -1, above ``limit`` or beyond the end of the file.
    """
    if n < -1:
        raise DecodeError(IssueKind.length_out_of_bounds, at, f"{what} has negative length {n}")
    if n > limit:
        raise DecodeError(
            IssueKind.length_out_of_bounds,
            at,
            f"{what} has length {n}, above the limit of {limit} bytes/elements",
        )
    if remaining is not None and n > remaining:
        raise DecodeError(
            IssueKind.truncated,
            at,
            f"{what} has length {n} but only {max(remaining, 0)} bytes remain: the file is "
            "truncated (or the length damaged)",
        )


class BytesCursor:
    """Decodes jute fields from an in-memory record (a checksummed txn entry or a sub-txn)."""

    __slots__ = ("base", "buf", "end", "limits", "pos")

    def __init__(
        self,
        buf: bytes,
        pos: int = 0,
        end: int | None = None,
        *,
        base: int = 0,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        """Read ``buf[pos:end]``; ``base`` is added to offsets reported in errors."""
        self.buf = buf
        self.pos = pos
        self.end = len(buf) if end is None else end
        self.base = base
        self.limits = limits

    @property
    def left(self) -> int:
        """Bytes not yet consumed."""
        return self.end - self.pos

    def _short(self, n: int, what: str) -> DecodeError:
        return DecodeError(
            IssueKind.bad_record,
            self.base + self.pos,
            f"record ends inside {what}: needed {n} bytes, {self.end - self.pos} left",
        )

    def read_int(self, what: str) -> int:
        """Read an int32."""
        if self.end - self.pos < 4:
            raise self._short(4, what)
        value: int = INT.unpack_from(self.buf, self.pos)[0]
        self.pos += 4
        return value

    def read_long(self, what: str) -> int:
        """Read an int64."""
        if self.end - self.pos < 8:
            raise self._short(8, what)
        value: int = LONG.unpack_from(self.buf, self.pos)[0]
        self.pos += 8
        return value

    def read_bool(self, what: str) -> bool:
        """Read a jute boolean (one byte)."""
        if self.end - self.pos < 1:
            raise self._short(1, what)
        value = self.buf[self.pos] != 0
        self.pos += 1
        return value

    def read_length(self, what: str, limit: int) -> int:
        """Read and bound a length field (-1 = null)."""
        at = self.base + self.pos
        n = self.read_int(what)
        check_length(n, limit, what, at, self.end - self.pos)
        return n

    def read_buffer(self, what: str) -> bytes | None:
        """Read a jute buffer; None for length -1."""
        n = self.read_length(what, self.limits.max_buffer)
        if n < 0:
            return None
        value = self.buf[self.pos : self.pos + n]
        self.pos += n
        return value

    def read_string(self, what: str) -> str | None:
        """Read a jute ustring; None for length -1."""
        at = self.base + self.pos
        raw = self.read_buffer(what)
        if raw is None:
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(IssueKind.bad_record, at, f"{what} is not UTF-8: {exc}") from exc

    def read_path(self) -> str:
        """Read a znode path (never null in a valid txn)."""
        return self.read_string("path") or ""

    def read_acls(self) -> tuple[Acl, ...] | None:
        """Read a ``vector<ACL>``."""
        count = self.read_length("ACL vector", self.limits.max_vector)
        if count < 0:
            return None
        acls = []
        for _ in range(count):
            perms = self.read_int("ACL perms")
            scheme = self.read_string("ACL scheme") or ""
            ident = self.read_string("ACL id") or ""
            acls.append(Acl(perms, scheme, ident))
        return tuple(acls)


def decode_record(op: int, cur: BytesCursor, *, in_multi: bool = False) -> TxnRecord:
    """Decode the record of a txn (or multi sub-txn) of type ``op`` at the cursor.

    Follows ``SerializeUtils.deserializeTxn`` (top level) and ``DataTree.processTxn`` (multi).

    Args:
        op: the op code.
        cur: positioned at the record.
        in_multi: whether this is a multi sub-txn (only then is a bare ``check`` normal).

    Returns:
        The record; ``UnknownTxn`` for a type ZooKeeper never logs.

    Raises:
        DecodeError: when the bytes do not hold a record of that type.
    """
    if op in (OpCode.create, OpCode.create2):
        path = cur.read_path()
        data = cur.read_buffer("data")
        acl = cur.read_acls()
        ephemeral = cur.read_bool("ephemeral")
        if cur.left < 4 and op == OpCode.create and not in_multi:
            # CreateTxnV0 (ZooKeeper < 3.3) has no parentCVersion; ZooKeeper reads it as -1.
            return CreateTxn(path, data, acl, ephemeral, -1)
        return CreateTxn(path, data, acl, ephemeral, cur.read_int("parentCVersion"))
    if op == OpCode.setData or op == OpCode.reconfig:
        path = cur.read_path()
        data = cur.read_buffer("data")
        return SetDataTxn(path, data, cur.read_int("version"))
    if op in (OpCode.delete, OpCode.deleteContainer):
        return DeleteTxn(cur.read_path())
    if op == OpCode.createSession:
        return CreateSessionTxn(cur.read_int("timeOut"))
    if op == OpCode.error:
        return ErrorTxn(cur.read_int("err"))
    if op == OpCode.closeSession:
        # 3.6+ writes the session's ephemerals; older logs (or a 3.6+ server with
        # closeSessionTxn disabled) write nothing but may still append a TxnDigest.
        if cur.left == 0 or cur.left == DIGEST.size:
            return CloseSessionTxn(None)
        count = cur.read_length("paths2Delete", cur.limits.max_vector)
        if count < 0:
            return CloseSessionTxn(None)
        return CloseSessionTxn(tuple(cur.read_path() for _ in range(count)))
    if op == OpCode.setACL:
        path = cur.read_path()
        acl = cur.read_acls()
        return SetACLTxn(path, acl, cur.read_int("version"))
    if op == OpCode.createContainer:
        path = cur.read_path()
        data = cur.read_buffer("data")
        acl = cur.read_acls()
        return CreateContainerTxn(path, data, acl, cur.read_int("parentCVersion"))
    if op == OpCode.createTTL:
        path = cur.read_path()
        data = cur.read_buffer("data")
        acl = cur.read_acls()
        parent_cversion = cur.read_int("parentCVersion")
        return CreateTTLTxn(path, data, acl, parent_cversion, cur.read_long("ttl"))
    if op == OpCode.check:
        path = cur.read_path()
        return CheckVersionTxn(path, cur.read_int("version"))
    if op == OpCode.multi and not in_multi:
        count = cur.read_length("multi txns", cur.limits.max_vector)
        subs = []
        for _ in range(max(count, 0)):
            sub_op = cur.read_int("sub-txn type")
            sub_at = cur.base + cur.pos
            raw = cur.read_buffer("sub-txn data") or b""
            sub_cur = BytesCursor(raw, base=sub_at + 4, limits=cur.limits)
            try:
                record = decode_record(sub_op, sub_cur, in_multi=True)
                if sub_cur.left:
                    raise DecodeError(
                        IssueKind.bad_record,
                        sub_cur.base + sub_cur.pos,
                        f"{sub_cur.left} bytes left after the {op_name(sub_op)} sub-txn",
                    )
            except DecodeError as exc:
                record = UnknownTxn(sub_op, raw, exc.detail)
            subs.append(SubTxn(sub_op, record))
        return MultiTxn(tuple(subs))
    raw = cur.buf[cur.pos : cur.end]
    cur.pos = cur.end
    return UnknownTxn(op, raw, f"ZooKeeper does not log txns of type {op_name(op)}")


_INT_UNPACK = INT.unpack_from
_LONG_UNPACK = LONG.unpack_from


def _fast_string(buf: bytes, pos: int, end: int) -> tuple[str, int] | None:
    if pos + 4 > end:
        return None
    n: int = _INT_UNPACK(buf, pos)[0]
    pos += 4
    if n < 0 or pos + n > end:
        return None
    try:
        return buf[pos : pos + n].decode("utf-8"), pos + n
    except UnicodeDecodeError:
        return None


def _fast_buffer(buf: bytes, pos: int, end: int) -> tuple[bytes | None, int] | None:
    if pos + 4 > end:
        return None
    n: int = _INT_UNPACK(buf, pos)[0]
    pos += 4
    if n == -1:
        return None, pos
    if n < 0 or pos + n > end:
        return None
    return buf[pos : pos + n], pos + n


def _fast_acls(buf: bytes, pos: int, end: int) -> tuple[tuple[Acl, ...], int] | None:
    if pos + 4 > end:
        return None
    count: int = _INT_UNPACK(buf, pos)[0]
    pos += 4
    if count < 0 or count * 12 > end - pos:
        return None
    acls = []
    for _ in range(count):
        if pos + 4 > end:
            return None
        perms: int = _INT_UNPACK(buf, pos)[0]
        scheme = _fast_string(buf, pos + 4, end - 4)
        if scheme is None:
            return None
        ident = _fast_string(buf, scheme[1], end)
        if ident is None:
            return None
        acls.append(Acl(perms, scheme[0], ident[0]))
        pos = ident[1]
    return tuple(acls), pos


def decode_record_fast(op: int, buf: bytes, pos: int, end: int) -> tuple[TxnRecord, int] | None:
    """Decode the common txn records without per-field bounds bookkeeping.

    The hot path of log decoding. Any anomaly (short record, negative length, bad UTF-8, an
    uncommon type) gives None, and the caller re-decodes with ``decode_record``, which names
    the exact problem.

    Args:
        op: the txn type.
        buf: the buffer holding the record.
        pos: the record's start.
        end: the end of the entry payload.

    Returns:
        The record and the position after it, or None.
    """
    if end - pos < 4:
        return None
    if op == 5:  # setData
        path = _fast_string(buf, pos, end - 8)
        if path is None:
            return None
        data = _fast_buffer(buf, path[1], end - 4)
        if data is None:
            return None
        p = data[1]
        return SetDataTxn(path[0], data[0], _INT_UNPACK(buf, p)[0]), p + 4
    if op == 1 or op == 15:  # create, create2
        path = _fast_string(buf, pos, end - 8)
        if path is None:
            return None
        data = _fast_buffer(buf, path[1], end - 4)
        if data is None:
            return None
        acls = _fast_acls(buf, data[1], end)
        if acls is None:
            return None
        p = acls[1]
        if end - p < 5:
            return None
        flag = buf[p]
        return CreateTxn(path[0], data[0], acls[0], flag != 0, _INT_UNPACK(buf, p + 1)[0]), p + 5
    if op == 2:  # delete
        path = _fast_string(buf, pos, end)
        if path is None:
            return None
        return DeleteTxn(path[0]), path[1]
    if op == 14:  # multi
        count: int = _INT_UNPACK(buf, pos)[0]
        p = pos + 4
        if count < 0 or count * 8 > end - p:
            return None
        subs = []
        for _ in range(count):
            if end - p < 8:
                return None
            sub_op: int = _INT_UNPACK(buf, p)[0]
            n: int = _INT_UNPACK(buf, p + 4)[0]
            start = p + 8
            if n < 0 or start + n > end:
                return None
            sub = decode_record_fast(sub_op, buf, start, start + n) if sub_op != 14 else None
            if sub is None or sub[1] != start + n:
                if sub_op in (13, -1):  # check, error: tiny, decode them here
                    if sub_op == 13:
                        path = _fast_string(buf, start, start + n - 4)
                        if path is None or path[1] + 4 != start + n:
                            return None
                        record: TxnRecord = CheckVersionTxn(path[0], _INT_UNPACK(buf, path[1])[0])
                    else:
                        if n != 4:
                            return None
                        record = ErrorTxn(_INT_UNPACK(buf, start)[0])
                    subs.append(SubTxn(sub_op, record))
                    p = start + n
                    continue
                return None
            subs.append(SubTxn(sub_op, sub[0]))
            p = start + n
        return MultiTxn(tuple(subs)), p
    if op == -10:  # createSession
        return CreateSessionTxn(_INT_UNPACK(buf, pos)[0]), pos + 4
    if op == -1:  # error
        return ErrorTxn(_INT_UNPACK(buf, pos)[0]), pos + 4
    return None
