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

from kafkactl_core.kraft.broker_lifecycle import BrokerLifecycle
from kafkactl_core.kraft.controller import ClusterSettings, OpResult
from kafkactl_core.kraft.partition_changes import (
    AlterPartitionRequest,
    AlterPartitionResult,
    PartitionChanges,
)
from kafkactl_core.kraft.topic_admin import TopicAdmin

__all__ = [
    "AlterPartitionRequest",
    "AlterPartitionResult",
    "ClusterSettings",
    "KRaftCluster",
    "OpResult",
]


class KRaftCluster(BrokerLifecycle, TopicAdmin, PartitionChanges):
    """The controller's request handling on top of its replayed metadata image."""
