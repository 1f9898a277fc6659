"""What can happen to a simulated cluster: timed operations, from a script or a random mix.

Each operation is a frozen dataclass with its time ``at_us`` (µs since the Unix epoch). Targets
left ``None`` are drawn by the simulator at the time the operation runs (from the live brokers,
the partitions that can take it...), with the run's seeded random generator, so a random mix
never names a broker or partition that is gone by then.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class StartBroker:
    """A broker process starts: a new ZooKeeper session, its registration, maybe an election.

    ``reregistration``: the process kept running and only re-registers with a new session (after
    its session expired), so its controller event thread does not start again.
    """

    at_us: int
    broker: int
    reregistration: bool = False


@dataclass(frozen=True, slots=True)
class CrashBroker:
    """A broker dies (or stalls): its session expires and the controller fails it over.

    ``restart_after_s``: when to start it again (``None``: stays down).
    """

    at_us: int
    broker: int | None = None
    restart_after_s: float | None = None


@dataclass(frozen=True, slots=True)
class StopBroker:
    """A clean stop: controlled shutdown through the controller, then the session is closed."""

    at_us: int
    broker: int | None = None
    restart_after_s: float | None = None


@dataclass(frozen=True, slots=True)
class RollingRestart:
    """Every live broker (or ``brokers``) stopped cleanly and restarted, one after the other."""

    at_us: int
    brokers: tuple[int, ...] | None = None
    interval_s: float = 120.0
    down_s: float = 45.0


@dataclass(frozen=True, slots=True)
class ShrinkIsr:
    """A slow follower drops out of a partition's ISR (the leader shrinks it).

    ``expand_after_s``: when it catches up and is added back (``None``: it does not).
    """

    at_us: int
    topic: str | None = None
    partition: int | None = None
    replica: int | None = None
    expand_after_s: float | None = None


@dataclass(frozen=True, slots=True)
class ExpandIsr:
    """A follower catches up and the leader adds it back to the ISR."""

    at_us: int
    topic: str
    partition: int
    replica: int


@dataclass(frozen=True, slots=True)
class CatchUp:
    """Restarted followers have caught up: their leaders add them back to the ISRs, in batches.

    ``items``: (topic, partition, follower). Each leader sends one AlterIsr request (2.7+) or
    writes the ISRs and one ISR change notification (before) for its partitions.
    """

    at_us: int
    items: tuple[tuple[str, int, int], ...]


@dataclass(frozen=True, slots=True)
class ExpireControllerSession:
    """The controller's ZooKeeper session expires (a long pause): another broker takes over.

    ``successor``: the broker that wins the election (``None``: drawn); the old controller
    re-registers ``reregister_after_s`` later.
    """

    at_us: int
    successor: int | None = None
    reregister_after_s: float = 6.0


@dataclass(frozen=True, slots=True)
class AutoRebalance:
    """One run of the controller's auto leader rebalance task."""

    at_us: int
    epoch: int | None = None
    """The controller epoch that scheduled it (a stale schedule is dropped); ``None``: forced."""


@dataclass(frozen=True, slots=True)
class CreateTopic:
    """A topic is created, with an explicit assignment or Kafka's rack-unaware one."""

    at_us: int
    topic: str
    partitions: int = 1
    replication_factor: int = 3
    assignment: Mapping[int, tuple[int, ...]] | None = None
    config: Mapping[str, str] = field(default_factory=dict)
    deletable: bool = False
    """A random mix may delete it later (the initial topics stay)."""


@dataclass(frozen=True, slots=True)
class DeleteTopic:
    """A topic deletion is requested (``None``: one drawn among the simulator's own topics)."""

    at_us: int
    topic: str | None = None


@dataclass(frozen=True, slots=True)
class Reassign:
    """A partition is moved to ``replicas`` (``None``: a new set drawn among live brokers).

    ``complete_after_s``: when the new replicas have caught up and the move completes.
    """

    at_us: int
    topic: str | None = None
    partition: int | None = None
    replicas: tuple[int, ...] | None = None
    complete_after_s: float | None = 60.0


@dataclass(frozen=True, slots=True)
class CompleteReassignment:
    """The target replicas of a reassignment have caught up: the leader adds them to the ISR."""

    at_us: int
    topic: str
    partition: int


@dataclass(frozen=True, slots=True)
class SetTopicConfig:
    """A dynamic topic config change (``unclean.leader.election.enable`` matters here)."""

    at_us: int
    topic: str
    key: str
    value: str | None


@dataclass(frozen=True, slots=True)
class IsolateLeader:
    """The road to an unclean election: a partition's ISR shrinks to its leader, which dies.

    Picks a partition of a topic with ``unclean.leader.election.enable=true`` (``topic`` /
    ``partition`` when given), shrinks its ISR to the leader alone, then crashes the leader
    ``crash_after_s`` later; an out-of-sync replica on a live broker is then elected.
    """

    at_us: int
    topic: str | None = None
    partition: int | None = None
    crash_after_s: float = 20.0
    restart_after_s: float | None = 300.0


Op = (
    StartBroker
    | CrashBroker
    | StopBroker
    | RollingRestart
    | ShrinkIsr
    | ExpandIsr
    | CatchUp
    | ExpireControllerSession
    | AutoRebalance
    | CreateTopic
    | DeleteTopic
    | Reassign
    | CompleteReassignment
    | SetTopicConfig
    | IsolateLeader
)
"""Any operation."""


def op_name(op: Op) -> str:
    """The operation's snake-case name (as scripts and the ground truth spell it)."""
    return _NAMES[type(op)]


_NAMES: dict[type, str] = {
    StartBroker: "start_broker",
    CrashBroker: "crash_broker",
    StopBroker: "stop_broker",
    RollingRestart: "rolling_restart",
    ShrinkIsr: "shrink_isr",
    ExpandIsr: "expand_isr",
    CatchUp: "catch_up",
    ExpireControllerSession: "expire_controller_session",
    AutoRebalance: "auto_rebalance",
    CreateTopic: "create_topic",
    DeleteTopic: "delete_topic",
    Reassign: "reassign",
    CompleteReassignment: "complete_reassignment",
    SetTopicConfig: "set_topic_config",
    IsolateLeader: "isolate_leader",
}
