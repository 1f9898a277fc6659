"""Real logs from public repositories (Kafka 0.8 - 4.0): every line is accounted for, the families
INDEX.md lists for each file are recognised, nothing unexpected is quarantined or left to the
foreign-logger rule, and the version inferred from the matched variants contains the real one.
"""

from __future__ import annotations

import collections
import dataclasses
import functools

import pytest

from kafkactl_core.grammars import (
    EventType,
    IgnoredFamily,
    IgnoredRecord,
    LogRecord,
    Mode,
    Outcome,
    ParsedEvent,
    Quarantined,
    assemble_records,
    grammar_entries,
    infer_version,
    parse_record,
    resolve_layout,
)
from kafkactl_core.versions import KafkaRelease
from tests.conftest import needs_reference, reference_dir

REAL_LOGS = reference_dir() / "real-logs"
pytestmark = needs_reference(REAL_LOGS, "real logs")
LAYOUT = resolve_layout("kafka")

# file -> Kafka version (INDEX.md).
VERSIONS = {
    "flaviof-0.8.0-controller.log": "0.8.0",
    "darrendao-0.8.1-controller-zkexpiry.log": "0.8.1",
    "darrendao-0.8.1-controller-topiccreate.log": "0.8.1",
    "darrendao-0.8.1-state-change.log": "0.8.1",
    "adelciu-0.10.2-controller-unclean.log": "0.10.2",
    "adelciu-0.10.2-state-change-unclean-excerpt.log": "0.10.2",
    "adelciu-0.10.2-server-ctlshutdown.log": "0.10.2",
    "adelciu-0.10.2-server-isr-expand.log": "0.10.2",
    "artridic-2.1.1-controller-brokerfail.log": "2.1.1",
    "artridic-2.1.1-state-change-failover.log": "2.1.1",
    "artridic-2.1.1-state-change-recovery.log": "2.1.1",
    "artridic-2.1.1-server-isr.log": "2.1.1",
    "eniyan-2.2.1-controller-zkexpiry-preferred.log": "2.2.1",
    "bitterdone-2.3.1-controller-topicdelete.log": "2.3.1",
    "bitterdone-2.3.1-state-change-topicdelete.log": "2.3.1",
    "cesaralcancio-2.7.0-controller-moved.log": "2.7.0",
    "cs3219-3.0.0-controller-failover.log": "3.0.0",
    "cs3219-3.0.0-server-isr-shrink.log": "3.0.0",
    "aryan-3.1.0-controller-topicdelete.log": "3.1.0",
    "aryan-3.1.0-state-change-topicdelete.log": "3.1.0",
    "noosar-3.2.0-controller-brokerchange.log": "3.2.0",
    "noosar-3.2.0-controller-moved.log": "3.2.0",
    "ammar-4.0.0-kraft-controller-failover.log": "4.0.0",
    "ammar-4.0.0-kraft-controller-fencing.log": "4.0.0",
    "ammar-4.0.0-kraft-controller-ctlshutdown.log": "4.0.0",
    "ammar-4.0.0-kraft-server-raft-isr.log": "4.0.0",
}
FILES = sorted(VERSIONS)

