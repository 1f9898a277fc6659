"""Kafka znode payloads of every version (reference/ZNODES.md) decoded into typed records."""

from __future__ import annotations

import pytest

from kafkactl_core.model import LeaderAndIsr, LeaderRecoveryState, TopicPartition
from kafkactl_core.zk.znodes import (
    BrokerEndpoint,
    BrokerRegistration,
    ClusterIdRecord,
    ConfigChangeNotification,
    ControllerEpochRecord,
    ControllerRecord,
    DeleteTopicRecord,
    EntityConfigRecord,
    FeatureRange,
    FeatureRecord,
    IsrChangeNotification,
    LogDirEventNotification,
    MalformedZNode,
    MigrationRecord,
    PartitionStateRecord,
    PreferredReplicaElectionRecord,
    ProducerIdBlockRecord,
    ReassignPartitionsRecord,
    TopicAssignment,
    ZNodeKind,
    ZNodePath,
    classify_path,
    decode_znode,
    detect_chroot,
    record_to_json,
)

PLAIN = BrokerEndpoint("PLAINTEXT", "kafka-1", 9092, "PLAINTEXT")


@pytest.mark.parametrize(
    ("payload", "version", "endpoints", "rack", "features"),
    [
        (
            b'{"version":1,"host":"kafka-1","port":9092,"jmx_port":9999,"timestamp":"2233345666"}',
            1,
            (PLAIN,),
            None,
            (),
        ),
        (
            b'{"jmx_port":-1,"timestamp":"1709647301120","endpoints":["PLAINTEXT://kafka-1:9092",'
            b'"SSL://kafka-1:9093"],"host":"kafka-1","version":2,"port":9092}',
            2,
            (PLAIN, BrokerEndpoint("SSL", "kafka-1", 9093, "SSL")),
            None,
            (),
        ),
        (
            b'{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":'
            b'["PLAINTEXT://kafka-1:9092"],"rack":"az1","jmx_port":-1,"host":"kafka-1",'
            b'"timestamp":"1709647301120","port":9092,"version":4}',
            4,
            (PLAIN,),
            "az1",
            (),
        ),
        (
            b'{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},'
            b'"endpoints":["PLAINTEXT://kafka-1:9092"],"jmx_port":-1,"port":9092,"host":"kafka-1",'
            b'"version":5,"timestamp":"1709647301120"}',
            5,
            (PLAIN,),
            None,
            (),
        ),
        (
            b'{"features":{"metadata.version":{"min_version":1,"max_version":7}},'
            b'"listener_security_protocol_map":{"INTERNAL":"SASL_SSL","EXT":"SSL"},'
            b'"endpoints":["INTERNAL://[::1]:9094","EXT://:9095"],"jmx_port":-1,"port":-1,'
            b'"host":null,"version":5,"timestamp":"1709647301120"}',
            5,
            (
                BrokerEndpoint("INTERNAL", "::1", 9094, "SASL_SSL"),
                BrokerEndpoint("EXT", "", 9095, "SSL"),
            ),
            None,
            (FeatureRange("metadata.version", 1, 7),),
        ),
    ],
)
def test_broker_registration_versions(payload, version, endpoints, rack, features):
    record = decode_znode("/brokers/ids/1", payload, czxid=0x1F, ephemeral_owner=0x77)
    assert isinstance(record, BrokerRegistration)
    assert record.broker_id == 1 and record.version == version
    assert record.endpoints == endpoints and record.rack == rack and record.features == features
    assert record.epoch == 0x1F and record.session_id == 0x77


def test_topic_assignment_versions():
    v1 = decode_znode(
        "/brokers/topics/orders", b'{"version":1,"partitions":{"1":[2,3,1],"0":[1,2,3]}}'
    )
    assert v1 == TopicAssignment("orders", 1, ((0, (1, 2, 3)), (1, (2, 3, 1))), (), (), None)
    v2 = decode_znode(
        "/brokers/topics/audit",
        b'{"version":2,"partitions":{"0":[1,3,2]},"adding_replicas":{"0":[1]},"removing_replicas":{"0":[2]}}',
    )
    assert v2 == TopicAssignment("audit", 2, ((0, (1, 3, 2)),), ((0, (1,)),), ((0, (2,)),), None)
    v3 = decode_znode(
        "/brokers/topics/t",
        b'{"partitions":{"0":[1,2,3]},"topic_id":"kW3aGe1cQ1yN8vQ0bYj3Pw","adding_replicas":{},'
        b'"removing_replicas":{},"version":3}',
    )
    assert isinstance(v3, TopicAssignment)
    assert v3.topic_id == "kW3aGe1cQ1yN8vQ0bYj3Pw" and v3.replicas(0) == (1, 2, 3)
    assert v3.replicas(5) is None


