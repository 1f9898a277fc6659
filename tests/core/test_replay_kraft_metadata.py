"""The replay of a KRaft cluster from its metadata log alone, against Kafka's own dump of it.

Every KRaft capture of ``tests/fixtures/real-kafka`` holds a real controller's
``__cluster_metadata-0`` segment. Decoded (``kafkactl_core.metadata_log``), applied in log order
(``KRaftMetadataReplay``) and folded, it must give exactly the elections the dump shows: per
partition the same sequence of new leaders, every one at the record's epoch and time, unclean
exactly where the record set RECOVERING, a failed row exactly where a record took a led partition
to no leader; and the controller history of the quorum's LeaderChange records.
"""

from __future__ import annotations

import gzip
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from kafkactl_core.replay import ClusterFact, ReplaySettings, build_timelines, replay
from kafkactl_core.replay.from_kraft import (
    KRaftMetadataReplay,
    MetadataEntry,
    order_entries,
    running_release,
)
from kafkactl_core.replay.local import controller_event_rows, metadata_entries, normalize_rows
from kafkactl_core.replay.rows import ReplayOutput
from kafkactl_core.replay.timelines import ClusterTimelines
from kafkactl_core.report.brokers import broker_timeline
from kafkactl_core.report.controllers import controller_history
from kafkactl_core.report.offline import broker_events
from kafkactl_core.report.reassignments import reassignments
from kafkactl_core.report.replication import (
    MinIsrInForce,
    isr_churn_daily,
    under_replicated_intervals,
)
from kafkactl_core.versions import KafkaRelease
from tests.real_kafka.checks import Findings, compare_kraft_elections, compare_replication
from tests.real_kafka.kraft_truth import read_kraft_truth

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real-kafka"
KRAFT = sorted(p for p in CAPTURES.glob("*-kraft") if (p / "metadata").is_dir())


def _entries(capture: Path) -> list[MetadataEntry]:
    """Every record of the capture's segments and snapshots."""
    files = sorted((capture / "metadata").iterdir())
    return [
        e for f in files if f.suffix in (".log", ".checkpoint") for e in metadata_entries(f, "c")
    ]


def _replay(capture: Path) -> tuple[ReplayOutput, list[ClusterFact]]:
    settings = ReplaySettings.of((capture / "kafka-version").read_text().strip())
    entries = _entries(capture)
    metadata = KRaftMetadataReplay("c")
    found = metadata.feed(order_entries(entries))
    end = metadata.finish()
    facts = found.facts + end.facts
    out = replay(found.evidence + end.evidence, build_timelines(facts), settings)
    return out, facts


@pytest.fixture(scope="module", params=KRAFT, ids=lambda p: p.name)
def replayed(request: pytest.FixtureRequest) -> tuple[Path, ReplayOutput, list[ClusterFact]]:
    capture: Path = request.param
    return (capture, *_replay(capture))


def _rows(out: ReplayOutput) -> list[dict[str, Any]]:
    return [row.to_row() for row in out.elections]


def test_elections_are_the_records_that_set_a_leader(replayed: Any) -> None:
    capture, out, _ = replayed
    findings = Findings("metadata")
    compare_kraft_elections(read_kraft_truth(capture), _rows(out), findings)
    assert findings.mismatches == []
    # unlike the text logs, the metadata log leaves no clean election out
    assert findings.gold_elections == findings.truth_elections
    assert findings.gold_failed == findings.truth_offline


def test_the_recovery_state_and_the_elr_are_the_records(replayed: Any) -> None:
    capture, out, _ = replayed
    changes = {c.key: c for c in read_kraft_truth(capture).elections()}
    rows = [r for r in out.elections if not r.failed]
    assert rows
    for row in rows:
        change = changes[(row.topic, row.partition, row.leader_epoch)]
        assert row.leader_recovery_state == ("RECOVERING" if change.recovering else "RECOVERED")
        assert row.elr_after == change.elr
        if change.before_leader is not None:
            assert row.elr_before == change.before_elr
        # electionWasClean: from the ISR or the ELR
        assert row.unclean is change.recovering


def test_every_partition_has_the_leader_sequence_of_its_records(replayed: Any) -> None:
    capture, out, _ = replayed
    truth: dict[tuple[str, int], list[int]] = defaultdict(list)
    for change in read_kraft_truth(capture).leader_changes():
        if change.before_leader != change.leader:
            truth[(change.topic, change.partition)].append(change.leader)
    gold: dict[tuple[str, int], list[int]] = defaultdict(list)
    for row in sorted(_rows(out), key=lambda r: (r["elected_at"], r["leader_epoch"] or 0)):
        gold[(row["topic"], row["partition"])].append(row["new_leader"])
    assert gold == truth