E = EventType
# file -> event types (or ignored families) INDEX.md lists, with the minimum count expected.
FAMILIES: dict[str, dict[EventType | IgnoredFamily, int]] = {
    "flaviof-0.8.0-controller.log": {
        E.CONTROLLER_EPOCH_INCREMENTED: 3, E.CONTROLLER_FAILOVER_STARTED: 3, E.CONTROLLER_READY: 3,
        E.PREFERRED_ELECTION_STARTED: 3, E.CONTROLLER_SHUTDOWN: 2,
        IgnoredFamily.STATE_MACHINE_LIFECYCLE: 6, IgnoredFamily.CONTROLLER_CONTEXT: 3,
    },
    "darrendao-0.8.1-controller-zkexpiry.log": {
        E.CONTROLLER_RESIGNING: 1, E.CONTROLLER_EPOCH_INCREMENTED: 1, E.BROKER_CHANGE: 3,
        E.OFFLINE_PARTITION_NO_LIVE_ISR: 1, E.LEADER_SELECTED: 2, E.TOPICS_CHANGED: 1,
        E.PARTITIONS_ADDED: 1, IgnoredFamily.STATE_MACHINE_BATCH: 2,
    },
    "darrendao-0.8.1-controller-topiccreate.log": {
        E.CONTROLLER_EPOCH_INCREMENTED: 2, E.BROKER_CHANGE: 2, E.TOPICS_CHANGED: 1,
        E.TOPIC_CREATION_CALLBACK: 1, E.LEADER_AND_ISR_INITIALIZED: 1, E.LEADER_SELECTED: 2,
        IgnoredFamily.STATE_MACHINE_BATCH: 5,
    },
    "darrendao-0.8.1-state-change.log": {
        E.PARTITION_STATE_CHANGE: 3, E.REPLICA_STATE_CHANGE: 3, E.LEADER_AND_ISR_SENT: 3,
        E.LEADER_AND_ISR_RECEIVED: 3, E.UPDATE_METADATA_SENT: 4, E.UPDATE_METADATA_RECEIVED: 4,
        E.PARTITION_STATE_CHANGE_FAILED: 1,
    },
    "adelciu-0.10.2-controller-unclean.log": {
        E.CONTROLLER_RESIGNED: 1, E.CONTROLLER_EPOCH_INCREMENTED: 1, E.BROKER_CHANGE: 4,
        E.UNCLEAN_LEADER_ELECTION: 3, E.PREFERRED_ELECTION_STARTED: 1,
        E.LEADER_IMBALANCE_RATIO: 5, IgnoredFamily.STATE_MACHINE_LIFECYCLE: 2,
        IgnoredFamily.CONTROLLER_CONTEXT: 2,
    },
    "adelciu-0.10.2-state-change-unclean-excerpt.log": {
        E.LEADER_ELECTION_STARTED: 2, E.LEADER_ELECTED: 1, E.PARTITION_STATE_CHANGE: 1,
        E.PARTITION_STATE_CHANGE_FAILED: 1, E.UPDATE_METADATA_RECEIVED: 70,
    },
    "adelciu-0.10.2-server-ctlshutdown.log": {E.CONTROLLED_SHUTDOWN: 1},
    "adelciu-0.10.2-server-isr-expand.log": {E.ISR_EXPAND: 3},
    "artridic-2.1.1-controller-brokerfail.log": {
        E.CONTROLLED_SHUTDOWN: 3, E.SHUTTING_DOWN_BROKERS: 3, E.BROKER_CHANGE: 3,
        E.BROKER_FAILURE_CALLBACK: 2, E.STOP_REPLICA_SENT: 4, E.AUTO_REBALANCE_CHECK: 3,
        IgnoredFamily.CONTROLLER_CONNECTION: 4,
    },
    "artridic-2.1.1-state-change-failover.log": {
        E.PARTITION_STATE_CHANGE: 10, E.REPLICA_STATE_CHANGE: 1, E.LEADER_AND_ISR_IGNORED: 1,
        E.LEADER_AND_ISR_SENT: 2, E.LEADER_AND_ISR_RECEIVED: 1,
    },
    "artridic-2.1.1-state-change-recovery.log": {
        E.REPLICA_STATE_CHANGE: 1, E.UPDATE_METADATA_SENT: 2, E.UPDATE_METADATA_RECEIVED: 20,
        E.PARTITION_STATE_CHANGE: 1, E.BECOME_TRANSITION: 5, E.LEADER_AND_ISR_RECEIVED: 1,
    },
    "artridic-2.1.1-server-isr.log": {
        E.ISR_EXPAND: 1, E.CONTROLLED_SHUTDOWN: 2, E.PARTITION_LEADER_STARTED: 2,
    },
    "eniyan-2.2.1-controller-zkexpiry-preferred.log": {
        E.AUTO_REBALANCE_CHECK: 2, E.LEADER_IMBALANCE_RATIO: 2, E.PREFERRED_ELECTION_FAILED: 6,
        E.CONTROLLER_RESIGNED: 1, E.CONTROLLER_ELECTED: 2,
        IgnoredFamily.STATE_MACHINE_LIFECYCLE: 4,
    },
    "bitterdone-2.3.1-controller-topicdelete.log": {
        E.CONTROLLER_ELECTED: 3, E.TOPIC_DELETION: 10, E.AUTO_REBALANCE_CHECK: 2,
    },
    "bitterdone-2.3.1-state-change-topicdelete.log": {
        E.PARTITION_STATE_CHANGE: 2, E.REPLICA_STATE_CHANGE: 10, E.STOP_REPLICA_RECEIVED: 3,
    },
    "cesaralcancio-2.7.0-controller-moved.log": {
        E.CONTROLLER_MOVED: 5, E.CONTROLLER_ELECTED: 1, E.CONTROLLED_SHUTDOWN: 3,
        E.CONTROLLER_RESIGNED: 2, E.BROKER_CHANGE: 2, E.LEADER_IMBALANCE_RATIO: 2,
        IgnoredFamily.STATE_MACHINE_LIFECYCLE: 4,
    },
    "cs3219-3.0.0-controller-failover.log": {
        E.CONTROLLER_RESIGNED: 4, E.CONTROLLER_ELECTED: 4, E.BROKER_CHANGE: 5,
        E.BROKER_FAILURE_CALLBACK: 2, E.ALTER_ISR_APPLIED: 20, E.TOPICS_CHANGED: 3,
        E.AUTO_REBALANCE_CHECK: 10, E.PREFERRED_REPLICA_IMBALANCE: 10,
    },
    "cs3219-3.0.0-server-isr-shrink.log": {E.ISR_SHRINK: 2, E.ISR_UPDATE_COMMITTED: 2},
    "aryan-3.1.0-controller-topicdelete.log": {
        E.TOPIC_DELETION: 10, E.TOPICS_CHANGED: 5, E.AUTO_REBALANCE_CHECK: 10,
    },
    "aryan-3.1.0-state-change-topicdelete.log": {
        E.REPLICA_REMOVED_FROM_ISR: 3, E.STOP_REPLICA_SENT: 2, E.PARTITION_STATE_CHANGE: 6,
        E.PARTITION_LEADER_STARTED: 3,
    },
    "noosar-3.2.0-controller-brokerchange.log": {
        E.CONTROLLER_ELECTED: 1, E.BROKER_CHANGE: 3, E.CONTROLLED_SHUTDOWN: 1,
        E.BROKER_FAILURE_CALLBACK: 1, E.BROKER_STARTUP_CALLBACK: 2,
    },
    "noosar-3.2.0-controller-moved.log": {E.CONTROLLER_MOVED: 1, E.CONTROLLER_RESIGNED: 1},
    "ammar-4.0.0-kraft-controller-failover.log": {
        E.KRAFT_LEADERSHIP_RENOUNCED: 2, E.KRAFT_LEADER_CHANGED: 3,
        E.KRAFT_CONTROLLER_ACTIVATED: 2, E.KRAFT_BROKER_FENCED: 2,
        IgnoredFamily.KRAFT_EVENT_QUEUE: 4,
    },
    "ammar-4.0.0-kraft-controller-fencing.log": {
        E.KRAFT_BROKER_REGISTRATION_CHANGED: 3, E.KRAFT_CONTROLLER_ACTIVATED: 1,
        E.KRAFT_BROKER_FENCED: 1, E.KRAFT_PARTITIONS_CHANGING: 1, E.KRAFT_BROKER_REGISTERED: 2,
        E.KRAFT_BROKER_UNFENCED: 1, E.KRAFT_LEADER_CHANGED: 2,
    },
    "ammar-4.0.0-kraft-controller-ctlshutdown.log": {
        E.KRAFT_PERIODIC_TASK: 2, E.KRAFT_CONTROLLED_SHUTDOWN: 2, E.KRAFT_PARTITIONS_CHANGING: 1,
        IgnoredFamily.KRAFT_EVENT_QUEUE: 6,
    },
    "ammar-4.0.0-kraft-server-raft-isr.log": {
        E.BROKER_LIFECYCLE_TRANSITION: 1, E.ISR_UPDATE_COMMITTED: 3, E.RAFT_STATE_TRANSITION: 8,
        IgnoredFamily.RAFT_DETAIL: 4,
    },
}  # fmt: skip

