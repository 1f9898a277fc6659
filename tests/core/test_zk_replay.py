"""The state model: snapshot state rows, txn replay with ZooKeeper's rules, change rows, liveness.

Scenario (hand-built with the encoder): a snapshot at zxid 0x10 with broker 1 registered and
topic ``orders`` led by broker 1, then a log where broker 2 registers, leadership moves, the
ISR shrinks and expands inside a multi, a failed multi changes nothing, broker 1's session
expires, broker 2 shuts down cleanly (a pre-3.6 closeSession without paths) and the topic is
deleted through ``/admin/delete_topics``.
"""

from __future__ import annotations

import itertools

import pytest

from kafkactl_core.zk.datadir import decode_datadir, find_data_files
from kafkactl_core.zk.files import FileKind
from kafkactl_core.zk.jute import (
    OPEN_ACL_UNSAFE,
    CheckVersionTxn,
    CloseSessionTxn,
    CreateSessionTxn,
    CreateTxn,
    DeleteTxn,
    ErrorTxn,
    IssueKind,
    MultiTxn,
    OpCode,
    SetDataTxn,
    SubTxn,
    TxnHeader,
)
from kafkactl_core.zk.snapshot import load_snapshot
from kafkactl_core.zk.state import ChangeCause, KafkaReplay, ZkTree, broker_liveness, state_rows
from kafkactl_core.zk.txnlog import decode_txnlog
from kafkactl_core.zk.znodes import BrokerRegistration, PartitionStateRecord, ZNodeKind
from kafkactl_lab.zk_encode import (
    TXNLOG_PADDING,
    NodeSpec,
    encode_snapshot,
    txnlog_file_header,
)
from tests.core.zk_builders import T0, broker_json, partition_state_json, stat, txn_entry, txnlog

S1, S2, ADMIN = 0x100000000000001, 0x100000000000002, 0x100000000000003
BASE = 0x10
STATE = "/brokers/topics/orders/partitions/0/state"
TOPIC = "/brokers/topics/orders"


OPEN = OPEN_ACL_UNSAFE
BASE_NODES = [
    NodeSpec("/", b"", stat(0, cversion=3, pzxid=0xB)),
    NodeSpec("/zookeeper", b"", stat(0)),
    NodeSpec("/brokers", b"", stat(1, cversion=2)),
    NodeSpec("/brokers/ids", b"", stat(2, cversion=1, pzxid=0xA)),
    NodeSpec("/brokers/ids/1", broker_json(1), stat(0xA, owner=S1)),
    NodeSpec("/brokers/topics", b"", stat(3, cversion=1)),
    NodeSpec(TOPIC, b'{"version":3,"partitions":{"0":[1,2]},"topic_id":"AAAA"}', stat(4)),
    NodeSpec(TOPIC + "/partitions", b"", stat(5, cversion=1)),
    NodeSpec(TOPIC + "/partitions/0", b"", stat(6, cversion=1)),
    NodeSpec(STATE, partition_state_json(1, 0, [1, 2]), stat(7)),
    NodeSpec("/admin", b"", stat(8, cversion=0)),
    NodeSpec("/admin/delete_topics", b"", stat(9)),
    NodeSpec("/controller_epoch", b"1", stat(0xB)),
]

TXNS = [
    (S2, 0, OpCode.createSession, CreateSessionTxn(6000)),
    (S2, 1, OpCode.create, CreateTxn("/brokers/ids/2", broker_json(2), OPEN_ACL_UNSAFE, True, 2)),
    (ADMIN, 1, OpCode.setData, SetDataTxn(STATE, partition_state_json(2, 1, [2]), 1)),
    (
        ADMIN,
        2,
        OpCode.multi,
        MultiTxn(
            (
                SubTxn(OpCode.check, CheckVersionTxn("/controller_epoch", 0)),
                SubTxn(OpCode.setData, SetDataTxn(STATE, partition_state_json(2, 1, [2, 1]), 2)),
                SubTxn(OpCode.create, CreateTxn("/isr_change_notification", b"", OPEN, False, 4)),
            )
        ),
    ),
    (
        ADMIN,
        3,
        OpCode.multi,
        MultiTxn(
            (
                SubTxn(OpCode.setData, SetDataTxn(STATE, partition_state_json(9, 9, [9]), 3)),
                SubTxn(OpCode.error, ErrorTxn(-103)),
            )
        ),
    ),
    (S1, 0, OpCode.closeSession, CloseSessionTxn(("/brokers/ids/1",))),
    (S2, 7, OpCode.closeSession, None),
    (ADMIN, 4, OpCode.create, CreateTxn("/admin/delete_topics/orders", None, OPEN, False, 1)),
    (ADMIN, 5, OpCode.delete, DeleteTxn(STATE)),
    (ADMIN, 6, OpCode.delete, DeleteTxn(TOPIC + "/partitions/0")),
    (ADMIN, 7, OpCode.delete, DeleteTxn(TOPIC + "/partitions")),
    (ADMIN, 8, OpCode.delete, DeleteTxn(TOPIC)),
    (ADMIN, 9, OpCode.delete, DeleteTxn("/admin/delete_topics/orders")),
    (ADMIN, 10, OpCode.error, ErrorTxn(-101)),
]


