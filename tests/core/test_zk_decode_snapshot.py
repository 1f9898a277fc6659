"""Decoding a real ZooKeeper snapshot (Kafka 3.1.0's ZooKeeper 3.6), byte-exact from the field.

The file is ``reference/real-logs/aryan-3.1.0-zk-snapshot.f7.zk.bin`` (``snapshot.f7`` of a
single-broker Kafka 3.1.0 cluster). Values checked below were read with ZooKeeper's own
``SnapshotFormatter`` (its output is committed as a fixture and compared node for node).
"""

from __future__ import annotations

import base64
import gzip
import io
from pathlib import Path

import pytest

from kafkactl_core.model import LeaderRecoveryState
from kafkactl_core.zk.files import Compression
from kafkactl_core.zk.jute import Acl, Stat
from kafkactl_core.zk.snapshot import load_snapshot, read_snapshot
from kafkactl_core.zk.state import state_rows
from kafkactl_core.zk.textdump import parse_snapshot_dump
from kafkactl_core.zk.znodes import (
    BrokerRegistration,
    ClusterIdRecord,
    ControllerEpochRecord,
    ControllerRecord,
    EntityConfigRecord,
    PartitionStateRecord,
    TopicAssignment,
    ZNodeKind,
    decode_znode,
)
from tests.conftest import reference_dir

REFERENCE = reference_dir()
SNAPSHOT = REFERENCE / "real-logs" / "aryan-3.1.0-zk-snapshot.f7.zk.bin"
FORMATTER_DUMP = (
    Path(__file__).resolve().parents[1] / "fixtures/zk/aryan-3.1.0-snapshot.f7.formatter.txt"
)
SESSION = 0x10064E88AFE0001

pytestmark = pytest.mark.skipif(
    not SNAPSHOT.is_file(),
    reason=f"reference snapshot {SNAPSHOT} is absent (set KAFKACTL_REFERENCE to the reference dir)",
)


@pytest.fixture(scope="module")
def snap():
    # The real file is named after the reference catalogue; its zxid (0xf7) is still in the name.
    return load_snapshot(SNAPSHOT)


def test_header_seal_digest_and_counts(snap):
    s = snap.summary
    assert s.error is None and s.complete
    assert (s.version, s.dbid, s.zxid) == (2, -1, 0xF7)
    assert s.compression is Compression.none
    assert s.checksum_ok is True
    assert s.digest is not None
    assert (s.digest.zxid, s.digest.version, s.digest.digest) == (0xF7, 2, 0x4D1DF25CD7)
    assert s.end_offset == SNAPSHOT.stat().st_size == 23798
    assert s.nodes == len(snap.nodes) == 153
    assert snap.sessions == {SESSION: 18000}
    assert snap.acls == {1: (Acl(1, "world", "anyone"),), 2: (Acl(31, "world", "anyone"),)}


def test_named_nodes(snap):
    root = snap.nodes["/"]
    assert root.stat.pzxid == 0xF6 and root.stat.cversion == 14 and root.data == b""
    assert snap.nodes["/cluster/id"].data == b'{"version":"1","id":"4fi2MkU0Ql2L0cPRncY20Q"}'
    epoch = snap.nodes["/controller_epoch"]
    assert epoch.data == b"4"
    assert epoch.stat == Stat(
        czxid=0x1A,
        mzxid=0xF6,
        ctime=epoch.stat.ctime,
        mtime=epoch.stat.mtime,
        version=4,
        cversion=0,
        aversion=0,
        ephemeral_owner=0,
        pzxid=0x1A,
    )
    controller = snap.nodes["/controller"]
    assert controller.stat.ephemeral_owner == SESSION
    assert controller.stat.czxid == 0xF6
    assert controller.stat.ctime == 1650897816003
    assert snap.acl(controller.acl_ref) == (Acl(31, "world", "anyone"),)


