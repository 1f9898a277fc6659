"""The scenario format of ``kafkactl_lab.real_cluster`` (no JVM): the shipped scenarios are
valid, and the model refuses what it does not know."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from kafkactl_lab.real_cluster.capture import check_mode
from kafkactl_lab.real_cluster.cluster import properties
from kafkactl_lab.real_cluster.conditions import PartitionView, holds
from kafkactl_lab.real_cluster.kraft_cluster import KRaftCluster
from kafkactl_lab.real_cluster.kraft_view import parse_brokers, parse_leader, parse_partitions
from kafkactl_lab.real_cluster.release import KafkaRelease, ReleaseUnsupported
from kafkactl_lab.real_cluster.scenario import Scenario, Stop, Wait, load_scenario

SHIPPED = Path(__file__).resolve().parents[2] / "kafkactl_lab" / "real_cluster" / "scenarios"


@pytest.mark.parametrize(
    "path", sorted(SHIPPED.rglob("*.yaml")), ids=lambda p: str(p.relative_to(SHIPPED))
)
def test_shipped_scenarios_are_valid(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.name == path.stem
    assert scenario.description
    check_mode(scenario, "kraft" if path.parent.name == "kraft" else "zk")


KRAFT_ONLY = {"snapshots.yaml", "elr-election.yaml"}
"""KRaft scenarios without a ZooKeeper twin: what they record (the controller's metadata log
snapshots and segments, an election from the eligible leader replicas of KIP-966) has no
ZooKeeper counterpart worth a capture."""


def test_every_scenario_has_a_kraft_twin() -> None:
    assert sorted(p.name for p in SHIPPED.glob("*.yaml")) == sorted(
        p.name for p in (SHIPPED / "kraft").glob("*.yaml") if p.name not in KRAFT_ONLY
    )
    assert all((SHIPPED / "kraft" / name).is_file() for name in KRAFT_ONLY)


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
        (_scenario(steps=[{"op": "wait", "until": "elr", "topic": "t", "partition": 0}]), "elr"),
        (
            _scenario(
                steps=[{"op": "wait", "until": "elr", "topic": "t", "partition": 0, "elr": [4]}]
            ),
            "no broker [4]",
        ),
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


def test_kraft_controllers_are_nodes_101_on() -> None:
    steps = [
        {"op": "wait", "until": "controller", "broker": 102},
        {"op": "kill", "broker": 102},
        {"op": "start", "broker": "last_stopped"},
        {"op": "stop", "broker": 101},
    ]
    scenario = Scenario.model_validate(_scenario(controllers=3, steps=steps))
    assert scenario.controller_ids == [101, 102, 103]
    check_mode(scenario, "kraft")
    with pytest.raises(ValueError, match="in zk mode the controller is a broker"):
        check_mode(scenario, "zk")
    with pytest.raises(ValidationError, match=re.escape("no broker [104]")):
        Scenario.model_validate(_scenario(controllers=3, steps=[{"op": "kill", "broker": 104}]))
    broker_as_controller = Scenario.model_validate(
        _scenario(steps=[{"op": "wait", "until": "controller", "broker": 1}])
    )
    with pytest.raises(ValueError, match="a controller node, 101"):
        check_mode(broker_as_controller, "kraft")


def test_controller_config_is_for_kraft_controllers_only(tmp_path: Path) -> None:
    scenario = Scenario.model_validate(
        _scenario(
            broker_config={"metadata.log.segment.ms": 1, "num.io.threads": 4},
            controller_config={"metadata.log.segment.ms": 30000},
        )
    )
    check_mode(scenario, "kraft")
    with pytest.raises(ValueError, match="controller_config is for KRaft controllers"):
        check_mode(scenario, "zk")
    with pytest.raises(ValidationError, match="controller_config"):
        Scenario.model_validate(_scenario(controller_config={"a": [1]}))
    cluster = KRaftCluster(
        KafkaRelease("4.1.1"),
        tmp_path / "out",
        tmp_path / "work",
        brokers=1,
        controllers=1,
        broker_config=scenario.broker_config,
        controller_config=scenario.controller_config,
        classpath="unused",
    )
    controller, broker = cluster.server_properties(101), cluster.server_properties(1)
    assert controller["process.roles"] == "controller"
    assert controller["metadata.log.segment.ms"] == 30000  # its own over broker_config
    assert broker["metadata.log.segment.ms"] == 1
    assert controller["num.io.threads"] == broker["num.io.threads"] == 4


def test_the_elr_is_a_kraft_condition() -> None:
    elr = {"op": "wait", "until": "elr", "topic": "t", "partition": 0, "elr": [2]}
    scenario = Scenario.model_validate(_scenario(steps=[elr]))
    check_mode(scenario, "kraft")
    with pytest.raises(ValueError, match="zk mode has no ELR"):
        check_mode(scenario, "zk")
    step = scenario.steps[0]
    assert isinstance(step, Wait)
    view = _OnePartition(PartitionView((1, 2, 3), -1, (), (1, 2)))
    assert not holds(view, step)
    assert holds(view, step.model_copy(update={"elr": [2, 1]}))
    assert holds(
        _OnePartition(PartitionView((1, 2), 1, (1, 2))), step.model_copy(update={"elr": []})
    )


class _OnePartition:
    """A ``ClusterView`` of one topic with one partition."""

    def __init__(self, partition: PartitionView) -> None:
        self.partition = partition

    def controller(self) -> int | None:
        return 101

    def brokers(self) -> set[int]:
        return {1, 2, 3}

    def partitions(self, topic: str) -> dict[int, PartitionView]:
        return {0: self.partition}


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


def test_kafka_4_logs_with_log4j2_and_its_binding() -> None:
    release = KafkaRelease("4.1.1")
    assert [str(c) for c in release.coordinates][2:] == [
        "org.apache.logging.log4j:log4j-slf4j-impl:2.24.3"
    ]
    logging = release.logging
    assert (logging.server, logging.tools) == ("log4j2.yaml", "tools-log4j2.yaml")
    assert logging.flag(Path("/c/l.yaml")) == "-Dlog4j2.configurationFile=file:/c/l.yaml"
    text = release.shipped_config(logging.server)
    assert "name: org.apache.kafka.controller" in text and "ControllerAppender" in text
    assert KafkaRelease("3.9.1").logging.flag(Path("/l")) == "-Dlog4j.configuration=file:/l"


def test_kraft_view_reads_the_tools_output() -> None:
    described = (
        "Topic: risky\tTopicId: X\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: \n"
        "\tTopic: risky\tPartition: 0\tLeader: none\tReplicas: 3,2\tIsr: 3\tElr: \t"
        "LastKnownElr: \n"
        "\tTopic: risky\tPartition: 1\tLeader: 2\tReplicas: 2,3\tIsr: 2,3\tElr: N/A\n"
    )
    assert parse_partitions(described) == {
        0: PartitionView((3, 2), -1, (3,)),
        1: PartitionView((2, 3), 2, (2, 3)),
    }
    elr = "\tTopic: safe\tPartition: 0\tLeader: none\tReplicas: 1,2,3\tIsr: \tElr: 1,2\t"
    assert parse_partitions(elr + "LastKnownElr: \n") == {
        0: PartitionView((1, 2, 3), -1, (), (1, 2))
    }
    versions = (
        "127.0.0.1:40433 (id: 2 rack: null isFenced: false) -> (\n\tProduce(0): 0 to 12\n)\n"
        "127.0.0.1:40431 (id: 1 rack: null) -> (\n)\n"
    )
    assert parse_brokers(versions) == {1, 2}
    status = "ClusterId:              E6GJaQfISsm9lmPFO9hvdg\nLeaderId:               102\n"
    assert parse_leader(status) == 102
    assert parse_leader("LeaderId:               -1\n") is None
