"""``kafkactl-audit ingest-kraft`` for spark-submit; the stage is ``jobs.stages.ingest_kraft``."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``spark-submit jobs/ingest_kraft.py --cluster C [PATH ...]``."""
    from jobs.cli import main as cli_main

    return cli_main(["ingest-kraft", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
