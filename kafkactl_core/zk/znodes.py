"""Kafka's znodes decoded into typed records (paths and payloads of reference/ZNODES.md).

``classify_path`` says which Kafka znode a path is (broker registration, topic assignment,
partition state, controller, configs, admin triggers, notifications, cluster id, feature,
producer-id block …), honouring a chroot. ``decode_znode`` turns a path and its data (plus the
stat facts Kafka uses: data version, creation zxid, ephemeral owner) into a slotted frozen
record. Payloads are parsed as JSON (Kafka's key order is hash order, never relied on); every
registration/assignment/state version from 0.11 to 3.9 is accepted. A payload that does not
parse gives a ``MalformedZNode`` with the reason, never an exception.
"""

from __future__ import annotations

import enum
import functools
import json
import re
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, TypeAlias

from kafkactl_core.model import LeaderAndIsr, LeaderRecoveryState, TopicPartition


class ZNodeKind(enum.Enum):
    """Kafka znodes with a payload (parents such as ``/brokers/ids`` are not listed)."""

    broker = "broker"
    topic = "topic"
    partition_state = "partition_state"
    controller = "controller"
    controller_epoch = "controller_epoch"
    entity_config = "entity_config"
    config_change = "config_change"
    reassign_partitions = "reassign_partitions"
    preferred_replica_election = "preferred_replica_election"
    delete_topic = "delete_topic"
    isr_change_notification = "isr_change_notification"
    log_dir_event = "log_dir_event"
    cluster_id = "cluster_id"
    feature = "feature"
    producer_id_block = "producer_id_block"
    migration = "migration"


@dataclass(frozen=True, slots=True)
class ZNodePath:
    """A Kafka znode path, classified.

    Attributes:
        kind: which znode.
        topic: the topic for topic, partition-state, topic-config and delete-topic znodes.
        partition: the partition for a partition-state znode.
        broker_id: the broker for a registration or a broker config (None for ``<default>``).
        entity_type: ``topics``, ``brokers``, ``users``, ``clients``, ``ips`` for configs.
        entity_name: the config entity (``<default>`` kept as is).
        sequence: the number of a sequential notification znode.
    """

    kind: ZNodeKind
    topic: str | None = None
    partition: int | None = None
    broker_id: int | None = None
    entity_type: str | None = None
    entity_name: str | None = None
    sequence: int | None = None


_INT = re.compile(r"-?\d+")
_SEQ = re.compile(r"(\d+)$")
_CONFIG_ENTITIES = frozenset({"topics", "brokers", "users", "clients", "ips"})
_FIXED: dict[str, ZNodeKind] = {
    "/controller": ZNodeKind.controller,
    "/controller_epoch": ZNodeKind.controller_epoch,
    "/admin/reassign_partitions": ZNodeKind.reassign_partitions,
    "/admin/preferred_replica_election": ZNodeKind.preferred_replica_election,
    "/cluster/id": ZNodeKind.cluster_id,
    "/feature": ZNodeKind.feature,
    "/latest_producer_id_block": ZNodeKind.producer_id_block,
    "/migration": ZNodeKind.migration,
}


def strip_chroot(path: str, chroot: str) -> str | None:
    """The path below ``chroot``, None when it lies outside.

    Args:
        path: an absolute znode path.
        chroot: Kafka's chroot (``""`` or ``/kafka``).

    Returns:
        The path relative to the chroot, starting with ``/``.
    """
    root = chroot.rstrip("/")
    if not root:
        return path
    if path == root:
        return "/"
    if path.startswith(root + "/"):
        return path[len(root) :]
    return None


