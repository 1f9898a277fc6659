"""KRaft metadata records the controller writes and replays (``metadata/*.json`` schemas).

Each record is a frozen value. ``to_json_dict`` renders the ``data`` object exactly as
``kafka-dump-log --cluster-metadata-decoder`` prints it: camelCase names, non-tagged fields always,
tagged fields only when they differ from their default. A PartitionChangeRecord's change fields
are tagged, so an unset field (``None``; ``leader`` -2; ``leaderRecoveryState`` -1) is absent.
``record_from_json`` reads that form back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from kafkactl_core.model import NO_LEADER, LeaderRecoveryState

NO_LEADER_CHANGE = -2
"""``LeaderConstants.NO_LEADER_CHANGE``: a PartitionChangeRecord leader that changes nothing."""

NO_RECOVERY_STATE_CHANGE = -1
"""``LeaderRecoveryState.NO_CHANGE`` as a PartitionChangeRecord carries it."""

Ids = tuple[int, ...]


def _ids(values: Sequence[int] | None) -> list[int] | None:
    return None if values is None else list(values)


@dataclass(frozen=True, slots=True)
class PartitionChangeRecord:
    """``PartitionChangeRecord`` (apiKey 5): a delta on a partition; None fields are unchanged.

    Attributes:
        partition_id: the partition number.
        topic_id: the topic id (base64).
        isr: new ISR, or None.
        leader: new leader, ``NO_LEADER`` (-1) for none, ``NO_LEADER_CHANGE`` (-2) unchanged.
        replicas: new assignment, or None.
        removing_replicas: new removing set, or None.
        adding_replicas: new adding set, or None.
        leader_recovery_state: new KIP-704 state, or None.
        directories: new directory per replica (v1+), or None.
        eligible_leader_replicas: new ELR (v2+), or None.
        last_known_elr: new last-known ELR (v2+), or None.
    """

    TYPE: ClassVar[str] = "PARTITION_CHANGE_RECORD"

    partition_id: int
    topic_id: str
    isr: Ids | None = None
    leader: int = NO_LEADER_CHANGE
    replicas: Ids | None = None
    removing_replicas: Ids | None = None
    adding_replicas: Ids | None = None
    leader_recovery_state: LeaderRecoveryState | None = None
    directories: tuple[str, ...] | None = None
    eligible_leader_replicas: Ids | None = None
    last_known_elr: Ids | None = None

    def is_no_op(self) -> bool:
        """``PartitionChangeBuilder.changeRecordIsNoOp``: no field changes anything."""
        return (
            self.isr is None
            and self.eligible_leader_replicas is None
            and self.last_known_elr is None
            and self.leader == NO_LEADER_CHANGE
            and self.replicas is None
            and self.removing_replicas is None
            and self.adding_replicas is None
            and self.leader_recovery_state is None
            and self.directories is None
        )

    def changes_leader(self) -> bool:
        """Whether replaying it sets the leader field (and so bumps the leader epoch)."""
        return self.leader != NO_LEADER_CHANGE

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object: ids always, each change field only when set."""
        data: dict[str, Any] = {"partitionId": self.partition_id, "topicId": self.topic_id}
        if self.isr is not None:
            data["isr"] = list(self.isr)
        if self.leader != NO_LEADER_CHANGE:
            data["leader"] = self.leader
        if self.replicas is not None:
            data["replicas"] = list(self.replicas)
        if self.removing_replicas is not None:
            data["removingReplicas"] = list(self.removing_replicas)
        if self.adding_replicas is not None:
            data["addingReplicas"] = list(self.adding_replicas)
        if self.leader_recovery_state is not None:
            data["leaderRecoveryState"] = self.leader_recovery_state.value
        if self.directories is not None:
            data["directories"] = list(self.directories)
        if self.eligible_leader_replicas is not None:
            data["eligibleLeaderReplicas"] = list(self.eligible_leader_replicas)
        if self.last_known_elr is not None:
            data["lastKnownElr"] = list(self.last_known_elr)
        return data


