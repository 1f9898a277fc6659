"""Kafka's own command-line tools, run as the release's Java classes (as its ``bin/`` scripts do).

The class behind each script, from the release's ``bin/*.sh``: up to 3.6 ``kafka-topics``,
``kafka-leader-election`` and ``kafka-reassign-partitions`` run ``kafka.admin.*Command``;
from 3.7 they run ``org.apache.kafka.tools.TopicCommand``,
``org.apache.kafka.tools.LeaderElectionCommand`` and
``org.apache.kafka.tools.reassign.ReassignPartitionsCommand``. ``kafka-configs`` runs
``kafka.admin.ConfigCommand`` and ``kafka-producer-perf-test``
``org.apache.kafka.tools.ProducerPerformance`` throughout 2.8 - 4.x; ``kafka-metadata-quorum``
runs ``org.apache.kafka.tools.MetadataQuorumCommand``, ``kafka-broker-api-versions``
``kafka.admin.BrokerApiVersionsCommand`` up to 3.9 and
``org.apache.kafka.tools.BrokerApiVersionsCommand`` from 4.0. Each runs with the release's
tools logging and a small heap; a failing tool raises with its output.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kafkactl_lab.real_cluster.release import KafkaRelease
from kafkactl_lab.real_cluster.scenario import (
    AlterTopicConfig,
    CreateTopic,
    DeleteTopic,
    PreferredElection,
    Produce,
    Reassign,
    config_text,
)


@dataclass(frozen=True)
class ToolClasses:
    """The main classes of the tools a scenario uses, for one release."""

    topics: str
    configs: str
    leader_election: str
    reassign: str
    broker_api_versions: str
    producer_performance: str = "org.apache.kafka.tools.ProducerPerformance"
    metadata_quorum: str = "org.apache.kafka.tools.MetadataQuorumCommand"


def tool_classes(release: KafkaRelease) -> ToolClasses:
    """The classes the release's ``bin/`` scripts run."""
    if release.at_least(3, 7):
        return ToolClasses(
            "org.apache.kafka.tools.TopicCommand",
            "kafka.admin.ConfigCommand",
            "org.apache.kafka.tools.LeaderElectionCommand",
            "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
            "org.apache.kafka.tools.BrokerApiVersionsCommand"
            if release.at_least(4, 0)
            else "kafka.admin.BrokerApiVersionsCommand",
        )
    return ToolClasses(
        "kafka.admin.TopicCommand",
        "kafka.admin.ConfigCommand",
        "kafka.admin.LeaderElectionCommand",
        "kafka.admin.ReassignPartitionsCommand",
        "kafka.admin.BrokerApiVersionsCommand",
    )


CommandLine = Callable[..., list[str]]
"""``java_command(main, *args)``: the full command line for a class of the release."""


class ToolFailed(RuntimeError):
    """A Kafka tool exited with an error."""


