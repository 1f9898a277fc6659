"""The replay's task functions: Arrow batches in, ``kafkactl_core.replay`` records out.

Thin adapters between Spark's batches and the pure core, importable and testable without Spark
(they use pyarrow only):

* ``normalize_batches`` (``mapInArrow``): rows of one silver table (``controller_events``,
  ``zk_changes``, ``zk_state`` or ``broker_configs``; times already epoch milliseconds) through
  the core's normalizer into union batches of evidence rows (``row_type = 'evidence'``, the
  columns of ``EVIDENCE_COLUMNS``) and cluster-fact rows (``'fact'``, ``CLUSTER_FACT_COLUMNS``).
* ``normalize_kraft_table`` (``applyInArrow``, one group per cluster): a cluster's
  ``silver.kraft_changes`` rows applied in log order (``KRaftMetadataReplay``) into the same
  union of evidence and fact rows.
* ``replay_batches`` (``mapInArrow``): evidence sorted by partition and ``order_key`` into one
  ``ReplayDriver`` per scenario (the actual settings first, then each what-if), whose state is
  carried across batches; yields the drivers' rows as they become final, plus the what-if
  outcomes (``evaluate_what_if``) of each partition's actual elections once it is complete.
  Output columns are ``OUTPUT_COLUMNS``: the record fields of every row type (``ROW_LAYOUTS``),
  times as epoch milliseconds, lists as lists, plus ``row_type``; the job splits them by table.
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import pyarrow as pa

from jobs.tasks.column_rows import column_rows
from jobs.tasks.list_transport import split_lists
from jobs.tasks.record_batches import record_batch
from kafkactl_core.replay import (
    CLUSTER_FACT_COLUMNS,
    CLUSTER_FACT_VALUES,
    EVIDENCE_COLUMNS,
    EVIDENCE_VALUES,
    AnomalyRow,
    ClusterFact,
    ClusterTimelines,
    ElectionRow,
    Fact,
    Normalized,
    PartitionEvidence,
    ReplayDriver,
    ReplayOutput,
    ReplaySettings,
    Source,
    TimelineRow,
    WhatIfRow,
    evaluate_what_if,
    normalize_broker_config,
    normalize_controller_event,
    normalize_zk_change,
    normalize_zk_state,
)
from kafkactl_core.replay.from_kraft import KRaftMetadataReplay, MetadataEntry, order_entries

__all__ = [
    "NORMALIZED_COLUMNS",
    "NORMALIZERS",
    "OUTPUT_COLUMNS",
    "ROW_LAYOUTS",
    "ROW_TYPE",
    "OutputColumn",
    "RowLayout",
    "evidence_records",
    "gc_relaxed",
    "normalize_batches",
    "normalize_kraft_table",
    "replay_batches",
]

ROW_TYPE = "row_type"
"""Column naming what a union row is (``evidence``/``fact``; ``election``/``timeline``/...)."""

NORMALIZERS: Mapping[str, Callable[[Mapping[str, Any]], Normalized]] = {
    "controller_events": normalize_controller_event,
    "zk_changes": normalize_zk_change,
    "zk_state": normalize_zk_state,
    "broker_configs": normalize_broker_config,
}
"""Silver table name -> the core normalizer of one of its rows."""

NORMALIZED_COLUMNS: Mapping[str, str] = {
    **EVIDENCE_COLUMNS,
    **{name: kind for name, kind in CLUSTER_FACT_COLUMNS.items() if name not in EVIDENCE_COLUMNS},
}
"""Columns of ``normalize_batches``' output (besides ``row_type``) and their core type names;
a column both records have has the same type in both (a test checks)."""


@contextmanager
def gc_relaxed(threshold: int = 200_000) -> Iterator[None]:
    """Collect Python's reference cycles less often while a task converts and folds batches.

    A batch allocates tens of thousands of objects at once (values, records, rows), and
    with the default threshold (700 allocations) the collector runs hundreds of times per batch,
    which costs more than the fold itself. Objects are freed by reference counting anyway; the
    rare cycles are still collected, every ``threshold`` allocations. The previous thresholds
    are restored when the task ends (the Python worker may run other tasks after it).

    Args:
        threshold: allocations between two collections of the youngest generation.
    """
    previous = gc.get_threshold()
    gc.set_threshold(threshold, *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def _union_batches(
    evidence: Sequence[PartitionEvidence], facts: Sequence[ClusterFact], schema: pa.Schema
) -> Iterator[pa.RecordBatch]:
    """The normalize step's union rows: a batch of the evidence, then one of the facts, each
    with its ``row_type`` (none for an empty list)."""
    if evidence:
        yield record_batch(evidence, schema, {ROW_TYPE: "evidence"}, EVIDENCE_VALUES)
    if facts:
        yield record_batch(facts, schema, {ROW_TYPE: "fact"}, CLUSTER_FACT_VALUES)


_NO_LISTS = pa.schema([])


def normalize_batches(
    batches: Iterable[pa.RecordBatch],
    *,
    table: str,
    schema: pa.Schema,
    joined: Sequence[str] = (),
    lists: pa.Schema = _NO_LISTS,
) -> Iterator[pa.RecordBatch]:
    """Normalize silver rows into evidence and fact rows (a ``mapInArrow`` function).

    Args:
        batches: rows of the silver ``table`` (the normalizer's columns; times in epoch ms).
        table: ``controller_events``, ``zk_changes``, ``zk_state`` or ``broker_configs``.
        schema: the output Arrow schema (``NORMALIZED_COLUMNS`` and ``row_type``).
        joined: list columns that arrive joined into text (``list_transport.joined_lists``).
        lists: the Arrow types they go back to (a schema with every joined column).

    Yields:
        One batch per input batch that produced anything: evidence rows and fact rows.
    """
    normalize = NORMALIZERS[table]
    with gc_relaxed():
        for batch in batches:
            evidence: list[PartitionEvidence] = []
            facts: list[ClusterFact] = []
            source = split_lists(batch, joined, lists) if joined else batch
            for row in column_rows(source):
                found = normalize(row)
                evidence += found.evidence
                facts += found.facts
            yield from _union_batches(evidence, facts, schema)


def normalize_kraft_table(
    table: pa.Table,
    *,
    schema: pa.Schema,
    exclude_runs: frozenset[str] = frozenset(),
) -> pa.Table:
    """Replay one cluster's metadata records into evidence and fact rows (``applyInArrow``).

    A record's meaning depends on every record before it (a PartitionChangeRecord carries
    only what it changes), so the whole cluster is one group, applied in log order.

    Args:
        table: the cluster's ``silver.kraft_changes`` rows (``KRAFT_CHANGE_COLUMNS`` and
            ``run_id``; ``time`` in epoch ms), in any order.
        schema: the output Arrow schema (``NORMALIZED_COLUMNS`` and ``row_type``).
        exclude_runs: runs whose records are applied but give no rows (an incremental
            replay's question: what do the other runs' records add).

    Returns:
        The evidence and fact rows.
    """
    batches: list[pa.RecordBatch] = []
    with gc_relaxed():
        records = table.to_pylist()
        if records:
            entries = [MetadataEntry.from_row(row) for row in records]
            kept = {
                e.ref
                for e, row in zip(entries, records, strict=True)
                if row.get("run_id") not in exclude_runs
            }
            metadata = KRaftMetadataReplay(entries[0].cluster)
            found = metadata.feed(order_entries(entries))
            end = metadata.finish()
            batches.extend(
                _union_batches(
                    [ev for ev in found.evidence + end.evidence if ev.ref in kept],
                    [fact for fact in found.facts + end.facts if fact.ref in kept],
                    schema,
                )
            )
    return pa.Table.from_batches(batches, schema=schema)


_EVIDENCE_FIELDS = tuple(f.name for f in dataclasses.fields(PartitionEvidence))
_SOURCES = {member.name: member for member in Source}
_FACTS = {member.name: member for member in Fact}
_EVIDENCE_LISTS = tuple(name for name, kind in EVIDENCE_COLUMNS.items() if kind == "ints")


def evidence_records(
    batch: pa.RecordBatch | pa.Table,
) -> tuple[list[PartitionEvidence], list[dict[str, Any]]]:
    """Rebuild the evidence records of an Arrow batch (columns of ``EVIDENCE_COLUMNS``).

    Same records as ``PartitionEvidence.from_row`` on each row of ``to_pylist()``, built
    column by column (the per-value coercion of ``from_row`` is most of a row's cost).

    Args:
        batch: a batch of evidence rows (missing columns are taken as null).

    Returns:
        The records, in row order, and the rows that are not evidence (no topic, partition,
        known source or known fact), as dicts.
    """
    size = batch.num_rows
    present = set(batch.schema.names)
    columns = {
        name: batch.column(name).to_pylist() if name in present else [None] * size
        for name in EVIDENCE_COLUMNS
    }
    for name in _EVIDENCE_LISTS:
        columns[name] = [None if v is None else tuple(v) for v in columns[name]]
    columns["source"] = [_SOURCES.get(v) if v else None for v in columns["source"]]
    columns["fact"] = [_FACTS.get(v) if v else None for v in columns["fact"]]
    columns["cluster"] = [v or "" for v in columns["cluster"]]
    columns["ref"] = [v or "" for v in columns["ref"]]
    columns["seq"] = [v or 0 for v in columns["seq"]]
    records: list[PartitionEvidence] = []
    rejected: list[dict[str, Any]] = []
    ordered = [columns[name] for name in _EVIDENCE_FIELDS]
    for index, values in enumerate(zip(*ordered, strict=True)):
        if values[1] is None or values[2] is None or values[4] is None or values[5] is None:
            rejected.append(batch.slice(index, 1).to_pylist()[0])
            continue
        records.append(PartitionEvidence(*values))
    return records, rejected


@dataclass(frozen=True)
class OutputColumn:
    """One field of a replay record in the union output.

    Attributes:
        name: the union column.
        field: the record's attribute (``elected_at_ms``, ...).
    """

    name: str
    field: str


@dataclass(frozen=True)
class RowLayout:
    """How one kind of replay record is laid out in the union output.

    Attributes:
        row_type: its ``row_type`` value.
        record: the core record class.
        columns: its fields in declaration order (which is the order of ``to_row()``).
        scenario_column: the union column the job adds the scenario name in, when the record
            has no ``scenario`` field of its own.
    """

    row_type: str
    record: type
    columns: tuple[OutputColumn, ...]
    scenario_column: str | None


def _base_type(annotation: object) -> str:
    return str(annotation).replace(" | None", "")


def _layouts() -> dict[str, RowLayout]:
    kinds: dict[str, str] = {}
    layouts: dict[str, RowLayout] = {}
    for row_type, record in (
        ("election", ElectionRow),
        ("timeline", TimelineRow),
        ("anomaly", AnomalyRow),
        ("what_if", WhatIfRow),
    ):
        columns = []
        fields = {f.name: _base_type(f.type) for f in dataclasses.fields(record)}
        if "scenario" not in fields:
            fields["scenario"] = "str"
        for name, kind in fields.items():
            column = name
            if kinds.setdefault(name, kind) != kind:
                # Same name, another type (TimelineRow.evidence is one ref, not a list).
                column = f"{row_type}_{name}"
                kinds[column] = kind
            columns.append(OutputColumn(column, name))
        has_own = any(f.name == "scenario" for f in dataclasses.fields(record))
        scenario = columns.pop() if not has_own else None
        layouts[row_type] = RowLayout(
            row_type, record, tuple(columns), scenario.name if scenario else None
        )
    return layouts


ROW_LAYOUTS: Mapping[str, RowLayout] = _layouts()
"""Row type -> its layout: ``election``, ``timeline``, ``anomaly``, ``what_if``."""

_LAYOUT_VALUES: Mapping[str, Mapping[str, Callable[[Any], Any]]] = {
    row_type: {column.name: attrgetter(column.field) for column in layout.columns}
    for row_type, layout in ROW_LAYOUTS.items()
}
"""Row type -> union column -> the reader of its record attribute (``record_batch``)."""

OUTPUT_COLUMNS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            *(
                name
                for layout in ROW_LAYOUTS.values()
                for name in (
                    *(c.name for c in layout.columns),
                    *((layout.scenario_column,) if layout.scenario_column else ()),
                )
            ),
            ROW_TYPE,
        ]
    )
)
"""Columns of ``replay_batches``' output, in order."""


def _output_batches(
    parts: Iterable[tuple[Sequence[object], RowLayout, str]], schema: pa.Schema
) -> Iterator[pa.RecordBatch]:
    """One batch of ``schema`` per non-empty part: a layout's records of one scenario."""
    for rows, layout, scenario in parts:
        if rows:
            constants = {ROW_TYPE: layout.row_type}
            if layout.scenario_column:
                constants[layout.scenario_column] = scenario
            yield record_batch(rows, schema, constants, _LAYOUT_VALUES[layout.row_type])


class _WhatIfBuffer:
    """Collects the actual elections of the partition being replayed; evaluates it when done."""

    def __init__(self, timelines: Mapping[str, ClusterTimelines], scenario: ReplaySettings) -> None:
        self.timelines = timelines
        self.scenario = scenario
        self.key: tuple[str, str, int] | None = None
        self.rows: list[ElectionRow] = []

    def add(self, elections: Iterable[ElectionRow]) -> list[WhatIfRow]:
        """Buffer elections; return the outcomes of partitions complete before them."""
        out: list[WhatIfRow] = []
        for row in elections:
            key = (row.cluster, row.topic, row.partition)
            if key != self.key:
                out.extend(self.flush())
                self.key = key
            self.rows.append(row)
        return out

    def flush(self) -> list[WhatIfRow]:
        """Evaluate the buffered partition."""
        rows, self.rows, self.key = self.rows, [], None
        if not rows:
            return []
        return evaluate_what_if(rows, self.timelines, self.scenario)


def _rejected_anomaly(row: Mapping[str, Any], scenario: str) -> AnomalyRow:
    return AnomalyRow(
        str(row.get("cluster") or ""),
        None,
        None,
        None,
        "unusable_evidence",
        "warning",
        None,
        None,
        None,
        f"an evidence row without topic, partition, source or fact was not replayed "
        f"({scenario}): {dict(row)!r}"[:2000],
        (str(row.get("ref")),) if row.get("ref") else (),
        str(row.get("source") or ""),
    )


def replay_batches(
    batches: Iterable[pa.RecordBatch],
    *,
    timelines: Mapping[str, ClusterTimelines],
    scenarios: Sequence[ReplaySettings],
    schema: pa.Schema,
    joined: Sequence[str] = (),
    lists: pa.Schema = _NO_LISTS,
) -> Iterator[pa.RecordBatch]:
    """Fold sorted evidence through the core, once per scenario (a ``mapInArrow`` function).

    Args:
        batches: evidence rows (``EVIDENCE_COLUMNS``), each partition's rows contiguous and in
            ``order_key`` order (the job repartitions by partition and sorts within).
        timelines: cluster -> its timelines (a cluster without any gets empty ones).
        scenarios: the actual settings first, then each what-if scenario's settings
            (``with_what_if``), all applied to every cluster in the input.
        schema: the output Arrow schema (``OUTPUT_COLUMNS``).
        joined: list columns that arrive joined into text (``list_transport.joined_lists``).
        lists: the Arrow types they go back to (a schema with every joined column).

    Yields:
        Batches of ``OUTPUT_COLUMNS``: election, timeline and anomaly rows of every scenario as
        the folds make them final, and what-if rows of every what-if scenario.
    """
    if not scenarios:
        return
    actual, what_ifs = scenarios[0], scenarios[1:]
    drivers = [ReplayDriver(timelines, s, sorted_input=True) for s in scenarios]
    buffers = [_WhatIfBuffer(timelines, s) for s in what_ifs]
    layouts = ROW_LAYOUTS

    def emit(outputs: list[ReplayOutput], last: bool) -> Iterator[pa.RecordBatch]:
        parts: list[tuple[Sequence[object], RowLayout, str]] = []
        for settings, out in zip(scenarios, outputs, strict=True):
            name = settings.scenario
            parts.append((out.elections, layouts["election"], name))
            parts.append((out.timeline, layouts["timeline"], name))
            parts.append((out.anomalies, layouts["anomaly"], name))
        for buffer in buffers:
            rows = buffer.add(outputs[0].elections)
            if last:
                rows.extend(buffer.flush())
            parts.append((rows, layouts["what_if"], buffer.scenario.scenario))
        return _output_batches(parts, schema)

    with gc_relaxed():
        for batch in batches:
            source = split_lists(batch, joined, lists) if joined else batch
            evidence, rejected = evidence_records(source)
            outputs = [driver.feed(evidence) for driver in drivers]
            for row in rejected:
                outputs[0].anomalies.append(_rejected_anomaly(row, actual.scenario))
            yield from emit(outputs, last=False)
        yield from emit([driver.finish() for driver in drivers], last=True)