# Records no grammar may recognise, with the reason they should stay quarantined: none. Every
# record of an audited logger (controller.log, state-change.log, kafka.cluster.Partition,
# QuorumController) in these files is recognised; stack traces and "Caused by:"/"Suppressed:"
# blocks stay inside the record they belong to; no file has lines before its first record.
EXPECTED_QUARANTINE: dict[str, list[tuple[int, str]]] = {name: [] for name in FILES}

# Records of loggers outside the audited set that no grammar recognises: ignored as
# "foreign_logger" (server.log noise: startup, shutdown of other components, fetchers, logs).
EXPECTED_FOREIGN: dict[str, dict[str, int]] = {
    "adelciu-0.10.2-server-ctlshutdown.log": {
        "kafka.server.KafkaServer": 3, "kafka.utils.CoreUtils$": 1,
        "kafka.server.KafkaRequestHandlerPool": 2, "kafka.server.KafkaApis": 1,
        "kafka.server.ReplicaFetcherManager": 2, "kafka.server.ReplicaManager": 1,
        "kafka.coordinator.GroupCoordinator": 2, "kafka.log.LogManager": 2,
    },
    "adelciu-0.10.2-server-isr-expand.log": {
        "kafka.utils.Mx4jLoader$": 1, "kafka.utils.ZKCheckedEphemeral": 2,
        "kafka.utils.ZkUtils": 1, "kafka.server.KafkaServer": 1, "kafka.log.Log": 6,
        "kafka.server.ReplicaFetcherManager": 2,
    },
    "ammar-4.0.0-kraft-server-raft-isr.log": {
        "kafka.server.BrokerServer": 7, "kafka.server.ReplicaFetcherManager": 9,
        "org.apache.kafka.server.network.EndpointReadyFutures": 1, "kafka.network.SocketServer": 1,
        "kafka.network.DataPlaneAcceptor": 1, "org.apache.kafka.common.utils.AppInfoParser": 3,
        "kafka.server.KafkaRaftServer": 1, "kafka.server.ReplicaFetcherThread": 3,
        "kafka.log.UnifiedLog": 3, "org.apache.kafka.clients.NetworkClient": 4,
        "kafka.server.NodeToControllerRequestThread": 4, "kafka.server.ControllerApis": 3,
    },
    "artridic-2.1.1-server-isr.log": {
        "kafka.coordinator.group.GroupMetadataManager": 2, "kafka.server.ReplicaFetcherManager": 5,
        "kafka.server.epoch.LeaderEpochFileCache": 2,
        "org.apache.kafka.common.utils.LoggingSignalHandler": 1, "kafka.server.KafkaServer": 2,
        "kafka.network.SocketServer": 3, "kafka.server.KafkaRequestHandlerPool": 2,
        "kafka.server.KafkaApis": 1, "kafka.coordinator.transaction.TransactionCoordinator": 2,
        "kafka.coordinator.transaction.ProducerIdManager": 1,
        "kafka.coordinator.transaction.TransactionStateManager": 1,
        "kafka.coordinator.group.GroupCoordinator": 2, "kafka.server.ReplicaAlterLogDirsManager": 2,
        "kafka.server.ReplicaManager": 1, "kafka.log.LogManager": 2,
        "kafka.zookeeper.ZooKeeperClient": 2, "org.apache.zookeeper.ZooKeeper": 1,
        "org.apache.zookeeper.ClientCnxn": 1,
    },
    "cs3219-3.0.0-server-isr-shrink.log": {
        "kafka.server.ReplicaFetcherManager": 2, "kafka.server.ReplicaFetcherThread": 4,
        "kafka.log.Log": 4,
    },
}  # fmt: skip


