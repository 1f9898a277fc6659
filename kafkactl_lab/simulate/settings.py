"""Settings of a simulation and the scripts that replace its random mix (pydantic models).

``SimulationSettings`` describes the cluster (brokers, topics, partitions, replication factor,
release), how long it runs, the seed and the rates of the random mix (``MixRates``). A
``Script`` is a JSON document listing timed operations (``steps``) and, optionally, settings
that override the command line's defaults; times are seconds after the start (``90``),
``HH:MM:SS`` offsets (``"01:30:00"``) or absolute ISO 8601 times.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from kafkactl_lab.simulate import ops as o
from kafkactl_lab.simulate.clock import UTC, to_us

DEFAULT_START = dt.datetime(2024, 3, 5, 8, 0, tzinfo=UTC)


class MixRates(BaseModel):
    """Average rates of the random mix, per hour of simulated time for the whole cluster."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    crash_broker: float = Field(0.25, ge=0)
    stop_broker: float = Field(0.5, ge=0)
    rolling_restart: float = Field(1 / 24, ge=0)
    shrink_isr_per_1000_partitions: float = Field(20.0, ge=0)
    expire_controller_session: float = Field(0.1, ge=0)
    reassign: float = Field(1.0, ge=0)
    create_topic: float = Field(0.5, ge=0)
    delete_topic: float = Field(0.3, ge=0)
    isolate_leader: float = Field(0.05, ge=0)