@functools.lru_cache(maxsize=1 << 14)
def classify_path(path: str, chroot: str = "") -> ZNodePath | None:
    """Which Kafka znode ``path`` is (cached: logs repeat the same paths).

    Args:
        path: an absolute znode path.
        chroot: Kafka's chroot in ZooKeeper (``zookeeper.connect=host:2181/kafka`` → ``/kafka``).

    Returns:
        The classification, None for paths that are not Kafka znodes with a payload.
    """
    rel = strip_chroot(path, chroot)
    if rel is None:
        return None
    kind = _FIXED.get(rel)
    if kind is not None:
        return ZNodePath(kind)
    parts = rel.split("/")[1:]
    n = len(parts)
    if n < 2 or not all(parts):
        return None
    head = parts[0]
    if head == "brokers":
        if parts[1] == "ids" and n == 3 and _INT.fullmatch(parts[2]):
            return ZNodePath(ZNodeKind.broker, broker_id=int(parts[2]))
        if parts[1] == "topics":
            if n == 3:
                return ZNodePath(ZNodeKind.topic, topic=parts[2])
            if (
                n == 6
                and parts[3] == "partitions"
                and parts[5] == "state"
                and _INT.fullmatch(parts[4])
            ):
                return ZNodePath(ZNodeKind.partition_state, topic=parts[2], partition=int(parts[4]))
        return None
    if head == "config":
        if parts[1] == "changes" and n == 3:
            return _sequential(ZNodeKind.config_change, parts[2], "config_change_")
        if parts[1] in _CONFIG_ENTITIES and n >= 3 and (n == 3 or n == 5):
            if n == 5 and not (parts[1] == "users" and parts[3] == "clients"):
                return None
            name = "/".join(parts[2:])
            entity = parts[1]
            broker = int(name) if entity == "brokers" and _INT.fullmatch(name) else None
            topic = name if entity == "topics" else None
            return ZNodePath(
                ZNodeKind.entity_config,
                topic=topic,
                broker_id=broker,
                entity_type=entity,
                entity_name=name,
            )
        return None
    if head == "admin" and n == 3 and parts[1] == "delete_topics":
        return ZNodePath(ZNodeKind.delete_topic, topic=parts[2])
    if head == "isr_change_notification" and n == 2:
        return _sequential(ZNodeKind.isr_change_notification, parts[1], "isr_change_")
    if head == "log_dir_event_notification" and n == 2:
        return _sequential(ZNodeKind.log_dir_event, parts[1], "log_dir_event_")
    return None


def _sequential(kind: ZNodeKind, name: str, prefix: str) -> ZNodePath | None:
    if not name.startswith(prefix):
        return None
    match = _SEQ.search(name)
    return ZNodePath(kind, sequence=int(match.group(1)) if match else None)


@dataclass(frozen=True, slots=True)
class BrokerEndpoint:
    """A listener a broker registered: ``<listener>://<host>:<port>``."""

    listener: str
    host: str
    port: int
    security_protocol: str


@dataclass(frozen=True, slots=True)
class FeatureRange:
    """A feature's supported (broker) or finalized (``/feature``) version range."""

    name: str
    min_version: int | None
    max_version: int | None


@dataclass(frozen=True, slots=True)
class BrokerRegistration:
    """``/brokers/ids/<id>`` (ephemeral).

    Attributes:
        broker_id: from the path.
        version: registration JSON version (1 … 5).
        host: first PLAINTEXT endpoint's host (None when there is none).
        port: its port (-1 when there is none).
        endpoints: every listener.
        jmx_port: JMX port (-1 when disabled).
        timestamp: registration time in ms (Kafka stores it as a string).
        rack: ``broker.rack`` (v3+ when configured).
        features: supported features (v5).
        epoch: the znode's creation zxid, Kafka's broker epoch since 2.2.
        session_id: the owning ZooKeeper session (the broker's).
    """

    broker_id: int
    version: int | None
    host: str | None
    port: int | None
    endpoints: tuple[BrokerEndpoint, ...]
    jmx_port: int | None
    timestamp: int | None
    rack: str | None
    features: tuple[FeatureRange, ...]
    epoch: int | None
    session_id: int | None


