"""Transaction-log decoding: every txn type ZooKeeper logs, round-tripped through the encoder.

The encoder mirrors ZooKeeper's ``Util.marshallTxnEntry``/``writeTxnBytes``; the real-server
tests (``tests/zk``) check both against files written by ZooKeeper 3.8 itself.
"""

from __future__ import annotations

import io
import struct
import zlib

import pytest

from kafkactl_core.zk import jute
from kafkactl_core.zk.jute import (
    OPEN_ACL_UNSAFE,
    Acl,
    IssueKind,
    OpCode,
    SubTxn,
    TxnDigest,
    TxnHeader,
    UnknownTxn,
    op_code,
    op_name,
)
from kafkactl_core.zk.txnlog import decode_txnlog, read_txnlog
from kafkactl_lab.zk_encode import (
    TXNLOG_PADDING,
    encode_record,
    encode_txn_entry,
    txnlog_file_header,
)
from tests.core.zk_builders import txnlog

SESSION = 0x100000ABCDE0001
T0 = 1_700_000_000_123
STATE = b'{"controller_epoch":3,"leader":2,"version":1,"leader_epoch":7,"isr":[2,3]}'
STATE_PATH = "/brokers/topics/t/partitions/0/state"
ISR_CHANGE = "/isr_change_notification/isr_change_0000000001"

CASES = [
    (OpCode.createSession, jute.CreateSessionTxn(18000)),
    (OpCode.create, jute.CreateTxn("/brokers/ids/2", b'{"version":5}', OPEN_ACL_UNSAFE, True, 4)),
    (OpCode.create2, jute.CreateTxn("/brokers/topics/t", b"{}", OPEN_ACL_UNSAFE, False, 1)),
    (OpCode.createContainer, jute.CreateContainerTxn("/c", None, OPEN_ACL_UNSAFE, 2)),
    (OpCode.createTTL, jute.CreateTTLTxn("/ttl", b"x", (Acl(1, "digest", "u:h="),), 3, 60000)),
    (OpCode.setData, jute.SetDataTxn("/brokers/topics/t/partitions/0/state", STATE, 12)),
    (OpCode.reconfig, jute.SetDataTxn("/zookeeper/config", b"server.1=a:1:2", 3)),
    (
        OpCode.setACL,
        jute.SetACLTxn("/c", (Acl(31, "sasl", "kafka"), Acl(1, "world", "anyone")), 1),
    ),
    (OpCode.delete, jute.DeleteTxn("/admin/delete_topics/t")),
    (OpCode.deleteContainer, jute.DeleteTxn("/c")),
    (OpCode.error, jute.ErrorTxn(-110)),
    (OpCode.closeSession, jute.CloseSessionTxn(("/brokers/ids/2", "/controller"))),
    (OpCode.closeSession, jute.CloseSessionTxn(())),
    (
        OpCode.multi,
        jute.MultiTxn(
            (
                SubTxn(OpCode.check, jute.CheckVersionTxn("/controller_epoch", 4)),
                SubTxn(OpCode.setData, jute.SetDataTxn(STATE_PATH, STATE, 13)),
                SubTxn(OpCode.create, jute.CreateTxn(ISR_CHANGE, b"{}", OPEN_ACL_UNSAFE, False, 2)),
                SubTxn(OpCode.delete, jute.DeleteTxn("/admin/preferred_replica_election")),
            )
        ),
    ),
    (
        OpCode.multi,
        jute.MultiTxn(
            (
                SubTxn(OpCode.create, jute.CreateTxn("/b", b"", OPEN_ACL_UNSAFE, False, 3)),
                SubTxn(OpCode.error, jute.ErrorTxn(-101)),
            )
        ),
    ),
]


def log_bytes(entries, *, digest=True, padding=TXNLOG_PADDING):
    out = []
    for i, (op, record) in enumerate(entries, start=1):
        header = TxnHeader(SESSION, i, i, T0 + i, op)
        dig = TxnDigest(2, 1000 + i) if digest and op != OpCode.error else None
        out.append(encode_txn_entry(header, record, dig))
    return txnlog(out, padding)


@pytest.mark.parametrize("digest", [True, False])
def test_every_txn_type_round_trips(digest):
    data = log_bytes(CASES, digest=digest)
    entries, summary = decode_txnlog(io.BytesIO(data), "log.1")
    assert summary.error is None and summary.issues == ()
    assert summary.entries == len(CASES)
    assert (summary.first_zxid, summary.last_zxid, summary.name_zxid) == (1, len(CASES), 1)
    assert summary.version == 2 and summary.dbid == 0
    for entry, (i, (op, record)) in zip(entries, enumerate(CASES, start=1), strict=True):
        assert entry.header == TxnHeader(SESSION, i, i, T0 + i, op)
        assert entry.record == record
        assert entry.op == op_name(op)
        has_digest = digest and op != OpCode.error
        assert entry.digest == (TxnDigest(2, 1000 + i) if has_digest else None)
    assert entries[-1].record.failed and not entries[-2].record.failed


