"""Jars from Maven Central in a local cache: Delta's Spark jars for the local session.

``make setup`` runs ``python -m jobs.runtime.spark_jars delta`` once: Maven (``mvn``) resolves the
delta-spark coordinate that matches the installed ``pyspark`` and ``delta-spark`` packages, with
Spark's own parent POM as the bill of materials so that every shared dependency takes the version
Spark ships, and copies into ``<cache>/<coordinate>/`` only the jars Spark does not already have.
A finished folder has a ``COMPLETE`` marker: a second run downloads nothing.

The cache is ``$KAFKACTL_AUDIT_JARS`` when set, else ``<sys.prefix>/share/kafkactl-audit/jars``
(inside ``.venv`` for ``make setup``). Offline machines copy that folder and point the variable
at it. The local session builder (``jobs.runtime.spark_session``) adds a complete folder's jars to
``spark.jars``; without one the delta-rs engine still works.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

CACHE_ENV = "KAFKACTL_AUDIT_JARS"
COMPLETE = "COMPLETE"
SCALA = "2.13"

Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]
"""Runs a command (tests pass stand-ins)."""


class JarsUnavailable(RuntimeError):
    """Maven, the network or the coordinate failed: the jars cannot be had here."""


@dataclass(frozen=True)
class Coordinate:
    """A Maven coordinate ``group:artifact:version``."""

    group: str
    artifact: str
    version: str

    def __str__(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}"

    @property
    def folder_name(self) -> str:
        """The cache folder of this coordinate's jars."""
        return f"{self.group}_{self.artifact}_{self.version}"


def cache_folder(variable: str, name: str) -> Path:
    """A cache of ``make setup``: ``$variable`` when set, else
    ``<sys.prefix>/share/kafkactl-audit/<name>`` (inside ``.venv``)."""
    configured = os.environ.get(variable)
    if configured:
        return Path(configured).expanduser()
    return Path(sys.prefix) / "share" / "kafkactl-audit" / name


def jar_cache() -> Path:
    """The cache: ``$KAFKACTL_AUDIT_JARS``, else ``<sys.prefix>/share/kafkactl-audit/jars``."""
    return cache_folder(CACHE_ENV, "jars")


def delta_coordinate(spark_version: str, delta_version: str) -> Coordinate:
    """The delta-spark artifact for a Spark release, by delta-spark's own rule.

    ``configure_spark_with_delta_pip`` names the artifact after Spark's major.minor:
    ``io.delta:delta-spark_<major.minor>_2.13:<delta version>``.
    """
    major_minor = ".".join(spark_version.split(".")[:2])
    return Coordinate("io.delta", f"delta-spark_{major_minor}_{SCALA}", delta_version)


def spark_parent(spark_version: str) -> Coordinate:
    """Spark's parent POM: its dependency management pins what Spark's own jars are."""
    return Coordinate("org.apache.spark", f"spark-parent_{SCALA}", spark_version)


def installed_version(distribution: str) -> str | None:
    """The installed version of a Python distribution, None when it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def installed_delta_coordinate() -> Coordinate | None:
    """The delta-spark coordinate for the installed ``pyspark`` and ``delta-spark`` packages."""
    spark_version = installed_version("pyspark")
    delta_version = installed_version("delta-spark")
    if spark_version is None or delta_version is None:
        return None
    return delta_coordinate(spark_version, delta_version)


def spark_jars_dir() -> Path | None:
    """The folder of the jars the installed pyspark runs with."""
    if installed_version("pyspark") is None:
        return None
    folder = Path(str(metadata.distribution("pyspark").locate_file("pyspark/jars")))
    return folder if folder.is_dir() else None


def cached_jars(cache: Path, coordinate: Coordinate) -> list[Path]:
    """The jars of a complete cache folder, sorted; empty when the folder is not complete."""
    folder = cache / coordinate.folder_name
    if not (folder / COMPLETE).is_file():
        return []
    return sorted(folder.glob("*.jar"))


def delta_jars() -> list[Path]:
    """Delta's jars for the installed pyspark, from the cache; empty when not installed."""
    coordinate = installed_delta_coordinate()
    return [] if coordinate is None else cached_jars(jar_cache(), coordinate)