@functools.cache
def _parsed(name: str) -> tuple[tuple[LogRecord, Outcome], ...]:
    with (REAL_LOGS / name).open("rb") as handle:
        return tuple((record, parse_record(record)) for record in assemble_records(handle, LAYOUT))


def _at(name: str, line: int) -> Outcome:
    for record, outcome in _parsed(name):
        if record.first_line == line:
            return outcome
    raise AssertionError(f"no record starts at {name}:{line}")


def _fields(outcome: Outcome) -> dict[str, object]:
    assert isinstance(outcome, ParsedEvent), outcome
    return {
        key: value
        for key, value in dataclasses.asdict(outcome.event).items()
        if value is not None and key != "event_type"
    }


def test_index_files_are_all_covered() -> None:
    on_disk = {p.name for p in REAL_LOGS.glob("*.log")}
    assert on_disk == set(VERSIONS) == set(FAMILIES)


@pytest.mark.parametrize("name", FILES)
def test_every_line_is_accounted_for(name: str) -> None:
    data = (REAL_LOGS / name).read_bytes()
    physical = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    parsed = _parsed(name)
    assert sum(record.line_count for record, _ in parsed) == physical
    lines = [record.first_line + i for record, _ in parsed for i in range(record.line_count)]
    assert lines == list(range(1, physical + 1))


