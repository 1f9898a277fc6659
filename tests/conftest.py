"""Shared fixtures: ONE session-scoped SparkSession (local[2], 2 shuffle partitions, UTC).

Only tests that ask for ``spark`` start the JVM; ``tests/core`` never does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def reference_dir() -> Path:
    """``../shared/reference`` beside the checkout, or ``$KAFKACTL_REFERENCE``."""
    return Path(os.environ.get("KAFKACTL_REFERENCE", REPO.parent / "shared" / "reference"))


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    """The test session, built through the same runtime as the jobs (never stopped early)."""
    from jobs._runtime import LocalSparkSettings, get_spark

    session = get_spark(LocalSparkSettings(master="local[2]", shuffle_partitions=2))
    yield session


@pytest.fixture
def lakehouse_dir(tmp_path: Path) -> Path:
    """An empty lakehouse directory for one test."""
    path = tmp_path / "lakehouse"
    path.mkdir()
    return path
