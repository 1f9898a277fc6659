"""Normalizers: one silver row (plain Python or pandas-like values) into evidence and facts.

``silver.controller_events`` rows are produced by the pure-Python grammar executor from real
rendered lines (``match_message``); ``silver.zk_changes``/``zk_state`` rows by the ZooKeeper
decoder's own ``to_row`` on a hand-built ZooKeeper history.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from kafkactl_core.grammars import match_message
from kafkactl_core.grammars.fields import EVENT_FIELDS
from kafkactl_core.replay import (
    EVIDENCE_COLUMNS,
    EVIDENCE_SORT_COLUMNS,
    ClusterFact,
    ClusterFactKind,
    Fact,
    PartitionEvidence,
    Source,
    evidence_from_controller_event,
    facts_from_controller_event,
    normalize_controller_event,
    normalize_zk_change,
    normalize_zk_state,
)
from kafkactl_core.replay.from_logs import source_of
from kafkactl_core.replay.values import as_int, as_ints, as_ms, as_str, ms_to_datetime
from kafkactl_core.zk.state import ChangeCause, ZkChange, ZkStateRow
from kafkactl_core.zk.znodes import ZNodeKind, classify_path, decode_znode

TS = datetime(2024, 5, 1, 12, 0, 0, 250_000)
TS_MS = int(datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC).timestamp() * 1000) + 250
K = ClusterFactKind


def row_of(message, logger="state.change.logger", file="/logs/state-change.log", line=7):
    """A silver.controller_events row for one rendered message, as the ingest job writes it."""
    match = match_message(message)
    assert match is not None and match.failed_field is None, message
    row = dict.fromkeys(EVENT_FIELDS)
    row.update(match.values)
    row.update(
        event_type=match.entry.event_type.value,
        grammar=match.entry.name,
        ts=TS,
        level="INFO",
        logger=logger,
        file=file,
        first_line=line,
        cluster="prod",
    )
    return row


class ArrowList:
    """A list-like column value that is not a list or tuple (numpy arrays behave so)."""

    def __init__(self, *items):
        self._items = list(items)

    def __iter__(self):
        return iter(self._items)


def test_partition_state_change_with_leader_and_isr():
    row = row_of(
        "[Controller id=1 epoch=5] Changed partition orders-3 from OfflinePartition to "
        "OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=7, isr=List(2, 3), "
        "zkVersion=12)"
    )
    (ev,) = evidence_from_controller_event(row)
    assert (ev.cluster, ev.topic, ev.partition, ev.time_ms) == ("prod", "orders", 3, TS_MS)
    assert (ev.source, ev.fact, ev.ref, ev.seq) == (
        Source.state_change_log,
        Fact.partition_transition,
        "/logs/state-change.log:7",
        7,
    )
    assert (ev.from_state, ev.to_state, ev.leader, ev.leader_epoch) == (
        "OfflinePartition",
        "OnlinePartition",
        2,
        7,
    )
    assert (ev.isr, ev.partition_epoch, ev.controller_id, ev.controller_epoch) == ((2, 3), 12, 1, 5)
    assert facts_from_controller_event(row) == []


def test_kraft_35_isr_with_broker_epochs_and_partition_epoch():
    row = row_of(
        "[Controller id=1 epoch=5] Changed partition orders-0 from OnlinePartition to "
        "OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=7, "
        "isrWithBrokerEpoch=List(BrokerState(brokerId=2, brokerEpoch=-1)), "
        "leaderRecoveryState=RECOVERING, partitionEpoch=12)"
    )
    (ev,) = evidence_from_controller_event(row)
    assert (ev.isr, ev.partition_epoch, ev.recovering) == ((2,), 12, True)


def test_pre_1_1_unclean_warning_and_selection():
    warn = row_of(
        "[OfflinePartitionLeaderSelector]: No broker in ISR is alive for [t,0]. Elect leader 2 "
        "from live brokers 2. There's potential data loss.",
        logger="kafka.controller.OfflinePartitionLeaderSelector",
        file="controller.log",
    )
    (ev,) = evidence_from_controller_event(warn)
    assert (ev.source, ev.fact, ev.leader, ev.live_brokers) == (
        Source.controller_log,
        Fact.unclean_warning,
        2,
        (2,),
    )
    selected = row_of(
        '[OfflinePartitionLeaderSelector]: Selected new leader and ISR {"leader":2,'
        '"leader_epoch":5,"isr":[2]} for offline partition [t,0]',
        logger="kafka.controller.OfflinePartitionLeaderSelector",
        file="controller.log",
    )
    (ev,) = evidence_from_controller_event(selected)
    assert (ev.fact, ev.leader, ev.leader_epoch, ev.isr, ev.trigger) == (
        Fact.leadership_written,
        2,
        5,
        (2,),
        "offline",
    )
    none_alive = row_of(
        "[OfflinePartitionLeaderSelector]: No broker in ISR is alive for [t,0]. Pick the leader "
        "from the alive assigned replicas: ",
        logger="kafka.controller.OfflinePartitionLeaderSelector",
        file="controller.log",
    )
    (ev,) = evidence_from_controller_event(none_alive)
    assert (ev.fact, ev.live_brokers) == (Fact.no_live_isr, ())


def test_events_naming_several_partitions_fan_out():
    row = row_of(
        "[Controller id=0] Starting replica leader election (UNCLEAN) for partitions "
        "orders-0,audit-1 triggered by AdminClientTriggered",
        logger="kafka.controller.KafkaController",
        file="controller.log",
    )
    evidence = evidence_from_controller_event(row)
    assert [(e.topic, e.partition) for e in evidence] == [("orders", 0), ("audit", 1)]
    assert {(e.fact, e.trigger, e.detail) for e in evidence} == {
        (Fact.election_started, "admin_unclean", "AdminClientTriggered")
    }


def test_unparsable_partition_becomes_a_note():
    row = row_of(
        "[Controller id=0] Starting replica leader election (PREFERRED) for partitions "
        "orders-0 triggered by AutoTriggered",
        logger="kafka.controller.KafkaController",
    )
    row["partitions"] = ["orders-0", "no partition here"]
    found = normalize_controller_event(row)
    assert [(e.topic, e.partition) for e in found.evidence] == [("orders", 0)]
    (note,) = found.facts
    assert note.kind is K.note and "no partition here" in (note.detail or "")


def test_broker_change_and_controlled_shutdown_are_cluster_facts():
    row = row_of(
        "[Controller id=0] Newly added brokers: 3, deleted brokers: 1, bounced brokers: 2, "
        "all live brokers: 0,2,3",
        logger="kafka.controller.KafkaController",
        file="controller.log",
    )
    found = normalize_controller_event(row)
    assert found.evidence == []
    assert [(f.kind, f.broker, f.brokers, f.detail) for f in found.facts] == [
        (K.broker_down, 1, None, "deleted"),
        (K.broker_down, 2, None, "bounced"),
        (K.broker_up, 2, None, "bounced"),
        (K.broker_up, 3, None, "added"),
        (K.registered_set, None, (0, 2, 3), None),
    ]
    shutting = row_of(
        "[Controller id=0] Shutting down broker 2",
        logger="kafka.controller.KafkaController",
    )
    (fact,) = facts_from_controller_event(shutting)
    assert (fact.kind, fact.broker) == (K.shutting_down_add, 2)


def test_controller_and_config_facts():
    elected = row_of(
        "[Controller id=2] 2 successfully elected as the controller. Epoch incremented to 7 and "
        "epoch zk version is now 6",
        logger="kafka.controller.KafkaController",
    )
    (fact,) = facts_from_controller_event(elected)
    assert (fact.kind, fact.controller_id, fact.epoch) == (K.controller, 2, 7)
    unclean = row_of(
        "[Controller id=2] Unclean leader election has been enabled for topic orders",
        logger="kafka.controller.KafkaController",
    )
    (fact,) = facts_from_controller_event(unclean)
    assert (fact.kind, fact.scope, fact.name, fact.key, fact.value) == (
        K.config,
        "topic",
        "orders",
        "unclean.leader.election.enable",
        "true",
    )


def test_kraft_config_records_are_config_facts():
    def fact_of(message: str) -> tuple[object, ...]:
        row = row_of(
            "[QuorumController id=101] Replayed ConfigRecord for " + message,
            logger="org.apache.kafka.controller.ConfigurationControlManager",
        )
        facts = facts_from_controller_event(row)
        return tuple((f.kind, f.scope, f.name, f.key, f.value) for f in facts)

    key = "unclean.leader.election.enable"
    assert fact_of(
        f"ConfigResource(type=TOPIC, name='risky') which set configuration {key} to true"
    ) == ((K.config, "topic", "risky", key, "true"),)
    assert fact_of(
        f"ConfigResource(type=BROKER, name='2') which set configuration {key} to null"
    ) == ((K.config, "broker", "2", key, None),)
    assert fact_of(
        f"ConfigResource(type=BROKER, name='') which set configuration {key} to false"
    ) == ((K.config, "broker_default", "<default>", key, "false"),)
    # min.insync.replicas is read too (KRaft fills the ELR from it)
    assert fact_of(
        "ConfigResource(type=TOPIC, name='safe') which set configuration min.insync.replicas to 2"
    ) == ((K.config, "topic", "safe", "min.insync.replicas", "2"),)
    # a key no rule reads is recognised, and no fact
    assert (
        fact_of("ConfigResource(type=BROKER, name='') which set configuration retention.ms to 1")
        == ()
    )


def test_kraft_lines():
    change = row_of(
        "[QuorumController id=3000] UNCLEAN partition change for foo-0 with topic ID "
        "FbrrdcfiR-KC2CPSTHaJrg: isr: [3] -> [2], leader: -1 -> 2, leaderRecoveryState: "
        "RECOVERED -> RECOVERING, leaderEpoch: 100 -> 101, partitionEpoch: 200 -> 201",
        logger="org.apache.kafka.controller.ReplicationControlManager",
        file="controller.log",
    )
    written, warning = evidence_from_controller_event(change)
    assert written.source is Source.kraft_log and written.fact is Fact.leadership_written
    assert (written.previous_isr, written.isr, written.previous_leader, written.leader) == (
        (3,),
        (2,),
        -1,
        2,
    )
    assert (written.previous_leader_epoch, written.leader_epoch, written.partition_epoch) == (
        100,
        101,
        201,
    )
    assert (warning.fact, warning.leader) == (Fact.unclean_warning, 2)
    clean = row_of(
        "[QuorumController id=3000] partition change for foo-0 with topic ID "
        "FbrrdcfiR-KC2CPSTHaJrg: leader: 1 -> 2, leaderEpoch: 100 -> 101, partitionEpoch: 200 "
        "-> 201",
        logger="org.apache.kafka.controller.ReplicationControlManager",
    )
    (ev,) = evidence_from_controller_event(clean)
    assert (ev.isr, ev.previous_isr, ev.leader) == (None, None, 2)  # ISR not in the diff
    created = row_of(
        "[QuorumController id=3000] Replayed PartitionRecord for new partition foo-0 with topic ID "
        "Tg8kbDuMQKSOe2_QsgVwhQ and "
        "PartitionRegistration(replicas=[1, 2, 3], directories=[AAAAAAAAAAAAAAAAAAAAAA, "
        "AAAAAAAAAAAAAAAAAAAAAA, AAAAAAAAAAAAAAAAAAAAAA], isr=[1, 2, 3], removingReplicas=[], "
        "addingReplicas=[], elr=[], lastKnownElr=[], leader=1, leaderRecoveryState=RECOVERED, "
        "leaderEpoch=0, partitionEpoch=0).",
        logger="org.apache.kafka.controller.ReplicationControlManager",
    )
    (ev,) = evidence_from_controller_event(created)
    assert (ev.replicas, ev.isr, ev.leader, ev.leader_epoch, ev.trigger) == (
        (1, 2, 3),
        (1, 2, 3),
        1,
        0,
        "new_partition",
    )
    fenced = row_of(
        "[QuorumController id=3000] Replayed BrokerRegistrationChangeRecord modifying the "
        "registration for broker 2: BrokerRegistrationChangeRecord(brokerId=2, brokerEpoch=57, "
        "fenced=1, inControlledShutdown=0, logDirs=[])",
        logger="org.apache.kafka.controller.ClusterControlManager",
    )
    (fact,) = facts_from_controller_event(fenced)
    assert (fact.kind, fact.broker, fact.detail) == (K.broker_down, 2, "fenced")


def test_broker_side_isr_shrink_with_offsets():
    row = row_of(
        "[Partition orders-0 broker=2] Shrinking ISR from 2,1,0 to 2,1. Leader: (highWatermark: "
        "1, endOffset: 2). Out of sync replicas: (brokerId: 0, endOffset: 1).",
        logger="kafka.cluster.Partition",
        file="server.log",
    )
    (ev,) = evidence_from_controller_event(row)
    assert (ev.source, ev.fact, ev.leader, ev.broker) == (Source.server_log, Fact.isr_changed, 2, 2)
    assert (ev.previous_isr, ev.isr, ev.high_watermark, ev.end_offset) == ((2, 1, 0), (2, 1), 1, 2)
    assert "brokerId: 0, endOffset: 1" in (ev.detail or "")


def test_pandas_like_values_are_accepted():
    row = row_of(
        "[Controller id=1 epoch=5] Changed partition orders-3 from OfflinePartition to "
        "OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=7, isr=List(2, 3), "
        "zkVersion=12)"
    )
    row.update(
        isr=ArrowList(2, 3),
        leader=2.0,
        partition=3.0,
        zk_version=float("nan"),
        partition_epoch=None,
        first_line=7.0,
        ts=datetime(2024, 5, 1, 12, 0, 0, 250_000, tzinfo=UTC),
        replicas=float("nan"),
    )
    (ev,) = evidence_from_controller_event(row)
    assert (ev.partition, ev.leader, ev.isr, ev.partition_epoch, ev.time_ms, ev.seq) == (
        3,
        2,
        (2, 3),
        None,
        TS_MS,
        7,
    )


def test_unused_and_broken_rows_never_raise():
    assert normalize_controller_event({"event_type": "auto_rebalance_check"}) == ([], [])
    assert normalize_controller_event({}) == ([], [])
    broken = normalize_controller_event(
        {"event_type": "partition_state_change", "topic": "t", "partition": "x"}
    )
    assert broken.evidence == []
    assert normalize_zk_change({}) == ([], [])
    assert normalize_zk_state({"kind": "topic", "payload": "{not json"}).facts[0].kind is K.note


def test_source_classification():
    assert source_of("state.change.logger", "x") is Source.state_change_log
    assert source_of("kafka.controller.KafkaController", None) is Source.controller_log
    assert source_of("org.apache.kafka.controller.QuorumController", None) is Source.kraft_log
    assert source_of(None, "/a/controller.log.2019") is Source.controller_log
    assert source_of(None, "/a/state-change.log") is Source.state_change_log
    assert source_of("kafka.cluster.Partition", "server.log") is Source.server_log
    assert source_of(None, "x", "kraft_partition_change") is Source.kraft_log


# ------------------------------------------------------------------------ ZooKeeper rows


def zk_change(zxid, op, path, data=None, version=None, session=0x10, cxid=1):
    """A silver.zk_changes row, built by the decoder's own ``ZkChange.to_row``."""
    where = classify_path(path)
    record = decode_znode(path, data, zk_version=version, czxid=zxid, ephemeral_owner=session)
    change = ZkChange(
        file="log.100",
        offset=zxid * 10,
        zxid=zxid,
        time=1_700_000_000_000 + zxid,
        session_id=session,
        cxid=cxid,
        op=op,
        multi_index=None,
        path=path,
        kind=None if where is None else where.kind,
        topic=None if where is None else where.topic,
        partition=None if where is None else where.partition,
        broker_id=None if where is None else where.broker_id,
        data_version=version,
        record=record if op != "delete" else None,
        previous=None,
        cause=ChangeCause.write,
    )
    return {**change.to_row(), "cluster": "prod"}


