"""``docs/architecture.md`` stays current: every table, ``jobs/`` entry module and subpackage,
core and lab package and CLI command is named there (no JVM)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobs.cli import build_parser
from schemas.registry import ALL_TABLES

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _packages(folder: str) -> list[str]:
    return sorted(
        p.name for p in (ROOT / folder).iterdir() if p.is_dir() and (p / "__init__.py").is_file()
    )


@pytest.mark.parametrize("table", [f"{t.layer}.{t.name}" for t in ALL_TABLES])
def test_every_table_is_in_the_catalogue(table: str) -> None:
    assert f"`{table}`" in DOC


@pytest.mark.parametrize(
    "name",
    [
        *(f"`{p.name}`" for p in sorted((ROOT / "jobs").glob("*.py")) if p.name != "__init__.py"),
        *(f"`{name}/`" for name in _packages("jobs")),
        *(f"`{name}/`" for name in _packages("kafkactl_core")),
        *(f"`{name}/`" for name in _packages("kafkactl_lab")),
    ],
)
def test_every_folder_and_entry_module_is_in_the_map(name: str) -> None:
    assert name in DOC


def test_every_command_is_in_the_command_line() -> None:
    parser = build_parser()
    commands = next(
        action.choices
        for action in parser._actions  # argparse keeps its subcommands only there
        if isinstance(getattr(action, "choices", None), dict)
    )
    missing = [
        name for name in commands if f"kafkactl-audit {name}" not in DOC and f"| {name}" not in DOC
    ]
    assert missing == []
