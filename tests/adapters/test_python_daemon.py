"""Which ``pyspark.zip`` the local daemon drops from its path (``jobs.runtime.python_daemon``)."""

from __future__ import annotations

from pathlib import Path

from jobs.runtime.python_daemon import without_packaged_copies


def _installed(site: Path) -> Path:
    """A pip-installed PySpark under ``site``; returns its ``python/lib/pyspark.zip``."""
    package = site / "pyspark"
    (package / "python" / "lib").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    zip_path = package / "python" / "lib" / "pyspark.zip"
    zip_path.write_bytes(b"")
    return zip_path


def test_drops_the_zip_of_the_package_on_the_path(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    zip_path = _installed(site)
    py4j = zip_path.with_name("py4j-0.10.9.9-src.zip")
    path = ["", str(zip_path), str(py4j), "/usr/lib/python3.11", str(site)]
    assert without_packaged_copies(path) == ["", str(py4j), "/usr/lib/python3.11", str(site)]


def test_keeps_the_zip_when_its_package_is_not_importable(tmp_path: Path) -> None:
    zip_path = _installed(tmp_path / "site-packages")
    path = [str(zip_path), "/usr/lib/python3.11"]
    assert without_packaged_copies(path) == path


def test_keeps_the_zip_of_a_spark_distribution(tmp_path: Path) -> None:
    spark_home = tmp_path / "spark-4.2.0-bin"
    (spark_home / "python" / "lib").mkdir(parents=True)
    zip_path = spark_home / "python" / "lib" / "pyspark.zip"
    zip_path.write_bytes(b"")
    path = [str(zip_path), str(tmp_path)]
    assert without_packaged_copies(path) == path
