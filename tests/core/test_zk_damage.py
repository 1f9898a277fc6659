"""Damaged input: each problem is a per-file error naming the file and byte offset, never a crash.

Truncation, a flipped byte (checksum mismatch), a file that is not ZooKeeper's, an absurd
length field, broken compression; for transaction logs every entry before the damage is kept.
"""

from __future__ import annotations

import gzip
import struct
import zlib

import pytest

from kafkactl_core.zk.jute import (
    OPEN_ACL_UNSAFE,
    CreateSessionTxn,
    CreateTxn,
    IssueKind,
    Limits,
    OpCode,
    SetDataTxn,
)
from kafkactl_core.zk.snappy import SnappyJavaReader, uncompress_block
from kafkactl_core.zk.snapshot import load_snapshot, read_snapshot
from kafkactl_core.zk.txnlog import decode_txnlog
from kafkactl_lab.zk_encode import (
    TXNLOG_PADDING,
    NodeSpec,
    encode_snapshot,
    txnlog_file_header,
)
from tests.core.zk_builders import T0, stat, txn_entry, txnlog

SESSION = 0x100000000000007


NODES = [
    NodeSpec("/", b"", stat(0)),
    NodeSpec("/brokers", b"", stat(1)),
    NodeSpec("/brokers/ids", b"", stat(2)),
    NodeSpec("/brokers/ids/1", b'{"version":5,"host":"a","port":9092}', stat(3, owner=SESSION)),
    NodeSpec("/controller_epoch", b"7", stat(4, version=6)),
]


def snapshot_bytes(digest=True):
    return encode_snapshot(
        NODES,
        sessions=[(SESSION, 18000)],
        acls={1: OPEN_ACL_UNSAFE},
        digest=(4, 2, 123456789) if digest else None,
    )


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def node_offset(data, path):
    return data.index(struct.pack(">i", len(path)) + path.encode())


def test_intact_snapshot_round_trips(tmp_path):
    snap = load_snapshot(write(tmp_path, "snapshot.4", snapshot_bytes()))
    assert snap.summary.complete and snap.summary.issues == ()
    assert [n.path for n in snap.nodes.values()] == [n.path for n in NODES]
    assert snap.summary.digest is not None and snap.summary.digest.digest == 123456789
    no_digest = load_snapshot(write(tmp_path, "snapshot.5", snapshot_bytes(digest=False)))
    assert no_digest.summary.complete and no_digest.summary.digest is None


@pytest.mark.parametrize("cut", [3, 17, 30, "mid-node", "before-seal", "inside-digest"])
def test_truncated_snapshot(tmp_path, cut):
    data = snapshot_bytes()
    if cut == "mid-node":
        cut = node_offset(data, "/brokers/ids/1") + 10
    elif cut == "before-seal":
        cut = data.index(b"\x00\x00\x00\x01/") + 5
    elif cut == "inside-digest":
        cut = len(data) - 14
    path = write(tmp_path, "snapshot.4", data[:cut])
    reader = read_snapshot(path)
    nodes = list(reader)
    err = reader.summary.error
    assert err is not None
    assert err.kind in (
        IssueKind.truncated,
        IssueKind.not_zookeeper if cut < 4 else IssueKind.truncated,
    )
    assert err.offset is not None and err.offset <= cut
    assert str(path) in str(err) and f"offset {err.offset}" in str(err)
    assert all(n.offset < cut for n in nodes)


def test_flipped_byte_in_node_data_is_a_checksum_mismatch(tmp_path):
    data = bytearray(snapshot_bytes())
    at = data.index(b'"host":"a"') + 8
    data[at] ^= 0x01
    reader = read_snapshot(write(tmp_path, "snapshot.4", bytes(data)))
    nodes = list(reader)
    assert len(nodes) == len(NODES)  # the damage is only noticed at the seal
    err = reader.summary.error
    assert err is not None and err.kind is IssueKind.checksum_mismatch
    # the seal (Adler32 long + "/") follows the "/" that ends the node list
    assert err.offset == bytes(data).index(b"\x00\x00\x00\x01/\x00") + 5
    assert reader.summary.checksum_ok is False and not reader.summary.complete


def test_flipped_byte_in_digest_trailer(tmp_path):
    data = bytearray(snapshot_bytes())
    data[-20] ^= 0x40
    reader = read_snapshot(write(tmp_path, "snapshot.4", bytes(data)))
    list(reader)
    err = reader.summary.error
    assert err is not None and err.kind is IssueKind.checksum_mismatch
    assert err.offset == len(data) - 13


