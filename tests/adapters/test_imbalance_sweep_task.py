"""``report_tasks.sweep_task`` (the Spark side of ``gold.leader_imbalance``) gives the rows of the
core's ``imbalance_rows`` whatever the batches its sorted input arrives in: a moment split across
two batches included, and with more rows than one output chunk. No JVM: pandas frames in.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from jobs.tasks import report_tasks
from jobs.tasks.report_tasks import ORD_CHANGE, ORD_CHECK, sweep_task
from jobs.tasks.wire import wire_row, wire_schema
from kafkactl_core.report import COUNTERS, ImbalanceSettings, LoggedRatio, imbalance_rows
from kafkactl_core.report.imbalance import Delta
from kafkactl_core.versions import KafkaRelease
from schemas.report import LEADER_IMBALANCE

SETTINGS = ImbalanceSettings(10, "zk", KafkaRelease.parse("2.8"))
SCHEMA = wire_schema(LEADER_IMBALANCE)


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


def _stream(deltas: list[Delta], logged: list[LoggedRatio]) -> pd.DataFrame:
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
    return pd.DataFrame(rows).sort_values(["t_ms", "ord", "broker"], ignore_index=True)


@pytest.mark.parametrize("batch_rows", [1, 7, 1_000])
def test_the_streamed_sweep_equals_the_cores_rows(
    batch_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report_tasks, "_CHUNK_ROWS", 25)  # several output chunks
    deltas, logged = _history()
    expected = [wire_row(r.to_row()) for r in imbalance_rows("c", deltas, SETTINGS, logged)]
    stream = _stream(deltas, logged)
    batches = [stream.iloc[i : i + batch_rows] for i in range(0, len(stream), batch_rows)]
    out = list(sweep_task(iter(batches), cluster="c", settings=SETTINGS, schema=SCHEMA))
    assert len(out) > 1 and all(len(frame) <= 25 for frame in out)
    assert all(list(frame.columns) == SCHEMA.fieldNames() for frame in out)
    want = pd.DataFrame(expected, columns=SCHEMA.fieldNames())
    assert any(row["observation"] == "check" for row in expected)
    assert [row for frame in out for row in _rows(frame)] == _rows(want)


def _rows(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    """A frame's rows, missing values as None (NaN is not equal to itself)."""
    return [
        tuple(None if pd.isna(v) else v for v in row)
        for row in frame.astype(object).itertuples(index=False)
    ]
