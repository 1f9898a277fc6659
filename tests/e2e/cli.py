"""The command line as the end-to-end tests drive it: a config file, then ``main``."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import yaml

from jobs.cli import main


def run_cli(*argv: str) -> tuple[int, str]:
    """``kafkactl-audit ARGV`` in this process: its exit code and what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def write_conf(path: Path, lakehouse: Path, engine: str = "auto", **cluster: Any) -> Path:
    """A config file with one cluster (``kafka_version`` 2.8 and UTC unless given)."""
    entry = {"kafka_version": "2.8", "timezone": "UTC", **cluster}
    document = {
        "version": 1,
        "lakehouse": {"path": str(lakehouse)},
        "engine": engine,
        "clusters": [entry],
    }
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path