class SimulationSettings(BaseModel):
    """A simulated cluster and run.

    Attributes:
        kafka_version: the release whose formats are written (``2.8`` or ``1.0``).
        brokers: number of brokers (ids from ``first_broker_id``).
        topics: topics created at the start by the random mix.
        partitions_per_topic: their partitions.
        replication_factor: their replication factor.
        hours: simulated duration.
        seed: seeds every random choice (same seed, same output).
        start: the simulated start time (UTC).
        first_broker_id: the lowest broker id.
        unclean_topic_fraction: share of the initial topics created with
            ``unclean.leader.election.enable=true``.
        unclean_broker_default: the brokers' own setting (``None``: the release's default).
        auto_rebalance: ``auto.leader.rebalance.enable``.
        auto_rebalance_interval_s: ``leader.imbalance.check.interval.seconds``.
        leader_imbalance_percentage: ``leader.imbalance.per.broker.percentage``.
        random_mix: run the random operations mix (off for scripts unless they ask).
        rates: the mix's rates.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kafka_version: str = "2.8"
    brokers: int = Field(3, ge=1, le=10_000)
    topics: int = Field(3, ge=0)
    partitions_per_topic: int = Field(3, ge=1)
    replication_factor: int = Field(3, ge=1)
    hours: float = Field(1.0, gt=0)
    seed: int = 0
    start: dt.datetime = DEFAULT_START
    first_broker_id: int = Field(1, ge=0)
    unclean_topic_fraction: float = Field(0.1, ge=0, le=1)
    unclean_broker_default: bool | None = None
    auto_rebalance: bool = True
    auto_rebalance_interval_s: float = Field(300.0, gt=0)
    leader_imbalance_percentage: int = Field(10, ge=0, le=100)
    random_mix: bool = True
    rates: MixRates = MixRates()

    @field_validator("start")
    @classmethod
    def _aware(cls, value: dt.datetime) -> dt.datetime:
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)

    @property
    def start_us(self) -> int:
        """The start as µs since the epoch."""
        return to_us(self.start)

    @property
    def end_us(self) -> int:
        """The end as µs since the epoch."""
        return self.start_us + int(self.hours * 3_600_000_000)

    @property
    def broker_ids(self) -> list[int]:
        """The broker ids."""
        return list(range(self.first_broker_id, self.first_broker_id + self.brokers))


_OFFSET = re.compile(r"^(\d+):(\d\d):(\d\d(?:\.\d+)?)$")


def parse_time(value: float | str, start_us: int) -> int:
    """A script time as µs since the epoch.

    Args:
        value: seconds after the start, an ``HH:MM:SS`` offset or an ISO 8601 time.
        start_us: the simulation's start.

    Returns:
        The time in µs.

    Raises:
        ValueError: for a time that is none of these.
    """
    if isinstance(value, (int, float)):
        return start_us + int(float(value) * 1_000_000)
    match = _OFFSET.match(value.strip())
    if match:
        h, m, sec = match.groups()
        return start_us + int((int(h) * 3600 + int(m) * 60 + float(sec)) * 1_000_000)
    moment = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return to_us(moment)


class _Step(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    at: float | str
    note: str | None = None
    """A free comment (the demo's README is written from these)."""


class StartBrokerStep(_Step):
    """Start a broker."""

    op: Literal["start_broker"]
    broker: int


class CrashBrokerStep(_Step):
    """Crash a broker (its session expires); optionally restart it."""

    op: Literal["crash_broker"]
    broker: int | None = None
    restart_after_s: float | None = None


class StopBrokerStep(_Step):
    """Stop a broker cleanly (controlled shutdown); optionally restart it."""

    op: Literal["stop_broker"]
    broker: int | None = None
    restart_after_s: float | None = None


class RollingRestartStep(_Step):
    """Restart brokers one after the other."""

    op: Literal["rolling_restart"]
    brokers: list[int] | None = None
    interval_s: float = 120.0
    down_s: float = 45.0


class ShrinkIsrStep(_Step):
    """A follower falls out of a partition's ISR."""

    op: Literal["shrink_isr"]
    topic: str | None = None
    partition: int | None = None
    replica: int | None = None
    expand_after_s: float | None = None


class ExpandIsrStep(_Step):
    """A follower rejoins a partition's ISR."""

    op: Literal["expand_isr"]
    topic: str
    partition: int
    replica: int


class ExpireControllerStep(_Step):
    """The controller's ZooKeeper session expires."""

    op: Literal["expire_controller_session"]
    successor: int | None = None
    reregister_after_s: float = 6.0


class AutoRebalanceStep(_Step):
    """An extra run of the auto-rebalance task."""

    op: Literal["auto_rebalance"]


class CreateTopicStep(_Step):
    """Create a topic."""

    op: Literal["create_topic"]
    topic: str
    partitions: int = 1
    replication_factor: int = 3
    assignment: dict[int, list[int]] | None = None
    config: dict[str, str] = Field(default_factory=dict)


class DeleteTopicStep(_Step):
    """Delete a topic."""

    op: Literal["delete_topic"]
    topic: str | None = None


class ReassignStep(_Step):
    """Reassign a partition."""

    op: Literal["reassign"]
    topic: str | None = None
    partition: int | None = None
    replicas: list[int] | None = None
    complete_after_s: float | None = 60.0


class CompleteReassignmentStep(_Step):
    """Let a reassignment's new replicas catch up."""

    op: Literal["complete_reassignment"]
    topic: str
    partition: int


class SetTopicConfigStep(_Step):
    """Change a topic config."""

    op: Literal["set_topic_config"]
    topic: str
    key: str
    value: str | None


class IsolateLeaderStep(_Step):
    """Shrink a partition's ISR to its leader, then crash the leader."""

    op: Literal["isolate_leader"]
    topic: str | None = None
    partition: int | None = None
    crash_after_s: float = 20.0
    restart_after_s: float | None = 300.0


ScriptStep = Annotated[
    StartBrokerStep
    | CrashBrokerStep
    | StopBrokerStep
    | RollingRestartStep
    | ShrinkIsrStep
    | ExpandIsrStep
    | ExpireControllerStep
    | AutoRebalanceStep
    | CreateTopicStep
    | DeleteTopicStep
    | ReassignStep
    | CompleteReassignmentStep
    | SetTopicConfigStep
    | IsolateLeaderStep,
    Field(discriminator="op"),
]


class Script(BaseModel):
    """A hand-written scenario.

    Attributes:
        description: what it shows.
        settings: overrides of the command line's settings (same keys as
            ``SimulationSettings``); ``random_mix`` defaults to false for scripts.
        bootstrap: start every broker at the beginning (one second apart).
        steps: the timed operations.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    description: str = ""
    settings: dict[str, Any] = Field(default_factory=dict)
    bootstrap: bool = True
    steps: list[ScriptStep] = Field(default_factory=list)


def load_script(path: str | os.PathLike[str]) -> Script:
    """Read and validate a script file.

    Args:
        path: a JSON file.

    Returns:
        The script.

    Raises:
        ValueError: the file is not valid JSON or not a valid script (pydantic's message).
        OSError: the file cannot be read.
    """
    with open(path, encoding="utf-8") as f:
        try:
            raw = json.load(f)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{os.fspath(path)}: not JSON: {exc}") from None
    return TypeAdapter(Script).validate_python(raw)


def step_to_op(step: ScriptStep, start_us: int) -> o.Op:
    """A script step as an operation at its time."""
    at = parse_time(step.at, start_us)
    if isinstance(step, StartBrokerStep):
        return o.StartBroker(at, step.broker)
    if isinstance(step, CrashBrokerStep):
        return o.CrashBroker(at, step.broker, step.restart_after_s)
    if isinstance(step, StopBrokerStep):
        return o.StopBroker(at, step.broker, step.restart_after_s)
    if isinstance(step, RollingRestartStep):
        brokers = None if step.brokers is None else tuple(step.brokers)
        return o.RollingRestart(at, brokers, step.interval_s, step.down_s)
    if isinstance(step, ShrinkIsrStep):
        return o.ShrinkIsr(at, step.topic, step.partition, step.replica, step.expand_after_s)
    if isinstance(step, ExpandIsrStep):
        return o.ExpandIsr(at, step.topic, step.partition, step.replica)
    if isinstance(step, ExpireControllerStep):
        return o.ExpireControllerSession(at, step.successor, step.reregister_after_s)
    if isinstance(step, AutoRebalanceStep):
        return o.AutoRebalance(at)
    if isinstance(step, CreateTopicStep):
        assignment = (
            None
            if step.assignment is None
            else {int(p): tuple(r) for p, r in step.assignment.items()}
        )
        return o.CreateTopic(
            at,
            step.topic,
            step.partitions if assignment is None else len(assignment),
            step.replication_factor,
            assignment,
            dict(step.config),
        )
    if isinstance(step, DeleteTopicStep):
        return o.DeleteTopic(at, step.topic)
    if isinstance(step, ReassignStep):
        replicas = None if step.replicas is None else tuple(step.replicas)
        return o.Reassign(at, step.topic, step.partition, replicas, step.complete_after_s)
    if isinstance(step, CompleteReassignmentStep):
        return o.CompleteReassignment(at, step.topic, step.partition)
    if isinstance(step, SetTopicConfigStep):
        return o.SetTopicConfig(at, step.topic, step.key, step.value)
    return o.IsolateLeader(at, step.topic, step.partition, step.crash_after_s, step.restart_after_s)
