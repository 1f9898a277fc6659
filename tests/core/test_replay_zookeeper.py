"""ZooKeeper only: a dataDir written with the jute encoder, decoded by ``kafkactl_core.zk``
(snapshot state rows and txn-log change rows, as ``silver.zk_state``/``zk_changes`` hold them),
normalized and replayed. Since 1.1 a ZooKeeper-mode unclean election leaves no log line: here the
only evidence is the partition-state znode, and the replay must find it from the ISR before.

History (2.8): brokers 1 and 2, ``orders-0`` assigned [1, 2], led by 1 with ISR [1, 2], topic
config ``unclean.leader.election.enable=true``. Broker 2 falls out of the ISR (the leader
writes ISR [1]); broker 2's session expires, then broker 1's; the controller finds no live ISR
member and writes leader -1 (ISR [1] kept, the 1.1+ rule); broker 2 registers again and the
controller elects it although it is not in the ISR.
"""

from __future__ import annotations

import pytest

from kafkactl_core.replay import (
    ReplaySettings,
    build_timelines,
    evaluate_what_if,
    normalize_rows,
    replay,
    with_what_if,
)
from kafkactl_core.zk.jute import (
    OPEN_ACL_UNSAFE,
    CloseSessionTxn,
    CreateSessionTxn,
    CreateTxn,
    OpCode,
    SetDataTxn,
)
from kafkactl_core.zk.snapshot import load_snapshot
from kafkactl_core.zk.state import KafkaReplay, ZkTree, state_rows
from kafkactl_core.zk.txnlog import decode_txnlog
from kafkactl_lab.zk_encode import NodeSpec, encode_snapshot
from tests.core.zk_builders import (
    T0,
    broker_json,
    one_partition_topic,
    partition_state_json,
    stat,
    txn_entry,
    txnlog,
)

S1, S2, S2B, CTRL = 0x101, 0x102, 0x103, 0x1FF
BASE = 0x20
TOPIC = "/brokers/topics/orders"
STATE = TOPIC + "/partitions/0/state"


def state(leader, epoch, isr):
    return partition_state_json(leader, epoch, isr, controller_epoch=3)


NODES = [
    NodeSpec("/", b"", stat(0, cversion=3)),
    NodeSpec("/zookeeper", b"", stat(0)),
    NodeSpec("/brokers", b"", stat(1, cversion=2)),
    NodeSpec("/brokers/ids", b"", stat(2, cversion=2)),
    NodeSpec("/brokers/ids/1", broker_json(1), stat(0xA, owner=S1)),
    NodeSpec("/brokers/ids/2", broker_json(2), stat(0xB, owner=S2)),
    *one_partition_topic("orders", b'{"version":2,"partitions":{"0":[1,2]}}', state(1, 0, [1, 2])),
    NodeSpec("/config", b"", stat(8, cversion=1)),
    NodeSpec("/config/topics", b"", stat(9, cversion=1)),
    NodeSpec(
        "/config/topics/orders",
        b'{"version":1,"config":{"unclean.leader.election.enable":"true"}}',
        stat(0xC),
    ),
]

# (time offset ms, session, cxid, op, record); zxids follow BASE.
TXNS = [
    (1_000, S1, 5, OpCode.setData, SetDataTxn(STATE, state(1, 0, [1]), 1)),
    (5_000, S2, 0, OpCode.closeSession, CloseSessionTxn(("/brokers/ids/2",))),
    (9_000, S1, 0, OpCode.closeSession, CloseSessionTxn(("/brokers/ids/1",))),
    (9_050, CTRL, 7, OpCode.setData, SetDataTxn(STATE, state(-1, 1, [1]), 2)),
    (60_000, S2B, 0, OpCode.createSession, CreateSessionTxn(6000)),
    (
        60_001,
        S2B,
        1,
        OpCode.create,
        CreateTxn("/brokers/ids/2", broker_json(2), OPEN_ACL_UNSAFE, True, 3),
    ),
    (60_040, CTRL, 8, OpCode.setData, SetDataTxn(STATE, state(2, 2, [2]), 3)),
]


