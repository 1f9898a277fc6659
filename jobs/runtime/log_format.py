"""The command line's log output: text for people, JSON lines for log collectors.

``--log-format json`` writes one JSON object per line on stderr: ``time`` (ISO 8601, UTC),
``level``, ``logger``, ``message``, the run's context (``run_id``, ``cluster``, ``stage``) while
a stage runs, and the structured fields a record carries (``rows_written``, ``seconds``,
``status``, ``error`` for the end of a stage; ``event: "progress"`` with ``tasks_done``,
``tasks_total``, ``running``, ``tasks_failed``, ``jobs``, ``tasks_per_s`` and ``elapsed_s`` while
it runs). Collectors (Databricks, Loki, CloudWatch, Elasticsearch) index those fields without
parsing the message.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

__all__ = ["FIELDS", "JsonFormatter", "stage_context", "structured"]

FIELDS: tuple[str, ...] = (
    "rows_written",
    "seconds",
    "status",
    "error",
    "notes",
    "event",
    "tasks_done",
    "tasks_total",
    "running",
    "tasks_failed",
    "jobs",
    "tasks_per_s",
    "elapsed_s",
)
"""Structured fields a record may carry (``logger.info(..., extra=structured(...))``)."""

_CONTEXT: ContextVar[dict[str, str] | None] = ContextVar("kafkactl_audit_log_context", default=None)


@contextlib.contextmanager
def stage_context(run_id: str, cluster: str, stage: str) -> Iterator[None]:
    """Tag every record logged inside the block with the run, cluster and stage.

    Args:
        run_id: the run.
        cluster: the cluster.
        stage: the stage name.

    Yields:
        Nothing; the tags hold until the block ends.
    """
    token = _CONTEXT.set({"run_id": run_id, "cluster": cluster, "stage": stage})
    try:
        yield
    finally:
        _CONTEXT.reset(token)


def structured(**fields: Any) -> dict[str, Any]:
    """``extra=`` for a log call: the fields a JSON line carries (names from ``FIELDS``).

    Raises:
        ValueError: a field not in ``FIELDS``.
    """
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown structured log field(s): {', '.join(unknown)}")
    return {f"kafkactl_{name}": value for name, value in fields.items()}


class JsonFormatter(logging.Formatter):
    """One JSON object per record (see the module docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON."""
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update(_CONTEXT.get() or {})
        for name in FIELDS:
            value = getattr(record, f"kafkactl_{name}", None)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str, ensure_ascii=False)
