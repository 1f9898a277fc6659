"""Delta's Spark jars from Maven Central (``jobs.runtime.spark_jars``): the coordinate rule, the
cache ``make setup`` filled, and the installer's behaviour when done or when Maven says no.

No JVM: these look at files and run ``mvn`` only where a test says so.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from jobs.runtime.class_archive import ARCHIVE_ENV, archive_dir
from jobs.runtime.spark_jars import (
    CACHE_ENV,
    COMPLETE,
    Coordinate,
    JarsUnavailable,
    cached_jars,
    delta_coordinate,
    delta_jars,
    install,
    installed_delta_coordinate,
    installed_version,
    jar_cache,
    maven_pom,
    spark_jars_dir,
)
from tests.helpers import skip_without_delta_jars


def _never(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    raise AssertionError(f"nothing should run: {command}")


def test_the_coordinate_is_delta_spark_pips_rule() -> None:
    assert str(delta_coordinate("4.2.0", "4.4.0")) == "io.delta:delta-spark_4.2_2.13:4.4.0"
    assert str(delta_coordinate("4.0.1", "4.4.0")) == "io.delta:delta-spark_4.0_2.13:4.4.0"
    installed = installed_delta_coordinate()
    if installed is not None:
        spark = ".".join(str(installed_version("pyspark")).split(".")[:2])
        assert installed.artifact == f"delta-spark_{spark}_2.13"
        assert installed.version == installed_version("delta-spark")


def test_the_pom_manages_versions_with_sparks_parent() -> None:
    pom = maven_pom(
        Coordinate("io.delta", "delta-spark_4.2_2.13", "4.4.0"),
        Coordinate("org.apache.spark", "spark-parent_2.13", "4.2.0"),
    )
    assert "<artifactId>spark-parent_2.13</artifactId><version>4.2.0</version>" in pom
    assert "<scope>import</scope>" in pom
    assert "<artifactId>delta-spark_4.2_2.13</artifactId><version>4.4.0</version>" in pom
    assert "dependencyManagement" not in maven_pom(Coordinate("g", "a", "1"), None)


@pytest.mark.parametrize(
    ("folder", "variable", "name"),
    [(jar_cache, CACHE_ENV, "jars"), (archive_dir, ARCHIVE_ENV, "class-archive")],
)
def test_a_cache_is_the_environments_folder_or_the_virtualenvs(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    folder: Callable[[], Path],
    variable: str,
    name: str,
) -> None:
    monkeypatch.setenv(variable, str(tmp_path))
    assert folder() == tmp_path
    monkeypatch.delenv(variable)
    assert folder().parts[-3:] == ("share", "kafkactl-audit", name)


def test_make_setup_installed_the_jars_spark_lacks() -> None:
    coordinate = installed_delta_coordinate()
    if coordinate is None:
        pytest.skip("pyspark and delta-spark are not installed")
    jars = delta_jars()
    if not jars:
        skip_without_delta_jars(f"Delta's jars are not in {jar_cache()} (make setup installs them)")
    names = {jar.name for jar in jars}
    assert f"{coordinate.artifact}-{coordinate.version}.jar" in names
    assert f"delta-storage-{coordinate.version}.jar" in names
    spark_jars = spark_jars_dir()
    assert spark_jars is not None
    assert not names & {jar.name for jar in spark_jars.glob("*.jar")}, "no jar of Spark's twice"
    # A second install finds the complete folder: nothing runs, nothing is downloaded.
    assert install(coordinate, jars[0].parent.parent, run=_never) == jars


def test_an_incomplete_folder_is_not_used(tmp_path: Path) -> None:
    coordinate = Coordinate("io.delta", "delta-spark_4.2_2.13", "4.4.0")
    folder = tmp_path / coordinate.folder_name
    folder.mkdir()
    (folder / "delta-spark_4.2_2.13-4.4.0.jar").write_bytes(b"half")
    assert cached_jars(tmp_path, coordinate) == []
    (folder / COMPLETE).write_text(str(coordinate))
    assert [p.name for p in cached_jars(tmp_path, coordinate)] == ["delta-spark_4.2_2.13-4.4.0.jar"]


def test_a_coordinate_maven_cannot_resolve_is_one_clear_error(tmp_path: Path) -> None:
    """Real ``mvn`` (with make setup's Maven repository, so that its plugins are there): an
    artifact that does not exist fails with Maven's own reason, and leaves no folder."""
    missing = Coordinate("io.delta", "delta-spark_9.9_2.13", "0.0.1")
    with pytest.raises(JarsUnavailable, match=r"io\.delta:delta-spark_9\.9_2\.13:0\.0\.1: "):
        install(missing, tmp_path, repository=jar_cache() / "maven")
    assert not (tmp_path / missing.folder_name / COMPLETE).exists()
