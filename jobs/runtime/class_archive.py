"""A class-data archive of Spark's JVM classes: the local session's JVM starts in less time.

A JVM started from a CDS archive (HotSpot's class-data sharing) maps the classes it lists
already parsed and verified instead of loading them from the jars: on this project's 2-core
machine a local session's start went from about 7.2 s to 4.4 s, and the demo's ``run`` from 35 s
to 31 s (README, "Performance"). ``make setup`` runs ``python -m jobs.runtime.class_archive``
once: it runs the demo's pipeline in a child process whose JVM writes, at its exit, every class
it loaded (``-XX:ArchiveClassesAtExit``). The local session builder then starts its JVM with
that archive (``-XX:SharedArchiveFile``) when one exists for the JVM and the Spark jars the
session will run with.

The archive is named by a digest of what it depends on (``archive_key``): the ``java`` Spark's
launcher runs (``$JAVA_HOME/bin/java``, else the one on the path), Spark's jars and the
variables that add to the driver's class path. Should a JVM find it does not match anyway, it
starts without it, and its warning is turned off: an archive only ever saves time. The folder is
``$KAFKACTL_AUDIT_CLASS_ARCHIVE`` when set, else ``<sys.prefix>/share/kafkactl-audit/class-archive``
(inside ``.venv`` for ``make setup``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from jobs.runtime.spark_jars import Runner, cache_folder, run_command, spark_jars_dir

__all__ = ["archive_key", "archive_path", "build", "java_options", "main"]

ARCHIVE_ENV = "KAFKACTL_AUDIT_CLASS_ARCHIVE"
SUFFIX = ".jsa"
CLASS_PATH_VARIABLES = ("SPARK_HOME", "SPARK_CONF_DIR", "SPARK_DIST_CLASSPATH", "HADOOP_CONF_DIR")
"""Variables Spark's launcher reads into the driver's class path (or its JVM's location)."""
QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"
"""A JVM that cannot use the archive says so on stderr; it starts as well without it."""
DEMO = Path(__file__).resolve().parents[2] / "samples" / "demo"
"""The training workload's inputs (a source checkout's demo)."""


def archive_dir() -> Path:
    """``$KAFKACTL_AUDIT_CLASS_ARCHIVE``, else ``<prefix>/share/kafkactl-audit/class-archive``."""
    return cache_folder(ARCHIVE_ENV, "class-archive")


def launcher_java(environ: Mapping[str, str]) -> str | None:
    """The ``java`` Spark's launcher runs: ``$JAVA_HOME/bin/java``, else the one on the path.

    Args:
        environ: the environment the session's JVM will start in.

    Returns:
        Its real path, or ``None`` when there is none.
    """
    home = environ.get("JAVA_HOME")
    found = f"{home}/bin/java" if home else shutil.which("java", path=environ.get("PATH"))
    return os.path.realpath(found) if found and os.path.isfile(found) else None


def archive_key(environ: Mapping[str, str], jars: Path | None) -> str | None:
    """A digest of what an archive depends on; ``None`` without a ``java`` or Spark's jars.

    Args:
        environ: the environment the session's JVM will start in.
        jars: the folder of Spark's jars (``spark_jars_dir``).

    Returns:
        16 hex digits.
    """
    java = launcher_java(environ)
    if java is None or jars is None:
        return None
    parts = [java, str(os.stat(java).st_mtime_ns)]
    parts += [f"{jar.name}:{jar.stat().st_size}" for jar in sorted(jars.glob("*.jar"))]
    parts += [f"{name}={environ.get(name, '')}" for name in CLASS_PATH_VARIABLES]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def archive_path(folder: Path, environ: Mapping[str, str], jars: Path | None) -> Path | None:
    """Where the archive for this JVM and these jars is (or goes) in ``folder``."""
    key = archive_key(environ, jars)
    return None if key is None else folder / f"{key}{SUFFIX}"


def java_options(folder: Path | None = None) -> str:
    """The driver JVM's options that start it from its archive; empty when there is none.

    Args:
        folder: the archives' folder (``archive_dir()`` by default).
    """
    path = archive_path(folder or archive_dir(), os.environ, spark_jars_dir())
    if path is None or not path.is_file():
        return ""
    return f"-XX:SharedArchiveFile={path} {QUIET}"


def training_conf(work: Path, dump: Path, demo: Path) -> dict[str, object]:
    """The configuration of the training run: the demo into ``work``, its JVM writing ``dump``."""
    return {
        "version": 1,
        "lakehouse": {"path": str(work / "lakehouse")},
        "engine": "delta-rs",
        "spark": {"conf": {"spark.driver.extraJavaOptions": f"-XX:ArchiveClassesAtExit={dump}"}},
        "clusters": [
            {
                "name": "demo",
                "kafka_version": "2.8",
                "timezone": "UTC",
                "inputs": {
                    "logs": [str(demo / "logs")],
                    "zookeeper": [str(demo / "zookeeper" / "version-2")],
                },
            }
        ],
    }


def build(folder: Path, demo: Path = DEMO, run: Runner = run_command) -> Path:
    """Write the archive for this JVM and Spark's jars into ``folder`` unless it is there.

    The demo's pipeline runs in a child process (``kafkactl-audit run``) whose JVM writes the
    archive at its exit; it is renamed into place once whole.

    Args:
        folder: the archives' folder.
        demo: the demo's inputs (``samples/demo``).
        run: runs a command (for tests).

    Returns:
        The archive.

    Raises:
        RuntimeError: no ``java`` or Spark's jars, no demo, or the training run failed.
    """
    path = archive_path(folder, os.environ, spark_jars_dir())
    if path is None:
        raise RuntimeError("no java or no Spark jars: nothing to archive")
    if path.is_file():
        return path
    if not (demo / "logs").is_dir():
        raise RuntimeError(f"the training run needs the demo's inputs at {demo}")
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="class-archive-") as scratch:
        work = Path(scratch)
        dump = folder / f".{path.name}.{os.getpid()}"
        conf = work / "training.yaml"
        conf.write_text(yaml.safe_dump(training_conf(work, dump, demo), sort_keys=False))
        done = run([sys.executable, "-m", "jobs.cli", "--conf", str(conf), "run"])
        if done.returncode != 0 or not dump.is_file():
            dump.unlink(missing_ok=True)
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise RuntimeError(f"the training run failed (exit {done.returncode}): {tail}")
        os.replace(dump, path)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m jobs.runtime.class_archive``: build the archive; one line either way.

    Returns:
        0: a session starts as well without an archive, only slower.
    """
    parser = argparse.ArgumentParser(
        prog="python -m jobs.runtime.class_archive", description=__doc__
    )
    parser.parse_args(argv)
    try:
        path = build(archive_dir())
    except RuntimeError as error:
        print(f"Spark's class archive not built ({error}); sessions start without it")
        return 0
    print(f"Spark's class archive: {path} ({path.stat().st_size // 2**20} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