def test_controller_history_is_the_quorum_leaders(replayed: Any) -> None:
    capture, _, facts = replayed
    history = controller_history("c", facts)
    leaders = {(leader, epoch) for leader, epoch in read_kraft_truth(capture).raft_leaders()}
    ids_known = all(leader is not None for leader, _ in leaders)
    got = {(t.controller_id if ids_known else None, t.controller_epoch) for t in history}
    assert got == leaders


def test_under_replicated_stretches_are_the_records(replayed: Any) -> None:
    """Every stretch the records show a led partition's ISR short of its replicas or of its
    topic's min.insync.replicas is one ``gold.under_replicated`` row, to the millisecond."""
    capture, out, facts = replayed
    timelines = ClusterTimelines.from_facts("c", facts)
    rows = under_replicated_intervals(out.timeline, MinIsrInForce(timelines), None)
    findings = Findings("metadata")
    compare_replication(read_kraft_truth(capture), [r.to_row() for r in rows], findings)
    assert findings.mismatches == []
    assert findings.replication_stretches > 0


def test_reassignments_are_the_records(replayed: Any) -> None:
    """Each move the records show (adding or removing replicas set, then cleared with the
    target) is one ``gold.reassignments`` row with its times and replicas."""
    capture, out, _ = replayed
    ours = [
        (r.topic, r.partition, r.started_ms, r.finished_ms, r.replicas_from, r.replicas_to)
        for r in reassignments(out.timeline, None)
    ]
    assert ours == read_kraft_truth(capture).reassignments()
    assert bool(ours) == capture.name.startswith("admin-and-failover")  # its scenario moves one


def test_brokers_are_offline_while_the_records_fence_them(replayed: Any) -> None:
    """A broker is offline at every record that fenced it, and each offline stretch begins at
    a record that fenced or (fenced) registered it: a crash, a clean stop after its controlled
    shutdown, a start."""
    capture, _, facts = replayed
    timelines = ClusterTimelines.from_facts("c", facts)
    history = broker_timeline("c", timelines, broker_events(facts), None)
    offline = [r for r in history if r.state == "offline"]
    truth = read_kraft_truth(capture)
    for broker, time in truth.fencings():
        assert any(
            r.broker == broker
            and r.state_from_ms <= time
            and (r.state_to_ms is None or time < r.state_to_ms)
            for r in offline
        ), (broker, time)
    starts = set(truth.fencings()) | set(truth.registrations())
    assert {(r.broker, r.state_from_ms) for r in offline} <= starts
    assert {r.cause for r in offline} <= {
        "fenced", "fenced after controlled shutdown", "registering", "re-registered",
    }  # fmt: skip


def replay_logs(capture: Path) -> tuple[ReplayOutput, ClusterTimelines]:
    """A capture's broker and controller logs through the pure-Python replay."""
    version = (capture / "kafka-version").read_text().strip()
    rows: list[dict[str, Any]] = []
    for path in sorted((capture / "brokers").glob("*/*.log")):
        rows.extend(controller_event_rows(path, "c", KafkaRelease.parse(version)))
    evidence, facts = normalize_rows(rows)
    timelines = build_timelines(facts)
    return replay(evidence, timelines, ReplaySettings.of(version)), timelines["c"]


@pytest.mark.parametrize("capture", KRAFT, ids=lambda p: p.name)
def test_from_the_logs_alone_each_assignment_is_one_the_records_set(capture: Path) -> None:
    """A restarted controller's replayed lines restate old assignments: they are not taken
    for changes (a quorum of three in admin-and-failover, its reassigned ops-0)."""
    out, _ = replay_logs(capture)
    ours: dict[tuple[str, int], list[tuple[int, ...]]] = {}
    for row in sorted(out.timeline, key=lambda r: (r.topic, r.partition, r.valid_from_ms or 0)):
        seen = ours.setdefault((row.topic, row.partition), [])
        if row.assignment is not None and (not seen or seen[-1] != row.assignment):
            seen.append(row.assignment)
    assert ours == read_kraft_truth(capture).assignments()


def test_each_replica_s_isr_churn_is_the_records_shrinks_and_expands(replayed: Any) -> None:
    capture, out, _ = replayed
    ours: dict[tuple[str, int, int], tuple[int, int]] = {}
    for row in isr_churn_daily(out.timeline):
        key = (row.topic, row.partition, row.broker)
        shrinks, expands = ours.get(key, (0, 0))
        ours[key] = (shrinks + row.shrinks, expands + row.expands)
    truth = read_kraft_truth(capture).isr_churn()
    assert ours == truth
    assert any(shrinks for shrinks, _ in truth.values())  # each scenario takes a replica out


