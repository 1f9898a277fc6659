"""The simulator against reality (no JVM): for every log message kind that both the recorded
real Kafka 2.8.2 captures and the simulator's 2.8 rendering write, they write it at the same
level into the same file (controller.log, state-change.log or server.log), and both parse it
with the same grammar entry, so the wording agrees. Message kinds only one side writes are not
compared: the simulator renders what its operations need."""

from __future__ import annotations

import gzip
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import pytest

from kafkactl_core.grammars.executor import parse_record
from kafkactl_core.grammars.layout import resolve_layout
from kafkactl_core.grammars.records import assemble_records
from kafkactl_lab.simulate import SimulationSettings, simulate

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real-kafka"
Written = dict[str, set[tuple[str, str]]]
"""Grammar entry -> the (level, file) pairs it was written at."""


def _written(paths: Iterable[Path]) -> Written:
    layout = resolve_layout("kafka")
    found: Written = defaultdict(set)
    for path in paths:
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rb") as handle:
            for record in assemble_records(handle, layout):
                grammar = getattr(parse_record(record), "grammar", None)
                if grammar is not None:
                    found[grammar].add((str(record.level), path.name.split(".")[0]))
    return found


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Written:
    out = tmp_path_factory.mktemp("sim-2.8")
    settings = SimulationSettings(
        kafka_version="2.8", brokers=3, topics=3, partitions_per_topic=6, hours=6, seed=7
    )
    simulate(settings, out)
    return _written(sorted((out / "logs").rglob("*.log*")))


def test_the_simulator_writes_what_real_2_8_brokers_write_as_they_do(simulated: Written) -> None:
    captures = sorted(CAPTURES.glob("*-2.8.2-zk"))
    assert captures, "no recorded 2.8.2 capture"
    real = _written(p for c in captures for p in sorted(c.glob("brokers/*/*.log*")))
    shared = sorted(set(real) & set(simulated))
    assert len(shared) >= 80, shared  # 84 kinds both write: elections, transitions, requests
    # server.log carries the threads' lifecycle lines too, which the simulator leaves out
    differ = {
        grammar: (sorted(real[grammar]), sorted(simulated[grammar]))
        for grammar in shared
        if not simulated[grammar] <= real[grammar]
    }
    assert differ == {}
