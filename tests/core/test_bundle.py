"""The Databricks Asset Bundle names only entry points and parameters the wheel really has."""

from __future__ import annotations

import posixpath
import re
import shlex
import tomllib
from importlib import metadata
from typing import Any

import pytest
import yaml

from jobs.cli import build_parser
from jobs.runtime.config import AppConfig
from jobs.stages.registry import STAGES
from tests.conftest import REPO

_VARIABLE = re.compile(r"\$\{var\.([a-z_]+)\}")


def _load(name: str) -> dict[str, Any]:
    return yaml.safe_load((REPO / name).read_text())


def _jobs() -> list[dict[str, Any]]:
    bundle = _load("databricks.yml")
    assert bundle["include"] == ["resources/*.yml"]
    jobs = []
    for path in sorted((REPO / "resources").glob("*.yml")):
        jobs.extend(yaml.safe_load(path.read_text())["resources"]["jobs"].values())
    return jobs


def _tasks() -> list[dict[str, Any]]:
    return [task for job in _jobs() for task in job["tasks"]]


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
    assert [t["task_key"] for t in tasks] == [
        "ingest_logs",
        "ingest_zk",
        "ingest_kraft",
        "replay",
        "report",
    ]
    keys = {t["task_key"] for t in tasks}
    assert [job["max_concurrent_runs"] for job in _jobs()] == [1]
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
        # the parallel ingest tasks of one job run take the cluster's lease in turn
        assert args.wait > 0
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


def test_every_variable_a_resource_names_is_declared() -> None:
    declared = set(_load("databricks.yml")["variables"])
    used = {
        name
        for path in (REPO / "resources").glob("*.yml")
        for name in _VARIABLE.findall(path.read_text())
    }
    assert used and used <= declared, sorted(used - declared)


def test_tasks_chain_in_stage_order() -> None:
    needs = {t["task_key"]: {d["task_key"] for d in t.get("depends_on", [])} for t in _tasks()}
    assert needs == {
        "ingest_logs": set(),
        "ingest_zk": set(),
        "ingest_kraft": set(),
        "replay": {"ingest_logs", "ingest_zk", "ingest_kraft"},
        "report": {"replay"},
    }
    order = [stage.name.replace("-", "_") for stage in STAGES]
    assert sorted(needs) == sorted(order)
    for task, dependencies in needs.items():
        assert all(order.index(d) < order.index(task) for d in dependencies), task


def test_tasks_install_the_wheel_the_bundle_builds_on_a_declared_cluster() -> None:
    bundle = _load("databricks.yml")
    artifact = bundle["artifacts"]["kafkactl_audit_wheel"]
    assert artifact["type"] == "whl" and (REPO / artifact["path"] / "pyproject.toml").exists()
    build = shlex.split(artifact["build"])
    out_dir = build[build.index("-w") + 1]
    for job in _jobs():
        clusters = {c["job_cluster_key"] for c in job["job_clusters"]}
        for task in job["tasks"]:
            assert task["job_cluster_key"] in clusters
            for library in task["libraries"]:
                # Library paths are relative to the file that names them (resources/).
                whl = posixpath.normpath(posixpath.join("resources", library["whl"]))
                assert whl == posixpath.join(out_dir, "*.whl")


def test_the_configuration_the_bundle_passes_is_synced_with_it() -> None:
    default = _load("databricks.yml")["variables"]["conf"]["default"]
    prefix = "${workspace.file_path}/"
    assert default.startswith(prefix)
    assert (REPO / default.removeprefix(prefix)).is_file()
