"""``python -m kafkactl_lab.real_cluster``: record a scenario on a real Kafka cluster.

Example::

    python -m kafkactl_lab.real_cluster --kafka 3.9.1 --mode zk \\
        --scenario kafkactl_lab/real_cluster/scenarios/broker-crash.yaml --out /tmp/broker-crash
    python -m kafkactl_lab.real_cluster --kafka 4.1.1 --mode kraft \\
        --scenario kafkactl_lab/real_cluster/scenarios/kraft/broker-crash.yaml --out /tmp/kraft

The release's jars are installed into the jar cache on first use (``jobs.runtime.spark_jars``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from kafkactl_lab.real_cluster.capture import record
from kafkactl_lab.real_cluster.release import KafkaRelease


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and record one capture.

    Args:
        argv: the arguments (``sys.argv[1:]`` when None).

    Returns:
        0 when the capture is complete, 1 when the scenario or the cluster failed.
    """
    parser = argparse.ArgumentParser(
        prog="python -m kafkactl_lab.real_cluster",
        description="Run a scenario on a throwaway Kafka cluster on 127.0.0.1 and capture "
        "its logs, its ZooKeeper dataDir or KRaft metadata log, and their dumps by "
        "ZooKeeper's and Kafka's own tools.",
    )
    parser.add_argument("--kafka", required=True, help="the Kafka release, e.g. 3.9.1")
    parser.add_argument("--scala", default="2.13", help="Scala binary version (default 2.13)")
    parser.add_argument("--mode", choices=["zk", "kraft"], default="zk")
    parser.add_argument("--scenario", required=True, type=Path, help="the scenario YAML")
    parser.add_argument("--out", required=True, type=Path, help="the capture directory")
    parser.add_argument("--gzip", action="store_true", help="gzip the broker logs afterwards")
    args = parser.parse_args(argv)
    # kazoo reports every dropped connection (each broker killed, ZooKeeper stopped) as a warning
    logging.getLogger("kazoo").setLevel(logging.ERROR)
    try:
        manifest = record(
            KafkaRelease(args.kafka, args.scala),
            args.scenario,
            args.out,
            mode=args.mode,
            compress=args.gzip,
        )
    except Exception as error:  # one line, as the CLI does; the capture's manifest has more
        print(f"capture failed: {error}", file=sys.stderr)
        return 1
    print(f"capture of {manifest['scenario']} on Kafka {args.kafka}: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