STATE = "/brokers/topics/orders/partitions/1/state"


def test_zk_partition_state_write():
    row = zk_change(
        0x2A,
        "setData",
        STATE,
        b'{"controller_epoch":7,"leader":3,"version":1,"leader_epoch":4,"isr":[3,1],'
        b'"leader_recovery_state":1}',
        version=9,
    )
    (ev,) = normalize_zk_change(row).evidence
    assert (ev.cluster, ev.topic, ev.partition, ev.source, ev.fact) == (
        "prod",
        "orders",
        1,
        Source.zk_txn,
        Fact.leadership_written,
    )
    assert (ev.leader, ev.leader_epoch, ev.isr, ev.partition_epoch) == (3, 4, (3, 1), 9)
    assert (ev.controller_epoch, ev.recovering, ev.time_ms) == (7, True, 1_700_000_000_042)
    assert ev.ref == "log.100:zxid=0x2a" and ev.seq == 0x2A
    (deleted,) = normalize_zk_change(zk_change(0x2B, "delete", STATE)).evidence
    assert deleted.fact is Fact.deletion


def test_zk_partition_state_creation_is_a_new_partition():
    created = zk_change(
        0x29,
        "create",
        STATE,
        b'{"controller_epoch":7,"leader":3,"version":1,"leader_epoch":0,"isr":[3,1]}',
        version=0,
    )
    (ev,) = normalize_zk_change(created).evidence
    assert (ev.leader, ev.leader_epoch, ev.partition_epoch, ev.trigger) == (
        3,
        0,
        0,
        "new_partition",
    )
    # Any later write (version > 0) is not a creation.
    (later,) = normalize_zk_change(zk_change(0x2A, "setData", STATE, _STATE_DATA, 1)).evidence
    assert later.trigger is None


