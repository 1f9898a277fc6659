"""``kafkactl-audit run``: every installed stage, in order, for each selected cluster."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from jobs.config import ClusterConfig
from jobs.context import JobContext
from jobs.runs import run_stage
from jobs.stages import STAGES, StageReport
from jobs.tables import list_tables, print_tables

log = logging.getLogger("kafkactl_audit.run")


def execute(ctx: JobContext, clusters: Sequence[ClusterConfig]) -> int:
    """Run the pipeline, then print where the tables are.

    Args:
        ctx: the job context.
        clusters: the clusters to process.

    Returns:
        The exit code.
    """
    missing = [stage.name for stage in STAGES if not stage.installed()]
    if missing:
        log.warning("stages not installed in this build, skipped: %s", ", ".join(missing))
    if not clusters:
        log.warning("no cluster configured: add one under clusters: or pass --cluster/--logs")
    reports: list[StageReport] = []
    for cluster in clusters:
        for stage in STAGES:
            if not stage.installed():
                continue
            reports.append(run_stage(ctx, stage, cluster))
    tables = list_tables(ctx.lakehouse)
    print(f"Tables are in {ctx.lakehouse.root} (engine {ctx.lakehouse.engine}):")
    print_tables(tables)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``spark-submit jobs/run.py [--cluster C] [--logs PATH ...]``."""
    from jobs.cli import main as cli_main

    return cli_main(["run", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
