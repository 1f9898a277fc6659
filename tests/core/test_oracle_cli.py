"""``kafkactl-audit oracle``: a JSON line per case, the closing count, the exit code, no Spark."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from jobs.cli import main
from tests.conftest import reference_dir

CASES = reference_dir() / "oracle" / "oracle_cases.json"
pytestmark = pytest.mark.skipif(not CASES.exists(), reason=f"oracle cases not found at {CASES}")


def _run(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, list[str], str]:
    code = main(["oracle", "--cases", str(path)])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def test_every_published_case_passes_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _run(capsys, CASES)
    cases = json.loads(CASES.read_text())
    results = [json.loads(line) for line in lines[:-1]]
    assert [r["id"] for r in results] == [c["id"] for c in cases]
    assert {r["status"] for r in results} == {"pass"}
    assert lines[-1] == f"{len(cases)} passed, 0 failed"
    assert code == 0


def test_a_wrong_expectation_fails_with_the_mismatch(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cases = json.loads(CASES.read_text())
    algorithm = next(c for c in cases if c["level"] == "algorithm" and c["expected"]["leader"])
    wrong = copy.deepcopy(algorithm)
    wrong["id"] = "planted-wrong-leader"
    wrong["expected"]["leader"] = 999
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([algorithm, wrong]))
    code, lines, _ = _run(capsys, path)
    first, second = (json.loads(line) for line in lines[:2])
    assert first["status"] == "pass"
    assert second["status"] == "fail"
    assert {
        "path": "expected.leader",
        "expected": 999,
        "actual": algorithm["expected"]["leader"],
    } in second["detail"]
    assert lines[-1] == "1 passed, 1 failed"
    assert code == 1


def test_a_malformed_file_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "broken.json"
    path.write_text("[{")
    code, lines, err = _run(capsys, path)
    assert code == 1 and lines == []
    assert len(err.strip().splitlines()) == 1 and str(path) in err


def test_the_oracle_command_never_loads_spark() -> None:
    probe = (
        "import sys, io, contextlib\n"
        "from jobs.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['oracle', '--cases', {str(CASES)!r}])\n"
        "print(code, 'pyspark' in sys.modules, 'pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False", "False"]
