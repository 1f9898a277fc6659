"""The replay's task functions on Arrow batches, without a JVM.

The evidence is the demo cluster's (``samples/demo``): its logs through the pure-Python grammar
executor, its ZooKeeper dataDir through the pure decoder. Batches are built the way Spark hands
them to tasks (Arrow record batches, list columns as lists or joined into text as the job sends
them), and the adapters must give exactly the rows of the core's one-call
``replay``/``evaluate_what_if``.
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import pyarrow as pa
import pytest

from jobs.stages.replay import OUTPUT_ARROW
from jobs.tasks.list_transport import LIST_SEPARATOR, split_lists
from jobs.tasks.replay_tasks import (
    NORMALIZED_COLUMNS,
    OUTPUT_COLUMNS,
    ROW_LAYOUTS,
    ROW_TYPE,
    evidence_records,
    normalize_batches,
    replay_batches,
)
from kafkactl_core.replay import (
    CLUSTER_FACT_COLUMNS,
    EVIDENCE_COLUMNS,
    ClusterFact,
    Fact,
    PartitionEvidence,
    ReplayOutput,
    ReplaySettings,
    Source,
    broker_config_rows,
    build_timelines,
    controller_event_rows,
    evaluate_what_if,
    normalize_rows,
    partition_key,
    replay,
    with_what_if,
)
from kafkactl_core.versions import KafkaRelease
from kafkactl_core.zk import decode_datadir
from tests.adapters.record_tables import core_schema
from tests.conftest import REPO

DEMO = REPO / "samples" / "demo"
SERVER_LOG = REPO / "tests/fixtures/real-kafka/unclean-election-3.9.1-zk/brokers/2/server.log"
CLUSTER = "demo"
NORMALIZED_ARROW = core_schema(NORMALIZED_COLUMNS).append(pa.field(ROW_TYPE, pa.string()))
EVIDENCE_ARROW = core_schema(EVIDENCE_COLUMNS)


def _ms(value: Any) -> Any:
    return None if value is None else int(value.timestamp() * 1000)


@pytest.fixture(scope="module")
def silver() -> dict[str, list[dict[str, Any]]]:
    """The demo's silver rows, as the ingest jobs would write them (times in epoch ms)."""
    events: list[dict[str, Any]] = []
    for path in sorted((DEMO / "logs").glob("*/*.log")):
        for row in controller_event_rows(path, CLUSTER, KafkaRelease.parse("2.8")):
            row["ts"] = _ms(row["ts"])
            events.append(row)
    decoded = decode_datadir([DEMO / "zookeeper" / "version-2"])
    changes = [{**c.to_row(), "cluster": CLUSTER} for c in decoded.changes]
    state = [{**s.to_row(), "cluster": CLUSTER} for s in decoded.state]
    # the demo prints no configuration: a real broker's KafkaConfig blocks
    configs = [{**r, "ts": _ms(r["ts"])} for r in broker_config_rows(SERVER_LOG, CLUSTER)]
    return {
        "controller_events": events,
        "zk_changes": changes,
        "zk_state": state,
        "broker_configs": configs,
    }


def _arrow_batches(rows: list[dict[str, Any]], size: int) -> Iterator[pa.RecordBatch]:
    table = pa.Table.from_pylist(rows)
    yield from table.to_batches(max_chunksize=size)


def test_normalize_batches_gives_the_core_normalizers_rows(silver):
    for table, rows in silver.items():
        got = pa.Table.from_batches(
            list(
                normalize_batches(_arrow_batches(rows, 100), table=table, schema=NORMALIZED_ARROW)
            ),
            schema=NORMALIZED_ARROW,
        ).to_pylist()
        kwargs = {table: rows}
        evidence, facts = normalize_rows(**kwargs)
        assert evidence or facts
        assert [r for r in got if r[ROW_TYPE] == "evidence"] == [
            {**dict.fromkeys(NORMALIZED_COLUMNS), **ev.to_row(), ROW_TYPE: "evidence"}
            for ev in evidence
        ]
        got_facts = [ClusterFact.from_row(r) for r in got if r[ROW_TYPE] == "fact"]
        assert got_facts == facts


def test_normalized_columns_have_one_type_per_name():
    shared = set(EVIDENCE_COLUMNS) & set(CLUSTER_FACT_COLUMNS)
    assert shared and all(EVIDENCE_COLUMNS[n] == CLUSTER_FACT_COLUMNS[n] for n in shared)


