"""Progress lines while a stage runs: Spark tasks done of total, running, rate, elapsed.

A daemon thread polls Spark's status tracker every ``interval_seconds`` and logs one line on
``kafkactl_audit.progress``, e.g. ``[demo] report: 12 of 40 tasks done, 2 running, 1.5 tasks/s,
job 7, elapsed 35s``. The first line comes after one interval (a shorter stage prints nothing
extra), and a line is logged only when the progress changed since the last one. With
``--log-format json`` the same line carries ``event: "progress"`` and the numbers as fields.

The tracker is application-wide: the counts are those of every Spark job running, which is the
stage's own while stages run one at a time. Rows and files are not counted: Spark's public
status API does not know them, and counting them would cost Spark jobs.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pyspark import StatusTracker
from pyspark.sql import SparkSession

from jobs.runtime.log_format import structured

__all__ = ["INTERVAL_SECONDS", "Progress", "progress_line", "read_progress", "stage_progress"]

INTERVAL_SECONDS = 5.0
"""How often a running stage's progress is polled (and at most how often it is logged)."""

_JOIN_SECONDS = 2.0
"""How long the end of a stage waits for the polling thread (a poll is one tracker call)."""

log = logging.getLogger("kafkactl_audit.progress")


@dataclass(frozen=True)
class Progress:
    """What Spark was doing at one poll of its status tracker.

    Attributes:
        tasks_done: tasks completed in the active Spark stages.
        tasks_total: tasks of the active Spark stages.
        running: tasks running now.
        failed: task attempts that failed in the active Spark stages.
        jobs: ids of the active Spark jobs, ascending.
        spark_stages: ids of the active Spark stages (a rate compares polls of the same ones).
    """

    tasks_done: int = 0
    tasks_total: int = 0
    running: int = 0
    failed: int = 0
    jobs: tuple[int, ...] = ()
    spark_stages: tuple[int, ...] = ()


def read_progress(tracker: StatusTracker) -> Progress:
    """Sum the tasks of the active Spark stages (a stage whose info is gone counts nothing).

    Args:
        tracker: the application's status tracker.

    Returns:
        The progress now.
    """
    # Spark records a job's start before its stages are active and their end before the job's.
    # Jobs read on both sides of the stages hold the job of every stage read active, unless that
    # whole job ran between the two reads (one read alone misses a job starting or ending).
    jobs_before = tracker.getActiveJobsIds()
    stage_ids = tuple(tracker.getActiveStageIds())
    infos = [info for info in map(tracker.getStageInfo, stage_ids) if info is not None]
    jobs = sorted({*jobs_before, *tracker.getActiveJobsIds()})
    return Progress(
        tasks_done=sum(info.numCompletedTasks for info in infos),
        tasks_total=sum(info.numTasks for info in infos),
        running=sum(info.numActiveTasks for info in infos),
        failed=sum(info.numFailedTasks for info in infos),
        jobs=tuple(jobs),
        spark_stages=stage_ids,
    )


def _duration(seconds: float) -> str:
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def progress_line(
    cluster: str,
    stage: str,
    progress: Progress,
    elapsed_s: float,
    tasks_per_s: float | None = None,
) -> str:
    """The console line of one poll.

    Args:
        cluster: the cluster.
        stage: the pipeline stage.
        progress: what the poll saw.
        elapsed_s: seconds since the stage started.
        tasks_per_s: tasks completed per second since the previous poll, when known.

    Returns:
        E.g. ``[demo] report: 12 of 40 tasks done, 2 running, 1.5 tasks/s, job 7, elapsed 35s``.
    """
    if progress.tasks_total:
        parts = [f"{progress.tasks_done} of {progress.tasks_total} tasks done"]
        parts.append(f"{progress.running} running")
        if progress.failed:
            parts.append(f"{progress.failed} failed")
        if tasks_per_s is not None:
            parts.append(f"{tasks_per_s:.1f} tasks/s")
    else:
        parts = ["no Spark tasks running"]
    if progress.jobs:
        noun = "job" if len(progress.jobs) == 1 else "jobs"
        parts.append(f"{noun} {'+'.join(map(str, progress.jobs))}")
    parts.append(f"elapsed {_duration(elapsed_s)}")
    return f"[{cluster}] {stage}: {', '.join(parts)}"


