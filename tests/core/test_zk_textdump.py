"""ZooKeeper's text dumps parsed into the same records as the binary decoders, without a JVM.

``tests/fixtures/zk/real-3.8`` holds files written by Debian's ZooKeeper 3.8 and the output of
its ``SnapshotFormatter -d``/``TxnLogToolkit -d`` on them (``tests/zk/make_fixtures.py``): the
multi sub-txns there are printed as raw bytes with mangled lengths and versions (10, 11, 13:
LF, VT, CR) that the parser has to recover.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from kafkactl_core.zk.jute import (
    CreateTxn,
    ErrorTxn,
    IssueKind,
    MultiTxn,
    OpCode,
    SetACLTxn,
    SetDataTxn,
)
from kafkactl_core.zk.snapshot import load_snapshot
from kafkactl_core.zk.textdump import (
    parse_java_date,
    parse_snapshot_dump,
    parse_toolkit_date,
    parse_txnlog_dump,
    zone_offset_minutes,
)
from kafkactl_core.zk.txnlog import decode_txnlog
from tests.core.zk_builders import without_null_data

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "zk" / "real-3.8"
LOGS = sorted(p for p in REAL.glob("log.*") if not p.name.endswith(".txt"))
SNAPSHOTS = sorted(p for p in REAL.glob("snapshot.*") if not p.name.endswith(".txt"))


def read_text(path):
    return path.read_bytes().decode("utf-8")  # no newline translation: raw CR bytes matter


def test_fixtures_are_present():
    assert len(LOGS) >= 2 and len(SNAPSHOTS) >= 2


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_toolkit_dump_gives_the_binary_entries(log):
    entries, summary = decode_txnlog(log)
    assert summary.issues == ()
    dump = parse_txnlog_dump(read_text(log.with_name(log.name + ".toolkit.txt")), log.name)
    assert dump.summary.issues == () and (dump.version, dump.dbid) == (2, 0)
    assert len(dump.entries) == len(entries)
    for ours, text in zip(entries, dump.entries, strict=True):
        assert dataclasses.replace(ours.header, time=ours.header.time // 1000 * 1000) == text.header
        if ours.zxid in dump.lossy:
            # the error code of a failed multi is printed as U+FFFD: unknown, never guessed
            assert isinstance(text.record, MultiTxn) and text.record.failed
            assert [s.type for s in text.record.txns] == [s.type for s in ours.record.txns]
            assert text.record.txns[-1].record == ErrorTxn(None)
        else:
            assert without_null_data(ours.record) == without_null_data(text.record), ours.zxid


def test_mangled_multi_sub_txns_are_recovered():
    entries = [e for log in LOGS for e in decode_txnlog(log)[0]]
    text = [
        e
        for log in LOGS
        for e in parse_txnlog_dump(read_text(log.with_name(log.name + ".toolkit.txt"))).entries
    ]
    versions = [
        (t.record.txns[1].record.version, len(t.record.txns[1].record.data))
        for t in text
        if isinstance(t.record, MultiTxn) and not t.record.failed
    ]
    # data lengths over 127 and the versions 10 (LF), 11 (VT), 13 (CR) all came back
    assert [v for v, _ in versions] == list(range(1, 15))
    assert all(n > 127 for _, n in versions)
    kinds = {type(e.record) for e in entries}
    assert {CreateTxn, SetACLTxn, MultiTxn, ErrorTxn, SetDataTxn} <= kinds


@pytest.mark.parametrize("snap", SNAPSHOTS, ids=lambda p: p.name)
def test_formatter_dump_gives_the_binary_nodes(snap):
    ours = load_snapshot(snap)
    assert ours.summary.complete
    dump = parse_snapshot_dump(read_text(snap.with_name(snap.name + ".formatter.txt")), snap.name)
    assert dump.summary.issues == () and dump.data_included
    assert dump.sessions == ours.sessions
    assert list(dump.nodes) != [] and set(dump.nodes) == set(ours.nodes)
    for path, node in ours.nodes.items():
        text = dump.nodes[path]
        assert (text.data or b"") == (node.data or b"")
        expected = dataclasses.replace(
            node.stat, ctime=node.stat.ctime // 1000 * 1000, mtime=node.stat.mtime // 1000 * 1000
        )
        assert text.stat == expected, path


def test_crlf_saved_dumps_and_line_iterables():
    log = LOGS[0]
    text = read_text(log.with_name(log.name + ".toolkit.txt"))
    plain = parse_txnlog_dump(text)
    crlf = parse_txnlog_dump(text.replace("\n", "\r\n"))
    assert crlf.entries == plain.entries
    with log.with_name(log.name + ".toolkit.txt").open(newline="\n") as f:
        assert parse_txnlog_dump(f).entries == plain.entries


def test_not_a_dump():
    dump = parse_txnlog_dump("2024-01-01 INFO something else\nmore\n", "server.log")
    (issue,) = dump.summary.issues
    assert issue.kind is IssueKind.not_zookeeper and issue.offset == 1 and issue.fatal
    assert "server.log" in str(issue)
    snap = parse_snapshot_dump("hello\n", "x.txt")
    assert snap.summary.issues[0].kind is IssueKind.not_zookeeper
    assert parse_snapshot_dump("", "empty.txt").summary.issues[0].kind is IssueKind.not_zookeeper


def test_damaged_lines_are_reported_and_the_rest_kept():
    text = (
        "ZooKeeper Transactional Log File with dbid 0 txnlog format version 2\n"
        "11/21/26, 6:34:40 AM UTC session 0x1 cxid 0x0 zxid 0x1 createSession 10000\n"
        "11/21/26, 6:34:40 AM UTC session 0x1 cxid 0x1 zxid 0x2 setData /a,x,notanumber\n"
        "11/21/26, 6:34:40 AM XYZT session 0x1 cxid 0x2 zxid 0x3 delete '/a\n"
        "CRC ERROR - 11/21/26, 6:34:40 AM UTC session 0x1 cxid 0x3 zxid 0x4 error -101\n"
        "11/21/26, 6:34:40 AM UTC session 0x1 cxid 0x3 zxid 0x4 error -101\n"
        "EOF reached after 4 txns.\n"
    )
    dump = parse_txnlog_dump(text, "dump.txt")
    assert [e.zxid for e in dump.entries] == [1, 2, 3, 4]
    assert dump.entries[1].record.__class__.__name__ == "UnknownTxn" and 2 in dump.lossy
    assert dump.entries[2].header.time == -1  # unknown zone: not guessed
    kinds = [(i.offset, i.kind) for i in dump.summary.issues]
    assert kinds == [(4, IssueKind.unparsable_text), (5, IssueKind.checksum_mismatch)]
    assert dump.entries[3].record == ErrorTxn(-101) and dump.entries[3].header.type == OpCode.error


def test_snapshot_dump_without_data():
    text = (
        "ZNode Details (count=2):\n----\n/\n  cZxid = 0x00000000000000\n"
        "  ctime = Thu Jan 01 00:00:00 UTC 1970\n  mZxid = 0x00000000000000\n"
        "  mtime = Thu Jan 01 00:00:00 UTC 1970\n  pZxid = 0x00000000000000\n  cversion = 0\n"
        "  dataVersion = 0\n  aclVersion = 0\n  ephemeralOwner = 0x00000000000000\n"
        "  dataLength = 0\n----\nSession Details (sid, timeout, ephemeralCount):\n----\n"
        "Last zxid: 0x5\n"
    )
    dump = parse_snapshot_dump(text, "s.txt")
    assert not dump.data_included and dump.nodes["/"].data is None and dump.summary.zxid == 5
    assert [i.kind for i in dump.summary.issues] == [IssueKind.unparsable_text]
    assert "without -d" in dump.summary.issues[0].detail


def test_dates():
    assert parse_java_date("Thu Mar 31 16:03:54 UTC 2022") == 1648742634000
    assert parse_java_date("Thu Mar 31 18:03:54 CEST 2022") == 1648742634000
    assert parse_java_date("Thu Mar 31 16:03:54 IST 2022") is None  # ambiguous zone
    assert parse_toolkit_date("3/31/22, 4:03:54 PM UTC") == 1648742634000
    assert parse_toolkit_date("3/31/22, 4:03:54\u202fPM GMT+02:00") == 1648742634000 - 7200_000
    assert parse_toolkit_date("31.03.22, 16:03:54 UTC") is None
    assert zone_offset_minutes("GMT-05:30") == -330 and zone_offset_minutes("Mars") is None


def test_a_datadir_of_dumps_gives_the_same_rows(tmp_path):
    from kafkactl_core.zk.datadir import decode_datadir

    binary = decode_datadir([REAL / p.name for p in [*SNAPSHOTS, *LOGS]])
    dumps = [REAL / (p.name + ".formatter.txt") for p in SNAPSHOTS]
    dumps += [REAL / (p.name + ".toolkit.txt") for p in LOGS]
    text = decode_datadir(dumps)
    assert binary.issues == [] and binary.ignored == []
    lossy = [i for i in text.issues if i.kind is not IssueKind.unparsable_text]
    assert lossy == [] and text.ignored == [] and len(text.dumps) == len(dumps)

    def key(change):
        return (
            change.zxid,
            change.multi_index,
            change.op,
            change.path,
            change.data_version,
            change.record,
            change.cause,
        )

    assert [key(c) for c in text.changes] == [key(c) for c in binary.changes]
    assert [c.time // 1000 * 1000 for c in binary.changes] == [c.time for c in text.changes]
    assert [(i.broker_id, i.end_cause) for i in text.liveness] == [
        (i.broker_id, i.end_cause) for i in binary.liveness
    ]
    # the formatter prints children in hash-set order: compare as sets of rows
    assert sorted((r.snapshot_zxid, r.path, r.record) for r in text.state) == sorted(
        (r.snapshot_zxid, r.path, r.record) for r in binary.state
    )
