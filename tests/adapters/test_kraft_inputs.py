"""ingest-kraft without a JVM: which files it reads, its configuration and command line, the typed
columns of a change, how files are spread over tasks, and what a file that cannot be read or
decoded gives."""

from __future__ import annotations

import dataclasses
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from jobs.cli import UsageError, build_parser, select_clusters
from jobs.runtime.config import (
    AppConfig,
    ClusterConfig,
    ConfigError,
    LakehouseConfig,
    load_config,
)
from jobs.stages.incremental import inputs_since
from jobs.stages.ingest_kraft import find_metadata_files
from jobs.stages.registry import stage_named
from jobs.stages.runner import _inputs
from jobs.tasks import kraft_tasks
from jobs.tasks.kraft_tasks import TYPED_COLUMNS, FileTask, assign, file_rows, typed_columns
from kafkactl_core.metadata_log.batches import LogRecord
from kafkactl_core.metadata_log.payloads import Payload
from kafkactl_core.metadata_log.segments import scan
from schemas.kraft import KRAFT_CHANGES
from tests.conftest import REPO

SEGMENT = "00000000000000000000.log"
SNAPSHOT = "00000000000000000111-0000000001.checkpoint"
OTHERS = (
    "00000000000000000000.index",
    "00000000000000000000.timeindex",
    "quorum-state",
    "partition.metadata",
    "leader-epoch-checkpoint",
)


def _metadata_dir(root: Path) -> Path:
    directory = root / "__cluster_metadata-0"
    directory.mkdir()
    for name in (SEGMENT, SNAPSHOT, *OTHERS):
        (directory / name).write_bytes(b"x")
    (directory / "00000000000000000074.log.deleted").write_bytes(b"x")
    (directory / "sub").mkdir()
    return directory


def test_a_directory_gives_its_segments_and_snapshots_and_counts_the_rest(tmp_path: Path) -> None:
    directory = _metadata_dir(tmp_path)
    found = find_metadata_files([str(directory)])
    assert found.files == [
        (str(directory / SEGMENT), "segment"),
        (str(directory / SNAPSHOT), "snapshot"),
    ]
    skipped = {os.path.basename(p) for p in found.skipped}
    assert skipped == {*OTHERS, "00000000000000000074.log.deleted", "sub"}