@pytest.fixture(scope="module")
def silver(tmp_path_factory):
    """(zk_state rows, zk_changes rows) of the dataDir, as the ingest-zk job writes them."""
    d = tmp_path_factory.mktemp("zk") / "version-2"
    d.mkdir()
    (d / f"snapshot.{BASE:x}").write_bytes(
        encode_snapshot(NODES, sessions=[(S1, 6000), (S2, 6000), (CTRL, 6000)], digest=(BASE, 2, 1))
    )
    entries = []
    for i, (offset, session, cxid, op, record) in enumerate(TXNS):
        zxid = BASE + 1 + i
        entries.append(txn_entry(session, cxid, zxid, T0 + offset, op, record))
    (d / f"log.{BASE + 1:x}").write_bytes(txnlog(entries))
    snapshot = load_snapshot(d / f"snapshot.{BASE:x}")
    state_table = [{**row.to_row(), "cluster": "zk"} for row in state_rows(snapshot)]
    kafka = KafkaReplay(ZkTree.from_snapshot(snapshot))
    decoded, summary = decode_txnlog(d / f"log.{BASE + 1:x}")
    assert summary.error is None
    changes = [
        {**change.to_row(), "cluster": "zk"} for e in decoded for change in kafka.apply(e, "log")
    ]
    return state_table, changes


def run(silver, version="2.8"):
    state_table, changes = silver
    evidence, facts = normalize_rows(zk_changes=changes, zk_state=state_table)
    timelines = build_timelines(facts)
    return replay(evidence, timelines, ReplaySettings.of(version)), timelines["zk"]


def test_unclean_election_found_from_zookeeper_alone(silver):
    out, timelines = run(silver)
    created, failed, unclean = out.elections
    # The snapshot's state znode was never rewritten (version 0): it shows the creation.
    assert (created.trigger, created.new_leader, created.leader_epoch) == ("new_partition", 1, 0)
    assert created.elected_at_ms == T0 + 7 and created.isr_after == (1, 2) and created.agrees
    assert (failed.new_leader, failed.prev_leader, failed.isr_before) == (-1, 1, (1,))
    assert (failed.trigger, failed.expected_leader, failed.agrees) == ("offline", -1, True)
    assert failed.elected_at_ms == T0 + 9_050 and failed.source == "zk_txn"
    assert unclean.elected_at_ms == T0 + 60_040
    assert (unclean.prev_leader, unclean.new_leader, unclean.leader_epoch) == (-1, 2, 2)
    assert (unclean.isr_before, unclean.isr_after, unclean.assignment) == ((1,), (2,), (1, 2))
    assert (unclean.trigger, unclean.unclean) == ("offline", True)
    assert (unclean.unclean_setting, unclean.unclean_setting_source) == (True, "topic_config")
    assert (unclean.expected_leader, unclean.agrees) == (2, True)
    assert unclean.live_brokers == (2,)
    assert unclean.new_leader_left_isr_ms == T0 + 1_000
    assert unclean.exposure_seconds == pytest.approx(59.04)
    assert unclean.evidence == (f"log:zxid=0x{BASE + 7:x}",)
    assert out.anomalies == [] and timelines.anomalies() == []


def test_zookeeper_timeline_and_liveness(silver):
    out, timelines = run(silver)
    rows = out.timeline
    assert [(r.leader, r.leader_epoch, r.isr, r.partition_epoch) for r in rows] == [
        (1, 0, (1, 2), 0),
        (1, 0, (1,), 1),
        (-1, 1, (1,), 2),
        (2, 2, (2,), 3),
    ]
    # The first interval opens with the assignment (topic znode, mzxid 4) and the state znode
    # (mzxid 7) fills in the leadership.
    assert rows[0].valid_from_ms == T0 + 4 and rows[-1].valid_to_ms is None
    assert rows[0].evidence.endswith(f"snapshot.{BASE:x}:zxid=0x4")
    assert timelines.liveness_at(T0 + 4_000).live == {1, 2}
    assert timelines.liveness_at(T0 + 9_010).live == frozenset()
    assert timelines.liveness_at(T0 + 60_010).live == {2}


def test_what_if_unclean_disabled_on_zookeeper_evidence(silver):
    out, timelines = run(silver)
    scenario, _ = with_what_if(ReplaySettings.of("2.8"), ["unclean.leader.election.enable=false"])
    (row,) = evaluate_what_if(out.elections, timelines, scenario)
    assert (row.actual_new_leader, row.would_happen, row.scenario_new_leader) == (2, False, -1)
    assert row.offline_until_ms is None and row.offline_seconds is None  # broker 1 never returns
    assert "no ISR member [1]" in row.detail