def maven_pom(coordinate: Coordinate, bom: Coordinate | None) -> str:
    """A throwaway POM whose only dependency is ``coordinate``, versions managed by ``bom``."""
    managed = ""
    if bom is not None:
        managed = (
            "<dependencyManagement><dependencies><dependency>"
            f"<groupId>{bom.group}</groupId><artifactId>{bom.artifact}</artifactId>"
            f"<version>{bom.version}</version><type>pom</type><scope>import</scope>"
            "</dependency></dependencies></dependencyManagement>"
        )
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0">'
        "<modelVersion>4.0.0</modelVersion>"
        "<groupId>kafkactl-audit</groupId><artifactId>jars</artifactId><version>0</version>"
        f"<packaging>pom</packaging>{managed}<dependencies><dependency>"
        f"<groupId>{coordinate.group}</groupId><artifactId>{coordinate.artifact}</artifactId>"
        f"<version>{coordinate.version}</version></dependency></dependencies></project>\n"
    )


def run_command(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """Run ``command``, its output captured as text (a ``Runner``)."""
    return subprocess.run(command, capture_output=True, text=True, check=False)


def _maven_error(output: str) -> str:
    lines = output.strip().splitlines()
    errors = [line for line in lines if line.startswith("[ERROR]") and "->" in line]
    if errors:
        return errors[0]
    return lines[-1] if lines else "no output"


def install(
    coordinate: Coordinate,
    cache: Path,
    *,
    bom: Coordinate | None = None,
    provided: Path | None = None,
    repository: Path | None = None,
    run: Runner = run_command,
) -> list[Path]:
    """Resolve ``coordinate`` with its runtime dependencies into ``cache``, once.

    Args:
        coordinate: the artifact to install.
        cache: the cache folder.
        bom: a POM whose dependency management sets the versions of shared dependencies.
        provided: a folder of jars already on the classpath (Spark's): jars of the same file
            name are not copied.
        repository: Maven's local repository (its downloads), ``cache/maven`` by default.
        run: runs a command and returns its completed process (``mvn`` here).

    Returns:
        The installed jars, sorted.

    Raises:
        JarsUnavailable: ``mvn`` is missing or failed (the first Maven error line says why).
    """
    done = cached_jars(cache, coordinate)
    if done:
        return done
    mvn = shutil.which("mvn")
    if mvn is None:
        raise JarsUnavailable(f"{coordinate}: mvn is not installed (apt-get install maven)")
    target = cache / coordinate.folder_name
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".resolve-") as work:
        pom = Path(work) / "pom.xml"
        pom.write_text(maven_pom(coordinate, bom), encoding="utf-8")
        resolved = Path(work) / "jars"
        result = run(
            [
                mvn,
                "-B",
                "-q",
                "-f",
                str(pom),
                f"-Dmaven.repo.local={repository or cache / 'maven'}",
                "dependency:copy-dependencies",
                "-DincludeScope=runtime",
                f"-DoutputDirectory={resolved}",
            ]
        )
        if result.returncode != 0:
            raise JarsUnavailable(f"{coordinate}: {_maven_error(result.stdout + result.stderr)}")
        skip = {p.name for p in provided.glob("*.jar")} if provided is not None else set()
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir()
        for jar in sorted(resolved.glob("*.jar")):
            if jar.name not in skip:
                shutil.copy2(jar, target / jar.name)
        (target / COMPLETE).write_text(f"{coordinate}\n", encoding="utf-8")
    return cached_jars(cache, coordinate)


def install_delta(cache: Path, run: Runner = run_command) -> list[Path]:
    """Install Delta's Spark jars matching the installed pyspark and delta-spark packages.

    Raises:
        JarsUnavailable: the packages are not installed, or Maven cannot resolve the jars.
    """
    coordinate = installed_delta_coordinate()
    spark_version = installed_version("pyspark")
    if coordinate is None or spark_version is None:
        raise JarsUnavailable("pyspark and delta-spark must be installed (pip install '.[local]')")
    return install(
        coordinate, cache, bom=spark_parent(spark_version), provided=spark_jars_dir(), run=run
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m jobs.runtime.spark_jars delta``: install Delta's jars; one line either way.

    Returns:
        0 installed (or already there); 1 when the jars cannot be had (the delta-rs engine
        still works), with ``--required`` only, else 0.
    """
    parser = argparse.ArgumentParser(prog="python -m jobs.runtime.spark_jars", description=__doc__)
    parser.add_argument("what", choices=["delta"], help="which jars")
    parser.add_argument(
        "--required", action="store_true", help="exit 1 when the jars cannot be installed"
    )
    args = parser.parse_args(argv)
    cache = jar_cache()
    try:
        jars = install_delta(cache)
    except JarsUnavailable as error:
        print(f"Delta's Spark jars not installed ({error}); the delta-rs engine still works")
        return 1 if args.required else 0
    print(f"Delta's Spark jars: {len(jars)} in {jars[0].parent}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
