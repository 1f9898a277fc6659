"""``kafkactl-audit replay`` as a spark-submit job; the stage is ``jobs.stages.replay``."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``spark-submit jobs/replay.py [--cluster C] [--what-if KEY=VALUE ...]``."""
    from jobs.cli import main as cli_main

    return cli_main(["replay", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