_STATE_DATA = b'{"controller_epoch":7,"leader":3,"version":1,"leader_epoch":0,"isr":[3]}'


def test_zk_topic_assignment_fans_out():
    row = zk_change(
        0x30,
        "create",
        "/brokers/topics/orders",
        b'{"version":2,"partitions":{"0":[1,2],"1":[2,3]},"adding_replicas":{"1":[3]},'
        b'"removing_replicas":{}}',
        version=0,
    )
    found = normalize_zk_change(row)
    assert [(e.partition, e.replicas, e.adding_replicas) for e in found.evidence] == [
        (0, (1, 2), ()),
        (1, (2, 3), (3,)),
    ]
    assert [f.kind for f in found.facts] == [K.topic_created, K.topic_assignment]


def test_zk_broker_registration_sessions_and_configs():
    reg = zk_change(
        0x40,
        "create",
        "/brokers/ids/2",
        b'{"version":4,"host":"h","port":9092,"endpoints":["PLAINTEXT://h:9092"]}',
        version=0,
        session=0x99,
    )
    assert [(f.kind, f.broker, f.session) for f in normalize_zk_change(reg).facts] == [
        (K.broker_up, 2, None),
        (K.session_registered, 2, 0x99),
    ]
    closed = {
        **zk_change(0x41, "closeSession", "/x"),
        "path": None,
        "kind": None,
        "session_id": 0x99,
        "cause": "session_expired",
    }
    (fact,) = normalize_zk_change(closed).facts
    assert (fact.kind, fact.session, fact.detail) == (K.session_closed, 0x99, "session_expired")
    config = zk_change(
        0x42,
        "setData",
        "/config/topics/orders",
        b'{"version":1,"config":{"unclean.leader.election.enable":"true","retention.ms":"1"}}',
        version=3,
    )
    facts = normalize_zk_change(config).facts
    values = {f.key: f.value for f in facts}
    assert values["unclean.leader.election.enable"] == "true" and "retention.ms" not in values
    assert {(f.scope, f.name) for f in facts} == {("topic", "orders")}
    default = zk_change(
        0x43,
        "setData",
        "/config/brokers/<default>",
        b'{"version":1,"config":{}}',
        version=1,
    )
    facts = normalize_zk_change(default).facts
    assert {(f.scope, f.value) for f in facts} == {("broker_default", None)}


