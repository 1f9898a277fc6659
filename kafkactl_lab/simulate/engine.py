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

Each kind of operation is a function of the cluster (``brokers``, ``partitions``, ``topics``,
``reassignment``); ``OPERATIONS`` maps the operation's class to it, each entry built by
``operation``, whose signature makes mypy check that the function takes that class. The state
and shared primitives are ``cluster.Cluster``; the trace is played by ``trace``, requests are
delivered by ``delivery``, controller elections are ``failover``'s, the ground truth is written
by ``ground_truth``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from kafkactl_lab.simulate import brokers, partitions, reassignment, topics
from kafkactl_lab.simulate import ops as o
from kafkactl_lab.simulate.cluster import Cluster, SimulationStats
from kafkactl_lab.simulate.ground_truth import record_failure

OpT = TypeVar("OpT", bound=o.Op)


@dataclass(frozen=True, slots=True)
class _Operation(Generic[OpT]):
    """An operation type and the function that runs it on a cluster.

    Attributes:
        kind: the operation's class.
        run: does it; ``False`` when the cluster could not take it then (skipped).
    """

    kind: type[OpT]
    run: Callable[[Cluster, OpT], bool]

    def apply(self, cluster: Cluster, op: o.Op) -> bool:
        """Run ``op``, which must be of ``kind``.

        Args:
            cluster: the simulated cluster.
            op: the operation.

        Returns:
            Whether it was done (else skipped).
        """
        if not isinstance(op, self.kind):
            raise TypeError(f"{type(op).__name__} dispatched to {self.kind.__name__}")
        return self.run(cluster, op)


class Dispatch(Protocol):
    """What the table holds: the function of one kind of operation (see ``operation``)."""

    @property
    def kind(self) -> type:
        """The operation's class."""
        ...

    def apply(self, cluster: Cluster, op: o.Op) -> bool:
        """Run ``op``: ``False`` when the cluster could not take it then (skipped)."""
        ...


def operation(kind: type[OpT], run: Callable[[Cluster, OpT], bool]) -> Dispatch:
    """A table entry: mypy checks that ``run`` takes operations of ``kind``.

    Args:
        kind: the operation's class.
        run: the function that does it.

    Returns:
        The entry.
    """
    entry: _Operation[OpT] = _Operation(kind, run)
    return entry


_TABLE = (
    operation(o.StartBroker, brokers.start_broker),
    operation(o.CrashBroker, brokers.crash_broker),
    operation(o.StopBroker, brokers.stop_broker),
    operation(o.RollingRestart, brokers.rolling_restart),
    operation(o.ExpireControllerSession, brokers.expire_controller_session),
    operation(o.AutoRebalance, partitions.auto_rebalance),
    operation(o.ShrinkIsr, partitions.shrink_isr),
    operation(o.ExpandIsr, partitions.expand_isr),
    operation(o.CatchUp, partitions.catch_up),
    operation(o.IsolateLeader, partitions.isolate_leader),
    operation(o.CreateTopic, topics.create_topic),
    operation(o.DeleteTopic, topics.delete_topic),
    operation(o.SetTopicConfig, topics.set_topic_config),
    operation(o.Reassign, reassignment.reassign),
    operation(o.CompleteReassignment, reassignment.complete_reassignment),
)
OPERATIONS: Mapping[type, Dispatch] = {entry.kind: entry for entry in _TABLE}
"""Every operation's function, by operation class."""


class Simulator(Cluster):
    """Runs operations against a simulated cluster of one release (see the module docstring)."""

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
        self.current_op = name
        done = OPERATIONS[type(op)].apply(self, op)
        for tp in list(self.failed_attempts):
            record_failure(self, tp, None)
        counts = self.stats.operations if done else self.stats.skipped
        counts[name] = counts.get(name, 0) + 1
