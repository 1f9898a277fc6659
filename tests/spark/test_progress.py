"""Progress lines while a stage runs: a slow Spark job logs them (text and JSON), a short one
does not, and the polling thread ends with the block."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from pyspark import SparkStageInfo, StatusTracker
from pyspark.sql import SparkSession

from jobs.runtime.log_format import JsonFormatter, stage_context
from jobs.runtime.progress import Progress, progress_line, read_progress, stage_progress

pytestmark = pytest.mark.spark

LOGGER = logging.getLogger("kafkactl_audit.progress")


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def _captured() -> Iterator[tuple[_Records, io.StringIO]]:
    """The progress logger's records, and its lines as JSON (formatted in the logging thread,
    as the CLI's handler does), restored after."""
    records = _Records()
    buffer = io.StringIO()
    json_handler = logging.StreamHandler(buffer)
    json_handler.setFormatter(JsonFormatter())
    level = LOGGER.level
    LOGGER.setLevel(logging.INFO)
    LOGGER.addHandler(records)
    LOGGER.addHandler(json_handler)
    try:
        yield records, buffer
    finally:
        LOGGER.removeHandler(json_handler)
        LOGGER.removeHandler(records)
        LOGGER.setLevel(level)


def _slow(rows: Iterable[int]) -> Iterator[int]:
    for row in rows:
        time.sleep(1.0)
        yield row


@pytest.fixture(scope="module")
def slow_job_logs(spark: SparkSession) -> tuple[list[logging.LogRecord], list[dict[str, Any]]]:
    """One slow job (4 tasks of 1 s on 2 cores) under a 0.5 s progress interval."""
    with (
        _captured() as (records, buffer),
        stage_context("run-7", "demo", "report"),
        stage_progress(spark, "demo", "report", interval_seconds=0.5),
    ):
        spark.sparkContext.parallelize(range(4), 4).mapPartitions(_slow).count()
    lines = [json.loads(line) for line in buffer.getvalue().splitlines()]
    return records.records, lines


def test_a_slow_job_logs_its_progress(
    slow_job_logs: tuple[list[logging.LogRecord], list[dict[str, Any]]],
) -> None:
    records, _ = slow_job_logs
    messages = [record.getMessage() for record in records]
    working = [m for m in messages if "tasks done" in m]
    assert working, messages
    assert all(m.startswith("[demo] report: ") and "elapsed" in m for m in messages)
    assert len(set(messages)) == len(messages)
    assert all(record.levelno == logging.INFO for record in records)


def test_progress_in_json_lines(
    slow_job_logs: tuple[list[logging.LogRecord], list[dict[str, Any]]],
) -> None:
    _, lines = slow_job_logs
    working = [line for line in lines if line["tasks_total"] > 0]
    assert working
    for line in lines:
        assert line["event"] == "progress"
        assert (line["run_id"], line["cluster"], line["stage"]) == ("run-7", "demo", "report")
        assert line["logger"] == "kafkactl_audit.progress"
        assert line["elapsed_s"] >= 0.5
    for line in working:
        assert line["tasks_total"] == 4
        assert 0 <= line["tasks_done"] <= line["tasks_total"]
        # Spark throttles the updates of its status store, so a poll may still count a task that
        # ended as running beside the one that took its core.
        assert 0 <= line["running"] <= line["tasks_total"]
        assert line["tasks_failed"] == 0
        assert len(line["jobs"]) == 1
        assert line["message"].startswith(f"[demo] report: {line['tasks_done']} of 4 tasks done")


def test_a_job_shorter_than_the_interval_logs_nothing(spark: SparkSession) -> None:
    with _captured() as (records, buffer), stage_progress(spark, "demo", "report", 10.0):
        spark.sparkContext.parallelize([1, 2, 3], 1).count()
    assert records.records == []
    assert buffer.getvalue() == ""


def test_the_polling_thread_ends_with_the_block(spark: SparkSession) -> None:
    with stage_progress(spark, "demo", "ends", 0.1):
        assert "kafkactl-progress-demo-ends" in {t.name for t in threading.enumerate()}
    assert "kafkactl-progress-demo-ends" not in {t.name for t in threading.enumerate()}


def test_no_session_no_thread() -> None:
    with stage_progress(None, "demo", "none", 0.1):
        assert "kafkactl-progress-demo-none" not in {t.name for t in threading.enumerate()}


def test_the_interval_must_be_positive() -> None:
    with pytest.raises(ValueError, match="> 0"), stage_progress(None, "demo", "report", 0):
        pass


@pytest.mark.parametrize(
    ("progress", "elapsed", "rate", "line"),
    [
        (
            Progress(12, 40, 2, 0, (7,), (3,)),
            35.2,
            1.46,
            "[demo] report: 12 of 40 tasks done, 2 running, 1.5 tasks/s, job 7, elapsed 35s",
        ),
        (
            Progress(3, 9, 1, 2, (7, 8), (3, 4)),
            785,
            None,
            "[demo] report: 3 of 9 tasks done, 1 running, 2 failed, jobs 7+8, elapsed 13m05s",
        ),
        (Progress(), 3725, None, "[demo] report: no Spark tasks running, elapsed 1h02m"),
    ],
)
def test_line(progress: Progress, elapsed: float, rate: float | None, line: str) -> None:
    assert progress_line("demo", "report", progress, elapsed, rate) == line


# Spark's status store through one job of one stage, in the order its listener writes it: the job
# starts before its stage is active, and the stage completes before the job ends.
_LISTENER_ORDER: list[tuple[tuple[int, ...], tuple[int, ...]]] = [
    ((), ()),
    ((7,), ()),
    ((7,), (3,)),
    ((7,), ()),
    ((), ()),
]


class _RacingTracker(StatusTracker):
    """A status tracker whose store is at the given listener step at each of its calls, as if
    the job's events fell anywhere between the reads of one poll."""

    def __init__(self, steps: Iterable[int]) -> None:  # no JVM tracker beneath
        self._steps = iter(steps)

    def getActiveJobsIds(self) -> list[int]:
        return list(_LISTENER_ORDER[next(self._steps)][0])

    def getActiveStageIds(self) -> list[int]:
        return list(_LISTENER_ORDER[next(self._steps)][1])

    def getStageInfo(self, stage_id: int) -> SparkStageInfo:
        return SparkStageInfo(stage_id, 0, "count", 4, 0, 4, 0)


@pytest.mark.parametrize(
    "steps",
    [
        (jobs, stages, jobs_again)
        for jobs in range(len(_LISTENER_ORDER))
        for stages in range(jobs, len(_LISTENER_ORDER))
        for jobs_again in range(stages, len(_LISTENER_ORDER))
    ],
)
def test_a_stage_read_active_comes_with_its_job(steps: tuple[int, ...]) -> None:
    progress = read_progress(_RacingTracker(steps))
    whole_job_inside_the_poll = steps[0] == 0 and steps[-1] == len(_LISTENER_ORDER) - 1
    if progress.spark_stages and not whole_job_inside_the_poll:
        assert progress.jobs == (7,)
        assert (progress.tasks_done, progress.tasks_total) == (4, 4)
