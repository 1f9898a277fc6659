"""Every test belongs to a lane: the Makefile's ``test-unit``, ``test-spark`` and ``test-e2e``
together cover every test folder but ``tests/live`` (the ``live`` marker's lane), so running the
lanes one by one runs what ``make test`` runs."""

from __future__ import annotations

import re

from tests.conftest import REPO

LANES = ("test-unit", "test-spark", "test-e2e")


def _lane_folders() -> dict[str, set[str]]:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    out: dict[str, set[str]] = {}
    for lane in LANES:
        recipe = re.search(rf"^{lane}:.*\n\t(.*)$", makefile, re.MULTILINE)
        assert recipe is not None, f"no {lane} target"
        out[lane] = set(re.findall(r"\btests/([\w-]+)", recipe.group(1)))
    return out


def test_every_test_folder_is_in_exactly_one_lane() -> None:
    folders = {
        path.parent.name
        for path in (REPO / "tests").glob("*/test_*.py")
        if path.parent.name != "live"
    }
    lanes = _lane_folders()
    placed = [folder for members in lanes.values() for folder in members]
    assert sorted(placed) == sorted(set(placed)), f"a folder in two lanes: {lanes}"
    assert set(placed) == folders, f"lanes {lanes} vs test folders {sorted(folders)}"
