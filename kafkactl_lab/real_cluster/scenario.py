"""The scenario format: a YAML file, validated strictly (an unknown key or op is an error).

```yaml
name: broker-crash                 # letters, digits, - _
description: what happens and what the capture should show
brokers: 3                         # broker ids 1..N
controllers: 3                     # KRaft only: controller quorum, node ids 101..100+C
broker_config:                     # server.properties overrides: only the intervals the
  zookeeper.session.timeout.ms: 6000   # scenario needs; recorded in the capture
controller_config:                 # KRaft only: overrides of the controllers alone, after
  metadata.log.segment.ms: 30000   #   broker_config (their metadata log, its snapshots)
teardown: kill                     # kill (kill -9 every broker, then stop ZooKeeper or the
                                   #   KRaft controllers) | stop (controlled shutdowns)
steps:
  - op: wait                       # until a condition holds (what the cluster says)
    until: controller              # controller | broker_registered | broker_gone |
    broker: 1                      #   isr_complete | leader | not_leader | preferred_leaders |
                                   #   isr | elr (KRaft only)
    timeout_s: 60
  - op: create_topic
    topic: orders
    partitions: 6                  # with replication_factor, or an explicit assignment:
    replication_factor: 3          #   assignment: [[1, 2, 3], [2, 3, 1]]
    configs: {min.insync.replicas: 2}
  - {op: produce, topic: orders, records: 1000, record_size: 100}
  - {op: kill, broker: 3}          # kill -9; broker: an id, "controller" or (KRaft) 101..
  - {op: stop, broker: 2}          # SIGTERM: a controlled shutdown
  - {op: start, broker: 2}         # waits until it is registered again; or last_stopped
  - {op: kill_controller}
  - {op: alter_topic_config, topic: orders, set: {unclean.leader.election.enable: true}}
  - {op: preferred_election, topic: orders}          # partition: N, else all of the topic
  - {op: reassign, topic: orders, partition: 0, replicas: [3, 1, 2]}
  - {op: delete_topic, topic: orders}
  - {op: sleep, seconds: 5}
```

Wait conditions: ``controller`` (an active controller, or ``broker`` when given: in KRaft mode
a controller's id, 101 ...); ``broker_registered``/``broker_gone`` (``/brokers/ids/<broker>``;
in KRaft mode: registered and not fenced); ``isr_complete`` (every
partition of ``topic``, or just ``partition``, has its whole assignment in the ISR and a
leader); ``leader`` (``partition`` of ``topic`` led by ``broker``; -1 means no leader);
``not_leader`` (no partition of ``topic`` led by ``broker``: the controller moved each to
another leader, or to -1 when none could lead); ``preferred_leaders`` (every partition of
``topic``, or just ``partition``, led by its preferred replica, the first of its assignment);
``isr`` (``partition`` of ``topic`` has exactly the brokers ``isr`` in its ISR, in any order);
``elr`` (KRaft only, KIP-966: ``partition`` of ``topic`` has exactly the brokers ``elr`` in its
eligible leader replicas, in any order; ``elr: []``, none). ZooKeeper mode reads them from
ZooKeeper's znodes, KRaft mode asks Kafka's tools (``conditions``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

BrokerRef = int | Literal["controller", "last_stopped"]
"""A node id; ``controller``: the active controller when the step runs; ``last_stopped``: the
node the last ``kill``, ``kill_controller`` or ``stop`` step stopped (a KRaft scenario cannot
know beforehand which controller the quorum elects)."""

ConfigValue = str | int | float | bool

FIRST_CONTROLLER_ID = 101
"""KRaft controllers are nodes 101, 102 ...: brokers keep the ids 1..N of ZooKeeper mode."""


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Wait(_Step):
    """Wait until a condition on ZooKeeper's view of the cluster holds."""

    op: Literal["wait"]
    until: Literal[
        "controller",
        "broker_registered",
        "broker_gone",
        "isr_complete",
        "leader",
        "not_leader",
        "preferred_leaders",
        "isr",
        "elr",
    ]
    topic: str | None = None
    partition: int | None = None
    broker: int | None = None
    isr: list[int] | None = None
    elr: list[int] | None = None
    timeout_s: float = Field(default=60, gt=0)

    @model_validator(mode="after")
    def _needs(self) -> Wait:
        needs: dict[str, tuple[str, ...]] = {
            "controller": (),
            "broker_registered": ("broker",),
            "broker_gone": ("broker",),
            "isr_complete": ("topic",),
            "leader": ("topic", "partition", "broker"),
            "not_leader": ("topic", "broker"),
            "preferred_leaders": ("topic",),
            "isr": ("topic", "partition", "isr"),
            "elr": ("topic", "partition", "elr"),
        }
        missing = [name for name in needs[self.until] if getattr(self, name) is None]
        if missing:
            raise ValueError(f"wait until {self.until} needs {', '.join(missing)}")
        return self