@dataclass(frozen=True, slots=True)
class PartitionRecord:
    """``PartitionRecord`` (apiKey 3): a partition's whole state; replaces an existing one."""

    TYPE: ClassVar[str] = "PARTITION_RECORD"

    partition_id: int
    topic_id: str
    replicas: Ids
    isr: Ids
    removing_replicas: Ids = ()
    adding_replicas: Ids = ()
    leader: int = NO_LEADER
    leader_recovery_state: LeaderRecoveryState = LeaderRecoveryState.RECOVERED
    leader_epoch: int = 0
    partition_epoch: int = 0
    directories: tuple[str, ...] = ()
    eligible_leader_replicas: Ids | None = None
    last_known_elr: Ids | None = None

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object."""
        data: dict[str, Any] = {
            "partitionId": self.partition_id,
            "topicId": self.topic_id,
            "replicas": list(self.replicas),
            "isr": list(self.isr),
            "removingReplicas": list(self.removing_replicas),
            "addingReplicas": list(self.adding_replicas),
            "leader": self.leader,
        }
        if self.leader_recovery_state is not LeaderRecoveryState.RECOVERED:
            data["leaderRecoveryState"] = self.leader_recovery_state.value
        data["leaderEpoch"] = self.leader_epoch
        data["partitionEpoch"] = self.partition_epoch
        if self.directories:
            data["directories"] = list(self.directories)
        if self.eligible_leader_replicas:
            data["eligibleLeaderReplicas"] = list(self.eligible_leader_replicas)
        if self.last_known_elr:
            data["lastKnownElr"] = list(self.last_known_elr)
        return data


@dataclass(frozen=True, slots=True)
class TopicRecord:
    """``TopicRecord`` (apiKey 2): creates a topic."""

    TYPE: ClassVar[str] = "TOPIC_RECORD"

    name: str
    topic_id: str

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object."""
        return {"name": self.name, "topicId": self.topic_id}


@dataclass(frozen=True, slots=True)
class RemoveTopicRecord:
    """``RemoveTopicRecord`` (apiKey 9): removes a topic, its partitions and its configs."""

    TYPE: ClassVar[str] = "REMOVE_TOPIC_RECORD"

    topic_id: str

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object."""
        return {"topicId": self.topic_id}


@dataclass(frozen=True, slots=True)
class ClearElrRecord:
    """``ClearElrRecord`` (apiKey 28, 4.1+): empties the ELR and last known ELR of every
    partition of ``topic_name`` (of every topic when it is empty)."""

    TYPE: ClassVar[str] = "CLEAR_ELR_RECORD"

    topic_name: str

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object."""
        return {"topicName": self.topic_name}


@dataclass(frozen=True, slots=True)
class ConfigRecord:
    """``ConfigRecord`` (apiKey 4): sets (or with ``value`` None deletes) a dynamic config.

    Attributes:
        resource_type: 2 TOPIC, 4 BROKER (``resource_name`` "" = cluster default), 8, 16.
        resource_name: topic name or broker id.
        name: config key.
        value: new value, None to delete.
    """

    TYPE: ClassVar[str] = "CONFIG_RECORD"

    resource_type: int
    resource_name: str
    name: str
    value: str | None

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object."""
        return {
            "resourceType": self.resource_type,
            "resourceName": self.resource_name,
            "name": self.name,
            "value": self.value,
        }


@dataclass(frozen=True, slots=True)
class RegisterBrokerRecord:
    """``RegisterBrokerRecord`` (apiKey 0): (re)registers a broker; new brokers start fenced."""

    TYPE: ClassVar[str] = "REGISTER_BROKER_RECORD"

    broker_id: int
    broker_epoch: int
    incarnation_id: str = ""
    rack: str | None = None
    fenced: bool = True
    in_controlled_shutdown: bool = False
    log_dirs: tuple[str, ...] = ()
    is_migrating_zk_broker: bool = False

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object (endpoints and features are not modelled)."""
        data: dict[str, Any] = {
            "brokerId": self.broker_id,
            "isMigratingZkBroker": self.is_migrating_zk_broker,
            "incarnationId": self.incarnation_id,
            "brokerEpoch": self.broker_epoch,
            "endPoints": [],
            "features": [],
            "rack": self.rack,
            "fenced": self.fenced,
            "inControlledShutdown": self.in_controlled_shutdown,
        }
        if self.log_dirs:
            data["logDirs"] = list(self.log_dirs)
        return data


@dataclass(frozen=True, slots=True)
class UnregisterBrokerRecord:
    """``UnregisterBrokerRecord`` (apiKey 1): removes a registration (epoch must match)."""

    TYPE: ClassVar[str] = "UNREGISTER_BROKER_RECORD"

    broker_id: int
    broker_epoch: int

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object."""
        return {"brokerId": self.broker_id, "brokerEpoch": self.broker_epoch}


@dataclass(frozen=True, slots=True)
class FenceBrokerRecord:
    """``FenceBrokerRecord`` (apiKey 7): fences a broker (MV before ``3.3-IV2``)."""

    TYPE: ClassVar[str] = "FENCE_BROKER_RECORD"

    broker_id: int
    epoch: int

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object."""
        return {"id": self.broker_id, "epoch": self.epoch}


