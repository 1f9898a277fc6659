"""The replay's task functions: Arrow / pandas batches in, ``kafkactl_core.replay`` records out.

Thin adapters between Spark's batches and the pure core, importable and testable without Spark
(they use pyarrow and pandas only):

* ``normalize_batches`` (``mapInArrow``): rows of one silver table (``controller_events``,
  ``zk_changes`` or ``zk_state``; times already epoch milliseconds) through the core's
  normalizer into one union batch of evidence rows (``row_type = 'evidence'``, the columns of
  ``EVIDENCE_COLUMNS``) and cluster-fact rows (``'fact'``, ``CLUSTER_FACT_COLUMNS``).
* ``replay_batches`` (``mapInPandas``): evidence sorted by partition and ``order_key`` into one
  ``ReplayDriver`` per scenario (the actual settings first, then each what-if), whose state is
  carried across batches; yields the drivers' rows as they become final, plus the what-if
  outcomes (``evaluate_what_if``) of each partition's actual elections once it is complete.
  Output columns are ``OUTPUT_COLUMNS``: the record fields of every row type (``ROW_LAYOUTS``),
  times as epoch milliseconds, lists as lists, plus ``row_type``; the job splits them by table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pyarrow as pa

from kafkactl_core.replay import (
    CLUSTER_FACT_COLUMNS,
    EVIDENCE_COLUMNS,
    AnomalyRow,
    ClusterTimelines,
    ElectionRow,
    Normalized,
    PartitionEvidence,
    ReplayDriver,
    ReplayOutput,
    ReplaySettings,
    TimelineRow,
    WhatIfRow,
    evaluate_what_if,
    normalize_controller_event,
    normalize_zk_change,
    normalize_zk_state,
)

__all__ = [
    "NORMALIZED_COLUMNS",
    "NORMALIZERS",
    "OUTPUT_COLUMNS",
    "ROW_LAYOUTS",
    "ROW_TYPE",
    "OutputColumn",
    "RowLayout",
    "evidence_records",
    "normalize_batches",
    "replay_batches",
]

ROW_TYPE = "row_type"
"""Column naming what a union row is (``evidence``/``fact``; ``election``/``timeline``/...)."""

NORMALIZERS: Mapping[str, Callable[[Mapping[str, Any]], Normalized]] = {
    "controller_events": normalize_controller_event,
    "zk_changes": normalize_zk_change,
    "zk_state": normalize_zk_state,
}
"""Silver table name -> the core normalizer of one of its rows."""

NORMALIZED_COLUMNS: Mapping[str, str] = {
    **EVIDENCE_COLUMNS,
    **{name: kind for name, kind in CLUSTER_FACT_COLUMNS.items() if name not in EVIDENCE_COLUMNS},
}
"""Columns of ``normalize_batches``' output (besides ``row_type``) and their core type names;
a column both records have has the same type in both (a test checks)."""


def normalize_batches(
    batches: Iterable[pa.RecordBatch], *, table: str, schema: pa.Schema
) -> Iterator[pa.RecordBatch]:
    """Normalize silver rows into evidence and fact rows (a ``mapInArrow`` function).

    Args:
        batches: rows of the silver ``table`` (the normalizer's columns; times in epoch ms).
        table: ``controller_events``, ``zk_changes`` or ``zk_state``.
        schema: the output Arrow schema (``NORMALIZED_COLUMNS`` and ``row_type``).

    Yields:
        One batch per input batch that produced anything: evidence rows and fact rows.
    """
    normalize = NORMALIZERS[table]
    for batch in batches:
        rows: list[dict[str, Any]] = []
        for row in batch.to_pylist():
            found = normalize(row)
            for ev in found.evidence:
                out = ev.to_row()
                out[ROW_TYPE] = "evidence"
                rows.append(out)
            for fact in found.facts:
                out = fact.to_row()
                out[ROW_TYPE] = "fact"
                rows.append(out)
        if rows:
            yield pa.RecordBatch.from_pylist(rows, schema=schema)


def _int_or_none(value: Any) -> int | None:
    # pandas gives a nullable integer column as float64 with NaN for null.
    return None if value != value else int(value)


def _column_values(series: pd.Series, kind: str) -> list[Any]:
    """A pandas column as plain Python values of the core type ``kind``."""
    if kind == "int" and series.dtype.kind == "f":
        return [_int_or_none(v) for v in series.tolist()]
    if kind == "ints":
        return [
            None
            if v is None or (isinstance(v, float) and v != v)
            else (v.tolist() if hasattr(v, "tolist") else list(v))
            for v in series.tolist()
        ]
    return [None if isinstance(v, float) and v != v else v for v in series.tolist()]


def evidence_records(frame: pd.DataFrame) -> tuple[list[PartitionEvidence], list[dict[str, Any]]]:
    """Rebuild the evidence records of a pandas batch (columns of ``EVIDENCE_COLUMNS``).

    Args:
        frame: a batch as ``mapInPandas`` gives it (missing columns are taken as null).

    Returns:
        The records, in row order, and the rows that are not evidence (no identity), as dicts.
    """
    names = [name for name in EVIDENCE_COLUMNS if name in frame.columns]
    columns = [_column_values(frame[name], EVIDENCE_COLUMNS[name]) for name in names]
    records: list[PartitionEvidence] = []
    rejected: list[dict[str, Any]] = []
    for values in zip(*columns, strict=True):
        row = dict(zip(names, values, strict=True))
        ev = PartitionEvidence.from_row(row)
        if ev is None:
            rejected.append(row)
        else:
            records.append(ev)
    return records, rejected


@dataclass(frozen=True)
class OutputColumn:
    """One field of a replay record in the union output.

    Attributes:
        name: the union column.
        field: the record's attribute (``elected_at_ms``, ...).
        is_list: a tuple attribute (written as a list).
    """

    name: str
    field: str
    is_list: bool


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
            columns.append(OutputColumn(column, name, kind.startswith("tuple")))
        has_own = any(f.name == "scenario" for f in dataclasses.fields(record))
        scenario = columns.pop() if not has_own else None
        layouts[row_type] = RowLayout(
            row_type, record, tuple(columns), scenario.name if scenario else None
        )
    return layouts


ROW_LAYOUTS: Mapping[str, RowLayout] = _layouts()
"""Row type -> its layout: ``election``, ``timeline``, ``anomaly``, ``what_if``."""

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


def _frame(rows: Sequence[object], layout: RowLayout, scenario: str) -> dict[str, list[Any]]:
    data: dict[str, list[Any]] = {}
    for column in layout.columns:
        values = [getattr(row, column.field) for row in rows]
        if column.is_list:
            values = [None if v is None else list(v) for v in values]
        data[column.name] = values
    if layout.scenario_column:
        data[layout.scenario_column] = [scenario] * len(rows)
    data[ROW_TYPE] = [layout.row_type] * len(rows)
    return data


def _to_pandas(parts: list[tuple[Sequence[object], RowLayout, str]]) -> pd.DataFrame | None:
    total = sum(len(rows) for rows, _, _ in parts)
    if not total:
        return None
    columns: dict[str, list[Any]] = {name: [] for name in OUTPUT_COLUMNS}
    filled = 0
    for rows, layout, scenario in parts:
        if not rows:
            continue
        for name, values in _frame(rows, layout, scenario).items():
            column = columns[name]
            column.extend([None] * (filled - len(column)))
            column.extend(values)
        filled += len(rows)
    # object dtype keeps Python ints exact (no float64 round trip) and None as null.
    return pd.DataFrame(
        {
            name: pd.Series(v + [None] * (total - len(v)), dtype=object)
            for name, v in columns.items()
        }
    )


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
    batches: Iterable[pd.DataFrame],
    *,
    timelines: Mapping[str, ClusterTimelines],
    scenarios: Sequence[ReplaySettings],
) -> Iterator[pd.DataFrame]:
    """Fold sorted evidence through the core, once per scenario (a ``mapInPandas`` function).

    Args:
        batches: evidence rows (``EVIDENCE_COLUMNS``), each partition's rows contiguous and in
            ``order_key`` order (the job repartitions by partition and sorts within).
        timelines: cluster -> its timelines (a cluster without any gets empty ones).
        scenarios: the actual settings first, then each what-if scenario's settings
            (``with_what_if``), all applied to every cluster in the input.

    Yields:
        Frames of ``OUTPUT_COLUMNS``: election, timeline and anomaly rows of every scenario as
        the folds make them final, and what-if rows of every what-if scenario.
    """
    if not scenarios:
        return
    actual, what_ifs = scenarios[0], scenarios[1:]
    drivers = [ReplayDriver(timelines, s, sorted_input=True) for s in scenarios]
    buffers = [_WhatIfBuffer(timelines, s) for s in what_ifs]
    layouts = ROW_LAYOUTS

    def emit(outputs: list[ReplayOutput], last: bool) -> pd.DataFrame | None:
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
        return _to_pandas(parts)

    for frame in batches:
        evidence, rejected = evidence_records(frame)
        outputs = [driver.feed(evidence) for driver in drivers]
        for row in rejected:
            outputs[0].anomalies.append(_rejected_anomaly(row, actual.scenario))
        ready = emit(outputs, last=False)
        if ready is not None:
            yield ready
    ready = emit([driver.finish() for driver in drivers], last=True)
    if ready is not None:
        yield ready
