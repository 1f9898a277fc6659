"""A jute encoder that writes valid ZooKeeper snapshot and transaction-log bytes.

The mirror image of ``snapshot``/``txnlog``: ``encode_txn_entry`` frames one transaction
(checksum, length, header, record, optional digest, ``'B'``), ``txnlog_file_header`` and
``TXNLOG_PADDING`` build a log file, ``encode_snapshot`` a whole snapshot with its seal and
optional digest trailer. Tests use it for hand-built fixtures and damage cases, the benchmark
to generate large logs, demos to write small dataDirs without a server.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO

from kafkactl_core.zk.jute import (
    DIGEST,
    FILE_HEADER,
    HEADER,
    INT,
    LONG,
    OPEN_ACL_UNSAFE,
    SNAP_MAGIC,
    STAT,
    TXNLOG_MAGIC,
    Acl,
    CheckVersionTxn,
    CloseSessionTxn,
    CreateContainerTxn,
    CreateSessionTxn,
    CreateTTLTxn,
    CreateTxn,
    DeleteTxn,
    ErrorTxn,
    MultiTxn,
    OpCode,
    SetACLTxn,
    SetDataTxn,
    Stat,
    SubTxn,
    TxnDigest,
    TxnHeader,
    TxnRecord,
    UnknownTxn,
)

_BOOL = struct.Struct(">?")


def _int(value: int) -> bytes:
    return INT.pack(value)


def _long(value: int) -> bytes:
    return LONG.pack(value)


def _buffer(value: bytes | None) -> bytes:
    if value is None:
        return _int(-1)
    return _int(len(value)) + value


def _string(value: str | None) -> bytes:
    return _buffer(None if value is None else value.encode("utf-8"))


def _acls(acls: tuple[Acl, ...] | None) -> bytes:
    if acls is None:
        return _int(-1)
    return _int(len(acls)) + b"".join(
        _int(a.perms) + _string(a.scheme) + _string(a.id) for a in acls
    )


def encode_record(record: TxnRecord) -> bytes:
    """Serialize a txn record the way ZooKeeper does.

    Args:
        record: any txn record; None (a pre-3.6 closeSession) gives no bytes.

    Returns:
        The record's bytes.

    Raises:
        TypeError: for an unknown record type.
    """
    if record is None:
        return b""
    if isinstance(record, CreateTxn):
        body = _string(record.path) + _buffer(record.data) + _acls(record.acl)
        return body + _BOOL.pack(record.ephemeral) + _int(record.parent_cversion)
    if isinstance(record, SetDataTxn):
        version = -1 if record.version is None else record.version
        return _string(record.path) + _buffer(record.data) + _int(version)
    if isinstance(record, DeleteTxn):
        return _string(record.path)
    if isinstance(record, CreateSessionTxn):
        return _int(record.timeout)
    if isinstance(record, CloseSessionTxn):
        if record.paths is None:
            return b""
        return _int(len(record.paths)) + b"".join(_string(p) for p in record.paths)
    if isinstance(record, ErrorTxn):
        return _int(-1 if record.err is None else record.err)
    if isinstance(record, SetACLTxn):
        return _string(record.path) + _acls(record.acl) + _int(record.version)
    if isinstance(record, CreateContainerTxn):
        body = _string(record.path) + _buffer(record.data) + _acls(record.acl)
        return body + _int(record.parent_cversion)
    if isinstance(record, CreateTTLTxn):
        body = _string(record.path) + _buffer(record.data) + _acls(record.acl)
        return body + _int(record.parent_cversion) + _long(record.ttl)
    if isinstance(record, CheckVersionTxn):
        return _string(record.path) + _int(-1 if record.version is None else record.version)
    if isinstance(record, MultiTxn):
        return _int(len(record.txns)) + b"".join(
            _int(sub.type) + _buffer(encode_record(sub.record)) for sub in record.txns
        )
    if isinstance(record, UnknownTxn):
        return record.raw
    raise TypeError(f"cannot encode {type(record).__name__}")


def encode_txn_entry(
    header: TxnHeader, record: TxnRecord, digest: TxnDigest | None = None
) -> bytes:
    """One framed log entry: Adler32, length, payload, end-of-record byte.

    The payload, which the checksum covers, is the header, the record and the optional digest.

    Args:
        header: the txn header.
        record: the txn record.
        digest: a 3.6+ tree digest to append.

    Returns:
        The entry bytes.
    """
    payload = HEADER.pack(
        header.session_id, header.cxid, header.zxid, header.time, header.type
    ) + encode_record(record)
    if digest is not None:
        payload += DIGEST.pack(digest.version, digest.tree_digest)
    return _long(zlib.adler32(payload)) + _buffer(payload) + b"B"


def txnlog_file_header(dbid: int = 0, version: int = 2) -> bytes:
    """A transaction log's ``FileHeader`` (magic ``ZKLG``).

    Args:
        dbid: database id.
        version: format version.

    Returns:
        The 16 header bytes.
    """
    return FILE_HEADER.pack(TXNLOG_MAGIC, version, dbid)


TXNLOG_PADDING = bytes(4096)
"""Zero padding as ZooKeeper preallocates it after the last entry."""


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """A znode to write into a snapshot (parents must come before children)."""

    path: str
    data: bytes | None
    stat: Stat
    acl_ref: int = -1


def encode_snapshot(
    nodes: Iterable[NodeSpec],
    *,
    sessions: Iterable[tuple[int, int]] = (),
    acls: dict[int, tuple[Acl, ...]] | None = None,
    digest: tuple[int, int, int] | None = None,
    dbid: int = -1,
) -> bytes:
    """A complete snapshot: header, sessions, ACL cache, nodes, seal and optional digest.

    Args:
        nodes: znodes in depth-first order, starting with the root ``/``.
        sessions: (session id, timeout) pairs.
        acls: the ACL cache.
        digest: (zxid, digest version, digest) for the 3.6+ trailer (version >= 2).
        dbid: database id (ZooKeeper writes -1).

    Returns:
        The snapshot bytes.
    """
    session_list = list(sessions)
    parts = [FILE_HEADER.pack(SNAP_MAGIC, 2, dbid), _int(len(session_list))]
    parts.extend(_long(sid) + _int(timeout) for sid, timeout in session_list)
    cache = acls or {}
    parts.append(_int(len(cache)))
    parts.extend(_long(ref) + _acls(entries) for ref, entries in cache.items())
    for node in nodes:
        s = node.stat
        parts.append(_string("" if node.path == "/" else node.path))
        parts.append(_buffer(node.data))
        parts.append(_long(node.acl_ref))
        parts.append(
            STAT.pack(
                s.czxid,
                s.mzxid,
                s.ctime,
                s.mtime,
                s.version,
                s.cversion,
                s.aversion,
                s.ephemeral_owner,
                s.pzxid,
            )
        )
    parts.append(_string("/"))
    body = b"".join(parts)
    body += _long(zlib.adler32(body)) + _string("/")
    if digest is not None:
        zxid, version, value = digest
        body += _long(zxid) + _int(version) + _long(value)
        body += _long(zlib.adler32(body)) + _string("/")
    return body


def write_synthetic_txnlog(
    f: BinaryIO,
    target_bytes: int,
    *,
    first_zxid: int = 1,
    partitions: int = 200,
    session_id: int = 0x100000000000001,
    start_time: int = 1_700_000_000_000,
) -> tuple[int, int]:
    """Stream a Kafka-controller-like transaction log of about ``target_bytes`` into ``f``.

    Mostly partition-state setData (leader/ISR churn), every tenth txn an epoch-checked multi
    and every tenth an ISR change notification create, with 3.6+ digests and zero padding.
    Nothing is held in memory beyond one entry; for benchmarks and bounded-memory tests.

    Args:
        f: a binary file opened for writing.
        target_bytes: stop once the entries reach this size.
        first_zxid: zxid of the first entry.
        partitions: partitions of the one topic the churn runs on.
        session_id: the writing session.
        start_time: time of the first entry, ms.

    Returns:
        (entries written, last zxid).
    """
    f.write(txnlog_file_header())
    size = 16
    zxid = first_zxid
    count = 0
    versions = [0] * partitions
    while size < target_bytes:
        p = zxid % partitions
        path = f"/brokers/topics/orders/partitions/{p}/state"
        versions[p] += 1
        data = b'{"controller_epoch":7,"leader":%d,"version":1,"leader_epoch":%d,"isr":[%s]}' % (
            zxid % 3 + 1,
            versions[p],
            b"1,2,3" if zxid % 4 else b"1,2",
        )
        record: TxnRecord
        if zxid % 10 == 0:
            op = OpCode.multi
            record = MultiTxn(
                (
                    SubTxn(OpCode.check, CheckVersionTxn("/controller_epoch", 6)),
                    SubTxn(OpCode.setData, SetDataTxn(path, data, versions[p])),
                )
            )
        elif zxid % 10 == 1:
            op = OpCode.create
            notification = b'{"version":1,"partitions":[{"topic":"orders","partition":%d}]}' % p
            record = CreateTxn(
                f"/isr_change_notification/isr_change_{zxid:010d}",
                notification,
                OPEN_ACL_UNSAFE,
                False,
                zxid,
            )
        else:
            op = OpCode.setData
            record = SetDataTxn(path, data, versions[p])
        header = TxnHeader(session_id, count + 1, zxid, start_time + zxid, op)
        entry = encode_txn_entry(header, record, TxnDigest(2, zxid * 7919))
        f.write(entry)
        size += len(entry)
        zxid += 1
        count += 1
    f.write(TXNLOG_PADDING)
    return count, zxid - 1