@dataclass(frozen=True, slots=True)
class UnfenceBrokerRecord:
    """``UnfenceBrokerRecord`` (apiKey 8): unfences a broker (MV before ``3.3-IV2``)."""

    TYPE: ClassVar[str] = "UNFENCE_BROKER_RECORD"

    broker_id: int
    epoch: int

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object."""
        return {"id": self.broker_id, "epoch": self.epoch}


FENCE = 1
"""``BrokerRegistrationFencingChange.FENCE``."""
UNFENCE = -1
"""``BrokerRegistrationFencingChange.UNFENCE``."""
IN_CONTROLLED_SHUTDOWN = 1
"""``BrokerRegistrationInControlledShutdownChange.IN_CONTROLLED_SHUTDOWN``."""


@dataclass(frozen=True, slots=True)
class BrokerRegistrationChangeRecord:
    """``BrokerRegistrationChangeRecord`` (apiKey 17): a change to a registration.

    Attributes:
        broker_id: the broker.
        broker_epoch: must equal the registration's epoch.
        fenced: 1 fence, -1 unfence, 0 no change.
        in_controlled_shutdown: 1 enters controlled shutdown, 0 no change (v1+).
        log_dirs: the remaining online directories (v2+); empty = no change.
    """

    TYPE: ClassVar[str] = "BROKER_REGISTRATION_CHANGE_RECORD"

    broker_id: int
    broker_epoch: int
    fenced: int = 0
    in_controlled_shutdown: int = 0
    log_dirs: tuple[str, ...] = ()

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object: tagged fields only when not default."""
        data: dict[str, Any] = {"brokerId": self.broker_id, "brokerEpoch": self.broker_epoch}
        if self.fenced:
            data["fenced"] = self.fenced
        if self.in_controlled_shutdown:
            data["inControlledShutdown"] = self.in_controlled_shutdown
        if self.log_dirs:
            data["logDirs"] = list(self.log_dirs)
        return data


