"""The KRaft controller's metadata image, built only by replaying records.

``ClusterState.replay`` applies every modelled record type the way the controller's managers
do (``ClusterControlManager``, ``ReplicationControlManager``, ``ConfigurationControlManager``,
``FeatureControlManager``): registrations, fencing, topics, partition registrations (merge rule),
configs, ``metadata.version``. It keeps the indexes the controller elects from: which partitions
each broker is in the ISR / ELR of, leaderless partitions, and partitions not led by their
preferred replica. A record that cannot apply (unknown topic, epoch mismatch...) changes nothing
and ``replay`` returns why; nothing raises.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

from kafkactl_core.kraft import directory_ids, records
from kafkactl_core.kraft.brokers import BrokerRegistration
from kafkactl_core.kraft.configs import ConfigStore
from kafkactl_core.kraft.isr_index import BrokersToElrs, BrokersToIsrs, TopicIdPartition
from kafkactl_core.kraft.metadata_version import REFERENCE_RELEASE, MetadataVersion
from kafkactl_core.kraft.registration import PartitionRegistration
from kafkactl_core.model import TopicPartition
from kafkactl_core.versions import KafkaRelease

METADATA_VERSION_FEATURE = "metadata.version"


@dataclass(slots=True)
class TopicInfo:
    """A topic: name, id and its partitions by number (creation order)."""

    name: str
    topic_id: str
    partitions: dict[int, PartitionRegistration] = field(default_factory=dict)


class ClusterState:
    """Brokers, topics, partitions and configs as replayed from metadata records."""

    def __init__(
        self,
        metadata_version: MetadataVersion,
        release: KafkaRelease = REFERENCE_RELEASE,
        *,
        configs: ConfigStore | None = None,
    ) -> None:
        """An empty image.

        Args:
            metadata_version: the MV in force (a ``FeatureLevelRecord`` may change it).
            release: the controller's Kafka release.
            configs: the config store (static config, controller node id), new if None.
        """
        self.metadata_version = metadata_version
        self.release = release
        self.configs = configs if configs is not None else ConfigStore()
        self._brokers: dict[int, BrokerRegistration] = {}
        self._shutting_down: set[int] = set()
        self._topics: dict[str, TopicInfo] = {}
        self._topics_by_name: dict[str, str] = {}
        self._isrs = BrokersToIsrs()
        self._elrs = BrokersToElrs()
        self._imbalanced: dict[TopicIdPartition, None] = {}

    # -- queries -------------------------------------------------------------------------------

    @property
    def brokers(self) -> Mapping[int, BrokerRegistration]:
        """Registrations by broker id."""
        return dict(self._brokers)

    def broker(self, broker_id: int) -> BrokerRegistration | None:
        """One registration, None when the broker is not registered."""
        return self._brokers.get(broker_id)

    def is_active(self, broker_id: int) -> bool:
        """Registered, unfenced and not in controlled shutdown."""
        registration = self._brokers.get(broker_id)
        return registration is not None and registration.is_active

    def in_heartbeat_controlled_shutdown(self, broker_id: int) -> bool:
        """Whether a heartbeat granted this broker a controlled shutdown (still running)."""
        return broker_id in self._shutting_down

    def has_online_dir(self, broker_id: int, directory: str) -> bool:
        """``ClusterControlManager.hasOnlineDir``: registered and the directory online."""
        registration = self._brokers.get(broker_id)
        return registration is not None and registration.has_online_dir(directory)

    def default_dir(self, broker_id: int) -> str:
        """The directory a new replica on ``broker_id`` gets (``KRaftClusterDescriber``)."""
        if not self.metadata_version.is_directory_assignment_supported():
            return directory_ids.MIGRATING
        registration = self._brokers.get(broker_id)
        if registration is None:
            return directory_ids.UNASSIGNED
        if not registration.directories:
            return directory_ids.MIGRATING
        if len(registration.directories) == 1:
            return registration.directories[0]
        return directory_ids.UNASSIGNED

    def topic_names(self) -> list[str]:
        """Topic names in creation order."""
        return list(self._topics_by_name)

    def topic_id(self, name: str) -> str | None:
        """A topic's id, None when it does not exist."""
        return self._topics_by_name.get(name)

    def topic(self, name: str) -> TopicInfo | None:
        """A topic by name."""
        topic_id = self._topics_by_name.get(name)
        return None if topic_id is None else self._topics.get(topic_id)

    def topic_by_id(self, topic_id: str) -> TopicInfo | None:
        """A topic by id."""
        return self._topics.get(topic_id)

    def partition(self, tp: TopicPartition) -> PartitionRegistration | None:
        """A partition's registration, None when it does not exist."""
        topic = self.topic(tp.topic)
        return None if topic is None else topic.partitions.get(tp.partition)

    def partitions(self) -> dict[TopicPartition, PartitionRegistration]:
        """Every partition, topics in creation order."""
        return {
            TopicPartition(topic.name, number): registration
            for topic in self._topics.values()
            for number, registration in topic.partitions.items()
        }

    def iter_partitions(self) -> Iterator[tuple[TopicInfo, int, PartitionRegistration]]:
        """Every partition with its topic, topics in creation order."""
        for topic in list(self._topics.values()):
            for number, registration in list(topic.partitions.items()):
                yield topic, number, registration

    def name_of(self, key: TopicIdPartition) -> TopicPartition | None:
        """The name of a partition known by topic id."""
        topic = self._topics.get(key[0])
        return None if topic is None else TopicPartition(topic.name, key[1])

    def imbalanced_partitions(self) -> list[TopicPartition]:
        """Partitions whose leader is not their preferred replica."""
        names = (self.name_of(key) for key in self._imbalanced)
        return [name for name in names if name is not None]

    def partitions_with_no_leader(self) -> list[TopicPartition]:
        """Leaderless partitions, in the controller's index order."""
        names = (self.name_of(key) for key in self._isrs.partitions_with_no_leader())
        return [name for name in names if name is not None]

    def partitions_led_by(self, broker_id: int) -> list[TopicPartition]:
        """Partitions ``broker_id`` leads."""
        names = (self.name_of(key) for key in self._isrs.partitions_led_by(broker_id))
        return [name for name in names if name is not None]

    def isr_elr_index_empty(self) -> bool:
        """Whether no broker (nor -1) has an entry in the ISR or ELR index."""
        return self._isrs.is_empty() and self._elrs.is_empty()

    # -- replay --------------------------------------------------------------------------------

    def replay(self, record: records.MetadataRecord | records.RecordAndVersion) -> str | None:
        """Apply one record.

        Args:
            record: the record (a version, if given, is not needed to apply it).

        Returns:
            None when applied; otherwise why it could not apply (the image is unchanged).
        """
        body = record.record if isinstance(record, records.RecordAndVersion) else record
        if isinstance(body, records.PartitionChangeRecord):
            return self._replay_partition_change(body)
        if isinstance(body, records.PartitionRecord):
            return self._replay_partition(body)
        if isinstance(body, records.TopicRecord):
            return self._replay_topic(body)
        if isinstance(body, records.RemoveTopicRecord):
            return self._replay_remove_topic(body)
        if isinstance(body, records.ClearElrRecord):
            changes = self.clear_elr_changes(body)
            if isinstance(changes, str):
                return changes
            for change in changes:
                self._replay_partition_change(change)
            return None
        if isinstance(body, records.ConfigRecord):
            self.configs.set(body.resource_type, body.resource_name, body.name, body.value)
            return None
        if isinstance(body, records.RegisterBrokerRecord):
            return self._replay_register(body)
        if isinstance(body, records.UnregisterBrokerRecord):
            return self._replay_unregister(body)
        if isinstance(body, records.FenceBrokerRecord | records.UnfenceBrokerRecord):
            fenced = isinstance(body, records.FenceBrokerRecord)
            return self._change_registration(body.broker_id, body.epoch, fenced, None, ())
        if isinstance(body, records.BrokerRegistrationChangeRecord):
            return self._replay_registration_change(body)
        return self._replay_feature_level(body)

    def clear_elr_changes(
        self, record: records.ClearElrRecord
    ) -> list[records.PartitionChangeRecord] | str:
        """The partition changes a ClearElrRecord amounts to (``removeTopicElrs``).

        Args:
            record: the record.

        Returns:
            One change emptying the ELR and last known ELR of each partition of the topic (of
            every topic when the name is empty) that has either, or why the record cannot apply
            (no topic of that name).
        """
        if record.topic_name:
            topic = self.topic(record.topic_name)
            if topic is None:
                return f"Unable to find a topic named {record.topic_name} to clear its ELRs."
            topics = [topic]
        else:
            topics = list(self._topics.values())
        return [
            records.PartitionChangeRecord(
                number, topic.topic_id, eligible_leader_replicas=(), last_known_elr=()
            )
            for topic in topics
            for number, partition in topic.partitions.items()
            if partition.elr or partition.last_known_elr
        ]

    def _replay_feature_level(self, record: records.FeatureLevelRecord) -> str | None:
        if record.name != METADATA_VERSION_FEATURE:
            return None
        try:
            self.metadata_version = MetadataVersion.from_feature_level(record.feature_level)
        except ValueError as unknown:
            return str(unknown)
        return None

    def _replay_register(self, record: records.RegisterBrokerRecord) -> str | None:
        self._brokers[record.broker_id] = BrokerRegistration(
            broker_id=record.broker_id,
            epoch=record.broker_epoch,
            incarnation_id=record.incarnation_id,
            rack=record.rack,
            fenced=record.fenced,
            in_controlled_shutdown=record.in_controlled_shutdown,
            directories=tuple(sorted(record.log_dirs)),
        )
        if record.fenced:
            self._shutting_down.discard(record.broker_id)
        return None

    def _replay_unregister(self, record: records.UnregisterBrokerRecord) -> str | None:
        registration = self._brokers.get(record.broker_id)
        if registration is None:
            return f"Tried to unregister broker {record.broker_id}, but it is not registered."
        if registration.epoch != record.broker_epoch:
            return (
                f"Tried to unregister broker {record.broker_id} with epoch "
                f"{record.broker_epoch}, but its current epoch is {registration.epoch}."
            )
        del self._brokers[record.broker_id]
        self._shutting_down.discard(record.broker_id)
        return None

    def _replay_registration_change(
        self, record: records.BrokerRegistrationChangeRecord
    ) -> str | None:
        if record.fenced not in (records.FENCE, records.UNFENCE, 0):
            return f"Invalid fencing change {record.fenced} for broker {record.broker_id}"
        if record.in_controlled_shutdown not in (records.IN_CONTROLLED_SHUTDOWN, 0):
            return (
                f"Invalid inControlledShutdown change {record.in_controlled_shutdown} "
                f"for broker {record.broker_id}"
            )
        fenced = None if record.fenced == 0 else record.fenced == records.FENCE
        return self._change_registration(
            record.broker_id,
            record.broker_epoch,
            fenced,
            True if record.in_controlled_shutdown else None,
            record.log_dirs,
        )

    def _change_registration(
        self,
        broker_id: int,
        epoch: int,
        fenced: bool | None,
        in_controlled_shutdown: bool | None,
        log_dirs: tuple[str, ...],
    ) -> str | None:
        registration = self._brokers.get(broker_id)
        if registration is None:
            return f"Tried to change the registration of broker {broker_id}, which is unknown."
        if registration.epoch != epoch:
            return (
                f"Tried to change the registration of broker {broker_id} with epoch {epoch}, "
                f"but its current epoch is {registration.epoch}."
            )
        updated = registration
        if fenced is not None:
            updated = replace(updated, fenced=fenced)
        if in_controlled_shutdown is not None:
            updated = replace(updated, in_controlled_shutdown=in_controlled_shutdown)
        if log_dirs:
            updated = replace(updated, directories=tuple(sorted(log_dirs)))
        self._brokers[broker_id] = updated
        if updated.fenced:
            # A fenced broker leaves controlled shutdown (BrokerHeartbeatManager.touch).
            self._shutting_down.discard(broker_id)
        return None

    def _replay_topic(self, record: records.TopicRecord) -> str | None:
        existing = self._topics_by_name.get(record.name)
        if existing is not None:
            return f"Found duplicate TopicRecord for {record.name} with topic ID {existing}"
        self._topics_by_name[record.name] = record.topic_id
        self._topics[record.topic_id] = TopicInfo(record.name, record.topic_id)
        return None

    def _replay_partition(self, record: records.PartitionRecord) -> str | None:
        topic = self._topics.get(record.topic_id)
        if topic is None:
            return (
                f"Tried to create partition {record.topic_id}:{record.partition_id}, "
                "but no topic with that ID was found."
            )
        new = PartitionRegistration.from_record(record)
        previous = topic.partitions.get(record.partition_id)
        topic.partitions[record.partition_id] = new
        self._update_indexes(record.topic_id, record.partition_id, previous, new)
        return None

    def _replay_partition_change(self, record: records.PartitionChangeRecord) -> str | None:
        topic = self._topics.get(record.topic_id)
        previous = None if topic is None else topic.partitions.get(record.partition_id)
        if topic is None or previous is None:
            return (
                f"Tried to change partition {record.topic_id}:{record.partition_id}, "
                "but no such partition was found."
            )
        try:
            new = previous.merge(record)
        except ValueError as bad:
            return str(bad)
        topic.partitions[record.partition_id] = new
        self._update_indexes(record.topic_id, record.partition_id, previous, new)
        return None

    def _update_indexes(
        self,
        topic_id: str,
        partition_id: int,
        previous: PartitionRegistration | None,
        new: PartitionRegistration,
    ) -> None:
        self._isrs.update(
            topic_id,
            partition_id,
            None if previous is None else previous.isr,
            new.isr,
            -1 if previous is None else previous.leader,
            new.leader,
        )
        self._elrs.update(
            topic_id, partition_id, None if previous is None else previous.elr, new.elr
        )
        key = (topic_id, partition_id)
        if new.has_preferred_leader:
            self._imbalanced.pop(key, None)
        else:
            self._imbalanced[key] = None

    def _replay_remove_topic(self, record: records.RemoveTopicRecord) -> str | None:
        topic = self._topics.pop(record.topic_id, None)
        if topic is None:
            return f"Can't find topic with ID {record.topic_id} to remove."
        del self._topics_by_name[topic.name]
        self.configs.delete_topic_configs(topic.name)
        self._isrs.remove_topic(record.topic_id)
        self._elrs.remove_topic(record.topic_id)
        for number in topic.partitions:
            self._imbalanced.pop((record.topic_id, number), None)
        return None
