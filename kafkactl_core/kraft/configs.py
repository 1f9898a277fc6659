"""Dynamic configs held by the KRaft controller and the topic settings elections depend on.

``ConfigRecord``s set or delete configs per resource (topic, broker, cluster default = broker
``""``). A topic's effective value resolves like ``KafkaConfigSchema.resolveEffectiveTopicConfig``:
topic config > dynamic config of the controller's own node > dynamic cluster default > the
controller's static config > the schema default. ``unclean.leader.election.enable`` is only
honoured from Kafka 3.9 (KAFKA-12670); 3.3 to 3.8 hard-wire it to false.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

from kafkactl_core.kraft.errors import ApiError, Errors
from kafkactl_core.versions import KafkaRelease

UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable"
MIN_INSYNC_REPLICAS = "min.insync.replicas"

SCHEMA_DEFAULTS: dict[str, str] = {
    UNCLEAN_LEADER_ELECTION_ENABLE: "false",
    MIN_INSYNC_REPLICAS: "1",
}
"""Defaults of the topic configs the controller reads (``LogConfig``)."""

UNCLEAN_CONFIG_RELEASE = KafkaRelease(3, 9)
"""First release whose KRaft controller reads ``unclean.leader.election.enable``."""


class ConfigResourceType(enum.IntEnum):
    """``ConfigResource.Type`` ids as ConfigRecord carries them."""

    TOPIC = 2
    BROKER = 4
    BROKER_LOGGER = 8
    CLIENT_METRICS = 16


def parse_java_boolean(value: str) -> bool:
    """``Boolean.parseBoolean``: true only for "true", any case."""
    return value.strip().lower() == "true"


def validate_config(name: str, value: str | None) -> ApiError | None:
    """Check a value the way the config schema types do (BOOLEAN, INT at least 1).

    Args:
        name: config key.
        value: new value, None for a delete.

    Returns:
        An INVALID_CONFIG error, or None when the value is acceptable.
    """
    if value is None:
        return None
    if name == UNCLEAN_LEADER_ELECTION_ENABLE and value.strip().lower() not in ("true", "false"):
        return ApiError(
            Errors.INVALID_CONFIG,
            f"Invalid value {value} for configuration {name}: Expected value to be either "
            "true or false",
        )
    if name == MIN_INSYNC_REPLICAS:
        try:
            number = int(value.strip())
        except ValueError:
            return ApiError(
                Errors.INVALID_CONFIG,
                f"Invalid value {value} for configuration {name}: Not a number of type INT",
            )
        if number < 1:
            return ApiError(
                Errors.INVALID_CONFIG,
                f"Invalid value {value} for configuration {name}: Value must be at least 1",
            )
    return None


class ConfigStore:
    """Dynamic configs by resource, plus the controller's static config."""

    __slots__ = ("_data", "controller_node_id", "static_config")

    def __init__(
        self,
        static_config: Mapping[str, str] | None = None,
        controller_node_id: int | None = None,
    ) -> None:
        """Start with no dynamic config.

        Args:
            static_config: the controller's own server properties.
            controller_node_id: the controller's node id, whose broker-level dynamic config
                applies to topics.
        """
        self._data: dict[tuple[int, str], dict[str, str]] = {}
        self.static_config: dict[str, str] = dict(static_config or {})
        self.controller_node_id = controller_node_id

    def set(self, resource_type: int, resource_name: str, name: str, value: str | None) -> None:
        """Replay a ConfigRecord: set the value, or delete it when ``value`` is None."""
        key = (int(resource_type), resource_name)
        if value is None:
            configs = self._data.get(key)
            if configs is not None:
                configs.pop(name, None)
                if not configs:
                    del self._data[key]
            return
        self._data.setdefault(key, {})[name] = value

    def get(self, resource_type: int, resource_name: str) -> dict[str, str]:
        """The dynamic configs of one resource."""
        return dict(self._data.get((int(resource_type), resource_name), {}))

    def delete_topic_configs(self, topic: str) -> None:
        """Forget a deleted topic's configs."""
        self._data.pop((ConfigResourceType.TOPIC, topic), None)

    def topic_config(self, topic: str, name: str) -> tuple[str | None, str]:
        """A topic's effective value and where it came from.

        Args:
            topic: topic name.
            name: config key.

        Returns:
            ``(value, source)`` with source ``topic``, ``dynamic_node``, ``dynamic_cluster``,
            ``static``, ``default``, or ``(None, "none")`` for a key without a default.
        """
        topic_configs = self._data.get((ConfigResourceType.TOPIC, topic), {})
        if name in topic_configs:
            return topic_configs[name], "topic"
        if self.controller_node_id is not None:
            node = self._data.get((ConfigResourceType.BROKER, str(self.controller_node_id)), {})
            if name in node:
                return node[name], "dynamic_node"
        cluster = self._data.get((ConfigResourceType.BROKER, ""), {})
        if name in cluster:
            return cluster[name], "dynamic_cluster"
        if name in self.static_config:
            return self.static_config[name], "static"
        if name in SCHEMA_DEFAULTS:
            return SCHEMA_DEFAULTS[name], "default"
        return None, "none"

    def unclean_leader_election_enabled(self, topic: str, release: KafkaRelease) -> bool:
        """``uncleanLeaderElectionEnabledForTopic``: always false before Kafka 3.9."""
        if release < UNCLEAN_CONFIG_RELEASE:
            return False
        value, _ = self.topic_config(topic, UNCLEAN_LEADER_ELECTION_ENABLE)
        return value is not None and parse_java_boolean(value)

    def min_insync_replicas(self, topic: str, default: int = 1) -> int:
        """The topic's ``min.insync.replicas`` (before the replication-factor cap)."""
        value, _ = self.topic_config(topic, MIN_INSYNC_REPLICAS)
        if value is None:
            return default
        try:
            return int(value.strip())
        except ValueError:
            return default