def _everything(silver) -> tuple[list[PartitionEvidence], list[ClusterFact]]:
    return normalize_rows(silver["controller_events"], silver["zk_changes"], silver["zk_state"])


def _evidence_batches(evidence: Sequence[PartitionEvidence], size: int) -> list[pa.RecordBatch]:
    """Evidence in the fold's order, as Arrow batches of ``size`` rows."""
    ordered = sorted(evidence, key=lambda ev: (partition_key(ev), ev.order_key()))
    table = pa.Table.from_pylist([ev.to_row() for ev in ordered], schema=EVIDENCE_ARROW)
    return table.to_batches(max_chunksize=size)


def test_evidence_survives_the_arrow_round_trip(silver):
    evidence, _ = _everything(silver)
    (batch,) = _evidence_batches(evidence, len(evidence))
    records, rejected = evidence_records(batch)
    ordered = sorted(evidence, key=lambda ev: (partition_key(ev), ev.order_key()))
    assert rejected == [] and records == ordered


_LISTS = core_schema({n: k for n, k in EVIDENCE_COLUMNS.items() if k == "ints"})


def _joined(batch: pa.RecordBatch) -> pa.RecordBatch:
    """List columns joined into text with their sizes, as the job sends them
    (``sorted_evidence``, ``joined_lists``)."""
    rows = []
    for row in batch.to_pylist():
        for name in _LISTS.names:
            value = row[name]
            row[name] = None if value is None else LIST_SEPARATOR.join(map(str, value))
            row[f"__size_{name}"] = None if value is None else len(value)
        rows.append(row)
    return pa.RecordBatch.from_pylist(rows)


def test_joined_list_columns_give_the_same_evidence(silver):
    evidence, _ = _everything(silver)
    (batch,) = _evidence_batches(evidence, len(evidence))
    split = split_lists(_joined(batch), _LISTS.names, _LISTS)
    assert split.column("isr").null_count < split.num_rows
    assert evidence_records(split) == evidence_records(batch)


def test_normalize_batches_splits_joined_list_columns(silver):
    rows = silver["zk_changes"]
    joined = [
        {
            **r,
            "isr": None if r["isr"] is None else LIST_SEPARATOR.join(map(str, r["isr"])),
            "__size_isr": None if r["isr"] is None else len(r["isr"]),
        }
        for r in rows
    ]
    assert any(r["isr"] for r in joined)
    lists = pa.schema([("isr", pa.list_(pa.int64()))])
    split = {"joined": ("isr",), "lists": lists}
    got, want = (
        pa.Table.from_batches(
            list(normalize_batches(_arrow_batches(data, 50), **kwargs)), schema=NORMALIZED_ARROW
        ).to_pylist()
        for data, kwargs in (
            (joined, {"table": "zk_changes", "schema": NORMALIZED_ARROW, **split}),
            (rows, {"table": "zk_changes", "schema": NORMALIZED_ARROW}),
        )
    )
    assert got == want


def _rows_of(batches: list[pa.RecordBatch], row_type: str) -> list[dict[str, Any]]:
    layout = ROW_LAYOUTS[row_type]
    names = [c.name for c in layout.columns]
    if layout.scenario_column:
        names.append(layout.scenario_column)
    rows = pa.Table.from_batches(batches, schema=OUTPUT_ARROW).to_pylist()
    return [{name: row[name] for name in names} for row in rows if row[ROW_TYPE] == row_type]


def _expected(records: Sequence[object], row_type: str, scenario: str) -> list[dict[str, Any]]:
    layout = ROW_LAYOUTS[row_type]
    rows = []
    for record in records:
        row = {}
        for column in layout.columns:
            value = getattr(record, column.field)
            row[column.name] = list(value) if isinstance(value, tuple) else value
        if layout.scenario_column:
            row[layout.scenario_column] = scenario
        rows.append(row)
    return rows


def _key(row: dict[str, Any]) -> str:
    return repr(sorted(row.items(), key=lambda item: item[0]))


