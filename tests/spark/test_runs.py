"""meta.runs records every stage run, succeeded or failed, with its one-line reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from py4j.protocol import Py4JJavaError
from pyspark.errors import PythonException
from pyspark.sql import SparkSession

from jobs.cli import main
from jobs.lakehouse.deltars import DeltaRsLakehouse
from jobs.lakehouse.ingested_files import digest_file, record_ingested
from jobs.runtime.config import AppConfig, ClusterConfig, LakehouseConfig
from jobs.runtime.context import JobContext
from jobs.stages.registry import Stage
from jobs.stages.runner import one_line, run_stage
from schemas.meta import RUNS

pytestmark = pytest.mark.spark
SUCCEEDS = Stage("succeeds", "tests.fixtures.stages.succeeds", "test stage")
FAILS = Stage("fails", "tests.fixtures.stages.fails", "test stage")


def test_runs_record_success_and_failure(spark: SparkSession, tmp_path: Path) -> None:
    config = AppConfig(lakehouse=LakehouseConfig(path=str(tmp_path / "lh")))
    ctx = JobContext(config=config, spark_factory=lambda _c: spark)
    cluster = ClusterConfig(name="c1")
    report = run_stage(ctx, SUCCEEDS, cluster)
    assert report.rows_written == {"silver.x": 7}
    with pytest.raises(RuntimeError, match="disk full"):
        run_stage(ctx, FAILS, cluster)
    rows = {r.stage: r for r in ctx.lakehouse.read(RUNS).collect()}
    assert rows["succeeds"].status == "succeeded"
    assert rows["succeeds"].rows_written == {"silver.x": 7}
    assert rows["succeeds"].notes == ["2 files skipped"]
    assert rows["fails"].status == "failed"
    assert rows["fails"].error == "RuntimeError: disk full"
    assert {r.run_id for r in rows.values()} == {ctx.run_id}
    assert all(r.started_at <= r.ended_at for r in rows.values())


def test_one_line() -> None:
    assert one_line(ValueError("a\nb")) == "ValueError: a"
    assert one_line(KeyError()) == "KeyError"


def test_one_line_of_a_python_worker_failure_is_what_the_worker_raised() -> None:
    worker = PythonException(
        "An exception was thrown from the Python worker:\n"
        "Traceback (most recent call last):\n"
        '  File "/x/worker.py", line 3, in main\n'
        '    raise ValueError("not this one")\n'
        "ModuleNotFoundError: No module named 'jobs.logparse.reader'\n"
        " SQLSTATE: 38000"
    )
    assert (
        one_line(worker)
        == "PythonException: ModuleNotFoundError: No module named 'jobs.logparse.reader'"
    )
    without_traceback = PythonException("worker crashed\nsecond line")
    assert one_line(without_traceback) == "PythonException: worker crashed"


def test_a_failing_stage_exits_1_with_a_one_line_reason_recorded_in_runs(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A damaged lakehouse: meta.ingested_files' data file is garbage, so ingest-logs fails when
    # it looks up what was already ingested (Spark's error is many lines long).
    lakehouse_dir = tmp_path / "lh"
    lakehouse = DeltaRsLakehouse(spark, str(lakehouse_dir))
    log = tmp_path / "controller.log"
    log.write_text("[2024-03-05 08:00:00,000] INFO [Controller id=1] Starting up (kafka)\n")
    record_ingested(spark, lakehouse, "c1", [digest_file(log)], "logs", "run-0")
    (data,) = (lakehouse_dir / "meta" / "ingested_files").rglob("*.parquet")
    data.write_bytes(b"not parquet")
    conf = tmp_path / "conf.yaml"
    conf.write_text(f"version: 1\nlakehouse:\n  path: {lakehouse_dir}\n")

    code = main(["ingest-logs", "--conf", str(conf), "--cluster", "c1", str(log)])

    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("kafkactl-audit: error: ")]
    assert code == 1
    assert len(errors) == 1 and "Traceback" not in err, err
    (row,) = [r for r in lakehouse.read(RUNS).collect() if r.stage == "ingest-logs"]
    assert row.status == "failed" and row.cluster == "c1"
    assert errors[0] == f"kafkactl-audit: error: {row.error}"
    # The reason, not py4j's "An error occurred while calling o93.collectToPython".
    assert "is not a Parquet file" in row.error and "collectToPython" not in row.error


class _GoneJvmException:
    """py4j's handle on a JVM exception once the JVM has died: every call fails."""

    _target_id = "o8"

    def toString(self) -> str:
        raise ConnectionError("Answer from Java side is empty")


def test_one_line_of_a_py4j_error_when_the_jvm_is_gone() -> None:
    error = Py4JJavaError(
        "An error occurred while calling o7.collectToPython.\n", _GoneJvmException()
    )
    assert one_line(error) == "Py4JJavaError: An error occurred while calling o7.collectToPython."
