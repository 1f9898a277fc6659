"""A KRaft controller model: requests in, metadata records out (``ReplicationControlManager``).

``KRaftCluster`` answers the controller's requests and periodic tasks the way Kafka
``3.9.0-rc3`` does (earlier releases where the rules differ: the unclean-election config, the ELR
gate): broker heartbeats (unfence, controlled shutdown, shutdown), session-timeout fencing,
unclean shutdown, CreateTopics, CreatePartitions, DeleteTopics, AlterPartition, ElectLeaders,
partition reassignment, config changes, preferred-leader balancing and the unclean-election
task. Each operation builds its records from the current image, then replays them (as the
active controller does once they commit) and returns them with its response, so state read
afterwards reflects the operation.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from kafkactl_core.kraft.brokers import BrokerControlState, HeartbeatReply, next_broker_state
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
from kafkactl_core.kraft.placement import PlacementError, UsableBroker, place
from kafkactl_core.kraft.reassignment import ReassignmentReplicas, ReassignmentRevert
from kafkactl_core.kraft.records import (
    FENCE,
    IN_CONTROLLED_SHUTDOWN,
    NO_LEADER_CHANGE,
    UNFENCE,
    BrokerRegistrationChangeRecord,
    ConfigRecord,
    FenceBrokerRecord,
    MetadataRecord,
    RecordAndVersion,
    RegisterBrokerRecord,
    RemoveTopicRecord,
    TopicRecord,
    UnfenceBrokerRecord,
    UnregisterBrokerRecord,
)
from kafkactl_core.kraft.registration import PartitionRegistration
from kafkactl_core.kraft.state import ClusterState, TopicInfo
from kafkactl_core.model import NO_LEADER, LeaderRecoveryState, TopicPartition
from kafkactl_core.versions import KafkaRelease

T = TypeVar("T")

MAX_ELECTIONS_PER_IMBALANCE = 1000
"""``ReplicationControlManager.MAX_ELECTIONS_PER_IMBALANCE``."""

_TOPIC_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
_MAX_TOPIC_NAME = 249


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


@dataclass(frozen=True, slots=True)
class AlterPartitionRequest:
    """One partition of an AlterPartition request.

    Attributes:
        new_isr: the ISR the leader asks for.
        leader_epoch: the leader's view of the leader epoch (None: the current one).
        partition_epoch: the leader's view of the partition epoch (None: the current one).
        leader_recovery_state: RECOVERED once a RECOVERING leader has recovered.
        broker_epochs: ISR members' broker epochs (v3+); missing or -1 skips the check.
    """

    new_isr: tuple[int, ...]
    leader_epoch: int | None = None
    partition_epoch: int | None = None
    leader_recovery_state: LeaderRecoveryState = LeaderRecoveryState.RECOVERED
    broker_epochs: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AlterPartitionResult:
    """One partition of the AlterPartition response (the state after the change on NONE)."""

    error: Errors
    leader: int | None = None
    leader_epoch: int | None = None
    isr: tuple[int, ...] | None = None
    partition_epoch: int | None = None
    leader_recovery_state: LeaderRecoveryState | None = None

    def to_json_dict(self) -> dict[str, object]:
        """``{"error": NAME, ...}`` with the state fields when present."""
        data: dict[str, object] = {"error": self.error.name}
        if self.leader is not None:
            data["leader"] = self.leader
        if self.leader_epoch is not None:
            data["leader_epoch"] = self.leader_epoch
        if self.isr is not None:
            data["isr"] = list(self.isr)
        if self.partition_epoch is not None:
            data["partition_epoch"] = self.partition_epoch
        if self.leader_recovery_state is not None:
            data["leader_recovery_state"] = self.leader_recovery_state.name
        return data


class _Op:
    """Records and builder outcomes an operation accumulates before they are replayed."""

    __slots__ = ("elections", "records")

    def __init__(self) -> None:
        self.records: list[RecordAndVersion] = []
        self.elections: dict[TopicPartition, BuildResult] = {}

    def add(self, record: MetadataRecord, version: int = 0) -> None:
        self.records.append(RecordAndVersion(record, version))


def _topic_name_error(name: str, existing: Sequence[str]) -> ApiError | None:
    if not name:
        return ApiError(Errors.INVALID_TOPIC_EXCEPTION, "Topic name is illegal, it can't be empty")
    if name in (".", ".."):
        return ApiError(Errors.INVALID_TOPIC_EXCEPTION, 'Topic name cannot be "." or ".."')
    if len(name) > _MAX_TOPIC_NAME:
        return ApiError(
            Errors.INVALID_TOPIC_EXCEPTION,
            f"Topic name is illegal, it can't be longer than {_MAX_TOPIC_NAME} characters, "
            f"topic name: {name}",
        )
    if not set(name) <= _TOPIC_NAME_CHARS:
        return ApiError(
            Errors.INVALID_TOPIC_EXCEPTION,
            f'Topic name "{name}" is illegal, it contains a character other than ASCII '
            "alphanumerics, '.', '_' and '-'",
        )
    if "." in name or "_" in name:
        unified = name.replace(".", "_")
        for other in existing:
            if other != name and other.replace(".", "_") == unified:
                return ApiError(
                    Errors.INVALID_TOPIC_EXCEPTION,
                    f"Topic '{name}' collides with existing topic: {other}",
                )
    return None


class KRaftCluster(ClusterState):
    """The controller's request handling on top of its replayed metadata image."""

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

    def _commit(self, op: _Op, response: T) -> OpResult[T]:
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

    def _emit(self, op: _Op, topic: TopicInfo, partition_id: int, built: BuildResult) -> bool:
        if built.record is None:
            return False
        op.add(built.record, built.version)
        op.elections[TopicPartition(topic.name, partition_id)] = built
        return True

    def _generate_leader_and_isr_updates(
        self,
        op: _Op,
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

    # -- broker lifecycle ----------------------------------------------------------------------

    def register_broker(
        self,
        broker_id: int,
        broker_epoch: int,
        *,
        incarnation_id: str = "",
        rack: str | None = None,
        log_dirs: Sequence[str] = (),
    ) -> OpResult[ApiError]:
        """Write a RegisterBrokerRecord: a (new incarnation of the) broker, fenced.

        Partitions are not changed (the unclean-shutdown handling of a re-registration is the
        separate ``unclean_shutdown`` operation).
        """
        op = _Op()
        mv = self.metadata_version
        dirs = tuple(log_dirs) if mv.is_directory_assignment_supported() else ()
        op.add(
            RegisterBrokerRecord(
                broker_id=broker_id,
                broker_epoch=broker_epoch,
                incarnation_id=incarnation_id,
                rack=rack,
                fenced=True,
                in_controlled_shutdown=False,
                log_dirs=dirs,
            ),
            mv.register_broker_record_version(),
        )
        return self._commit(op, NO_ERROR)

    def _handle_broker_fenced(self, op: _Op, broker_id: int) -> None:
        registration = self.broker(broker_id)
        if registration is None:
            return
        self._generate_leader_and_isr_updates(
            op, self._isrs.partitions_with_broker_in_isr(broker_id), broker_to_remove=broker_id
        )
        if self.metadata_version.is_broker_registration_change_record_supported():
            op.add(BrokerRegistrationChangeRecord(broker_id, registration.epoch, fenced=FENCE))
        else:
            op.add(FenceBrokerRecord(broker_id, registration.epoch))

    def _handle_broker_unfenced(self, op: _Op, broker_id: int, broker_epoch: int) -> None:
        if self.metadata_version.is_broker_registration_change_record_supported():
            op.add(BrokerRegistrationChangeRecord(broker_id, broker_epoch, fenced=UNFENCE))
        else:
            op.add(UnfenceBrokerRecord(broker_id, broker_epoch))
        self._generate_leader_and_isr_updates(
            op, self._isrs.partitions_with_no_leader(), broker_to_add=broker_id
        )

    def _handle_broker_in_controlled_shutdown(
        self, op: _Op, broker_id: int, broker_epoch: int
    ) -> None:
        registration = self.broker(broker_id)
        if (
            self.metadata_version.is_in_controlled_shutdown_state_supported()
            and registration is not None
            and not registration.in_controlled_shutdown
        ):
            op.add(
                BrokerRegistrationChangeRecord(
                    broker_id, broker_epoch, in_controlled_shutdown=IN_CONTROLLED_SHUTDOWN
                ),
                1,
            )
        self._generate_leader_and_isr_updates(
            op, self._isrs.partitions_with_broker_in_isr(broker_id), broker_to_remove=broker_id
        )

    def _handle_directories_offline(
        self, op: _Op, broker_id: int, broker_epoch: int, offline: Sequence[str]
    ) -> None:
        registration = self.broker(broker_id)
        if registration is None:
            return
        newly_offline = registration.directory_intersection(offline)
        if not newly_offline:
            return
        for directory in newly_offline:
            hosted = [
                (topic.topic_id, number)
                for topic, number, partition in self.iter_partitions()
                if directory in partition.directories
            ]
            self._generate_leader_and_isr_updates(op, hosted, broker_to_remove=broker_id)
        op.add(
            BrokerRegistrationChangeRecord(
                broker_id, broker_epoch, log_dirs=registration.directory_difference(offline)
            ),
            2,
        )

    def _control_state(self, broker_id: int) -> BrokerControlState:
        registration = self.broker(broker_id)
        if registration is None:
            return BrokerControlState.SHUTDOWN_NOW
        if self.in_heartbeat_controlled_shutdown(broker_id):
            return BrokerControlState.CONTROLLED_SHUTDOWN
        if registration.fenced:
            return BrokerControlState.FENCED
        return BrokerControlState.UNFENCED

    def heartbeat(
        self,
        broker_id: int,
        *,
        broker_epoch: int | None = None,
        want_fence: bool = False,
        want_shut_down: bool = False,
        caught_up: bool = True,
        offline_log_dirs: Sequence[str] = (),
    ) -> OpResult[HeartbeatReply | ApiError]:
        """``processBrokerHeartbeat``: move the broker through its states.

        Args:
            broker_id: the broker.
            broker_epoch: its epoch (None: the registered one).
            want_fence: it asks to be fenced.
            want_shut_down: it asks to shut down (controlled shutdown if it leads something).
            caught_up: its metadata offset reached its registration (required to unfence) and
                every active broker replayed its controlled-shutdown records.
            offline_log_dirs: directories the broker reports offline (MV ``3.7-IV2``+).

        Returns:
            The reply, or STALE_BROKER_EPOCH.
        """
        error = self._check_broker_epoch(broker_id, broker_epoch)
        registration = self.broker(broker_id)
        if error is not None or registration is None:
            return OpResult((), error or ApiError(Errors.STALE_BROKER_EPOCH))
        epoch = registration.epoch
        current = self._control_state(broker_id)
        nxt = next_broker_state(
            current,
            want_fence=want_fence,
            want_shut_down=want_shut_down,
            caught_up=caught_up,
            has_leaderships=self._isrs.has_leaderships(broker_id),
            shutdown_offset_reached=caught_up,
        )
        op = _Op()
        if current is not nxt:
            if nxt in (BrokerControlState.FENCED, BrokerControlState.SHUTDOWN_NOW):
                self._handle_broker_fenced(op, broker_id)
            elif nxt is BrokerControlState.UNFENCED:
                self._handle_broker_unfenced(op, broker_id, epoch)
            else:
                self._handle_broker_in_controlled_shutdown(op, broker_id, epoch)
        if self.metadata_version.is_directory_assignment_supported():
            self._handle_directories_offline(op, broker_id, epoch, offline_log_dirs)
        reply = HeartbeatReply(
            caught_up, nxt.fenced, nxt.in_controlled_shutdown, nxt.should_shut_down
        )
        result: OpResult[HeartbeatReply | ApiError] = self._commit(op, reply)
        if nxt.fenced:
            self._shutting_down.discard(broker_id)
        elif nxt is BrokerControlState.CONTROLLED_SHUTDOWN:
            self._shutting_down.add(broker_id)
        return result

    def fence_stale_broker(self, broker_id: int) -> OpResult[ApiError]:
        """``maybeFenceOneStaleBroker`` for a broker whose session timed out.

        Returns:
            NONE; BROKER_ID_NOT_REGISTERED for an unknown broker. An already fenced broker
            has no session to time out: nothing is written.
        """
        registration = self.broker(broker_id)
        if registration is None:
            return OpResult((), ApiError(Errors.BROKER_ID_NOT_REGISTERED))
        op = _Op()
        if not registration.fenced:
            self._handle_broker_fenced(op, broker_id)
        result = self._commit(op, NO_ERROR)
        self._shutting_down.discard(broker_id)
        return result

    def set_in_controlled_shutdown(self, broker_id: int) -> OpResult[ApiError]:
        """Write a BrokerRegistrationChangeRecord entering controlled shutdown; no elections."""
        registration = self.broker(broker_id)
        if registration is None:
            return OpResult((), ApiError(Errors.BROKER_ID_NOT_REGISTERED))
        op = _Op()
        op.add(
            BrokerRegistrationChangeRecord(
                broker_id, registration.epoch, in_controlled_shutdown=IN_CONTROLLED_SHUTDOWN
            ),
            1,
        )
        return self._commit(op, NO_ERROR)

    def unregister_broker(self, broker_id: int) -> OpResult[ApiError]:
        """``unregisterBroker``: leave every ISR and ELR, then an UnregisterBrokerRecord."""
        registration = self.broker(broker_id)
        if registration is None:
            return OpResult(
                (),
                ApiError(
                    Errors.BROKER_ID_NOT_REGISTERED,
                    f"Broker ID {broker_id} is not currently registered",
                ),
            )
        op = _Op()
        self._generate_leader_and_isr_updates(
            op, self._isrs.partitions_with_broker_in_isr(broker_id), broker_to_remove=broker_id
        )
        self._generate_leader_and_isr_updates(
            op, self._elrs.partitions_with_broker_in_elr(broker_id), broker_to_remove=broker_id
        )
        op.add(UnregisterBrokerRecord(broker_id, registration.epoch))
        return self._commit(op, NO_ERROR)

    def unclean_shutdown(self, broker_ids: Sequence[int]) -> OpResult[ApiError]:
        """``handleBrokerUncleanShutdown`` for each broker (one batch, replayed at the end).

        Only when the MV supports ELR: the brokers leave every ISR and ELR and may not lead.
        """
        op = _Op()
        if self.metadata_version.is_elr_supported(self.release):
            for broker_id in broker_ids:
                self._generate_leader_and_isr_updates(
                    op,
                    self._isrs.partitions_with_broker_in_isr(broker_id),
                    broker_with_unclean_shutdown=broker_id,
                )
                self._generate_leader_and_isr_updates(
                    op,
                    self._elrs.partitions_with_broker_in_elr(broker_id),
                    broker_with_unclean_shutdown=broker_id,
                )
        return self._commit(op, NO_ERROR)

    # -- topics and partitions -----------------------------------------------------------------

    def allocate_topic_id(self, name: str) -> str:
        """A fresh topic id (deterministic per cluster, never starting with '-' like Kafka's)."""
        while True:
            self._topic_counter += 1
            raw = uuid.uuid5(uuid.NAMESPACE_URL, f"kafkactl-audit:{name}:{self._topic_counter}")
            text = base64.urlsafe_b64encode(raw.bytes).decode("ascii").rstrip("=")
            if not text.startswith("-") and self.topic_by_id(text) is None:
                return text

    def _usable_brokers(self) -> list[UsableBroker]:
        return [
            UsableBroker(broker_id, registration.fenced)
            for broker_id, registration in self.brokers.items()
            if not self.in_heartbeat_controlled_shutdown(broker_id)
        ]

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

    def _new_partition(self, replicas: Sequence[int], isr: Sequence[int]) -> PartitionRegistration:
        return PartitionRegistration(
            replicas=tuple(replicas),
            isr=tuple(isr),
            leader=isr[0],
            directories=tuple(self.default_dir(b) for b in replicas),
        )

    def _placements(
        self,
        start: int,
        count: int,
        replication_factor: int,
        assumed: Mapping[int, Sequence[int]] | None,
    ) -> list[tuple[int, ...]]:
        wanted = range(start, start + count)
        if assumed is not None and all(number in assumed for number in wanted):
            return [tuple(assumed[number]) for number in wanted]
        placed = place(self._usable_brokers(), start, count, replication_factor)
        if assumed is not None:
            placed = [
                tuple(assumed[number]) if number in assumed else replicas
                for number, replicas in zip(wanted, placed, strict=True)
            ]
        return placed

    def create_topic(
        self,
        name: str,
        *,
        assignment: Mapping[int, Sequence[int]] | None = None,
        num_partitions: int = -1,
        replication_factor: int = -1,
        configs: Mapping[str, str | None] | None = None,
        placement: Mapping[int, Sequence[int]] | None = None,
    ) -> OpResult[ApiError]:
        """CreateTopics for one topic.

        Each partition's ISR is its active replicas (assignment order), led by the first.

        Args:
            name: topic name.
            assignment: manual assignment by partition number (then RF and count must be -1).
            num_partitions: partition count, -1 for the default.
            replication_factor: replicas per partition, -1 for the default.
            configs: topic configs to create it with.
            placement: the placement Kafka's random placer chose, when known.

        Returns:
            NONE or Kafka's error and message.
        """
        error = _topic_name_error(name, self.topic_names())
        if error is None and self.topic_id(name) is not None:
            error = ApiError(Errors.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        configs = dict(configs or {})
        if error is None:
            nulls = [key for key, value in configs.items() if value is None]
            if nulls:
                error = ApiError(
                    Errors.INVALID_CONFIG,
                    "Null value not supported for topic configs: " + ",".join(nulls),
                )
        for key, value in configs.items():
            error = error or validate_config(key, value)
        new_parts: dict[int, PartitionRegistration] = {}
        if error is None:
            error = self._plan_topic(
                new_parts, assignment, num_partitions, replication_factor, placement
            )
        if error is not None:
            return OpResult((), error)
        op = _Op()
        topic_id = self.allocate_topic_id(name)
        op.add(TopicRecord(name, topic_id))
        for key, value in configs.items():
            op.add(ConfigRecord(ConfigResourceType.TOPIC, name, key, value))
        for number, partition in new_parts.items():
            written = partition.to_record(topic_id, number, self.metadata_version, self.release)
            op.records.append(written)
        return self._commit(op, NO_ERROR)

    def _plan_topic(
        self,
        new_parts: dict[int, PartitionRegistration],
        assignment: Mapping[int, Sequence[int]] | None,
        num_partitions: int,
        replication_factor: int,
        placement: Mapping[int, Sequence[int]] | None,
    ) -> ApiError | None:
        if assignment:
            if replication_factor != -1:
                return ApiError(
                    Errors.INVALID_REQUEST,
                    "A manual partition assignment was specified, but replication factor was "
                    "not set to -1.",
                )
            if num_partitions != -1:
                return ApiError(
                    Errors.INVALID_REQUEST,
                    "A manual partition assignment was specified, but numPartitions was not "
                    "set to -1.",
                )
            factor: int | None = None
            for number, replicas in assignment.items():
                error = self._validate_manual_assignment(replicas, factor)
                if error is not None:
                    return error
                factor = len(replicas)
                isr = [r for r in replicas if self.is_active(r)]
                if not isr:
                    return ApiError(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        f"All brokers specified in the manual partition assignment for "
                        f"partition {number} are fenced or in controlled shutdown.",
                    )
                new_parts[int(number)] = self._new_partition(replicas, isr)
            if sorted(new_parts) != list(range(len(new_parts))):
                return ApiError(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "partitions should be a consecutive 0-based integer sequence",
                )
            return None
        if replication_factor < -1 or replication_factor == 0:
            return ApiError(
                Errors.INVALID_REPLICATION_FACTOR,
                "Replication factor must be larger than 0, or -1 to use the default value.",
            )
        if num_partitions < -1 or num_partitions == 0:
            return ApiError(
                Errors.INVALID_PARTITIONS,
                "Number of partitions was set to an invalid non-positive value.",
            )
        count = self.settings.default_num_partitions if num_partitions == -1 else num_partitions
        factor = (
            self.settings.default_replication_factor
            if replication_factor == -1
            else replication_factor
        )
        try:
            placed = self._placements(0, count, factor, placement)
        except PlacementError as failed:
            return ApiError(
                Errors.INVALID_REPLICATION_FACTOR,
                f"Unable to replicate the partition {factor} time(s): {failed}",
            )
        for number, replicas in enumerate(placed):
            isr = [r for r in replicas if self.is_active(r)]
            if not isr:
                return ApiError(
                    Errors.INVALID_REPLICATION_FACTOR,
                    f"Unable to replicate the partition {factor} time(s): All brokers are "
                    "currently fenced or in controlled shutdown.",
                )
            new_parts[number] = self._new_partition(replicas, isr)
        return None

    def create_partitions(
        self,
        name: str,
        count: int,
        *,
        assignment: Sequence[Sequence[int]] | None = None,
        placement: Mapping[int, Sequence[int]] | None = None,
    ) -> OpResult[ApiError]:
        """CreatePartitions: grow a topic to ``count`` partitions.

        Args:
            name: topic name.
            count: the new total number of partitions.
            assignment: replicas of each new partition, in order.
            placement: the placement Kafka's random placer chose, by partition number.

        Returns:
            NONE or Kafka's error and message. As in Kafka, partitions written before a
            failing one stay written.
        """
        topic = self.topic(name)
        if topic is None:
            return OpResult((), ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION))
        existing = len(topic.partitions)
        if count == existing:
            return OpResult(
                (),
                ApiError(Errors.INVALID_PARTITIONS, f"Topic already has {existing} partition(s)."),
            )
        if count < existing:
            return OpResult(
                (),
                ApiError(
                    Errors.INVALID_PARTITIONS,
                    f"The topic {name} currently has {existing} partition(s); {count} would not "
                    "be an increase.",
                ),
            )
        additional = count - existing
        if assignment is not None and len(assignment) != additional:
            return OpResult(
                (),
                ApiError(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    f"Attempted to add {additional} additional partition(s), but only "
                    f"{len(assignment)} assignment(s) were specified.",
                ),
            )
        first = next(iter(topic.partitions.values()), None)
        if first is None:
            return OpResult(
                (),
                ApiError(
                    Errors.UNKNOWN_SERVER_ERROR,
                    f"Invalid state: topic {name} appears to have no partitions.",
                ),
            )
        factor = len(first.replicas)
        if assignment is not None:
            placed = []
            for offset, replicas in enumerate(assignment):
                error = self._validate_manual_assignment(replicas, factor)
                if error is not None:
                    return OpResult((), error)
                if not any(self.is_active(r) for r in replicas):
                    return OpResult(
                        (),
                        ApiError(
                            Errors.INVALID_REPLICA_ASSIGNMENT,
                            f"All brokers specified in the manual partition assignment for "
                            f"partition {existing + offset} are fenced or in controlled "
                            "shutdown.",
                        ),
                    )
                placed.append(tuple(replicas))
        else:
            try:
                placed = self._placements(existing, additional, factor, placement)
            except PlacementError as failed:
                return OpResult((), ApiError(Errors.INVALID_REPLICATION_FACTOR, str(failed)))
        op = _Op()
        response = NO_ERROR
        for offset, replicas in enumerate(placed):
            isr = [r for r in replicas if self.is_active(r)]
            if not isr:
                response = ApiError(
                    Errors.INVALID_REPLICATION_FACTOR,
                    f"Unable to replicate the partition {factor} time(s): All brokers are "
                    "currently fenced or in controlled shutdown.",
                )
                break
            partition = self._new_partition(replicas, isr)
            op.records.append(
                partition.to_record(
                    topic.topic_id, existing + offset, self.metadata_version, self.release
                )
            )
        return self._commit(op, response)

    def delete_topic(self, name: str) -> OpResult[ApiError]:
        """DeleteTopics for one topic: a RemoveTopicRecord."""
        topic_id = self.topic_id(name)
        if topic_id is None:
            return OpResult((), ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION))
        op = _Op()
        op.add(RemoveTopicRecord(topic_id))
        return self._commit(op, NO_ERROR)

    # -- AlterPartition ------------------------------------------------------------------------

    def _validate_alter_partition(
        self,
        broker_id: int,
        partition: PartitionRegistration | None,
        request: AlterPartitionRequest,
        version: int,
    ) -> Errors:
        if partition is None:
            return Errors.UNKNOWN_TOPIC_OR_PARTITION
        leader_epoch = (
            partition.leader_epoch if request.leader_epoch is None else request.leader_epoch
        )
        partition_epoch = (
            partition.partition_epoch
            if request.partition_epoch is None
            else request.partition_epoch
        )
        if leader_epoch > partition.leader_epoch or partition_epoch > partition.partition_epoch:
            return Errors.NOT_CONTROLLER
        if leader_epoch < partition.leader_epoch:
            return Errors.FENCED_LEADER_EPOCH
        if broker_id != partition.leader:
            return Errors.INVALID_REQUEST
        if partition_epoch < partition.partition_epoch:
            return Errors.INVALID_UPDATE_VERSION
        new_isr = request.new_isr
        if new_isr and (
            len(set(new_isr)) != len(new_isr)
            or min(new_isr) < 0
            or not set(new_isr) <= set(partition.replicas)
        ):
            return Errors.INVALID_REQUEST
        if partition.leader not in new_isr:
            return Errors.INVALID_REQUEST
        recovering = request.leader_recovery_state is LeaderRecoveryState.RECOVERING
        if recovering and len(new_isr) > 1:
            return Errors.INVALID_REQUEST
        if partition.leader_recovery_state is LeaderRecoveryState.RECOVERED and recovering:
            return Errors.INVALID_REQUEST
        for member in new_isr:
            registration = self.broker(member)
            epoch = request.broker_epochs.get(member, -1)
            if (
                registration is None
                or registration.in_controlled_shutdown
                or registration.fenced
                or (epoch != -1 and registration.epoch != epoch)
            ):
                return Errors.INELIGIBLE_REPLICA if version > 1 else Errors.OPERATION_NOT_ATTEMPTED
        return Errors.NONE

    def alter_partition(
        self,
        broker_id: int,
        partitions: Mapping[TopicPartition, AlterPartitionRequest],
        *,
        broker_epoch: int | None = None,
        version: int = 3,
    ) -> OpResult[dict[TopicPartition, AlterPartitionResult]]:
        """AlterPartition from a partition leader (ISR change, leader recovery completion).

        Args:
            broker_id: the sending leader.
            partitions: the requested changes.
            broker_epoch: the sender's broker epoch (None: the registered one).
            version: the request version (decides some error codes).

        Returns:
            Per partition: NONE with the new state, or the error. A stale broker epoch fails
            every partition with STALE_BROKER_EPOCH.
        """
        response: dict[TopicPartition, AlterPartitionResult] = {}
        stale = self._check_broker_epoch(broker_id, broker_epoch)
        if stale is not None:
            return OpResult((), {tp: AlterPartitionResult(stale.error) for tp in partitions})
        op = _Op()
        for tp, request in partitions.items():
            topic = self.topic(tp.topic)
            if topic is None:
                unknown = (
                    Errors.UNKNOWN_TOPIC_ID if version > 1 else Errors.UNKNOWN_TOPIC_OR_PARTITION
                )
                response[tp] = AlterPartitionResult(unknown)
                continue
            partition = topic.partitions.get(tp.partition)
            error = self._validate_alter_partition(broker_id, partition, request, version)
            if error is not Errors.NONE or partition is None:
                response[tp] = AlterPartitionResult(error)
                continue
            builder = self._builder(topic, tp.partition, partition, self.is_active)
            if self.unclean_leader_election_enabled(topic.name):
                builder.set_election(Election.UNCLEAN)
            builder.set_target_isr(request.new_isr)
            builder.set_target_leader_recovery_state(request.leader_recovery_state)
            built = builder.build()
            if self._emit(op, topic, tp.partition, built) and built.record is not None:
                partition = partition.merge(built.record)
                leader = built.record.leader
                if leader not in (broker_id, NO_LEADER_CHANGE):
                    # Completing a reassignment moved the leadership away from the sender.
                    response[tp] = AlterPartitionResult(
                        Errors.NEW_LEADER_ELECTED if version > 1 else Errors.FENCED_LEADER_EPOCH
                    )
                    continue
            response[tp] = AlterPartitionResult(
                Errors.NONE,
                partition.leader,
                partition.leader_epoch,
                partition.isr,
                partition.partition_epoch,
                partition.leader_recovery_state,
            )
        return self._commit(op, response)

    # -- elections -----------------------------------------------------------------------------

    def _elect_leader(
        self, op: _Op, topic_name: str, partition_id: int, election: Election
    ) -> ApiError:
        topic = self.topic(topic_name)
        if topic is None:
            return ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"No such topic as {topic_name}")
        partition = topic.partitions.get(partition_id)
        if partition is None:
            return ApiError(
                Errors.UNKNOWN_TOPIC_OR_PARTITION,
                f"No such partition as {topic_name}-{partition_id}",
            )
        if (election is Election.PREFERRED and partition.has_preferred_leader) or (
            election is Election.UNCLEAN and partition.has_leader
        ):
            return ApiError(Errors.ELECTION_NOT_NEEDED)
        builder = self._builder(topic, partition_id, partition, self.is_active)
        builder.set_election(election)
        if not self._emit(op, topic, partition_id, builder.build()):
            if election is Election.PREFERRED:
                return ApiError(Errors.PREFERRED_LEADER_NOT_AVAILABLE)
            return ApiError(Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE)
        return NO_ERROR

    def elect_leaders(
        self, election: Election, partitions: Sequence[TopicPartition] | None
    ) -> OpResult[dict[TopicPartition, ApiError]]:
        """Admin ElectLeaders (PREFERRED or UNCLEAN).

        Args:
            election: PREFERRED or UNCLEAN.
            partitions: the partitions, or None for all (then ELECTION_NOT_NEEDED results are
                left out of the response, as Kafka does).

        Returns:
            The error per partition (NONE when a leader was elected).
        """
        if election is Election.ONLINE:
            invalid = ApiError(Errors.INVALID_REQUEST, "Unknown election type ONLINE")
            return OpResult((), {tp: invalid for tp in partitions or ()})
        op = _Op()
        response: dict[TopicPartition, ApiError] = {}
        if partitions is None:
            for name in self.topic_names():
                topic = self.topic(name)
                for number in sorted(topic.partitions) if topic is not None else ():
                    error = self._elect_leader(op, name, number, election)
                    if error.error is not Errors.ELECTION_NOT_NEEDED:
                        response[TopicPartition(name, number)] = error
        else:
            for tp in partitions:
                response[tp] = self._elect_leader(op, tp.topic, tp.partition, election)
        return self._commit(op, response)

    def balance_partition_leaders(self) -> OpResult[bool]:
        """``maybeBalancePartitionLeaders``: PREFERRED elections for imbalanced partitions.

        Returns:
            Whether the run stopped at the record cap (reschedule immediately).
        """
        op = _Op()
        reschedule = False
        for key in list(self._imbalanced):
            if len(op.records) >= self.settings.max_elections_per_imbalance:
                reschedule = True
                break
            topic = self.topic_by_id(key[0])
            partition = None if topic is None else topic.partitions.get(key[1])
            if topic is None or partition is None:
                continue
            builder = self._builder(topic, key[1], partition, self.is_active)
            builder.set_election(Election.PREFERRED)
            self._emit(op, topic, key[1], builder.build())
        return self._commit(op, reschedule)

    def elect_unclean_leaders(self) -> OpResult[bool]:
        """``maybeElectUncleanLeaders`` (3.9+): UNCLEAN elections for leaderless partitions.

        Only topics with unclean leader election enabled; a release before 3.9 has no such
        task and writes nothing.

        Returns:
            Whether the run stopped at the record cap (reschedule soon).
        """
        op = _Op()
        if self.release < KafkaRelease(3, 9):
            return self._commit(op, False)
        for topic_id, partition_id in self._isrs.partitions_with_no_leader():
            if len(op.records) >= self.settings.max_elections_per_imbalance:
                return self._commit(op, True)
            topic = self.topic_by_id(topic_id)
            if topic is None or not self.unclean_leader_election_enabled(topic.name):
                continue
            self._elect_leader(op, topic.name, partition_id, Election.UNCLEAN)
        return self._commit(op, False)

    # -- reassignment --------------------------------------------------------------------------

    def reassign_partition(
        self, tp: TopicPartition, target: Sequence[int] | None
    ) -> OpResult[ApiError]:
        """AlterPartitionReassignments for one partition; ``target`` None cancels.

        Returns:
            NONE or the error.
        """
        topic = self.topic(tp.topic)
        partition = None if topic is None else topic.partitions.get(tp.partition)
        if topic is None or partition is None:
            return OpResult(
                (),
                ApiError(
                    Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    f"Unable to find partition {tp.topic}:{tp.partition}.",
                ),
            )
        builder = self._builder(topic, tp.partition, partition, self.is_active)
        if target is None:
            if not partition.is_reassignment_in_progress:
                return OpResult((), ApiError(Errors.NO_REASSIGNMENT_IN_PROGRESS))
            revert = ReassignmentRevert.of(partition)
            unclean = self.unclean_leader_election_enabled(topic.name)
            if revert.unclean and not unclean:
                return OpResult(
                    (),
                    ApiError(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        f"Unable to revert partition assignment for {tp.topic}:{tp.partition} "
                        "because it would require an unclean leader election.",
                    ),
                )
            if unclean:
                builder.set_election(Election.UNCLEAN)
            builder.set_target_isr(revert.isr).set_target_replicas(revert.replicas)
            builder.set_target_removing(()).set_target_adding(())
        else:
            error = self._validate_manual_assignment(target, None)
            if error is not None:
                return OpResult((), error)
            layout = ReassignmentReplicas.between(partition.replicas, target)
            if layout.replicas != partition.replicas:
                builder.set_target_replicas(layout.replicas)
            if layout.removing:
                builder.set_target_removing(layout.removing)
            if layout.adding:
                builder.set_target_adding(layout.adding)
        op = _Op()
        self._emit(op, topic, tp.partition, builder.build())
        return self._commit(op, NO_ERROR)

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
        op = _Op()
        op.add(ConfigRecord(int(kind), resource_name, name, value))
        return self._commit(op, NO_ERROR)
