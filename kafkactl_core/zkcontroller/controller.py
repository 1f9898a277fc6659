"""``ZkController``: the scenario engine, a ZooKeeper-mode cluster driven one operation at a time.

It keeps what ZooKeeper holds (registered brokers, assignments, leadership znodes, topic configs,
admin paths) apart from what the active controller holds (``ControllerContext``), and orders the
state-machine steps the way ``KafkaController`` does for each event. The operations live in the
modules its bases come from: topics (``topic_lifecycle``), ISR changes and reassignments
(``reassignments``), broker events (``broker_events``), election requests and the auto-rebalance
check (``election_requests``); this module adds dynamic config changes, controller failover and
the raw context writes. Every operation returns an ``OpResult`` (elections made, znodes written,
per-partition errors) and never raises on bad input; state is read through ``partition``,
``metrics`` and ``imbalance``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import LeaderAndIsr, TopicPartition
from kafkactl_core.zkcontroller.broker_events import BrokerEvents
from kafkactl_core.zkcontroller.cluster import UNCLEAN_KEY, parse_bool_config
from kafkactl_core.zkcontroller.election_requests import ElectionRequests
from kafkactl_core.zkcontroller.replica_sm import startup_replica_states
from kafkactl_core.zkcontroller.results import OpResult, RequestSource


class ZkController(BrokerEvents, ElectionRequests):
    """A ZooKeeper-mode cluster and its controller, replaying operations with a release's rules."""

    def set_config(
        self,
        scope: str,
        name: str,
        value: object,
        topic: str | None = None,
        broker: int | None = None,
    ) -> OpResult:
        """A dynamic config change.

        Args:
            scope: ``topic`` or ``broker``.
            name: the config key.
            value: the new value (``None`` deletes the override).
            topic: the topic for ``scope == "topic"``.
            broker: the broker for a per-broker setting; ``None`` = the cluster default.

        Returns:
            The result; ``error`` is ``ConfigException`` for an invalid value.
        """
        result = self._begin("set_config")
        if name == UNCLEAN_KEY and value is not None and parse_bool_config(value) is None:
            result.error = "ConfigException"
            return self._end(result)
        ctx = self.ctx
        if scope == "topic":
            if topic is None or not any(tp.topic == topic for tp in self.zk_assignments):
                result.error = "UnknownTopicOrPartitionException"
                return self._end(result)
            conf = self.zk_topic_configs.setdefault(topic, {})
            if value is None:
                conf.pop(name, None)
            else:
                conf[name] = value
            if name == UNCLEAN_KEY and self.has_controller:
                parsed = parse_bool_config(value)
                if parsed is None:
                    ctx.topic_unclean.pop(topic, None)
                else:
                    ctx.topic_unclean[topic] = parsed
                if parsed and self.profile.topic_unclean_dynamic_trigger:
                    self._trigger_online_partition_state_change(topic)
            return self._end(result)
        if scope != "broker":
            result.error = "InvalidRequestException"
            return self._end(result)
        target = (
            self.broker_dynamic_default
            if broker is None
            else self.broker_dynamic.setdefault(broker, {})
        )
        before = ctx.broker_unclean
        if value is None:
            target.pop(name, None)
        else:
            target[name] = value
        self._apply_static_like(name, value)
        if self.has_controller:
            self._refresh_controller_config(ctx)
            if (
                name == UNCLEAN_KEY
                and not before
                and ctx.broker_unclean
                and self.profile.broker_unclean_dynamic_trigger
            ):
                self._trigger_online_partition_state_change()
        return self._end(result)

    def _apply_static_like(self, name: str, value: object) -> None:
        conf = self.config
        if name == "auto.leader.rebalance.enable":
            parsed = parse_bool_config(value)
            if parsed is not None:
                self.config = dataclasses.replace(conf, auto_leader_rebalance_enable=parsed)
        elif name == "leader.imbalance.per.broker.percentage" and isinstance(value, (int, str)):
            try:
                self.config = dataclasses.replace(
                    conf, leader_imbalance_per_broker_percentage=int(value)
                )
            except ValueError:
                return

    # ------------------------------------------------------------------ failover

    def controller_failover(self, new_controller: int) -> OpResult:
        """A live broker becomes controller (``onControllerFailover``).

        Args:
            new_controller: the broker; it must be registered.

        Returns:
            The result.
        """
        result = OpResult("controller_failover")
        if new_controller not in self.zk_brokers:
            result.error = "BrokerNotAvailableException"
            return result
        self.active_controller = new_controller
        self.controller_epoch += 1
        meter = self.ctx.unclean_meter
        self.ctx = self._load_context()
        ctx = self.ctx
        ctx.unclean_meter = meter
        ctx.sink = result
        for topic in ctx.topics_to_be_deleted:
            if any(not ctx.is_replica_online(k[1], k[0]) for k in ctx.replicas_for_topic(topic)):
                ctx.topics_ineligible_for_deletion.add(topic)
            if any(ctx.is_being_reassigned(tp) for tp in ctx.partitions_for_topic(topic)):
                ctx.topics_ineligible_for_deletion.add(topic)
        for (tp, _), res in startup_replica_states(ctx, self.store).items():
            if res is not None:
                result.failures.setdefault(tp, res)
        self._initial_partition_states(sorted(ctx.assignments))
        self._trigger_online_partition_state_change()
        for tp, target in sorted(self.zk_reassignments.items()):
            if tp in ctx.assignments:
                self._start_reassignment(tp, target, result)
        for tp in sorted(ctx.reassignment_targets):
            if tp not in self.zk_reassignments:
                self._resume_reassignment(tp)
        self._resume_deletions()
        if self.zk_preferred_pending:
            pending = sorted(self.zk_preferred_pending)
            self._process_replica_leader_election(pending, False, RequestSource.zk, result)
            self.zk_preferred_pending.clear()
        ctx.sink = None
        return result

    # ------------------------------------------------------------------ context writes

    def ctx_set_assignment(self, assignments: Mapping[TopicPartition, Sequence[int]]) -> OpResult:
        """Write assignments straight into the controller context (no controller logic)."""
        result = self._begin("ctx_set_assignment")
        for tp, replicas in assignments.items():
            self.ctx.set_assignment(tp, ReplicaAssignment(tuple(replicas)))
        return self._end(result)

    def ctx_set_leadership(self, leadership: Mapping[TopicPartition, LeaderAndIsr]) -> OpResult:
        """Write leadership straight into the context (and the znode), no controller logic."""
        result = self._begin("ctx_set_leadership")
        for tp, leader_and_isr in leadership.items():
            self.ctx.leadership[tp] = leader_and_isr
            self.store.data[tp] = leader_and_isr
        return self._end(result)

    def ctx_queue_topic_deletion(self, topics: Iterable[str]) -> OpResult:
        """``ControllerContext.queueTopicDeletion`` only."""
        result = self._begin("ctx_queue_topic_deletion")
        self.ctx.topics_to_be_deleted.update(topics)
        return self._end(result)

    def ctx_remove_topic(self, topics: Iterable[str]) -> OpResult:
        """``ControllerContext.removeTopic`` only."""
        result = self._begin("ctx_remove_topic")
        for topic in topics:
            self.ctx.remove_topic(topic)
        return self._end(result)
