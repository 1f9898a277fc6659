"""``python -m kafkactl_lab.metadata_log_java``: segments written by Kafka's own classes.

Examples::

    python -m kafkactl_lab.metadata_log_java fixtures              # tests/fixtures/kraft-codecs
    python -m kafkactl_lab.metadata_log_java bench /tmp/big.log 200  # a 200 MB segment
    python -m kafkactl_lab.metadata_log_java dump /tmp/big.log       # Kafka's dump to stdout

Kafka's jars are installed into the jar cache on first use (``jobs.runtime.spark_jars``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from kafkactl_lab.metadata_log_java import CODECS, Toolbox, make_fixtures

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "kraft-codecs"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run one command; 0 on success."""
    parser = argparse.ArgumentParser(prog="python -m kafkactl_lab.metadata_log_java")
    commands = parser.add_subparsers(dest="command", required=True)
    fixtures = commands.add_parser("fixtures", help="one segment per codec, and Kafka's dumps")
    fixtures.add_argument("target", nargs="?", type=Path, default=FIXTURES)
    bench = commands.add_parser("bench", help="one large segment of a controller's traffic")
    bench.add_argument("file", type=Path)
    bench.add_argument("megabytes", type=int)
    bench.add_argument("--codec", choices=CODECS, default="none")
    dump = commands.add_parser("dump", help="kafka-dump-log --cluster-metadata-decoder")
    dump.add_argument("file", type=Path)
    args = parser.parse_args(argv)
    if args.command == "fixtures":
        for path in make_fixtures(args.target):
            print(path)
        return 0
    with tempfile.TemporaryDirectory(prefix="metadata-log-java-") as tmp:
        tools = Toolbox(Path(tmp))
        if args.command == "bench":
            print(tools.generate("bench", str(args.file), str(args.megabytes), args.codec), end="")
        else:
            sys.stdout.buffer.write(tools.dump(args.file.resolve()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
