"""KRaft controller rules as Kafka ``3.9.0-rc3`` implements them, for replay and simulation.

Metadata versions and their feature gates (``metadata_version``), metadata records and their
dump-log JSON (``records``), partition registrations and the replay rule (``registration``), the
``PartitionChangeBuilder`` election rules (``builder``), the metadata image rebuilt from records
(``state``) and a ``ReplicationControlManager``-style controller that turns requests into records
(``cluster``: ``controller`` plumbing, ``broker_lifecycle``, ``topic_admin``,
``partition_changes``). Pure Python: no Spark, no pandas.
"""

from __future__ import annotations

from kafkactl_core.kraft.brokers import BrokerControlState, BrokerRegistration, HeartbeatReply
from kafkactl_core.kraft.builder import (
    BuildResult,
    Election,
    ElectionResult,
    PartitionChangeBuilder,
)
from kafkactl_core.kraft.cluster import (
    AlterPartitionRequest,
    AlterPartitionResult,
    ClusterSettings,
    KRaftCluster,
    OpResult,
)
from kafkactl_core.kraft.configs import ConfigResourceType, ConfigStore
from kafkactl_core.kraft.errors import ApiError, Errors
from kafkactl_core.kraft.metadata_version import REFERENCE_RELEASE, MetadataVersion
from kafkactl_core.kraft.records import (
    NO_LEADER_CHANGE,
    BrokerRegistrationChangeRecord,
    ClearElrRecord,
    ConfigRecord,
    FeatureLevelRecord,
    FenceBrokerRecord,
    MetadataRecord,
    PartitionChangeRecord,
    PartitionRecord,
    RecordAndVersion,
    RegisterBrokerRecord,
    RemoveTopicRecord,
    TopicRecord,
    UnfenceBrokerRecord,
    UnregisterBrokerRecord,
    record_from_json,
)
from kafkactl_core.kraft.registration import PartitionRegistration, election_was_clean
from kafkactl_core.kraft.state import ClusterState, TopicInfo

__all__ = [
    "NO_LEADER_CHANGE",
    "REFERENCE_RELEASE",
    "AlterPartitionRequest",
    "AlterPartitionResult",
    "ApiError",
    "BrokerControlState",
    "BrokerRegistration",
    "BrokerRegistrationChangeRecord",
    "BuildResult",
    "ClearElrRecord",
    "ClusterSettings",
    "ClusterState",
    "ConfigRecord",
    "ConfigResourceType",
    "ConfigStore",
    "Election",
    "ElectionResult",
    "Errors",
    "FeatureLevelRecord",
    "FenceBrokerRecord",
    "HeartbeatReply",
    "KRaftCluster",
    "MetadataRecord",
    "MetadataVersion",
    "OpResult",
    "PartitionChangeBuilder",
    "PartitionChangeRecord",
    "PartitionRecord",
    "PartitionRegistration",
    "RecordAndVersion",
    "RegisterBrokerRecord",
    "RemoveTopicRecord",
    "TopicInfo",
    "TopicRecord",
    "UnfenceBrokerRecord",
    "UnregisterBrokerRecord",
    "election_was_clean",
    "record_from_json",
]
