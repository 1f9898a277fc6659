"""``RecordingController``: the scenario engine with a trace of the steps it takes.

The simulator renders what Kafka logs and writes for each step of a controller flow, in order:
every state-machine batch (the partitions or replicas moved, the leaderships written, the
requests queued), every leadership znode write and every leader-epoch bump of a reassignment.
``ZkController`` reports one ``OpResult`` per operation; this subclass wraps the two batch
entry points (``_psm``, ``_rsm``), the epoch bump (``_update_leader_epoch``) and the
leadership store, and appends ``Step`` values to ``trace``, which the simulator drains after
each operation. It changes no decision: a test replays the same operations on a plain
``ZkController`` and compares the elections.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kafkactl_core.model import (
    ElectionStrategy,
    LeaderAndIsr,
    LeaderRecoveryState,
    PartitionState,
    ReplicaState,
    TopicPartition,
)
from kafkactl_core.zkcontroller.cluster import ClusterSpec
from kafkactl_core.zkcontroller.context import ReplicaKey
from kafkactl_core.zkcontroller.controller import ZkController
from kafkactl_core.zkcontroller.partition_sm import PartitionResult
from kafkactl_core.zkcontroller.requests import (
    LeaderAndIsrRequest,
    StopReplicaRequest,
    UpdateMetadataRequest,
)
from kafkactl_core.zkcontroller.results import ElectionRecord, OpResult, RequestSource
from kafkactl_core.zkcontroller.states import TransitionError
from kafkactl_core.zkcontroller.zkstore import InMemoryLeadershipStore, ZkFailure


@dataclass(frozen=True, slots=True)
class Requests:
    """Controller-to-broker requests queued by one batch, in order."""

    leader_and_isr: tuple[LeaderAndIsrRequest, ...] = ()
    stop_replica: tuple[StopReplicaRequest, ...] = ()
    update_metadata: tuple[UpdateMetadataRequest, ...] = ()

    @property
    def empty(self) -> bool:
        """Whether nothing was queued."""
        return not (self.leader_and_isr or self.stop_replica or self.update_metadata)


@dataclass(frozen=True, slots=True)
class LeadershipWrite:
    """A ``/state`` znode write (``before`` ``None``: a create; ``after`` ``None``: a delete)."""

    partition: TopicPartition
    before: LeaderAndIsr | None
    after: LeaderAndIsr | None


@dataclass(frozen=True, slots=True)
class PartitionBatch:
    """One ``PartitionStateMachine.handleStateChanges`` call.

    Attributes:
        target: the target state.
        strategy: the election strategy (``None`` when not electing).
        allow_unclean: the offline strategy's admin flag.
        requested_by: who asked for a preferred/unclean election.
        before: each partition's state before the batch, in batch order.
        leadership_before: each partition's leadership before the batch (if any).
        results: per partition, the leadership written, the error, or ``None``.
        elections: the elections the batch made, in order.
        requests: the requests it queued.
        triggered: run by ``triggerOnlinePartitionStateChange`` (Offline/New partitions).
    """

    target: PartitionState
    strategy: ElectionStrategy | None
    allow_unclean: bool
    requested_by: RequestSource | None
    before: tuple[tuple[TopicPartition, PartitionState], ...]
    leadership_before: dict[TopicPartition, LeaderAndIsr]
    results: dict[TopicPartition, PartitionResult]
    elections: tuple[ElectionRecord, ...]
    requests: Requests
    triggered: bool = False


@dataclass(frozen=True, slots=True)
class ReplicaBatch:
    """One ``ReplicaStateMachine.handleStateChanges`` call (or the replica startup of a failover).

    Attributes:
        target: the target state.
        before: each replica's state before the batch, in batch order.
        results: per replica, ``None`` (moved) or the error.
        isr_removals: leaderships written by the OfflineReplica ISR removal, with the replica.
        leadership_before: each partition's leadership before the batch (if any); with
            ``isr_removals`` it gives the leadership at each replica's step, which is what the
            batch's lines and requests carry (not the leadership at the end of the operation).
        requests: the requests it queued.
        startup: the batch is ``ReplicaStateMachine.startup`` of a controller failover.
    """

    target: ReplicaState
    before: tuple[tuple[ReplicaKey, ReplicaState], ...]
    results: dict[ReplicaKey, TransitionError | None]
    isr_removals: tuple[tuple[TopicPartition, int, LeaderAndIsr, LeaderAndIsr], ...]
    leadership_before: dict[TopicPartition, LeaderAndIsr]
    requests: Requests
    startup: bool = False


@dataclass(frozen=True, slots=True)
class EpochBump:
    """``updateLeaderEpochAndSendRequest`` of a reassignment: same leader and ISR, epoch + 1."""

    partition: TopicPartition
    before: LeaderAndIsr
    after: LeaderAndIsr


@dataclass(frozen=True, slots=True)
class IsrUpdate:
    """A leader-driven ISR write (AlterIsr/AlterPartition, or the leader's own ZK write)."""

    partition: TopicPartition
    before: LeaderAndIsr
    after: LeaderAndIsr


Step = LeadershipWrite | PartitionBatch | ReplicaBatch | EpochBump | IsrUpdate
"""One traced step of a controller flow."""


class _RecordingStore(InMemoryLeadershipStore):
    """The engine's leadership store, reporting every successful write to its controller."""

    __slots__ = ("owner",)

    def __init__(
        self, data: dict[TopicPartition, LeaderAndIsr], owner: RecordingController
    ) -> None:
        super().__init__(data)
        self.owner = owner

    def create(self, tp: TopicPartition, leadership: LeaderAndIsr) -> LeaderAndIsr | ZkFailure:
        """Create and report the write."""
        stored = super().create(tp, leadership)
        if isinstance(stored, LeaderAndIsr):
            self.owner.note_write(tp, None, stored)
        return stored

    def update(self, tp: TopicPartition, leadership: LeaderAndIsr) -> LeaderAndIsr | ZkFailure:
        """Update and report the write with the value it replaced."""
        before = self.data.get(tp)
        stored = super().update(tp, leadership)
        if isinstance(stored, LeaderAndIsr):
            self.owner.note_write(tp, before, stored)
        return stored

    def delete(self, tp: TopicPartition) -> None:
        """Delete and report the removal."""
        before = self.data.get(tp)
        super().delete(tp)
        if before is not None:
            self.owner.note_write(tp, before, None)


@dataclass(slots=True)
class _Open:
    """The batch being recorded (writes seen while it runs)."""

    kind: str
    writes: list[LeadershipWrite] = field(default_factory=list)


class RecordingController(ZkController):
    """A ``ZkController`` whose flows leave a ``trace`` of ``Step`` values (see module doc)."""

    def __init__(self, spec: ClusterSpec) -> None:
        """Build the engine (with request recording on) and install the recording store.

        Args:
            spec: the initial cluster; ``record_requests`` is forced on.
        """
        super().__init__(
            ClusterSpec(
                spec.version,
                spec.live,
                spec.controller,
                spec.config,
                spec.topics,
                spec.leadership,
                spec.topic_configs,
                spec.deleting_topics,
                spec.shutting_down,
                record_requests=True,
            )
        )
        self.trace: list[Step] = []
        self._open: _Open | None = None
        self._failover_start: int | None = None
        self._triggering = False
        self.store = _RecordingStore(self.store.data, self)

    # ------------------------------------------------------------------ plumbing

    def drain(self) -> list[Step]:
        """The steps recorded since the last call, oldest first (and forget them)."""
        steps, self.trace = self.trace, []
        return steps

    def note_write(
        self, tp: TopicPartition, before: LeaderAndIsr | None, after: LeaderAndIsr | None
    ) -> None:
        """Called by the store for every successful leadership write."""
        write = LeadershipWrite(tp, before, after)
        if self._open is not None:
            self._open.writes.append(write)
        self.trace.append(write)

    def _take_requests(self) -> Requests:
        log = self.ctx.requests
        taken = Requests(
            tuple(log.leader_and_isr), tuple(log.stop_replica), tuple(log.update_metadata)
        )
        log.clear()
        return taken

    def _sink(self) -> OpResult | None:
        return self.ctx.sink

    def _flush_failover_startup(self) -> None:
        """Trace ``ReplicaStateMachine.startup`` of a failover as two batches.

        ``controller_failover`` runs the replica startup (online replicas, then offline ones)
        before its first partition batch; their requests are queued in that order, and the
        online batch queues exactly one LeaderAndIsr per online replica with leadership. The
        leadership writes seen so far are the offline batch's ISR removals.
        """
        start = self._failover_start
        if start is None:
            return
        self._failover_start = None
        ctx = self.ctx
        requests = self._take_requests()
        online: list[tuple[ReplicaKey, ReplicaState]] = []
        offline: list[tuple[ReplicaKey, ReplicaState]] = []
        for tp in sorted(ctx.assignments):
            for r in ctx.assignment(tp).replicas:
                key = (tp, r)
                if ctx.is_replica_online(r, tp):
                    online.append((key, ReplicaState.OnlineReplica))
                else:
                    offline.append((key, ReplicaState.ReplicaDeletionIneligible))
        count = sum(1 for (tp, _), _ in online if tp in ctx.leadership)
        writes = self.trace[start:]
        updates = [
            w
            for w in writes
            if isinstance(w, LeadershipWrite) and w.before is not None and w.after is not None
        ]
        # the startup wrote nothing but the removals: undo them for the state before it
        leadership = dict(self.store.data)
        for w in reversed(updates):
            assert w.before is not None
            leadership[w.partition] = w.before
        online_before = _leaderships(leadership, online)
        offline_before = _leaderships(leadership, offline)
        online_batch = ReplicaBatch(
            ReplicaState.OnlineReplica,
            tuple(online),
            {k: None for k, _ in online},
            (),
            online_before,
            Requests(requests.leader_and_isr[:count]),
            startup=True,
        )
        offline_batch = ReplicaBatch(
            ReplicaState.OfflineReplica,
            tuple(offline),
            {k: None for k, _ in offline},
            _isr_removals(offline, {k: None for k, _ in offline}, updates, offline_before),
            offline_before,
            Requests(
                requests.leader_and_isr[count:], requests.stop_replica, requests.update_metadata
            ),
            startup=True,
        )
        self.trace[start:] = [online_batch, *writes, offline_batch]

    # ------------------------------------------------------------------ wrapped steps

    def _psm(
        self,
        partitions: Sequence[TopicPartition],
        target: PartitionState,
        strategy: ElectionStrategy | None = None,
        allow_unclean: bool = False,
        requested_by: RequestSource | None = None,
    ) -> dict[TopicPartition, PartitionResult]:
        self._flush_failover_startup()
        ctx = self.ctx
        before = tuple((tp, ctx.partition_state(tp)) for tp in partitions)
        leadership = {tp: ctx.leadership[tp] for tp in partitions if tp in ctx.leadership}
        sink = self._sink()
        first = len(sink.elections) if sink is not None else 0
        outer, self._open = self._open, _Open("psm")
        try:
            results = super()._psm(partitions, target, strategy, allow_unclean, requested_by)
        finally:
            self._open = outer
        elections = tuple(sink.elections[first:]) if sink is not None else ()
        self.trace.append(
            PartitionBatch(
                target,
                strategy,
                allow_unclean,
                requested_by,
                before,
                leadership,
                results,
                elections,
                self._take_requests(),
                self._triggering,
            )
        )
        return results

    def _trigger_online_partition_state_change(self, topic: str | None = None) -> None:
        outer, self._triggering = self._triggering, True
        try:
            super()._trigger_online_partition_state_change(topic)
        finally:
            self._triggering = outer

    def _rsm(
        self, replicas: Sequence[ReplicaKey], target: ReplicaState
    ) -> dict[ReplicaKey, TransitionError | None]:
        self._flush_failover_startup()
        before = tuple((key, self.ctx.replica_state(key)) for key in replicas)
        leadership = _leaderships(self.store.data, before)
        outer, opened = self._open, _Open("rsm")
        self._open = opened
        try:
            results = super()._rsm(replicas, target)
        finally:
            self._open = outer
        removals: tuple[tuple[TopicPartition, int, LeaderAndIsr, LeaderAndIsr], ...] = ()
        if target is ReplicaState.OfflineReplica:
            removals = _isr_removals(before, results, opened.writes, leadership)
        self.trace.append(
            ReplicaBatch(target, before, results, removals, leadership, self._take_requests())
        )
        return results

    def _update_leader_epoch(self, tp: TopicPartition) -> None:
        self._flush_failover_startup()
        before = self.store.data.get(tp)
        outer, opened = self._open, _Open("epoch")
        self._open = opened
        try:
            super()._update_leader_epoch(tp)
        finally:
            self._open = outer
        after = self.store.data.get(tp)
        if before is not None and after is not None and opened.writes:
            self.trace.append(EpochBump(tp, before, after))

    def _leader_isr_update(
        self,
        tp: TopicPartition,
        isr: tuple[int, ...],
        sender: int | None,
        request_version: int | None,
        recovery: LeaderRecoveryState | None,
    ) -> str | None:
        before = self.store.data.get(tp)
        outer, opened = self._open, _Open("isr")
        self._open = opened
        try:
            error = super()._leader_isr_update(tp, isr, sender, request_version, recovery)
        finally:
            self._open = outer
        if error is None and before is not None and opened.writes:
            first = opened.writes[0]
            if first.after is not None:
                # the ISR write comes before what it sets off (a reassignment completing)
                index = next(i for i, s in enumerate(self.trace) if s is first)
                self.trace.insert(index + 1, IsrUpdate(tp, before, first.after))
        return error

    def controller_failover(self, new_controller: int) -> OpResult:
        """``ZkController.controller_failover``, tracing the replica startup as two batches."""
        self._failover_start = len(self.trace)
        try:
            result = super().controller_failover(new_controller)
            if result.error is None:
                self._flush_failover_startup()
        finally:
            self._failover_start = None
        return result


def _leaderships(
    leadership: dict[TopicPartition, LeaderAndIsr],
    replicas: Sequence[tuple[ReplicaKey, ReplicaState]],
) -> dict[TopicPartition, LeaderAndIsr]:
    """The leaderships (a copy) of the partitions of ``replicas`` that have one."""
    return {tp: leadership[tp] for (tp, _), _ in replicas if tp in leadership}


def _isr_removals(
    replicas: Sequence[tuple[ReplicaKey, ReplicaState]],
    results: dict[ReplicaKey, TransitionError | None],
    writes: Sequence[LeadershipWrite],
    leadership: dict[TopicPartition, LeaderAndIsr],
) -> tuple[tuple[TopicPartition, int, LeaderAndIsr, LeaderAndIsr], ...]:
    """Each ISR-removal write of an OfflineReplica batch, with the replica it removed.

    The batch handles its replicas in order and writes for one exactly when it moved and the
    partition's ISR (in ZooKeeper, as left by the batch so far) holds it; the writes of each
    partition come in that order. The write cannot tell by itself: an ISR of size one is kept
    as it is (1.1+), and a leader already gone stays -1.
    """
    queued: dict[TopicPartition, list[LeadershipWrite]] = {}
    for w in writes:
        if w.before is not None and w.after is not None:
            queued.setdefault(w.partition, []).append(w)
    current = dict(leadership)
    out: list[tuple[TopicPartition, int, LeaderAndIsr, LeaderAndIsr]] = []
    for (tp, replica), _ in replicas:
        state = current.get(tp)
        pending = queued.get(tp)
        if results.get((tp, replica)) is not None or state is None or not pending:
            continue
        if replica in state.isr:
            w = pending.pop(0)
            assert w.before is not None and w.after is not None
            out.append((tp, replica, w.before, w.after))
            current[tp] = w.after
    return tuple(out)
