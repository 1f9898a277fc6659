"""The CLI's ``tables`` and ``sql`` commands on a small lakehouse, and file bookkeeping."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.cli import main
from jobs.lakehouse.deltars import DeltaRsLakehouse
from jobs.lakehouse.ingested_files import already_ingested, digest_file, record_ingested
from tests.conftest import REPO

pytestmark = pytest.mark.spark
CONF = str(REPO / "conf" / "local.yaml")


@pytest.fixture
def small_lakehouse(spark: SparkSession, lakehouse_dir: Path, tmp_path: Path) -> Path:
    lakehouse = DeltaRsLakehouse(spark, str(lakehouse_dir))
    files = []
    for name, body in (("controller.log", "a\n"), ("state-change.log", "bb\n")):
        path = tmp_path / name
        path.write_text(body)
        files.append(digest_file(path))
    record_ingested(spark, lakehouse, "demo", files, "logs", "run-1")
    record_ingested(spark, lakehouse, "other", files[:1], "logs", "run-2")
    return lakehouse_dir


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_tables_lists_rows_and_locations(
    small_lakehouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _cli(capsys, "tables", "--conf", CONF, "--lakehouse", str(small_lakehouse))
    assert code == 0
    header, _rule, *rows = out.splitlines()
    assert header.split() == ["table", "layer", "rows", "location"]
    ingested = next(r for r in rows if r.startswith("meta.ingested_files"))
    assert ingested.split() == [
        "meta.ingested_files",
        "meta",
        "3",
        str(small_lakehouse / "meta" / "ingested_files"),
    ]


def test_sql_formats(small_lakehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    query = (
        "SELECT cluster, count(*) AS files, sum(size_bytes) AS bytes FROM meta_ingested_files "
        "GROUP BY cluster ORDER BY cluster"
    )
    base = ["--conf", CONF, "--lakehouse", str(small_lakehouse), "sql", query]
    code, out, _ = _cli(capsys, *base, "--format", "json")
    assert code == 0
    assert [json.loads(line) for line in out.splitlines()] == [
        {"cluster": "demo", "files": 2, "bytes": 5},
        {"cluster": "other", "files": 1, "bytes": 2},
    ]
    code, out, _ = _cli(capsys, *base, "--format", "csv")
    assert list(csv.reader(io.StringIO(out))) == [
        ["cluster", "files", "bytes"],
        ["demo", "2", "5"],
        ["other", "1", "2"],
    ]
    code, out, _ = _cli(capsys, *base)
    assert out.splitlines()[0].split() == ["cluster", "files", "bytes"]
    assert out.splitlines()[2].split() == ["demo", "2", "5"]


def test_sql_error_is_one_line(small_lakehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(
        capsys, "--conf", CONF, "--lakehouse", str(small_lakehouse), "sql", "SELECT nope FROM x"
    )
    assert code == 1
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("kafkactl-audit: error: AnalysisException: ")


def test_reingesting_the_same_bytes_is_a_noop(
    spark: SparkSession, small_lakehouse: Path, tmp_path: Path
) -> None:
    lakehouse = DeltaRsLakehouse(spark, str(small_lakehouse))
    copy = tmp_path / "rotated" / "controller.log.1"
    copy.parent.mkdir()
    copy.write_text("a\n")
    fresh = tmp_path / "server.log"
    fresh.write_text("new\n")
    digests = [digest_file(copy), digest_file(fresh)]
    seen = already_ingested(lakehouse, "demo", [d.sha256 for d in digests])
    assert seen == {digests[0].sha256}, "same bytes under another name are the same evidence"
    assert already_ingested(lakehouse, "nobody", [d.sha256 for d in digests]) == set()
