"""The built wheel, not the source tree, through ``spark-submit`` in local mode: the same gold
tables as ``make run`` (issue 8's acceptance).

* The wheel is built like ``make build`` (``pip wheel --no-deps``) into a temporary directory.
* spark-submit's driver and Python workers run a throwaway interpreter (``venv --without-pip``)
  whose only addition is a ``.pth`` line naming .venv's site-packages: the dependencies
  (pyspark, deltalake, pydantic, ...) are importable, but ``.pth`` files inside that directory
  are not processed, so the editable install's path to the checkout is not on ``sys.path``. The
  test first proves that this interpreter cannot import ``kafkactl_core``, ``schemas`` or
  ``jobs.cli`` from the working directory of the run.
* The entry script is ``jobs/run.py`` extracted from the wheel, the code comes from
  ``--py-files <wheel>``, and no ``--conf`` is given: the configuration packaged in the wheel
  is used (the working directory has no ``conf/``), its relative input paths reaching the demo
  through a ``samples`` link. A ``sitecustomize`` of the throwaway interpreter records, when the
  driver exits, where ``__main__``, ``jobs``, ``jobs.cli``, ``kafkactl_core`` and ``schemas``
  were imported from: all inside the wheel.
* Beside it the same pipeline runs the ``make run`` way (the console script of .venv, with
  ``conf/local.yaml``) into another lakehouse, from the same working directory so that input
  paths are the same, with the same Spark settings (``local_options`` of that configuration).
* Every gold table of the catalog is equal row for row in both lakehouses (``run_id`` aside), as
  are the report files; ``meta.runs`` of the spark-submit run has every stage succeeded.

Both runs start at once (each is a few minutes of a whole demo run). Two quick tests use the same
wheel and throwaway interpreter: every console script the Databricks bundle names loads from the
wheel's own metadata and parses each task's parameters; every stage has its spark-submit script
(``jobs/<stage>.py`` with ``main`` and a ``__main__`` guard) in the wheel.
"""

from __future__ import annotations

import configparser
import json
import os
import signal
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from typing import Any

import pyspark
import pytest
from deltalake import DeltaTable

from jobs._runtime import LocalSparkSettings, local_options
from jobs.config import load_config
from jobs.stages import STAGES
from schemas.registry import ALL_TABLES
from tests.conftest import REPO
from tests.core.test_bundle import _load, _resolve, _tasks

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not all(stage.installed() for stage in STAGES),
        reason="a stage of the pipeline is not installed in this build",
    ),
]
GOLD = [spec for spec in ALL_TABLES if spec.layer == "gold"]
PROBE_MODULES = ("jobs", "jobs.cli", "kafkactl_core", "schemas")
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


# Run by the throwaway interpreter with the wheel on PYTHONPATH: import each entry point's
# target and parse each parameter list with the CLI's parser; print where the code came from.
ENTRY_POINT_CHECK = """
import importlib, json, sys

out = []
for target, parameters in json.loads(sys.argv[1]):
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    assert callable(getattr(module, attribute)), target
    from jobs.cli import build_parser

    args = build_parser().parse_args(parameters)
    out.append({"file": module.__file__, "command": args.command, "conf": args.conf})
print(json.dumps(out))
"""


def _run(argv: list[Any], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv], check=True, capture_output=True, text=True, **kwargs
    )


