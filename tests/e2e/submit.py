"""What the spark-submit tests share: the wheel, an interpreter that cannot see the checkout,
the processes they start, and the comparison of their lakehouses with a ``make run`` lakehouse.

* ``build_wheel`` builds the wheel like ``make build`` (``pip wheel --no-deps``).
* ``throwaway_python`` makes an interpreter (``venv --without-pip``) whose only addition is a
  ``.pth`` line naming .venv's site-packages: the dependencies (pyspark, deltalake, pydantic,
  ...) are importable, but ``.pth`` files inside that directory are not processed, so the
  editable install's path to the checkout is not on ``sys.path``. Its ``sitecustomize`` records,
  when an interpreter exits, where ``__main__`` and the project's packages were imported from.
* ``start``/``wait_all`` run commands in process groups of their own, logging to files, and kill
  what is still running when the wait ends, also on failure.
* ``assert_same_gold`` and friends compare a lakehouse with the one ``make run`` wrote.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import sysconfig
import time
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyspark
from deltalake import DeltaTable

from jobs.runtime.config import load_config
from jobs.runtime.spark_session import LocalSparkSettings, local_options
from jobs.stages.registry import STAGES
from schemas.registry import ALL_TABLES
from tests.conftest import REPO

GOLD = [spec for spec in ALL_TABLES if spec.layer == "gold"]
PROBE_MODULES = ("jobs", "jobs.cli", "kafkactl_core", "schemas")
SPARK_BIN = Path(pyspark.__file__).parent / "bin"
"""PySpark's launch scripts: ``spark-submit``, ``spark-class``."""
CLI = Path(sys.executable).parent / "kafkactl-audit"
"""The console script of .venv: the ``make run`` way."""
# Written into the throwaway interpreter: on exit, where the project's modules came from.
SITECUSTOMIZE = """
import atexit, json, os, sys

_OUT = os.environ.get("KAFKACTL_AUDIT_IMPORTS")


def _record():
    names = ("__main__",) + tuple(os.environ["KAFKACTL_AUDIT_PROBE"].split(","))
    found = {n: getattr(sys.modules.get(n), "__file__", None) for n in names}
    with open(_OUT, "a", encoding="utf-8") as out:
        out.write(json.dumps({"pid": os.getpid(), "modules": found}) + "\\n")


if _OUT:
    atexit.register(_record)
"""