class KafkaTools:
    """Kafka's tools against one cluster."""

    def __init__(
        self, classes: ToolClasses, java_command: CommandLine, bootstrap: str, scratch: Path
    ) -> None:
        """Bind the tools to a cluster.

        Args:
            classes: the release's tool classes.
            java_command: builds a command line for a main class and its arguments.
            bootstrap: the cluster's bootstrap servers.
            scratch: a folder for the tools' input files (reassignment JSON).
        """
        self.classes = classes
        self.java_command = java_command
        self.bootstrap = bootstrap
        self.scratch = scratch

    def run(self, main: str, args: Sequence[str], timeout: float = 180) -> str:
        """Run one tool and return its stdout.

        Raises:
            ToolFailed: a non-zero exit (its output says why) or a timeout.
        """
        command = self.java_command(main, *args)
        try:
            proc = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired as error:
            raise ToolFailed(f"{main} {' '.join(args)}: no answer in {timeout:.0f}s") from error
        if proc.returncode != 0:
            raise ToolFailed(
                f"{main} {' '.join(args)} exited {proc.returncode}: "
                f"{(proc.stdout + proc.stderr)[-1500:]}"
            )
        return proc.stdout

    def create_topic(self, step: CreateTopic) -> str:
        """``kafka-topics --create``."""
        args = ["--bootstrap-server", self.bootstrap, "--create", "--topic", step.topic]
        if step.assignment is not None:
            layout = ",".join(":".join(str(b) for b in replicas) for replicas in step.assignment)
            args += ["--replica-assignment", layout]
        else:
            args += [
                "--partitions",
                str(step.partitions),
                "--replication-factor",
                str(step.replication_factor),
            ]
        for key, value in step.configs.items():
            args += ["--config", f"{key}={config_text(value)}"]
        return self.run(self.classes.topics, args)

    def delete_topic(self, step: DeleteTopic) -> str:
        """``kafka-topics --delete``."""
        return self.run(
            self.classes.topics,
            ["--bootstrap-server", self.bootstrap, "--delete", "--topic", step.topic],
        )

    def alter_topic_config(self, step: AlterTopicConfig) -> str:
        """``kafka-configs --alter --entity-type topics``."""
        args = [
            "--bootstrap-server",
            self.bootstrap,
            "--alter",
            "--entity-type",
            "topics",
            "--entity-name",
            step.topic,
        ]
        if step.set:
            args += ["--add-config", ",".join(f"{k}={config_text(v)}" for k, v in step.set.items())]
        if step.delete:
            args += ["--delete-config", ",".join(step.delete)]
        return self.run(self.classes.configs, args)

    def preferred_election(self, step: PreferredElection) -> str:
        """``kafka-leader-election --election-type preferred``, one partition or the topic's."""
        args = ["--bootstrap-server", self.bootstrap, "--election-type", "preferred"]
        if step.partition is not None:
            args += ["--topic", step.topic, "--partition", str(step.partition)]
            return self.run(self.classes.leader_election, args)
        # the tool takes --topic only with --partition: a JSON file names all of the topic's
        path = self.scratch / f"election-{step.topic}.json"
        partitions = [{"topic": step.topic, "partition": p} for p in self.partitions(step.topic)]
        path.write_text(json.dumps({"partitions": partitions}), encoding="utf-8")
        return self.run(self.classes.leader_election, [*args, "--path-to-json-file", str(path)])

    def describe_topic(self, topic: str) -> str:
        """``kafka-topics --describe`` of one topic (a line per partition)."""
        return self.run(
            self.classes.topics,
            ["--bootstrap-server", self.bootstrap, "--describe", "--topic", topic],
        )

    def partitions(self, topic: str) -> list[int]:
        """The topic's partitions, from ``kafka-topics --describe``."""
        return sorted(
            int(line.split("Partition:")[1].split()[0])
            for line in self.describe_topic(topic).splitlines()
            if "Partition:" in line
        )

    def broker_api_versions(self) -> str:
        """``kafka-broker-api-versions``: a line per live broker the cluster's metadata lists."""
        return self.run(self.classes.broker_api_versions, ["--bootstrap-server", self.bootstrap])

    def quorum_status(self, bootstrap_controllers: str) -> str:
        """``kafka-metadata-quorum --bootstrap-controller ... describe --status``."""
        return self.run(
            self.classes.metadata_quorum,
            ["--bootstrap-controller", bootstrap_controllers, "describe", "--status"],
        )

    def reassign(self, step: Reassign) -> str:
        """``kafka-reassign-partitions --execute`` for one partition."""
        path = self.scratch / f"reassign-{step.topic}-{step.partition}.json"
        plan = {
            "version": 1,
            "partitions": [
                {"topic": step.topic, "partition": step.partition, "replicas": step.replicas}
            ],
        }
        path.write_text(json.dumps(plan), encoding="utf-8")
        return self.run(
            self.classes.reassign,
            [
                "--bootstrap-server",
                self.bootstrap,
                "--reassignment-json-file",
                str(path),
                "--execute",
            ],
        )

    def produce(self, step: Produce) -> str:
        """``kafka-producer-perf-test`` with ``acks=all``, as fast as it goes."""
        return self.run(
            self.classes.producer_performance,
            [
                "--topic",
                step.topic,
                "--num-records",
                str(step.records),
                "--record-size",
                str(step.record_size),
                "--throughput",
                "-1",
                "--producer-props",
                f"bootstrap.servers={self.bootstrap}",
                "acks=all",
            ],
        )
