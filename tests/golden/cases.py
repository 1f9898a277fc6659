"""Golden report cases: fixed gold inputs (what the replay produced from a sample) and the report
files and tables computed from them.

``scripts/update_golden.py`` re-runs the pure-Python replay on the sample, stores its outputs as
the case's inputs (``input/*.jsonl``), and writes the expected report (``report/``) and tables
(``tables/*.jsonl``). ``tests/core/test_report_golden.py`` recomputes the outputs from the stored
inputs and compares them byte for byte, so a change of the report shows up as a diff of these
files, and a change of the replay does not break the report's golden test until the inputs are
refreshed.
"""

from __future__ import annotations

import glob
import json
from datetime import date, datetime
from pathlib import Path
from typing import Any

from kafkactl_core.replay import (
    ClusterFact,
    ReplaySettings,
    build_timelines,
    controller_event_rows,
    normalize_rows,
    replay,
)
from kafkactl_core.replay.values import as_ms
from kafkactl_core.report import (
    CHECK_EVENT_TYPES,
    ImbalanceSettings,
    ReportData,
    ReportTables,
    anomaly_from_row,
    compute_report,
    election_from_row,
    report_data,
    report_files,
    timeline_from_row,
)
from kafkactl_core.versions import KafkaRelease

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent
DEMO = REPO / "samples" / "demo"
CLUSTER = "demo"
SETTINGS = ImbalanceSettings(10, "zk", KafkaRelease.parse("2.8"))
INPUTS = ("timeline", "elections", "anomalies", "facts", "checks")


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return as_ms(value)
    if isinstance(value, date):
        return value.isoformat()
    return value


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(
        json.dumps({k: _plain(v) for k, v in row.items()}, sort_keys=True) + "\n" for row in rows
    )


def replay_demo() -> dict[str, str]:
    """The demo's logs through the pure-Python replay, as the case's input files."""
    rows: list[dict[str, Any]] = []
    for path in sorted(glob.glob(str(DEMO / "logs" / "*" / "*.log"))):
        rows.extend(controller_event_rows(path, CLUSTER, KafkaRelease.parse("2.8")))
    for row in rows:
        row["file"] = str(Path(row["file"]).relative_to(REPO))
    evidence, facts = normalize_rows(rows)
    timelines = build_timelines(facts)
    out = replay(evidence, timelines, ReplaySettings.of("2.8"))
    keep = ("event_type", "ts", "file", "first_line", "origin_broker", "controller_id", "broker",
            "ratio", "phase", "detail")  # fmt: skip
    checks = [
        {k: row.get(k) for k in keep} for row in rows if row["event_type"] in CHECK_EVENT_TYPES
    ]
    return {
        "timeline": _jsonl([r.to_row() for r in out.timeline]),
        "elections": _jsonl([r.to_row() for r in out.elections]),
        "anomalies": _jsonl(
            [r.to_row() for r in [*out.anomalies, *timelines[CLUSTER].anomalies()]]
        ),
        "facts": _jsonl([f.to_row() for f in facts]),
        "checks": _jsonl(checks),
    }


def _read(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line]


def computed(inputs: dict[str, str]) -> tuple[ReportTables, ReportData]:
    """A case's report tables and report data, from its input files (pure-Python path)."""
    timeline = [timeline_from_row(r) for r in _read(inputs["timeline"])]
    elections = [election_from_row(r) for r in _read(inputs["elections"])]
    anomalies = [anomaly_from_row(r) for r in _read(inputs["anomalies"])]
    facts = [f for f in (ClusterFact.from_row(r) for r in _read(inputs["facts"])) if f]
    tables = compute_report(
        CLUSTER,
        timeline=timeline,
        elections=elections,
        facts=facts,
        controller_events=_read(inputs["checks"]),
        settings=SETTINGS,
    )
    data = report_data(CLUSTER, tables, elections=elections, anomalies=anomalies, settings=SETTINGS)
    return tables, data


def outputs(inputs: dict[str, str]) -> dict[str, str]:
    """The expected files of a case, from its input files: report files and tables."""
    tables, data = computed(inputs)
    files = {f"report/{name}": text for name, text in report_files(data).items()}
    for name, rows in (
        ("leader_imbalance", tables.imbalance),
        ("leader_imbalance_daily", tables.daily),
        ("unclean_elections", tables.unclean),
        ("unclean_elections_daily", tables.unclean_daily),
        ("offline_intervals", tables.offline),
        ("controller_history", tables.controllers),
        ("report_anomalies", tables.anomalies),
        ("under_replicated", tables.under_replicated),
        ("isr_churn_daily", tables.isr_churn),
        ("broker_timeline", tables.brokers),
        ("reassignments", tables.reassignments),
        ("topic_lifecycle", tables.topics),
    ):
        files[f"tables/{name}.jsonl"] = _jsonl([r.to_row() for r in rows])
    return files


def load_inputs(case: str = "demo") -> dict[str, str]:
    """A case's stored input files."""
    return {name: (GOLDEN / case / "input" / f"{name}.jsonl").read_text() for name in INPUTS}


def expected(case: str = "demo") -> dict[str, str]:
    """A case's stored expected files (relative path -> text)."""
    root = GOLDEN / case
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] in ("report", "tables")
    }
