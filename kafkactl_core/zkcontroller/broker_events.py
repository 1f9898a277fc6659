"""Broker failure and startup (bounces included), controlled shutdown and log-dir failure.

``ZkController``'s broker-side events, ordered as ``KafkaController`` orders the state-machine
steps: offline leaders first, then elections, then the replicas' ISR removal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kafkactl_core.model import ElectionStrategy, PartitionState, ReplicaState, TopicPartition
from kafkactl_core.zkcontroller.context import ReplicaKey
from kafkactl_core.zkcontroller.reassignments import IsrAndReassignments
from kafkactl_core.zkcontroller.results import OpResult

_P = PartitionState
_R = ReplicaState


class BrokerEvents(IsrAndReassignments):
    """The broker events a controller reacts to."""

    def broker_failure(self, broker: int) -> OpResult:
        """A broker's registration disappears (``onBrokerFailure``).

        If it was the controller, no controller remains until ``controller_failover``.

        Args:
            broker: the broker.

        Returns:
            The result (``error`` if the broker was not registered).
        """
        result = self._begin("broker_failure")
        if broker not in self.zk_brokers:
            result.error = "BrokerNotAvailableException"
            return self._end(result)
        del self.zk_brokers[broker]
        if broker == self.active_controller:
            self.active_controller = None
            return self._end(result)
        if self.has_controller:
            self.ctx.live_broker_epochs.pop(broker, None)
            self._on_broker_failure([broker])
        return self._end(result)

    def broker_startup(self, broker: int) -> OpResult:
        """A broker registers (``onBrokerStartup``); if it was registered, it bounced.

        Args:
            broker: the broker.

        Returns:
            The result.
        """
        result = self._begin("broker_startup")
        bounced = broker in self.zk_brokers
        epoch = self._new_broker_epoch()
        self.zk_brokers[broker] = epoch
        if not self.has_controller or (broker == self.active_controller and bounced):
            return self._end(result)
        ctx = self.ctx
        if bounced:
            ctx.live_broker_epochs.pop(broker, None)
            self._on_broker_failure([broker])
        ctx.live_broker_epochs[broker] = epoch
        self._on_broker_startup([broker])
        return self._end(result)

    def _on_broker_failure(self, dead: list[int]) -> None:
        ctx = self.ctx
        for b in dead:
            ctx.offline_dirs.pop(b, None)
            ctx.shutting_down.discard(b)
        self._on_replicas_become_offline(ctx.replicas_on_brokers(dead), dead)

    def _on_replicas_become_offline(
        self, offline: list[ReplicaKey], dead_brokers: Sequence[int] = ()
    ) -> None:
        """``onReplicasBecomeOffline``: offline leaders, elections, then ISR removal."""
        ctx = self.ctx
        for_deletion = [k for k in offline if ctx.is_queued_for_deletion(k[0].topic)]
        not_for_deletion = [k for k in offline if not ctx.is_queued_for_deletion(k[0].topic)]
        if self.profile.release.at_least("1.0"):
            offline_leader = [
                tp
                for tp, leader_and_isr in ctx.leadership.items()
                if not ctx.is_replica_online(leader_and_isr.leader, tp)
                and not ctx.is_queued_for_deletion(tp.topic)
            ]
        else:
            dead = set(dead_brokers)
            offline_leader = [
                tp
                for tp, leader_and_isr in ctx.leadership.items()
                if leader_and_isr.leader in dead and not ctx.is_queued_for_deletion(tp.topic)
            ]
        self._psm(sorted(offline_leader), _P.OfflinePartition)
        self._trigger_online_partition_state_change()
        self._rsm(not_for_deletion, _R.OfflineReplica)
        if for_deletion:
            self._rsm(for_deletion, _R.ReplicaDeletionIneligible)
            ctx.topics_ineligible_for_deletion |= {k[0].topic for k in for_deletion}

    def _on_broker_startup(self, new: list[int]) -> None:
        ctx = self.ctx
        for b in new:
            ctx.offline_dirs.pop(b, None)
        on_new = ctx.replicas_on_brokers(new)
        self._rsm(on_new, _R.OnlineReplica)
        self._trigger_online_partition_state_change()
        new_set = set(new)
        for tp in sorted(ctx.reassignment_targets):
            if any(r in new_set for r in ctx.reassignment_target(tp)):
                self._resume_reassignment(tp)
        deleting = {k[0].topic for k in on_new if ctx.is_queued_for_deletion(k[0].topic)}
        if deleting:
            ctx.topics_ineligible_for_deletion -= deleting
            self._resume_deletions()

    def controlled_shutdown(self, broker: int, broker_epoch: int | None = None) -> OpResult:
        """A ControlledShutdown request (``doControlledShutdown``).

        Args:
            broker: the broker shutting down (it stays registered).
            broker_epoch: the epoch the broker sends; ``None`` = its current one.

        Returns:
            The result; ``partitions_remaining`` are the partitions it still leads.
        """
        result = self._begin("controlled_shutdown")
        ctx = self.ctx
        if not self.has_controller:
            result.error = "ControllerMovedException"
            return self._end(result)
        cached = ctx.live_broker_epochs.get(broker)
        if (
            self.profile.stale_broker_epoch_rejected
            and broker_epoch is not None
            and cached is not None
            and broker_epoch < cached
        ):
            result.error = "StaleBrokerEpochException"
            return self._end(result)
        if cached is None:
            result.error = "BrokerNotAvailableException"
            return self._end(result)
        ctx.shutting_down.add(broker)
        skip_deleting = self.profile.controlled_shutdown_skips_deleting_topics
        act_on = [
            tp
            for tp, a in sorted(ctx.assignments.items())
            if broker in a.replicas
            and len(a.replicas) > 1
            and tp in ctx.leadership
            and not (skip_deleting and ctx.is_queued_for_deletion(tp.topic))
        ]
        led = [tp for tp in act_on if ctx.leadership[tp].leader == broker]
        followed = [tp for tp in act_on if ctx.leadership[tp].leader != broker]
        self._psm(led, _P.OnlinePartition, ElectionStrategy.controlled_shutdown)
        self._rsm([(tp, broker) for tp in followed], _R.OfflineReplica)
        result.partitions_remaining = tuple(
            sorted(
                tp
                for tp, leader_and_isr in ctx.leadership.items()
                if leader_and_isr.leader == broker
                and not ctx.is_queued_for_deletion(tp.topic)
                and len(ctx.assignment(tp).replicas) > 1
            )
        )
        return self._end(result)

    def log_dir_failure(self, broker: int, partitions: Iterable[TopicPartition]) -> OpResult:
        """A broker reports KAFKA_STORAGE_ERROR for replicas on a failed log dir (1.0+, KIP-112).

        Args:
            broker: the broker.
            partitions: the partitions whose replica on ``broker`` went offline.

        Returns:
            The result.
        """
        result = self._begin("log_dir_failure")
        ctx = self.ctx
        if not self.profile.liveness_includes_offline_dirs:
            result.error = "UnsupportedVersionException"
            return self._end(result)
        if not self.has_controller or broker not in ctx.live_broker_epochs:
            result.error = "BrokerNotAvailableException"
            return self._end(result)
        previous = ctx.offline_dirs.setdefault(broker, set())
        new = [
            tp for tp in partitions if tp not in previous and broker in ctx.assignment(tp).replicas
        ]
        previous.update(new)
        if new:
            self._on_replicas_become_offline([(tp, broker) for tp in sorted(new)])
        return self._end(result)