@dataclass(frozen=True, slots=True)
class TopicAssignment:
    """``/brokers/topics/<topic>``: replica assignment (v1 to v3).

    Attributes:
        topic: from the path.
        version: payload version.
        partitions: (partition, replicas) sorted by partition; the first replica is preferred.
        adding_replicas: partitions being reassigned: replicas being added (v2+).
        removing_replicas: replicas being removed (v2+).
        topic_id: base64url topic id (v3, 2.8+), None when absent.
    """

    topic: str
    version: int | None
    partitions: tuple[tuple[int, tuple[int, ...]], ...]
    adding_replicas: tuple[tuple[int, tuple[int, ...]], ...]
    removing_replicas: tuple[tuple[int, tuple[int, ...]], ...]
    topic_id: str | None

    def replicas(self, partition: int) -> tuple[int, ...] | None:
        """The assigned replicas of one partition, None when it is not assigned."""
        return dict(self.partitions).get(partition)


@dataclass(frozen=True, slots=True)
class PartitionStateRecord:
    """``/brokers/topics/<t>/partitions/<p>/state``: leader and ISR.

    Attributes:
        topic: from the path.
        partition: from the path.
        version: payload version (1).
        leader: leader broker id, -1 for none, -2 during deletion.
        leader_epoch: leader epoch.
        isr: in-sync replicas in stored order.
        controller_epoch: epoch of the controller (or leader) that wrote it.
        leader_recovery_state: KIP-704 state (3.2+ writes it only when RECOVERING).
        zk_version: the znode's data version: Kafka's zkVersion / partition epoch.
    """

    topic: str
    partition: int
    version: int | None
    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    controller_epoch: int
    leader_recovery_state: LeaderRecoveryState
    zk_version: int | None

    @property
    def topic_partition(self) -> TopicPartition:
        """The partition."""
        return TopicPartition(self.topic, self.partition)

    @property
    def leader_and_isr(self) -> LeaderAndIsr:
        """As the core's ``LeaderAndIsr`` (partition epoch = zk version, 0 when unknown)."""
        return LeaderAndIsr(
            self.leader,
            self.leader_epoch,
            self.isr,
            self.zk_version if self.zk_version is not None else 0,
            self.leader_recovery_state,
        )


@dataclass(frozen=True, slots=True)
class ControllerRecord:
    """``/controller`` (ephemeral): the active controller.

    Attributes:
        broker_id: the controller broker.
        version: payload version (1, 2 from 3.4); None for the pre-JSON bare integer.
        timestamp: when it became controller, ms.
        kraft_controller_epoch: 3.4+ (-1 for a ZooKeeper controller).
        session_id: the controller's ZooKeeper session.
    """

    broker_id: int
    version: int | None
    timestamp: int | None
    kraft_controller_epoch: int | None
    session_id: int | None


@dataclass(frozen=True, slots=True)
class ControllerEpochRecord:
    """``/controller_epoch``: the epoch, and the znode version (the epoch zk version)."""

    epoch: int
    zk_version: int | None


@dataclass(frozen=True, slots=True)
class EntityConfigRecord:
    """``/config/<entity_type>/<name>``: dynamic config overrides (values are strings)."""

    entity_type: str
    entity_name: str
    version: int | None
    config: tuple[tuple[str, str], ...]

    def get(self, key: str) -> str | None:
        """One config value, None when not overridden."""
        return dict(self.config).get(key)


@dataclass(frozen=True, slots=True)
class ConfigChangeNotification:
    """``/config/changes/config_change_<n>``: which entity's config changed."""

    sequence: int | None
    version: int | None
    entity_path: str | None


@dataclass(frozen=True, slots=True)
class ReassignPartitionsRecord:
    """``/admin/reassign_partitions``: target replicas per partition (legacy trigger)."""

    version: int | None
    partitions: tuple[tuple[TopicPartition, tuple[int, ...]], ...]


@dataclass(frozen=True, slots=True)
class PreferredReplicaElectionRecord:
    """``/admin/preferred_replica_election``: partitions to move to their preferred leader."""

    version: int | None
    partitions: tuple[TopicPartition, ...]


@dataclass(frozen=True, slots=True)
class DeleteTopicRecord:
    """``/admin/delete_topics/<topic>``: a deletion request (no payload)."""

    topic: str


@dataclass(frozen=True, slots=True)
class IsrChangeNotification:
    """``/isr_change_notification/isr_change_<n>``: partitions whose ISR a leader changed."""

    sequence: int | None
    version: int | None
    partitions: tuple[TopicPartition, ...]