class _Poller:
    """The polling loop of one stage (runs on its own thread)."""

    def __init__(
        self,
        tracker: StatusTracker,
        cluster: str,
        stage: str,
        interval_seconds: float,
        clock: Callable[[], float],
    ) -> None:
        self._tracker = tracker
        self._cluster = cluster
        self._stage = stage
        self._interval = interval_seconds
        self._clock = clock
        self._started = clock()
        self.stopped = threading.Event()

    def run(self) -> None:
        """Poll and log every interval until ``stopped`` is set or the tracker fails."""
        logged: Progress | None = None
        previous: tuple[Progress, float] | None = None
        while not self.stopped.wait(self._interval):
            now = self._clock()
            try:
                progress = read_progress(self._tracker)
            except Exception:  # the JVM may be gone (often why the stage is failing): stop polling
                log.debug("Spark status not readable; no more progress lines", exc_info=True)
                return
            rate = None
            if previous is not None and previous[0].spark_stages == progress.spark_stages:
                seconds = now - previous[1]
                if seconds > 0:
                    rate = (progress.tasks_done - previous[0].tasks_done) / seconds
            previous = (progress, now)
            if progress != logged:
                self._log(progress, now - self._started, rate)
                logged = progress

    def _log(self, progress: Progress, elapsed_s: float, rate: float | None) -> None:
        log.info(
            "%s",
            progress_line(self._cluster, self._stage, progress, elapsed_s, rate),
            extra=structured(
                event="progress",
                tasks_done=progress.tasks_done,
                tasks_total=progress.tasks_total,
                running=progress.running,
                tasks_failed=progress.failed,
                jobs=list(progress.jobs),
                tasks_per_s=None if rate is None else round(rate, 2),
                elapsed_s=round(elapsed_s, 1),
            ),
        )


def _tracker(spark: SparkSession) -> StatusTracker | None:
    try:
        return spark.sparkContext.statusTracker()
    except Exception:  # Spark Connect has no SparkContext; the stage runs without progress
        log.debug("no Spark status tracker; no progress lines", exc_info=True)
        return None


@contextlib.contextmanager
def stage_progress(
    spark: SparkSession | None,
    cluster: str,
    stage: str,
    interval_seconds: float = INTERVAL_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[None]:
    """Log the stage's Spark progress every ``interval_seconds`` while the block runs.

    The lines are logged with the caller's context (``stage_context``'s tags reach JSON lines).

    Args:
        spark: the session the stage runs on; None (or one without a SparkContext, as on Spark
            Connect) runs the block without progress lines.
        cluster: the cluster, for the lines.
        stage: the pipeline stage, for the lines.
        interval_seconds: seconds between polls; the first comes after one interval.
        clock: monotonic seconds, for the elapsed time and the rate.

    Yields:
        Nothing; the polling thread stops (joined for up to 2 s) when the block ends.

    Raises:
        ValueError: ``interval_seconds`` is not positive.
    """
    if not interval_seconds > 0:
        raise ValueError(f"progress interval must be > 0 seconds, not {interval_seconds}")
    tracker = None if spark is None else _tracker(spark)
    if tracker is None:
        yield
        return
    poller = _Poller(tracker, cluster, stage, interval_seconds, clock)
    thread = threading.Thread(
        target=contextvars.copy_context().run,
        args=(poller.run,),
        name=f"kafkactl-progress-{cluster}-{stage}",
        daemon=True,
    )
    thread.start()
    try:
        yield
    finally:
        poller.stopped.set()
        thread.join(timeout=_JOIN_SECONDS)