def test_zk_controller_and_admin_paths():
    ctrl = zk_change(0x50, "create", "/controller", b'{"version":1,"brokerid":2,"timestamp":"1"}')
    (fact,) = normalize_zk_change(ctrl).facts
    assert (fact.kind, fact.controller_id) == (K.controller, 2)
    reassign = zk_change(
        0x51,
        "create",
        "/admin/reassign_partitions",
        b'{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[3,4]}]}',
    )
    (ev,) = normalize_zk_change(reassign).evidence
    assert (ev.fact, ev.topic, ev.partition, ev.replicas) == (
        Fact.reassignment,
        "orders",
        0,
        (3, 4),
    )
    preferred = zk_change(
        0x52,
        "create",
        "/admin/preferred_replica_election",
        b'{"version":1,"partitions":[{"topic":"orders","partition":2}]}',
    )
    (ev,) = normalize_zk_change(preferred).evidence
    assert (ev.fact, ev.partition) == (Fact.preferred_requested, 2)


def test_zk_snapshot_state_rows():
    record = decode_znode(
        STATE,
        b'{"controller_epoch":7,"leader":3,"version":1,"leader_epoch":4,"isr":[3,1]}',
        zk_version=9,
    )
    row = ZkStateRow(
        file="snapshot.1ff",
        snapshot_zxid=0x1FF,
        path=STATE,
        kind=ZNodeKind.partition_state,
        topic="orders",
        partition=1,
        broker_id=None,
        czxid=0x10,
        mzxid=0x2A,
        ctime=5,
        mtime=42,
        data_version=9,
        ephemeral_owner=None,
        record=record,
    ).to_row()
    (ev,) = normalize_zk_state(row).evidence
    assert (ev.source, ev.time_ms, ev.partition_epoch, ev.leader_epoch, ev.seq) == (
        Source.zk_snapshot,
        42,
        9,
        4,
        0x2A,
    )
    broker = decode_znode(
        "/brokers/ids/3",
        b'{"version":4,"host":"h","port":1,"endpoints":[]}',
        czxid=0x11,
        ephemeral_owner=0x77,
    )
    row = ZkStateRow(
        file="snapshot.1ff",
        snapshot_zxid=0x1FF,
        path="/brokers/ids/3",
        kind=ZNodeKind.broker,
        topic=None,
        partition=None,
        broker_id=3,
        czxid=0x11,
        mzxid=0x11,
        ctime=6,
        mtime=6,
        data_version=0,
        ephemeral_owner=0x77,
        record=broker,
    ).to_row()
    facts = normalize_zk_state(row).facts
    assert [(f.kind, f.time_ms, f.session) for f in facts] == [
        (K.broker_up, 6, None),
        (K.session_registered, 6, 0x77),
    ]


