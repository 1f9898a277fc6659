"""meta.runs records every stage run, succeeded or failed, with its one-line reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.config import AppConfig, ClusterConfig, LakehouseConfig
from jobs.context import JobContext
from jobs.runs import one_line, run_stage
from jobs.stages import Stage
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
