"""``kafkactl-audit tables --check`` on a lakehouse written by each engine, intact and broken."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.cli import main
from jobs.lakehouse.deltars import DeltaRsLakehouse
from jobs.lakehouse.deltaspark import DeltaSparkLakehouse
from jobs.lakehouse.ingested_files import digest_file, record_ingested
from jobs.lakehouse.port import Lakehouse
from tests.conftest import REPO
from tests.helpers import ENGINES, require_delta_spark

pytestmark = pytest.mark.spark
CONF = str(REPO / "conf" / "local.yaml")


@pytest.fixture(params=ENGINES)
def engine_lakehouse(
    request: pytest.FixtureRequest, spark: SparkSession, lakehouse_dir: Path, tmp_path: Path
) -> tuple[str, Path]:
    """A lakehouse whose meta.ingested_files the engine wrote in two commits."""
    lakehouse: Lakehouse
    if request.param == "delta-spark":
        require_delta_spark(spark)
        lakehouse = DeltaSparkLakehouse(spark, path=str(lakehouse_dir))
    else:
        lakehouse = DeltaRsLakehouse(spark, str(lakehouse_dir))
    log = tmp_path / "controller.log"
    log.write_text("a\n")
    record_ingested(spark, lakehouse, "demo", [digest_file(log)], "logs", "run-1")
    record_ingested(spark, lakehouse, "other", [digest_file(log)], "logs", "run-2")
    return str(request.param), lakehouse_dir


def _check(
    capsys: pytest.CaptureFixture[str], engine: str, lakehouse: Path
) -> tuple[int, dict[str, list[str]], str, str]:
    code = main(
        ["tables", "--check", "--conf", CONF, "--engine", engine, "--lakehouse", str(lakehouse)]
    )
    captured = capsys.readouterr()
    header, _rule, *rest = captured.out.split("\n\n")[0].splitlines()
    assert header.split() == ["table", "layer", "rows", "location", "check"]
    rows = {line.split()[0]: line.split() for line in rest}
    return code, rows, captured.out, captured.err


def test_an_intact_lakehouse_checks_ok(
    engine_lakehouse: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    engine, lakehouse = engine_lakehouse
    code, rows, out, err = _check(capsys, engine, lakehouse)
    assert (code, err) == (0, "")
    location = str(lakehouse / "meta" / "ingested_files")
    assert rows["meta.ingested_files"] == ["meta.ingested_files", "meta", "2", location, "ok"]
    assert rows["gold.elections"][2:] == [
        "not",
        "created",
        str(lakehouse / "gold" / "elections"),
        "not",
        "created",
    ]
    assert "problems:" not in out


def test_a_deleted_data_file_breaks_the_check(
    engine_lakehouse: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    engine, lakehouse = engine_lakehouse
    table = lakehouse / "meta" / "ingested_files"
    gone = sorted(table.glob("cluster=demo/*.parquet"))[0]
    gone.unlink()
    code, rows, out, err = _check(capsys, engine, lakehouse)
    assert code == 1
    assert rows["meta.ingested_files"][2:] == [
        "?",
        str(table),
        "BROKEN:",
        "data",
        "file",
        "missing",
    ]
    assert f"  meta.ingested_files: {gone}: data file missing" in out
    assert "meta.ingested_files: to repair: " in out
    assert err == "kafkactl-audit: error: tables --check: 1 table(s) broken\n"


def test_a_garbled_commit_and_an_orphan(
    engine_lakehouse: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    engine, lakehouse = engine_lakehouse
    table = lakehouse / "meta" / "ingested_files"
    orphan = table / "cluster=demo" / "part-killed.parquet"
    orphan.write_bytes(sorted(table.glob("cluster=demo/*.parquet"))[0].read_bytes())
    code, _, out, _ = _check(capsys, engine, lakehouse)
    assert code == 0
    assert "meta.ingested_files: 1 file(s)" in out
    assert "cluster=demo/part-killed.parquet" in out

    commit = table / "_delta_log" / f"{1:020d}.json"
    commit.write_text(commit.read_text()[:-20])
    code, _, out, _ = _check(capsys, engine, lakehouse)
    assert code == 1
    assert f"  meta.ingested_files: {commit}:" in out
