"""Real logs (reference/real-logs, see INDEX.md) through the Python grammar executor, the
normalizers, the timelines and the fold: the elections Kafka really made must come out.

* adelciu 0.10.2: three real unclean elections at 16:41:34 (``WARN [OfflinePartitionLeaderSelector]:
  No broker in ISR is alive for [dns_kafka_topic,1]. Elect leader 1 from live brokers 1``),
  after failed attempts at failover when no broker was live.
* artridic 2.1.1: a broker failure moves ``my-replicated-topic-0`` to broker 0, the preferred
  election moves it back to broker 1 once it rejoined the ISR; later the controller log shows
  the brokers' controlled shutdowns and failures.
* ammar 4.0 KRaft: fencing and unfencing of broker 3.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kafkactl_core.replay import (
    ReplayOutput,
    ReplaySettings,
    build_timelines,
    controller_event_rows,
    normalize_rows,
    replay,
)
from kafkactl_core.versions import KafkaRelease
from tests.conftest import reference_dir

REAL = reference_dir() / "real-logs"
pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason=f"no reference real logs at {REAL}")


def ms(text: str) -> int:
    stamp = datetime.fromisoformat(text).replace(tzinfo=UTC)
    return int(stamp.timestamp() * 1000)


def replay_files(version: str, *names: str):
    rows = []
    for name in names:
        rows.extend(controller_event_rows(REAL / name, "real", KafkaRelease.parse(version)))
    evidence, facts = normalize_rows(rows)
    timelines = build_timelines(facts)
    return replay(evidence, timelines, ReplaySettings.of(version)), timelines["real"]


def of(out: ReplayOutput, topic: str, partition: int):
    return [r for r in out.elections if (r.topic, r.partition) == (topic, partition)]


ADELCIU = (
    "adelciu-0.10.2-controller-unclean.log",
    "adelciu-0.10.2-state-change-unclean-excerpt.log",
)


def test_adelciu_real_unclean_election_of_dns_kafka_topic_1():
    out, _ = replay_files("0.10.2", *ADELCIU)
    failed, unclean = of(out, "dns_kafka_topic", 1)
    # At failover no broker was live: the attempt failed (its two lines are one row); nothing
    # was written after it, so the leadership it saw stayed in force.
    assert (failed.new_leader, failed.trigger, failed.prev_leader) == (-1, "offline", 1010)
    assert failed.elected_at_ms == ms("2021-04-28 16:41:33.686")
    assert (failed.expected_leader, failed.agrees) == (-1, True)
    assert (failed.prev_leader_epoch, failed.isr_before) == (0, (1010,))
    assert (failed.leader_epoch, failed.isr_after) == (0, (1010,))
    assert failed.source == "controller_log+state_change_log" and len(failed.evidence) == 2
    # Broker 1 registered: it was elected although only 1010 was in the ISR.
    assert unclean.elected_at_ms == ms("2021-04-28 16:41:34.236")
    assert (unclean.prev_leader, unclean.new_leader, unclean.leader_epoch) == (1010, 1, 1)
    assert (unclean.isr_before, unclean.isr_after) == ((1010,), (1,))
    assert (unclean.trigger, unclean.unclean) == ("offline", True)
    assert (unclean.unclean_setting, unclean.unclean_setting_source) == (True, "version_default")
    assert (unclean.expected_leader, unclean.agrees) == (1, True)
    assert (unclean.controller_id, unclean.controller_epoch) == (1, 58)
    assert unclean.live_brokers == (1,)
    refs = {ref.rsplit("/", 1)[-1] for ref in unclean.evidence}
    assert {
        "adelciu-0.10.2-controller-unclean.log:112",
        "adelciu-0.10.2-controller-unclean.log:113",
        "adelciu-0.10.2-controller-unclean.log:114",
        "adelciu-0.10.2-state-change-unclean-excerpt.log:75",
        "adelciu-0.10.2-state-change-unclean-excerpt.log:77",
    } <= refs
    assert unclean.source == "controller_log+state_change_log"


def test_adelciu_offline_partitions_fail_again_at_each_broker_change():
    # 0.10.2 triggerOnlinePartitionStateChange: the failover (16:41:33, no broker live), broker
    # 1's startup (16:41:34) and broker 2's (16:41:50) each try every offline partition again;
    # with no live assigned replica each try fails ("Pick the leader from the alive assigned
    # replicas: " with none): one row per try.
    out, _ = replay_files("0.10.2", *ADELCIU)
    tries = [r.elected_at_ms for r in of(out, "__consumer_offsets", 0) if r.new_leader == -1]
    assert [t // 1000 for t in tries] == [
        ms("2021-04-28 16:41:33.000") // 1000,
        ms("2021-04-28 16:41:34.000") // 1000,
        ms("2021-04-28 16:41:50.000") // 1000,
    ]
    failed = [r for r in out.elections if r.new_leader == -1]
    assert len({(r.topic, r.partition) for r in failed}) == 73 and len(failed) == 213
    assert all(r.agrees is True for r in failed)


def test_adelciu_every_unclean_row_is_a_real_unclean_election():
    out, _ = replay_files("0.10.2", *ADELCIU)
    unclean = sorted((r.topic, r.partition, r.new_leader) for r in out.elections if r.unclean)
    assert unclean == [
        ("dns_kafka_topic", 0, 1),
        ("dns_kafka_topic", 1, 1),
        ("dns_kafka_topic", 2, 1),
    ]
    assert all(r.agrees is not False for r in out.elections)
    assert out.anomalies == []
    # Every other partition only failed to get a leader: nothing was live for them.
    assert {r.new_leader for r in out.elections if not r.unclean} == {-1}


def test_adelciu_controller_log_alone_still_flags_the_unclean_election():
    out, _ = replay_files("0.10.2", ADELCIU[0])
    row = of(out, "dns_kafka_topic", 1)[-1]
    assert (row.new_leader, row.leader_epoch, row.isr_after) == (1, 1, (1,))
    assert row.isr_before is None and row.unclean is True  # from the WARN line itself


def test_adelciu_liveness_timeline():
    _, timelines = replay_files("0.10.2", ADELCIU[0])
    assert timelines.liveness_at(ms("2021-04-28 16:41:33.700")).live == frozenset()
    assert timelines.liveness_at(ms("2021-04-28 16:41:34.200")).live == {1}
    assert timelines.liveness_at(ms("2021-04-28 16:42:12")).live == {1, 2, 1010}
    assert timelines.liveness_at(ms("2021-04-28 16:43:33")).live == {1, 2}
    assert timelines.controller_at(ms("2021-04-28 16:41:35")) == (1, 58)


ARTRIDIC = (
    "artridic-2.1.1-controller-brokerfail.log",
    "artridic-2.1.1-state-change-failover.log",
    "artridic-2.1.1-state-change-recovery.log",
    "artridic-2.1.1-server-isr.log",
)


def test_artridic_broker_failure_and_preferred_re_election():
    out, _ = replay_files("2.1.1", *ARTRIDIC)
    failover, back = of(out, "my-replicated-topic", 0)
    assert failover.elected_at_ms == ms("2019-06-05 19:52:13.723")
    assert (failover.trigger, failover.new_leader, failover.leader_epoch) == ("offline", 0, 1)
    assert failover.isr_after == (0, 2) and failover.assignment == (1, 0, 2)
    assert failover.unclean is None  # the ISR before is in no file
    assert len(failover.evidence) >= 5 and failover.source == "state_change_log"
    assert back.elected_at_ms == ms("2019-06-05 19:57:28.764")
    assert (back.trigger, back.prev_leader, back.new_leader, back.leader_epoch) == (
        "preferred",
        0,
        1,
        2,
    )
    assert (back.isr_before, back.unclean, back.expected_leader, back.agrees) == (
        (0, 2, 1),
        False,
        1,
        True,
    )
    assert not any(r.unclean for r in out.elections)
    assert out.anomalies == []


def test_artridic_timeline_follows_the_broker_side_epochs():
    out, _ = replay_files("2.1.1", *ARTRIDIC)
    rows = [r for r in out.timeline if r.topic == "my-replicated-topic"]
    epochs = [r.leader_epoch for r in rows if r.leader_epoch is not None]
    assert epochs == sorted(epochs) and epochs[-1] == 4
    assert [(r.leader, r.leader_epoch) for r in rows if r.leader_epoch in (3, 4)][-1] == (1, 4)
    assert rows[-1].valid_to_ms is None


def test_artridic_controller_log_gives_liveness_and_shutdowns():
    _, timelines = replay_files("2.1.1", ARTRIDIC[0])
    assert timelines.liveness_at(ms("2019-06-05 23:28:40.100")).shutting_down == {2}
    assert timelines.liveness_at(ms("2019-06-05 23:28:42")).live == {0, 1}
    assert timelines.liveness_at(ms("2019-06-05 23:37:12")).live == {0, 1, 2}
    view = timelines.liveness_at(ms("2019-06-05 23:37:45.620"))
    assert view.shutting_down == {1, 2} and view.live == {0}
    assert timelines.liveness_at(ms("2019-06-05 23:37:47")).registered == {0}


def test_ammar_kraft_fencing():
    out, timelines = replay_files(
        "4.0.0", "ammar-4.0.0-kraft-controller-fencing.log", "ammar-4.0.0-kraft-server-raft-isr.log"
    )
    assert 3 not in timelines.liveness_at(ms("2025-05-29 17:06:30")).live
    assert 3 in timelines.liveness_at(ms("2025-05-29 17:06:33")).live
    assert timelines.kraft_context_near(ms("2025-05-29 17:06:29.337"), 100) == "handleBrokerFenced"
    assert out.elections == []
    isr = [r for r in out.timeline if (r.topic, r.partition) == ("my-topic", 0)]
    assert isr and isr[-1].isr == (3, 1, 2) and isr[-1].partition_epoch == 53


def test_eniyan_preferred_election_retried_after_a_zookeeper_session_expiry():
    out, _ = replay_files("2.2.1", "eniyan-2.2.1-controller-zkexpiry-preferred.log")
    rows = sorted(
        (r.topic, r.partition, r.prev_leader, r.new_leader, r.trigger, r.assignment)
        for r in out.elections
    )
    assert rows == [
        ("dcode_fileParse", 1, 0, 1, "preferred", (1, 0)),
        ("dcode_fileParse_SKETCH", 0, 0, 1, "preferred", (1, 0)),
        ("dcode_fileParse_XD", 0, 0, 1, "preferred", (1, 0)),
    ]
    assert all(r.elected_at_ms >= ms("2019-07-03 09:15:32.913") for r in out.elections)
    assert out.anomalies == []


def test_cs3219_auto_preferred_elections_agree():
    out, _ = replay_files("3.0.0", "cs3219-3.0.0-controller-failover.log")
    rows = sorted(
        (r.topic, r.partition, r.new_leader, r.trigger, r.agrees, r.unclean) for r in out.elections
    )
    assert rows == [
        ("management", 1, 2, "preferred", True, False),
        ("management", 2, 1, "preferred", True, False),
    ]


def test_aryan_topic_recreated_after_deletion_is_no_anomaly():
    out, _ = replay_files(
        "3.1.0",
        "aryan-3.1.0-controller-topicdelete.log",
        "aryan-3.1.0-state-change-topicdelete.log",
    )
    assert out.anomalies == []
    assert {(r.topic, r.trigger, r.new_leader) for r in out.elections} == {
        ("design", "new_partition", 0)
    }
    assert not [r for r in out.elections if r.new_leader < 0]  # deletion is no failed election


def test_darrendao_0_8_1_topic_creation():
    out, _ = replay_files(
        "0.8.1", "darrendao-0.8.1-controller-topiccreate.log", "darrendao-0.8.1-state-change.log"
    )
    created, failed = of(out, "test", 0)
    assert (created.trigger, created.new_leader, created.agrees) == ("new_partition", 0, True)
    assert (failed.new_leader, failed.prev_leader, failed.agrees) == (-1, 0, True)
    assert out.anomalies == []
