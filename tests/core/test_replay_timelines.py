"""Cluster timelines: liveness and controlled shutdown over time (logs, ZooKeeper sessions,
KRaft fencing), controller epochs, the unclean setting in force and where it came from,
assignments, deletion and KRaft change contexts."""

from __future__ import annotations

import json
import pickle

from kafkactl_core.replay import (
    ClusterFact,
    ClusterFactKind,
    ClusterTimelines,
    ReplaySettings,
    Source,
    build_timelines,
    with_what_if,
)

K = ClusterFactKind
UNCLEAN = "unclean.leader.election.enable"


def fact(kind, t, source=Source.controller_log, **values):
    return ClusterFact("c", t, source, kind, f"{source.name}:{t}", t, **values)


def timelines(*facts) -> ClusterTimelines:
    return ClusterTimelines.from_facts("c", facts)


def test_liveness_from_broker_sets_and_deltas():
    tl = timelines(
        fact(K.registered_set, 10, brokers=(1, 2, 3)),
        fact(K.broker_down, 20, broker=2),
        fact(K.shutting_down_add, 30, broker=3),
        fact(K.broker_up, 40, broker=2),
        fact(K.shutting_down_remove, 50, brokers=(3,)),
    )
    assert not tl.liveness_at(5).complete and tl.liveness_at(5).live == frozenset()
    assert tl.liveness_at(10).live == {1, 2, 3} and tl.liveness_at(10).complete
    assert tl.liveness_at(25).live == {1, 3} and tl.liveness_at(25).is_known(2)
    view = tl.liveness_at(35)
    assert view.live == {1} and view.shutting_down == {3} and view.registered == {1, 3}
    assert tl.liveness_at(45).live == {1, 2}
    assert tl.liveness_at(10_000).live == {1, 2, 3}
    assert tl.liveness_at(None).live == frozenset()


def test_live_set_of_a_controlled_shutdown_keeps_the_shutting_broker_registered():
    tl = timelines(
        fact(K.shutting_down_set, 10, brokers=(2,)),
        fact(K.live_set, 10, brokers=(0, 1)),
    )
    view = tl.liveness_at(10)
    assert view.live == {0, 1} and view.registered == {0, 1, 2} and view.complete


def test_out_of_order_facts_are_sorted_and_partial_knowledge_is_partial():
    tl = timelines(fact(K.broker_down, 30, broker=5), fact(K.broker_up, 10, broker=4))
    view = tl.liveness_at(40)
    assert view.live == {4} and not view.complete
    assert view.is_known(5) and view.is_known(4) and not view.is_known(6)


def test_zookeeper_session_end_takes_the_broker_down():
    zk = Source.zk_txn
    tl = timelines(
        fact(K.broker_up, 10, zk, broker=1),
        fact(K.session_registered, 10, zk, broker=1, session=0xA),
        fact(K.broker_up, 11, zk, broker=2),
        fact(K.session_registered, 11, zk, broker=2, session=0xB),
        fact(K.session_closed, 50, zk, session=0xA, detail="session_expired"),
        fact(K.session_closed, 60, zk, session=0xFFFF),  # not a broker's session
    )
    assert tl.liveness_at(49).live == {1, 2}
    assert tl.liveness_at(50).live == {2}
    assert tl.went_down_within(1, 40, 10) and not tl.went_down_within(1, 40, 9)
    assert not tl.went_down_within(2, 0, 10_000)


def test_kraft_fencing():
    kraft = Source.kraft_log
    tl = timelines(
        fact(K.broker_up, 10, kraft, broker=1, detail="unfenced"),
        fact(K.broker_up, 10, kraft, broker=2, detail="unfenced"),
        fact(K.broker_down, 20, kraft, broker=2, detail="fenced"),
        fact(K.kraft_context, 20, kraft, broker=2, detail="handleBrokerFenced"),
    )
    assert tl.liveness_at(25).live == {1}
    assert tl.kraft_context_near(22, 5) == "handleBrokerFenced"
    assert tl.kraft_context_near(40, 5) is None