def test_kafka_records(snap):
    def decoded(path):
        n = snap.nodes[path]
        return decode_znode(
            path,
            n.data,
            zk_version=n.stat.version,
            czxid=n.stat.czxid,
            ephemeral_owner=n.stat.ephemeral_session,
        )

    assert decoded("/cluster/id") == ClusterIdRecord("4fi2MkU0Ql2L0cPRncY20Q", "1")
    assert decoded("/controller_epoch") == ControllerEpochRecord(4, 4)
    assert decoded("/controller") == ControllerRecord(0, 1, 1650897815992, None, SESSION)
    broker = decoded("/brokers/ids/0")
    assert isinstance(broker, BrokerRegistration)
    assert broker.version == 5 and broker.port == 9092 and broker.jmx_port == -1
    assert broker.host == "cu-tcom-3-10.203.21.58.int.colorado.edu"
    assert [(e.listener, e.port) for e in broker.endpoints] == [("PLAINTEXT", 9092)]
    assert broker.epoch == 245 and broker.session_id == SESSION
    topic = decoded("/brokers/topics/quickstart-events")
    assert isinstance(topic, TopicAssignment)
    assert topic.version == 3 and topic.topic_id == "XRnvgspBQPmwTEAXBZaszg"
    assert topic.partitions == ((0, (0,)),) and topic.adding_replicas == ()
    state = decoded("/brokers/topics/quickstart-events/partitions/0/state")
    assert state == PartitionStateRecord(
        "quickstart-events", 0, 1, 0, 0, (0,), 3, LeaderRecoveryState.RECOVERED, 0
    )
    offsets = decoded("/config/topics/__consumer_offsets")
    assert isinstance(offsets, EntityConfigRecord)
    assert offsets.get("cleanup.policy") == "compact"


def test_state_rows(snap):
    rows = list(state_rows(snap))
    kinds = {}
    for row in rows:
        kinds[row.kind] = kinds.get(row.kind, 0) + 1
    assert kinds[ZNodeKind.partition_state] == 57
    assert kinds[ZNodeKind.topic] == 4
    assert kinds[ZNodeKind.broker] == 1
    assert all(r.snapshot_zxid == 0xF7 for r in rows)
    # Kafka creates /latest_producer_id_block empty: not malformed, just no block yet.
    assert [r.path for r in rows if r.reason] == []
    row = next(r for r in rows if r.path == "/brokers/topics/design/partitions/0/state")
    flat = row.to_row()
    assert flat["kind"] == "partition_state" and flat["topic"] == "design"
    assert flat["leader"] == row.record.leader and flat["isr"] == list(row.record.isr)


def test_streaming_reader_yields_the_same_nodes(snap):
    reader = read_snapshot(SNAPSHOT)
    paths = [n.path for n in reader]
    assert paths == list(snap.nodes)
    assert reader.summary == snap.summary


def test_gzip_compressed_copy_decodes_identically(snap, tmp_path):
    target = tmp_path / "snapshot.f7.gz"
    target.write_bytes(gzip.compress(SNAPSHOT.read_bytes()))
    again = load_snapshot(target)
    assert again.summary.compression is Compression.gzip
    assert again.summary.complete
    assert again.nodes == snap.nodes


def test_file_object_source(snap):
    again = load_snapshot(io.BytesIO(SNAPSHOT.read_bytes()), name="snapshot.f7")
    assert again.nodes == snap.nodes and again.summary.zxid == 0xF7


def test_agrees_with_zookeeper_snapshot_formatter(snap):
    dump = parse_snapshot_dump(FORMATTER_DUMP.open(), FORMATTER_DUMP.name)
    assert dump.summary.issues == ()
    assert dump.summary.zxid == 0xF7
    assert dump.sessions == snap.sessions and dump.ephemeral_counts == {SESSION: 2}
    assert set(dump.nodes) == set(snap.nodes)
    for path, node in snap.nodes.items():
        text = dump.nodes[path]
        assert (text.data or b"") == (node.data or b""), path
        s, t = node.stat, text.stat
        assert (s.czxid, s.mzxid, s.pzxid, s.version, s.cversion, s.aversion) == (
            t.czxid,
            t.mzxid,
            t.pzxid,
            t.version,
            t.cversion,
            t.aversion,
        ), path
        assert s.ephemeral_owner == t.ephemeral_owner, path
        # Date.toString() has second precision.
        assert (s.ctime // 1000 * 1000, s.mtime // 1000 * 1000) == (t.ctime, t.mtime), path
    assert base64.b64encode(snap.nodes["/cluster/id"].data or b"").decode() in (
        FORMATTER_DUMP.read_text()
    )
