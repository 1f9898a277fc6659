"""The built wheel on a Spark standalone cluster: the driver in spark-submit, the tasks in
executors on two workers, all separate processes on 127.0.0.1 (issue 15).

* The cluster: PySpark's own launch classes, ``spark-class ...deploy.master.Master`` and two
  ``...deploy.worker.Worker`` of one core and 1 GiB each, each worker with its own
  ``SPARK_WORKER_DIR`` and scratch directory under tmp; free loopback ports, 256 MiB daemon
  heaps, no REST submission server (its fixed port 6066 would collide with another cluster).
  It is ready when the master's JSON (its web UI's ``/json/``) lists both workers ALIVE. Every
  daemon runs in a process group of its own; the module's teardown kills each group (the
  executors and Python workers a worker started are in it), passed or failed, and checks that no
  process of them is left.
* Driver and executors live in different environments, as on machines of their own: the
  workers, hence their executors and Python workers, run in America/New_York time, the driver
  in Pacific/Auckland time (UTC+13 in March: the demo's morning crosses its midnight), and no
  setting pins UTC (no ``spark.sql.session.timeZone``, no ``-Duser.timezone``): the session's
  zone is the driver's, as when a user submits from a laptop. Executors run in the workers'
  directories, not in the driver's working directory.
* The submit: ``spark-submit --master spark://127.0.0.1:P --jars <Delta's jars> --py-files
  <wheel> <jobs/run.py from the wheel> --engine E --lakehouse lakehouse-E``: the demo of the
  configuration packaged in the wheel, a relative lakehouse that only the driver can resolve,
  the other settings of the local session (few shuffle partitions, the JIT flag) for speed. The
  driver and the executors' Python workers run the throwaway interpreter of
  ``tests/e2e/submit.py``, which cannot import the checkout: the code comes from the wheel.
* The reference: one run the ``make run`` way (the console script, ``conf/local.yaml``, engine
  ``auto``, UTC-pinned local session), started with the module from the same working directory
  so that evidence paths agree. Both engines write the same gold tables
  (``tests/e2e/test_engines.py``), so one reference serves both.
* Checks, per engine: exit 0; the driver imported the project from the wheel; ``meta.runs`` has
  every stage succeeded; every gold table equals the reference's row for row (``run_id``
  aside), and so do the report files; the application had executors on each worker, and each
  that finished tasks (its stderr, the executor's own log raised to INFO for this) had
  fetched the wheel (as the ``.zip`` PySpark puts on the path).
* Both engines: ``delta-rs`` (tasks write Parquet files into the table directory, the driver
  commits them: the path where separate processes differ most) and ``delta-spark`` (Delta's
  writer; the executors get Delta's jars through ``--jars``). The module took 10.5 min on 2
  cores shared with other jobs (load 8): cluster and wheel 0.5, delta-rs 3.7 (the reference
  alongside), delta-spark 6.2 (its ingest writes are slow). Should the lane have to shrink,
  keep delta-rs (``-k delta-rs``): it has the most code crossing between the processes.
"""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from jobs.runtime.spark_jars import delta_jars
from jobs.stages.registry import STAGES
from tests.e2e.submit import (
    SPARK_BIN,
    assert_driver_imported_from_wheel,
    assert_every_stage_succeeded,
    assert_exited_0,
    assert_project_not_importable,
    assert_same_gold,
    build_wheel,
    clean_environment,
    cli_command,
    conf_args,
    demo_workdir,
    environment,
    extract_entry,
    import_probe,
    local_run_options,
    start,
    stop,
    throwaway_python,
    wait_all,
)
from tests.helpers import ENGINES, skip_without_delta_jars

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not all(stage.installed() for stage in STAGES),
        reason="a stage of the pipeline is not installed in this build",
    ),
]
WORKERS = 2
DRIVER_ZONE = "Pacific/Auckland"
WORKER_ZONE = "America/New_York"
RUN_TIMEOUT = 1800.0
READY_TIMEOUT = 300.0
# The executors' log: the wheel's configuration, plus the executor's own lines about its tasks.
EXECUTOR_LOG = """
logger.executor.name = org.apache.spark.executor.Executor
logger.executor.level = info
"""


