"""``Cluster``: the simulated cluster's state and the primitives every operation shares.

Per broker process (``BrokerRuntime``), per partition, the controller and its epoch, the
ZooKeeper history and the renderer of the release; helpers that read the controller's state,
open and close sessions, register brokers and write topic znodes. The operations themselves
are functions of a ``Cluster`` (``brokers``, ``partitions``, ``topics``, ``reassignment``),
dispatched by ``engine``.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TextIO

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import (
    LeaderAndIsr,
    TopicPartition,
)
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.zkcontroller.cluster import ClusterSpec, ControllerConfig
from kafkactl_core.zkcontroller.results import OpResult
from kafkactl_lab.simulate import ops as o
from kafkactl_lab.simulate import znodes
from kafkactl_lab.simulate.clock import Clock, iso_ms
from kafkactl_lab.simulate.history import Check, ZkHistory
from kafkactl_lab.simulate.output import Emitter, LineSink
from kafkactl_lab.simulate.recording import (
    RecordingController,
)
from kafkactl_lab.simulate.render import Renderer28
from kafkactl_lab.simulate.scala import ScalaVersion

P = ParamSpec("P")
UNCLEAN = "unclean.leader.election.enable"
REASSIGN_ZNODE = "/admin/reassign_partitions"


@dataclass(slots=True)
class BrokerRuntime:
    """What the simulator tracks about one broker process.

    Attributes:
        broker: the broker id.
        registered: its ``/brokers/ids`` znode exists.
        session: its current ZooKeeper session (history name).
        sessions: sessions opened so far.
        epoch: the broker epoch (czxid of its registration).
        epochs: leader epochs it has applied since it started.
        correlation: correlation ids used on the current controller's channel to it.
        connected: the current controller's channel has connected.
    """

    broker: int
    registered: bool = False
    session: str | None = None
    sessions: int = 0
    epoch: int = -1
    epochs: dict[TopicPartition, int] = field(default_factory=dict)
    correlation: int = 0
    connected: bool = False


@dataclass(slots=True)
class SimulationStats:
    """Counts of what a run produced."""

    operations: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    lines: int = 0
    transactions: int = 0
    elections: int = 0
    unclean_elections: int = 0
    failed_elections: int = 0
    controller_epoch: int = 0
    end_ms: int = 0

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "operations": dict(sorted(self.operations.items())),
            "skipped": dict(sorted(self.skipped.items())),
            "lines": self.lines,
            "zk_transactions": self.transactions,
            "elections": self.elections,
            "unclean_elections": self.unclean_elections,
            "failed_elections": self.failed_elections,
            "controller_epoch": self.controller_epoch,
            "end": iso_ms(self.end_ms),
        }


@dataclass(frozen=True, slots=True)
class SimulatorOptions:
    """How the simulated cluster is configured (beyond the operations).

    Attributes:
        auto_rebalance_interval_s: ``leader.imbalance.check.interval.seconds``.
        leader_imbalance_percentage: ``leader.imbalance.per.broker.percentage``.
        auto_rebalance: ``auto.leader.rebalance.enable``.
        unclean_default: the brokers' ``unclean.leader.election.enable`` (``None``: default).
        seed: seeds the choices the simulator makes (targets, offsets, ids).
        end_us: operations after this time are not run.
    """

    auto_rebalance_interval_s: float = 300.0
    leader_imbalance_percentage: int = 10
    auto_rebalance: bool = True
    unclean_default: bool | None = None
    seed: int = 0
    end_us: int | None = None


@dataclass(frozen=True, slots=True)
class EngineCall:
    """One call into the scenario engine and its result (kept when a test asks for them)."""

    method: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...]
    result: OpResult


def us(seconds: float) -> int:
    """Seconds as whole microseconds."""
    return int(seconds * 1_000_000)


class Cluster:
    """A simulated cluster of one release (see the module docstring)."""

    def __init__(
        self,
        renderer_type: type[Renderer28],
        clock: Clock,
        sink: LineSink,
        history_out: TextIO | None,
        truth_out: TextIO | None,
        options: SimulatorOptions | None = None,
        *,
        collect: bool = False,
    ) -> None:
        """Set up an empty cluster (no broker registered yet).

        Args:
            renderer_type: the release's renderer class.
            clock: simulated time.
            sink: where log lines go.
            history_out: where the ZooKeeper history goes (``None``: not written).
            truth_out: where the ground-truth elections go (``None``: not written).
            options: cluster settings.
            collect: keep every rendered line with its expectation, and every engine call
                with its result (tests).
        """
        self.options = options or SimulatorOptions()
        self.clock = clock
        self.out = Emitter(sink, clock, collect)
        self.r = renderer_type(self.out)
        self.history = ZkHistory(history_out, clock)
        self.truth_out = truth_out
        self.rng = random.Random(self.options.seed)
        self.profile = KafkaVersion.of(self.r.release)
        self.config = ControllerConfig(
            unclean_leader_election_enable=self.options.unclean_default,
            auto_leader_rebalance_enable=self.options.auto_rebalance,
            leader_imbalance_per_broker_percentage=self.options.leader_imbalance_percentage,
            leader_imbalance_check_interval_seconds=int(self.options.auto_rebalance_interval_s),
        )
        self.zk = RecordingController(ClusterSpec(self.profile, config=self.config))
        self.calls: list[EngineCall] | None = [] if collect else None
        self.brokers: dict[int, BrokerRuntime] = {}
        self.controller: int | None = None
        self.epoch = 0
        self.epoch_zk_version = 0
        self.topic_ids: dict[str, str] = {}
        self.state_epoch: dict[TopicPartition, int] = {}
        # when each partition's state znode was last written: an election's moment is that of
        # its leadership write, not the end of its batch (a big batch's requests and broker
        # lines take the clock seconds further before the elections are recorded)
        self.state_written_ms: dict[TopicPartition, int] = {}
        # failed election attempts of the current operation, until the write right after them
        # (or the operation's end) says what was in force after
        self.failed_attempts: dict[TopicPartition, dict[str, Any]] = {}
        self.traffic: dict[TopicPartition, tuple[int, float]] = {}
        self.deleting: set[str] = set()
        self.deletable: set[str] = set()
        self.pending_expand: set[TopicPartition] = set()
        self.catching_up: set[tuple[TopicPartition, int]] = set()
        self.admin_session: str | None = None
        self.stats = SimulationStats()
        self._queue: list[tuple[int, int, o.Op]] = []
        self._seq = 0
        self.current_op = ""

    def schedule(self, op: o.Op) -> None:
        """Queue an operation the simulator decided itself (restarts, follow-ups, timers)."""
        self._seq += 1
        heapq.heappush(self._queue, (op.at_us, self._seq, op))

    def call(self, method: Callable[P, OpResult], /, *args: P.args, **kwargs: P.kwargs) -> OpResult:
        """Call the scenario engine (recording the call and its result when collecting).

        Args:
            method: a method of ``self.zk``.
            *args: its arguments.
            **kwargs: its keyword arguments.

        Returns:
            Its result.
        """
        result = method(*args, **kwargs)
        if self.calls is not None:
            name = method.__name__
            self.calls.append(EngineCall(name, args, tuple(sorted(kwargs.items())), result))
        return result

    @property
    def live(self) -> list[int]:
        """Registered brokers, sorted."""
        return sorted(b for b, s in self.brokers.items() if s.registered)

    def runtime(self, broker: int) -> BrokerRuntime:
        """The broker's runtime record (created on first use)."""
        found = self.brokers.get(broker)
        if found is None:
            found = self.brokers[broker] = BrokerRuntime(broker)
        return found

    def session(self, broker: int) -> str:
        """The broker's current ZooKeeper session (it must have one)."""
        session = self.brokers[broker].session
        if session is None:
            raise RuntimeError(f"broker {broker} has no ZooKeeper session")
        return session

    def active_controller(self) -> int:
        """The active controller (there must be one)."""
        if self.controller is None:
            raise RuntimeError("no active controller")
        return self.controller

    def admin(self) -> str:
        """The admin tools' session (opened when the first broker starts)."""
        if self.admin_session is None:
            raise RuntimeError("no admin session (no broker has started yet)")
        return self.admin_session

    def check(self) -> Check | None:
        """The controller-epoch check of the controller's writes (2.2+), else ``None``."""
        if not self.r.fenced_writes:
            return None
        return Check("/controller_epoch", self.epoch_zk_version)

    def log_end(self, tp: TopicPartition) -> int:
        """The partition's log end offset now, from its simulated traffic."""
        start, rate = self.traffic.get(tp, (self.clock.now_us, 0.0))
        return int(max(0, self.clock.now_us - start) / 1_000_000 * rate)

    def assignment(self, tp: TopicPartition) -> ReplicaAssignment:
        """The partition's replica assignment (the controller's, else ZooKeeper's)."""
        if self.zk.has_controller:
            return self.zk.ctx.assignment(tp)
        return self.zk.zk_assignments.get(tp, ReplicaAssignment(()))

    def leadership(self, tp: TopicPartition) -> LeaderAndIsr | None:
        """The partition's leadership in its state znode (``None``: none yet)."""
        return self.zk.store.data.get(tp)

    def topics(self) -> list[str]:
        """The topics in ZooKeeper, sorted."""
        return sorted({tp.topic for tp in self.zk.zk_assignments})

    def partitions_of(self, topic: str) -> list[TopicPartition]:
        """The topic's partitions in ZooKeeper, sorted."""
        return sorted(tp for tp in self.zk.zk_assignments if tp.topic == topic)

    def uuid(self) -> str:
        """A Kafka ``Uuid`` rendered base64url without padding (22 characters)."""
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        bits = self.rng.getrandbits(128) << 4
        return "".join(alphabet[(bits >> (6 * (21 - i))) & 63] for i in range(22))

    def topic_id(self, topic: str) -> str:
        """The topic's id (drawn on first use)."""
        found = self.topic_ids.get(topic)
        if found is None:
            found = self.topic_ids[topic] = self.uuid()
        return found

    def write_topic_znode(
        self,
        topic: str,
        session: str,
        check: Check | None,
        *,
        create: bool,
        override: Mapping[TopicPartition, ReplicaAssignment] | None = None,
    ) -> None:
        """Writes ``/brokers/topics/<topic>`` (``override``: assignments to write instead)."""
        parts = {
            tp.partition: (override or {}).get(tp, self.assignment(tp))
            for tp in self.partitions_of(topic)
        }
        data = znodes.topic_assignment(
            parts,
            version=self.r.topic_znode_version,
            topic_id=self.topic_id(topic) if self.r.topic_ids else None,
        )
        path = f"/brokers/topics/{topic}"
        self.history.write("create" if create else "setData", session, path, data, check=check)

    def open_session(self, broker: int) -> str:
        """Opens the broker's next ZooKeeper session; its history name."""
        runtime = self.runtime(broker)
        runtime.sessions += 1
        name = f"broker-{broker}#{runtime.sessions}"
        self.history.create_session(name, self.r.session_timeout_ms, broker)
        runtime.session = name
        return name

    def bootstrap_paths(self, session: str) -> None:
        """``createTopLevelPaths`` and the cluster id, by the first broker that starts."""
        for path in self.r.top_level_paths:
            self.history.ensure(session, path)
        self.history.write("create", session, "/cluster", None)
        self.history.write("create", session, "/cluster/id", znodes.cluster_id(self.uuid()))

    def register(self, broker: int) -> None:
        """The broker opens a session and registers (the first one creates the top-level paths)."""
        runtime = self.runtime(broker)
        session = self.open_session(broker)
        if self.admin_session is None:
            self.bootstrap_paths(session)
            self.admin_session = "admin#1"
            self.history.create_session(self.admin_session, 30_000, None)
        data = znodes.broker_registration(
            broker,
            self.clock.now_ms,
            version=self.r.registration_version,
            scala_213=self.r.scala is ScalaVersion.v2_13,
        )
        path = f"/brokers/ids/{broker}"
        runtime.epoch = self.history.write("create", session, path, data, ephemeral=True)
        runtime.registered = True
        runtime.epochs = {}
        runtime.connected = False
        runtime.correlation = 0

    def unregister(self, broker: int, *, expired: bool) -> None:
        """The broker's session closes (or expires): its registration goes."""
        runtime = self.brokers[broker]
        self.history.close_session(self.session(broker), expired=expired)
        runtime.session = None
        runtime.registered = False
        runtime.epochs = {}

    def pick_live(self, wanted: int | None) -> int | None:
        """``wanted`` if it is live, else a live broker drawn (``None``: none fits)."""
        live = self.live
        if wanted is not None:
            return wanted if wanted in live else None
        return self.rng.choice(live) if live else None

    def schedule_rebalance(self, at_us: int) -> None:
        """Schedules the controller's next auto-rebalance check (when enabled)."""
        if self.options.auto_rebalance:
            self.schedule(o.AutoRebalance(at_us, self.epoch))