def test_each_broker_stretch_carries_the_epoch_of_the_registration_in_force(
    replayed: Any,
) -> None:
    capture, _, facts = replayed
    timelines = ClusterTimelines.from_facts("c", facts)
    history = broker_timeline("c", timelines, broker_events(facts), None)
    registrations = read_kraft_truth(capture).registration_epochs()
    assert registrations
    for stretch in history:
        epochs = [
            (time, epoch)
            for broker, time, epoch in registrations
            if broker == stretch.broker and time <= stretch.state_from_ms
        ]
        assert stretch.broker_epoch == max(epochs)[1], stretch


@pytest.mark.parametrize("capture", KRAFT, ids=lambda p: p.name)
def test_kafkas_rules_agree_with_every_election(capture: Path) -> None:
    out, _ = _replay(capture)
    assert [a.to_row()["detail"] for a in out.anomalies] == []


@pytest.mark.parametrize("capture", KRAFT, ids=lambda p: p.name)
def test_every_record_applies(capture: Path) -> None:
    """No record is refused by the image or left undecoded (each would be a note), and every
    offset is there once."""
    metadata = KRaftMetadataReplay("c")
    found = metadata.feed(order_entries(_entries(capture)))
    kinds = {"note", "records_missing"}
    notes = [f.detail for f in found.facts + metadata.finish().facts if f.kind.name in kinds]
    assert notes == []


@pytest.mark.parametrize("capture", KRAFT, ids=lambda p: p.name)
def test_the_release_is_the_one_the_controllers_registered(capture: Path) -> None:
    entries = [
        e for f in sorted((capture / "metadata").glob("*.log")) for e in metadata_entries(f, "c")
    ]
    release = KafkaRelease.parse((capture / "kafka-version").read_text().strip())
    assert running_release(entries) == KafkaRelease(release.major, release.minor)


def test_a_log_whose_old_segments_are_gone_starts_from_its_snapshot() -> None:
    """Without its first segment the log starts at offset 74: the replay starts from the oldest
    snapshot that ends within the segments (end offset 111) and gives exactly the elections
    after it."""
    capture = CAPTURES / "snapshots-4.1.1-kraft"
    settings = ReplaySettings.of("4.1.1")
    files = sorted((capture / "metadata").glob("*[0-9].*"))
    kept = [f for f in files if f.name != f"{0:020d}.log"]
    entries = order_entries(e for f in kept for e in metadata_entries(f, "c"))
    assert {e.snapshot_end for e in entries} == {111, None}
    assert min(e.offset for e in entries if e.snapshot_end is None) == 111
    metadata = KRaftMetadataReplay("c")
    found = metadata.feed(entries)
    assert [f for f in found.facts if f.kind.name == "records_missing"] == []
    out = replay(found.evidence, build_timelines(found.facts), settings)
    truth = read_kraft_truth(capture)
    after = {c.key: c.leader for c in truth.elections() if c.record.offset >= 111}
    assert after, "the capture has elections after its first snapshot"
    assert {(r.topic, r.partition, r.leader_epoch): r.new_leader for r in out.elections} == after
    # the snapshot's registrations are where the replay starts: the same leaders as the log's
    full = KRaftMetadataReplay("c")
    full.feed(
        order_entries(e for f in files if f.suffix == ".log" for e in metadata_entries(f, "c"))
    )
    assert metadata.state.partitions() == full.state.partitions()


def test_a_missing_segment_is_a_log_gap() -> None:
    """A segment file absent from the middle of the log (and no snapshot to cover it): one
    ``log_gap`` warning naming the missing offsets, and the replay goes on."""
    capture = CAPTURES / "snapshots-4.1.1-kraft"
    segments = sorted((capture / "metadata").glob("*.log"))
    missing = f"{140:020d}.log"
    assert missing in [f.name for f in segments]
    kept = [f for f in segments if f.name != missing]
    metadata = KRaftMetadataReplay("c")
    found = metadata.feed(order_entries(e for f in kept for e in metadata_entries(f, "c")))
    timelines = build_timelines(found.facts)["c"]
    gaps = [a for a in timelines.anomalies() if a.kind == "log_gap"]
    assert [(a.severity, a.detail) for a in gaps] == [
        (
            "warning",
            "metadata log offsets 140 to 208 are missing (a segment file absent, or a batch "
            "unreadable): the changes they held are not replayed",
        )
    ]
    assert gaps[0].evidence[0].startswith(f"{209:020d}.log")


