"""Raw dataDir records (bronze rows): every znode, txn and multi sub-op, keyed by file/offset."""

from __future__ import annotations

import json
from pathlib import Path

from kafkactl_core.zk.jute import MultiTxn
from kafkactl_core.zk.records import snapshot_records, txn_records
from kafkactl_core.zk.snapshot import load_snapshot, read_snapshot
from kafkactl_core.zk.txnlog import decode_txnlog, read_txnlog

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "zk" / "real-3.8"


def test_every_txn_and_sub_op_is_a_record():
    log = REAL / "log.1"
    entries, _ = decode_txnlog(log)
    records = list(txn_records(read_txnlog(log), "log.1"))
    subs = sum(len(e.record.txns) for e in entries if isinstance(e.record, MultiTxn))
    assert len(records) == len(entries) + subs
    assert [r.zxid for r in records if r.kind == "txn"] == [e.zxid for e in entries]
    multi = next(r for r in records if r.op == "multi")
    assert json.loads(multi.detail) == {"ops": 2, "failed": False}
    check, set_data = (r for r in records if r.kind == "sub_txn" and r.zxid == multi.zxid)
    assert (check.op, check.multi_index, check.path) == ("check", 0, "/controller_epoch")
    assert (set_data.op, set_data.multi_index, set_data.version) == ("setData", 1, 1)
    assert set_data.offset == multi.offset and set_data.session == multi.session
    session = next(r for r in records if r.op == "createSession")
    assert "timeout" in json.loads(session.detail) and session.path is None
    error = next(r for r in records if r.op == "error")
    assert json.loads(error.detail) == {"err": -101}
    create = next(r for r in records if r.op == "create2")
    assert json.loads(create.detail)["ephemeral"] is True and create.version == 0
    assert set(create.to_row()) >= {"file", "offset", "zxid", "time", "op", "path", "data"}


def test_every_znode_is_a_record():
    snap_path = REAL / "snapshot.1c"
    snap = load_snapshot(snap_path)
    records = list(snapshot_records(read_snapshot(snap_path)))
    assert [r.path for r in records] == list(snap.nodes)
    assert records == list(snapshot_records(snap))
    broker = next(r for r in records if r.path == "/brokers/ids/1")
    assert broker.kind == "znode" and broker.zxid == 0x1C and broker.session is not None
    assert json.loads(broker.detail)["acl"] == ["world:anyone:31"]
    assert broker.offset == snap.nodes["/brokers/ids/1"].offset