def test_next_live_member():
    tl = timelines(
        fact(K.registered_set, 10, brokers=(1,)),
        fact(K.broker_up, 100, broker=3),
        fact(K.broker_up, 200, broker=2),
    )
    assert tl.next_live((2, 3), 50) == (100, 3)
    assert tl.next_live((2,), 50) == (200, 2)
    assert tl.next_live((1,), 50) == (50, 1)
    assert tl.next_live((9,), 50) is None and tl.next_live((), 50) is None


def test_controller_history_and_epoch_regression():
    tl = timelines(
        fact(K.controller, 10, controller_id=1, epoch=5),
        fact(K.controller, 20, controller_id=1, detail="resigned"),
        fact(K.controller, 30, controller_id=2),
        fact(K.controller_epoch, 31, controller_id=2, epoch=6),
        fact(K.controller_epoch, 40, epoch=4),
    )
    assert tl.controller_at(15) == (1, 5)
    assert tl.controller_at(25) == (None, 5)
    assert tl.controller_at(30) == (2, None)
    assert tl.controller_at(35) == (2, 6)
    (anomaly,) = tl.anomalies()
    assert anomaly.kind == "controller_epoch_regression" and anomaly.observed == "4"


def test_unclean_setting_precedence():
    settings = ReplaySettings.of("2.8")
    tl = timelines(
        fact(K.config, 10, scope="broker_default", name="<default>", key=UNCLEAN, value="true"),
        fact(K.config, 20, scope="broker", name="7", key=UNCLEAN, value="false"),
        fact(K.config, 30, scope="topic", name="orders", key=UNCLEAN, value="true"),
        fact(K.config, 40, scope="topic", name="orders", key=UNCLEAN, value=None),
        fact(K.config, 50, scope="topic", name="audit", key=UNCLEAN, value="maybe"),
    )
    assert tl.unclean_setting("orders", 5, settings, 7) == (False, "version_default")
    assert tl.unclean_setting("orders", 15, settings, 7) == (True, "broker_config")
    assert tl.unclean_setting("orders", 25, settings, 7) == (False, "broker_config")
    assert tl.unclean_setting("orders", 25, settings, None) == (True, "broker_config")
    assert tl.unclean_setting("orders", 35, settings, 7) == (True, "topic_config")
    assert tl.unclean_setting("orders", 45, settings, 7) == (False, "broker_config")
    # An invalid value is skipped (Kafka rejects it), falling back to the broker's.
    assert tl.unclean_setting("audit", 55, settings, 7) == (False, "broker_config")
    configured = ReplaySettings.of("2.8", broker_unclean_enable=True)
    assert timelines().unclean_setting("x", 1, configured, None) == (True, "configured_default")
    assert timelines().unclean_setting("x", 1, ReplaySettings.of("0.10.2"), None) == (
        True,
        "version_default",
    )
    forced, _ = with_what_if(settings, ["unclean.leader.election.enable=false"])
    assert tl.unclean_setting("orders", 35, forced, 7) == (False, "what_if")


def test_min_isr_setting_precedence():
    key = "min.insync.replicas"
    tl = timelines(
        fact(K.config, 10, scope="broker_default", name="<default>", key=key, value="2"),
        fact(K.config, 20, scope="broker", name="101", key=key, value="3"),
        fact(K.config, 30, scope="topic", name="orders", key=key, value="1"),
        fact(K.config, 40, scope="topic", name="orders", key=key, value=None),
        fact(K.config, 50, scope="topic", name="audit", key=key, value="0"),
        fact(K.config, 50, scope="topic", name="logs", key=key, value="two"),
    )
    assert tl.min_isr_setting("orders", 5, None, 101) == (1, "version_default")
    assert tl.min_isr_setting("orders", 15, None, 101) == (2, "broker_config")
    assert tl.min_isr_setting("orders", 25, None, 101) == (3, "broker_config")
    assert tl.min_isr_setting("orders", 25, None, None) == (2, "broker_config")
    assert tl.min_isr_setting("orders", 35, None, 101) == (1, "topic_config")
    assert tl.min_isr_setting("orders", 45, None, 101) == (3, "broker_config")
    # Kafka rejects a value below 1 or not an integer: the broker's applies.
    assert tl.min_isr_setting("audit", 55, None, 101) == (3, "broker_config")
    assert tl.min_isr_setting("logs", 55, None, 101) == (3, "broker_config")
    assert timelines().min_isr_setting("x", 1, 2, None) == (2, "configured_default")
    assert tl.min_isr_setting("orders", 35, 2, 101) == (1, "topic_config")