@pytest.mark.parametrize("name", FILES)
def test_quarantine_is_exactly_the_expected_list(name: str) -> None:
    quarantined = [(o.first_line, o.reason) for _, o in _parsed(name) if isinstance(o, Quarantined)]
    assert quarantined == EXPECTED_QUARANTINE[name]


@pytest.mark.parametrize("name", FILES)
def test_foreign_logger_records_are_only_server_log_noise(name: str) -> None:
    foreign = collections.Counter(
        record.logger
        for record, o in _parsed(name)
        if isinstance(o, IgnoredRecord) and o.family == IgnoredFamily.FOREIGN_LOGGER.value
    )
    assert dict(foreign) == EXPECTED_FOREIGN.get(name, {})


@pytest.mark.parametrize("name", FILES)
def test_index_families_are_recognised(name: str) -> None:
    counts: collections.Counter[EventType | IgnoredFamily] = collections.Counter()
    for _, outcome in _parsed(name):
        if isinstance(outcome, ParsedEvent):
            counts[outcome.event.event_type] += 1
        elif isinstance(outcome, IgnoredRecord):
            counts[IgnoredFamily(outcome.family)] += 1
    short = {family: (counts[family], minimum) for family, minimum in FAMILIES[name].items()
             if counts[family] < minimum}  # fmt: skip
    assert short == {}


@pytest.mark.parametrize("name", FILES)
def test_no_message_matches_two_entries(name: str) -> None:
    entries = grammar_entries()
    for record, _ in _parsed(name):
        if record.message is not None:
            matching = [e.name for e in entries if e.regex.fullmatch(record.message)]
            assert len(matching) <= 1, (record.first_line, matching)


@pytest.mark.parametrize("name", FILES)
def test_inferred_version_contains_the_real_one(name: str) -> None:
    matched = collections.Counter(
        o.grammar
        for _, o in _parsed(name)
        if isinstance(o, ParsedEvent | IgnoredRecord) and o.grammar
    )
    inference = infer_version(matched)
    assert inference.contains(KafkaRelease.parse(VERSIONS[name])), inference.versions
    assert inference.conflicts == ()
    if "kraft-controller" in name:
        assert inference.mode is Mode.KRAFT
    elif "-controller" in name or "state-change" in name:
        assert inference.mode is Mode.ZK


def test_unclean_warn_of_0_10() -> None:
    outcome = _at("adelciu-0.10.2-controller-unclean.log", 113)
    assert _fields(outcome) == {
        "topic": "dns_kafka_topic", "partition": 1, "leader": 1, "live_brokers": (1,),
    }  # fmt: skip
    assert isinstance(outcome, ParsedEvent) and outcome.level == "WARN"


def test_stack_traces_stay_with_their_record() -> None:
    # ERROR ... Ignoring stop replica ... due to storage exception, then a KafkaStorageException
    # with "Caused by:" and a tab-indented "Suppressed:" block, on Windows paths.
    parsed = _parsed("bitterdone-2.3.1-state-change-topicdelete.log")
    record, outcome = next((r, o) for r, o in parsed if r.first_line == 13)
    assert record.line_count == 34
    assert "\nCaused by: java.nio.file.AccessDeniedException: D:\\tmp\\kafka-logs" in record.text
    assert "\n\tSuppressed: java.nio.file.AccessDeniedException" in record.text
    assert record.logger == "state.change.logger"
    assert _fields(outcome) == {
        "origin_broker": 0, "delete_partitions": True, "topic": "testTopicName", "partition": 0,
        "phase": "failed", "error": "storage_exception",
    }  # fmt: skip


def test_controller_moved_with_exception_line() -> None:
    parsed = _parsed("cesaralcancio-2.7.0-controller-moved.log")
    record, outcome = parsed[0]
    assert record.line_count == 2 and record.text.endswith("Aborting controller startup procedure")
    assert _fields(outcome) == {
        "origin_broker": 2, "controller_id": 3, "broker": 2, "phase": "lost_election",
    }  # fmt: skip


