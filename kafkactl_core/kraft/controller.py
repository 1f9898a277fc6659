"""Shared machinery of the modelled KRaft controller: settings, results, record plumbing.

``ControllerBase`` extends the replayed image (``ClusterState``) with what every controller
operation needs: the settings (MV, release, ELR flag, defaults), the effective topic settings
(min ISR, unclean election), a ``PartitionChangeBuilder`` wired like Kafka's (``LeaderAcceptor``,
ZK-migration flag, ELR, default directories), ``generateLeaderAndIsrUpdates``, and the commit
step that replays an operation's records before returning them. Config changes live here too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from kafkactl_core.kraft.builder import (
    BuildResult,
    Election,
    LeaderPredicate,
    PartitionChangeBuilder,
)
from kafkactl_core.kraft.configs import (
    ConfigResourceType,
    ConfigStore,
    validate_config,
)
from kafkactl_core.kraft.errors import NO_ERROR, ApiError, Errors
from kafkactl_core.kraft.isr_index import TopicIdPartition
from kafkactl_core.kraft.metadata_version import REFERENCE_RELEASE, MetadataVersion
from kafkactl_core.kraft.records import (
    ConfigRecord,
    MetadataRecord,
    RecordAndVersion,
)
from kafkactl_core.kraft.registration import PartitionRegistration
from kafkactl_core.kraft.state import ClusterState, TopicInfo
from kafkactl_core.model import NO_LEADER, TopicPartition
from kafkactl_core.versions import KafkaRelease

T = TypeVar("T")

MAX_ELECTIONS_PER_IMBALANCE = 1000
"""``ReplicationControlManager.MAX_ELECTIONS_PER_IMBALANCE``."""


@dataclass(frozen=True, slots=True)
class ClusterSettings:
    """How the modelled controller is configured.

    Attributes:
        metadata_version: the finalised ``metadata.version``.
        release: the controller's Kafka release (unclean config from 3.9, ELR gate).
        eligible_leader_replicas_enabled: ``eligible.leader.replicas.enable`` (effective only
            when the MV supports ELR).
        zk_migration_enabled: ``zookeeper.metadata.migration.enable`` (3.4 to 3.9).
        controller_node_id: the active controller's node id (its broker-level dynamic config
            applies to topics).
        static_config: the controller's server properties.
        default_replication_factor: ``default.replication.factor`` for CreateTopics with -1.
        default_num_partitions: ``num.partitions`` for CreateTopics with -1.
        default_min_isr: min ISR when no config resolves one.
        max_elections_per_imbalance: records per balancing / unclean-election run.
    """

    metadata_version: MetadataVersion
    release: KafkaRelease = REFERENCE_RELEASE
    eligible_leader_replicas_enabled: bool = False
    zk_migration_enabled: bool = False
    controller_node_id: int | None = None
    static_config: Mapping[str, str] = field(default_factory=dict)
    default_replication_factor: int = 1
    default_num_partitions: int = 1
    default_min_isr: int = 1
    max_elections_per_imbalance: int = MAX_ELECTIONS_PER_IMBALANCE


@dataclass(frozen=True, slots=True)
class OpResult(Generic[T]):
    """What one controller operation produced.

    Attributes:
        records: the records it wrote, in order (already replayed).
        response: the operation's answer.
        elections: for each partition the operation changed, the builder outcome.
        replay_errors: records that could not be applied (empty in a consistent model).
    """

    records: tuple[RecordAndVersion, ...]
    response: T
    elections: Mapping[TopicPartition, BuildResult] = field(default_factory=dict)
    replay_errors: tuple[str, ...] = ()


class PendingOp:
    """Records and builder outcomes an operation accumulates before they are replayed."""

    __slots__ = ("elections", "records")

    def __init__(self) -> None:
        self.records: list[RecordAndVersion] = []
        self.elections: dict[TopicPartition, BuildResult] = {}

    def add(self, record: MetadataRecord, version: int = 0) -> None:
        """Append a record written at ``version``."""
        self.records.append(RecordAndVersion(record, version))


class ControllerBase(ClusterState):
    """The replayed image plus the plumbing every controller operation uses."""

    def __init__(self, settings: ClusterSettings) -> None:
        """A controller with no brokers and no topics.

        Args:
            settings: MV, release, ELR flag and defaults.
        """
        super().__init__(
            settings.metadata_version,
            settings.release,
            configs=ConfigStore(settings.static_config, settings.controller_node_id),
        )
        self.settings = settings
        self._topic_counter = 0

    # -- derived settings ----------------------------------------------------------------------

    def is_elr_enabled(self) -> bool:
        """``isElrEnabled``: the ELR flag and an MV that supports ELR."""
        return self.settings.eligible_leader_replicas_enabled and (
            self.metadata_version.is_elr_supported(self.release)
        )

    def zk_registration_allowed(self) -> bool:
        """ZK migration on, at an MV that supports it."""
        return self.settings.zk_migration_enabled and self.metadata_version.is_migration_supported()

    def unclean_leader_election_enabled(self, topic: str) -> bool:
        """``uncleanLeaderElectionEnabledForTopic`` (always false before Kafka 3.9)."""
        return self.configs.unclean_leader_election_enabled(topic, self.release)

    def effective_min_isr(self, topic: str) -> int:
        """``getTopicEffectiveMinIsr``: ``min(min.insync.replicas, RF of partition 0)``.

        Returns:
            The effective min ISR; the configured value alone for a topic without partition 0.
        """
        min_isr = self.configs.min_insync_replicas(topic, self.settings.default_min_isr)
        info = self.topic(topic)
        if info is None or 0 not in info.partitions:
            return min_isr
        return min(min_isr, len(info.partitions[0].replicas))

    # -- plumbing ------------------------------------------------------------------------------

    def _commit(self, op: PendingOp, response: T) -> OpResult[T]:
        errors = []
        for record in op.records:
            error = self.replay(record)
            if error is not None:
                errors.append(error)
        return OpResult(tuple(op.records), response, dict(op.elections), tuple(errors))

    def _leader_acceptor(
        self, partition: PartitionRegistration, predicate: LeaderPredicate
    ) -> LeaderPredicate:
        def accept(broker: int) -> bool:
            return predicate(broker) and self.has_online_dir(broker, partition.directory(broker))

        return accept

    def _builder(
        self,
        topic: TopicInfo,
        partition_id: int,
        partition: PartitionRegistration,
        predicate: LeaderPredicate,
    ) -> PartitionChangeBuilder:
        return (
            PartitionChangeBuilder(
                partition,
                topic.topic_id,
                partition_id,
                self._leader_acceptor(partition, predicate),
                self.metadata_version,
                self.effective_min_isr(topic.name),
                release=self.release,
            )
            .set_zk_migration_enabled(self.zk_registration_allowed())
            .set_eligible_leader_replicas_enabled(self.is_elr_enabled())
            .set_default_dir_provider(self.default_dir)
        )

    def _emit(self, op: PendingOp, topic: TopicInfo, partition_id: int, built: BuildResult) -> bool:
        if built.record is None:
            return False
        op.add(built.record, built.version)
        op.elections[TopicPartition(topic.name, partition_id)] = built
        return True

    def _generate_leader_and_isr_updates(
        self,
        op: PendingOp,
        partitions: Sequence[TopicIdPartition],
        *,
        broker_to_remove: int = NO_LEADER,
        broker_to_add: int = NO_LEADER,
        broker_with_unclean_shutdown: int = NO_LEADER,
    ) -> None:
        """``generateLeaderAndIsrUpdates``: re-elect / shrink the ISR of each partition."""

        def acceptable(broker: int) -> bool:
            if broker in (broker_to_remove, broker_with_unclean_shutdown):
                return False
            return broker == broker_to_add or self.is_active(broker)

        removed = {broker_to_remove, broker_with_unclean_shutdown}
        for topic_id, partition_id in partitions:
            topic = self.topic_by_id(topic_id)
            partition = None if topic is None else topic.partitions.get(partition_id)
            if topic is None or partition is None:
                continue
            builder = self._builder(topic, partition_id, partition, acceptable)
            if self.unclean_leader_election_enabled(topic.name):
                builder.set_election(Election.UNCLEAN)
            if broker_with_unclean_shutdown != NO_LEADER:
                builder.set_unclean_shutdown_replicas([broker_with_unclean_shutdown])
            builder.set_target_isr([r for r in partition.isr if r not in removed])
            self._emit(op, topic, partition_id, builder.build())

    def _check_broker_epoch(self, broker_id: int, broker_epoch: int | None) -> ApiError | None:
        registration = self.broker(broker_id)
        if registration is None:
            return ApiError(
                Errors.STALE_BROKER_EPOCH, f"No broker registration found for broker {broker_id}"
            )
        if broker_epoch is not None and registration.epoch != broker_epoch:
            return ApiError(
                Errors.STALE_BROKER_EPOCH,
                f"Expected broker epoch {registration.epoch}, but got broker epoch {broker_epoch}",
            )
        return None

    def _validate_manual_assignment(
        self, replicas: Sequence[int], replication_factor: int | None
    ) -> ApiError | None:
        if not replicas:
            return ApiError(
                Errors.INVALID_REPLICA_ASSIGNMENT,
                "The manual partition assignment includes an empty replica list.",
            )
        previous: int | None = None
        for broker in sorted(replicas):
            if self.broker(broker) is None:
                return ApiError(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    f"The manual partition assignment includes broker {broker}, but no such "
                    "broker is registered.",
                )
            if broker == previous:
                return ApiError(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    f"The manual partition assignment includes the broker {previous} more "
                    "than once.",
                )
            previous = broker
        if replication_factor is not None and len(replicas) != replication_factor:
            return ApiError(
                Errors.INVALID_REPLICA_ASSIGNMENT,
                f"The manual partition assignment includes a partition with {len(replicas)} "
                f"replica(s), but this is not consistent with previous partitions, which have "
                f"{replication_factor} replica(s).",
            )
        return None

    # -- configs -------------------------------------------------------------------------------

    def set_config(
        self, resource_type: int, resource_name: str, name: str, value: str | None
    ) -> OpResult[ApiError]:
        """IncrementalAlterConfigs SET (or DELETE when ``value`` is None) of one key.

        Changing ``unclean.leader.election.enable`` elects nobody by itself: the periodic
        ``elect_unclean_leaders`` task does.

        Args:
            resource_type: a ``ConfigResourceType`` (TOPIC 2, BROKER 4, ...).
            resource_name: topic name, broker id, or "" for the cluster default.
            name: config key.
            value: new value, None to delete.

        Returns:
            NONE, or why the change is refused.
        """
        try:
            kind = ConfigResourceType(resource_type)
        except ValueError:
            return OpResult(
                (), ApiError(Errors.INVALID_REQUEST, f"Unknown resource type {resource_type}")
            )
        if kind is ConfigResourceType.TOPIC and self.topic_id(resource_name) is None:
            return OpResult(
                (),
                ApiError(
                    Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    f"The topic '{resource_name}' does not exist.",
                ),
            )
        if kind is ConfigResourceType.BROKER and resource_name and not resource_name.isdigit():
            return OpResult(
                (), ApiError(Errors.INVALID_REQUEST, f"Illegal broker ID {resource_name}")
            )
        error = validate_config(name, value)
        if error is not None:
            return OpResult((), error)
        op = PendingOp()
        op.add(ConfigRecord(int(kind), resource_name, name, value))
        return self._commit(op, NO_ERROR)
