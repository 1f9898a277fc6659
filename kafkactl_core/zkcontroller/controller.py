"""``ZkController``: the scenario engine, a ZooKeeper-mode cluster driven one operation at a time.

It keeps what ZooKeeper holds (registered brokers, assignments, leadership znodes, topic configs,
admin paths) apart from what the active controller holds (``ControllerContext``), and orders the
state-machine steps the way ``KafkaController`` does for each event: broker failure and startup
(bounces included), controlled shutdown, leader-driven ISR changes, preferred/unclean elections
by trigger, the auto-rebalance check, reassignments, topic creation/expansion/deletion, dynamic
config changes, controller failover and log-dir failures. Every operation returns an
``OpResult`` (elections made, znodes written, per-partition errors) and never raises on bad
input; state is read through ``partition``, ``metrics`` and ``imbalance``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from kafkactl_core.assignment import ReplicaAssignment, scala_set_order
from kafkactl_core.model import (
    NO_LEADER,
    ElectionStrategy,
    LeaderAndIsr,
    LeaderRecoveryState,
    PartitionState,
    ReplicaState,
    TopicPartition,
)
from kafkactl_core.profiles import KafkaVersion, PreferredOnPreferredLeader, ReassignmentLayout
from kafkactl_core.zkcontroller.cluster import ClusterSpec, ControllerConfig
from kafkactl_core.zkcontroller.context import ControllerContext, ReplicaKey
from kafkactl_core.zkcontroller.partition_sm import PartitionResult, handle_partition_state_changes
from kafkactl_core.zkcontroller.rebalance import imbalance_groups
from kafkactl_core.zkcontroller.replica_sm import (
    handle_replica_state_changes,
    startup_replica_states,
)
from kafkactl_core.zkcontroller.results import (
    ControllerMetrics,
    ImbalanceGroup,
    OpResult,
    PartitionView,
    RequestSource,
)
from kafkactl_core.zkcontroller.states import TransitionError, TransitionErrorKind
from kafkactl_core.zkcontroller.zkstore import InMemoryLeadershipStore, ZkFailure

_P = PartitionState
_R = ReplicaState
UNCLEAN_KEY = "unclean.leader.election.enable"
REASSIGN_ZNODE = "/admin/reassign_partitions"
PREFERRED_ZNODE = "/admin/preferred_replica_election"


def parse_bool_config(value: object) -> bool | None:
    """Kafka's ``ConfigDef`` BOOLEAN parsing: a bool, or ``true``/``false`` in any case.

    Returns:
        The value, or ``None`` when it is not a valid boolean (``ConfigException``).
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _alter_partition_default_version(profile: KafkaVersion) -> int:
    if profile.release.at_least("3.5"):
        return 3
    if profile.release.at_least("3.3"):
        return 2
    if profile.release.at_least("3.2"):
        return 1
    return 0


