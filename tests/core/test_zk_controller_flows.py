"""Controller flows of the scenario engine where the oracle is thin: bounces, deletion, configs."""

from __future__ import annotations

from kafkactl_core.model import LeaderAndIsr, LeaderRecoveryState, PartitionState, TopicPartition
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.zkcontroller.cluster import ClusterSpec, ControllerConfig
from kafkactl_core.zkcontroller.controller import ZkController
from kafkactl_core.zkcontroller.results import RequestSource

T0 = TopicPartition("t", 0)


def engine(
    release: str = "3.8", live: tuple[int, ...] = (1, 2, 3), unclean: bool | None = None
) -> ZkController:
    conf = ControllerConfig(unclean_leader_election_enable=unclean)
    return ZkController(ClusterSpec(KafkaVersion.of(release), live, 1, conf))


def leadership(e: ZkController, tp: TopicPartition = T0) -> LeaderAndIsr:
    view = e.partition(tp)
    assert view is not None and view.leadership is not None
    return view.leadership


def test_bounced_leader_is_failed_over_then_restarted() -> None:
    e = engine()
    e.create_topic("t", {0: [2, 3]})
    result = e.broker_startup(2)  # 2 is registered: a bounce
    assert [(r.previous_leader, r.new_leader) for r in result.elections] == [(2, 3)]
    assert leadership(e) == LeaderAndIsr(3, 1, (3,), 1)
    assert 2 in e.live_brokers


def test_unclean_default_by_release() -> None:
    for release, expected_leader in (("0.10.2", 2), ("0.11.0", -1)):
        e = engine(release, live=(1, 2, 3))
        e.create_topic("t", {0: [3, 2]})
        e.isr_change(T0, (3,))
        e.broker_failure(3)
        assert leadership(e).leader == expected_leader, release


def test_topic_override_wins_over_broker_setting() -> None:
    e = engine(unclean=True)
    e.create_topic("t", {0: [3, 2]}, {"unclean.leader.election.enable": "false"})
    e.isr_change(T0, (3,))
    e.broker_failure(3)
    assert leadership(e).leader == -1
    assert e.metrics().offline_partition_count == 1


def test_dynamic_topic_unclean_triggers_from_2_4_only() -> None:
    for release, leader_after in (("2.3", -1), ("2.4", 2)):
        e = engine(release, unclean=False)
        e.create_topic("t", {0: [3, 2]})
        e.isr_change(T0, (3,))
        e.broker_failure(3)
        e.set_config("topic", "unclean.leader.election.enable", "true", topic="t")
        assert leadership(e).leader == leader_after, release
    # Before 2.4 it takes effect at the next broker change.
    e.broker_startup(1)
    assert leadership(e).leader == 2
    assert e.metrics().unclean_election_meter_count == 1


def test_dynamic_broker_default_triggers_from_2_0() -> None:
    e = engine("2.0", unclean=False)
    e.create_topic("t", {0: [3, 2]})
    e.isr_change(T0, (3,))
    e.broker_failure(3)
    result = e.set_config("broker", "unclean.leader.election.enable", True)
    assert [r.unclean for r in result.elections] == [True]
    assert leadership(e).leader_recovery_state is LeaderRecoveryState.RECOVERED


def test_admin_unclean_election() -> None:
    e = engine("3.8", unclean=False)
    e.create_topic("t", {0: [3, 2]})
    e.isr_change(T0, (3,))
    e.broker_failure(3)
    result = e.unclean_election([T0, TopicPartition("nope", 0)])
    assert result.errors == {TopicPartition("nope", 0): "UNKNOWN_TOPIC_OR_PARTITION", T0: "NONE"}
    assert leadership(e) == LeaderAndIsr(2, 2, (2,), 3, LeaderRecoveryState.RECOVERING)
    assert engine("2.3").unclean_election([T0]).error == "UnsupportedVersionException"


def test_preferred_not_needed_by_release() -> None:
    for release, code, written in (("2.2", "ELECTION_NOT_NEEDED", False), ("1.1", None, True)):
        e = engine(release)
        e.create_topic("t", {0: [1, 2]})
        result = e.preferred_election(RequestSource.zk, [T0])
        assert result.errors.get(T0) == code, release
        assert (T0 in result.written) is written


def test_auto_rebalance_threshold_is_strict() -> None:
    e = engine()
    e.create_topic("t", {p: [2, 3] for p in range(10)})
    e.controlled_shutdown(2)
    e.broker_startup(2)  # bounce: 2 is live again, not leading anything
    for p in range(10):
        assert not e.isr_change(TopicPartition("t", p), (3, 2)).errors
    for p in range(9):  # move back all but one: ratio 1/10 == 10%, not above
        e.preferred_election(RequestSource.admin, [TopicPartition("t", p)])
    group = e.auto_rebalance_check().imbalance
    assert group is not None and group[2].ratio == 0.1 and not group[2].rebalance
    assert e.metrics().preferred_replica_imbalance_count == 1


def test_topic_deletion_waits_for_dead_replica() -> None:
    e = engine()
    e.create_topic("t", {0: [2, 3]})
    e.broker_failure(3)
    e.delete_topic("t")
    assert e.partition(T0) is not None
    assert e.ctx.partition_state(T0) is PartitionState.NonExistentPartition
    e.broker_startup(3)
    assert e.partition(T0) is None
    assert e.create_topic("t", {0: [1]}).error is None


def test_log_dir_failure_moves_leadership() -> None:
    e = engine()
    e.create_topic("t", {0: [2, 3]})
    result = e.log_dir_failure(2, [T0])
    assert [(r.previous_leader, r.new_leader) for r in result.elections] == [(2, 3)]
    assert leadership(e).isr == (3,)
    assert engine("0.11.0").log_dir_failure(2, [T0]).error == "UnsupportedVersionException"


def test_failover_resumes_pending_zk_reassignment() -> None:
    e = engine()
    e.create_topic("t", {0: [1]})
    e.broker_failure(1)  # the controller dies
    e.reassign(T0, [2])
    view = e.partition(T0)
    assert view is not None and view.reassignment_in_progress
    e.controller_failover(2)
    assert e.metrics().active_controller == 2
    view = e.partition(T0)
    assert view is not None and view.assignment.adding == (2,)


def test_stale_controlled_shutdown_and_unknown_broker() -> None:
    e = engine()
    epoch = e.ctx.live_broker_epochs[2]
    assert e.controlled_shutdown(2, epoch - 1).error == "StaleBrokerEpochException"
    assert engine("2.1").controlled_shutdown(2, 0).error is None
    assert e.controlled_shutdown(9).error == "BrokerNotAvailableException"