def test_a_file_named_explicitly_is_read_by_its_suffix_as_kafka_dump_log_does(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "controller-101-copy.log"
    snapshot = tmp_path / "taken.checkpoint"
    state = tmp_path / "quorum-state"
    for path in (copy, snapshot, state):
        path.write_bytes(b"x")
    found = find_metadata_files([str(copy), str(snapshot), str(state), str(copy)])
    assert found.files == [(str(copy), "segment"), (str(snapshot), "snapshot")]
    assert found.skipped == [str(state)]


def test_an_empty_directory_holds_nothing(tmp_path: Path) -> None:
    assert find_metadata_files([str(tmp_path)]) == find_metadata_files([])


def test_the_configuration_key_and_a_missing_path_naming_it(tmp_path: Path) -> None:
    directory = _metadata_dir(tmp_path)
    conf = tmp_path / "conf.yaml"
    conf.write_text(
        "version: 1\nlakehouse: {path: lh}\n"
        f"clusters:\n  - name: k1\n    inputs: {{kraft_metadata: [{directory}]}}\n"
    )
    cluster = load_config(conf).cluster("k1")
    assert cluster.inputs.kraft_metadata == [str(directory)]
    assert _inputs(stage_named("ingest-kraft"), cluster) == [str(directory)]
    conf.write_text(conf.read_text().replace(str(directory), str(tmp_path / "nowhere")))
    with pytest.raises(ConfigError, match=r"clusters\[0\]\.inputs\.kraft_metadata\[0\]: no such"):
        load_config(conf)


def test_the_command_line(tmp_path: Path) -> None:
    directory = _metadata_dir(tmp_path)
    parser = build_parser()
    run = parser.parse_args(["run", "--cluster", "k", "--kraft", str(directory)])
    assert run.kraft == [str(directory)]
    ingest = parser.parse_args(["ingest-kraft", "--cluster", "k", str(directory)])
    assert (ingest.command, ingest.paths) == ("ingest-kraft", [str(directory)])
    assert stage_named("ingest-kraft").installed()

    config = AppConfig(lakehouse=LakehouseConfig(path=str(tmp_path / "lh")))
    (cluster,) = select_clusters(config, "k", kraft=[str(directory)])
    assert cluster.name == "k" and cluster.inputs.kraft_metadata == [str(directory)]
    assert cluster.inputs.logs == [] and cluster.inputs.zookeeper == []
    with pytest.raises(UsageError, match="--kraft need --cluster"):
        select_clusters(config, None, kraft=[str(directory)])
    with pytest.raises(UsageError, match="--kraft: no such file"):
        select_clusters(config, "k", kraft=[str(tmp_path / "nowhere")])


def test_since_keeps_the_segments_and_snapshots_modified_since(tmp_path: Path) -> None:
    directory = _metadata_dir(tmp_path)
    past = datetime(2020, 1, 1, tzinfo=UTC).timestamp()
    os.utime(directory / SNAPSHOT, (past, past))
    cluster = ClusterConfig.model_validate(
        {"name": "k", "inputs": {"kraft_metadata": [str(directory)]}}
    )
    narrowed, notes = inputs_since(cluster, datetime(2021, 1, 1, tzinfo=UTC))
    assert narrowed.inputs.kraft_metadata == [str(directory / SEGMENT)]
    assert notes[-1].endswith("1 of 2 KRaft metadata file(s) modified since")


def _typed(record_type: str, data: dict[str, object]) -> dict[str, object]:
    row = typed_columns(record_type, data)
    assert set(row) <= set(TYPED_COLUMNS) <= set(KRAFT_CHANGES.schema.fieldNames())
    return row


def test_a_partition_change_leaves_what_it_does_not_change_null() -> None:
    change = _typed("PARTITION_CHANGE_RECORD", {"partitionId": 2, "topicId": "T", "isr": [1]})
    assert change["partition"] == 2 and change["topic_id"] == "T" and change["isr"] == [1]
    assert change["leader"] is None and change["replicas"] is None
    assert change["leader_recovery_state"] is None and "leader_epoch" not in change
    no_leader = _typed("PARTITION_CHANGE_RECORD", {"partitionId": 0, "topicId": "T", "leader": -1})
    assert no_leader["leader"] == -1
    unclean = _typed(
        "PARTITION_CHANGE_RECORD",
        {"partitionId": 0, "topicId": "T", "leader": 3, "leaderRecoveryState": 1},
    )
    assert (unclean["leader"], unclean["leader_recovery_state"]) == (3, 1)


def test_a_partition_record_is_a_whole_state() -> None:
    state = _typed(
        "PARTITION_RECORD",
        {
            "partitionId": 0,
            "topicId": "T",
            "replicas": [1, 2],
            "isr": [1, 2],
            "removingReplicas": [],
            "addingReplicas": [],
            "leader": 1,
            "leaderEpoch": 4,
            "partitionEpoch": 6,
            "directories": ["d1", "d2"],
        },
    )
    assert state["leader_recovery_state"] == 0, "a tagged field left out is RECOVERED"
    assert (state["leader_epoch"], state["partition_epoch"]) == (4, 6)
    assert state["removing_replicas"] == [] and state["directories"] == ["d1", "d2"]
    assert state["eligible_leader_replicas"] is None


def test_broker_records() -> None:
    registered = _typed(
        "REGISTER_BROKER_RECORD",
        {"brokerId": 1, "brokerEpoch": 81, "fenced": True, "inControlledShutdown": False},
    )
    assert registered == {
        "broker_id": 1,
        "broker_epoch": 81,
        "fenced": True,
        "in_controlled_shutdown": False,
    }
    change = "BROKER_REGISTRATION_CHANGE_RECORD"
    assert _typed(change, {"brokerId": 1, "brokerEpoch": 81, "fenced": -1})["fenced"] is False
    assert _typed(change, {"brokerId": 1, "brokerEpoch": 81, "fenced": 1})["fenced"] is True
    shutdown = _typed(change, {"brokerId": 2, "brokerEpoch": 9, "inControlledShutdown": 1})
    assert shutdown["fenced"] is None and shutdown["in_controlled_shutdown"] is True
    assert _typed("FENCE_BROKER_RECORD", {"id": 3, "epoch": 5}) == {
        "broker_id": 3,
        "broker_epoch": 5,
        "fenced": True,
    }
    assert _typed("UNFENCE_BROKER_RECORD", {"id": 3, "epoch": 5})["fenced"] is False


def test_configs_features_and_raft_leaders() -> None:
    topic = _typed(
        "CONFIG_RECORD",
        {"resourceType": 2, "resourceName": "ops", "name": "min.insync.replicas", "value": "2"},
    )
    assert topic["config_resource_type"] == "TOPIC" and topic["topic"] == "ops"
    assert (topic["config_name"], topic["config_value"]) == ("min.insync.replicas", "2")
    broker = _typed(
        "CONFIG_RECORD",
        {"resourceType": 4, "resourceName": "3", "name": "x", "value": None},
    )
    assert broker["broker_id"] == 3 and broker["config_value"] is None
    default = _typed("CONFIG_RECORD", {"resourceType": 4, "resourceName": "", "name": "x"})
    assert "broker_id" not in default and default["config_resource_name"] == ""
    assert (
        _typed("CONFIG_RECORD", {"resourceType": 64, "resourceName": "", "name": "x"})[
            "config_resource_type"
        ]
        == "64"
    )
    assert _typed("FEATURE_LEVEL_RECORD", {"name": "metadata.version", "featureLevel": 27}) == {
        "feature_name": "metadata.version",
        "feature_level": 27,
    }
    leader = _typed(
        "LeaderChange",
        {"version": 0, "leaderId": 102, "voters": [{"voterId": 101}, {"voterId": 102}]},
    )
    assert leader == {"raft_leader_id": 102, "voters": [101, 102]}
    assert _typed("NO_OP_RECORD", {}) == {}
    assert typed_columns("PARTITION_RECORD", None) == {}


def test_files_are_spread_over_tasks_by_the_bytes_they_read() -> None:
    sizes = {"a": 100, "b": 60, "c": 50, "d": 10}
    tasks = [FileTask("k", name, "segment", "h", size, 0) for name, size in sizes.items()]
    tasks.append(FileTask("k", "grown", "segment", "h", 1000, 990))
    spread = assign(tasks, 2)
    assert sorted(t.file for share in spread for t in share) == sorted([*sizes, "grown"])
    loads = sorted(sum(t.size_bytes - t.read_start for t in share) for share in spread)
    assert loads == [110, 120]
    assert len(assign(tasks[:1], 8)) == 1


CAPTURE = REPO / "tests" / "fixtures" / "real-kafka" / "broker-crash-4.1.1-kraft"


def _task(path: Path, **changes: object) -> FileTask:
    task = FileTask("k", str(path), "segment", "h", path.stat().st_size, 0)
    return dataclasses.replace(task, **changes)


def test_a_file_that_cannot_be_read_is_a_read_error_of_its_stats_row(tmp_path: Path) -> None:
    segment = CAPTURE / "metadata" / SEGMENT
    (stats,) = file_rows(_task(segment, error="Permission denied"), "r")
    assert stats["problems"] == [
        {"position": 0, "kind": "read_error", "reason": "Permission denied", "skipped": 31573}
    ]
    shrunk = tmp_path / SEGMENT
    shrunk.write_bytes(segment.read_bytes()[:100])
    (stats,) = file_rows(_task(shrunk, size_bytes=31573), "r")
    assert "holds 100 bytes now, 31573 when planned" in stats["problems"][0]["reason"]
    assert stats["read_end"] == 0 and stats["records"] == 0


def test_a_decoder_failure_is_reported_where_it_happened_not_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    segment = CAPTURE / "metadata" / SEGMENT
    batches = scan(segment.read_bytes()).batches
    failing = batches[10].records[0].offset
    real = kraft_tasks.decode

    def decode(record: LogRecord, *, control: bool) -> Payload:
        if record.offset == failing:
            raise RuntimeError("a bug")
        return real(record, control=control)

    monkeypatch.setattr(kraft_tasks, "decode", decode)
    *records, stats = file_rows(_task(segment), "r")
    assert [r["offset"] for r in records] == [r.offset for b in batches[:10] for r in b.records]
    assert stats["problems"] == [
        {
            "position": batches[10].position,
            "kind": "decoder_error",
            "reason": "the decoder failed: RuntimeError: a bug",
            "skipped": 31573 - batches[10].position,
        }
    ]


def test_a_big_file_is_mapped_and_reads_as_a_small_one_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    task = _task(CAPTURE / "metadata" / SEGMENT, read_start=1000)
    read = list(file_rows(task, "r"))
    monkeypatch.setattr(kraft_tasks, "MAP_FROM_BYTES", 1)
    assert list(file_rows(task, "r")) == read
    assert read[-1]["read_start"] == 1000 and read[-1]["problems"][0]["position"] == 1000