def _build_wheel(dist: Path) -> Path:
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", dist, REPO])
    (wheel,) = dist.glob("kafkactl_audit-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for package in ("kafkactl_core", "schemas", "jobs"):
        assert f"{package}/__init__.py" in names
    assert "jobs/conf/local.yaml" in names and "jobs/run.py" in names
    return wheel


def _throwaway_python(root: Path) -> Path:
    """An interpreter that sees .venv's installed packages but not the editable checkout."""
    _run([sys.executable, "-m", "venv", "--without-pip", root])
    python = root / "bin" / "python"
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = Path(_run([python, "-c", where]).stdout.strip())
    (purelib / "kafkactl_audit_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (purelib / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return python


def _assert_project_not_importable(python: Path, cwd: Path) -> None:
    probe = (
        "import importlib.util, sys; "
        f"sys.exit(any(importlib.util.find_spec(m) for m in {PROBE_MODULES[1:]!r}))"
    )
    found = subprocess.run(
        [python, "-c", probe], cwd=cwd, env=_environment(python), capture_output=True, text=True
    )
    assert found.returncode == 0, f"the project is importable: {found.stdout}{found.stderr}"


def _spark_conf_args(log4j: Path) -> list[str]:
    """``--master`` and ``--conf`` arguments equal to the CLI's local session for conf/local.yaml,
    with the wheel's copy of the JVM's log configuration (``log4j``)."""
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
    args = ["--master", options.pop("spark.master")]
    for key, value in options.items():
        args += ["--conf", f"{key}={value.replace(source_log4j, str(log4j))}"]
    return args


def _environment(python: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYSPARK_", "PYTHON", "SPARK_", "KAFKACTL_")) and k != "VIRTUAL_ENV"
    }
    env.update(PYSPARK_PYTHON=str(python), PYSPARK_DRIVER_PYTHON=str(python), **extra)
    return env


def _rows(table: Path) -> list[str]:
    """The table's rows without ``run_id``, each as its repr, sorted: a multiset to compare."""
    rows = DeltaTable(str(table)).to_pyarrow_table().to_pylist()
    return sorted(repr(sorted((k, v) for k, v in row.items() if k != "run_id")) for row in rows)


def _report_files(lakehouse: Path) -> dict[str, bytes]:
    (day,) = (lakehouse / "reports" / "demo").iterdir()  # named by the run's UTC date
    return {p.name: p.read_bytes() for p in sorted(day.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built like ``make build``."""
    return _build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def isolated_python(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The throwaway interpreter and an empty working directory where it cannot import the
    project (checked here)."""
    python = _throwaway_python(tmp_path_factory.mktemp("env"))
    cwd = tmp_path_factory.mktemp("cwd")
    _assert_project_not_importable(python, cwd)
    return python, cwd


def test_the_bundle_entry_points_are_the_wheels_and_their_parameters_parse(
    wheel: Path, isolated_python: tuple[Path, Path]
) -> None:
    python, cwd = isolated_python
    with zipfile.ZipFile(wheel) as archive:
        (dist_info,) = {n.split("/")[0] for n in archive.namelist() if ".dist-info/" in n}
        entry_points = configparser.ConfigParser()
        entry_points.read_string(archive.read(f"{dist_info}/entry_points.txt").decode())
        metadata = archive.read(f"{dist_info}/METADATA").decode()
    (name,) = [
        line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Name:")
    ]
    scripts = dict(entry_points["console_scripts"])
    variables = _load("databricks.yml")["variables"]
    tasks = _tasks()
    calls = []
    for task in tasks:
        wheel_task = task["python_wheel_task"]
        assert wheel_task["package_name"] == name.replace("-", "_")
        calls.append(
            [
                scripts[wheel_task["entry_point"]],
                [_resolve(p, variables) for p in wheel_task["parameters"]],
            ]
        )
    env = _environment(python, PYTHONPATH=str(wheel))
    checked = json.loads(
        _run([python, "-c", ENTRY_POINT_CHECK, json.dumps(calls)], cwd=cwd, env=env).stdout
    )
    assert [c["command"] for c in checked] == [t["task_key"].replace("_", "-") for t in tasks]
    for call in checked:
        assert Path(call["file"]).is_relative_to(wheel), call
        assert call["conf"] == _resolve("${var.conf}", variables)


def test_every_stage_has_a_spark_submit_script_in_the_wheel(
    wheel: Path, isolated_python: tuple[Path, Path]
) -> None:
    python, cwd = isolated_python
    scripts = [f"jobs/{stage.name.replace('-', '_')}.py" for stage in STAGES]
    with zipfile.ZipFile(wheel) as archive:
        sources = {name: archive.read(name).decode() for name in scripts}
    for name, source in sources.items():
        assert 'if __name__ == "__main__":' in source, name
    # Each script's module, imported from the wheel, has main(argv) wrapping the CLI.
    check = (
        "import importlib, sys; "
        "mods = [importlib.import_module(m) for m in sys.argv[1:]]; "
        "assert all(callable(m.main) for m in mods); "
        "print('\\n'.join(m.__file__ for m in mods))"
    )
    modules = [name.removesuffix(".py").replace("/", ".") for name in scripts]
    env = _environment(python, PYTHONPATH=str(wheel))
    files = _run([python, "-c", check, *modules], cwd=cwd, env=env).stdout.split()
    assert [Path(f).relative_to(wheel).as_posix() for f in files] == scripts


def test_the_wheel_under_spark_submit_writes_the_gold_tables_of_make_run(
    wheel: Path, isolated_python: tuple[Path, Path], tmp_path: Path
) -> None:
    python, _ = isolated_python
    entry = tmp_path / "entry"
    with zipfile.ZipFile(wheel) as archive:
        archive.extract("jobs/run.py", entry)
        archive.extract("jobs/log4j2.properties", entry)
    work = tmp_path / "work"  # the working directory of both runs: no conf/, no jobs/
    work.mkdir()
    (work / "samples").symlink_to(REPO / "samples", target_is_directory=True)
    _assert_project_not_importable(python, work)

    imports = tmp_path / "imports.jsonl"
    submit_env = _environment(
        python,
        KAFKACTL_AUDIT_IMPORTS=str(imports),
        KAFKACTL_AUDIT_PROBE=",".join(PROBE_MODULES),
    )
    submit_cmd = [
        Path(pyspark.__file__).parent / "bin" / "spark-submit",
        *_spark_conf_args(entry / "jobs" / "log4j2.properties"),
        "--py-files",
        wheel,
        entry / "jobs" / "run.py",
    ]
    cli_lakehouse = tmp_path / "make-run-lakehouse"
    cli_cmd = [
        Path(sys.executable).parent / "kafkactl-audit",
        "--conf",
        REPO / "conf" / "local.yaml",
        "--lakehouse",
        cli_lakehouse,
        "run",
    ]
    logs = {
        name: (tmp_path / f"{name}.out", tmp_path / f"{name}.err") for name in ("submit", "cli")
    }
    processes = {}
    for name, cmd, env in (
        ("submit", submit_cmd, submit_env),
        ("cli", cli_cmd, _environment(Path(sys.executable))),
    ):
        out, err = logs[name]
        with out.open("w") as stdout, err.open("w") as stderr:
            processes[name] = subprocess.Popen(
                [str(a) for a in cmd],
                cwd=work,
                env=env,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,  # its own process group: the JVM goes with it
            )
    codes = {}
    try:
        for name, process in processes.items():
            codes[name] = process.wait(timeout=1800)
    finally:
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
    for name, code in codes.items():
        # spark-submit writes the Python driver's stderr (our one-line error) to its stdout.
        out, err = logs[name]
        tail = "\n".join(err.read_text().splitlines()[-30:])
        assert code == 0, f"{name} exited with {code}:\n{out.read_text()}\n{tail}"

    # One record per interpreter that exited normally: the driver, maybe PySpark's daemon.
    records = [json.loads(line)["modules"] for line in imports.read_text().splitlines()]
    (driver,) = [r for r in records if r["__main__"] == str(entry / "jobs" / "run.py")]
    del driver["__main__"]
    for module, origin in driver.items():
        assert origin is not None and Path(origin).is_relative_to(wheel), (module, origin)

    submit_lakehouse = work / "lakehouse"  # the packaged configuration's relative path
    runs = DeltaTable(str(submit_lakehouse / "meta" / "runs")).to_pyarrow_table().to_pylist()
    assert sorted((r["stage"], r["status"]) for r in runs) == sorted(
        (stage.name, "succeeded") for stage in STAGES
    )
    for spec in GOLD:
        location = Path(spec.layer) / spec.name
        expected = _rows(cli_lakehouse / location)
        assert _rows(submit_lakehouse / location) == expected, spec.qualified_name
    # Not equal by being empty: the demo has elections, one unclean, and imbalance checks.
    counts = {spec.name: len(_rows(cli_lakehouse / spec.layer / spec.name)) for spec in GOLD}
    assert counts["elections"] > 0 and counts["leader_imbalance"] > 0
    assert counts["unclean_elections"] == 1
    assert _report_files(submit_lakehouse) == _report_files(cli_lakehouse)
