"""The pipeline's stages, in the order ``run`` executes them.

Each stage is a module of ``jobs.stages`` with
``run_for_cluster(ctx, cluster, options) -> StageReport``. A stage whose module is not part of
this build is reported as not installed, never faked.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TextIO, cast

from jobs.runtime.log_format import structured

if TYPE_CHECKING:
    from jobs.runtime.config import ClusterConfig
    from jobs.runtime.context import JobContext


@dataclass
class StageReport:
    """What one stage did for one cluster.

    Attributes:
        stage: the stage name.
        cluster: the cluster.
        rows_written: rows written per table (``layer.name``).
        notes: one-line remarks for the console (skipped files, warnings).
        findings: what ``--fail-on`` found (the command exits 3 when there is any).
        input_problems: inputs skipped or read only in part, ``path: reason`` (each one is
            also a note; the command exits 4 when there is any).
    """

    stage: str
    cluster: str
    rows_written: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    input_problems: list[str] = field(default_factory=list)

    def input_problem(self, path: str, reason: str) -> None:
        """Record an input skipped or read only in part: a note, and exit code 4.

        Args:
            path: the file or directory.
            reason: why, in one line (with the byte offset or line where known).
        """
        line = " ".join(f"{path}: {reason}".split())
        self.notes.append(line)
        self.input_problems.append(line)


def log_report(report: StageReport, elapsed: float, logger: logging.Logger) -> None:
    """Log what a stage did for a cluster: rows written per table, then its notes."""
    written = ", ".join(f"{t}={n}" for t, n in report.rows_written.items()) or "nothing"
    logger.info(
        "[%s] %s done in %.1fs: %s",
        report.cluster,
        report.stage,
        elapsed,
        written,
        extra=structured(
            status="succeeded",
            seconds=round(elapsed, 3),
            rows_written=dict(report.rows_written),
            notes=list(report.notes),
        ),
    )
    for note in report.notes:
        logger.info("[%s] %s: %s", report.cluster, report.stage, note)


FINDINGS_EXIT = 3
"""The exit code of a command whose ``--fail-on`` rules found something."""
INPUT_PROBLEMS_EXIT = 4
"""The exit code of a command that finished but skipped input or read some only in part (a file
refused as another format, unreadable, vanished, cut short, a truncated gzip).

``FINDINGS_EXIT`` wins over it: ``--fail-on`` is the gate the user asked for, and its findings
are about the evidence that was read; the skipped inputs are printed either way."""


def findings_exit(reports: Sequence[StageReport], stream: TextIO) -> int:
    """Print every ``--fail-on`` finding and every input problem of ``reports`` on ``stream``,
    one per line.

    Returns:
        ``FINDINGS_EXIT`` when there was a finding, else ``INPUT_PROBLEMS_EXIT`` when an input
        was skipped or read in part, else 0.
    """
    found = [(r.cluster, finding) for r in reports for finding in r.findings]
    for report in reports:
        for problem in report.input_problems:
            print(
                f"kafkactl-audit: input skipped or damaged: [{report.cluster}] {report.stage}: "
                f"{problem}",
                file=stream,
                flush=True,
            )
    for cluster, finding in found:
        print(f"kafkactl-audit: fail-on: [{cluster}] {finding}", file=stream, flush=True)
    if found:
        return FINDINGS_EXIT
    return INPUT_PROBLEMS_EXIT if any(r.input_problems for r in reports) else 0


class StageModule(Protocol):
    """What a stage module provides."""

    def run_for_cluster(
        self, ctx: JobContext, cluster: ClusterConfig, options: Mapping[str, Any] | None = None
    ) -> StageReport:
        """Run the stage for one cluster, with the command's own options (``--what-if`` …)."""
        ...


@dataclass(frozen=True)
class Stage:
    """A pipeline stage.

    Attributes:
        name: the command name (``ingest-logs``).
        module: the module implementing it.
        summary: one line for help texts.
    """

    name: str
    module: str
    summary: str

    def installed(self) -> bool:
        """Whether this build has the stage's module."""
        return importlib.util.find_spec(self.module) is not None

    def load(self) -> StageModule:
        """Import the stage's module."""
        return cast("StageModule", importlib.import_module(self.module))


STAGES: tuple[Stage, ...] = (
    Stage("ingest-logs", "jobs.stages.ingest_logs", "Kafka logs into bronze and silver tables"),
    Stage(
        "ingest-zk",
        "jobs.stages.ingest_zk",
        "ZooKeeper snapshots and txn logs into bronze and silver",
    ),
    Stage(
        "ingest-kraft",
        "jobs.stages.ingest_kraft",
        "a KRaft controller's metadata log into bronze and silver",
    ),
    Stage(
        "replay",
        "jobs.stages.replay",
        "each partition's evidence into gold elections and timelines",
    ),
    Stage(
        "report",
        "jobs.stages.report",
        "imbalance, unclean elections, offline intervals, the report",
    ),
)


def stage_named(name: str) -> Stage:
    """The stage called ``name``.

    Raises:
        KeyError: for an unknown stage.
    """
    for stage in STAGES:
        if stage.name == name:
            return stage
    raise KeyError(name)
