"""Partition and replica state names as the controller's logs spell them.

The fold keeps states as the names the evidence carries (``OnlinePartition``...): comparing
strings is cheaper than mapping every line to ``model.PartitionState``, which is looked up only
where a state machine is checked.
"""

from __future__ import annotations

from kafkactl_core.model import PartitionState, ReplicaState

__all__ = [
    "NEW",
    "NONEXISTENT",
    "OFFLINE",
    "ONLINE",
    "PARTITION_STATES",
    "REPLICA_STATES",
]

ONLINE = PartitionState.OnlinePartition.name
OFFLINE = PartitionState.OfflinePartition.name
NEW = PartitionState.NewPartition.name
NONEXISTENT = PartitionState.NonExistentPartition.name
PARTITION_STATES = {state.name: state for state in PartitionState}
REPLICA_STATES = {state.name: state for state in ReplicaState}