@dataclass(frozen=True, slots=True)
class LogDirEventNotification:
    """``/log_dir_event_notification/log_dir_event_<n>``: a broker's log dir failed."""

    sequence: int | None
    version: int | None
    broker_id: int
    event: int


@dataclass(frozen=True, slots=True)
class ClusterIdRecord:
    """``/cluster/id``."""

    cluster_id: str
    version: str | None


@dataclass(frozen=True, slots=True)
class FeatureRecord:
    """``/feature`` (2.7+): finalized features; status 1 = enabled."""

    version: int | None
    status: int | None
    features: tuple[FeatureRange, ...]


@dataclass(frozen=True, slots=True)
class ProducerIdBlockRecord:
    """``/latest_producer_id_block``: the last producer-id block handed out.

    Kafka creates the znode empty; until the first block is allocated every field is None.
    """

    version: int | None
    broker_id: int | None
    block_start: int | None
    block_end: int | None


@dataclass(frozen=True, slots=True)
class MigrationRecord:
    """``/migration`` (3.4+): KRaft migration state."""

    version: int | None
    kraft_controller_id: int | None
    kraft_controller_epoch: int | None
    kraft_metadata_offset: int | None
    kraft_metadata_epoch: int | None


@dataclass(frozen=True, slots=True)
class MalformedZNode:
    """A Kafka znode whose payload could not be decoded.

    Attributes:
        path: the znode path.
        kind: what the path says it should be.
        reason: why decoding failed.
        data: the raw payload.
    """

    path: str
    kind: ZNodeKind
    reason: str
    data: bytes | None


KafkaZNode: TypeAlias = (
    BrokerRegistration
    | TopicAssignment
    | PartitionStateRecord
    | ControllerRecord
    | ControllerEpochRecord
    | EntityConfigRecord
    | ConfigChangeNotification
    | ReassignPartitionsRecord
    | PreferredReplicaElectionRecord
    | DeleteTopicRecord
    | IsrChangeNotification
    | LogDirEventNotification
    | ClusterIdRecord
    | FeatureRecord
    | ProducerIdBlockRecord
    | MigrationRecord
    | MalformedZNode
)
"""Every decoded Kafka znode."""


class _Bad(Exception):
    """A payload problem (internal; becomes a ``MalformedZNode``)."""