def test_partition_state():
    clean = decode_znode(
        "/brokers/topics/orders/partitions/2/state",
        b'{"controller_epoch":7,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}',
        zk_version=4,
    )
    assert clean == PartitionStateRecord(
        "orders", 2, 1, 1, 0, (1, 2, 3), 7, LeaderRecoveryState.RECOVERED, 4
    )
    assert clean.leader_and_isr == LeaderAndIsr(1, 0, (1, 2, 3), 4)
    assert clean.topic_partition == TopicPartition("orders", 2)
    unclean = decode_znode(
        "/brokers/topics/orders/partitions/2/state",
        b'{"controller_epoch":7,"leader":3,"version":1,"leader_recovery_state":1,'
        b'"leader_epoch":2,"isr":[3]}',
        zk_version=9,
    )
    assert isinstance(unclean, PartitionStateRecord)
    assert unclean.leader_recovery_state is LeaderRecoveryState.RECOVERING
    assert unclean.leader_and_isr.partition_epoch == 9
    no_leader = decode_znode(
        "/brokers/topics/o/partitions/0/state",
        b'{"controller_epoch":2,"leader":-1,"version":1,"leader_epoch":5,"isr":[]}',
    )
    assert isinstance(no_leader, PartitionStateRecord)
    assert no_leader.leader == -1 and no_leader.isr == () and no_leader.zk_version is None


def test_controller_and_epoch():
    assert decode_znode(
        "/controller", b'{"version":1,"brokerid":1,"timestamp":"1709647331487"}', ephemeral_owner=5
    ) == ControllerRecord(1, 1, 1709647331487, None, 5)
    assert decode_znode(
        "/controller",
        b'{"version":2,"brokerid":3,"timestamp":"1709647331487","kraftControllerEpoch":-1}',
    ) == ControllerRecord(3, 2, 1709647331487, -1, None)
    assert decode_znode("/controller", b"2") == ControllerRecord(2, None, None, None, None)
    assert decode_znode("/controller_epoch", b"7", zk_version=6) == ControllerEpochRecord(7, 6)


def test_configs_and_notifications():
    topic = decode_znode(
        "/config/topics/audit", b'{"version":1,"config":{"unclean.leader.election.enable":"true"}}'
    )
    assert topic == EntityConfigRecord(
        "topics", "audit", 1, (("unclean.leader.election.enable", "true"),)
    )
    default = decode_znode(
        "/config/brokers/<default>",
        b'{"version":1,"config":{"unclean.leader.election.enable":"false"}}',
    )
    assert isinstance(default, EntityConfigRecord)
    assert (
        default.entity_name == "<default>"
        and default.get("unclean.leader.election.enable") == "false"
    )
    assert classify_path("/config/brokers/<default>").broker_id is None
    assert classify_path("/config/brokers/2").broker_id == 2
    assert classify_path("/config/users/alice/clients/app").entity_name == "alice/clients/app"
    assert decode_znode(
        "/config/changes/config_change_0000000012", b'{"version":2,"entity_path":"topics/audit"}'
    ) == ConfigChangeNotification(12, 2, "topics/audit")
    assert decode_znode(
        "/config/changes/config_change_0000000003",
        b'{"version":1,"entity_type":"topics","entity_name":"audit"}',
    ) == ConfigChangeNotification(3, 1, "topics/audit")
    assert decode_znode(
        "/isr_change_notification/isr_change_0000000003",
        b'{"version":1,"partitions":[{"topic":"orders","partition":0}]}',
    ) == IsrChangeNotification(3, 1, (TopicPartition("orders", 0),))
    assert decode_znode(
        "/log_dir_event_notification/log_dir_event_0000000001",
        b'{"version":1,"broker":2,"event":1}',
    ) == LogDirEventNotification(1, 1, 2, 1)


def test_admin_paths():
    assert decode_znode(
        "/admin/reassign_partitions",
        b'{"version":1,"partitions":[{"topic":"audit","partition":0,"replicas":[1,3]}]}',
    ) == ReassignPartitionsRecord(1, ((TopicPartition("audit", 0), (1, 3)),))
    assert decode_znode(
        "/admin/preferred_replica_election",
        b'{"version":1,"partitions":[{"topic":"orders","partition":1}]}',
    ) == PreferredReplicaElectionRecord(1, (TopicPartition("orders", 1),))
    assert decode_znode("/admin/delete_topics/orders", None) == DeleteTopicRecord("orders")
    assert decode_znode("/admin/delete_topics/orders", b"") == DeleteTopicRecord("orders")