def test_shrink_and_commit_of_3_0() -> None:
    name = "cs3219-3.0.0-server-isr-shrink.log"
    assert _fields(_at(name, 1)) == {
        "topic": "test-topic-replicated", "partition": 0, "origin_broker": 2, "leader": 2,
        "previous_isr": (2, 1, 0), "isr": (2, 1), "high_watermark": 1, "end_offset": 2,
        "detail": "(brokerId: 0, endOffset: 1)",
    }  # fmt: skip
    assert _fields(_at(name, 3)) == {
        "topic": "test-topic-replicated", "partition": 0, "origin_broker": 2, "leader": 2,
        "isr": (2, 1), "zk_version": 3,
    }  # fmt: skip


def test_isr_update_with_the_4_0_double_space() -> None:
    outcome = _at("ammar-4.0.0-kraft-server-raft-isr.log", 34)
    assert isinstance(outcome, ParsedEvent)
    assert outcome.grammar == "isr_update_committed/partition_epoch"
    assert _fields(outcome) == {
        "topic": "my-topic", "partition": 1, "origin_broker": 3, "leader": 3, "isr": (3, 1),
        "partition_epoch": 51,
    }  # fmt: skip


def test_alter_isr_of_3_0_controller() -> None:
    assert _fields(_at("cs3219-3.0.0-controller-failover.log", 76)) == {
        "origin_broker": 2, "controller_id": 2, "topic": "failover", "partition": 2,
        "isr": (2,), "zk_version": 1,
    }  # fmt: skip


def test_kraft_controller_lines() -> None:
    failover = "ammar-4.0.0-kraft-controller-failover.log"
    assert _fields(_at(failover, 1)) == {
        "origin_broker": 2, "controller_id": 2, "previous_controller_epoch": 481,
        "controller_epoch": 482, "offset": 78141, "phase": "metadata_log_event",
    }  # fmt: skip
    assert _fields(_at(failover, 4)) == {"origin_broker": 2, "controller_epoch": 482, "leader": 3}
    assert _fields(_at(failover, 6)) == {"origin_broker": 2, "controller_epoch": 483}
    assert _fields(_at(failover, 7)) == {
        "origin_broker": 2, "controller_id": 2, "controller_epoch": 483, "offset": 78324,
    }  # fmt: skip
    assert _fields(_at(failover, 10)) == {
        "origin_broker": 2, "controller_id": 2, "broker": 1, "broker_epoch": 77641,
    }  # fmt: skip
    fencing = "ammar-4.0.0-kraft-controller-fencing.log"
    assert _fields(_at(fencing, 31)) == {
        "origin_broker": 3, "controller_id": 3, "detail": "handleBrokerFenced", "count": 3,
    }  # fmt: skip
    assert _fields(_at(fencing, 39)) == {
        "origin_broker": 3, "controller_id": 3, "broker": 3, "offset": 78941,
    }  # fmt: skip
    shutdown = "ammar-4.0.0-kraft-controller-ctlshutdown.log"
    assert _fields(_at(shutdown, 29)) == {
        "origin_broker": 10, "controller_id": 10, "broker": 10, "detail": "controlled",
        "phase": "granted",
    }  # fmt: skip
    assert _fields(_at(shutdown, 30)) == {
        "origin_broker": 10, "controller_id": 10, "detail": "enterControlledShutdown",
        "broker": 10, "count": 2,
    }  # fmt: skip


def test_raft_and_broker_lifecycle() -> None:
    name = "ammar-4.0.0-kraft-server-raft-isr.log"
    assert _fields(_at(name, 3)) == {
        "origin_broker": 3, "broker": 3, "from_state": "RECOVERY", "to_state": "RUNNING",
    }  # fmt: skip
    assert _fields(_at(name, 44)) == {
        "origin_broker": 2, "phase": "completed", "to_state": "ProspectiveState",
        "controller_epoch": 499,
    }  # fmt: skip


def test_epochs_of_successive_elections() -> None:
    def epochs(name: str, event_type: EventType) -> list[int | None]:
        return [
            o.event.controller_epoch
            for _, o in _parsed(name)
            if isinstance(o, ParsedEvent) and o.event.event_type is event_type
        ]

    assert epochs("flaviof-0.8.0-controller.log", E.CONTROLLER_EPOCH_INCREMENTED) == [1, 2, 3]
    assert epochs("bitterdone-2.3.1-controller-topicdelete.log", E.CONTROLLER_ELECTED) == [
        38,
        39,
        1,
    ]
    assert epochs("cs3219-3.0.0-controller-failover.log", E.CONTROLLER_ELECTED) == [3, 4, 5, 6]
