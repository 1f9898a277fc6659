"""``kafkactl-audit simulate``: a simulated cluster's logs, ZooKeeper history and ground truth.

``kafkactl-audit simulate --brokers N --topics T --partitions-per-topic P --hours H
--kafka-version V --seed S --out DIR [--script FILE]`` runs ``kafkactl_lab.simulate`` (no Spark,
no JVM) and writes ``DIR/logs/broker-<id>/{controller,state-change,server}.log``,
``DIR/zookeeper-history.jsonl``, ``DIR/ground-truth-elections.jsonl`` and
``DIR/simulation.json``; it prints the run's counts as one JSON line. Options left out take the
script's settings, then the defaults. A release that cannot be rendered exactly is a usage
error (exit 2).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

_OPTIONS: tuple[tuple[str, str, type, str], ...] = (
    ("--brokers", "brokers", int, "number of brokers (default 3)"),
    ("--topics", "topics", int, "topics created at the start (default 3)"),
    ("--partitions-per-topic", "partitions_per_topic", int, "partitions per topic (default 3)"),
    ("--replication-factor", "replication_factor", int, "replication factor (default 3)"),
    ("--hours", "hours", float, "simulated duration in hours (default 1)"),
    ("--kafka-version", "kafka_version", str, "release whose formats are written: 2.8 or 1.0"),
    ("--seed", "seed", int, "seed of every random choice (default 0)"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the ``simulate`` options on ``parser``.

    Args:
        parser: the subcommand's parser.
    """
    for flag, dest, kind, help_text in _OPTIONS:
        parser.add_argument(flag, dest=dest, type=kind, default=None, help=help_text)
    parser.add_argument(
        "--start", default=None, metavar="ISO", help="simulated start time (UTC by default)"
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory")
    parser.add_argument(
        "--script", default=None, metavar="FILE", help="JSON script of timed operations"
    )
    parser.add_argument(
        "--random-mix",
        dest="random_mix",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run the random operations mix (default: on, off with --script)",
    )


def settings_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given on the command line (options left out are absent).

    Args:
        args: the parsed ``simulate`` arguments.

    Returns:
        ``SimulationSettings`` fields.

    Raises:
        ValueError: an unreadable ``--start``.
    """
    from kafkactl_lab.simulate.clock import UTC

    given: dict[str, Any] = {
        dest: getattr(args, dest)
        for _, dest, _, _ in _OPTIONS
        if getattr(args, dest, None) is not None
    }
    if args.start is not None:
        moment = dt.datetime.fromisoformat(args.start.replace("Z", "+00:00"))
        given["start"] = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    if args.random_mix is not None:
        given["random_mix"] = args.random_mix
    return given


def execute(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``simulate`` for parsed arguments; print the counts; return the exit code.

    Args:
        args: the parsed arguments.
        out: where the summary goes (default stdout).

    Returns:
        0.

    Raises:
        UsageError: bad settings, an unreadable script or an unsupported release.
    """
    from pydantic import ValidationError

    from jobs.cli import UsageError
    from kafkactl_lab.simulate import (
        SimulationSettings,
        UnsupportedVersionError,
        load_script,
        simulate,
    )

    out = out or sys.stdout
    try:
        given = settings_from_args(args)
        if args.script:
            script = load_script(args.script)
            # the command line wins over the script's own settings
            script = script.model_copy(update={"settings": {**script.settings, **given}})
            result = simulate(SimulationSettings(), args.out, script)
        else:
            result = simulate(SimulationSettings.model_validate(given), args.out)
    except (ValidationError, UnsupportedVersionError, ValueError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"simulate: {first}") from None
    summary = {"out": result.out, **result.stats.to_json()}
    out.write(json.dumps(summary, separators=(",", ":")) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``python jobs/simulate.py ...`` (the ``simulate`` subcommand)."""
    from jobs.cli import main as cli_main

    return cli_main(["simulate", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
