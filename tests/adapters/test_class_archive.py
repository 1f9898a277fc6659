"""The JVM class archive (``jobs.runtime.class_archive``): what names it, when the session uses
it, and how ``make setup`` builds it. No JVM: the training run is a stand-in that writes the file
a JVM would (``tests/e2e/test_class_archive.py`` starts real ones).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml

from jobs.runtime.class_archive import (
    ARCHIVE_ENV,
    QUIET,
    archive_key,
    archive_path,
    build,
    java_options,
)
from jobs.runtime.spark_jars import spark_jars_dir
from jobs.runtime.spark_session import LocalSparkSettings, local_options


def _world(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A ``java`` under a JAVA_HOME and a folder of two jars."""
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("#!/bin/sh\n")
    jars = tmp_path / "jars"
    jars.mkdir()
    for name in ("spark-core_2.13-4.2.0.jar", "spark-sql_2.13-4.2.0.jar"):
        (jars / name).write_bytes(b"PK")
    return {"JAVA_HOME": str(tmp_path / "jdk"), "PATH": ""}, jars


def test_the_key_changes_with_the_java_the_jars_and_the_class_path_variables(
    tmp_path: Path,
) -> None:
    environ, jars = _world(tmp_path)
    key = archive_key(environ, jars)
    assert key is not None and len(key) == 16
    assert archive_key(dict(environ), jars) == key
    assert archive_key({**environ, "SPARK_CONF_DIR": "/etc/spark"}, jars) != key
    (jars / "delta-spark_2.13-4.4.0.jar").write_bytes(b"PK")
    assert archive_key(environ, jars) != key
    other = tmp_path / "other" / "bin" / "java"
    other.parent.mkdir(parents=True)
    other.write_text("#!/bin/sh\n")
    assert archive_key({**environ, "JAVA_HOME": str(tmp_path / "other")}, jars) not in (key, None)


def test_no_java_or_no_jars_no_key(tmp_path: Path) -> None:
    environ, jars = _world(tmp_path)
    assert archive_key({"JAVA_HOME": str(tmp_path / "missing"), "PATH": ""}, jars) is None
    assert archive_key(environ, None) is None
    assert archive_path(tmp_path, environ, None) is None


def test_the_driver_starts_from_the_archive_only_when_there_is_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(ARCHIVE_ENV, str(tmp_path))
    path = archive_path(tmp_path, os.environ, spark_jars_dir())
    if path is None:
        pytest.fail("this machine has a java and pyspark's jars: the key must exist")
    assert java_options() == ""
    assert (
        "SharedArchiveFile"
        not in local_options(LocalSparkSettings())["spark.driver.extraJavaOptions"]
    )
    path.write_bytes(b"archive")
    assert java_options() == f"-XX:SharedArchiveFile={path} {QUIET}"
    options = local_options(LocalSparkSettings())
    assert options["spark.driver.extraJavaOptions"].endswith(java_options())
    assert "SharedArchiveFile" not in options["spark.executor.extraJavaOptions"]


def test_configured_jvm_options_come_after_the_sessions_own() -> None:
    mine = "-Xlog:class+load=info"
    options = local_options(
        LocalSparkSettings(extra_conf={"spark.driver.extraJavaOptions": mine, "x.y": "z"})
    )
    driver = options["spark.driver.extraJavaOptions"].split()
    assert driver[0] == "-Duser.timezone=UTC" and driver[-1] == mine
    assert options["spark.executor.extraJavaOptions"].split()[-1] != mine
    assert options["x.y"] == "z"


def _demo(tmp_path: Path) -> Path:
    demo = tmp_path / "demo"
    (demo / "logs").mkdir(parents=True, exist_ok=True)
    return demo


def test_the_training_run_is_the_demo_whose_jvm_writes_the_archive(tmp_path: Path) -> None:
    commands: list[list[str]] = []

    def jvm(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
        commands.append(list(command))
        conf = yaml.safe_load(Path(command[command.index("--conf") + 1]).read_text())
        options = conf["spark"]["conf"]["spark.driver.extraJavaOptions"]
        assert conf["clusters"][0]["inputs"]["logs"] == [str(tmp_path / "demo" / "logs")]
        assert conf["engine"] == "delta-rs"
        Path(options.removeprefix("-XX:ArchiveClassesAtExit=")).write_bytes(b"classes")
        return subprocess.CompletedProcess(command, 0, "", "")

    folder = tmp_path / "archives"
    path = build(folder, _demo(tmp_path), jvm)
    assert path == archive_path(folder, os.environ, spark_jars_dir())
    assert path.read_bytes() == b"classes"
    assert [p.name for p in folder.iterdir()] == [path.name]
    assert commands[0][-1] == "run"
    assert build(folder, _demo(tmp_path), jvm) == path
    assert len(commands) == 1, "an archive that is there is not built again"


def test_a_failed_training_run_leaves_nothing(tmp_path: Path) -> None:
    def failing(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
        conf = yaml.safe_load(Path(command[command.index("--conf") + 1]).read_text())
        options = conf["spark"]["conf"]["spark.driver.extraJavaOptions"]
        Path(options.removeprefix("-XX:ArchiveClassesAtExit=")).write_bytes(b"half")
        return subprocess.CompletedProcess(command, 2, "", "kafkactl-audit: error: boom\n")

    folder = tmp_path / "archives"
    with pytest.raises(RuntimeError, match=r"exit 2.*boom"):
        build(folder, _demo(tmp_path), failing)
    assert list(folder.iterdir()) == []
    with pytest.raises(RuntimeError, match="demo's inputs"):
        build(folder, tmp_path / "nowhere", failing)
