"""Running a stage and recording it in ``meta.runs``: start, end, inputs, rows, notes, outcome.

A failed stage is recorded with its one-line reason before the error goes on to the command
line (which prints that line and exits non-zero).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from jobs.config import ClusterConfig
from jobs.context import JobContext
from jobs.stages import Stage, StageReport, log_report
from schemas.meta import RUNS

log = logging.getLogger("kafkactl_audit.runs")


def one_line(exc: BaseException) -> str:
    """An exception as one line: its type and the first line of its message."""
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _inputs(stage: Stage, cluster: ClusterConfig) -> list[str]:
    if stage.name == "ingest-logs":
        return list(cluster.inputs.logs)
    if stage.name == "ingest-zk":
        return list(cluster.inputs.zookeeper)
    return []


def run_stage(
    ctx: JobContext,
    stage: Stage,
    cluster: ClusterConfig,
    options: Mapping[str, Any] | None = None,
) -> StageReport:
    """Run ``stage`` for ``cluster``, log what it did, and record it in ``meta.runs``.

    Raises:
        Exception: whatever the stage raised, after recording the failure.
    """
    started_at = datetime.now(UTC)
    started = time.monotonic()
    log.info("[%s] %s ...", cluster.name, stage.name)
    row: dict[str, Any] = {
        "cluster": cluster.name,
        "run_id": ctx.run_id,
        "stage": stage.name,
        "started_at": started_at,
        "inputs": _inputs(stage, cluster),
    }
    try:
        report = stage.load().run_for_cluster(ctx, cluster, options)
    except Exception as exc:
        row.update(ended_at=datetime.now(UTC), status="failed", error=one_line(exc))
        ctx.lakehouse.append_rows(RUNS, [row])
        raise
    log_report(report, time.monotonic() - started, log)
    row.update(
        ended_at=datetime.now(UTC),
        status="succeeded",
        rows_written=dict(report.rows_written),
        notes=list(report.notes),
    )
    ctx.lakehouse.append_rows(RUNS, [row])
    return report