class ZkController:
    """A ZooKeeper-mode cluster and its controller, replaying operations with a release's rules."""

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
        for tp in self.zk_assignments:
            lai = ctx.leadership.get(tp)
            if lai is None:
                ctx.partition_states[tp] = _P.NewPartition
            elif ctx.is_replica_online(lai.leader, tp):
                ctx.partition_states[tp] = _P.OnlinePartition
            else:
                ctx.partition_states[tp] = _P.OfflinePartition
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

    # ------------------------------------------------------------------ topics

    def create_topic(
        self,
        topic: str,
        assignment: Mapping[int, Sequence[int]],
        config: Mapping[str, object] | None = None,
    ) -> OpResult:
        """Create a topic with an explicit assignment (config validated first).

        Args:
            topic: the topic name.
            assignment: replicas per partition number.
            config: topic-level overrides.

        Returns:
            The result; ``error`` is ``ConfigException``, ``TopicExistsException`` or
            ``InvalidReplicaAssignmentException`` when the topic is not created.
        """
        result = self._begin("create_topic")
        conf = dict(config or {})
        if UNCLEAN_KEY in conf and parse_bool_config(conf[UNCLEAN_KEY]) is None:
            result.error = "ConfigException"
            return self._end(result)
        if any(tp.topic == topic for tp in self.zk_assignments) or topic in self.zk_deleting_topics:
            result.error = "TopicExistsException"
            return self._end(result)
        if not _valid_assignment(assignment, same_size=True):
            result.error = "InvalidReplicaAssignmentException"
            return self._end(result)
        self.zk_topic_configs[topic] = conf
        if UNCLEAN_KEY in conf and self.has_controller:
            self.ctx.topic_unclean[topic] = bool(parse_bool_config(conf[UNCLEAN_KEY]))
        new = self._write_partitions(topic, assignment)
        if self.has_controller:
            self._on_new_partition_creation(new)
        return self._end(result)

    def add_partitions(self, topic: str, assignment: Mapping[int, Sequence[int]]) -> OpResult:
        """Add partitions to an existing topic.

        Args:
            topic: the topic.
            assignment: replicas per *new* partition number.

        Returns:
            The result; ``error`` when the topic is unknown, being deleted or the partitions
            exist.
        """
        result = self._begin("add_partitions")
        existing = {tp.partition for tp in self.zk_assignments if tp.topic == topic}
        if not existing:
            result.error = "UnknownTopicOrPartitionException"
        elif topic in self.zk_deleting_topics:
            result.error = "InvalidTopicException"
        elif existing & set(assignment) or not _valid_assignment(assignment, same_size=False):
            result.error = "InvalidPartitionsException"
        else:
            new = self._write_partitions(topic, assignment)
            if self.has_controller:
                self._on_new_partition_creation(new)
        return self._end(result)

    def _write_partitions(
        self, topic: str, assignment: Mapping[int, Sequence[int]]
    ) -> list[TopicPartition]:
        new = []
        for pid in sorted(assignment):
            tp = TopicPartition(topic, pid)
            self.ctx.set_assignment(tp, ReplicaAssignment(tuple(assignment[pid])))
            new.append(tp)
        return new

    def _on_new_partition_creation(self, partitions: list[TopicPartition]) -> None:
        """``onNewPartitionCreation``."""
        self._psm(partitions, _P.NewPartition)
        replicas = self.ctx.replicas_for_partitions(partitions)
        self._rsm(replicas, _R.NewReplica)
        self._psm(partitions, _P.OnlinePartition, ElectionStrategy.offline)
        self._rsm(replicas, _R.OnlineReplica)

    def delete_topic(self, topic: str) -> OpResult:
        """Request deletion of a topic (``/admin/delete_topics``).

        Deletion completes at once when every replica is on a live broker and no reassignment
        of the topic is in flight; otherwise the topic stays queued until that changes.

        Args:
            topic: the topic.

        Returns:
            The result (``UnknownTopicOrPartitionException`` for an unknown topic).
        """
        result = self._begin("delete_topic")
        if not any(tp.topic == topic for tp in self.zk_assignments):
            result.error = "UnknownTopicOrPartitionException"
            return self._end(result)
        self.zk_deleting_topics.add(topic)
        if self.has_controller:
            self._enqueue_topics_for_deletion({topic})
        return self._end(result)

    def _enqueue_topics_for_deletion(self, topics: set[str]) -> None:
        ctx = self.ctx
        ctx.topics_to_be_deleted |= topics & ctx.all_topics
        self._resume_deletions()

    def _resume_deletions(self) -> None:
        """``TopicDeletionManager.resumeDeletions``, with brokers answering StopReplica at once."""
        ctx = self.ctx
        for _ in range(3):
            progressed = False
            for topic in sorted(ctx.topics_to_be_deleted):
                replicas = list(ctx.replicas_for_topic(topic))
                states = [ctx.replica_state(k) for k in replicas]
                if states and all(s is _R.ReplicaDeletionSuccessful for s in states):
                    self._complete_delete_topic(topic)
                    progressed = True
                    continue
                if not any(s is _R.ReplicaDeletionStarted for s in states) and any(
                    s is _R.ReplicaDeletionIneligible for s in states
                ):
                    ineligible = [
                        k for k in replicas if ctx.replica_state(k) is _R.ReplicaDeletionIneligible
                    ]
                    ctx.topics_ineligible_for_deletion.discard(topic)
                    self._rsm(ineligible, _R.OfflineReplica)
                if (
                    topic in ctx.topics_to_be_deleted
                    and not any(ctx.replica_state(k) is _R.ReplicaDeletionStarted for k in replicas)
                    and topic not in ctx.topics_ineligible_for_deletion
                ):
                    self._on_topic_deletion(topic)
                    progressed = True
            if not progressed:
                break

    def _on_topic_deletion(self, topic: str) -> None:
        ctx = self.ctx
        if topic not in ctx.topics_with_deletion_started:
            partitions = ctx.partitions_for_topic(topic)
            self._psm(partitions, _P.OfflinePartition)
            self._psm(partitions, _P.NonExistentPartition)
            ctx.topics_with_deletion_started.add(topic)
        replicas = list(ctx.replicas_for_topic(topic))
        dead = [k for k in replicas if not ctx.is_replica_online(k[1], k[0])]
        alive = [
            k
            for k in replicas
            if ctx.is_replica_online(k[1], k[0])
            and ctx.replica_state(k) is not _R.ReplicaDeletionSuccessful
        ]
        self._rsm(dead, _R.ReplicaDeletionIneligible)
        self._rsm(alive, _R.OfflineReplica)
        self._rsm(alive, _R.ReplicaDeletionStarted)
        if dead:
            ctx.topics_ineligible_for_deletion.add(topic)
        # The live brokers delete their replicas and answer the StopReplica at once.
        started = [k for k in alive if ctx.replica_state(k) is _R.ReplicaDeletionStarted]
        self._rsm(started, _R.ReplicaDeletionSuccessful)

    def _complete_delete_topic(self, topic: str) -> None:
        ctx = self.ctx
        replicas = [
            k
            for k in ctx.replicas_for_topic(topic)
            if ctx.replica_state(k) is _R.ReplicaDeletionSuccessful
        ]
        self._rsm(replicas, _R.NonExistentReplica)
        for tp in ctx.partitions_for_topic(topic):
            self.store.delete(tp)
            self.zk_reassignments.pop(tp, None)
        ctx.remove_topic(topic)
        self.zk_topic_configs.pop(topic, None)
        self.zk_deleting_topics.discard(topic)

    # ------------------------------------------------------------------ brokers

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
                for tp, lai in ctx.leadership.items()
                if not ctx.is_replica_online(lai.leader, tp)
                and not ctx.is_queued_for_deletion(tp.topic)
            ]
        else:
            dead = set(dead_brokers)
            offline_leader = [
                tp
                for tp, lai in ctx.leadership.items()
                if lai.leader in dead and not ctx.is_queued_for_deletion(tp.topic)
            ]
        self._psm(sorted(offline_leader), _P.OfflinePartition)
        self._trigger_online_partition_state_change()
        self._rsm(not_for_deletion, _R.OfflineReplica)
        if for_deletion:
            self._rsm(for_deletion, _R.ReplicaDeletionIneligible)
            ctx.topics_ineligible_for_deletion |= {k[0].topic for k in for_deletion}

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
                for tp, lai in ctx.leadership.items()
                if lai.leader == broker
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

    # ------------------------------------------------------------------ ISR changes

    def isr_change(
        self,
        tp: TopicPartition,
        isr: Sequence[int],
        leader: int | None = None,
        request_version: int | None = None,
        leader_recovery_state: LeaderRecoveryState | None = None,
    ) -> OpResult:
        """A leader-driven ISR update (AlterPartition from 2.7; a direct ZK write before).

        Args:
            tp: the partition.
            isr: the ISR the leader proposes.
            leader: the sender; ``None`` = the current leader (epochs are the current ones).
            request_version: the AlterPartition version; ``None`` = the release's newest.
            leader_recovery_state: the state the leader sends; ``None`` = RECOVERED when the
                ISR grows beyond the leader (recovery done), else the current one.

        Returns:
            The result; ``errors[tp]`` holds the AlterPartition error when rejected.
        """
        result = self._begin("isr_change")
        error = self._leader_isr_update(
            tp, tuple(isr), leader, request_version, leader_recovery_state
        )
        if error is not None:
            result.errors[tp] = error
        return self._end(result)

    def _leader_isr_update(
        self,
        tp: TopicPartition,
        isr: tuple[int, ...],
        sender: int | None,
        request_version: int | None,
        recovery: LeaderRecoveryState | None,
    ) -> str | None:
        current = self.store.data.get(tp)
        if current is None or tp not in self.zk_assignments:
            return "UNKNOWN_TOPIC_OR_PARTITION"
        sender = current.leader if sender is None else sender
        if recovery is None:
            recovery = (
                LeaderRecoveryState.RECOVERED if len(isr) > 1 else current.leader_recovery_state
            )
        proposed = LeaderAndIsr(
            sender, current.leader_epoch, isr, current.partition_epoch, recovery
        )
        if self.profile.alter_partition:
            if not self.has_controller:
                return "NOT_CONTROLLER"
            ctx = self.ctx
            if sender not in ctx.live_broker_epochs:
                return "STALE_BROKER_EPOCH"
            if sender != current.leader:
                return "FENCED_LEADER_EPOCH"
            if proposed == current:
                return None
            if recovery is LeaderRecoveryState.RECOVERING and len(isr) > 1:
                return "INVALID_REQUEST"
            if (
                current.leader_recovery_state is LeaderRecoveryState.RECOVERED
                and recovery is LeaderRecoveryState.RECOVERING
            ):
                return "INVALID_REQUEST"
            if set(isr) - ctx.live_broker_ids:
                version = (
                    _alter_partition_default_version(self.profile)
                    if request_version is None
                    else request_version
                )
                return "INELIGIBLE_REPLICA" if version > 1 else "OPERATION_NOT_ATTEMPTED"
        elif sender != current.leader or sender == NO_LEADER:
            return "FENCED_LEADER_EPOCH"
        stored = self.store.update(tp, proposed)
        if isinstance(stored, ZkFailure):
            return stored.value
        if self.ctx.sink is not None:
            self.ctx.sink.written.add(tp)
        if self.has_controller:
            self.ctx.leadership[tp] = stored
            if self.ctx.is_being_reassigned(tp):
                self._maybe_complete_reassignment(tp)
        return None

    # ------------------------------------------------------------------ elections

    def preferred_election(
        self, source: RequestSource, partitions: Iterable[TopicPartition]
    ) -> OpResult:
        """A preferred-leader election request (auto task, ZK znode, or Admin API).

        Args:
            source: who asked.
            partitions: the partitions.

        Returns:
            The result; ``errors`` holds per-partition outcome codes.
        """
        result = self._begin("preferred_election")
        parts = list(dict.fromkeys(partitions))
        if source is RequestSource.admin and not self.profile.admin_elect_leaders:
            result.error = "UnsupportedVersionException"
        elif not self.has_controller:
            result.error = "NOT_CONTROLLER"
        elif source is RequestSource.auto:
            known = [tp for tp in parts if tp in self.ctx.assignments]
            for tp in parts:
                if tp not in self.ctx.assignments:
                    result.errors[tp] = "UNKNOWN_TOPIC_OR_PARTITION"
            self._on_replica_election(known, unclean=False, source=source, result=result)
        else:
            self._process_replica_leader_election(parts, False, source, result)
        if source is RequestSource.zk and result.error is None:
            self.zk_preferred_pending.clear()
            result.znodes_removed.append(PREFERRED_ZNODE)
        return self._end(result)

    def unclean_election(self, partitions: Iterable[TopicPartition]) -> OpResult:
        """Admin ``ElectLeaders`` with ``UNCLEAN`` (2.4+, KIP-460).

        Args:
            partitions: the partitions.

        Returns:
            The result; ``errors`` holds per-partition outcome codes.
        """
        result = self._begin("unclean_election")
        if not self.profile.admin_unclean_election:
            result.error = "UnsupportedVersionException"
        elif not self.has_controller:
            result.error = "NOT_CONTROLLER"
        else:
            parts = list(dict.fromkeys(partitions))
            self._process_replica_leader_election(parts, True, RequestSource.admin, result)
        return self._end(result)

    def _process_replica_leader_election(
        self, parts: list[TopicPartition], unclean: bool, source: RequestSource, result: OpResult
    ) -> None:
        """``processReplicaLeaderElection`` (2.2+) or the older ZK-triggered path."""
        ctx = self.ctx
        known = []
        for tp in parts:
            if tp not in ctx.assignments:
                result.errors[tp] = "UNKNOWN_TOPIC_OR_PARTITION"
            elif ctx.is_queued_for_deletion(tp.topic):
                result.errors[tp] = "INVALID_TOPIC_EXCEPTION"
            else:
                known.append(tp)
        filtering = self.profile.preferred_on_preferred_leader
        electable = []
        for tp in known:
            lai = ctx.leadership.get(tp)
            if lai is None:
                result.errors[tp] = "PREFERRED_LEADER_NOT_AVAILABLE"
                continue
            if unclean:
                needed = lai.leader == NO_LEADER or lai.leader not in ctx.live_broker_ids
            elif filtering is PreferredOnPreferredLeader.filtered_not_needed:
                needed = lai.leader != ctx.assignment(tp).replicas[0]
            else:
                needed = True
            if needed:
                electable.append(tp)
            else:
                result.errors[tp] = "ELECTION_NOT_NEEDED"
        self._on_replica_election(electable, unclean, source, result)

    def _on_replica_election(
        self,
        partitions: list[TopicPartition],
        unclean: bool,
        source: RequestSource,
        result: OpResult,
    ) -> int:
        """``onReplicaElection``; returns how many elections succeeded."""
        if not partitions:
            return 0
        if unclean:
            outcomes = self._psm(
                partitions,
                _P.OnlinePartition,
                ElectionStrategy.offline,
                allow_unclean=source is RequestSource.admin,
                requested_by=source,
            )
        else:
            outcomes = self._psm(
                partitions, _P.OnlinePartition, ElectionStrategy.preferred, requested_by=source
            )
        modern_api = self.profile.admin_elect_leaders
        ok = 0
        for tp, res in outcomes.items():
            if isinstance(res, TransitionError):
                if res.kind is TransitionErrorKind.election_not_needed:
                    result.errors[tp] = "LeaderElectionNotNeededException"
                elif res.kind is TransitionErrorKind.invalid_transition:
                    result.errors[tp] = "IllegalStateException"
                elif modern_api:
                    result.errors[tp] = (
                        "ELIGIBLE_LEADERS_NOT_AVAILABLE"
                        if unclean
                        else "PREFERRED_LEADER_NOT_AVAILABLE"
                    )
                else:
                    result.errors[tp] = "StateChangeFailedException"
            else:
                ok += 1
                if modern_api:
                    result.errors[tp] = "NONE"
        return ok

    def auto_rebalance_check(self) -> OpResult:
        """One run of the periodic auto-rebalance task (``checkAndTriggerAutoLeaderRebalance``).

        Returns:
            The result; ``imbalance`` holds the computation per preferred broker (empty when
            ``auto.leader.rebalance.enable`` is false or there is no controller).
        """
        result = self._begin("auto_rebalance_check")
        if not self.has_controller or not self.config.auto_leader_rebalance_enable:
            result.imbalance = {}
            return self._end(result)
        groups = self.imbalance()
        done: dict[int, ImbalanceGroup] = {}
        for broker, group in groups.items():
            elections = 0
            if group.rebalance and group.candidates:
                if self.profile.auto_rebalance_batched:
                    elections = self._on_replica_election(
                        list(group.candidates), False, RequestSource.auto, result
                    )
                else:
                    for tp in group.candidates:
                        elections += self._on_replica_election(
                            [tp], False, RequestSource.auto, result
                        )
            done[broker] = ImbalanceGroup(
                group.broker,
                group.partitions,
                group.not_preferred,
                group.ratio,
                group.rebalance,
                group.candidates,
                elections,
            )
        result.imbalance = done
        return self._end(result)

    # ------------------------------------------------------------------ reassignment

    def reassign(self, tp: TopicPartition, target: Sequence[int], via: str = "zk") -> OpResult:
        """Submit a reassignment (``/admin/reassign_partitions`` or the Admin API, 2.4+).

        Args:
            tp: the partition.
            target: the target replicas, in order.
            via: ``zk`` or ``admin``.

        Returns:
            The result; ``errors[tp]`` when the request is refused.
        """
        result = self._begin("reassign")
        tgt = tuple(target)
        if via == "admin" and not self.profile_kip455:
            result.error = "UnsupportedVersionException"
            return self._end(result)
        if tp not in self.zk_assignments or tp.topic in self.zk_deleting_topics:
            result.errors[tp] = "UNKNOWN_TOPIC_OR_PARTITION"
            return self._end(result)
        if not tgt or len(set(tgt)) != len(tgt) or any(r < 0 for r in tgt):
            result.errors[tp] = "INVALID_REPLICA_ASSIGNMENT"
            return self._end(result)
        if via == "admin":
            if not self.has_controller:
                result.error = "NOT_CONTROLLER"
                return self._end(result)
            adding = self.ctx.assignment(tp).reassign_to(tgt).adding
            if not set(adding) <= self.ctx.live_broker_ids:
                result.errors[tp] = "INVALID_REPLICA_ASSIGNMENT"
                return self._end(result)
        else:
            self.zk_reassignments[tp] = tgt
        if self.has_controller:
            self._start_reassignment(tp, tgt, result)
        return self._end(result)

    def _start_reassignment(
        self, tp: TopicPartition, target: tuple[int, ...], result: OpResult
    ) -> None:
        ctx = self.ctx
        if self.profile_kip455:
            self._on_partition_reassignment(tp, ctx.assignment(tp).reassign_to(target))
            return
        if ctx.assignment(tp).replicas == target:
            result.errors[tp] = "KafkaException"
            self._remove_from_reassigning(tp)
            return
        ctx.reassignment_targets[tp] = target
        self._on_partition_reassignment_legacy(tp)

    def reassign_complete(self, tp: TopicPartition) -> OpResult:
        """The live target replicas catch up: the leader adds them to the ISR.

        The controller then completes the reassignment if every target replica is in the ISR.

        Args:
            tp: the partition being reassigned.

        Returns:
            The result.
        """
        result = self._begin("reassign_complete")
        ctx = self.ctx
        if not self.has_controller or not ctx.is_being_reassigned(tp):
            result.errors[tp] = "NO_REASSIGNMENT_IN_PROGRESS"
            return self._end(result)
        lai = self.store.data.get(tp)
        if lai is not None and lai.leader != NO_LEADER:
            joining = [
                r
                for r in ctx.reassignment_target(tp)
                if r not in lai.isr and r in ctx.live_broker_ids and ctx.is_replica_online(r, tp)
            ]
            if joining:
                error = self._leader_isr_update(tp, (*lai.isr, *joining), None, None, None)
                if error is not None:
                    result.errors[tp] = error
                return self._end(result)
        self._maybe_complete_reassignment(tp)
        return self._end(result)

    def _maybe_complete_reassignment(self, tp: TopicPartition) -> None:
        if self._reassignment_complete(tp):
            self._resume_reassignment(tp)

    def _resume_reassignment(self, tp: TopicPartition) -> None:
        if self.profile_kip455:
            self._on_partition_reassignment(tp, self.ctx.assignment(tp))
        else:
            self._on_partition_reassignment_legacy(tp)

    def _reassignment_complete(self, tp: TopicPartition) -> bool:
        ctx = self.ctx
        if self.profile_kip455 and not ctx.assignment(tp).is_being_reassigned:
            return True
        lai = self.store.data.get(tp)
        return lai is not None and set(ctx.reassignment_target(tp)) <= set(lai.isr)

    def _update_leader_epoch(self, tp: TopicPartition) -> None:
        """``updateLeaderEpochAndSendRequest``: same leader and ISR, leaderEpoch + 1."""
        current = self.store.data.get(tp)
        if current is None:
            return
        stored = self.store.update(tp, current.new_epoch())
        if isinstance(stored, LeaderAndIsr):
            self.ctx.leadership[tp] = stored
            if self.ctx.sink is not None:
                self.ctx.sink.written.add(tp)

    def _on_partition_reassignment(
        self, tp: TopicPartition, reassignment: ReplicaAssignment
    ) -> None:
        """``onPartitionReassignment`` (2.4+, KIP-455)."""
        ctx = self.ctx
        if ctx.is_queued_for_deletion(tp.topic):
            ctx.topics_ineligible_for_deletion.add(tp.topic)
        current = ctx.assignment(tp)
        if current != reassignment:
            ctx.set_assignment(tp, reassignment)
            unneeded = [r for r in current.replicas if r not in reassignment.replicas]
            if unneeded:
                self._stop_removed_replicas(tp, unneeded)
        ctx.reassignment_targets[tp] = reassignment.target_replicas
        if not self._reassignment_complete(tp):
            self._update_leader_epoch(tp)
            self._rsm([(tp, r) for r in reassignment.adding], _R.NewReplica)
            return
        self._rsm([(tp, r) for r in reassignment.adding], _R.OnlineReplica)
        completed = reassignment.completed()
        ctx.set_assignment(tp, completed)
        ctx.reassignment_targets[tp] = completed.replicas
        self._move_leader_if_required(tp, completed.replicas)
        self._stop_removed_replicas(tp, list(reassignment.removing))
        self._remove_from_reassigning(tp)
        self._resume_deletion_for(tp.topic)

    def _on_partition_reassignment_legacy(self, tp: TopicPartition) -> None:
        """``onPartitionReassignment`` up to 2.3 (RAR/OAR, Scala Set layout)."""
        ctx = self.ctx
        rar = ctx.reassignment_targets[tp]
        if ctx.is_queued_for_deletion(tp.topic):
            ctx.topics_ineligible_for_deletion.add(tp.topic)
        current = ctx.assignment(tp).replicas
        if not self._reassignment_complete(tp):
            new_replicas = [r for r in rar if r not in current]
            full = scala_set_order((*rar, *current))
            ctx.set_assignment(tp, ReplicaAssignment(full))
            self._update_leader_epoch(tp)
            self._rsm([(tp, r) for r in new_replicas], _R.NewReplica)
            return
        old = [r for r in current if r not in rar]
        self._rsm([(tp, r) for r in rar], _R.OnlineReplica)
        ctx.set_assignment(tp, ReplicaAssignment(rar))
        self._move_leader_if_required(tp, rar)
        self._stop_removed_replicas(tp, old)
        ctx.set_assignment(tp, ReplicaAssignment(rar))
        self._remove_from_reassigning(tp)
        self._resume_deletion_for(tp.topic)

    def _move_leader_if_required(self, tp: TopicPartition, replicas: tuple[int, ...]) -> None:
        """``moveReassignedPartitionLeaderIfRequired``."""
        lai = self.ctx.leadership.get(tp)
        leader = NO_LEADER if lai is None else lai.leader
        if leader in replicas and self.ctx.is_replica_online(leader, tp):
            self._update_leader_epoch(tp)
        else:
            self._psm([tp], _P.OnlinePartition, ElectionStrategy.reassign)

    def _stop_removed_replicas(self, tp: TopicPartition, removed: list[int]) -> None:
        keys = [(tp, r) for r in removed]
        self._rsm(keys, _R.OfflineReplica)
        self._rsm(keys, _R.ReplicaDeletionStarted)
        self._rsm(keys, _R.ReplicaDeletionSuccessful)
        self._rsm(keys, _R.NonExistentReplica)

    def _remove_from_reassigning(self, tp: TopicPartition) -> None:
        self.ctx.reassignment_targets.pop(tp, None)
        if self.zk_reassignments.pop(tp, None) is not None and not self.zk_reassignments:
            sink = self.ctx.sink
            if sink is not None:
                sink.znodes_removed.append(REASSIGN_ZNODE)

    def _resume_deletion_for(self, topic: str) -> None:
        if self.ctx.is_queued_for_deletion(topic):
            self.ctx.topics_ineligible_for_deletion.discard(topic)
            self._resume_deletions()

    # ------------------------------------------------------------------ config

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
        # PartitionStateMachine.startup
        for tp in sorted(ctx.assignments):
            lai = ctx.leadership.get(tp)
            if lai is None:
                ctx.partition_states[tp] = _P.NewPartition
            elif ctx.is_replica_online(lai.leader, tp):
                ctx.partition_states[tp] = _P.OnlinePartition
            else:
                ctx.partition_states[tp] = _P.OfflinePartition
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
        for tp, lai in leadership.items():
            self.ctx.leadership[tp] = lai
            self.store.data[tp] = lai
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


def _valid_assignment(assignment: Mapping[int, Sequence[int]], same_size: bool) -> bool:
    if not assignment:
        return False
    sizes = {len(r) for r in assignment.values()}
    if 0 in sizes or (same_size and len(sizes) != 1):
        return False
    return all(len(set(r)) == len(r) and all(b >= 0 for b in r) for r in assignment.values())