def test_offsets_point_at_entries():
    data = log_bytes(CASES)
    entries, summary = decode_txnlog(io.BytesIO(data), "log.1")
    offset = 16
    for entry in entries:
        assert entry.offset == offset
        crc, length = struct.unpack_from(">qi", data, offset)
        assert crc == zlib.adler32(data[offset + 12 : offset + 12 + length])
        assert entry.length == length
        offset += 12 + length + 1
    assert summary.end_offset == offset


def test_pre_36_close_session_and_create_v0():
    # closeSession without CloseSessionTxn (before 3.6), create without parentCVersion (< 3.3)
    v0 = encode_record(jute.CreateTxn("/old", b"x", OPEN_ACL_UNSAFE, False, 0))[:-4]
    data = txnlog_file_header()
    data += encode_txn_entry(TxnHeader(SESSION, 1, 1, T0, OpCode.closeSession), None)
    data += encode_txn_entry(TxnHeader(SESSION, 2, 2, T0, OpCode.create), UnknownTxn(1, v0, ""))
    entries, summary = decode_txnlog(io.BytesIO(data + TXNLOG_PADDING), "log.1")
    assert summary.issues == ()
    assert entries[0].record == jute.CloseSessionTxn(None)
    assert entries[1].record == jute.CreateTxn("/old", b"x", OPEN_ACL_UNSAFE, False, -1)


def test_unknown_type_is_kept_raw_and_decoding_goes_on():
    data = txnlog_file_header()
    data += encode_txn_entry(TxnHeader(SESSION, 1, 1, T0, 77), UnknownTxn(77, b"\x01\x02", ""))
    data += encode_txn_entry(TxnHeader(SESSION, 2, 2, T0, OpCode.delete), jute.DeleteTxn("/x"))
    entries, summary = decode_txnlog(io.BytesIO(data + TXNLOG_PADDING), "log.1")
    assert summary.error is None
    assert entries[0].record == UnknownTxn(
        77, b"\x01\x02", "ZooKeeper does not log txns of type unknown 77"
    )
    assert entries[1].record == jute.DeleteTxn("/x")


def test_undecodable_record_with_a_valid_checksum_is_a_non_fatal_issue():
    bad = struct.pack(">i", 2_000_000_000)  # setData whose path length is absurd
    data = txnlog_file_header()
    data += encode_txn_entry(TxnHeader(SESSION, 1, 1, T0, OpCode.setData), UnknownTxn(5, bad, ""))
    data += encode_txn_entry(TxnHeader(SESSION, 2, 2, T0, OpCode.delete), jute.DeleteTxn("/x"))
    entries, summary = decode_txnlog(io.BytesIO(data + TXNLOG_PADDING), "log.1")
    assert [e.zxid for e in entries] == [1, 2]
    assert isinstance(entries[0].record, UnknownTxn) and entries[0].record.raw == bad
    (issue,) = summary.issues
    assert issue.kind is IssueKind.bad_record and not issue.fatal
    assert issue.offset == 16 + 12 + 32  # the path length field inside the first entry
    assert summary.error is None


def test_log_without_padding_is_flagged_as_possibly_cut():
    data = log_bytes(CASES[:3], padding=b"")
    entries, summary = decode_txnlog(io.BytesIO(data), "log.1")
    assert len(entries) == 3 and summary.error is None
    (issue,) = summary.issues
    assert issue.kind is IssueKind.truncated and not issue.fatal and issue.offset == len(data)


def test_streaming_reader_reads_across_chunk_boundaries():
    data = log_bytes(CASES * 20)
    reader = read_txnlog(io.BytesIO(data), "log.1")
    reader._chunk = 64  # force many refills, entries straddling chunks
    assert [e.zxid for e in reader] == list(range(1, len(CASES) * 20 + 1))
    assert reader.summary.issues == ()


def test_op_names_match_zookeeper():
    assert op_name(OpCode.createTTL) == "createTtl"
    assert op_name(-11) == "closeSession" and op_name(42) == "unknown 42"
    assert op_code("createTtl") == OpCode.createTTL and op_code("unknown 42") == 42
    assert op_code("nonsense") is None
