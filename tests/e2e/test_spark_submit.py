"""The built wheel, not the source tree, through ``spark-submit`` in local mode: the same gold
tables as ``make run`` (issue 8's acceptance).

* The wheel is built like ``make build`` (``pip wheel --no-deps``) into a temporary directory.
* spark-submit's driver and Python workers run the throwaway interpreter of
  ``tests/e2e/submit.py``, which sees the dependencies (pyspark, deltalake, pydantic, ...) but
  not the editable checkout. The test first proves that this interpreter cannot import
  ``kafkactl_core``, ``schemas`` or ``jobs.cli`` from the working directory of the run.
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
import sys
import zipfile
from pathlib import Path

import pytest

from jobs.stages.registry import STAGES
from tests.core.test_bundle import _load, _resolve, _tasks
from tests.e2e.submit import (
    SPARK_BIN,
    assert_driver_imported_from_wheel,
    assert_every_stage_succeeded,
    assert_exited_0,
    assert_project_not_importable,
    assert_same_gold,
    build_wheel,
    cli_command,
    conf_args,
    demo_workdir,
    environment,
    extract_entry,
    import_probe,
    local_run_options,
    run,
    start,
    throwaway_python,
    wait_all,
)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not all(stage.installed() for stage in STAGES),
        reason="a stage of the pipeline is not installed in this build",
    ),
]


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


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built like ``make build``."""
    return build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def isolated_python(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The throwaway interpreter and an empty working directory where it cannot import the
    project (checked here)."""
    python = throwaway_python(tmp_path_factory.mktemp("env"))
    cwd = tmp_path_factory.mktemp("cwd")
    assert_project_not_importable(python, cwd)
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
    env = environment(python, PYTHONPATH=str(wheel))
    checked = json.loads(
        run([python, "-c", ENTRY_POINT_CHECK, json.dumps(calls)], cwd=cwd, env=env).stdout
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
    env = environment(python, PYTHONPATH=str(wheel))
    files = run([python, "-c", check, *modules], cwd=cwd, env=env).stdout.split()
    assert [Path(f).relative_to(wheel).as_posix() for f in files] == scripts


def test_the_wheel_under_spark_submit_writes_the_gold_tables_of_make_run(
    wheel: Path, isolated_python: tuple[Path, Path], tmp_path: Path
) -> None:
    python, _ = isolated_python
    entry, log4j = extract_entry(wheel, tmp_path / "entry")
    work = demo_workdir(tmp_path / "work")  # the working directory of both runs
    assert_project_not_importable(python, work)

    imports = tmp_path / "imports.jsonl"
    options = local_run_options(log4j)
    submit_cmd = [
        SPARK_BIN / "spark-submit",
        "--master",
        options.pop("spark.master"),
        *conf_args(options),
        "--py-files",
        wheel,
        entry,
    ]
    cli_lakehouse = tmp_path / "make-run-lakehouse"
    logs = {name: tmp_path / name for name in ("submit", "cli")}
    processes = {
        "submit": start(
            submit_cmd, logs["submit"], cwd=work, env=environment(python, **import_probe(imports))
        ),
        "cli": start(
            cli_command(cli_lakehouse),
            logs["cli"],
            cwd=work,
            env=environment(Path(sys.executable)),
        ),
    }
    codes = wait_all(processes, timeout=1800)
    for name, code in codes.items():
        assert_exited_0(name, code, logs[name])

    assert_driver_imported_from_wheel(imports, entry, wheel)
    submit_lakehouse = work / "lakehouse"  # the packaged configuration's relative path
    assert_every_stage_succeeded(submit_lakehouse)
    assert_same_gold(submit_lakehouse, cli_lakehouse)
