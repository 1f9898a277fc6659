"""``kafkactl-audit run``: every installed stage, in order, for each selected cluster."""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from jobs.runtime.config import ClusterConfig
from jobs.runtime.context import JobContext
from jobs.runtime.lease import cluster_lease
from jobs.stages.incremental import inputs_since
from jobs.stages.registry import STAGES, StageReport, findings_exit
from jobs.stages.runner import run_stage
from jobs.tables import list_tables, print_tables

log = logging.getLogger("kafkactl_audit.run")


def execute(
    ctx: JobContext,
    clusters: Sequence[ClusterConfig],
    *,
    incremental: bool = False,
    since: datetime | None = None,
    report: Mapping[str, Any] | None = None,
    wait_seconds: float = 0.0,
) -> int:
    """Run the pipeline, then print where the tables are.

    Ingestion skips what was ingested before in every run. ``incremental`` (implied by
    ``since``) makes the replay fold again only the partitions new evidence can change
    (``jobs.stages.incremental``); ``since`` also narrows each cluster's inputs to the files
    modified at or after it.

    Args:
        ctx: the job context.
        clusters: the clusters to process.
        incremental: replay incrementally.
        since: consider only input files modified at or after this time.
        report: the report stage's scope, summary format and ``--fail-on`` rules
            (``jobs.runtime.report_options``).
        wait_seconds: how long to wait for another run writing a cluster (its lease).

    Returns:
        The exit code: 3 when ``--fail-on`` found something (``findings_exit``).

    Raises:
        LeaseHeld: another run is writing a cluster, still after ``wait_seconds``.
    """
    missing = [stage.name for stage in STAGES if not stage.installed()]
    if missing:
        log.warning("stages not installed in this build, skipped: %s", ", ".join(missing))
    if not clusters:
        log.warning("no cluster configured: add one under clusters: or pass --cluster/--logs")
    reports: list[StageReport] = []
    options = {**(report or {}), "incremental": incremental or since is not None}
    for cluster in clusters:
        if since is not None:
            cluster, notes = inputs_since(cluster, since)
            for note in notes:
                log.info("[%s] %s", cluster.name, note)
        with cluster_lease(ctx, cluster.name, wait_seconds) as lease:
            for stage in STAGES:
                if not stage.installed():
                    continue
                lease.check()
                reports.append(run_stage(ctx, stage, cluster, options))
    if options.get("format") != "json":  # stdout holds the JSON summary alone
        tables = list_tables(ctx.lakehouse)
        print(f"Tables are in {ctx.lakehouse.root} (engine {ctx.lakehouse.engine}):")
        print_tables(tables)
    return findings_exit(reports, sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``spark-submit jobs/run.py [--cluster C] [--logs PATH ...]``."""
    from jobs.cli import main as cli_main

    return cli_main(["run", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
