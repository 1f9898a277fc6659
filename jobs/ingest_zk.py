"""``kafkactl-audit ingest-zk`` as a spark-submit job; the stage is ``jobs.stages.ingest_zk``."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``spark-submit jobs/ingest_zk.py --cluster C [PATH ...]``."""
    from jobs.cli import main as cli_main

    return cli_main(["ingest-zk", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