def run(argv: list[Any], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` (items made strings) to completion; raise when it fails."""
    return subprocess.run(
        [str(a) for a in argv], check=True, capture_output=True, text=True, **kwargs
    )


def build_wheel(dist: Path) -> Path:
    """The wheel, built like ``make build`` into ``dist``, with the packages and default config."""
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", dist, REPO])
    (wheel,) = dist.glob("kafkactl_audit-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for package in ("kafkactl_core", "schemas", "jobs"):
        assert f"{package}/__init__.py" in names
    assert "jobs/conf/local.yaml" in names and "jobs/run.py" in names
    return wheel


def extract_entry(wheel: Path, directory: Path) -> tuple[Path, Path]:
    """``jobs/run.py`` and ``jobs/log4j2.properties`` of the wheel, extracted into ``directory``."""
    with zipfile.ZipFile(wheel) as archive:
        archive.extract("jobs/run.py", directory)
        archive.extract("jobs/log4j2.properties", directory)
    return directory / "jobs" / "run.py", directory / "jobs" / "log4j2.properties"


def throwaway_python(root: Path) -> Path:
    """An interpreter that sees .venv's installed packages but not the editable checkout."""
    run([sys.executable, "-m", "venv", "--without-pip", root])
    python = root / "bin" / "python"
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = Path(run([python, "-c", where]).stdout.strip())
    (purelib / "kafkactl_audit_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (purelib / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return python


def clean_environment() -> dict[str, str]:
    """This process's environment without Python, PySpark, Spark or kafkactl-audit settings."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYSPARK_", "PYTHON", "SPARK_", "KAFKACTL_")) and k != "VIRTUAL_ENV"
    }


def environment(python: Path, **extra: str) -> dict[str, str]:
    """``clean_environment()`` with ``python`` as PySpark's driver and worker interpreter, plus
    ``extra``."""
    env = clean_environment()
    env.update(PYSPARK_PYTHON=str(python), PYSPARK_DRIVER_PYTHON=str(python), **extra)
    return env


def import_probe(imports: Path) -> dict[str, str]:
    """Environment variables making the throwaway interpreter record its imports in ``imports``."""
    return {"KAFKACTL_AUDIT_IMPORTS": str(imports), "KAFKACTL_AUDIT_PROBE": ",".join(PROBE_MODULES)}


def assert_project_not_importable(python: Path, cwd: Path) -> None:
    """Assert that ``python``, started in ``cwd``, finds none of the project's packages."""
    probe = (
        "import importlib.util, sys; "
        f"sys.exit(any(importlib.util.find_spec(m) for m in {PROBE_MODULES[1:]!r}))"
    )
    found = subprocess.run(
        [python, "-c", probe], cwd=cwd, env=environment(python), capture_output=True, text=True
    )
    assert found.returncode == 0, f"the project is importable: {found.stdout}{found.stderr}"


def demo_workdir(path: Path) -> Path:
    """An empty working directory (no ``conf/``, no ``jobs/``) whose ``samples`` link reaches the
    demo the packaged configuration names by relative paths."""
    path.mkdir()
    (path / "samples").symlink_to(REPO / "samples", target_is_directory=True)
    return path


def local_run_options(log4j: Path) -> dict[str, str]:
    """The Spark settings of the CLI's local session for conf/local.yaml (``local_options``),
    with ``log4j`` as the JVMs' log configuration instead of the checkout's."""
    spark = load_config(REPO / "conf" / "local.yaml").spark
    options = local_options(
        LocalSparkSettings(
            master=spark.master,
            shuffle_partitions=spark.shuffle_partitions,
            driver_memory=spark.driver_memory,
            extra_conf=dict(spark.conf),
        )
    )
    source_log4j = str(REPO / "jobs" / "log4j2.properties")
    return {key: value.replace(source_log4j, str(log4j)) for key, value in options.items()}


def conf_args(options: Mapping[str, str]) -> list[str]:
    """spark-submit's ``--conf key=value`` arguments for ``options``."""
    args: list[str] = []
    for key, value in options.items():
        args += ["--conf", f"{key}={value}"]
    return args


def cli_command(lakehouse: Path, *options: str) -> list[Any]:
    """``kafkactl-audit --conf conf/local.yaml --lakehouse LAKEHOUSE OPTIONS run``: make run."""
    return [CLI, "--conf", REPO / "conf" / "local.yaml", "--lakehouse", lakehouse, *options, "run"]


def start(
    cmd: list[Any], logs: Path, *, cwd: Path, env: Mapping[str, str]
) -> subprocess.Popen[bytes]:
    """Start ``cmd`` in a process group of its own, stdout and stderr to ``logs``.out/.err."""
    with logs.with_suffix(".out").open("w") as stdout, logs.with_suffix(".err").open("w") as err:
        return subprocess.Popen(
            [str(a) for a in cmd],
            cwd=cwd,
            env=dict(env),
            stdout=stdout,
            stderr=err,
            start_new_session=True,  # its own process group: the JVM and its children go with it
        )


def stop(process: subprocess.Popen[bytes], grace: float = 20.0) -> None:
    """Stop ``process`` and every process of its group: SIGTERM, SIGKILL after ``grace`` seconds.

    Raises:
        AssertionError: a process of the group still exists ``grace`` seconds after SIGKILL.
    """
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sent)
        except ProcessLookupError:
            break
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
    process.wait()
    deadline = time.monotonic() + grace
    while group_alive(process.pid):
        assert time.monotonic() < deadline, f"process group {process.pid} survived SIGKILL"
        time.sleep(0.2)


def group_alive(pgid: int) -> bool:
    """Whether any process of process group ``pgid`` exists."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_all(processes: Mapping[str, subprocess.Popen[bytes]], timeout: float) -> dict[str, int]:
    """Wait for every process; the exit codes by name. Kills what still runs when it ends."""
    codes: dict[str, int] = {}
    try:
        for name, process in processes.items():
            codes[name] = process.wait(timeout=timeout)
    finally:
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    return codes


def assert_exited_0(name: str, code: int, logs: Path) -> None:
    """Assert an exit code of 0, else show the output and the end of the error log."""
    # spark-submit writes the Python driver's stderr (our one-line error) to its stdout.
    tail = "\n".join(logs.with_suffix(".err").read_text().splitlines()[-30:])
    assert code == 0, f"{name} exited with {code}:\n{logs.with_suffix('.out').read_text()}\n{tail}"


def assert_driver_imported_from_wheel(imports: Path, entry: Path, wheel: Path) -> None:
    """Assert that the driver (the interpreter whose ``__main__`` was ``entry``) imported the
    project's packages from ``wheel``."""
    # One record per interpreter that exited normally: the driver, maybe PySpark's daemon.
    records = [json.loads(line)["modules"] for line in imports.read_text().splitlines()]
    (driver,) = [r for r in records if r["__main__"] == str(entry)]
    del driver["__main__"]
    for module, origin in driver.items():
        assert origin is not None and Path(origin).is_relative_to(wheel), (module, origin)


def rows(table: Path) -> list[str]:
    """The table's rows without ``run_id``, each as its repr, sorted: a multiset to compare."""
    found = DeltaTable(str(table)).to_pyarrow_table().to_pylist()
    return sorted(repr(sorted((k, v) for k, v in row.items() if k != "run_id")) for row in found)


def report_files(lakehouse: Path) -> dict[str, bytes]:
    """The demo's report files (name to bytes) in ``lakehouse``."""
    (day,) = (lakehouse / "reports" / "demo").iterdir()  # named by the run's UTC date
    return {p.name: p.read_bytes() for p in sorted(day.iterdir()) if p.is_file()}


def assert_every_stage_succeeded(lakehouse: Path) -> None:
    """Assert that ``meta.runs`` has one succeeded run of every stage for every cluster of the
    packaged configuration (``conf/local.yaml``)."""
    runs = DeltaTable(str(lakehouse / "meta" / "runs")).to_pyarrow_table().to_pylist()
    clusters = [c.name for c in load_config(REPO / "conf" / "local.yaml").clusters]
    assert sorted((r["cluster"], r["stage"], r["status"]) for r in runs) == sorted(
        (cluster, stage.name, "succeeded") for cluster in clusters for stage in STAGES
    )


def assert_same_gold(lakehouse: Path, reference: Path) -> None:
    """Assert that every gold table of ``lakehouse`` equals ``reference``'s row for row
    (``run_id`` aside), the report files too, and that the demo's gold is not empty."""
    for spec in GOLD:
        location = Path(spec.layer) / spec.name
        assert rows(lakehouse / location) == rows(reference / location), spec.qualified_name
    # Not equal by being empty: the demo has elections, one unclean, and imbalance checks; the
    # KRaft demo one unclean election.
    counts = {spec.name: len(rows(reference / spec.layer / spec.name)) for spec in GOLD}
    assert counts["elections"] > 0 and counts["leader_imbalance"] > 0
    unclean = DeltaTable(str(reference / "gold" / "unclean_elections")).to_pyarrow_table()
    assert sorted(unclean.column("cluster").to_pylist()) == ["demo", "kraft-demo"]
    assert report_files(lakehouse) == report_files(reference)