@pytest.mark.parametrize(
    "name",
    [
        "unclean-election-4.1.1-kraft",
        "failed-election-4.1.1-kraft",
        "elr-election-4.1.1-kraft",
        # a restarted controller replays its log and logs the removed topic's history again
        "admin-and-failover-4.1.1-kraft",
    ],
)
def test_the_logs_and_the_metadata_log_merge_into_one_row_per_election(
    name: str, tmp_path: Path
) -> None:
    """The controller's and brokers' logs beside the metadata log: the same rows as the metadata
    log alone, each election cited from both, and no gap in the controller's INFO lines (a
    subset by design) reported beside the log that holds every write."""
    capture = CAPTURES / name
    version = (capture / "kafka-version").read_text().strip()
    settings = ReplaySettings.of(version)
    rows: list[dict[str, Any]] = []
    for log in sorted(capture.glob("brokers/*/*.log*")):
        path = log
        if log.suffix == ".gz":
            path = tmp_path / f"{log.parent.name}-{log.stem}"
            path.write_bytes(gzip.decompress(log.read_bytes()))
        rows += controller_event_rows(path, "c", KafkaRelease.parse(version))
    evidence, facts = normalize_rows(rows)
    metadata = KRaftMetadataReplay("c")
    found = metadata.feed(order_entries(_entries(capture)))
    both = replay(evidence + found.evidence, build_timelines(facts + found.facts), settings)
    alone, _ = _replay(capture)
    key = ("topic", "partition", "leader_epoch", "new_leader", "unclean", "trigger")
    assert sorted(tuple(r.to_row()[k] for k in key) for r in both.elections) == sorted(
        tuple(r.to_row()[k] for k in key) for r in alone.elections
    )
    assert all(
        "kraft_metadata" in r.source and "_log" in r.source for r in both.elections if not r.failed
    )
    assert [a.kind for a in both.anomalies] == []


def _record(offset: int, type_: str, **data: Any) -> MetadataEntry:
    return MetadataEntry("c", "synthetic.log", offset, 1_000 * offset, 1, "metadata", type_, data)


def test_an_election_from_the_elr_is_clean() -> None:
    """KIP-966: with min.insync.replicas 2 the ISR [1, 2, 3] shrinks to [1] and 2, 3 become
    eligible leader replicas; broker 1 is fenced (ISR [], ELR [2, 3], no leader), then the
    controller elects 2 from the ELR: clean (Kafka's electionWasClean), not RECOVERING, the row
    says so and states the topic's min.insync.replicas, and the rules with the ELR give the same
    leader."""
    topic = "AAAAAAAAAAAAAAAAAAAAAQ"
    registrations = [
        _record(
            b,
            "REGISTER_BROKER_RECORD",
            brokerId=b,
            brokerEpoch=b,
            incarnationId=topic,
            endPoints=[],
            features=[],
            rack=None,
            fenced=False,
            inControlledShutdown=False,
            isMigratingZkBroker=False,
        )
        for b in (1, 2, 3)
    ]
    change = "PARTITION_CHANGE_RECORD"
    entries = [
        *registrations,
        _record(10, "TOPIC_RECORD", name="orders", topicId=topic),
        _record(
            11,
            "PARTITION_RECORD",
            partitionId=0,
            topicId=topic,
            replicas=[1, 2, 3],
            isr=[1, 2, 3],
            removingReplicas=[],
            addingReplicas=[],
            leader=1,
            leaderEpoch=0,
            partitionEpoch=0,
            directories=[],
        ),
        _record(
            12,
            "CONFIG_RECORD",
            resourceType=2,
            resourceName="orders",
            name="min.insync.replicas",
            value="2",
        ),
        _record(20, change, partitionId=0, topicId=topic, isr=[1], eligibleLeaderReplicas=[2, 3]),
        _record(30, "BROKER_REGISTRATION_CHANGE_RECORD", brokerId=1, brokerEpoch=1, fenced=1),
        _record(
            31,
            change,
            partitionId=0,
            topicId=topic,
            isr=[],
            leader=-1,
            eligibleLeaderReplicas=[1, 2, 3],
            lastKnownElr=[1],
        ),
        _record(
            40,
            change,
            partitionId=0,
            topicId=topic,
            isr=[2],
            leader=2,
            eligibleLeaderReplicas=[3],
            lastKnownElr=[],
        ),
    ]
    metadata = KRaftMetadataReplay("c")
    found = metadata.feed(order_entries(entries))
    assert [f.detail for f in found.facts if f.kind.name == "note"] == []
    settings = ReplaySettings.of("4.1.1")
    out = replay(found.evidence, build_timelines(found.facts), settings)
    elected = [r for r in out.elections if r.new_leader == 2]
    assert len(elected) == 1
    row = elected[0]
    assert (row.isr_before, row.elr_before, row.elr_after) == ((), (1, 2, 3), (3,))
    assert row.unclean is False and row.leader_recovery_state == "RECOVERED"
    assert row.agrees is True and row.expected_leader == 2
    assert "elected from the ELR" in (row.detail or "")
    assert (row.min_insync_replicas, row.min_insync_replicas_source) == (2, "topic_config")
    assert out.anomalies == []


