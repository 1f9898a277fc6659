"""``ControllerState``: what ZooKeeper and the controller hold, and the plumbing between them.

The base of ``ZkController``: ZooKeeper's side (registered brokers and their epochs, assignments,
leadership znodes, topic configs, admin paths, dynamic broker configs) kept apart from the active
controller's ``ControllerContext``; loading that context the way ``initializeControllerContext``
does; running the two state machines with the current operation's ``OpResult`` as sink; and the
read-only views (``partition``, ``metrics``, ``imbalance``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import ElectionStrategy, PartitionState, ReplicaState, TopicPartition
from kafkactl_core.profiles import KafkaVersion, ReassignmentLayout
from kafkactl_core.zkcontroller.cluster import (
    UNCLEAN_KEY,
    ClusterSpec,
    ControllerConfig,
    parse_bool_config,
)
from kafkactl_core.zkcontroller.context import ControllerContext, ReplicaKey
from kafkactl_core.zkcontroller.partition_sm import PartitionResult, handle_partition_state_changes
from kafkactl_core.zkcontroller.rebalance import imbalance_groups
from kafkactl_core.zkcontroller.replica_sm import handle_replica_state_changes
from kafkactl_core.zkcontroller.results import (
    ControllerMetrics,
    ImbalanceGroup,
    OpResult,
    PartitionView,
    RequestSource,
)
from kafkactl_core.zkcontroller.states import TransitionError
from kafkactl_core.zkcontroller.zkstore import InMemoryLeadershipStore

_P = PartitionState
_R = ReplicaState


class ControllerState:
    """A ZooKeeper-mode cluster's stored state and its controller's context (no operations)."""

    def __init__(self, spec: ClusterSpec) -> None:
        """Build the cluster as ``spec`` describes it (taken as is: nothing is re-elected).

        Args:
            spec: the initial cluster.
        """
        self.profile: KafkaVersion = spec.version
        self.config: ControllerConfig = spec.config
        self._next_broker_epoch = 1
        self.zk_brokers: dict[int, int] = {}
        for broker in spec.live:
            self.zk_brokers[broker] = self._new_broker_epoch()
        self.zk_assignments: dict[TopicPartition, ReplicaAssignment] = {}
        for topic, parts in spec.topics.items():
            for pid, assignment in parts.items():
                self.zk_assignments[TopicPartition(topic, pid)] = assignment
        self.store = InMemoryLeadershipStore(dict(spec.leadership))
        self.zk_topic_configs: dict[str, dict[str, object]] = {
            t: dict(c) for t, c in spec.topic_configs.items()
        }
        self.zk_deleting_topics: set[str] = set(spec.deleting_topics)
        self.zk_reassignments: dict[TopicPartition, tuple[int, ...]] = {}
        self.zk_preferred_pending: set[TopicPartition] = set()
        self.broker_dynamic_default: dict[str, object] = {}
        self.broker_dynamic: dict[int, dict[str, object]] = {}
        self.record_requests = spec.record_requests
        self.active_controller: int | None = spec.controller
        self.controller_epoch = 1 if spec.controller is not None else 0
        self.ctx = self._load_context(spec.shutting_down)
        ctx = self.ctx
        self._initial_partition_states(self.zk_assignments)
        for tp in self.zk_assignments:
            for r in ctx.assignment(tp).replicas:
                online = ctx.is_replica_online(r, tp, include_shutting_down=True)
                ctx.replica_states[(tp, r)] = _R.OnlineReplica if online else _R.OfflineReplica

    # ------------------------------------------------------------------ plumbing

    def _new_broker_epoch(self) -> int:
        epoch = self._next_broker_epoch
        self._next_broker_epoch += 1
        return epoch

    def _load_context(self, shutting_down: Iterable[int] = ()) -> ControllerContext:
        """``initializeControllerContext``: what a controller reads from ZooKeeper."""
        ctx = ControllerContext(self.profile)
        ctx.requests.enabled = self.record_requests
        ctx.epoch = self.controller_epoch
        ctx.live_broker_epochs = dict(self.zk_brokers)
        ctx.shutting_down = set(shutting_down) & set(self.zk_brokers)
        ctx.assignments = self.zk_assignments
        for tp in self.zk_assignments:
            ctx.topic_index.setdefault(tp.topic, {})[tp.partition] = tp
            if self.zk_assignments[tp].is_being_reassigned:
                ctx.reassignment_targets[tp] = self.zk_assignments[tp].target_replicas
        for tp, target in self.zk_reassignments.items():
            if tp in self.zk_assignments and not self.profile_kip455:
                ctx.reassignment_targets[tp] = target
        ctx.leadership = dict(self.store.data)
        ctx.topics_to_be_deleted = set(self.zk_deleting_topics) & set(ctx.topic_index)
        for topic, conf in self.zk_topic_configs.items():
            value = parse_bool_config(conf.get(UNCLEAN_KEY))
            if UNCLEAN_KEY in conf and value is not None:
                ctx.topic_unclean[topic] = value
        self._refresh_controller_config(ctx)
        return ctx

    @property
    def profile_kip455(self) -> bool:
        """Whether reassignments use the 2.4+ (KIP-455) layout."""
        return self.profile.reassignment_layout is ReassignmentLayout.kip455

    def _broker_setting(self, broker: int | None, name: str) -> object:
        if broker is not None and name in self.broker_dynamic.get(broker, {}):
            return self.broker_dynamic[broker][name]
        if name in self.broker_dynamic_default:
            return self.broker_dynamic_default[name]
        return None

    def _refresh_controller_config(self, ctx: ControllerContext) -> None:
        dynamic = parse_bool_config(self._broker_setting(self.active_controller, UNCLEAN_KEY))
        static = self.config.unclean_leader_election_enable
        if dynamic is not None:
            ctx.broker_unclean = dynamic
        elif static is not None:
            ctx.broker_unclean = static
        else:
            ctx.broker_unclean = self.profile.unclean_default
        ctx.recovery_supported = self.profile.leader_recovery_supported(
            self.config.inter_broker_protocol_version
        )

    def _begin(self, op: str) -> OpResult:
        result = OpResult(op)
        self.ctx.sink = result
        self.ctx.requests.clear()
        return result

    def _end(self, result: OpResult) -> OpResult:
        self.ctx.sink = None
        return result

    def _psm(
        self,
        partitions: Sequence[TopicPartition],
        target: PartitionState,
        strategy: ElectionStrategy | None = None,
        allow_unclean: bool = False,
        requested_by: RequestSource | None = None,
    ) -> dict[TopicPartition, PartitionResult]:
        return handle_partition_state_changes(
            self.ctx, self.store, partitions, target, strategy, allow_unclean, requested_by
        )

    def _rsm(
        self, replicas: Sequence[ReplicaKey], target: ReplicaState
    ) -> dict[ReplicaKey, TransitionError | None]:
        results = handle_replica_state_changes(self.ctx, self.store, replicas, target)
        sink = self.ctx.sink
        if sink is not None:
            for (tp, _), res in results.items():
                if res is not None:
                    sink.failures.setdefault(tp, res)
        return results

    @property
    def has_controller(self) -> bool:
        """Whether an active controller processes events."""
        return self.active_controller is not None

    def _initial_partition_states(self, partitions: Iterable[TopicPartition]) -> None:
        """``PartitionStateMachine.startup``: each partition's state from its leader's liveness."""
        ctx = self.ctx
        for tp in partitions:
            leadership = ctx.leadership.get(tp)
            if leadership is None:
                ctx.partition_states[tp] = _P.NewPartition
            elif ctx.is_replica_online(leadership.leader, tp):
                ctx.partition_states[tp] = _P.OnlinePartition
            else:
                ctx.partition_states[tp] = _P.OfflinePartition

    def _trigger_online_partition_state_change(self, topic: str | None = None) -> None:
        ctx = self.ctx
        states = {_P.OfflinePartition, _P.NewPartition}
        partitions = [
            tp
            for tp in ctx.partitions_in_states(states)
            if (topic is None or tp.topic == topic) and not ctx.is_queued_for_deletion(tp.topic)
        ]
        if partitions:
            self._psm(partitions, _P.OnlinePartition, ElectionStrategy.offline)

    # ------------------------------------------------------------------ views

    def partition(self, tp: TopicPartition) -> PartitionView | None:
        """The partition as ZooKeeper and the controller show it, ``None`` if unknown."""
        assignment = self.zk_assignments.get(tp)
        if assignment is None:
            return None
        state = self.ctx.partition_states.get(tp) if self.has_controller else None
        in_progress = self.ctx.is_being_reassigned(tp) or tp in self.zk_reassignments
        return PartitionView(tp, assignment, self.store.data.get(tp), state, in_progress)

    def partitions(self) -> list[PartitionView]:
        """Every partition, sorted."""
        views = (self.partition(tp) for tp in sorted(self.zk_assignments))
        return [v for v in views if v is not None]

    def replica_state(self, tp: TopicPartition, broker: int) -> ReplicaState | None:
        """The controller's state of one replica (``None`` if it has none)."""
        return self.ctx.replica_states.get((tp, broker))

    def metrics(self) -> ControllerMetrics:
        """The controller's metrics now."""
        return ControllerMetrics(
            self.ctx.unclean_meter,
            self.ctx.offline_partition_count(),
            self.ctx.preferred_replica_imbalance_count(),
            self.active_controller,
        )

    def imbalance(self) -> dict[int, ImbalanceGroup]:
        """The auto-rebalance computation now, per preferred broker (nothing is elected)."""
        return imbalance_groups(self.ctx, self.config.leader_imbalance_per_broker_percentage)

    @property
    def live_brokers(self) -> set[int]:
        """Brokers registered in ZooKeeper."""
        return set(self.zk_brokers)

    @property
    def shutting_down_brokers(self) -> set[int]:
        """Brokers the controller knows to be in controlled shutdown."""
        return set(self.ctx.shutting_down)
