"""``Simulator``: runs the scenario engine through timed operations, writing what a cluster writes.

For each operation the simulator does what the brokers, the admin tools and ZooKeeper would do
around the controller: sessions open, expire and close; brokers register; tools write topic,
config and admin znodes; the controller (``RecordingController``) reacts. It then walks the
controller's trace step by step and, in that order, writes the ZooKeeper transactions
(``ZkHistory``), the controller's and brokers' log lines (the release's renderer) and the
ground-truth record of every election. Requests the controller sends are delivered to the live
brokers, which log what they do with them (become leader or follower, ignore a stale epoch,
cache metadata). Nothing accumulates: lines, transactions and elections are written as they
happen; the state kept is per broker and per partition.
"""

from __future__ import annotations

import heapq
import json
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import (
    NO_LEADER,
    ElectionStrategy,
    ElectionTrigger,
    LeaderAndIsr,
    PartitionState,
    ReplicaState,
    TopicPartition,
)
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.simulate import ops as o
from kafkactl_core.simulate import znodes
from kafkactl_core.simulate.clock import Clock, iso_ms
from kafkactl_core.simulate.history import Check, ZkHistory
from kafkactl_core.simulate.output import Emitter, LineSink
from kafkactl_core.simulate.recording import (
    EpochBump,
    IsrUpdate,
    LeadershipWrite,
    PartitionBatch,
    RecordingController,
    ReplicaBatch,
    Requests,
    Step,
)
from kafkactl_core.simulate.render import (
    FollowerStart,
    LaiEntry,
    LaiOutcome,
    LeaderStart,
    Renderer28,
    RequestInfo,
)
from kafkactl_core.simulate.scala import ScalaVersion, champ_order, immutable_set_order
from kafkactl_core.zkcontroller.cluster import ClusterSpec, ControllerConfig
from kafkactl_core.zkcontroller.partition_sm import TRIGGER_OF_STRATEGY
from kafkactl_core.zkcontroller.requests import (
    LeaderAndIsrRequest,
    StopReplicaRequest,
    UpdateMetadataRequest,
)
from kafkactl_core.zkcontroller.results import OpResult
from kafkactl_core.zkcontroller.states import TransitionError, TransitionErrorKind

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


def _is_create(step: Step) -> bool:
    return isinstance(step, LeadershipWrite) and step.before is None and step.after is not None


def _us(seconds: float) -> int:
    return int(seconds * 1_000_000)


def _only(requests: Requests, tp: TopicPartition, replica: int | None) -> Requests:
    """The requests of a batch that concern one partition (and one replica)."""

    def mine(brokers: tuple[int, ...]) -> bool:
        return replica is None or replica in brokers

    return Requests(
        tuple(r for r in requests.leader_and_isr if r.partition == tp and mine(r.brokers)),
        tuple(r for r in requests.stop_replica if r.partition == tp and mine(r.brokers)),
        tuple(
            UpdateMetadataRequest(r.brokers, (tp,))
            for r in requests.update_metadata
            if tp in r.partitions
        ),
    )


def _per_partition(steps: Sequence[Step]) -> list[list[Step]]:
    """A trace of batches split into one sub-trace per partition (or replica) and batch.

    Each sub-trace is the partition's leadership writes followed by a batch holding only that
    partition (Kafka before 1.1 handles these partitions one at a time).
    """
    out: list[list[Step]] = []
    writes: list[LeadershipWrite] = []

    def take(tp: TopicPartition) -> list[Step]:
        mine = [w for w in writes if w.partition == tp]
        for w in mine:
            writes.remove(w)
        return list(mine)

    for step in steps:
        if isinstance(step, LeadershipWrite):
            writes.append(step)
            continue
        if isinstance(step, PartitionBatch):
            for tp, state in step.before:
                sub = PartitionBatch(
                    step.target,
                    step.strategy,
                    step.allow_unclean,
                    step.requested_by,
                    ((tp, state),),
                    {k: v for k, v in step.leadership_before.items() if k == tp},
                    {k: v for k, v in step.results.items() if k == tp},
                    tuple(e for e in step.elections if e.partition == tp),
                    _only(step.requests, tp, None),
                    step.triggered,
                )
                out.append([*take(tp), sub])
        elif isinstance(step, ReplicaBatch):
            leadership = dict(step.leadership_before)
            for key, replica_state in step.before:
                tp, replica = key
                removals = tuple(r for r in step.isr_removals if (r[0], r[1]) == key)
                replica_sub = ReplicaBatch(
                    step.target,
                    ((key, replica_state),),
                    {k: v for k, v in step.results.items() if k == key},
                    removals,
                    {tp: leadership[tp]} if tp in leadership else {},
                    _only(step.requests, tp, replica),
                    step.startup,
                )
                for _, _, _, after in removals:
                    leadership[tp] = after  # what the partition's next replica starts from
                out.append([*take(tp), replica_sub])
        else:
            out.append([*writes, step])
        if writes and out:
            out[-1][:0] = writes
        writes = []
    if writes:
        out.append(list(writes))
    return out


