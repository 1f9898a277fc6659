"""``LOG_EVENT_TYPES`` names every controller event the normalizer reads: the replay leaves the
other rows unread in the lakehouse, so a row of another type must give no evidence and no fact.
Checked on the demo's logs and the published real logs (every version there)."""

from __future__ import annotations

import glob
from pathlib import Path
from typing import Any

from kafkactl_core.replay import LOG_EVENT_TYPES, controller_event_rows, normalize_controller_event
from kafkactl_core.versions import KafkaRelease
from tests.conftest import reference_dir

REPO = Path(__file__).resolve().parents[2]


def _rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(glob.glob(str(REPO / "samples" / "demo" / "logs" / "*" / "*.log"))):
        rows += controller_event_rows(path, "demo", KafkaRelease.parse("2.8"))
    real = reference_dir() / "real-logs"
    for path in sorted(real.glob("*.log")):
        version = path.name.split("-")[1]
        try:
            release = KafkaRelease.parse(version)
        except ValueError:
            continue
        rows += controller_event_rows(path, "real", release)
    return rows


def test_rows_of_other_event_types_normalize_to_nothing():
    rows = _rows()
    others = [row for row in rows if row.get("event_type") not in LOG_EVENT_TYPES]
    read = [row for row in rows if row.get("event_type") in LOG_EVENT_TYPES]
    assert len({row.get("event_type") for row in others}) >= 3 and read
    for row in others:
        found = normalize_controller_event(row)
        assert not found.evidence and not found.facts, (row.get("event_type"), row.get("file"))
    assert any(normalize_controller_event(row).evidence for row in read)