def entry_bytes(first_zxid, txns):
    out = []
    for i, (session, cxid, op, record) in enumerate(txns):
        zxid = first_zxid + i
        out.append(txn_entry(session, cxid, zxid, T0 + zxid, op, record, digest=op != OpCode.error))
    return out


def write_datadir(tmp_path, txns=TXNS, split=None, drop_middle=False):
    d = tmp_path / "version-2"
    d.mkdir()
    (d / f"snapshot.{BASE:x}").write_bytes(
        encode_snapshot(BASE_NODES, sessions=[(S1, 6000), (ADMIN, 6000)], digest=(BASE, 2, 1))
    )
    entries = entry_bytes(BASE + 1, txns)
    cuts = [0, *(split or []), len(entries)]
    for n, (a, b) in enumerate(itertools.pairwise(cuts)):
        if drop_middle and n == 1:
            continue
        (d / f"log.{BASE + 1 + a:x}").write_bytes(txnlog(entries[a:b]))
    return d


@pytest.fixture
def replayed(tmp_path):
    d = write_datadir(tmp_path)
    snap = load_snapshot(d / f"snapshot.{BASE:x}")
    tree = ZkTree.from_snapshot(snap)
    replay = KafkaReplay(tree)
    entries, summary = decode_txnlog(d / f"log.{BASE + 1:x}")
    assert summary.error is None
    changes = [c for e in entries for c in replay.apply(e, "log")]
    return snap, tree, changes


def test_state_rows_of_the_base_snapshot(replayed):
    snap, _, _ = replayed
    rows = {r.path: r for r in state_rows(snap)}
    assert set(rows) == {"/brokers/ids/1", TOPIC, STATE, "/controller_epoch"}
    state = rows[STATE].record
    assert isinstance(state, PartitionStateRecord) and state.leader == 1 and state.zk_version == 0
    assert rows["/brokers/ids/1"].ephemeral_owner == S1 and rows["/brokers/ids/1"].czxid == 0xA


def test_partition_state_history(replayed):
    _, _, changes = replayed
    history = [
        (c.zxid - BASE, c.op, c.multi_index, c.data_version, c.record.leader, c.record.isr)
        for c in changes
        if c.kind is ZNodeKind.partition_state and c.record is not None
    ]
    # the failed multi (zxid +5) is absent: ZooKeeper applied none of its ops
    assert history == [(3, "setData", None, 1, 2, (2,)), (4, "setData", 1, 2, 2, (2, 1))]
    shrink = next(c for c in changes if c.zxid == BASE + 3)
    assert shrink.previous.leader == 1 and shrink.previous.zk_version == 0
    assert shrink.record.zk_version == 1 and shrink.time == T0 + BASE + 3
    assert shrink.to_row()["leader"] == 2 and shrink.to_row()["isr"] == [2]
    deleted = next(c for c in changes if c.kind is ZNodeKind.partition_state and c.op == "delete")
    assert deleted.record is None and deleted.previous.isr == (2, 1)
    assert deleted.previous.zk_version == 2 and deleted.data_version is None


def test_sessions_ephemerals_and_causes(replayed):
    _, tree, changes = replayed
    brokers = [
        (c.zxid - BASE, c.op, c.broker_id, c.cause) for c in changes if c.kind is ZNodeKind.broker
    ]
    assert brokers == [
        (2, "create", 2, ChangeCause.write),
        (6, "delete", 1, ChangeCause.session_expired),  # cxid 0: the server expired it
        (7, "delete", 2, ChangeCause.session_closed),  # from the tree: no paths in the txn
    ]
    sessions = [(c.zxid - BASE, c.op, c.session_id, c.cause) for c in changes if c.kind is None]
    assert sessions == [
        (1, "createSession", S2, ChangeCause.write),
        (6, "closeSession", S1, ChangeCause.session_expired),
        (7, "closeSession", S2, ChangeCause.session_closed),
    ]
    assert next(c for c in changes if c.op == "createSession").session_timeout == 6000
    assert S1 not in tree.sessions and S2 not in tree.sessions and ADMIN in tree.sessions