@dataclass(frozen=True, slots=True)
class FeatureLevelRecord:
    """``FeatureLevelRecord`` (apiKey 12): finalises a feature level (``metadata.version``)."""

    TYPE: ClassVar[str] = "FEATURE_LEVEL_RECORD"

    name: str
    feature_level: int

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log ``data`` object."""
        return {"name": self.name, "featureLevel": self.feature_level}


MetadataRecord = (
    PartitionChangeRecord
    | PartitionRecord
    | TopicRecord
    | RemoveTopicRecord
    | ClearElrRecord
    | ConfigRecord
    | RegisterBrokerRecord
    | UnregisterBrokerRecord
    | FenceBrokerRecord
    | UnfenceBrokerRecord
    | BrokerRegistrationChangeRecord
    | FeatureLevelRecord
)
"""Every metadata record this package models."""


@dataclass(frozen=True, slots=True)
class RecordAndVersion:
    """A record with the version it is written at (Kafka's ``ApiMessageAndVersion``)."""

    record: MetadataRecord
    version: int

    def to_json_dict(self) -> dict[str, Any]:
        """The dump-log payload: ``{"type", "version", "data"}``."""
        return {
            "type": self.record.TYPE,
            "version": self.version,
            "data": self.record.to_json_dict(),
        }


def _opt_ids(data: Mapping[str, Any], key: str) -> Ids | None:
    value = data.get(key)
    return None if value is None else tuple(int(v) for v in value)


def _req_ids(data: Mapping[str, Any], key: str) -> Ids:
    return tuple(int(v) for v in data.get(key) or ())


def _recovery(value: Any, default: LeaderRecoveryState | None) -> LeaderRecoveryState | None:
    if value is None or int(value) == NO_RECOVERY_STATE_CHANGE:
        return default
    return LeaderRecoveryState(int(value))


def record_from_json(type_name: str, data: Mapping[str, Any]) -> MetadataRecord:
    """Read a record back from the dump-log ``type`` and ``data`` object.

    Args:
        type_name: ``PARTITION_CHANGE_RECORD`` and the other upper-snake names.
        data: the ``data`` object.

    Returns:
        The record.

    Raises:
        ValueError: for a type this package does not model, a missing or malformed field.
    """
    reader = _READERS.get(type_name)
    if reader is None:
        raise ValueError(f"unsupported metadata record type {type_name!r}")
    try:
        return reader(data)
    except KeyError as missing:
        raise ValueError(f"{type_name} lacks field {missing}") from None
    except (TypeError, ValueError) as bad:
        raise ValueError(f"malformed {type_name}: {bad}") from bad


def _read_partition_change(data: Mapping[str, Any]) -> MetadataRecord:
    dirs = data.get("directories")
    return PartitionChangeRecord(
        partition_id=int(data["partitionId"]),
        topic_id=str(data["topicId"]),
        isr=_opt_ids(data, "isr"),
        leader=int(data.get("leader", NO_LEADER_CHANGE)),
        replicas=_opt_ids(data, "replicas"),
        removing_replicas=_opt_ids(data, "removingReplicas"),
        adding_replicas=_opt_ids(data, "addingReplicas"),
        leader_recovery_state=_recovery(data.get("leaderRecoveryState"), None),
        directories=None if dirs is None else tuple(str(d) for d in dirs),
        eligible_leader_replicas=_opt_ids(data, "eligibleLeaderReplicas"),
        last_known_elr=_opt_ids(data, "lastKnownElr"),
    )


def _read_partition(data: Mapping[str, Any]) -> MetadataRecord:
    return PartitionRecord(
        partition_id=int(data["partitionId"]),
        topic_id=str(data["topicId"]),
        replicas=_req_ids(data, "replicas"),
        isr=_req_ids(data, "isr"),
        removing_replicas=_req_ids(data, "removingReplicas"),
        adding_replicas=_req_ids(data, "addingReplicas"),
        leader=int(data.get("leader", NO_LEADER)),
        leader_recovery_state=_recovery(
            data.get("leaderRecoveryState"), LeaderRecoveryState.RECOVERED
        )
        or LeaderRecoveryState.RECOVERED,
        leader_epoch=int(data.get("leaderEpoch", 0)),
        partition_epoch=int(data.get("partitionEpoch", 0)),
        directories=tuple(str(d) for d in data.get("directories") or ()),
        eligible_leader_replicas=_opt_ids(data, "eligibleLeaderReplicas"),
        last_known_elr=_opt_ids(data, "lastKnownElr"),
    )


def _read_register(data: Mapping[str, Any]) -> MetadataRecord:
    return RegisterBrokerRecord(
        broker_id=int(data["brokerId"]),
        broker_epoch=int(data["brokerEpoch"]),
        incarnation_id=str(data.get("incarnationId", "")),
        rack=data.get("rack"),
        fenced=bool(data.get("fenced", True)),
        in_controlled_shutdown=bool(data.get("inControlledShutdown", False)),
        log_dirs=tuple(str(d) for d in data.get("logDirs") or ()),
        is_migrating_zk_broker=bool(data.get("isMigratingZkBroker", False)),
    )


def _read_registration_change(data: Mapping[str, Any]) -> MetadataRecord:
    return BrokerRegistrationChangeRecord(
        broker_id=int(data["brokerId"]),
        broker_epoch=int(data["brokerEpoch"]),
        fenced=int(data.get("fenced", 0)),
        in_controlled_shutdown=int(data.get("inControlledShutdown", 0)),
        log_dirs=tuple(str(d) for d in data.get("logDirs") or ()),
    )


def _read_config(data: Mapping[str, Any]) -> MetadataRecord:
    value = data.get("value")
    return ConfigRecord(
        resource_type=int(data["resourceType"]),
        resource_name=str(data["resourceName"]),
        name=str(data["name"]),
        value=None if value is None else str(value),
    )


_READERS: dict[str, Callable[[Mapping[str, Any]], MetadataRecord]] = {
    PartitionChangeRecord.TYPE: _read_partition_change,
    PartitionRecord.TYPE: _read_partition,
    TopicRecord.TYPE: lambda d: TopicRecord(str(d["name"]), str(d["topicId"])),
    RemoveTopicRecord.TYPE: lambda d: RemoveTopicRecord(str(d["topicId"])),
    ClearElrRecord.TYPE: lambda d: ClearElrRecord(str(d["topicName"])),
    ConfigRecord.TYPE: _read_config,
    RegisterBrokerRecord.TYPE: _read_register,
    UnregisterBrokerRecord.TYPE: lambda d: UnregisterBrokerRecord(
        int(d["brokerId"]), int(d["brokerEpoch"])
    ),
    FenceBrokerRecord.TYPE: lambda d: FenceBrokerRecord(int(d["id"]), int(d["epoch"])),
    UnfenceBrokerRecord.TYPE: lambda d: UnfenceBrokerRecord(int(d["id"]), int(d["epoch"])),
    BrokerRegistrationChangeRecord.TYPE: _read_registration_change,
    FeatureLevelRecord.TYPE: lambda d: FeatureLevelRecord(str(d["name"]), int(d["featureLevel"])),
}