class Simulator:
    """Runs operations against a simulated cluster of one release (see the module docstring)."""

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
        self._op = ""

    # ================================================================== running

    def schedule(self, op: o.Op) -> None:
        """Queue an operation the simulator decided itself (restarts, follow-ups, timers)."""
        self._seq += 1
        heapq.heappush(self._queue, (op.at_us, self._seq, op))

    def run(self, operations: Iterable[o.Op]) -> SimulationStats:
        """Run ``operations`` (in time order) merged with the simulator's own follow-ups.

        Args:
            operations: the external operations, sorted by time (may be lazy).

        Returns:
            The run's counts.
        """
        source: Iterator[o.Op] = iter(operations)
        pending = next(source, None)
        end = self.options.end_us
        while pending is not None or self._queue:
            if pending is not None and (not self._queue or pending.at_us <= self._queue[0][0]):
                op = pending
                pending = next(source, None)
            else:
                op = heapq.heappop(self._queue)[2]
            if end is not None and op.at_us > end:
                continue
            self.apply(op)
        self.stats.lines = self.out.count
        self.stats.transactions = self.history.zxid
        self.stats.controller_epoch = self.epoch
        self.stats.end_ms = self.clock.now_ms
        return self.stats

    def apply(self, op: o.Op) -> None:
        """Run one operation at its time (or as soon as the previous one is done)."""
        self.clock.advance_to(op.at_us)
        name = o.op_name(op)
        self._op = name
        done = bool(getattr(self, f"_op_{name}")(op))
        for tp in list(self.failed_attempts):
            self._record_failure(tp, None)
        counts = self.stats.operations if done else self.stats.skipped
        counts[name] = counts.get(name, 0) + 1

    def _call(self, method: str, *args: Any, **kwargs: Any) -> OpResult:
        """Call the scenario engine (recording the call and its result when collecting)."""
        result: OpResult = getattr(self.zk, method)(*args, **kwargs)
        if self.calls is not None:
            self.calls.append(EngineCall(method, args, tuple(sorted(kwargs.items())), result))
        return result

    # ================================================================== helpers: state

    @property
    def live(self) -> list[int]:
        """Registered brokers, sorted."""
        return sorted(b for b, s in self.brokers.items() if s.registered)

    def _broker(self, broker: int) -> BrokerRuntime:
        found = self.brokers.get(broker)
        if found is None:
            found = self.brokers[broker] = BrokerRuntime(broker)
        return found

    def _session(self, broker: int) -> str:
        session = self.brokers[broker].session
        if session is None:
            raise RuntimeError(f"broker {broker} has no ZooKeeper session")
        return session

    def _controller(self) -> int:
        if self.controller is None:
            raise RuntimeError("no active controller")
        return self.controller

    def _admin(self) -> str:
        if self.admin_session is None:
            raise RuntimeError("no admin session (no broker has started yet)")
        return self.admin_session

    def _check(self) -> Check | None:
        if not self.r.fenced_writes:
            return None
        return Check("/controller_epoch", self.epoch_zk_version)

    def _log_end(self, tp: TopicPartition) -> int:
        start, rate = self.traffic.get(tp, (self.clock.now_us, 0.0))
        return int(max(0, self.clock.now_us - start) / 1_000_000 * rate)

    def _assignment(self, tp: TopicPartition) -> ReplicaAssignment:
        if self.zk.has_controller:
            return self.zk.ctx.assignment(tp)
        return self.zk.zk_assignments.get(tp, ReplicaAssignment(()))

    def _leadership(self, tp: TopicPartition) -> LeaderAndIsr | None:
        return self.zk.store.data.get(tp)

    def _topics(self) -> list[str]:
        return sorted({tp.topic for tp in self.zk.zk_assignments})

    def _partitions_of(self, topic: str) -> list[TopicPartition]:
        return sorted(tp for tp in self.zk.zk_assignments if tp.topic == topic)

    def _uuid(self) -> str:
        """A Kafka ``Uuid`` rendered base64url without padding (22 characters)."""
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        bits = self.rng.getrandbits(128) << 4
        return "".join(alphabet[(bits >> (6 * (21 - i))) & 63] for i in range(22))

    def _topic_id(self, topic: str) -> str:
        found = self.topic_ids.get(topic)
        if found is None:
            found = self.topic_ids[topic] = self._uuid()
        return found

    # ================================================================== helpers: ZooKeeper

    def _write_topic_znode(
        self,
        topic: str,
        session: str,
        check: Check | None,
        *,
        create: bool,
        override: Mapping[TopicPartition, ReplicaAssignment] | None = None,
    ) -> None:
        parts = {
            tp.partition: (override or {}).get(tp, self._assignment(tp))
            for tp in self._partitions_of(topic)
        }
        data = znodes.topic_assignment(
            parts,
            version=self.r.topic_znode_version,
            topic_id=self._topic_id(topic) if self.r.topic_ids else None,
        )
        path = f"/brokers/topics/{topic}"
        self.history.write("create" if create else "setData", session, path, data, check=check)

    def _state_write(self, write: LeadershipWrite, session: str, check: Check | None) -> None:
        tp, after = write.partition, write.after
        if after is None:
            return  # deletions are written with the topic's znodes
        self.state_epoch[tp] = self.epoch
        path = f"/brokers/topics/{tp.topic}/partitions/{tp.partition}/state"
        data = znodes.partition_state(after, self.epoch)
        if write.before is None:
            self.history.write("create", session, path, data, check=check)
        else:
            version = write.before.partition_epoch
            self.history.write("setData", session, path, data, version=version, check=check)
        self.state_written_ms[tp] = self.clock.now_ms
        if tp in self.failed_attempts:
            self._record_failure(tp, after)

    def _state_creates(self, writes: Sequence[LeadershipWrite], session: str) -> None:
        """``createTopicPartitionStatesRaw``: partitions dirs, partition dirs, then states."""
        check = self._check()
        for write in writes:
            path = f"/brokers/topics/{write.partition.topic}/partitions"
            if not self.history.exists(path):
                self.history.write("create", session, path, None, check=check)
        for write in writes:
            tp = write.partition
            path = f"/brokers/topics/{tp.topic}/partitions/{tp.partition}"
            if not self.history.exists(path):
                self.history.write("create", session, path, None, check=check)
        for write in writes:
            self._state_write(write, session, check)

    # ================================================================== trace processing

    def _steps(self, steps: Sequence[Step], *, isr_writer: int | None = None) -> None:
        """Write and render a trace in order.

        Args:
            steps: trace steps of the engine.
            isr_writer: the partition leader that changed an ISR (before 2.7 it writes the
                znode itself, with its own session).
        """
        i = 0
        while i < len(steps):
            step = steps[i]
            if isinstance(step, LeadershipWrite):
                c = self._controller()
                if _is_create(step):
                    j = i
                    while j < len(steps) and _is_create(steps[j]):
                        j += 1
                    creates = [s for s in steps[i:j] if isinstance(s, LeadershipWrite)]
                    self._state_creates(creates, self._session(c))
                    i = j
                    continue
                nxt = steps[i + 1] if i + 1 < len(steps) else None
                if isinstance(nxt, EpochBump) and nxt.partition == step.partition:
                    self.r.epoch_updating(c, step.partition)
                if isinstance(nxt, IsrUpdate) and isr_writer is not None and not self.r.alter_isr:
                    self._state_write(step, self._session(isr_writer), None)
                else:
                    self._state_write(step, self._session(c), self._check())
            elif isinstance(step, PartitionBatch):
                self._partition_batch(step)
            elif isinstance(step, ReplicaBatch):
                self._replica_batch(step)
            elif isinstance(step, EpochBump):
                self._epoch_bump(step)
            else:
                self._isr_update(step, isr_writer)
            i += 1

    def _partition_batch(self, batch: PartitionBatch) -> None:
        c = self._controller()
        if not batch.before:
            return  # Kafka skips an empty batch entirely
        ctx = self.zk.ctx
        live = sorted(ctx.live_broker_ids)
        self.r.partition_batch_begin(c, batch, live)
        changes: list[tuple[TopicPartition, PartitionState, LeaderAndIsr | None]] = []
        for tp, before in batch.before:
            result = batch.results.get(tp)
            if isinstance(result, TransitionError):
                self.r.partition_failed(
                    c, self.epoch, tp, before.name, batch.target.name, result.detail
                )
                if (
                    result.kind is TransitionErrorKind.state_change_failed
                    and batch.target is PartitionState.OnlinePartition
                ):
                    self._failed_attempt(batch, tp, before)
            else:
                changes.append((tp, before, result))
        assignments = {tp: ctx.assignment(tp) for tp, _ in batch.before}
        self.r.partition_changes(c, self.epoch, batch, changes, assignments, live)
        self._send(batch.requests)
        self._record_elections(batch)

    def _replica_batch(self, batch: ReplicaBatch) -> None:
        c = self._controller()
        if not batch.before:
            return
        self.r.replica_batch_begin(c, batch)
        moved: list[tuple[TopicPartition, int, str]] = []
        for (tp, replica), before in batch.before:
            result = batch.results.get((tp, replica))
            if isinstance(result, TransitionError):
                self.r.replica_failed(
                    c, self.epoch, tp, replica, before.name, batch.target.name, result.detail
                )
            else:
                moved.append((tp, replica, before.name))
        requests = batch.requests
        if batch.target is ReplicaState.OfflineReplica:
            requests = self._offline_requests(batch, moved)
        else:
            self.r.replica_changes(c, self.epoch, batch.target.name, moved)
        self._send(requests)

    def _offline_requests(
        self, batch: ReplicaBatch, moved: Sequence[tuple[TopicPartition, int, str]]
    ) -> Requests:
        """OfflineReplica: Kafka logs and re-sends the leadership of every partition it has.

        ``removeReplicasFromIsr`` returns the partitions whose ISR did not hold the replica as
        well (unchanged); each gets the state-change line and a LeaderAndIsr to the other
        replicas, unless its topic is being deleted. Each replica's line and request carry the
        leadership at its own step: the batch's starting leadership with the removals made so
        far (the operation may elect right after, as a controller failover does).
        """
        c = self._controller()
        ctx = self.zk.ctx
        stops = [StopReplicaRequest((r,), tp, False) for tp, r, _ in moved]
        lais: list[LeaderAndIsrRequest] = []
        updates = list(batch.requests.update_metadata)
        written = {(tp, r): (before, after) for tp, r, before, after in batch.isr_removals}
        leadership = dict(batch.leadership_before)
        for tp, replica, from_state in moved:
            removal = written.get((tp, replica))
            if removal is not None:
                leadership[tp] = removal[1]
            lai = leadership.get(tp)
            before = lai if removal is None else removal[0]
            state_epoch = self.state_epoch.get(tp, self.epoch)
            self.r.offline_replica(c, self.epoch, tp, replica, from_state, before, lai, state_epoch)
            if lai is None:
                continue
            if not ctx.is_queued_for_deletion(tp.topic):
                others = tuple(b for b in ctx.assignment(tp).replicas if b != replica)
                lais.append(LeaderAndIsrRequest(others, tp, lai, False))
        return Requests(tuple(lais), tuple(stops), tuple(updates))

    def _record_elections(self, batch: PartitionBatch) -> None:
        for record in batch.elections:
            self.stats.elections += 1
            if record.unclean:
                self.stats.unclean_elections += 1
            if self.truth_out is None:
                continue
            written = batch.results.get(record.partition)
            zk_version = written.partition_epoch if isinstance(written, LeaderAndIsr) else None
            before = batch.leadership_before.get(record.partition)
            ms = self.state_written_ms.get(record.partition, self.clock.now_ms)
            row = {
                "time": iso_ms(ms),
                "t": ms,
                "topic": record.partition.topic,
                "partition": record.partition.partition,
                "trigger": record.trigger.value,
                "strategy": None if record.strategy is None else record.strategy.value,
                "previous_leader": record.previous_leader,
                "new_leader": record.new_leader,
                "previous_leader_epoch": None if before is None else before.leader_epoch,
                "leader_epoch": record.leader_epoch,
                "zk_version": zk_version,
                "isr_before": list(record.isr_before),
                "isr_after": list(record.isr_after),
                "unclean": record.unclean,
                "leader_recovery_state": record.leader_recovery_state.name,
                "requested_by": None if record.requested_by is None else record.requested_by.value,
                "controller": self.controller,
                "controller_epoch": self.epoch,
                "operation": self._op,
            }
            self.truth_out.write(json.dumps(row, separators=(",", ":")) + "\n")

    def _failed_attempt(
        self, batch: PartitionBatch, tp: TopicPartition, state: PartitionState
    ) -> None:
        """A transition to OnlinePartition that elected nobody, at its failure line's time."""
        self.stats.failed_elections += 1
        if self.truth_out is None:
            return
        if tp in self.failed_attempts:
            self._record_failure(tp, None)
        before = batch.leadership_before.get(tp)
        if state is PartitionState.NewPartition:
            trigger = ElectionTrigger.new_partition
        elif batch.allow_unclean:
            trigger = ElectionTrigger.admin_unclean
        else:
            trigger = TRIGGER_OF_STRATEGY[batch.strategy or ElectionStrategy.offline]
        ms = self.clock.now_ms
        self.failed_attempts[tp] = {
            "time": iso_ms(ms),
            "t": ms,
            "topic": tp.topic,
            "partition": tp.partition,
            "trigger": trigger.value,
            "strategy": None if batch.strategy is None else batch.strategy.value,
            "previous_leader": None if before is None else before.leader,
            "new_leader": NO_LEADER,
            "previous_leader_epoch": None if before is None else before.leader_epoch,
            "previous_zk_version": None if before is None else before.partition_epoch,
            "leader_epoch": None if before is None else before.leader_epoch,
            "zk_version": None if before is None else before.partition_epoch,
            "isr_before": [] if before is None else list(before.isr),
            "isr_after": None if before is None else list(before.isr),
            "written_after": False,
            "unclean": None,
            "requested_by": None if batch.requested_by is None else batch.requested_by.value,
            "controller": self.controller,
            "controller_epoch": self.epoch,
            "operation": self._op,
        }

    def _record_failure(self, tp: TopicPartition, written: LeaderAndIsr | None) -> None:
        """Write a failed attempt to the ground truth with what was in force after it: the
        leader -1 written right after it (OfflineReplica), else what was there before."""
        row = self.failed_attempts.pop(tp)
        if self.truth_out is None:
            return
        if written is not None and written.leader == NO_LEADER:
            row["leader_epoch"] = written.leader_epoch
            row["zk_version"] = written.partition_epoch
            row["isr_after"] = list(written.isr)
            row["written_after"] = True
        self.truth_out.write(json.dumps(row, separators=(",", ":")) + "\n")

    def _epoch_bump(self, bump: EpochBump) -> None:
        """``updateLeaderEpochAndSendRequest`` of a reassignment."""
        c = self._controller()
        tp, lai = bump.partition, bump.after
        self.r.epoch_updated(c, tp, lai)
        assignment = self._assignment(tp)
        requests: tuple[LeaderAndIsrRequest, ...]
        if self.zk.profile_kip455:
            origin = tuple(r for r in assignment.replicas if r not in assignment.adding)
            requests = (
                LeaderAndIsrRequest(origin, tp, lai, False),
                LeaderAndIsrRequest(assignment.adding, tp, lai, True),
            )
        else:
            requests = (LeaderAndIsrRequest(assignment.replicas, tp, lai, False),)
        self._send(Requests(requests))
        self.r.reassign_request_sent(c, self.epoch, tp, lai, self.epoch, assignment)

    def _isr_update(self, update: IsrUpdate, writer: int | None) -> None:
        """A leader's ISR change, once written."""
        c = self._controller()
        tp, lai = update.partition, update.after
        if self.r.alter_isr:
            self.r.isr_applied(c, tp, lai)
            self._update_metadata(self.live, [tp])
            if lai.leader in self.brokers and self.brokers[lai.leader].registered:
                self.r.isr_committed(lai.leader, tp, lai)
            return
        # before 2.7: the leader wrote the znode and announces the change
        session = self._session(writer if writer is not None else lai.leader)
        path = self.history.sequential_name("/isr_change_notification/isr_change_")
        data = znodes.isr_change_notification([tp])
        self.history.write("create", session, path, data, sequential=True)
        self.r.isr_notification(c, self.live, [tp])
        self._update_metadata(self.live, [tp])
        self.history.write("delete", self._session(c), path)

    # ================================================================== requests

    def _update_metadata(
        self, brokers: Sequence[int], partitions: Sequence[TopicPartition]
    ) -> None:
        """``sendUpdateMetadataRequest`` outside a state-machine batch.

        Before 1.1 an empty partition set means every partition with a leader.
        """
        if not partitions and self.r.update_all_when_empty:
            ctx = self.zk.ctx
            partitions = sorted(tp for tp in ctx.leadership if tp.topic not in self.deleting)
        self._send(Requests((), (), (UpdateMetadataRequest(tuple(brokers), tuple(partitions)),)))

    def _request_info(
        self, partitions: Iterable[TopicPartition], registered: set[int]
    ) -> RequestInfo:
        ctx = self.zk.ctx
        parts = list(dict.fromkeys(partitions))
        leaderships = {tp: lai for tp in parts if (lai := self._leadership(tp)) is not None}
        return RequestInfo(
            {tp: ctx.assignment(tp) for tp in parts},
            leaderships,
            {tp: self.state_epoch.get(tp, self.epoch) for tp in parts},
            frozenset(registered),
            frozenset(self.deleting),
        )

    def _send(self, requests: Requests) -> None:
        """``sendRequestsToBrokers``: log the batch, then let each live broker handle its part."""
        c = self._controller()
        registered = {b for b, s in self.brokers.items() if s.registered}
        lai_map: dict[int, dict[TopicPartition, tuple[LeaderAndIsr, bool]]] = {}
        update_brokers: set[int] = set()
        update_parts: dict[TopicPartition, None] = {}
        for entry in requests.leader_and_isr:
            for broker in entry.brokers:
                if broker < 0:
                    continue
                per = lai_map.setdefault(broker, {})
                already_new = entry.partition in per and per[entry.partition][1]
                per[entry.partition] = (entry.leader_and_isr, entry.is_new or already_new)
            update_brokers |= registered
            update_parts[entry.partition] = None
        for update in requests.update_metadata:
            update_brokers |= set(update.brokers)
            for tp in update.partitions:
                update_parts[tp] = None
        stop_map: dict[int, list[tuple[TopicPartition, bool]]] = {}
        for stop in requests.stop_replica:
            for broker in stop.brokers:
                stop_map.setdefault(broker, []).append((stop.partition, stop.delete))
        lai_sent = [
            (b, [(tp, lai, new) for tp, (lai, new) in lai_map[b].items()])
            for b in sorted(lai_map)
            if b in registered or not self.r.lai_filtered_to_live
        ]
        stop_sent = [(b, stop_map[b]) for b in sorted(stop_map)]
        info = self._request_info(
            [tp for _, entries in lai_sent for tp, _, _ in entries] + list(update_parts),
            registered,
        )
        self.r.requests_sent(
            c, self.epoch, lai_sent, sorted(update_brokers), list(update_parts), stop_sent, info
        )
        receivers = (set(lai_map) | update_brokers | set(stop_map)) & registered
        for broker in sorted(receivers):
            runtime = self.brokers[broker]
            if not runtime.connected:
                runtime.connected = True
                self.r.channel_connected(c, broker)
            if broker in lai_map:
                self._broker_lai(runtime, lai_map[broker], info)
            if broker in update_brokers:
                runtime.correlation += 1
                entries = [
                    (tp, self._leadership(tp), tp.topic in self.deleting) for tp in update_parts
                ]
                self.r.broker_update_metadata(
                    broker, c, self.epoch, runtime.correlation, entries, info
                )
            if broker in stop_map:
                runtime.correlation += 1
                self.r.broker_stop_replica(
                    broker, c, self.epoch, runtime.correlation, stop_map[broker]
                )
                for tp, delete in stop_map[broker]:
                    if delete:
                        runtime.epochs.pop(tp, None)

    def _broker_lai(
        self,
        runtime: BrokerRuntime,
        entries: Mapping[TopicPartition, tuple[LeaderAndIsr, bool]],
        info: RequestInfo,
    ) -> None:
        """A broker applies a LeaderAndIsr request (newer leader epochs only)."""
        c = self._controller()
        runtime.correlation += 1
        stale: list[tuple[TopicPartition, int, int]] = []
        leaders: list[LeaderStart] = []
        followers: list[FollowerStart] = []
        received: list[LaiEntry] = []
        behind: dict[int, list[tuple[str, int, int]]] = {}
        b = runtime.broker
        for tp, (lai, is_new) in entries.items():
            current = runtime.epochs.get(tp, -1)
            if lai.leader_epoch <= current:
                stale.append((tp, lai.leader_epoch, current))
                received.append(LaiEntry(tp, lai, is_new, "stale", current, 0))
                continue
            if lai.leader == NO_LEADER:
                # makeFollowers finds no live leader: the partition keeps its leader epoch
                received.append(LaiEntry(tp, lai, is_new, "leaderless", current, 0))
                continue
            runtime.epochs[tp] = lai.leader_epoch
            # a replica created by this request (reassignment target) starts with an empty log
            offset = 0 if is_new and current < 0 and lai.leader != b else self._log_end(tp)
            if lai.leader == b:
                start = LeaderStart(tp, lai, current, offset, offset, self._assignment(tp))
                leaders.append(start)
                received.append(LaiEntry(tp, lai, is_new, "leader", current, offset))
            else:
                followers.append(FollowerStart(tp, lai, current, offset, offset))
                received.append(LaiEntry(tp, lai, is_new, "follower", current, offset))
                if b not in lai.isr and not is_new and (tp, b) not in self.catching_up:
                    # a restarted follower fetches from the leader and rejoins the ISR
                    self.catching_up.add((tp, b))
                    behind.setdefault(lai.leader, []).append((tp.topic, tp.partition, b))
        elapsed = 3 + (len(leaders) + len(followers)) // 2
        outcome = LaiOutcome(
            b,
            c,
            self.epoch,
            runtime.correlation,
            len(entries),
            tuple(stale),
            tuple(leaders),
            tuple(followers),
            elapsed,
            tuple(received),
            info,
        )
        start_us = self.clock.now_us
        self.r.broker_leader_and_isr(outcome)
        self.clock.advance_to(start_us + elapsed * 1000)
        for leader in sorted(behind):
            at = self.clock.now_us + _us(self.rng.uniform(2.0, 45.0))
            self.schedule(o.CatchUp(at, tuple(behind[leader])))

    # ================================================================== brokers and sessions

    def _open_session(self, broker: int) -> str:
        runtime = self._broker(broker)
        runtime.sessions += 1
        name = f"broker-{broker}#{runtime.sessions}"
        self.history.create_session(name, self.r.session_timeout_ms, broker)
        runtime.session = name
        return name

    def _bootstrap_paths(self, session: str) -> None:
        """``createTopLevelPaths`` and the cluster id, by the first broker that starts."""
        for path in self.r.top_level_paths:
            self.history.ensure(session, path)
        self.history.write("create", session, "/cluster", None)
        self.history.write("create", session, "/cluster/id", znodes.cluster_id(self._uuid()))

    def _register(self, broker: int) -> None:
        runtime = self._broker(broker)
        session = self._open_session(broker)
        if self.admin_session is None:
            self._bootstrap_paths(session)
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

    def _unregister(self, broker: int, *, expired: bool) -> None:
        runtime = self.brokers[broker]
        self.history.close_session(self._session(broker), expired=expired)
        runtime.session = None
        runtime.registered = False
        runtime.epochs = {}

    def _pick_live(self, wanted: int | None) -> int | None:
        live = self.live
        if wanted is not None:
            return wanted if wanted in live else None
        return self.rng.choice(live) if live else None

    # ================================================================== controller election

    def _elect(self, c: int) -> None:
        """``elect()`` won by ``c``, then ``onControllerFailover``."""
        session = self._session(c)
        first = not self.history.exists("/controller_epoch")
        previous = (self.epoch, self.epoch_zk_version)
        controller_data = znodes.controller(c, self.clock.now_ms)
        if self.r.fenced_writes:
            if first:
                initial = str(self.r.initial_epoch_value)
                self.history.write("create", session, "/controller_epoch", initial)
            current = self.r.initial_epoch_value if first else self.epoch
            self.history.multi(
                session,
                [
                    {
                        "op": "create",
                        "path": "/controller",
                        "data": controller_data,
                        "ephemeral": True,
                    },
                    {
                        "op": "setData",
                        "path": "/controller_epoch",
                        "data": str(current + 1),
                        "version": self.history.version("/controller_epoch"),
                    },
                ],
            )
        else:
            self.history.write("create", session, "/controller", controller_data, ephemeral=True)
            if first:
                initial = str(self.r.initial_epoch_value)
                self.history.write("create", session, "/controller_epoch", initial)
            else:
                self.history.write(
                    "setData",
                    session,
                    "/controller_epoch",
                    str(self.epoch + 1),
                    version=self.history.version("/controller_epoch"),
                )
        self.epoch = self.zk.controller_epoch + 1
        self.epoch_zk_version = self.history.version("/controller_epoch")
        self.controller = c
        for runtime in self.brokers.values():
            runtime.connected = False
            runtime.correlation = 0
        create_feature = self.r.feature_znode and not self.history.exists("/feature")
        self.r.elected_lines(c, self.epoch, self.epoch_zk_version, first, *previous)
        if create_feature:
            self.history.write("create", session, "/feature", znodes.feature_znode())
        self.r.failover_begin(c, self.epoch, create_feature)
        live = self.live
        epochs = [(b, self.brokers[b].epoch) for b in live]
        self.r.context(c, epochs, live, [], self._topics(), sorted(self.deleting), [])
        self._update_metadata(live, [])
        result = self._call("controller_failover", c)
        if result.error is not None:
            raise RuntimeError(f"controller failover to {c} failed: {result.error}")
        self._failover_steps(c, self.zk.drain())
        self._schedule_rebalance(self.clock.now_us + 5_000_000)
        for b in live:
            if b != c:
                self.r.already_elected(b, c)

    def _failover_steps(self, c: int, steps: list[Step]) -> None:
        """The failover's trace, with the state machines' startup lines around it."""
        ctx = self.zk.ctx
        self.r.replica_startup(c, "initializing")
        i = 0
        while i < len(steps):
            step = steps[i]
            if isinstance(step, ReplicaBatch) and step.startup:
                online = step.target is ReplicaState.OnlineReplica
                self.r.replica_startup(c, "online" if online else "offline")
                self._steps([step])
                i += 1
                if not online:
                    break
                continue
            self._steps([step])
            i += 1
        states = [
            (tp, r, ctx.replica_state((tp, r)).name)
            for tp in sorted(ctx.assignments)
            for r in ctx.assignment(tp).replicas
        ]
        self.r.replica_started(c, states)
        self.r.partition_startup(c)
        j = i
        while j < len(steps) and isinstance(steps[j], LeadershipWrite):
            j += 1
        trigger = steps[j] if j < len(steps) else None
        if (
            isinstance(trigger, PartitionBatch)
            and trigger.target is PartitionState.OnlinePartition
            and trigger.requested_by is None
        ):
            self._steps(steps[i : j + 1])
            i = j + 1
        partition_states = [(tp, ctx.partition_state(tp).name) for tp in sorted(ctx.assignments)]
        self.r.partition_started(c, partition_states)
        self.r.failover_ready(c, self.epoch)
        self._steps(steps[i:])
        self.r.failover_end(c)

    def _schedule_rebalance(self, at_us: int) -> None:
        if self.options.auto_rebalance:
            self.schedule(o.AutoRebalance(at_us, self.epoch))

    def _new_controller(self, old: int, successor: int | None = None) -> None:
        """``/controller`` is gone: another live broker wins the election."""
        self.controller = None
        candidates = [b for b in self.live if b != old]
        if not candidates:
            return
        chosen = successor if successor in candidates else self.rng.choice(candidates)
        assert chosen is not None
        self._elect(chosen)

    # ================================================================== broker changes

    def _broker_change(
        self, added: Sequence[int], deleted: Sequence[int], were_shutting: Sequence[int] = ()
    ) -> None:
        """``processBrokerChange`` on the controller."""
        c = self._controller()
        self.r.broker_change(c, list(added), list(deleted), [], self.live)
        for b in added:
            self.r.channel_started(c, b)
        for b in deleted:
            self.r.channel_stopped(c, b)
        for b in added:
            existing = [x for x in self.live if x not in added]
            self.r.broker_startup_callback(c, [b])
            if self.r.update_all_when_empty:
                self._update_metadata(self.live, [])
            else:
                self._update_metadata(existing, [])
                ctx = self.zk.ctx
                leaders = sorted(tp for tp in ctx.leadership if tp.topic not in self.deleting)
                self._update_metadata([b], leaders)
            self._call("broker_startup", b)
            self._steps(self.zk.drain())
        for b in deleted:
            self.r.broker_failure_callback(c, [b], [x for x in were_shutting if x == b])
            self._call("broker_failure", b)
            steps = self.zk.drain()
            offline = any(
                isinstance(s, PartitionBatch)
                and s.target is PartitionState.OfflinePartition
                and s.before
                for s in steps
            )
            self._steps(steps)
            if not offline:
                self._update_metadata(self.live, [])
        self.r.broker_epochs(c, [(b, self.brokers[b].epoch) for b in self.live])
        self._finish_deletions()

    # ================================================================== operations: brokers

    def _op_start_broker(self, op: o.StartBroker) -> bool:
        runtime = self._broker(op.broker)
        if runtime.registered:
            return False
        self._register(op.broker)
        if not op.reregistration:
            self.r.thread_started(op.broker)
        if self.controller is None:
            self._call("broker_startup", op.broker)
            self.zk.drain()
            self._elect(op.broker)
        else:
            self.r.already_elected(op.broker, self.controller)
            self._broker_change([op.broker], [])
        return True

    def _op_crash_broker(self, op: o.CrashBroker) -> bool:
        broker = self._pick_live(op.broker)
        if broker is None:
            return False
        was_controller = broker == self.controller
        self._unregister(broker, expired=True)
        if was_controller:
            self._call("broker_failure", broker)
            self.zk.drain()
            self._new_controller(broker)
        elif self.controller is not None:
            self._broker_change([], [broker])
        else:
            self._call("broker_failure", broker)
            self.zk.drain()
        if op.restart_after_s is not None:
            self.schedule(o.StartBroker(self.clock.now_us + _us(op.restart_after_s), broker))
        return True

    def _op_stop_broker(self, op: o.StopBroker) -> bool:
        broker = self._pick_live(op.broker)
        if broker is None:
            return False
        self.r.shutdown_requested(broker)
        shutting: list[int] = []
        if self.controller is not None:
            for attempt in range(3):
                remaining = self._controlled_shutdown(broker)
                shutting = [broker]
                self.r.shutdown_answer(broker, remaining, last=attempt == 2)
                if not remaining:
                    break
                self.clock.advance_to(self.clock.now_us + 5_000_000)
        was_controller = broker == self.controller
        if was_controller:
            self.r.resign(broker, self.live)
        self._unregister(broker, expired=False)
        if was_controller:
            self._call("broker_failure", broker)
            self.zk.drain()
            self._new_controller(broker)
        elif self.controller is not None:
            self._broker_change([], [broker], shutting)
        else:
            self._call("broker_failure", broker)
            self.zk.drain()
        if op.restart_after_s is not None:
            self.schedule(o.StartBroker(self.clock.now_us + _us(op.restart_after_s), broker))
        return True

    def _controlled_shutdown(self, broker: int) -> list[TopicPartition]:
        """One ControlledShutdown request handled by the controller; the partitions left."""
        c = self._controller()
        ctx = self.zk.ctx
        shutting = sorted(ctx.shutting_down | {broker})
        live = sorted(set(ctx.live_broker_ids) - {broker})
        self.r.shutdown_controller(c, broker, shutting, live)
        result = self._call("controlled_shutdown", broker)
        steps = self.zk.drain()
        followed = [
            tp
            for step in steps
            if isinstance(step, ReplicaBatch) and step.target is ReplicaState.OfflineReplica
            for (tp, _), _ in step.before
        ]
        if self.r.per_partition_controlled_shutdown:
            # before 1.1 each partition is handled on its own: an election for a led partition,
            # a StopReplica then the ISR removal for a followed one
            for chunk in _per_partition(steps):
                head = chunk[-1]
                if isinstance(head, ReplicaBatch):
                    tp = head.before[0][0][0]
                    self._send(Requests((), (StopReplicaRequest((broker,), tp, False),)))
                self._steps(chunk)
        else:
            stops = Requests((), tuple(StopReplicaRequest((broker,), tp, False) for tp in followed))
            sent = False
            for step in steps:
                if isinstance(step, ReplicaBatch) and not sent:
                    # the StopReplica batch for the followed partitions precedes their removal
                    sent = True
                    self._send(stops)
                self._steps([step])
            if not sent:
                self._send(stops)
        leaders = [
            (tp, lai, self.state_epoch.get(tp, self.epoch))
            for tp, lai in sorted(ctx.leadership.items())
        ]
        self.r.all_leaders(c, leaders)
        return list(result.partitions_remaining or ())

    def _op_rolling_restart(self, op: o.RollingRestart) -> bool:
        brokers = list(op.brokers) if op.brokers is not None else self.live
        if not brokers:
            return False
        at = self.clock.now_us
        for b in brokers:
            self.schedule(o.StopBroker(at, b, op.down_s))
            at += _us(op.interval_s)
        return True

    def _op_expire_controller_session(self, op: o.ExpireControllerSession) -> bool:
        old = self.controller
        if old is None or len(self.live) < 2:
            return False
        channels = self.live
        self._unregister(old, expired=True)
        self._call("broker_failure", old)
        self.zk.drain()
        self.r.resign(old, channels)
        self._new_controller(old, op.successor)
        at = self.clock.now_us + _us(op.reregister_after_s)
        self.schedule(o.StartBroker(at, old, reregistration=True))
        return True

    # ================================================================== operations: partitions

    def _op_auto_rebalance(self, op: o.AutoRebalance) -> bool:
        c = self.controller
        if c is None or (op.epoch is not None and op.epoch != self.epoch):
            return False
        self.r.rebalance_begin(c)
        ctx = self.zk.ctx
        members: dict[int, list[tuple[TopicPartition, Sequence[int]]]] = {}
        for tp in sorted(ctx.assignments):
            replicas = ctx.assignment(tp).replicas
            if replicas and not ctx.is_queued_for_deletion(tp.topic):
                members.setdefault(replicas[0], []).append((tp, replicas))
        result = self._call("auto_rebalance_check")
        steps = self.zk.drain()
        groups = result.imbalance or {}
        if self.r.scala is ScalaVersion.v2_13:
            order: Sequence[int] = champ_order(sorted(groups))
        else:
            order = immutable_set_order(sorted(groups), self.r.scala)
        self.r.rebalance_overview(c, [(b, members.get(b, [])) for b in order])
        by_broker: dict[int, list[Step]] = {}
        pending: list[Step] = []
        for step in steps:
            pending.append(step)
            if isinstance(step, PartitionBatch):
                head = step.before[0][0] if step.before else None
                preferred = self._assignment(head).replicas[0] if head is not None else -1
                by_broker.setdefault(preferred, []).extend(pending)
                pending = []
        chunks: dict[TopicPartition, list[Step]] = {}
        for chunk in _per_partition(steps):
            last = chunk[-1]
            if isinstance(last, PartitionBatch) and last.before:
                chunks[last.before[0][0]] = chunk
        batched = self.profile.auto_rebalance_batched
        for broker in order:
            group = groups[broker]
            not_preferred = [(tp, self._assignment(tp).replicas) for tp in group.not_preferred]
            self.r.rebalance_group(c, broker, not_preferred, group.ratio)
            if not group.rebalance:
                continue
            rounds = [list(group.candidates)] if batched else [[tp] for tp in group.candidates]
            for partitions in rounds:
                self.r.preferred_started(c, partitions, "AutoTriggered")
                if batched:
                    self._steps(by_broker.get(broker, []))
                else:
                    self._steps(chunks.get(partitions[0], []))
                for tp in partitions:
                    lai = self._leadership(tp)
                    if lai is not None:
                        preferred = self._assignment(tp).replicas[0]
                        self.r.preferred_result(c, tp, preferred, lai.leader)
        if op.epoch is not None:
            self._schedule_rebalance(op.at_us + _us(self.options.auto_rebalance_interval_s))
        return True

    def _op_shrink_isr(self, op: o.ShrinkIsr) -> bool:
        picked = self._pick_isr_change(op.topic, op.partition, op.replica, shrink=True)
        if picked is None:
            return False
        tp, replica = picked
        lai = self._leadership(tp)
        assert lai is not None
        new_isr = tuple(r for r in lai.isr if r != replica)
        end = self._log_end(tp)
        behind = max(0, end - self.rng.randint(1, 5000))
        self.r.isr_shrinking(lai.leader, tp, lai.isr, new_isr, behind, end, [(replica, behind)])
        if not self._isr_change(tp, new_isr, lai.leader):
            return False
        if op.expand_after_s is not None:
            self.pending_expand.add(tp)
            at = self.clock.now_us + _us(op.expand_after_s)
            self.schedule(o.ExpandIsr(at, tp.topic, tp.partition, replica))
        return True

    def _op_expand_isr(self, op: o.ExpandIsr) -> bool:
        tp = TopicPartition(op.topic, op.partition)
        self.pending_expand.discard(tp)
        self.catching_up.discard((tp, op.replica))
        if self._pick_isr_change(op.topic, op.partition, op.replica, shrink=False) is None:
            return False
        lai = self._leadership(tp)
        assert lai is not None
        new_isr = (*lai.isr, op.replica)
        self.r.isr_expanding(lai.leader, tp, lai.isr, new_isr)
        return self._isr_change(tp, new_isr, lai.leader)

    def _op_catch_up(self, op: o.CatchUp) -> bool:
        groups: dict[int, list[tuple[TopicPartition, int]]] = {}
        for topic, partition, replica in op.items:
            tp = TopicPartition(topic, partition)
            self.catching_up.discard((tp, replica))
            if self._pick_isr_change(topic, partition, replica, shrink=False) is None:
                continue
            lai = self._leadership(tp)
            assert lai is not None
            groups.setdefault(lai.leader, []).append((tp, replica))
        for leader in sorted(groups):
            self._isr_batch(leader, groups[leader])
        return bool(groups)

    def _isr_batch(self, leader: int, items: Sequence[tuple[TopicPartition, int]]) -> None:
        """One leader adds several followers back to their ISRs in one go."""
        c = self._controller()
        done: list[tuple[LeadershipWrite, LeaderAndIsr]] = []
        for tp, replica in items:
            lai = self._leadership(tp)
            assert lai is not None
            self.r.isr_expanding(leader, tp, lai.isr, (*lai.isr, replica))
        for tp, replica in items:
            lai = self._leadership(tp)
            assert lai is not None
            result = self._call("isr_change", tp, (*lai.isr, replica))
            steps = self.zk.drain()
            update = next((s for s in steps if isinstance(s, IsrUpdate)), None)
            write = next((s for s in steps if isinstance(s, LeadershipWrite)), None)
            if result.errors or update is None or write is None:
                continue
            done.append((write, update.after))
        if not done:
            return
        parts = [w.partition for w, _ in done]
        if self.r.alter_isr:
            for write, _ in done:
                self._state_write(write, self._session(c), self._check())
            self.r.isr_batch_applied(c, [(w.partition, after) for w, after in done])
            self._update_metadata(self.live, parts)
            for write, after in done:
                self.r.isr_committed(leader, write.partition, after)
            return
        # before 2.7: the leader writes each ISR, then announces them in one notification
        session = self._session(leader)
        for write, _ in done:
            self._state_write(write, session, None)
        path = self.history.sequential_name("/isr_change_notification/isr_change_")
        data = znodes.isr_change_notification(parts)
        self.history.write("create", session, path, data, sequential=True)
        self.r.isr_notification(c, self.live, parts)
        self._update_metadata(self.live, parts)
        self.history.write("delete", self._session(c), path)

    def _isr_change(self, tp: TopicPartition, isr: tuple[int, ...], leader: int) -> bool:
        result = self._call("isr_change", tp, isr)
        steps = self.zk.drain()
        if result.errors:
            return False
        self._steps(steps, isr_writer=leader)
        return True

    def _pick_isr_change(
        self, topic: str | None, partition: int | None, replica: int | None, *, shrink: bool
    ) -> tuple[TopicPartition, int] | None:
        """A partition and a follower whose ISR membership can change now."""
        if self.controller is None:
            return None
        live = set(self.live)
        ctx = self.zk.ctx
        if topic is not None and partition is not None:
            candidates = [TopicPartition(topic, partition)]
        else:
            everything = sorted(self.zk.zk_assignments)
            if not everything:
                return None
            candidates = [everything[self.rng.randrange(len(everything))] for _ in range(8)]
        for tp in candidates:
            lai = self._leadership(tp)
            if (
                lai is None
                or lai.leader not in live
                or tp.topic in self.deleting
                or (topic is None and tp in self.pending_expand)
                or tp in ctx.reassignment_targets
            ):
                continue
            if shrink:
                options = [r for r in lai.isr if r != lai.leader and replica in (None, r)]
            else:
                options = [
                    r
                    for r in self._assignment(tp).replicas
                    if r not in lai.isr
                    and r in live
                    and r not in ctx.shutting_down
                    and replica in (None, r)
                ]
            if options:
                return tp, options[self.rng.randrange(len(options))]
        return None

    def _op_isolate_leader(self, op: o.IsolateLeader) -> bool:
        live = set(self.live)
        if op.topic is not None and op.partition is not None:
            candidates = [TopicPartition(op.topic, op.partition)]
        else:
            candidates = [
                tp
                for tp in sorted(self.zk.zk_assignments)
                if str(self.zk.zk_topic_configs.get(tp.topic, {}).get(UNCLEAN, "")).lower()
                == "true"
            ]
            self.rng.shuffle(candidates)
        for tp in candidates:
            lai = self._leadership(tp)
            if (
                lai is None
                or lai.leader not in live
                or tp in self.pending_expand
                or tp.topic in self.deleting
            ):
                continue
            survivors = [r for r in self._assignment(tp).replicas if r != lai.leader and r in live]
            if not survivors:
                continue
            for r in (r for r in lai.isr if r != lai.leader):
                self.schedule(o.ShrinkIsr(self.clock.now_us, tp.topic, tp.partition, r, None))
            self.pending_expand.add(tp)
            at = self.clock.now_us + _us(op.crash_after_s)
            self.schedule(o.CrashBroker(at, lai.leader, op.restart_after_s))
            return True
        return False

    # ================================================================== operations: topics

    def _kafka_assignment(self, partitions: int, rf: int) -> dict[int, tuple[int, ...]] | None:
        """``assignReplicasToBrokersRackUnaware`` over the live brokers."""
        brokers = self.live
        n = len(brokers)
        if n == 0 or rf > n or rf < 1:
            return None
        start = self.rng.randrange(n)
        shift = self.rng.randrange(n)
        out: dict[int, tuple[int, ...]] = {}
        for p in range(partitions):
            if p > 0 and p % n == 0:
                shift += 1
            first = (p + start) % n
            replicas = [brokers[first]]
            for j in range(rf - 1):
                replicas.append(brokers[(first + 1 + (shift + j) % (n - 1)) % n])
            out[p] = tuple(replicas)
        return out

    def _op_create_topic(self, op: o.CreateTopic) -> bool:
        if op.topic in self._topics() or op.topic in self.deleting:
            return False
        assignment = (
            dict(op.assignment)
            if op.assignment is not None
            else self._kafka_assignment(op.partitions, op.replication_factor)
        )
        if not assignment:
            return False
        config = dict(op.config)
        result = self._call(
            "create_topic", op.topic, {p: list(r) for p, r in assignment.items()}, config
        )
        steps = self.zk.drain()
        if result.error is not None:
            return False
        admin = self._admin()
        self.history.write(
            "create", admin, f"/config/topics/{op.topic}", znodes.topic_config(config)
        )
        self._write_topic_znode(op.topic, admin, None, create=True)
        for p in sorted(assignment):
            # producers find the new partitions a little later
            rate = self.rng.uniform(1.0, 400.0)
            self.traffic[TopicPartition(op.topic, p)] = (self.clock.now_us + 30_000_000, rate)
        if op.deletable:
            self.deletable.add(op.topic)
        c = self.controller
        if c is None:
            return True
        partitions = [TopicPartition(op.topic, p) for p in sorted(assignment)]
        topic_id = self._topic_id(op.topic) if self.r.topic_ids else None
        added = [(op.topic, topic_id, [(tp, self._assignment(tp)) for tp in partitions])]
        self.r.topics_changed(c, [op.topic], [], added)
        self.r.partition_creation(c, partitions)
        self._steps(steps)
        return True

    def _op_delete_topic(self, op: o.DeleteTopic) -> bool:
        topic = op.topic
        known = self._topics()
        if topic is None:
            eligible = [
                t
                for t in sorted(self.deletable)
                if t in known and t not in self.deleting and self._all_replicas_live(t)
            ]
            if not eligible:
                return False
            topic = self.rng.choice(eligible)
        if topic not in known or topic in self.deleting:
            return False
        self.history.write("create", self._admin(), f"/admin/delete_topics/{topic}", None)
        self.deleting.add(topic)
        c = self.controller
        if c is None:
            self._call("delete_topic", topic)
            self.zk.drain()
            return True
        self.r.deletion_requested(c, [topic])
        self.r.deletion_step(c, "handling", topic)
        if self._all_replicas_live(topic):
            self.r.deletion_step(c, "started", topic)
        self._call("delete_topic", topic)
        self._deletion_steps(self.zk.drain())
        self._finish_deletions()
        return True

    def _all_replicas_live(self, topic: str) -> bool:
        live = set(self.live)
        return all(set(self._assignment(tp).replicas) <= live for tp in self._partitions_of(topic))

    def _deletion_steps(self, steps: Sequence[Step]) -> None:
        """A deletion's trace, with the deletion manager's own lines and metadata update."""
        c = self._controller()
        for step in steps:
            if isinstance(step, ReplicaBatch) and step.before:
                topics = sorted({tp.topic for (tp, _), _ in step.before} & self.deleting)
                if step.target is ReplicaState.ReplicaDeletionSuccessful and topics:
                    self.r.deletion_step(c, "replicas_done", replicas=[k for k, _ in step.before])
                elif step.target is ReplicaState.NonExistentReplica and topics:
                    self.r.deletion_step(c, "handling", ",".join(topics))
            self._steps([step])
            if (
                isinstance(step, PartitionBatch)
                and step.target is PartitionState.NonExistentPartition
                and step.before
            ):
                # brokers stop serving the deleted partitions (LeaderDuringDelete)
                self._update_metadata(self.live, [tp for tp, _ in step.before])

    def _finish_deletions(self) -> None:
        """Topics whose deletion completed: their znodes go, the listeners fire."""
        known = set(self._topics())
        for topic in sorted(t for t in self.deleting if t not in known):
            self.deleting.discard(topic)
            self.deletable.discard(topic)
            c = self._controller()
            session, check = self._session(c), self._check()
            base = f"/brokers/topics/{topic}"
            prefix = base + "/partitions/"
            parts = sorted(
                (
                    p
                    for p in self.history.nodes
                    if p.startswith(prefix) and "/" not in p[len(prefix) :]
                ),
                key=lambda p: int(p.rsplit("/", 1)[1]),
            )
            for path in parts:
                if self.history.exists(path + "/state"):
                    self.history.write("delete", session, path + "/state", check=check)
                self.history.write("delete", session, path, check=check)
            for path in (
                base + "/partitions",
                base,
                f"/config/topics/{topic}",
                f"/admin/delete_topics/{topic}",
            ):
                if self.history.exists(path):
                    self.history.write("delete", session, path, check=check)
            self.r.deletion_step(c, "completed", topic)
            self.r.topics_changed(c, [], [], [])
            self.r.deletion_requested(c, [])
            for tp in [t for t in self.traffic if t.topic == topic]:
                del self.traffic[tp]
                self.state_epoch.pop(tp, None)
                self.state_written_ms.pop(tp, None)
            self.topic_ids.pop(topic, None)

    def _op_set_topic_config(self, op: o.SetTopicConfig) -> bool:
        if op.topic not in self._topics() or op.topic in self.deleting:
            return False
        admin = self._admin()
        conf = {k: str(v) for k, v in self.zk.zk_topic_configs.get(op.topic, {}).items()}
        if op.value is None:
            conf.pop(op.key, None)
        else:
            conf[op.key] = op.value
        path = f"/config/topics/{op.topic}"
        verb = "setData" if self.history.exists(path) else "create"
        self.history.write(verb, admin, path, znodes.topic_config(conf))
        change = self.history.sequential_name("/config/changes/config_change_")
        data = znodes.config_change(f"topics/{op.topic}")
        self.history.write("create", admin, change, data, sequential=True)
        self._call("set_config", "topic", op.key, op.value, topic=op.topic)
        steps = self.zk.drain()
        c = self.controller
        if c is not None and op.key == UNCLEAN and (op.value or "").lower() == "true":
            self.r.unclean_enabled(c, op.topic)
        if c is not None:
            self._steps(steps)
        return True

    # ================================================================== operations: reassignment

    def _op_reassign(self, op: o.Reassign) -> bool:
        if self.controller is None:
            return False
        if op.topic is not None and op.partition is not None:
            tp = TopicPartition(op.topic, op.partition)
        else:
            options = [
                tp
                for tp in sorted(self.zk.zk_assignments)
                if tp.topic not in self.deleting
                and tp not in self.zk.ctx.reassignment_targets
                and tp not in self.pending_expand
            ]
            if not options:
                return False
            tp = options[self.rng.randrange(len(options))]
        if tp not in self.zk.zk_assignments or tp in self.zk.ctx.reassignment_targets:
            return False
        current = self._assignment(tp)
        target = op.replicas
        if target is None:
            spare = [b for b in self.live if b not in current.replicas]
            if not spare or not current.replicas:
                return False
            out = self.rng.randrange(len(current.replicas))
            choice = self.rng.choice(spare)
            target = tuple(choice if i == out else r for i, r in enumerate(current.replicas))
        if self.r.alter_isr:
            ok = self._reassign_api(tp, tuple(target))
        else:
            ok = self._reassign_zk(tp, tuple(target))
        if ok and op.complete_after_s is not None:
            at = self.clock.now_us + _us(op.complete_after_s)
            self.schedule(o.CompleteReassignment(at, tp.topic, tp.partition))
        return ok

    def _reassign_api(self, tp: TopicPartition, target: tuple[int, ...]) -> bool:
        """An ``AlterPartitionReassignments`` request (2.4+)."""
        c = self._controller()
        old = self._assignment(tp)
        mid = old.reassign_to(target)
        result = self._call("reassign", tp, target, via="admin")
        steps = self.zk.drain()
        if result.errors or result.error:
            return False
        if mid != old:
            self.r.assignment_updating(c, tp, old, mid)
            self._write_topic_znode(
                tp.topic, self._session(c), self._check(), create=False, override={tp: mid}
            )
            self.r.assignment_updated(c, tp, mid)
        self._reassignment_steps(tp, steps)
        return True

    def _reassign_zk(self, tp: TopicPartition, target: tuple[int, ...]) -> bool:
        """``/admin/reassign_partitions`` (before 2.4): one partition at a time here."""
        c = self._controller()
        if self.history.exists(REASSIGN_ZNODE):
            return False
        old = self._assignment(tp)
        data = znodes.reassign_partitions({tp: target})
        self.history.write("create", self._admin(), REASSIGN_ZNODE, data)
        result = self._call("reassign", tp, target, via="zk")
        steps = self.zk.drain()
        if result.errors or result.error:
            self.history.write("delete", self._session(c), REASSIGN_ZNODE)
            return False
        mid = self._assignment(tp) if self.zk.ctx.is_being_reassigned(tp) else old
        self.r.reassignment_started(c, tp, target, old.replicas)
        if mid != old:
            self._write_topic_znode(
                tp.topic, self._session(c), None, create=False, override={tp: mid}
            )
            self.r.reassignment_assigned(c, tp, mid.replicas)
        self._reassignment_steps(tp, steps)
        return True

    def _reassignment_steps(self, tp: TopicPartition, steps: Sequence[Step]) -> None:
        """A reassignment's trace, with its own lines where Kafka logs them."""
        c = self._controller()
        ctx = self.zk.ctx
        completed = tp not in ctx.reassignment_targets
        if not completed:
            self._steps(steps)
            self.r.reassignment_waiting(c, tp, ctx.reassignment_target(tp))
            return
        target = self._assignment(tp).replicas
        verdict = None
        for index, step in enumerate(steps):
            if isinstance(step, EpochBump) or (
                isinstance(step, PartitionBatch) and step.before and step.requested_by is None
            ):
                verdict = index
                while verdict > 0 and isinstance(steps[verdict - 1], LeadershipWrite):
                    verdict -= 1
                break
        self.r.reassignment_caught_up(c, tp, target)
        for index, step in enumerate(steps):
            if index == verdict:
                first = steps[index]
                if isinstance(first, LeadershipWrite) and first.before is not None:
                    leader = first.before.leader
                elif isinstance(first, PartitionBatch) and tp in first.leadership_before:
                    leader = first.leadership_before[tp].leader
                else:
                    leader = NO_LEADER
                self.r.reassignment_leader(c, tp, leader, target, leader in self.live)
            online = isinstance(step, ReplicaBatch) and step.target is ReplicaState.OnlineReplica
            if online and not self.zk.profile_kip455:
                # before 2.4 each target replica is moved online on its own
                for chunk in _per_partition([step]):
                    self._steps(chunk)
            else:
                self._steps([step])
        session = self._session(c)
        if self.r.alter_isr:
            self._write_topic_znode(tp.topic, session, self._check(), create=False)
            self.r.assignment_updated(c, tp, self._assignment(tp))
        else:
            self._write_topic_znode(tp.topic, session, None, create=False)
            self.r.reassignment_assigned(c, tp, self._assignment(tp).replicas)
            if self.history.exists(REASSIGN_ZNODE):
                self.history.write("delete", session, REASSIGN_ZNODE)
            self.r.reassignment_removed(c, tp)
        self._update_metadata(self.live, [tp])

    def _op_complete_reassignment(self, op: o.CompleteReassignment) -> bool:
        tp = TopicPartition(op.topic, op.partition)
        if self.controller is None or tp not in self.zk.ctx.reassignment_targets:
            return False
        lai = self._leadership(tp)
        live = set(self.live)
        target = self.zk.ctx.reassignment_target(tp)
        if lai is None or lai.leader not in live or not set(target) <= live:
            retry = o.CompleteReassignment(self.clock.now_us + 60_000_000, op.topic, op.partition)
            self.schedule(retry)
            return False
        joining = [r for r in target if r not in lai.isr]
        if joining:
            self.r.isr_expanding(lai.leader, tp, lai.isr, (*lai.isr, *joining))
        result = self._call("reassign_complete", tp)
        steps = self.zk.drain()
        if result.errors:
            return False
        head: list[Step] = []
        rest: Sequence[Step] = steps
        if (
            len(steps) > 1
            and isinstance(steps[0], LeadershipWrite)
            and isinstance(steps[1], IsrUpdate)
        ):
            head, rest = steps[:2], steps[2:]
        self._steps(head, isr_writer=lai.leader)
        self._reassignment_steps(tp, rest)
        return True