def test_not_a_zookeeper_file(tmp_path):
    text = write(tmp_path, "snapshot.9", b"[2024-01-01 00:00:00] INFO not a snapshot\n")
    reader = read_snapshot(text)
    assert list(reader) == []
    err = reader.summary.error
    assert err is not None and err.kind is IssueKind.not_zookeeper and err.offset == 0
    log = write(tmp_path, "snapshot.a", txnlog_file_header() + TXNLOG_PADDING)
    reader = read_snapshot(log)
    list(reader)
    assert "transaction log" in reader.summary.error.detail
    _, summary = decode_txnlog(write(tmp_path, "log.1", snapshot_bytes()))
    assert summary.error.kind is IssueKind.not_zookeeper and "snapshot" in summary.error.detail
    _, summary = decode_txnlog(write(tmp_path, "log.2", b""))
    assert summary.error.kind is IssueKind.truncated and summary.error.offset == 0


def test_huge_length_fields_are_bounded(tmp_path):
    data = bytearray(snapshot_bytes())
    at = node_offset(bytes(data), "/brokers/ids/1")
    data[at : at + 4] = struct.pack(">i", 0x7FFFFFFF)
    reader = read_snapshot(write(tmp_path, "snapshot.4", bytes(data)))
    nodes = list(reader)
    err = reader.summary.error
    assert err is not None and err.kind is IssueKind.length_out_of_bounds
    assert err.offset == at and [n.path for n in nodes] == ["/", "/brokers", "/brokers/ids"]
    # The session count is bounded too, even with a file object of unknown size.
    data = bytearray(snapshot_bytes())
    data[16:20] = struct.pack(">i", 0x7FFFFFFF)
    reader = read_snapshot(
        write(tmp_path, "snapshot.5", bytes(data)), limits=Limits(max_sessions=1000)
    )
    list(reader)
    assert reader.summary.error.kind is IssueKind.length_out_of_bounds
    assert reader.summary.error.offset == 16


def test_compressed_snapshots(tmp_path):
    data = snapshot_bytes()
    snap = load_snapshot(write(tmp_path, "snapshot.4.gz", gzip.compress(data)))
    assert snap.summary.complete and len(snap.nodes) == len(NODES)
    truncated = load_snapshot(write(tmp_path, "snapshot.5.gz", gzip.compress(data)[:-30]))
    assert truncated.summary.error.kind is IssueKind.truncated
    assert "decompressed" in truncated.summary.error.detail
    fake = load_snapshot(write(tmp_path, "snapshot.6.gz", data))
    assert fake.summary.error.kind is IssueKind.decompression_error
    assert fake.summary.error.offset == 0


def snappy_literal_block(payload):
    # varint length, then literals of <= 60 bytes (tag = (len - 1) << 2)
    out = bytearray()
    n = len(payload)
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            break
    for i in range(0, len(payload), 60):
        piece = payload[i : i + 60]
        out.append((len(piece) - 1) << 2)
        out += piece
    return bytes(out)


def snappy_java(data, block=100):
    out = bytearray(b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1))
    for i in range(0, len(data), block):
        compressed = snappy_literal_block(data[i : i + block])
        out += struct.pack(">i", len(compressed)) + compressed
    return bytes(out)


def test_snappy_blocks_with_copies():
    # literal "abc"; copy-1 offset 3 length 9 (overlapping); copy-2 offset 6 length 4
    literal = bytes([2 << 2]) + b"abc"
    copy1 = bytes([0x01 | (5 << 2), 3])
    copy2 = bytes([0x02 | (3 << 2), 6, 0])
    assert uncompress_block(bytes([16]) + literal + copy1 + copy2) == b"abcabcabcabcabca"
    with pytest.raises(ValueError, match="past its declared length"):
        uncompress_block(bytes([12]) + literal + copy1 + copy2)
    with pytest.raises(ValueError, match="outside"):
        uncompress_block(bytes([9, 0x01 | (1 << 2), 9]))  # a copy before any literal


def test_snappy_snapshot(tmp_path):
    data = snapshot_bytes()
    snap = load_snapshot(write(tmp_path, "snapshot.4.snappy", snappy_java(data)))
    assert snap.summary.complete and len(snap.nodes) == len(NODES)
    damaged = bytearray(snappy_java(data))
    damaged[16:20] = struct.pack(">i", -5)
    bad = load_snapshot(write(tmp_path, "snapshot.5.snappy", bytes(damaged)))
    assert bad.summary.error.kind is IssueKind.decompression_error
    assert "snapshot.5.snappy" in str(bad.summary.error)
    assert SnappyJavaReader(_Bytes(snappy_java(b"xyz" * 50))).read() == b"xyz" * 50


class _Bytes:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def read(self, n=-1):
        n = len(self.data) - self.pos if n < 0 else n
        chunk = self.data[self.pos : self.pos + n]
        self.pos += len(chunk)
        return chunk


# ---- transaction logs ----

