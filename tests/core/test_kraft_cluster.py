"""The KRaft cluster model: broker lifecycle, topics, AlterPartition, elections, configs, replay."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kafkactl_core.kraft import directory_ids
from kafkactl_core.kraft.brokers import BrokerRegistration
from kafkactl_core.kraft.builder import Election
from kafkactl_core.kraft.cluster import AlterPartitionRequest, ClusterSettings, KRaftCluster
from kafkactl_core.kraft.configs import ConfigResourceType
from kafkactl_core.kraft.errors import ApiError, Errors
from kafkactl_core.kraft.metadata_version import MetadataVersion
from kafkactl_core.kraft.records import (
    BrokerRegistrationChangeRecord,
    FeatureLevelRecord,
    FenceBrokerRecord,
    PartitionChangeRecord,
    RecordAndVersion,
    UnfenceBrokerRecord,
)
from kafkactl_core.model import LeaderRecoveryState, TopicPartition
from kafkactl_core.versions import KafkaRelease

T0 = TopicPartition("t", 0)


def _cluster(
    brokers: Sequence[int] = (1, 2, 3),
    mv: str = "3.9-IV0",
    release: str = "3.9",
    elr: bool = False,
    controller_node_id: int | None = None,
    static_config: dict[str, str] | None = None,
    max_elections_per_imbalance: int = 1000,
) -> KRaftCluster:
    cluster = KRaftCluster(
        ClusterSettings(
            MetadataVersion.parse(mv),
            KafkaRelease.parse(release),
            eligible_leader_replicas_enabled=elr,
            controller_node_id=controller_node_id,
            static_config=static_config or {},
            max_elections_per_imbalance=max_elections_per_imbalance,
        )
    )
    for broker in brokers:
        cluster.register_broker(broker, 100 + broker)
        cluster.heartbeat(broker)
    return cluster


def _registration(cluster: KRaftCluster, broker: int) -> BrokerRegistration:
    registration = cluster.broker(broker)
    assert registration is not None, f"broker {broker} is not registered"
    return registration


def _types(records: Sequence[RecordAndVersion]) -> list[str]:
    return [type(r.record).__name__ for r in records]


def test_new_broker_is_fenced_until_its_heartbeat() -> None:
    cluster = _cluster(brokers=())
    cluster.register_broker(1, 101)
    assert _registration(cluster, 1).fenced
    assert not cluster.is_active(1)
    reply = cluster.heartbeat(1).response
    assert not isinstance(reply, ApiError) and not reply.is_fenced
    assert cluster.is_active(1)


def test_create_topic_isr_is_active_replicas_led_by_the_first() -> None:
    cluster = _cluster()
    cluster.fence_stale_broker(1)
    assert cluster.create_topic("t", assignment={0: [1, 2, 3]}).response.is_success
    partition = cluster.partition(T0)
    assert partition is not None
    assert (partition.isr, partition.leader, partition.leader_epoch) == ((2, 3), 2, 0)
    assert cluster.imbalanced_partitions() == [T0]


def test_create_topic_errors() -> None:
    empty = _cluster(brokers=())
    assert empty.create_topic("t").response == ApiError(
        Errors.INVALID_REPLICATION_FACTOR,
        "Unable to replicate the partition 1 time(s): All brokers are currently fenced.",
    )
    cluster = _cluster()
    cluster.create_topic("t", assignment={0: [1, 2]})
    assert cluster.create_topic("t", assignment={0: [1]}).response.error is (
        Errors.TOPIC_ALREADY_EXISTS
    )
    assert cluster.create_topic("a.b", assignment={0: [1]}).response.is_success
    assert cluster.create_topic("a_b", assignment={0: [1]}).response.error is (
        Errors.INVALID_TOPIC_EXCEPTION
    )
    assert cluster.create_topic("u", assignment={0: [1, 9]}).response.error is (
        Errors.INVALID_REPLICA_ASSIGNMENT
    )
    assert cluster.create_topic("v", num_partitions=0).response.error is Errors.INVALID_PARTITIONS


def test_controlled_shutdown_of_the_only_replica_leaves_no_leader() -> None:
    cluster = _cluster(brokers=(1,))
    cluster.create_topic("t", assignment={0: [1]})
    result = cluster.heartbeat(1, want_shut_down=True)
    assert _types(result.records) == ["BrokerRegistrationChangeRecord", "PartitionChangeRecord"]
    partition = cluster.partition(T0)
    assert partition is not None and (partition.leader, partition.isr) == (-1, (1,))
    # No leadership left: the next heartbeat shuts the broker down (fences it).
    again = cluster.heartbeat(1, want_shut_down=True)
    assert _types(again.records) == ["BrokerRegistrationChangeRecord"]
    assert again.records[0].record == BrokerRegistrationChangeRecord(1, 101, fenced=1)


def test_shutdown_request_without_leaderships_fences_at_once() -> None:
    cluster = _cluster()
    cluster.create_topic("t", assignment={0: [1, 2]})
    result = cluster.heartbeat(2, want_shut_down=True)
    reply = result.response
    assert not isinstance(reply, ApiError) and reply.should_shut_down
    assert result.records[0].record == PartitionChangeRecord(
        0, cluster.topic_id("t") or "", isr=(1,)
    )
    assert _registration(cluster, 2).fenced


def test_fence_and_unfence_records_before_3_3_iv2() -> None:
    cluster = _cluster(mv="3.3-IV1")
    cluster.create_topic("t", assignment={0: [1, 2]})
    fenced = cluster.fence_stale_broker(1)
    assert _types(fenced.records) == ["PartitionChangeRecord", "FenceBrokerRecord"]
    assert fenced.records[1].record == FenceBrokerRecord(1, 101)
    unfenced = cluster.heartbeat(1)
    assert unfenced.records[0].record == UnfenceBrokerRecord(1, 101)


def test_isr_shrink_epoch_bump_depends_on_mv() -> None:
    for mv, delta in (("3.5-IV2", 1), ("3.6-IV0", 0)):
        cluster = _cluster(mv=mv)
        cluster.create_topic("t", assignment={0: [1, 2, 3]})
        cluster.fence_stale_broker(3)
        partition = cluster.partition(T0)
        assert partition is not None
        assert (partition.leader_epoch, partition.partition_epoch) == (delta, 1)


def test_stale_broker_epoch() -> None:
    cluster = _cluster()
    result = cluster.heartbeat(1, broker_epoch=7)
    assert result.records == ()
    assert isinstance(result.response, ApiError)
    assert result.response.error is Errors.STALE_BROKER_EPOCH


def test_alter_partition_validation() -> None:
    cluster = _cluster()
    cluster.create_topic("t", assignment={0: [1, 2, 3]})
    cluster.fence_stale_broker(3)

    def alter(broker: int, request: AlterPartitionRequest, version: int = 3) -> Errors:
        result = cluster.alter_partition(broker, {T0: request}, version=version)
        return result.response[T0].error

    assert alter(2, AlterPartitionRequest((1, 2))) is Errors.INVALID_REQUEST  # not the leader
    assert alter(1, AlterPartitionRequest((2,))) is Errors.INVALID_REQUEST  # drops the leader
    assert alter(1, AlterPartitionRequest((1, 4))) is Errors.INVALID_REQUEST  # not a replica
    assert alter(1, AlterPartitionRequest((1, 2), leader_epoch=5)) is Errors.NOT_CONTROLLER
    assert alter(1, AlterPartitionRequest((1, 2, 3))) is Errors.INELIGIBLE_REPLICA
    assert alter(1, AlterPartitionRequest((1, 2, 3)), version=1) is Errors.OPERATION_NOT_ATTEMPTED
    assert alter(1, AlterPartitionRequest((1,))) is Errors.NONE
    assert alter(1, AlterPartitionRequest((1, 2), partition_epoch=0)) is (
        Errors.INVALID_UPDATE_VERSION
    )


def test_unclean_election_then_recovery() -> None:
    cluster = _cluster(brokers=(1, 2))
    cluster.create_topic("t", assignment={0: [1, 2]})
    cluster.alter_partition(1, {T0: AlterPartitionRequest((1,))})
    cluster.fence_stale_broker(1)
    result = cluster.elect_leaders(Election.UNCLEAN, [T0])
    assert result.response[T0].is_success
    assert result.elections[T0].election.unclean
    partition = cluster.partition(T0)
    assert partition is not None
    assert (partition.leader, partition.isr) == (2, (2,))
    assert partition.leader_recovery_state is LeaderRecoveryState.RECOVERING
    done = cluster.alter_partition(
        2, {T0: AlterPartitionRequest((2,), leader_recovery_state=LeaderRecoveryState.RECOVERED)}
    )
    assert done.response[T0].leader_recovery_state is LeaderRecoveryState.RECOVERED


def test_unclean_config_resolution_order() -> None:
    cluster = _cluster(controller_node_id=1, static_config={"min.insync.replicas": "2"})
    cluster.create_topic("t", assignment={0: [1, 2, 3]})
    assert cluster.configs.topic_config("t", "unclean.leader.election.enable") == (
        "false",
        "default",
    )
    assert cluster.effective_min_isr("t") == 2
    broker = ConfigResourceType.BROKER
    key = "unclean.leader.election.enable"
    cluster.set_config(broker, "", key, "true")
    assert cluster.unclean_leader_election_enabled("t")
    cluster.set_config(broker, "1", key, "false")
    assert not cluster.unclean_leader_election_enabled("t")
    cluster.set_config(broker, "2", key, "true")  # not the controller's node: ignored
    assert not cluster.unclean_leader_election_enabled("t")
    cluster.set_config(ConfigResourceType.TOPIC, "t", key, "TRUE")
    assert cluster.configs.topic_config("t", key) == ("TRUE", "topic")
    assert cluster.unclean_leader_election_enabled("t")
    assert cluster.set_config(ConfigResourceType.TOPIC, "t", key, "maybe").response.error is (
        Errors.INVALID_CONFIG
    )
    assert cluster.set_config(ConfigResourceType.TOPIC, "x", key, "true").response.error is (
        Errors.UNKNOWN_TOPIC_OR_PARTITION
    )
    assert cluster.set_config(2, "t", "min.insync.replicas", "3").response.is_success
    assert cluster.effective_min_isr("t") == 3
    assert cluster.set_config(99, "t", key, "true").response.error is Errors.INVALID_REQUEST


def test_unclean_config_is_hard_wired_false_before_3_9() -> None:
    cluster = _cluster(release="3.8", static_config={"unclean.leader.election.enable": "true"})
    cluster.create_topic("t", assignment={0: [1]})
    assert not cluster.unclean_leader_election_enabled("t")
    cluster.fence_stale_broker(1)
    assert cluster.elect_unclean_leaders().records == ()


def test_balance_partition_leaders_respects_the_record_cap() -> None:
    cluster = _cluster(max_elections_per_imbalance=1)
    cluster.create_topic("t", assignment={0: [1, 2], 1: [1, 3]})
    cluster.fence_stale_broker(1)
    cluster.heartbeat(1)
    cluster.alter_partition(2, {T0: AlterPartitionRequest((2, 1))})
    cluster.alter_partition(3, {TopicPartition("t", 1): AlterPartitionRequest((3, 1))})
    assert len(cluster.imbalanced_partitions()) == 2
    first = cluster.balance_partition_leaders()
    assert (len(first.records), first.response) == (1, True)
    second = cluster.balance_partition_leaders()
    assert (len(second.records), second.response) == (1, False)
    assert cluster.imbalanced_partitions() == []


def test_elr_and_delete_topic_empty_the_indexes() -> None:
    cluster = _cluster(brokers=(0, 1, 2), mv="4.0-IV1", elr=True)
    cluster.create_topic("t", assignment={0: [0, 1, 2]}, configs={"min.insync.replicas": "3"})
    cluster.fence_stale_broker(2)
    partition = cluster.partition(T0)
    assert partition is not None and (partition.isr, partition.elr) == ((0, 1), (2,))
    assert not cluster.isr_elr_index_empty()
    assert cluster.delete_topic("t").response.is_success
    assert cluster.isr_elr_index_empty()
    assert cluster.configs.get(ConfigResourceType.TOPIC, "t") == {}


def test_reassignment_completes_and_demotes_a_removed_leader() -> None:
    cluster = _cluster(brokers=(1, 2, 3, 4))
    cluster.create_topic("t", assignment={0: [1, 2, 3]})
    started = cluster.reassign_partition(T0, [4, 2, 3])
    assert started.records[0].record == PartitionChangeRecord(
        0,
        cluster.topic_id("t") or "",
        replicas=(4, 2, 3, 1),
        removing_replicas=(1,),
        adding_replicas=(4,),
        directories=(directory_ids.MIGRATING,) * 4,  # brokers registered without directories
    )
    done = cluster.alter_partition(1, {T0: AlterPartitionRequest((1, 2, 3, 4))})
    assert done.response[T0].error is Errors.NEW_LEADER_ELECTED
    partition = cluster.partition(T0)
    assert partition is not None
    assert (partition.replicas, partition.isr, partition.leader) == ((4, 2, 3), (2, 3, 4), 4)
    assert not partition.is_reassignment_in_progress


def test_offline_directory_removes_the_broker_from_its_partitions() -> None:
    cluster = KRaftCluster(ClusterSettings(MetadataVersion.parse("3.7-IV2")))
    dirs = {1: "TESTBROKER00001DIRAAAA", 2: "TESTBROKER00002DIRAAAA"}
    for broker, directory in dirs.items():
        cluster.register_broker(
            broker, 100 + broker, log_dirs=(directory, "OTHERDIRECTORYOFBROKER")
        )
        cluster.heartbeat(broker)
    cluster.create_topic("t", assignment={0: [1, 2]})
    topic_id = cluster.topic_id("t") or ""
    cluster.replay(PartitionChangeRecord(0, topic_id, directories=(dirs[1], dirs[2])))
    result = cluster.heartbeat(1, offline_log_dirs=[dirs[1]])
    assert _types(result.records) == ["PartitionChangeRecord", "BrokerRegistrationChangeRecord"]
    assert result.records[1].version == 2
    partition = cluster.partition(T0)
    assert partition is not None and (partition.leader, partition.isr) == (2, (2,))
    assert _registration(cluster, 1).directories == ("OTHERDIRECTORYOFBROKER",)


def test_unregister_broker() -> None:
    cluster = _cluster()
    cluster.create_topic("t", assignment={0: [1, 2]})
    result = cluster.unregister_broker(1)
    assert _types(result.records) == ["PartitionChangeRecord", "UnregisterBrokerRecord"]
    assert cluster.broker(1) is None
    assert cluster.unregister_broker(1).response.error is Errors.BROKER_ID_NOT_REGISTERED


def test_replay_reports_instead_of_raising() -> None:
    cluster = _cluster()
    assert cluster.replay(PartitionChangeRecord(0, "nope", leader=1)) is not None
    assert cluster.replay(BrokerRegistrationChangeRecord(1, 9, fenced=1)) is not None
    assert not _registration(cluster, 1).fenced
    assert cluster.replay(FeatureLevelRecord("metadata.version", 17)) is None
    assert cluster.metadata_version == MetadataVersion.parse("3.7-IV2")
    assert cluster.replay(FeatureLevelRecord("metadata.version", 999)) is not None


@pytest.mark.parametrize("broker", [1, 2])
def test_unclean_shutdown_needs_an_elr_metadata_version(broker: int) -> None:
    old = _cluster(mv="3.9-IV0")
    old.create_topic("t", assignment={0: [1, 2]})
    assert old.unclean_shutdown([broker]).records == ()
    new = _cluster(mv="4.0-IV0", elr=True)
    new.create_topic("t", assignment={0: [1, 2]})
    assert len(new.unclean_shutdown([broker]).records) == 1
    partition = new.partition(T0)
    assert partition is not None and broker not in partition.isr
