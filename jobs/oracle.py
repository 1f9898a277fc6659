"""``kafkactl-audit oracle --cases FILE``: evaluate Kafka's own test cases against the core.

Prints one JSON line per case, then ``N passed, M failed`` (errors count as failures); exits 1
when any case failed or errored. Needs no Spark.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TextIO


def execute(cases: str, out: TextIO | None = None) -> int:
    """Evaluate every case of ``cases``; return the exit code."""
    out = out or sys.stdout
    from kafkactl_lab.oracle.result import CaseStatus
    from kafkactl_lab.oracle.runner import evaluate_file

    passed = failed = 0
    for result in evaluate_file(cases):
        out.write(json.dumps(result.to_json_dict(), separators=(",", ":"), default=str) + "\n")
        if result.status is CaseStatus.passed:
            passed += 1
        elif result.status in (CaseStatus.failed, CaseStatus.error):
            failed += 1
    out.write(f"{passed} passed, {failed} failed\n")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``python jobs/oracle.py --cases FILE``."""
    from jobs.cli import main as cli_main

    return cli_main(["oracle", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