class CreateTopic(_Step):
    """Create a topic with Kafka's ``TopicCommand``."""

    op: Literal["create_topic"]
    topic: str
    partitions: int | None = Field(default=None, gt=0)
    replication_factor: int | None = Field(default=None, gt=0)
    assignment: list[list[int]] | None = None
    configs: dict[str, ConfigValue] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _shape(self) -> CreateTopic:
        by_count = self.partitions is not None and self.replication_factor is not None
        if by_count == (self.assignment is not None):
            raise ValueError("give partitions and replication_factor, or an assignment")
        return self


class Produce(_Step):
    """Produce records with Kafka's ``ProducerPerformance`` (acks=all)."""

    op: Literal["produce"]
    topic: str
    records: int = Field(gt=0)
    record_size: int = Field(default=100, gt=0)


class Kill(_Step):
    """``kill -9`` a broker."""

    op: Literal["kill"]
    broker: BrokerRef


class Stop(_Step):
    """Stop a broker with SIGTERM: Kafka's controlled shutdown."""

    op: Literal["stop"]
    broker: BrokerRef
    timeout_s: float = Field(default=120, gt=0)


class Start(_Step):
    """Start a stopped broker and wait until it is registered."""

    op: Literal["start"]
    broker: int | Literal["last_stopped"]
    timeout_s: float = Field(default=120, gt=0)


class KillController(_Step):
    """``kill -9`` the active controller."""

    op: Literal["kill_controller"]


class AlterTopicConfig(_Step):
    """Set or delete topic configs with Kafka's ``ConfigCommand``."""

    op: Literal["alter_topic_config"]
    topic: str
    set: dict[str, ConfigValue] = Field(default_factory=dict)
    delete: list[str] = Field(default_factory=list)


class PreferredElection(_Step):
    """An admin preferred election with Kafka's ``LeaderElectionCommand``."""

    op: Literal["preferred_election"]
    topic: str
    partition: int | None = None


class Reassign(_Step):
    """Reassign one partition with Kafka's ``ReassignPartitionsCommand --execute``."""

    op: Literal["reassign"]
    topic: str
    partition: int
    replicas: list[int] = Field(min_length=1)


class DeleteTopic(_Step):
    """Delete a topic with Kafka's ``TopicCommand``."""

    op: Literal["delete_topic"]
    topic: str


class Sleep(_Step):
    """Do nothing for a while."""

    op: Literal["sleep"]
    seconds: float = Field(ge=0)


Step = Annotated[
    Wait
    | CreateTopic
    | Produce
    | Kill
    | Stop
    | Start
    | KillController
    | AlterTopicConfig
    | PreferredElection
    | Reassign
    | DeleteTopic
    | Sleep,
    Field(discriminator="op"),
]


class Scenario(BaseModel):
    """A whole scenario file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    description: str = ""
    brokers: int = Field(default=3, ge=1, le=9)
    controllers: int = Field(default=1, ge=1, le=5)
    broker_config: dict[str, ConfigValue] = Field(default_factory=dict)
    controller_config: dict[str, ConfigValue] = Field(default_factory=dict)
    """KRaft only: server.properties overrides of the controller nodes (101 ...) alone, over
    ``broker_config``; ZooKeeper mode refuses a scenario that sets any."""
    teardown: Literal["kill", "stop"] = "kill"
    steps: list[Step] = Field(min_length=1)

    @property
    def controller_ids(self) -> list[int]:
        """The KRaft controllers' node ids (101 ...)."""
        return [FIRST_CONTROLLER_ID + k for k in range(self.controllers)]

    @model_validator(mode="after")
    def _brokers_exist(self) -> Scenario:
        ids = set(range(1, self.brokers + 1))
        nodes = ids | set(self.controller_ids)
        for number, step in enumerate(self.steps, start=1):
            node = getattr(step, "broker", None)
            named = [] if node in nodes and isinstance(step, Kill | Stop | Start) else [node]
            named += list(getattr(step, "replicas", None) or [])
            named += list(getattr(step, "isr", None) or [])
            named += list(getattr(step, "elr", None) or [])
            for replicas in getattr(step, "assignment", None) or []:
                named += replicas
            if isinstance(step, Wait) and step.until == "controller":
                named = [] if node in nodes else named
            unknown = {b for b in named if isinstance(b, int) and b not in ids and b != -1}
            if unknown:
                raise ValueError(f"step {number} ({step.op}): no broker {sorted(unknown)}")
        return self


def load_scenario(path: Path) -> Scenario:
    """Read and validate a scenario file.

    Args:
        path: the YAML file.

    Returns:
        The validated scenario.

    Raises:
        pydantic.ValidationError: the file does not follow the format.
        OSError: the file cannot be read.
    """
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    return Scenario.model_validate(document)


def config_text(value: ConfigValue) -> str:
    """A config value as Kafka's properties and tools spell it (``true``, not ``True``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
