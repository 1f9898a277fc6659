"""The report's command-line options, shared by ``report`` and ``run``: its scope (``--from``,
``--to``, ``--topic``, ``--broker``), the summary's ``--format`` and ``--fail-on``."""

from __future__ import annotations

import argparse
from typing import Any

from kafkactl_core.report.alerts import FailOn
from kafkactl_core.report.scope import ReportScope, parse_time

__all__ = ["add_report_options", "report_options"]


def add_report_options(parser: argparse.ArgumentParser) -> None:
    """Add the report's scope, format and ``--fail-on`` options to a command."""
    parser.add_argument(
        "--from", dest="from_", metavar="TIME", help="report from TIME (ISO 8601, UTC by default)"
    )
    parser.add_argument("--to", metavar="TIME", help="report up to TIME (exclusive)")
    parser.add_argument("--topic", metavar="GLOB", help="only topics matching GLOB (orders-*)")
    parser.add_argument(
        "--broker",
        action="append",
        metavar="N",
        help="only what involves broker N (repeat or N,M for several)",
    )
    parser.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="the summary on stdout: text (default) or one JSON document",
    )
    parser.add_argument(
        "--fail-on",
        metavar="RULES",
        help="exit 3 with the findings on stderr on: unclean, offline>=SECONDS, "
        "imbalance>=RATIO (0.2 or 20%%), anomaly=error|warning|info (comma-separated)",
    )


def report_options(args: argparse.Namespace) -> dict[str, Any]:
    """The report stage's options from parsed arguments (``jobs.stages.report``).

    Raises:
        ValueError: a time, broker or rule that does not parse, naming the option.
    """
    brokers: list[int] = []
    for given in args.broker or ():
        for part in given.split(","):
            try:
                brokers.append(int(part))
            except ValueError:
                raise ValueError(f"--broker: not a broker id: {part!r}") from None
    start = None if args.from_ is None else parse_time(args.from_, "--from")
    end = None if args.to is None else parse_time(args.to, "--to")
    scope = ReportScope(
        from_ms=None if start is None else int(start.timestamp() * 1000),
        to_ms=None if end is None else int(end.timestamp() * 1000),
        topic=args.topic,
        brokers=tuple(sorted(set(brokers))),
    )
    return {
        "scope": scope,
        "format": args.format,
        "fail_on": None if args.fail_on is None else FailOn.parse(args.fail_on),
    }
