"""The whole pipeline on the demo sample (``kafkactl-audit run``: ingest-logs, ingest-zk, replay,
report), then ``kafkactl-audit report`` again: the issue's acceptance end to end.

* every ``Leader imbalance ratio`` line of the demo's controller logs is in
  ``gold.leader_imbalance`` with the computed ratio equal to it;
* the planted unclean election (audit-0) is in ``gold.unclean_elections`` with its exposure;
* the console summary ends the run; the report files are under the lakehouse;
* a second ``report`` replaces the cluster's rows (same counts) and writes identical files;
* ``--fail-on unclean`` makes ``run`` and ``report`` exit 3, and ``report`` over a window
  without the unclean election exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.lakehouse.port import open_lakehouse
from jobs.runtime.config import load_config
from jobs.stages.registry import stage_named
from schemas.report import LEADER_IMBALANCE, TABLES, UNCLEAN_ELECTIONS
from tests.conftest import REPO
from tests.e2e.cli import run_cli, write_conf

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not all(stage_named(s).installed() for s in ("ingest-logs", "ingest-zk", "replay")),
        reason="a stage of the pipeline is not installed in this build",
    ),
]
DEMO = REPO / "samples" / "demo"


@pytest.fixture(scope="module")
def pipeline(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("pipeline")
    conf = write_conf(
        root / "conf.yaml",
        root / "lakehouse",
        name="demo",
        inputs={"logs": [str(DEMO / "logs")], "zookeeper": [str(DEMO / "zookeeper" / "version-2")]},
    )
    # the nightly job: every stage, then exit 3 for the demo's unclean election
    code, out = run_cli("run", "--conf", str(conf), "--fail-on", "unclean")
    assert code == 3, out
    lakehouse = open_lakehouse(load_config(conf), spark)
    return conf, out, lakehouse, root


def test_logged_ratios_equal_ours_and_the_unclean_election_has_its_exposure(pipeline):
    _, _, lakehouse, _ = pipeline
    logged = sum(
        path.read_text().count("Leader imbalance ratio for broker")
        for path in (DEMO / "logs").glob("*/controller.log")
    )
    checks = lakehouse.read(LEADER_IMBALANCE).filter("logged_ratio IS NOT NULL").collect()
    assert len(checks) == logged == 236
    assert all(r.imbalance_ratio == r.logged_ratio and r.logged_matches for r in checks)
    (unclean,) = lakehouse.read(UNCLEAN_ELECTIONS).collect()
    assert (unclean.topic, unclean.partition, unclean.prev_leader, unclean.new_leader) == (
        "audit", 0, 2, 4,
    )  # fmt: skip
    assert list(unclean.isr_before) == [2]
    assert unclean.exposure_seconds == pytest.approx(120.001)


def test_run_ends_with_the_summary_and_writes_the_report(pipeline):
    _, out, _, root = pipeline
    assert "Unclean elections: 1" in out and "audit-0" in out
    assert "logged ratios 236/236 equal to ours" in out
    (html,) = (root / "lakehouse" / "reports" / "demo").glob("*/report.html")
    assert f"Report: {html}" in out
    assert {p.name for p in html.parent.iterdir()} >= {"report.html", "summary.md", "brokers.csv"}


def test_report_again_replaces_rows_and_regenerates_identically(pipeline, tmp_path: Path):
    conf, _, lakehouse, root = pipeline
    before = {spec.name: lakehouse.read(spec).count() for spec in TABLES}
    code, _ = run_cli("report", "--conf", str(conf), "--cluster", "demo", "--out", str(tmp_path))
    assert code == 0
    assert {spec.name: lakehouse.read(spec).count() for spec in TABLES} == before
    (first,) = (root / "lakehouse" / "reports" / "demo").glob("*")
    for path in first.iterdir():
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name


def test_fail_on_unclean_exits_3_on_the_demo_and_0_over_a_window_without_one(
    pipeline, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """The nightly alert: the demo's unclean election (audit-0, 10:32 UTC) makes ``report
    --fail-on unclean`` exit 3 with the finding on stderr; a window that ends before it exits 0.
    The tables are written whole either way."""
    conf, _, lakehouse, _ = pipeline
    before = {spec.name: lakehouse.read(spec).count() for spec in TABLES}
    report = ("report", "--conf", str(conf), "--cluster", "demo", "--fail-on", "unclean")
    capsys.readouterr()
    code, out = run_cli(*report, "--out", str(tmp_path / "all"), "--format", "json")
    assert code == 3
    (finding,) = capsys.readouterr().err.strip().splitlines()[-1:]
    assert finding.startswith("kafkactl-audit: fail-on: [demo] unclean: 1 unclean election(s)")
    document = json.loads(out)
    assert document["findings"] == [finding.split("[demo] ", 1)[1]]
    window = ("--from", "2024-03-05", "--to", "2024-03-05T10:31")
    code, out = run_cli(*report, "--out", str(tmp_path / "before"), *window)
    assert code == 0, out
    assert "Unclean elections: none" in out and "scope: from 2024-03-05T00:00:00" in out
    assert "fail-on" not in capsys.readouterr().err
    assert {spec.name: lakehouse.read(spec).count() for spec in TABLES} == before
    code, _ = run_cli(*report, "--from", "2024-03-05T11:00", "--to", "2024-03-05T10:00")
    assert code == 2
    assert "--to must be after --from" in capsys.readouterr().err