def _same(got: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    # Row order across partitions is the driver's; compare as multisets of exact values.
    assert sorted(map(_key, got)) == sorted(map(_key, expected))


def _replayed(batches: Iterable[pa.RecordBatch], **kwargs: Any) -> list[pa.RecordBatch]:
    return list(replay_batches(iter(batches), schema=OUTPUT_ARROW, **kwargs))


@pytest.mark.parametrize(("batch_rows", "joined"), [(7, False), (100_000, False), (500, True)])
def test_replay_batches_equal_the_core_replay_and_what_if(silver, batch_rows, joined):
    evidence, facts = _everything(silver)
    timelines = build_timelines(facts)
    actual = ReplaySettings.of("2.8")
    scenario, problems = with_what_if(actual, ["unclean.leader.election.enable=false"])
    assert problems == []

    batches = _evidence_batches(evidence, batch_rows)
    lists = {"joined": _LISTS.names, "lists": _LISTS} if joined else {}
    frames = _replayed(
        (_joined(b) for b in batches) if joined else batches,
        timelines=timelines,
        scenarios=[actual, scenario],
        **lists,
    )
    assert frames and all(f.schema == OUTPUT_ARROW for f in frames)

    expected: ReplayOutput = replay(evidence, timelines, actual)
    replayed: ReplayOutput = replay(evidence, timelines, scenario)
    what_if = evaluate_what_if(expected.elections, timelines, scenario)
    assert expected.elections and what_if, "the demo has elections a what-if changes"
    assert any(r.unclean for r in expected.elections)

    _same(
        _rows_of(frames, "election"),
        _expected(expected.elections, "election", "actual")
        + _expected(replayed.elections, "election", scenario.scenario),
    )
    _same(
        _rows_of(frames, "timeline"),
        _expected(expected.timeline, "timeline", "actual")
        + _expected(replayed.timeline, "timeline", scenario.scenario),
    )
    _same(
        _rows_of(frames, "anomaly"),
        _expected(expected.anomalies, "anomaly", "actual")
        + _expected(replayed.anomalies, "anomaly", scenario.scenario),
    )
    _same(_rows_of(frames, "what_if"), _expected(what_if, "what_if", scenario.scenario))


def test_a_partition_split_across_batches_keeps_its_state():
    written = Fact.leadership_written
    evidence = [
        PartitionEvidence(CLUSTER, "t", 0, 1_000 + i, Source.zk_txn, fact, f"log:{i}", i, **values)
        for i, (fact, values) in enumerate(
            [
                (Fact.assignment, {"replicas": (1, 2)}),
                (written, {"leader": 1, "leader_epoch": 0, "isr": (1, 2), "partition_epoch": 0}),
                (written, {"leader": 1, "leader_epoch": 0, "isr": (1,), "partition_epoch": 1}),
                (written, {"leader": 2, "leader_epoch": 1, "isr": (2,), "partition_epoch": 2}),
            ]
        )
    ]
    settings = ReplaySettings.of("2.8")
    frames = _replayed(_evidence_batches(evidence, 1), timelines={}, scenarios=[settings])
    elections = _rows_of(frames, "election")
    (unclean,) = [r for r in elections if r["new_leader"] == 2]
    assert unclean["isr_before"] == [1] and unclean["unclean"] is True
    _same(elections, _expected(replay(evidence, {}, settings).elections, "election", "actual"))


def test_rows_without_identity_become_anomalies_not_silence():
    batch = pa.RecordBatch.from_pylist(
        [{"cluster": CLUSTER, "topic": None, "partition": 0, "source": "zk_txn"}]
    )
    frames = _replayed([batch], timelines={}, scenarios=[ReplaySettings.of("2.8")])
    (anomaly,) = _rows_of(frames, "anomaly")
    assert anomaly["kind"] == "unusable_evidence" and anomaly["cluster"] == CLUSTER


def test_no_evidence_no_rows():
    assert _replayed([], timelines={}, scenarios=[ReplaySettings.of("2.8")]) == []


def test_every_record_field_has_a_union_column():
    for row_type, layout in ROW_LAYOUTS.items():
        fields = [f.name for f in dataclasses.fields(layout.record)]
        assert [c.field for c in layout.columns] == fields, row_type
        assert {c.name for c in layout.columns} <= set(OUTPUT_COLUMNS)
    # The one name with two types: a timeline row's evidence is one ref, elsewhere a list.
    assert ROW_LAYOUTS["timeline"].columns[-1].name == "timeline_evidence"
    assert ROW_LAYOUTS["election"].scenario_column is None
    assert ROW_LAYOUTS["timeline"].scenario_column == "scenario"


def test_tasks_collect_cycles_less_often_and_restore_the_collector():
    before = gc.get_threshold()
    seen: list[int] = []

    def batches() -> Iterator[pa.RecordBatch]:
        seen.append(gc.get_threshold()[0])
        yield pa.RecordBatch.from_pylist([{"cluster": CLUSTER, "topic": None}])

    _replayed(batches(), timelines={}, scenarios=[ReplaySettings.of("2.8")])
    assert seen == [200_000] and gc.get_threshold() == before
