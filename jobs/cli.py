"""The ``kafkactl-audit`` command line.

Global options (``--conf``, ``--lakehouse``, ``--engine``, ``--verbose``) go before or after the
command. Errors are one line on stderr; ``--verbose`` adds the stack trace. Exit codes: 0 done,
1 the command failed (or an oracle case failed), 2 bad usage or configuration, 3 ``--fail-on``
found something (each finding one line on stderr), 4 done but some input was skipped or read
only in part (each file one line on stderr saying why; 3 wins over 4), 5 another run is writing
the cluster into the lakehouse (one line naming it; ``--wait SECONDS`` waits for it instead).
"""

from __future__ import annotations

import argparse
import glob
import logging
import os
import sys
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from jobs.runtime.config import (
    AppConfig,
    ClusterConfig,
    ConfigError,
    format_validation_error,
    load_config,
    with_overrides,
)
from jobs.runtime.report_options import add_report_options, report_options

if TYPE_CHECKING:
    from jobs.runtime.context import JobContext

PROG = "kafkactl-audit"
log = logging.getLogger("kafkactl_audit")


class UsageError(ValueError):
    """A command line that cannot be run (exit code 2)."""


_VALUE_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("--conf", "FILE", "configuration file (default: conf/local.yaml, else the packaged one)"),
    ("--lakehouse", "DIR", "directory or URI of the tables"),
    ("--catalog", "NAME", "Unity Catalog catalog of the tables (with --schema; needs delta-spark)"),
    ("--schema", "NAME", "Unity Catalog schema of the tables"),
)
_CHOICE_OPTIONS: tuple[tuple[str, list[str], str], ...] = (
    (
        "--engine",
        ["auto", "delta-spark", "delta-rs"],
        "Delta writer: delta-spark when its extension loads, else delta-rs (auto)",
    ),
    (
        "--log-format",
        ["text", "json"],
        "stderr log lines: text (default) or one JSON object per line",
    ),
)


