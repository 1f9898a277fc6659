"""The exit code of a command's stage reports: ``--fail-on`` findings (3) win over skipped or
damaged input (4), which wins over success (0); each is one line on stderr."""

from __future__ import annotations

import io

from jobs.stages.registry import (
    FINDINGS_EXIT,
    INPUT_PROBLEMS_EXIT,
    StageReport,
    findings_exit,
)


def _report(findings: list[str], problems: list[tuple[str, str]]) -> StageReport:
    report = StageReport("ingest-logs", "c", findings=list(findings))
    for path, reason in problems:
        report.input_problem(path, reason)
    return report


def test_nothing_found_nothing_skipped_is_0() -> None:
    stream = io.StringIO()
    assert findings_exit([_report([], []), StageReport("replay", "c")], stream) == 0
    assert stream.getvalue() == ""


def test_skipped_input_is_4_with_a_line_each() -> None:
    stream = io.StringIO()
    report = _report([], [("/a/controller.log", "gzip data cut short\nafter byte 7")])
    assert findings_exit([report, StageReport("replay", "c")], stream) == INPUT_PROBLEMS_EXIT
    assert report.notes == ["/a/controller.log: gzip data cut short after byte 7"]
    assert stream.getvalue().splitlines() == [
        "kafkactl-audit: input skipped or damaged: [c] ingest-logs: /a/controller.log: gzip "
        "data cut short after byte 7"
    ]


def test_a_finding_wins_over_skipped_input() -> None:
    stream = io.StringIO()
    reports = [_report([], [("/a/x", "binary data")]), _report(["unclean election"], [])]
    assert findings_exit(reports, stream) == FINDINGS_EXIT
    lines = stream.getvalue().splitlines()
    assert lines == [
        "kafkactl-audit: input skipped or damaged: [c] ingest-logs: /a/x: binary data",
        "kafkactl-audit: fail-on: [c] unclean election",
    ]