@dataclass(frozen=True)
class Cluster:
    """A running standalone cluster.

    Attributes:
        url: the master's URL, ``spark://127.0.0.1:PORT``.
        web_ui: the master's web UI, whose ``/json/`` says the cluster's state.
        worker_dirs: each worker's ``SPARK_WORKER_DIR`` (``<app id>/<executor id>/`` inside).
    """

    url: str
    web_ui: str
    worker_dirs: tuple[Path, ...]

    def state(self) -> dict[str, Any]:
        """The master's JSON: workers, active and completed applications."""
        with urllib.request.urlopen(f"{self.web_ui}/json/", timeout=10) as response:
            state: dict[str, Any] = json.load(response)
        return state

    def app_ids(self) -> set[str]:
        """Every application the master has seen, running or completed."""
        state = self.state()
        return {app["id"] for app in state["activeapps"] + state["completedapps"]}


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _tail(logs: Path) -> str:
    text = logs.with_suffix(".err").read_text() + logs.with_suffix(".out").read_text()
    return "\n".join(text.splitlines()[-20:])


def _finished_tasks(executor: Path) -> int:
    """Tasks an executor's own log says it finished.

    A worker may hold more than one executor of an application: Spark replaces an executor
    whose heartbeats stopped. Spark 4.2.0's executor heartbeat thread can die of a race (a
    ``NullPointerException`` in ``PartitionKeyedAccumulator.isZero``, the cache's accumulator
    read while a task still deserializes it; a CI run met it), and 120 s later the driver
    kills that executor, the worker starts another, and the run goes on.
    """
    return (executor / "stderr").read_text().count("INFO Executor: Finished task")


def _wait_ready(cluster: Cluster, daemons: dict[str, subprocess.Popen[bytes]], logs: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        for name, process in daemons.items():
            assert process.poll() is None, f"{name} exited:\n{_tail(logs / name)}"
        state: dict[str, Any] = {}
        try:
            state = cluster.state()
            last = f"{state}"
        # A web UI still starting may refuse, drop the connection, or answer with a body that is
        # not the master's JSON yet (a CI run once got one unreadable from its first character).
        except (OSError, http.client.HTTPException, ValueError) as error:
            last = f"{type(error).__name__}: {error}"
        alive = [w for w in state.get("workers", []) if w["state"] == "ALIVE"]
        if state.get("status") == "ALIVE" and len(alive) == WORKERS:
            return
        assert time.monotonic() < deadline, (
            f"cluster not ready, the master's /json/ last said {last}\n{_tail(logs / 'master')}"
        )
        time.sleep(1)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The working directory of every run: no ``conf/``, no ``jobs/``, a ``samples`` link."""
    return demo_workdir(tmp_path_factory.mktemp("standalone") / "work")


@pytest.fixture(scope="module")
def reference(work: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Path]]:
    """The ``make run`` lakehouse, computed in the background; call to wait for it."""
    root = tmp_path_factory.mktemp("make-run")
    lakehouse, logs = root / "lakehouse", root / "cli"
    process = start(cli_command(lakehouse), logs, cwd=work, env=environment(Path(sys.executable)))

    def finished() -> Path:
        code = wait_all({"make run": process}, RUN_TIMEOUT)["make run"]
        assert_exited_0("make run", code, logs)
        return lakehouse

    try:
        yield finished
    finally:
        stop(process)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A master and two workers on 127.0.0.1, stopped (every process of theirs) at the end."""
    root = tmp_path_factory.mktemp("cluster")
    conf_dir = root / "conf"  # empty: nothing from a SPARK_CONF_DIR of this machine
    conf_dir.mkdir()
    port, ui, *worker_uis = _free_ports(2 + WORKERS)
    base = clean_environment()
    base.update(
        SPARK_HOME=str(SPARK_BIN.parent),
        SPARK_CONF_DIR=str(conf_dir),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_DAEMON_MEMORY="256m",
    )
    cluster = Cluster(
        url=f"spark://127.0.0.1:{port}",
        web_ui=f"http://127.0.0.1:{ui}",
        worker_dirs=tuple(root / f"worker-{i}" for i in range(WORKERS)),
    )
    spark_class = SPARK_BIN / "spark-class"
    daemons: dict[str, subprocess.Popen[bytes]] = {}
    try:
        daemons["master"] = start(
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
             "--port", port, "--webui-port", ui],
            root / "master",
            cwd=root,
            env={**base, "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false"},
        )  # fmt: skip
        for index, (directory, worker_ui) in enumerate(
            zip(cluster.worker_dirs, worker_uis, strict=True)
        ):
            (directory / "scratch").mkdir(parents=True)
            env = {
                **base,
                "SPARK_WORKER_DIR": str(directory),
                "SPARK_LOCAL_DIRS": str(directory / "scratch"),
                "TZ": WORKER_ZONE,  # inherited by its executors and their Python workers
            }
            daemons[f"worker-{index}"] = start(
                [spark_class, "org.apache.spark.deploy.worker.Worker", cluster.url,
                 "--host", "127.0.0.1", "--cores", "1", "--memory", "1g",
                 "--webui-port", worker_ui],
                root / f"worker-{index}",
                cwd=directory,
                env=env,
            )  # fmt: skip
        _wait_ready(cluster, daemons, root)
        yield cluster
    finally:
        for name in reversed(daemons):  # workers (and their executors) first, then the master
            stop(daemons[name])


