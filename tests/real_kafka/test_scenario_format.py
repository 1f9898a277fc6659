"""The scenario format of ``kafkactl_lab.real_cluster`` (no JVM): the shipped scenarios are
valid, and the model refuses what it does not know."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from kafkactl_lab.real_cluster.cluster import properties
from kafkactl_lab.real_cluster.release import KafkaRelease, ReleaseUnsupported
from kafkactl_lab.real_cluster.scenario import Scenario, Stop, load_scenario

SHIPPED = Path(__file__).resolve().parents[2] / "kafkactl_lab" / "real_cluster" / "scenarios"


@pytest.mark.parametrize("path", sorted(SHIPPED.glob("*.yaml")), ids=lambda p: p.stem)
def test_shipped_scenarios_are_valid(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.name == path.stem
    assert scenario.description


def _scenario(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "name": "s",
        "brokers": 3,
        "steps": [{"op": "kill", "broker": 2}],
    }
    document.update(changes)
    return document


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (_scenario(extra=1), "extra"),
        (_scenario(steps=[{"op": "explode"}]), "explode"),
        (_scenario(steps=[{"op": "kill", "broker": 2, "signal": 9}]), "signal"),
        (_scenario(steps=[{"op": "kill", "broker": 4}]), "no broker [4]"),
        (_scenario(steps=[{"op": "wait", "until": "leader", "topic": "t"}]), "partition, broker"),
        (_scenario(steps=[{"op": "create_topic", "topic": "t", "partitions": 1}]), "assignment"),
        (
            _scenario(steps=[{"op": "create_topic", "topic": "t", "assignment": [[1, 5]]}]),
            "no broker [5]",
        ),
        (_scenario(steps=[]), "at least 1"),
        (_scenario(name="a b"), "pattern"),
    ],
)
def test_invalid_scenarios_are_refused(document: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        Scenario.model_validate(document)


def test_controller_is_a_broker_reference() -> None:
    scenario = Scenario.model_validate(_scenario(steps=[{"op": "stop", "broker": "controller"}]))
    step = scenario.steps[0]
    assert isinstance(step, Stop) and step.broker == "controller"


def test_properties_spell_values_as_kafka_does() -> None:
    assert properties({"a.b": True, "c": 6000}) == "a.b=true\nc=6000\n"


def test_release_coordinates_and_shipped_logging() -> None:
    release = KafkaRelease("3.9.1")
    assert [str(c) for c in release.coordinates] == [
        "org.apache.kafka:kafka_2.13:3.9.1",
        "org.apache.kafka:kafka-tools:3.9.1",
    ]
    text = release.shipped_config("log4j.properties")
    assert "log4j.logger.kafka.controller=TRACE, controllerAppender" in text
    assert "log4j.logger.state.change.logger=INFO, stateChangeAppender" in text
    with pytest.raises(ReleaseUnsupported):
        KafkaRelease("1.0.0").shipped_config("log4j.properties")
