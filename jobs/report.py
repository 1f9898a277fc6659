"""``kafkactl-audit report`` as a spark-submit job; the stage is ``jobs.stages.report``."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``spark-submit jobs/report.py [--cluster C] [--out DIR]``."""
    from jobs.cli import main as cli_main

    return cli_main(["report", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