# ------------------------------------------------------------------------ records


def test_evidence_and_fact_rows_round_trip():
    ev = PartitionEvidence(
        "prod",
        "orders",
        1,
        5,
        Source.server_log,
        Fact.leader_started,
        "server.log:9",
        9,
        leader=2,
        leader_epoch=4,
        isr=(2, 3),
        recovering=False,
        detail="x",
    )
    row = ev.to_row()
    assert set(row) == set(EVIDENCE_COLUMNS)
    assert (
        row["isr"] == [2, 3] and row["source"] == "server_log" and row["fact"] == "leader_started"
    )
    assert PartitionEvidence.from_row(row) == ev
    assert PartitionEvidence.from_row({**row, "fact": "nope"}) is None
    fact = ClusterFact("prod", 5, Source.zk_txn, K.registered_set, "log:1", 1, brokers=(1, 2))
    assert ClusterFact.from_row(fact.to_row()) == fact
    assert ClusterFact.from_row({"source": "zk_txn", "kind": "?"}) is None


def test_value_coercions():
    assert as_int(3.0) == 3 and as_int(3.5) is None and as_int(math.nan) is None
    assert as_int(True) is None and as_int(" 12 ") == 12 and as_int("x") is None
    assert as_ints(ArrowList(1, 2)) == (1, 2) and as_ints(ArrowList(1, "x")) is None
    assert as_ints("12") is None and as_str(math.nan) is None and as_str("") is None
    assert as_ms(TS) == TS_MS and as_ms(12) == 12 and as_ms(math.nan) is None
    assert ms_to_datetime(TS_MS) == TS.replace(tzinfo=UTC)


