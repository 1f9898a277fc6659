"""``report_tasks.sweep_task`` (the Spark side of ``gold.leader_imbalance``) gives the rows of the
core's ``imbalance_rows`` whatever the batches its sorted input arrives in: a moment split across
two batches included, and with more rows than one output chunk. No JVM: Arrow batches in.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from jobs.lakehouse.arrow_types import arrow_schema
from jobs.tasks import report_tasks
from jobs.tasks.report_tasks import ORD_CHANGE, ORD_CHECK, sweep_task
from jobs.tasks.wire import task_schema
from kafkactl_core.report import COUNTERS, ImbalanceSettings, LoggedRatio, imbalance_rows
from kafkactl_core.report.imbalance import Delta
from kafkactl_core.versions import KafkaRelease
from schemas.report import LEADER_IMBALANCE

SETTINGS = ImbalanceSettings(10, "zk", KafkaRelease.parse("2.8"))
SCHEMA = arrow_schema(task_schema(LEADER_IMBALANCE))

_STREAM = pa.schema(
    [
        ("t_ms", pa.int64()),
        ("ord", pa.int32()),
        ("broker", pa.int32()),
        *[(name, pa.int64()) for name in COUNTERS],
        ("logged_ratio", pa.float64()),
        ("logged_ms", pa.int64()),
        ("logged_controller", pa.int32()),
        ("logged_evidence", pa.string()),
    ]
)
"""The sweep's input columns as ``imbalance_frame`` gives them."""


def _history() -> tuple[list[Delta], list[LoggedRatio]]:
    """Brokers 1-3 gaining and losing preferred leaderships, checks logged between (one at the
    millisecond of a change, one of a broker with no partition)."""
    deltas: list[Delta] = []
    for step in range(40):
        time = 1_000 * (step + 1)
        broker = 1 + step % 3
        sign = 1 if step % 4 else -1
        deltas.append(Delta(time, broker, (1, 1 if sign > 0 else 0, 0 if sign > 0 else 1, 1, 0, 0)))
        deltas.append(Delta(time, 1 + (step + 1) % 3, (0, 0, 0, 1, 1, 0)))
    logged = [
        LoggedRatio(5_004, 1, 1, 0.0, "controller.log:7", 5_000),
        LoggedRatio(5_005, 1, 2, 0.5, "controller.log:8", 5_000),
        LoggedRatio(20_003, 1, 9, 0.0, "controller.log:9", 20_000),
    ]
    return deltas, logged


def _stream(deltas: list[Delta], logged: list[LoggedRatio]) -> pa.Table:
    """The task's input as ``imbalance_frame`` sorts it: summed changes and logged ratios."""
    summed: dict[tuple[int, int], list[int]] = {}
    for delta in deltas:
        vector = summed.setdefault((delta.time_ms, delta.broker), [0] * len(COUNTERS))
        for index, value in enumerate(delta.counts):
            vector[index] += value
    rows: list[dict[str, Any]] = [
        {"t_ms": t, "ord": ORD_CHANGE, "broker": b, **dict(zip(COUNTERS, counts, strict=True))}
        for (t, b), counts in summed.items()
    ]
    rows += [
        {
            "t_ms": r.check_ms,
            "ord": ORD_CHECK,
            "broker": r.broker,
            "logged_ratio": r.ratio,
            "logged_ms": r.time_ms,
            "logged_controller": r.controller_id,
            "logged_evidence": r.evidence,
        }
        for r in logged
    ]
    rows.sort(key=lambda row: (row["t_ms"], row["ord"], row["broker"]))
    return pa.Table.from_pylist(rows, schema=_STREAM)


@pytest.mark.parametrize("batch_rows", [1, 7, 1_000])
def test_the_streamed_sweep_equals_the_cores_rows(
    batch_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report_tasks, "_CHUNK_ROWS", 25)  # several output chunks
    deltas, logged = _history()
    expected = [r.to_row() for r in imbalance_rows("c", deltas, SETTINGS, logged)]
    stream = _stream(deltas, logged)
    batches = stream.to_batches(max_chunksize=batch_rows)
    out = list(sweep_task(iter(batches), cluster="c", settings=SETTINGS, schema=SCHEMA))
    assert len(out) > 1 and all(batch.num_rows <= 25 for batch in out)
    assert all(batch.schema == SCHEMA for batch in out)
    assert any(row["observation"] == "check" for row in expected)
    want = pa.Table.from_pylist(expected, schema=SCHEMA).to_pylist()
    assert [row for batch in out for row in batch.to_pylist()] == want
