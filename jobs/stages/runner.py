"""Running a stage and recording it in ``meta.runs``: start, end, inputs, rows, notes, outcome.

While the stage runs, its Spark progress is logged every ``progress.INTERVAL_SECONDS``.

A failed stage is recorded with its one-line reason before the error goes on to the command
line (which prints that line and exits non-zero). After a stage succeeds, the files of the tables
it wrote that no commit references any more (a stopped write's, replaced rows') are deleted once
older than ``lakehouse.retention_hours``.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pyspark.errors import PythonException
from pyspark.sql import SparkSession

from jobs.lakehouse.port import WriteMode
from jobs.runtime.config import ClusterConfig
from jobs.runtime.context import JobContext
from jobs.runtime.log_format import stage_context, structured
from jobs.runtime.progress import stage_progress
from jobs.stages.registry import Stage, StageReport, log_report
from schemas.meta import RUNS
from schemas.registry import ALL_TABLES

log = logging.getLogger("kafkactl_audit.runs")


# The line of a Python traceback that names the exception: "ModuleNotFoundError: No module ...".
_RAISED = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)\b.*$")
_MAX_CAUSES = 10


def _java_line(java: Any) -> str:
    """A JVM exception (py4j's handle) as one line: its first line, and its root cause's."""
    lines: list[str] = []
    while java is not None and len(lines) < _MAX_CAUSES:
        text = str(java.toString()).strip().splitlines()
        name, sep, message = (text[0] if text else "").partition(": ")
        short = name.rsplit(".", 1)[-1]  # org.apache.spark.SparkException -> SparkException
        lines.append(" ".join(f"{short}{sep}{message}".split()))
        java = java.getCause()
    if len(lines) > 1 and lines[-1] != lines[0]:
        return f"{lines[0]} (cause: {lines[-1]})"
    return lines[0] if lines else "JVM error"


def one_line(exc: BaseException) -> str:
    """An exception as one line: its type and the first line of its message.

    Where that line does not say why, the reason is taken from further in: the JVM exception
    of a py4j error (whose own message only names the failed call), the exception a Python
    worker raised (the last line of its traceback) for PySpark's ``PythonException``.

    Args:
        exc: the exception.

    Returns:
        One line.
    """
    java = getattr(exc, "java_exception", None)
    if java is not None and type(exc).__name__ == "Py4JJavaError":
        try:
            return _java_line(java)
        except Exception:  # the JVM may be gone (often why the stage failed); so is str(exc)
            log.debug("JVM exception not readable", exc_info=True)
            errmsg = " ".join(str(getattr(exc, "errmsg", "")).split())
            return f"{type(exc).__name__}: {errmsg}" if errmsg else type(exc).__name__
    lines = str(exc).strip().splitlines()
    if isinstance(exc, PythonException):
        raised = [line.strip() for line in lines if _RAISED.match(line)]
        if raised:
            return f"{type(exc).__name__}: {raised[-1]}"
    first = (lines or [""])[0]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _inputs(stage: Stage, cluster: ClusterConfig) -> list[str]:
    if stage.name == "ingest-logs":
        return list(cluster.inputs.logs)
    if stage.name == "ingest-zk":
        return list(cluster.inputs.zookeeper)
    if stage.name == "ingest-kraft":
        return list(cluster.inputs.kraft_metadata)
    return []


def clean_written(ctx: JobContext, report: StageReport) -> None:
    """Delete the unreferenced files of the tables ``report`` says were written.

    Only files older than ``lakehouse.retention_hours`` go (``Lakehouse.clean``). A failure is
    logged, not raised: the stage's tables are written and read the same with the files left.

    Args:
        ctx: the job context.
        report: the stage's report (``rows_written`` names its tables).
    """
    written = [spec for spec in ALL_TABLES if spec.qualified_name in report.rows_written]
    if not written:
        return
    hours = ctx.config.lakehouse.retention_hours
    for spec in written:
        try:
            ctx.lakehouse.clean(spec, hours)
        except Exception as exc:  # housekeeping: any storage error leaves the files for later
            log.warning(
                "[%s] %s: unreferenced files not deleted: %s",
                report.cluster,
                spec.qualified_name,
                one_line(exc),
            )


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
    row: dict[str, Any] = {
        "cluster": cluster.name,
        "run_id": ctx.run_id,
        "stage": stage.name,
        "started_at": started_at,
        "inputs": _inputs(stage, cluster),
    }
    with stage_context(ctx.run_id, cluster.name, stage.name):
        log.info("[%s] %s ...", cluster.name, stage.name)
        try:
            # The session the stage runs on, if one is up: progress lines never start one.
            with stage_progress(SparkSession.getActiveSession(), cluster.name, stage.name):
                report = stage.load().run_for_cluster(ctx, cluster, options)
        except Exception as exc:
            error = one_line(exc)
            row.update(ended_at=datetime.now(UTC), status="failed", error=error)
            ctx.lakehouse.write_rows(RUNS, [row], WriteMode.append)
            log.error(
                "[%s] %s failed after %.1fs: %s",
                cluster.name,
                stage.name,
                time.monotonic() - started,
                error,
                extra=structured(
                    status="failed", error=error, seconds=round(time.monotonic() - started, 3)
                ),
            )
            raise
        log_report(report, time.monotonic() - started, log)
        clean_written(ctx, report)
    row.update(
        ended_at=datetime.now(UTC),
        status="succeeded",
        rows_written=dict(report.rows_written),
        notes=list(report.notes),
    )
    ctx.lakehouse.write_rows(RUNS, [row], WriteMode.append)
    return report