def test_preferred_replica_dump_gives_assignments():
    row = row_of(
        "[Controller id=0] Topics not in preferred replica for broker 0 HashMap(failovermanage-0 "
        "-> List(0, 2, 1), failover-1 -> List(0, 1, 2))",
        logger="kafka.controller.KafkaController",
        file="controller.log",
    )
    evidence = evidence_from_controller_event(row)
    assert [(e.topic, e.partition, e.fact, e.replicas) for e in evidence] == [
        ("failovermanage", 0, Fact.assignment, (0, 2, 1)),
        ("failover", 1, Fact.assignment, (0, 1, 2)),
    ]


def test_controller_isr_update_without_epoch_is_an_isr_change():
    row = row_of(
        "[Controller id=0] ISR for partition failover-2 updated to [2] and zkVersion updated to "
        "[1]",
        logger="kafka.controller.KafkaController",
        file="controller.log",
    )
    (ev,) = evidence_from_controller_event(row)
    assert (ev.fact, ev.isr, ev.partition_epoch, ev.leader) == (Fact.isr_changed, (2,), 1, None)


def test_kraft_isr_only_change_is_an_isr_change():
    row = row_of(
        "[QuorumController id=3000] partition change for foo-0 with topic ID "
        "FbrrdcfiR-KC2CPSTHaJrg: isr: [1, 2] -> [1], partitionEpoch: 200 -> 201",
        logger="org.apache.kafka.controller.ReplicationControlManager",
    )
    (ev,) = evidence_from_controller_event(row)
    assert (ev.fact, ev.previous_isr, ev.isr, ev.partition_epoch) == (
        Fact.isr_changed,
        (1, 2),
        (1,),
        201,
    )