STATE = b'{"controller_epoch":1,"leader":%d,"version":1,"leader_epoch":%d,"isr":[1,2]}'


def log_entries(n=10):
    out = []
    for i in range(1, n + 1):
        if i == 1:
            op, record = OpCode.createSession, CreateSessionTxn(6000)
        elif i == 2:
            op, record = OpCode.create, CreateTxn("/s", STATE % (1, 0), OPEN_ACL_UNSAFE, False, 1)
        else:
            op, record = OpCode.setData, SetDataTxn("/s", STATE % (i % 2 + 1, i), i - 2)
        out.append(txn_entry(SESSION, i, i, T0 + i, op, record))
    return out


def offsets(entries):
    pos, out = 16, []
    for e in entries:
        out.append(pos)
        pos += len(e)
    return out


# A cut inside the checksum's four leading zero bytes looks like padding: no file-level check
# can see it (ZooKeeper itself stops there silently); the dataDir replay reports the zxid gap.
@pytest.mark.parametrize("inside", [5, 11, 40])
def test_truncated_log_keeps_every_entry_before_the_damage(tmp_path, inside):
    entries = log_entries()
    starts = offsets(entries)
    cut = starts[6] + inside
    path = write(tmp_path, "log.1", txnlog(entries)[:cut])
    decoded, summary = decode_txnlog(path)
    assert [e.zxid for e in decoded] == [1, 2, 3, 4, 5, 6]
    err = summary.error
    assert err is not None and err.kind is IssueKind.truncated
    assert err.offset == starts[6] and summary.end_offset == starts[6]
    assert str(path) in str(err) and f"offset {starts[6]}" in str(err)


def test_truncated_log_from_a_stream_of_unknown_size(tmp_path):
    entries = log_entries()
    starts = offsets(entries)
    with open(write(tmp_path, "log.1", txnlog(entries)[: starts[4] + 20]), "rb") as f:
        decoded, summary = decode_txnlog(_Bytes(f.read()), "copied/log.1")
    assert len(decoded) == 4 and summary.error.kind is IssueKind.truncated
    assert summary.error.offset == starts[4] and summary.error.file == "copied/log.1"


def test_flipped_byte_in_an_entry_is_a_checksum_mismatch(tmp_path):
    entries = log_entries()
    starts = offsets(entries)
    data = bytearray(txnlog(entries))
    data[starts[3] + 60] ^= 0x10
    decoded, summary = decode_txnlog(write(tmp_path, "log.1", bytes(data)))
    assert [e.zxid for e in decoded] == [1, 2, 3]
    err = summary.error
    assert err.kind is IssueKind.checksum_mismatch and err.offset == starts[3]
    assert "Adler32" in err.detail


def test_huge_entry_length(tmp_path):
    entries = log_entries()
    starts = offsets(entries)
    data = bytearray(txnlog(entries))
    data[starts[2] + 8 : starts[2] + 12] = struct.pack(">i", 0x7FFFFFF0)
    decoded, summary = decode_txnlog(write(tmp_path, "log.1", bytes(data)))
    assert len(decoded) == 2
    assert (
        summary.error.kind is IssueKind.length_out_of_bounds and summary.error.offset == starts[2]
    )
    data[starts[2] + 8 : starts[2] + 12] = struct.pack(">i", -7)
    _, summary = decode_txnlog(write(tmp_path, "log.2", bytes(data)))
    assert summary.error.kind is IssueKind.length_out_of_bounds


def test_missing_end_of_record_byte(tmp_path):
    entries = log_entries()
    starts = offsets(entries)
    data = bytearray(txnlog(entries))
    data[starts[5] - 1] = 0x41
    decoded, summary = decode_txnlog(write(tmp_path, "log.1", bytes(data)))
    assert len(decoded) == 4
    assert summary.error.kind is IssueKind.bad_end_marker and summary.error.offset == starts[4]


def test_non_zero_bytes_in_the_padding(tmp_path):
    entries = log_entries()
    data = bytearray(txnlog(entries, padding=bytes(100_000)))
    hidden = len(data) - 5000
    data[hidden] = 0x7F
    decoded, summary = decode_txnlog(write(tmp_path, "log.1", bytes(data)))
    assert len(decoded) == 10
    assert summary.error.kind is IssueKind.bad_end_marker and summary.error.offset == hidden


def test_crc_field_is_compared_as_written():
    # ZooKeeper writes Adler32 as a long; a value with high bits set cannot match.
    entry = bytearray(log_entries(1)[0])
    entry[0:8] = struct.pack(">q", zlib.adler32(bytes(entry[12:-1])) | (1 << 40))
    _, summary = decode_txnlog(_Bytes(txnlog_file_header() + bytes(entry)), "log.1")
    assert summary.error.kind is IssueKind.checksum_mismatch