def test_topic_deletion_and_tree_stats(replayed):
    _, tree, changes = replayed
    kinds = [(c.op, c.kind) for c in changes if c.kind in (ZNodeKind.topic, ZNodeKind.delete_topic)]
    assert kinds == [
        ("create", ZNodeKind.delete_topic),
        ("delete", ZNodeKind.topic),
        ("delete", ZNodeKind.delete_topic),
    ]
    assert TOPIC not in tree.nodes and "/admin/delete_topics/orders" not in tree.nodes
    ids = tree.get("/brokers/ids")
    # create of /brokers/ids/2 set cversion from the txn (2) and pzxid; the ephemeral deletes
    # moved pzxid only (DataTree.deleteNode)
    assert ids.stat.cversion == 2 and ids.stat.pzxid == BASE + 7
    assert tree.get("/isr_change_notification").stat.czxid == BASE + 4
    assert tree.get("/").stat.cversion == 4 and tree.zxid == BASE + len(TXNS)


def test_broker_liveness(replayed):
    snap, _, changes = replayed
    intervals = broker_liveness(state_rows(snap), changes, BASE)
    got = [(i.broker_id, i.session_id, i.start_zxid, i.end_zxid, i.end_cause) for i in intervals]
    assert got == [
        (1, S1, 0xA, BASE + 6, ChangeCause.session_expired),
        (2, S2, BASE + 2, BASE + 7, ChangeCause.session_closed),
    ]
    assert isinstance(intervals[1].registration, BrokerRegistration)
    assert intervals[1].start_time == T0 + BASE + 2 and intervals[1].end_time == T0 + BASE + 7


def test_without_a_base_the_txn_alone_still_gives_versions(tmp_path):
    d = write_datadir(tmp_path)
    entries, _ = decode_txnlog(d / f"log.{BASE + 1:x}")
    replay = KafkaReplay(None)
    changes = [c for e in entries for c in replay.apply(e, "log")]
    states = [
        (c.op, c.data_version, c.previous) for c in changes if c.kind is ZNodeKind.partition_state
    ]
    assert states == [("setData", 1, None), ("setData", 2, None), ("delete", None, None)]
    # no tree: a pre-3.6 closeSession has no paths, only the session row remains ...
    assert [c.broker_id for c in changes if c.kind is ZNodeKind.broker and c.op == "delete"] == [1]
    # ... and liveness still closes broker 2's interval through its session
    intervals = broker_liveness([], changes)
    assert [(i.broker_id, i.end_cause) for i in intervals] == [
        (1, ChangeCause.session_expired),
        (2, ChangeCause.session_closed),
    ]
    assert intervals[0].start_zxid is None  # registered before the data starts: unknown


def test_decode_datadir_end_to_end(tmp_path):
    d = write_datadir(tmp_path, split=[5, 9])
    (tmp_path / "version-2" / "README.txt").write_text("copied from zk-0\n")
    result = decode_datadir([tmp_path])
    assert result.issues == []
    assert result.base_zxid == BASE and result.chroot == ""
    assert [s.zxid for s in result.snapshots] == [BASE]
    assert [summary.name_zxid for summary in result.logs] == [BASE + 1, BASE + 6, BASE + 10]
    assert result.ignored == [str(d / "README.txt")]
    assert len(result.state) == 4
    assert [c.zxid for c in result.changes] == sorted(c.zxid for c in result.changes)
    assert [(i.broker_id, i.end_cause) for i in result.liveness] == [
        (1, ChangeCause.session_expired),
        (2, ChangeCause.session_closed),
    ]


def test_damaged_log_keeps_the_entries_before_it_and_the_other_files(tmp_path):
    d = write_datadir(tmp_path, split=[5, 9])
    middle = d / f"log.{BASE + 6:x}"
    data = bytearray(middle.read_bytes())
    second = 16 + int.from_bytes(data[16 + 8 : 16 + 12], "big") + 13
    data[second + 40] ^= 0xFF  # damage the second entry of the middle log
    middle.write_bytes(bytes(data))
    result = decode_datadir([d])
    errors = [(i.file, i.kind, i.offset) for i in result.issues if i.fatal]
    assert errors == [(str(middle), IssueKind.checksum_mismatch, second)]
    zxids = {c.zxid for c in result.changes}
    assert BASE + 6 in zxids and BASE + 7 not in zxids  # first entry of the damaged log kept
    assert BASE + 12 in zxids  # the log after it is still replayed ...
    (gap,) = [i for i in result.issues if "missing" in i.detail]
    assert f"{BASE + 7:#x}..{BASE + 9:#x}" in gap.detail  # ... and the hole is reported
    assert gap.file == str(d / f"log.{BASE + 10:x}") and not gap.fatal