def _global_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default: Any = argparse.SUPPRESS if suppress else None
    for flag, metavar, help_text in _VALUE_OPTIONS:
        parser.add_argument(flag, default=default, metavar=metavar, help=help_text)
    for flag, choices, help_text in _CHOICE_OPTIONS:
        parser.add_argument(flag, default=default, choices=choices, help=help_text)
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        default=default,
        help="show progress details and stack traces",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"not a number of seconds >= 0: {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Audit what Apache Kafka's controller did, from its logs, ZooKeeper data and "
        "KRaft metadata log.",
        epilog="exit codes: 0 done, 1 failed, 2 bad usage or configuration, 3 a --fail-on "
        "finding, 5 another run is writing the cluster into the lakehouse (see --wait)",
    )
    _global_options(parser, suppress=False)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        _global_options(sub, suppress=True)
        return sub

    run = command("run", "run every stage for the configured clusters (or one)")
    run.add_argument(
        "--cluster", metavar="C", help="only this cluster (or a new one with --logs/--zk/--kraft)"
    )
    run.add_argument("--logs", nargs="+", metavar="PATH", help="log files, directories or globs")
    run.add_argument("--zk", nargs="+", metavar="PATH", help="ZooKeeper dataDirs or files")
    run.add_argument(
        "--kraft",
        nargs="+",
        metavar="PATH",
        help="KRaft __cluster_metadata-0 directories, segments or snapshots",
    )
    run.add_argument(
        "--incremental",
        action="store_true",
        help="replay again only the partitions that received new evidence since the last "
        "successful replay (ingestion always skips bytes already ingested)",
    )
    run.add_argument(
        "--since",
        metavar="TIME",
        help="only consider input files modified at or after TIME (ISO 8601, UTC unless it "
        "has an offset); implies --incremental",
    )

    ingest_logs = command("ingest-logs", "ingest Kafka logs of one cluster")
    ingest_logs.add_argument("--cluster", required=True, metavar="C")
    ingest_logs.add_argument(
        "paths", nargs="*", metavar="PATH", help="default: the cluster's inputs"
    )

    ingest_zk = command("ingest-zk", "ingest ZooKeeper snapshots and transaction logs")
    ingest_zk.add_argument("--cluster", required=True, metavar="C")
    ingest_zk.add_argument("paths", nargs="*", metavar="PATH", help="default: cluster inputs")

    ingest_kraft = command("ingest-kraft", "ingest a KRaft controller's metadata log")
    ingest_kraft.add_argument("--cluster", required=True, metavar="C")
    ingest_kraft.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="__cluster_metadata-0 directories, segments or snapshots (default: cluster inputs)",
    )

    replay = command("replay", "replay each partition's evidence with Kafka's rules")
    replay.add_argument("--cluster", metavar="C")
    replay.add_argument(
        "--incremental",
        action="store_true",
        help="fold again only the partitions with new evidence since the last replay",
    )
    replay.add_argument(
        "--what-if",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="replay under changed settings, e.g. unclean.leader.election.enable=false",
    )

    add_report_options(run)

    report = command("report", "write the gold reports and the HTML/Markdown report")
    report.add_argument("--cluster", metavar="C")
    report.add_argument("--out", metavar="DIR", help="report directory (default: in the lakehouse)")
    add_report_options(report)

    for writer in (run, ingest_logs, ingest_zk, ingest_kraft, replay, report):
        writer.add_argument(
            "--wait",
            type=_seconds,
            default=0.0,
            metavar="SECONDS",
            help="when another run is writing the cluster into this lakehouse, wait up to "
            "SECONDS for it to finish (default 0: refuse at once, exit code 5)",
        )

    sql = command("sql", "run SQL over the tables (views named <layer>_<table>)")
    sql.add_argument("query", help='e.g. "SELECT * FROM gold_elections WHERE unclean"')
    sql.add_argument("--format", choices=["table", "csv", "json"], default="table")
    sql.add_argument("--limit", type=int, default=100, help="rows shown by --format table")
    sql.add_argument(
        "--allow-writes",
        action="store_true",
        help="run statements that write or change tables (refused by default)",
    )

    tables = command("tables", "list the tables, their row counts and locations")
    tables.add_argument(
        "--check",
        action="store_true",
        help="verify each table's Delta log and data files; exit 1 when one is broken",
    )

    oracle = command("oracle", "evaluate Kafka's own test cases against the core (no Spark)")
    oracle.add_argument("--cases", required=True, metavar="FILE", help="oracle cases (JSON)")

    from jobs.simulate import add_arguments as simulate_arguments

    simulate_arguments(command("simulate", "write a simulated cluster's logs and ZooKeeper data"))
    return parser


