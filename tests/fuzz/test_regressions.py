"""Every input a fuzzer found crashing, replayed: ``regressions/<target>/<case>``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.targets import TARGETS

REGRESSIONS = Path(__file__).parent / "regressions"
CASES = sorted(path for path in REGRESSIONS.glob("*/*") if path.is_file())


def test_every_case_names_a_target() -> None:
    assert CASES and {path.parent.name for path in CASES} <= set(TARGETS)


@pytest.mark.parametrize("case", CASES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_a_crashing_input_no_longer_crashes(case: Path) -> None:
    TARGETS[case.parent.name](case.read_bytes())
