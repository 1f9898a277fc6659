"""A local session's JVM loads Spark's classes from the class archive ``make setup`` built
(``jobs.runtime.class_archive``), and from the jars without one: each JVM here logs where every
class came from (``-Xlog:class+load``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jobs.runtime.class_archive import ARCHIVE_ENV, archive_dir, archive_path, build
from jobs.runtime.spark_jars import spark_jars_dir

pytestmark = pytest.mark.e2e

SESSION = """
import sys
from jobs.runtime.spark_session import LocalSparkSettings, get_spark
log = sys.argv[1]
logged = {"spark.driver.extraJavaOptions": f"-Xlog:class+load=info:file={log}"}
quick = sys.argv[2] == "quick"
settings = LocalSparkSettings(master="local[1]", extra_conf=logged, inputs=() if quick else None)
spark = get_spark(settings)
assert spark.range(3).count() == 3
spark.stop()
"""


def _source_of(cls: str, folder: Path, log: Path, jit: str = "tiered") -> str:
    """Where a new local session's JVM, given the archives in ``folder``, loaded ``cls`` from
    (``jit``: ``quick`` for C1 alone, ``jobs.runtime.jit``)."""
    done = subprocess.run(
        [sys.executable, "-c", SESSION, str(log), jit],
        env={**os.environ, ARCHIVE_ENV: str(folder)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for line in log.read_text().splitlines():
        if f" {cls} source: " in line:
            return line.split(" source: ", 1)[1]
    raise AssertionError(f"{cls} not loaded")


def test_the_session_loads_sparks_classes_from_the_archive(tmp_path: Path) -> None:
    installed = archive_path(archive_dir(), os.environ, spark_jars_dir())
    if installed is not None and installed.is_file():
        folder = installed.parent
    else:
        # make setup did not build it here: the same build, into this test's folder
        folder = build(tmp_path / "archives").parent
    cls = "org.apache.spark.SparkContext"
    assert _source_of(cls, folder, tmp_path / "with.log") == "shared objects file (top)"
    quick = _source_of(cls, folder, tmp_path / "quick.log", "quick")
    assert quick == "shared objects file (top)"
    without = _source_of(cls, tmp_path / "none", tmp_path / "without.log")
    assert "spark-core" in without and "shared" not in without