def test_missing_log_is_a_zxid_gap(tmp_path):
    d = write_datadir(tmp_path, split=[5, 9], drop_middle=True)
    result = decode_datadir([d])
    (gap,) = [i for i in result.issues if "missing" in i.detail]
    assert gap.file.endswith(f"log.{BASE + 10:x}") and gap.offset == 16 and not gap.fatal
    assert f"{BASE + 6:#x}..{BASE + 9:#x}" in gap.detail and "stale" in gap.detail
    assert max(c.zxid for c in result.changes) == BASE + len(TXNS) - 1


def test_a_snapshot_inside_a_gap_rebases_the_tree(tmp_path):
    d = write_datadir(tmp_path, split=[5, 9], drop_middle=True)
    # the state after BASE + 9, as ZooKeeper would have snapshotted it
    tree = ZkTree.from_snapshot(load_snapshot(d / f"snapshot.{BASE:x}"))
    for e in decode_txnlog(d / f"log.{BASE + 1:x}")[0]:
        tree.apply(e.header, e.record)
    for i, (session, cxid, op, record) in enumerate(TXNS[5:9], start=BASE + 6):
        tree.apply(TxnHeader(session, cxid, i, T0 + i, op), record)
    view = tree.snapshot_view()
    nodes = [NodeSpec(p, view[p].data, view[p].stat) for p in sorted(view)]
    (d / f"snapshot.{BASE + 9:x}").write_bytes(encode_snapshot(nodes, sessions=[(ADMIN, 6000)]))
    result = decode_datadir([d])
    (gap,) = [i for i in result.issues if "missing" in i.detail]
    assert f"re-based on {d / f'snapshot.{BASE + 9:x}'}" in gap.detail
    topic_delete = next(c for c in result.changes if c.kind is ZNodeKind.topic)
    assert topic_delete.zxid == BASE + 12 and topic_delete.previous is not None
    assert result.tree.get(TOPIC) is None and result.tree.zxid == BASE + len(TXNS)


def test_fuzzy_snapshot_replay(tmp_path):
    # The snapshot is named 0x10 but already holds /brokers/ids/2 created at 0x12 (fuzzy):
    # replaying the create is a no-op for the tree, yet the change is still reported once.
    nodes = [*BASE_NODES, NodeSpec("/brokers/ids/2", broker_json(2), stat(BASE + 2, owner=S2))]
    d = tmp_path / "v"
    d.mkdir()
    (d / f"snapshot.{BASE:x}").write_bytes(
        encode_snapshot(nodes, sessions=[(S1, 6000), (S2, 6000)])
    )
    (d / f"log.{BASE + 1:x}").write_bytes(
        txnlog_file_header() + b"".join(entry_bytes(BASE + 1, TXNS[:3])) + TXNLOG_PADDING
    )
    result = decode_datadir([d])
    creates = [c for c in result.changes if c.kind is ZNodeKind.broker]
    assert [(c.zxid, c.op, c.broker_id) for c in creates] == [(BASE + 2, "create", 2)]
    assert [(i.broker_id, i.start_zxid, i.end_zxid) for i in result.liveness] == [
        (1, 0xA, None),
        (2, BASE + 2, None),
    ]


def test_a_create_that_finds_its_node_still_raises_the_parent_cversion():
    # DataTree.processTxn on NODEEXISTS (a node re-created by another session after its
    # parent was serialized): a plain create sets the parent's cversion and pzxid from the
    # txn; create2 and a create whose cversion is not higher leave the parent alone.
    tree = ZkTree()
    for zxid, op, path, cversion in [
        (1, OpCode.create, "/a", 1),
        (2, OpCode.create, "/a/b", 1),
        (3, OpCode.create, "/a/b", 5),
        (4, OpCode.create2, "/a/b", 9),
        (5, OpCode.create, "/a/b", 4),
    ]:
        header = TxnHeader(S1, zxid, zxid, T0, op)
        [change] = tree.apply(header, CreateTxn(path, b"", OPEN, False, cversion))
        assert change.applied is (zxid < 3)
    a = tree.get("/a").stat
    assert (a.cversion, a.pzxid) == (5, 3)


def test_find_data_files(tmp_path):
    d = write_datadir(tmp_path, split=[5])
    files, other = find_data_files([tmp_path])
    assert [(f.kind, f.zxid) for f in files] == [
        (FileKind.txnlog, BASE + 1),
        (FileKind.txnlog, BASE + 6),
        (FileKind.snapshot, BASE),
    ]
    assert other == []
    single, _ = find_data_files([d / f"snapshot.{BASE:x}"])
    assert len(single) == 1