def test_sorting_rows_by_the_sort_columns_is_the_fold_order():
    items = [
        PartitionEvidence("c", "t", 0, 5, source, Fact.leadership_observed, f"f:{seq}", seq)
        for seq, source in enumerate(
            [Source.server_log, Source.zk_txn, Source.state_change_log, Source.controller_log]
        )
    ] + [PartitionEvidence("c", "t", 0, None, Source.kraft_log, Fact.recovered, "k:1", 1)]
    rows = [ev.to_row() for ev in items]

    def spark_like(row):  # nulls first, as the job's sort does
        return tuple((-1 if row[name] is None else row[name]) for name in EVIDENCE_SORT_COLUMNS)

    by_rows = [PartitionEvidence.from_row(r) for r in sorted(rows, key=spark_like)]
    assert by_rows == sorted(items, key=PartitionEvidence.order_key)


def test_zookeeper_evidence_of_one_millisecond_is_in_zxid_order():
    # a snapshot row is the znode as its last write (mzxid) left it: after the txns before it
    snapshot = PartitionEvidence(
        "c", "t", 0, 5, Source.zk_snapshot, Fact.leadership_written, "snapshot.9:zxid=0x9", 9
    )
    earlier = PartitionEvidence(
        "c", "t", 0, 5, Source.zk_txn, Fact.leadership_written, "log.1:zxid=0x8", 8
    )
    later = PartitionEvidence(
        "c", "t", 0, 5, Source.zk_txn, Fact.leadership_written, "log.1:zxid=0xa", 10
    )
    line = PartitionEvidence(
        "c", "t", 0, 5, Source.controller_log, Fact.leadership_written, "controller.log:1", 1
    )
    items = [line, later, snapshot, earlier]
    assert sorted(items, key=PartitionEvidence.order_key) == [earlier, snapshot, later, line]
    rows = sorted(
        (ev.to_row() for ev in items), key=lambda r: [r[c] for c in EVIDENCE_SORT_COLUMNS]
    )
    assert [PartitionEvidence.from_row(r) for r in rows] == [earlier, snapshot, later, line]
