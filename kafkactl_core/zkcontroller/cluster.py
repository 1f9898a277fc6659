"""The description a ``ZkController`` starts from: release, brokers, config, topics, leadership.

Also the one config rule every part of the controller shares: how a boolean setting
(``unclean.leader.election.enable`` and the like) is parsed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import LeaderAndIsr, TopicPartition
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.versions import ProtocolVersion

UNCLEAN_KEY = "unclean.leader.election.enable"


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


@dataclass(frozen=True, slots=True)
class ControllerConfig:
    """The controller broker's static settings that change what it decides.

    Attributes:
        unclean_leader_election_enable: broker-level default; ``None`` = the release's default.
        auto_leader_rebalance_enable: whether the auto-rebalance task runs.
        leader_imbalance_per_broker_percentage: auto-rebalance threshold (strict ``>``).
        leader_imbalance_check_interval_seconds: the task's period (informational here).
        controlled_shutdown_enable: whether brokers shut down through the controller.
        inter_broker_protocol_version: the IBP; ``None`` = the release's own.
    """

    unclean_leader_election_enable: bool | None = None
    auto_leader_rebalance_enable: bool = True
    leader_imbalance_per_broker_percentage: int = 10
    leader_imbalance_check_interval_seconds: int = 300
    controlled_shutdown_enable: bool = True
    inter_broker_protocol_version: ProtocolVersion | None = None


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    """An initial cluster, as ZooKeeper holds it, plus who is controller.

    The engine takes it as is: no election or ISR change is made to reconcile it (call
    ``ZkController.controller_failover`` for what a newly elected controller would do).

    Attributes:
        version: the release's behaviour profile.
        live: registered brokers.
        controller: the active controller, ``None`` for none (context-only use).
        config: the controller broker's static settings.
        topics: assignments per topic and partition number.
        leadership: leadership znodes (absent = not yet initialised).
        topic_configs: per-topic overrides (``unclean.leader.election.enable`` read).
        deleting_topics: topics queued for deletion.
        shutting_down: brokers already in controlled shutdown.
        record_requests: keep the controller-to-broker requests (tests, oracle).
    """

    version: KafkaVersion
    live: tuple[int, ...] = ()
    controller: int | None = None
    config: ControllerConfig = field(default_factory=ControllerConfig)
    topics: Mapping[str, Mapping[int, ReplicaAssignment]] = field(default_factory=dict)
    leadership: Mapping[TopicPartition, LeaderAndIsr] = field(default_factory=dict)
    topic_configs: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    deleting_topics: frozenset[str] = frozenset()
    shutting_down: frozenset[int] = frozenset()
    record_requests: bool = False