def test_a_clear_elr_record_empties_the_elrs_of_its_topic() -> None:
    """KIP-966's ClearElrRecord (min.insync.replicas changed): every partition of the topic (of
    every topic, when it names none) loses its ELR and last known ELR, as Kafka merges it; an
    unknown topic is a note, the image unchanged."""
    topic, other = "AAAAAAAAAAAAAAAAAAAAAQ", "AAAAAAAAAAAAAAAAAAAAAg"

    def partition(offset: int, topic_id: str) -> MetadataEntry:
        return _record(
            offset,
            "PARTITION_RECORD",
            partitionId=0,
            topicId=topic_id,
            replicas=[1, 2],
            isr=[],
            removingReplicas=[],
            addingReplicas=[],
            leader=-1,
            leaderEpoch=3,
            partitionEpoch=5,
            directories=[],
            eligibleLeaderReplicas=[2],
            lastKnownElr=[1],
        )

    def elrs(metadata: KRaftMetadataReplay) -> dict[str, tuple[object, object]]:
        return {
            tp.topic: (p.elr, p.last_known_elr) for tp, p in metadata.state.partitions().items()
        }

    base = [
        _record(0, "TOPIC_RECORD", name="orders", topicId=topic),
        partition(1, topic),
        _record(2, "TOPIC_RECORD", name="audit", topicId=other),
        partition(3, other),
    ]
    one = KRaftMetadataReplay("c")
    found = one.feed([*base, _record(4, "CLEAR_ELR_RECORD", topicName="orders")])
    assert [f for f in found.facts if f.kind.name == "note"] == []
    assert elrs(one) == {"orders": ((), ()), "audit": ((2,), (1,))}
    every = KRaftMetadataReplay("c")
    every.feed([*base, _record(4, "CLEAR_ELR_RECORD", topicName="")])
    assert elrs(every) == {"orders": ((), ()), "audit": ((), ())}
    unknown = KRaftMetadataReplay("c")
    found = unknown.feed([*base, _record(4, "CLEAR_ELR_RECORD", topicName="gone")])
    assert [f.detail for f in found.facts if f.kind.name == "note"] == [
        "Unable to find a topic named gone to clear its ELRs."
    ]
    assert elrs(unknown) == {"orders": ((2,), (1,)), "audit": ((2,), (1,))}


def test_a_real_election_from_the_elr_is_clean() -> None:
    """Kafka 4.1.1 (capture elr-election): safe-0 on [1, 2, 3] with min.insync.replicas 2;
    brokers 3 and 2 shut down cleanly (ISR [1], ELR [2]), broker 1 is killed and fenced
    (record 118: leader -1, ISR [], ELR [1, 2]), then broker 2 returns and the controller
    elects it from the ELR (record 139: leader 2, ISR [2], ELR [1]): a clean election, the
    leader Kafka's rules with the ELR give, RECOVERED."""
    capture = CAPTURES / "elr-election-4.1.1-kraft"
    out, _ = _replay(capture)
    rows = [r for r in out.elections if (r.topic, r.partition, r.new_leader) == ("safe", 0, 2)]
    assert len(rows) == 1
    row = rows[0]
    assert (row.prev_leader, row.isr_before) == (-1, ())
    assert row.elr_before == (1, 2) and row.elr_after == (1,)
    assert row.unclean is False and row.leader_recovery_state == "RECOVERED"
    assert row.agrees is True and row.expected_leader == 2
    truth = {c.key: c for c in read_kraft_truth(capture).elections()}
    assert row.leader_epoch is not None
    change = truth[("safe", 0, row.leader_epoch)]
    assert (change.record.offset, change.before_isr, change.before_elr) == (139, (), (1, 2))
