"""The report's command-line options (``report`` and ``run``): scope, format and ``--fail-on``
parsed into the stage's options, a bad value refused with one line naming the option, exit
code 2 (no JVM: parsing only)."""

from __future__ import annotations

import pytest

from jobs.cli import build_parser, main
from jobs.runtime.report_options import report_options
from kafkactl_core.report.alerts import FailOn
from kafkactl_core.report.scope import ReportScope

MAR5 = 1_709_596_800_000  # 2024-03-05T00:00Z


@pytest.mark.parametrize("command", ["report", "run"])
def test_scope_format_and_rules(command: str) -> None:
    args = build_parser().parse_args(
        [command, "--from", "2024-03-05", "--to", "2024-03-05T02:00+01:00", "--topic", "o*",
         "--broker", "3,1", "--broker", "3", "--format", "json", "--fail-on", "unclean"]
    )  # fmt: skip
    assert report_options(args) == {
        "scope": ReportScope(MAR5, MAR5 + 3_600_000, "o*", (1, 3)),
        "format": "json",
        "fail_on": FailOn(unclean=True),
    }


def test_without_options_the_report_covers_everything() -> None:
    args = build_parser().parse_args(["report"])
    assert report_options(args) == {"scope": ReportScope(), "format": "text", "fail_on": None}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--from", "last week"], "--from: not an ISO 8601 date or time: 'last week'"),
        (["--broker", "1,x"], "--broker: not a broker id: 'x'"),
        (["--fail-on", "unclean,lag>=5"], "--fail-on: 'lag>=5' is not one of"),
        (["--from", "2024-03-05T10:00", "--to", "2024-03-05"], "--to must be after --from"),
    ],
)
def test_a_bad_value_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    code = main(["report", "--lakehouse", str(tmp_path), *argv])
    assert code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("kafkactl-audit: error: ") and message in line
