"""The Databricks Asset Bundle names only entry points and parameters the wheel really has."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from typing import Any

import pytest
import yaml

from jobs.cli import build_parser
from jobs.config import AppConfig
from jobs.stages import STAGES
from tests.conftest import REPO

_VARIABLE = re.compile(r"\$\{var\.([a-z_]+)\}")


def _load(name: str) -> dict[str, Any]:
    return yaml.safe_load((REPO / name).read_text())


def _tasks() -> list[dict[str, Any]]:
    bundle = _load("databricks.yml")
    assert bundle["include"] == ["resources/*.yml"]
    tasks = []
    for path in sorted((REPO / "resources").glob("*.yml")):
        for job in yaml.safe_load(path.read_text())["resources"]["jobs"].values():
            tasks.extend(job["tasks"])
    return tasks


def _resolve(value: str, variables: dict[str, Any]) -> str:
    return _VARIABLE.sub(lambda m: str(variables[m.group(1)]["default"]), value)


def test_every_task_calls_a_console_script_of_the_wheel_with_parameters_that_parse() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    scripts = project["scripts"]
    installed = {
        ep.name: ep.value
        for ep in metadata.entry_points(group="console_scripts")
        if ep.dist is not None and ep.dist.name == project["name"]
    }
    variables = _load("databricks.yml")["variables"]
    tasks = _tasks()
    assert [t["task_key"] for t in tasks] == ["ingest_logs", "ingest_zk", "replay", "report"]
    keys = {t["task_key"] for t in tasks}
    parser = build_parser()
    for task in tasks:
        wheel_task = task["python_wheel_task"]
        assert wheel_task["package_name"] == project["name"].replace("-", "_")
        assert wheel_task["entry_point"] in scripts
        assert installed[wheel_task["entry_point"]] == scripts[wheel_task["entry_point"]]
        parameters = [_resolve(p, variables) for p in wheel_task["parameters"]]
        args = parser.parse_args(parameters)
        assert args.command == task["task_key"].replace("_", "-")
        assert args.command in {stage.name for stage in STAGES}
        assert args.catalog and args.schema and args.conf
        for dependency in task.get("depends_on", []):
            assert dependency["task_key"] in keys
        assert task["libraries"] == [{"whl": "../dist/*.whl"}]


def test_targets_and_variables() -> None:
    bundle = _load("databricks.yml")
    assert bundle["targets"]["dev"]["mode"] == "development"
    assert bundle["targets"]["prod"]["mode"] == "production"
    assert {"catalog", "schema", "cluster", "conf"} <= set(bundle["variables"])
    assert "pip wheel" in bundle["artifacts"]["kafkactl_audit_wheel"]["build"]


def test_the_databricks_configuration_is_valid() -> None:
    config = AppConfig.model_validate(_load("conf/databricks.yaml"))
    assert config.lakehouse.catalog and config.lakehouse.schema_name
    assert config.engine == "delta-spark"
    variables = _load("databricks.yml")["variables"]
    assert config.cluster(variables["cluster"]["default"]).name == "prod"


@pytest.mark.parametrize("stage", [s.name for s in STAGES])
def test_every_stage_has_a_spark_submit_module(stage: str) -> None:
    assert (REPO / "jobs" / f"{stage.replace('-', '_')}.py").exists() or not next(
        s for s in STAGES if s.name == stage
    ).installed()
