"""Run a scenario's steps against a running cluster, journaling each step with its UTC times.

The journal (``steps.jsonl`` in the capture, one JSON object a step: number, op, the step's
fields, the broker a ``controller`` reference resolved to, start and end in UTC and what the
tool printed last) is what a test reads to know which incidents the scenario caused.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kafkactl_lab.real_cluster.admin import KafkaTools
from kafkactl_lab.real_cluster.cluster import BrokerCluster
from kafkactl_lab.real_cluster.conditions import ClusterView, wait_for
from kafkactl_lab.real_cluster.scenario import (
    AlterTopicConfig,
    BrokerRef,
    CreateTopic,
    DeleteTopic,
    Kill,
    KillController,
    PreferredElection,
    Produce,
    Reassign,
    Scenario,
    Sleep,
    Start,
    Step,
    Stop,
    Wait,
)


def utc_now() -> str:
    """Now, ISO 8601 UTC with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class ScenarioRunner:
    """Runs steps against one cluster through Kafka's tools and a view of the cluster."""

    def __init__(
        self, cluster: BrokerCluster, view: ClusterView, tools: KafkaTools, journal: Path
    ) -> None:
        """Bind the runner.

        Args:
            cluster: the running cluster.
            view: what the cluster says of itself (ZooKeeper's znodes, or Kafka's tools).
            tools: Kafka's tools bound to it.
            journal: the ``steps.jsonl`` file to append to.
        """
        self.cluster = cluster
        self.view = view
        self.tools = tools
        self.journal = journal
        self.last_stopped: int | None = None

    def bring_up(self) -> None:
        """Start the brokers in id order, each registered before the next, then a controller.

        In ZooKeeper mode broker 1 starts first, so it is normally the first controller; in
        KRaft mode the controllers run already and one of them leads.
        """
        for broker in self.cluster.broker_ids:
            self.step(Start(op="start", broker=broker), number=0)
        self.step(Wait(op="wait", until="controller"), number=0)

    def run(self, scenario: Scenario) -> None:
        """Run every step in order; the first failing step raises."""
        for number, step in enumerate(scenario.steps, start=1):
            self.step(step, number)

    def _broker(self, ref: BrokerRef) -> int:
        if ref == "last_stopped":
            if self.last_stopped is None:
                raise RuntimeError("no node was stopped before to resolve 'last_stopped'")
            return self.last_stopped
        if ref == "controller":
            controller = self.view.controller()
            if controller is None:
                raise RuntimeError("no active controller to resolve 'controller'")
            return controller
        return ref

    def step(self, step: Step, number: int) -> None:
        """Run one step and journal it.

        Raises:
            Exception: whatever the step raised (the journal records the failure first).
        """
        entry: dict[str, Any] = {"step": number, **step.model_dump(), "started": utc_now()}
        try:
            entry.update(self._execute(step))
        except Exception as error:
            entry["failed"] = str(error)[-500:]
            raise
        finally:
            entry["ended"] = utc_now()
            with self.journal.open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry) + "\n")

    def _execute(self, step: Step) -> dict[str, Any]:
        if isinstance(step, Wait):
            return {"waited_s": round(wait_for(self.view, step), 3)}
        if isinstance(step, Sleep):
            time.sleep(step.seconds)
            return {}
        if isinstance(step, Kill | KillController):
            broker = self._broker("controller" if isinstance(step, KillController) else step.broker)
            self.cluster.kill_broker(broker)
            self.last_stopped = broker
            return {"resolved_broker": broker}
        if isinstance(step, Stop):
            broker = self._broker(step.broker)
            self.cluster.stop_broker(broker, step.timeout_s)
            self.last_stopped = broker
            return {"resolved_broker": broker}
        if isinstance(step, Start):
            broker = self._broker(step.broker)
            self.cluster.start_broker(broker, step.timeout_s)
            if broker not in self.cluster.broker_ids:
                return {"resolved_broker": broker}  # a KRaft controller: up once it listens
            registered = Wait(
                op="wait", until="broker_registered", broker=broker, timeout_s=step.timeout_s
            )
            return {
                "resolved_broker": broker,
                "waited_s": round(wait_for(self.view, registered), 3),
            }
        return {"output": self._tool(step)[-300:]}

    def _tool(self, step: Step) -> str:
        if isinstance(step, CreateTopic):
            return self.tools.create_topic(step)
        if isinstance(step, Produce):
            return self.tools.produce(step)
        if isinstance(step, AlterTopicConfig):
            return self.tools.alter_topic_config(step)
        if isinstance(step, PreferredElection):
            return self.tools.preferred_election(step)
        if isinstance(step, Reassign):
            return self.tools.reassign(step)
        if isinstance(step, DeleteTopic):
            return self.tools.delete_topic(step)
        raise TypeError(f"no runner for step {step.op}")
