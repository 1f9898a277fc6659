"""A real Kafka 3.9.1 cluster in ZooKeeper mode, recorded through the broker-crash scenario by
``kafkactl_lab.real_cluster`` from a cold jar cache (an empty folder: the release's jars are
installed into it from Maven Central, through Maven's local repository), then checked as the
recorded captures are (``tests/real_kafka``): every
leader-setting state write of ZooKeeper's ``TxnLogToolkit`` dump is one ``gold.elections`` row
with that leader, epoch and verdict, and nothing is left unexplained.

The recording stops every process it started, passed or failed; the test checks that no
process naming the capture directory is left.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.runtime.spark_jars import COMPLETE
from kafkactl_lab.real_cluster.capture import record
from kafkactl_lab.real_cluster.release import KafkaRelease
from tests.real_kafka.checks import INPUTS, check, run_on_capture

pytestmark = [
    pytest.mark.live,
    pytest.mark.spark,
    pytest.mark.skipif(
        shutil.which("java") is None or shutil.which("mvn") is None,
        reason="java and mvn are needed to install and run Kafka",
    ),
]

SCENARIO = (
    Path(__file__).resolve().parents[2]
    / "kafkactl_lab"
    / "real_cluster"
    / "scenarios"
    / "broker-crash.yaml"
)


def _processes_naming(text: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in command:
            found.append(f"{entry.name}: {command[:200]}")
    return found


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("real-kafka")
    out, cache = root / "broker-crash", root / "jars"
    release = KafkaRelease("3.9.1")
    try:
        manifest = record(release, SCENARIO, out, cache=cache)
    finally:
        assert _processes_naming(str(out)) == []
    assert manifest["outcome"] == "completed"
    # the cold cache now holds the release, complete
    for coordinate in release.coordinates:
        assert (cache / coordinate.folder_name / COMPLETE).is_file(), coordinate
    return out


def test_capture_layout(capture: Path) -> None:
    assert (capture / "kafka-version").read_text() == "3.9.1\n"
    assert (capture / "scenario.yaml").read_bytes() == SCENARIO.read_bytes()
    for broker in (1, 2, 3):
        for name in ("controller.log", "state-change.log", "server.log"):
            assert (capture / "brokers" / str(broker) / name).is_file(), (broker, name)
    assert list((capture / "truth").glob("*txnlog*"))
    assert list((capture / "zookeeper" / "version-2").glob("log.*"))


@pytest.mark.parametrize("inputs", INPUTS)
def test_recorded_capture(spark: SparkSession, tmp_path: Path, capture: Path, inputs: str) -> None:
    conf = run_on_capture(tmp_path, capture, inputs, "3.9")
    findings = check(spark, conf, capture, inputs)
    assert findings.truth_elections >= 8  # 6 partitions created, 2 offline elections at least
    assert findings.problems == [], "\n".join(findings.problems)
    assert findings.compared == findings.truth_elections == findings.gold_elections