def test_cluster_feature_producer_ids_migration():
    assert decode_znode(
        "/cluster/id", b'{"version":"1","id":"H1Qv0Y8tQ5KqW3p9ZcYx2A"}'
    ) == ClusterIdRecord("H1Qv0Y8tQ5KqW3p9ZcYx2A", "1")
    assert decode_znode("/feature", b'{"features":{},"version":2,"status":1}') == FeatureRecord(
        2, 1, ()
    )
    assert decode_znode(
        "/feature",
        b'{"version":1,"status":1,"features":{"f":{"min_version_level":1,"max_version_level":2}}}',
    ) == FeatureRecord(1, 1, (FeatureRange("f", 1, 2),))
    assert decode_znode(
        "/latest_producer_id_block",
        b'{"version":1,"broker":1,"block_start":"0","block_end":"999"}',
    ) == ProducerIdBlockRecord(1, 1, 0, 999)
    assert decode_znode("/latest_producer_id_block", None) == ProducerIdBlockRecord(
        None, None, None, None
    )
    assert decode_znode(
        "/migration",
        b'{"version":0,"kraft_metadata_offset":10,"kraft_controller_id":3000,'
        b'"kraft_metadata_epoch":2,"kraft_controller_epoch":5}',
    ) == MigrationRecord(0, 3000, 5, 10, 2)


PS = "/brokers/topics/t/partitions/0/state"
EPOCHS = b'"leader_epoch":0,"controller_epoch":1,"isr":[1]'


@pytest.mark.parametrize(
    ("path", "payload", "reason"),
    [
        (PS, b'{"leader":1', "not JSON"),
        (PS, b'{"leader":1,"leader_epoch":0,"isr":[1]}', "controller_epoch"),
        (PS, b'{"leader":"x",' + EPOCHS + b"}", "expected an integer"),
        (PS, b'{"leader":true,' + EPOCHS + b"}", "expected an integer"),
        (PS, b'{"leader":1,' + EPOCHS + b',"leader_recovery_state":7}', "leader_recovery_state"),
        ("/brokers/topics/t", b'{"version":1}', "partitions"),
        ("/brokers/topics/t", b'{"version":1,"partitions":{"x":[1]}}', "partition key"),
        ("/brokers/ids/3", b"\xff\xfe", "UTF-8"),
        ("/brokers/ids/3", b'{"version":4,"endpoints":["nonsense"]}', "endpoint"),
        ("/brokers/ids/3", None, "no payload"),
        ("/controller", b"[1,2]", "expected an object"),
        ("/controller_epoch", b"seven", "not an integer"),
        ("/cluster/id", b'{"version":"1"}', "'id'"),
    ],
)
def test_malformed_payloads_are_records_with_a_reason(path, payload, reason):
    record = decode_znode(path, payload)
    assert isinstance(record, MalformedZNode)
    assert record.path == path and record.data == payload
    assert record.kind is classify_path(path).kind
    assert reason in record.reason


def test_classify_path_and_chroot():
    assert classify_path("/brokers/topics/t/partitions/3/state") == ZNodePath(
        ZNodeKind.partition_state, topic="t", partition=3
    )
    assert classify_path("/brokers/topics/t/partitions/3") is None
    assert classify_path("/brokers/ids") is None
    assert classify_path("/brokers/ids/x") is None
    assert classify_path("/zookeeper/quota") is None
    assert classify_path("/kafka/controller") is None
    assert classify_path("/kafka/controller", "/kafka") == ZNodePath(ZNodeKind.controller)
    assert classify_path("/other/controller", "/kafka") is None
    assert classify_path("/isr_change_notification/isr_change_0000000042").sequence == 42
    assert decode_znode("/zookeeper/config", b"server.1=x") is None
    assert detect_chroot(["/", "/brokers", "/brokers/ids", "/zookeeper"]) == ""
    assert detect_chroot(["/", "/kafka", "/kafka/brokers/ids", "/kafka/brokers/topics"]) == "/kafka"
    assert detect_chroot(["/", "/zookeeper"]) == ""


def test_record_to_json_is_plain():
    record = decode_znode(
        "/brokers/topics/t/partitions/0/state",
        b'{"controller_epoch":7,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2]}',
        zk_version=3,
    )
    assert record_to_json(record) == (
        '{"topic":"t","partition":0,"version":1,"leader":1,"leader_epoch":0,"isr":[1,2],'
        '"controller_epoch":7,"leader_recovery_state":0,"zk_version":3}'
    )
    malformed = decode_znode("/controller", b"\xff")
    assert '"hex":"ff"' in record_to_json(malformed)