def test_a_restated_kraft_topic_history_is_not_a_new_topic():
    """A KRaft controller that restarts replays its log and logs each record again: a removed
    topic's creation and removal (same topic ID) are history, not a second topic; a topic
    created again under the same name has a new ID."""
    log = Source.kraft_log
    tl = timelines(
        fact(K.topic_created, 10, log, topic="doomed", value="X"),
        fact(K.topic_deleted, 20, log, topic="doomed", value="X"),
        fact(K.topic_created, 100, log, topic="doomed", value="X"),
        fact(K.topic_deleted, 110, log, topic="doomed", value="X"),
        fact(K.topic_created, 200, log, topic="doomed", value="Y"),
    )
    assert tl.restated_creation("doomed", 100, 5) and tl.restated_creation("doomed", 105, 5)
    assert not tl.restated_creation("doomed", 106, 5)
    assert not tl.restated_creation("doomed", 200, 5)
    assert not tl.restated_creation("doomed", 10, 5)
    assert [f.time_ms for f in tl.completed_deletions("doomed")] == [20]
    assert not tl.deleted_between("doomed", 50, 150)


def test_assignments_and_deletion():
    body = json.dumps({"partitions": {"0": [1, 2], "1": [2, 3]}, "adding": {}, "removing": {}})
    moved = json.dumps({"partitions": {"0": [4, 5], "1": [2, 3]}, "adding": {}, "removing": {}})
    tl = timelines(
        fact(K.topic_assignment, 10, topic="orders", detail=body),
        fact(K.topic_assignment, 20, topic="orders", detail=moved),
        fact(K.topic_assignment, 25, topic="bad", detail="{oops"),
        fact(K.topic_deletion_started, 30, topic="orders"),
        fact(K.topic_deleted, 40, topic="orders"),
    )
    assert tl.assignment_at("orders", 0, 5) is None
    assert tl.assignment_at("orders", 0, 15) == (1, 2)
    assert tl.assignment_at("orders", 0, 25) == (4, 5)
    assert tl.assignment_at("orders", 7, 25) is None
    assert not tl.deleting_at("orders", 25) and tl.deleting_at("orders", 35)
    assert not tl.deleting_at("orders", 45)
    assert [a.kind for a in tl.anomalies()] == ["unusable_evidence"]


def test_notes_become_anomalies_and_timelines_pickle():
    tl = timelines(fact(K.note, 5, detail="unparsable partition 'x'"))
    (anomaly,) = tl.anomalies()
    assert anomaly.kind == "unusable_evidence" and "unparsable" in anomaly.detail
    copy = pickle.loads(pickle.dumps(tl))  # broadcast to Spark executors
    assert copy.anomalies()[0].detail == anomaly.detail


def test_facts_of_several_clusters_are_split():
    a = ClusterFact("a", 1, Source.zk_txn, K.broker_up, "x", broker=1)
    b = ClusterFact("b", 1, Source.zk_txn, K.broker_up, "y", broker=2)
    built = build_timelines([a, b])
    assert built["a"].liveness_at(2).live == {1} and built["b"].liveness_at(2).live == {2}


def test_zookeeper_snapshot_and_txns_of_one_millisecond_follow_the_zxids():
    # The first controller creates /controller_epoch "0" and sets it to 1 in the same ms (zxids
    # 0x16, 0x17); a later snapshot holds the znode as 0x17 left it, timed at its mtime.
    def zk(source, zxid, epoch):
        name = "snapshot.28" if source is Source.zk_snapshot else "log.1"
        return ClusterFact(
            "c", 2, source, K.controller_epoch, f"{name}:zxid={zxid:#x}", zxid, epoch=epoch
        )

    tl = timelines(
        zk(Source.zk_snapshot, 0x17, 1), zk(Source.zk_txn, 0x16, 0), zk(Source.zk_txn, 0x17, 1)
    )
    assert tl.anomalies() == []
    assert tl.controller_at(2) == (None, 1)