def _json(data: bytes | None) -> Any:
    if data is None or not data.strip():
        raise _Bad("no payload")
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _Bad(f"payload is not UTF-8: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise _Bad(f"payload is not JSON: {exc.msg} at char {exc.pos}") from exc


def _obj(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Bad(f"{what} is {type(value).__name__}, expected an object")
    return value


def _int_value(value: Any, what: str) -> int:
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and _INT.fullmatch(value.strip()):
            return int(value)
        raise _Bad(f"{what} is {value!r}, expected an integer")
    return value


def _req_int(obj: dict[str, Any], key: str) -> int:
    if key not in obj:
        raise _Bad(f"missing {key!r}")
    return _int_value(obj[key], key)


def _opt_int(obj: dict[str, Any], key: str) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    return _int_value(value, key)


def _opt_str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _Bad(f"{key} is {value!r}, expected a string")
    return value


def _int_list(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise _Bad(f"{what} is {value!r}, expected a list")
    if all(type(v) is int for v in value):
        return tuple(value)
    return tuple(_int_value(v, what) for v in value)


def _replica_map(value: Any, what: str) -> tuple[tuple[int, tuple[int, ...]], ...]:
    if value is None:
        return ()
    mapping = _obj(value, what)
    out = []
    for key, replicas in mapping.items():
        if not _INT.fullmatch(str(key)):
            raise _Bad(f"{what} has partition key {key!r}")
        out.append((int(key), _int_list(replicas, f"{what}[{key}]")))
    return tuple(sorted(out))


def _topic_partitions(value: Any, what: str) -> tuple[TopicPartition, ...]:
    if not isinstance(value, list):
        raise _Bad(f"{what} is {value!r}, expected a list")
    out = []
    for item in value:
        entry = _obj(item, what)
        topic = _opt_str(entry, "topic")
        if topic is None:
            raise _Bad(f"{what} entry without a topic")
        out.append(TopicPartition(topic, _req_int(entry, "partition")))
    return tuple(out)


_ENDPOINT = re.compile(r"^([A-Za-z0-9_\-]+)://(\[[^\]]*\]|[^:]*):(-?\d+)$")


def _endpoints(value: Any, protocols: dict[str, str]) -> tuple[BrokerEndpoint, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _Bad(f"endpoints is {value!r}, expected a list")
    out = []
    for item in value:
        if not isinstance(item, str):
            raise _Bad(f"endpoint {item!r} is not a string")
        match = _ENDPOINT.match(item)
        if match is None:
            raise _Bad(f"endpoint {item!r} is not <listener>://<host>:<port>")
        listener, host, port = match.groups()
        if host.startswith("["):
            host = host[1:-1]
        out.append(BrokerEndpoint(listener, host, int(port), protocols.get(listener, listener)))
    return tuple(out)


def _features(value: Any, min_key: str, max_key: str) -> tuple[FeatureRange, ...]:
    if value is None:
        return ()
    out = []
    for name, spec in sorted(_obj(value, "features").items()):
        entry = _obj(spec, f"feature {name}")
        out.append(FeatureRange(name, _opt_int(entry, min_key), _opt_int(entry, max_key)))
    return tuple(out)


def _broker(
    where: ZNodePath, data: bytes | None, czxid: int | None, owner: int | None
) -> BrokerRegistration:
    obj = _obj(_json(data), "payload")
    version = _opt_int(obj, "version")
    protocol_map = obj.get("listener_security_protocol_map")
    protocols = {
        str(k): str(v)
        for k, v in (_obj(protocol_map, "protocol map").items() if protocol_map else ())
    }
    endpoints = _endpoints(obj.get("endpoints"), protocols)
    host = _opt_str(obj, "host")
    port = _opt_int(obj, "port")
    if not endpoints and host is not None and port is not None and port >= 0:
        endpoints = (BrokerEndpoint("PLAINTEXT", host, port, "PLAINTEXT"),)
    timestamp = obj.get("timestamp")
    return BrokerRegistration(
        broker_id=where.broker_id if where.broker_id is not None else -1,
        version=version,
        host=host,
        port=port,
        endpoints=endpoints,
        jmx_port=_opt_int(obj, "jmx_port"),
        timestamp=None if timestamp is None else _int_value(timestamp, "timestamp"),
        rack=_opt_str(obj, "rack"),
        features=_features(obj.get("features"), "min_version", "max_version"),
        epoch=czxid,
        session_id=owner,
    )


def _topic(where: ZNodePath, data: bytes | None) -> TopicAssignment:
    obj = _obj(_json(data), "payload")
    if "partitions" not in obj:
        raise _Bad("missing 'partitions'")
    return TopicAssignment(
        topic=where.topic or "",
        version=_opt_int(obj, "version"),
        partitions=_replica_map(obj["partitions"], "partitions"),
        adding_replicas=_replica_map(obj.get("adding_replicas"), "adding_replicas"),
        removing_replicas=_replica_map(obj.get("removing_replicas"), "removing_replicas"),
        topic_id=_opt_str(obj, "topic_id"),
    )


def _partition_state(
    where: ZNodePath, data: bytes | None, version: int | None
) -> PartitionStateRecord:
    obj = _obj(_json(data), "payload")
    recovery = _opt_int(obj, "leader_recovery_state")
    try:
        state = LeaderRecoveryState(0 if recovery is None else recovery)
    except ValueError as exc:
        raise _Bad(f"leader_recovery_state {recovery} is unknown") from exc
    return PartitionStateRecord(
        topic=where.topic or "",
        partition=where.partition if where.partition is not None else -1,
        version=_opt_int(obj, "version"),
        leader=_req_int(obj, "leader"),
        leader_epoch=_req_int(obj, "leader_epoch"),
        isr=_int_list(obj.get("isr"), "isr"),
        controller_epoch=_req_int(obj, "controller_epoch"),
        leader_recovery_state=state,
        zk_version=version,
    )


def _controller(data: bytes | None, owner: int | None) -> ControllerRecord:
    if data is not None and _INT.fullmatch(data.strip().decode("ascii", "replace")):
        return ControllerRecord(int(data), None, None, None, owner)  # pre-JSON bare broker id
    obj = _obj(_json(data), "payload")
    timestamp = obj.get("timestamp")
    return ControllerRecord(
        broker_id=_req_int(obj, "brokerid"),
        version=_opt_int(obj, "version"),
        timestamp=None if timestamp is None else _int_value(timestamp, "timestamp"),
        kraft_controller_epoch=_opt_int(obj, "kraftControllerEpoch"),
        session_id=owner,
    )


def _controller_epoch(data: bytes | None, version: int | None) -> ControllerEpochRecord:
    text = (data or b"").decode("ascii", "replace").strip()
    if not _INT.fullmatch(text):
        raise _Bad(f"controller epoch {text!r} is not an integer")
    return ControllerEpochRecord(int(text), version)


def _entity_config(where: ZNodePath, data: bytes | None) -> EntityConfigRecord:
    obj = _obj(_json(data), "payload")
    config = _obj(obj.get("config", {}), "config")
    return EntityConfigRecord(
        entity_type=where.entity_type or "",
        entity_name=where.entity_name or "",
        version=_opt_int(obj, "version"),
        config=tuple(
            sorted((str(k), v if isinstance(v, str) else json.dumps(v)) for k, v in config.items())
        ),
    )


def _config_change(where: ZNodePath, data: bytes | None) -> ConfigChangeNotification:
    obj = _obj(_json(data), "payload")
    entity_path = _opt_str(obj, "entity_path")
    if entity_path is None and "entity_type" in obj:  # version 1: type and name apart
        entity_path = f"{_opt_str(obj, 'entity_type')}/{_opt_str(obj, 'entity_name')}"
    return ConfigChangeNotification(where.sequence, _opt_int(obj, "version"), entity_path)


def _reassign(data: bytes | None) -> ReassignPartitionsRecord:
    obj = _obj(_json(data), "payload")
    items = obj.get("partitions")
    if not isinstance(items, list):
        raise _Bad("partitions is not a list")
    out = []
    for item in items:
        entry = _obj(item, "partition entry")
        topic = _opt_str(entry, "topic")
        if topic is None:
            raise _Bad("partition entry without a topic")
        tp = TopicPartition(topic, _req_int(entry, "partition"))
        out.append((tp, _int_list(entry.get("replicas"), "replicas")))
    return ReassignPartitionsRecord(_opt_int(obj, "version"), tuple(out))


def _producer_id_block(data: bytes | None) -> ProducerIdBlockRecord:
    if data is None or not data.strip():
        return ProducerIdBlockRecord(None, None, None, None)
    obj = _obj(_json(data), "payload")
    return ProducerIdBlockRecord(
        version=_opt_int(obj, "version"),
        broker_id=_req_int(obj, "broker"),
        block_start=_req_int(obj, "block_start"),
        block_end=_req_int(obj, "block_end"),
    )


def _migration(data: bytes | None) -> MigrationRecord:
    obj = _obj(_json(data), "payload")
    return MigrationRecord(
        version=_opt_int(obj, "version"),
        kraft_controller_id=_opt_int(obj, "kraft_controller_id"),
        kraft_controller_epoch=_opt_int(obj, "kraft_controller_epoch"),
        kraft_metadata_offset=_opt_int(obj, "kraft_metadata_offset"),
        kraft_metadata_epoch=_opt_int(obj, "kraft_metadata_epoch"),
    )


def decode_znode(
    path: str,
    data: bytes | None,
    *,
    zk_version: int | None = None,
    czxid: int | None = None,
    ephemeral_owner: int | None = None,
    chroot: str = "",
    where: ZNodePath | None = None,
) -> KafkaZNode | None:
    """Decode a Kafka znode.

    Args:
        path: the znode path.
        data: its payload.
        zk_version: the znode's data version (``Stat.version``, or a setData txn's version).
        czxid: the creation zxid (a broker registration's broker epoch).
        ephemeral_owner: the owning session of an ephemeral znode.
        chroot: Kafka's chroot.
        where: the path's classification when already known.

    Returns:
        The typed record, a ``MalformedZNode`` when the payload does not decode, or None when
        the path is not a Kafka znode with a payload.
    """
    where = where or classify_path(path, chroot)
    if where is None:
        return None
    kind = where.kind
    try:
        if kind is ZNodeKind.partition_state:
            return _partition_state(where, data, zk_version)
        if kind is ZNodeKind.topic:
            return _topic(where, data)
        if kind is ZNodeKind.broker:
            return _broker(where, data, czxid, ephemeral_owner)
        if kind is ZNodeKind.controller:
            return _controller(data, ephemeral_owner)
        if kind is ZNodeKind.controller_epoch:
            return _controller_epoch(data, zk_version)
        if kind is ZNodeKind.entity_config:
            return _entity_config(where, data)
        if kind is ZNodeKind.config_change:
            return _config_change(where, data)
        if kind is ZNodeKind.isr_change_notification:
            obj = _obj(_json(data), "payload")
            return IsrChangeNotification(
                where.sequence,
                _opt_int(obj, "version"),
                _topic_partitions(obj.get("partitions"), "partitions"),
            )
        if kind is ZNodeKind.delete_topic:
            return DeleteTopicRecord(where.topic or "")
        if kind is ZNodeKind.reassign_partitions:
            return _reassign(data)
        if kind is ZNodeKind.preferred_replica_election:
            obj = _obj(_json(data), "payload")
            return PreferredReplicaElectionRecord(
                _opt_int(obj, "version"), _topic_partitions(obj.get("partitions"), "partitions")
            )
        if kind is ZNodeKind.log_dir_event:
            obj = _obj(_json(data), "payload")
            return LogDirEventNotification(
                where.sequence,
                _opt_int(obj, "version"),
                _req_int(obj, "broker"),
                _req_int(obj, "event"),
            )
        if kind is ZNodeKind.cluster_id:
            obj = _obj(_json(data), "payload")
            cluster = _opt_str(obj, "id")
            if cluster is None:
                raise _Bad("missing 'id'")
            version = obj.get("version")
            return ClusterIdRecord(cluster, None if version is None else str(version))
        if kind is ZNodeKind.feature:
            obj = _obj(_json(data), "payload")
            return FeatureRecord(
                _opt_int(obj, "version"),
                _opt_int(obj, "status"),
                _features(obj.get("features"), "min_version_level", "max_version_level"),
            )
        if kind is ZNodeKind.producer_id_block:
            return _producer_id_block(data)
        return _migration(data)
    except _Bad as exc:
        return MalformedZNode(path, kind, str(exc), data)


def record_to_json(record: object) -> str:
    """A decoded record as compact JSON (enums by value, bytes as UTF-8 text or hex).

    Args:
        record: a dataclass record (or any JSON-able value).

    Returns:
        The JSON text, keys in field order.
    """
    return json.dumps(_plain(record), separators=(",", ":"))


def _plain(value: object) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        if isinstance(value, TopicPartition):
            return {"topic": value.topic, "partition": value.partition}
        for f in fields(value):
            out[f.name] = _plain(getattr(value, f.name))
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return {"hex": value.hex()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def detect_chroot(paths: set[str] | frozenset[str] | list[str]) -> str:
    """Guess Kafka's chroot from the znode paths present (``""`` when Kafka sits at the root).

    Args:
        paths: znode paths of a snapshot.

    Returns:
        The chroot whose ``/brokers/ids`` (or ``/brokers/topics``) exists, shortest first.
    """
    candidates = []
    for path in paths:
        for marker in ("/brokers/ids", "/brokers/topics"):
            if path.endswith(marker):
                candidates.append(path[: -len(marker)])
    if not candidates:
        return ""
    return min(candidates, key=lambda c: (len(c), c))