@pytest.fixture(scope="module")
def submit_kit(work: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The wheel, its entry script and log configuration, the executors' log configuration,
    and the throwaway interpreter (checked unable to import the project from ``work``)."""
    root = tmp_path_factory.mktemp("kit")
    wheel = build_wheel(root / "dist")
    entry, log4j = extract_entry(wheel, root / "entry")
    executor_log4j = root / "executor-log4j2.properties"
    executor_log4j.write_text(log4j.read_text() + EXECUTOR_LOG)
    python = throwaway_python(root / "env")
    assert_project_not_importable(python, work)
    return {
        "wheel": wheel,
        "entry": entry,
        "log4j": log4j,
        "executor_log4j": executor_log4j,
        "python": python,
    }


def _submit_options(kit: dict[str, Path], engine: str) -> dict[str, str]:
    """The local session's settings without master, jars and everything pinning UTC."""
    options = local_run_options(kit["log4j"])
    for key in ("spark.master", "spark.jars", "spark.sql.session.timeZone"):
        options.pop(key, None)
    for key in ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"):
        options[key] = " ".join(o for o in options[key].split() if o != "-Duser.timezone=UTC")
    options["spark.executor.extraJavaOptions"] = options["spark.executor.extraJavaOptions"].replace(
        str(kit["log4j"]), str(kit["executor_log4j"])
    )
    options["spark.app.name"] = f"kafkactl-audit-standalone-{engine}"
    assert not any("UTC" in value for value in options.values()), options
    return options


@pytest.mark.parametrize("engine", ENGINES)
def test_the_wheel_on_a_standalone_cluster_writes_the_gold_tables_of_make_run(
    engine: str,
    reference: Callable[[], Path],
    cluster: Cluster,
    submit_kit: dict[str, Path],
    work: Path,
    tmp_path: Path,
) -> None:
    jars = [str(jar) for jar in delta_jars()]
    if engine == "delta-spark" and not jars:
        skip_without_delta_jars(
            "Delta's Spark jars are not installed "
            "(make setup: python -m jobs.runtime.spark_jars delta)"
        )
    kit = submit_kit
    before = cluster.app_ids()
    imports = tmp_path / "imports.jsonl"
    lakehouse = f"lakehouse-{engine}"  # relative: the driver's working directory resolves it
    command = [
        SPARK_BIN / "spark-submit",
        "--master",
        cluster.url,
        *(["--jars", ",".join(jars)] if jars else []),
        *conf_args(_submit_options(kit, engine)),
        "--py-files",
        kit["wheel"],
        kit["entry"],
        "--engine",
        engine,
        "--lakehouse",
        lakehouse,
    ]
    env = environment(kit["python"], TZ=DRIVER_ZONE, **import_probe(imports))
    logs = tmp_path / "submit"
    process = start(command, logs, cwd=work, env=env)
    code = wait_all({"spark-submit": process}, RUN_TIMEOUT)["spark-submit"]
    assert_exited_0("spark-submit", code, logs)

    assert_driver_imported_from_wheel(imports, kit["entry"], kit["wheel"])
    # The tasks ran in executors on both workers, each with the wheel on its Python path.
    (app,) = cluster.app_ids() - before
    for worker in cluster.worker_dirs:
        assert (worker / app).is_dir(), f"no executor of {app} on {worker}"
        worked = [e for e in sorted((worker / app).iterdir()) if e.is_dir() and _finished_tasks(e)]
        assert worked, f"no executor of {app} on {worker} finished a task"
        for executor in worked:
            assert (executor / kit["wheel"].with_suffix(".zip").name).is_file(), executor

    submitted = work / lakehouse
    assert_every_stage_succeeded(submitted)
    assert_same_gold(submitted, reference())
