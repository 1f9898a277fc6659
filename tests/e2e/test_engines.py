"""The demo through ``run`` on each engine: delta-spark's tables equal delta-rs's (issue 15).

The demo's logs and ZooKeeper dataDir, and the KRaft demo's metadata log, go through every stage
once with ``engine: delta-rs`` and once with ``engine: delta-spark``, each into a lakehouse of
its own. Every bronze, silver, gold and report table holds the same rows on both (row order
ignored: a multiset comparison; run ids, ingestion times and report times aside), and every
table delta-spark wrote opens in ``deltalake`` with the same row count.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from deltalake import DeltaTable
from pyspark.sql import SparkSession

from jobs.lakehouse.port import Lakehouse, open_lakehouse
from jobs.runtime.config import load_config
from jobs.stages.registry import STAGES
from schemas.catalog import TableSpec
from schemas.registry import ALL_TABLES
from tests.conftest import REPO
from tests.e2e.cli import run_cli, write_conf
from tests.helpers import ENGINES, assert_frames_equal, comparable_rows, require_delta_spark

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not all(stage.installed() for stage in STAGES),
        reason="a stage of the pipeline is not installed in this build",
    ),
]
DEMO = REPO / "samples" / "demo"
KRAFT = str(REPO / "samples" / "kraft-demo" / "metadata")
COMPARED = [spec for spec in ALL_TABLES if spec.layer != "meta"]
IGNORED = {"run_id", "ingested_at", "generated_at"}


@pytest.fixture(scope="module")
def lakehouses(
    spark: SparkSession, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Lakehouse]:
    require_delta_spark(spark)
    root = tmp_path_factory.mktemp("engines")
    opened = {}
    for engine in ENGINES:
        conf = write_conf(
            root / f"{engine}.yaml",
            root / engine,
            engine=engine,
            name="demo",
            inputs={
                "logs": [str(DEMO / "logs")],
                "zookeeper": [str(DEMO / "zookeeper" / "version-2")],
            },
        )
        # and the KRaft demo's metadata log, as a cluster of its own: the KRaft tables too
        document = yaml.safe_load(conf.read_text())
        document["clusters"].append(
            {"name": "kraft-demo", "kafka_version": "auto", "inputs": {"kraft_metadata": [KRAFT]}}
        )
        conf.write_text(yaml.safe_dump(document, sort_keys=False))
        code, printed = run_cli("run", "--conf", str(conf))
        assert code == 0, printed
        opened[engine] = open_lakehouse(load_config(conf), spark)
        assert opened[engine].engine == engine
    return opened


@pytest.mark.parametrize("spec", COMPARED, ids=lambda s: s.qualified_name)
def test_delta_spark_writes_the_tables_delta_rs_writes(
    lakehouses: dict[str, Lakehouse], spec: TableSpec
) -> None:
    expected = comparable_rows(lakehouses["delta-rs"], spec, IGNORED)
    if spec.layer in ("bronze", "gold") and spec.name in ("log_records", "elections"):
        assert expected.count() > 0, "the comparison is about something"
    assert_frames_equal(comparable_rows(lakehouses["delta-spark"], spec, IGNORED), expected)


def test_every_table_delta_spark_wrote_opens_in_deltalake(
    lakehouses: dict[str, Lakehouse],
) -> None:
    native = lakehouses["delta-spark"]
    opened = 0
    for spec in ALL_TABLES:
        if not native.exists(spec):
            assert not lakehouses["delta-rs"].exists(spec), spec.qualified_name
            continue
        table = DeltaTable(native.location(spec))
        assert table.metadata().partition_columns == list(spec.partition_by)
        assert table.to_pyarrow_table().num_rows == native.row_count(spec), spec.qualified_name
        opened += 1
    assert opened >= len(COMPARED), "every table of the run was written"


def test_the_reports_are_the_same(lakehouses: dict[str, Lakehouse]) -> None:
    def files(lakehouse: Lakehouse) -> dict[str, bytes]:
        (day,) = (Path(lakehouse.root) / "reports" / "demo").iterdir()
        return {p.name: p.read_bytes() for p in sorted(day.iterdir()) if p.is_file()}

    assert files(lakehouses["delta-spark"]) == files(lakehouses["delta-rs"])