def _setup_logging(verbose: bool, log_format: str = "text") -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
        datefmt="%H:%M:%S",
        stream=sys.stderr,
        force=True,
    )
    if log_format == "json":
        from jobs.runtime.log_format import JsonFormatter

        for handler in logging.getLogger().handlers:
            handler.setFormatter(JsonFormatter())
    for noisy in ("py4j", "pyspark"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # PySpark logs every failed query as JSON on stderr; the CLI reports the error itself.
    logging.getLogger("SQLQueryContextLogger").setLevel(
        logging.DEBUG if verbose else logging.CRITICAL
    )


def select_clusters(
    config: AppConfig,
    name: str | None,
    logs: Sequence[str] | None = None,
    zookeeper: Sequence[str] | None = None,
    kraft: Sequence[str] | None = None,
) -> list[ClusterConfig]:
    """The clusters a command works on: all configured, one by name, or one given on the line.

    Raises:
        UsageError: inputs without a cluster name, or paths that match nothing.
        ConfigError: an unknown cluster with no inputs to define it.
    """
    if name is None:
        if logs or zookeeper or kraft:
            raise UsageError("--logs/--zk/--kraft need --cluster NAME")
        return list(config.clusters)
    known = {c.name: c for c in config.clusters}
    if name in known:
        cluster = known[name]
    elif logs or zookeeper or kraft:
        try:
            cluster = ClusterConfig(name=name)
        except ValidationError as exc:
            raise UsageError(format_validation_error("--cluster", exc)) from None
    else:
        cluster = config.cluster(name)
    update: dict[str, list[str]] = {}
    given = (
        ("--logs", "logs", logs),
        ("--zk", "zookeeper", zookeeper),
        ("--kraft", "kraft_metadata", kraft),
    )
    for option, key, paths in given:
        if not paths:
            continue
        for path in paths:
            if not glob.glob(os.path.expanduser(path)):
                raise UsageError(f"{option}: no such file, directory or glob match: {path}")
        update[key] = list(paths)
    if update:
        cluster = cluster.model_copy(update={"inputs": cluster.inputs.model_copy(update=update)})
    return [cluster]


def _dispatch(args: argparse.Namespace, config: AppConfig, verbose: bool) -> int:
    from jobs.runtime.context import JobContext
    from jobs.runtime.lease import EXIT_LEASE_HELD, LeaseHeld

    ctx = JobContext(config=config, verbose=verbose)
    if args.command == "tables":
        from jobs import tables

        return tables.execute(ctx, check=args.check)
    if args.command == "sql":
        from jobs import sql

        return sql.execute(ctx, args.query, args.format, args.limit, allow_writes=args.allow_writes)
    try:
        return _write(args, config, ctx)
    except LeaseHeld as exc:
        if verbose:
            traceback.print_exc()
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_LEASE_HELD


def _write(args: argparse.Namespace, config: AppConfig, ctx: JobContext) -> int:
    """Run a writing command (``run`` or one stage), each cluster under its lease."""
    wait = float(args.wait)
    if args.command == "run":
        from jobs import run

        clusters = select_clusters(config, args.cluster, args.logs, args.zk, args.kraft)
        since = None
        if args.since is not None:
            from jobs.stages.incremental import parse_since

            try:
                since = parse_since(args.since)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
        return run.execute(
            ctx,
            clusters,
            incremental=args.incremental,
            since=since,
            report=_report_options(args),
            wait_seconds=wait,
        )
    from jobs.runtime.lease import cluster_lease
    from jobs.stages.registry import findings_exit, stage_named
    from jobs.stages.runner import run_stage

    stage = stage_named(args.command)
    if not stage.installed():
        raise UsageError(f"stage {stage.name} is not installed in this build")
    paths = getattr(args, "paths", None) or None
    key = {"ingest-zk": "zookeeper", "ingest-kraft": "kraft"}.get(stage.name, "logs")
    clusters = select_clusters(
        config,
        args.cluster,
        paths if key == "logs" else None,
        paths if key == "zookeeper" else None,
        paths if key == "kraft" else None,
    )
    options = {k: v for k, v in vars(args).items() if k in ("what_if", "out", "incremental")}
    if stage.name == "report":
        options.update(_report_options(args))
    reports = []
    for cluster in clusters:
        with cluster_lease(ctx, cluster.name, wait):
            reports.append(run_stage(ctx, stage, cluster, options))
    return findings_exit(reports, sys.stderr)


def _report_options(args: argparse.Namespace) -> dict[str, Any]:
    try:
        return report_options(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``kafkactl-audit`` with ``argv`` (default: the process arguments).

    Returns:
        The exit code.
    """
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    verbose = bool(getattr(args, "verbose", False))
    _setup_logging(verbose, getattr(args, "log_format", None) or "text")
    try:
        if args.command == "oracle":
            from jobs import oracle

            return oracle.execute(args.cases)
        if args.command == "simulate":
            from jobs import simulate

            return simulate.execute(args)
        config = with_overrides(
            load_config(args.conf),
            lakehouse=args.lakehouse,
            catalog=args.catalog,
            schema=args.schema,
            engine=args.engine,
        )
        return _dispatch(args, config, verbose)
    except (ConfigError, UsageError) as exc:
        if verbose:
            traceback.print_exc()
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # the one place every failure becomes one line
        from jobs.stages.runner import one_line

        if verbose:
            traceback.print_exc()
        print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
