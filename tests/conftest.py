"""Shared fixtures: ONE session-scoped SparkSession (local[2], 2 shuffle partitions, UTC).

Only tests that ask for ``spark`` start the JVM; ``tests/core`` never does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]

# The suite's property tests draw the same examples in every run, so CI never turns red on a
# seed; exploring new examples is `make fuzz`'s job, or a run with HYPOTHESIS_PROFILE=default.
settings.register_profile("kafkactl-suite", derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "kafkactl-suite"))


def reference_dir() -> Path:
    """``../shared/reference`` beside the checkout, or ``$KAFKACTL_REFERENCE``."""
    return Path(os.environ.get("KAFKACTL_REFERENCE", REPO.parent / "shared" / "reference"))


def needs_reference(path: Path, what: str) -> pytest.MarkDecorator:
    """Skip unless the reference material ``what`` is at ``path``."""
    return pytest.mark.skipif(
        not path.exists(), reason=f"reference {what} not found at {path} (set KAFKACTL_REFERENCE)"
    )


REFERENCE_PARTS = ("examples", "real-logs", "oracle/oracle_cases.json")
"""What the tests read from the reference material."""


def pytest_sessionstart(session: pytest.Session) -> None:
    """With ``KAFKACTL_REQUIRE_REFERENCE`` set (``.ci/run`` sets it), missing reference material
    fails the run instead of skipping the tests that read it."""
    if not os.environ.get("KAFKACTL_REQUIRE_REFERENCE"):
        return
    root = reference_dir()
    missing = [part for part in REFERENCE_PARTS if not (root / part).exists()]
    if missing:
        raise pytest.UsageError(
            f"KAFKACTL_REQUIRE_REFERENCE is set but {root} lacks {', '.join(missing)}: put the "
            "reference material beside the checkout or point KAFKACTL_REFERENCE at it"
        )


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    """The test session, built through the same runtime as the jobs (never stopped early)."""
    from jobs.runtime.spark_session import LocalSparkSettings, get_spark

    session = get_spark(LocalSparkSettings(master="local[2]", shuffle_partitions=2))
    yield session


@pytest.fixture
def lakehouse_dir(tmp_path: Path) -> Path:
    """An empty lakehouse directory for one test."""
    path = tmp_path / "lakehouse"
    path.mkdir()
    return path
