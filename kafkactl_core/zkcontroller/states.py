"""Valid-previous-state tables of the partition and replica state machines, and transition errors.

A transition is checked against the table of the release (``ReplicaDeletionIneligible`` accepts
``OfflineReplica`` only from 2.3). Failures are values: ``TransitionError`` says whether the
transition was invalid (Kafka logs an ``IllegalStateException``) or the state change failed
(``StateChangeFailedException``); in both cases the state is left unchanged.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from kafkactl_core.model import PartitionState, ReplicaState
from kafkactl_core.profiles import KafkaVersion

_P = PartitionState
_R = ReplicaState

PARTITION_VALID_PREVIOUS: dict[PartitionState, frozenset[PartitionState]] = {
    _P.NewPartition: frozenset({_P.NonExistentPartition}),
    _P.OnlinePartition: frozenset({_P.NewPartition, _P.OnlinePartition, _P.OfflinePartition}),
    _P.OfflinePartition: frozenset({_P.NewPartition, _P.OnlinePartition, _P.OfflinePartition}),
    _P.NonExistentPartition: frozenset({_P.OfflinePartition}),
}
"""``PartitionState.validPreviousStates`` (identical from 0.10.2 to 3.9)."""

_REPLICA_LIVE_PREVIOUS = frozenset(
    {_R.NewReplica, _R.OnlineReplica, _R.OfflineReplica, _R.ReplicaDeletionIneligible}
)

REPLICA_VALID_PREVIOUS: dict[ReplicaState, frozenset[ReplicaState]] = {
    _R.NewReplica: frozenset({_R.NonExistentReplica}),
    _R.OnlineReplica: _REPLICA_LIVE_PREVIOUS,
    _R.OfflineReplica: _REPLICA_LIVE_PREVIOUS,
    _R.ReplicaDeletionStarted: frozenset({_R.OfflineReplica}),
    _R.ReplicaDeletionSuccessful: frozenset({_R.ReplicaDeletionStarted}),
    _R.ReplicaDeletionIneligible: frozenset({_R.OfflineReplica, _R.ReplicaDeletionStarted}),
    _R.NonExistentReplica: frozenset({_R.ReplicaDeletionSuccessful}),
}
"""``ReplicaState.validPreviousStates`` from 2.3."""

_INELIGIBLE_BEFORE_2_3 = frozenset({_R.ReplicaDeletionStarted})


class TransitionErrorKind(enum.Enum):
    """Why a transition did not happen."""

    invalid_transition = "invalid_transition"
    """The current state is not a valid previous state of the target (IllegalStateException)."""
    state_change_failed = "state_change_failed"
    """The transition was valid but could not be carried out (StateChangeFailedException)."""
    election_not_needed = "election_not_needed"
    """Pre-1.1 ``LeaderElectionNotNeededException``: the preferred replica already leads."""


@dataclass(frozen=True, slots=True)
class TransitionError:
    """A transition that left the state unchanged.

    Attributes:
        kind: invalid transition or failed state change.
        detail: what Kafka would log, e.g. ``Failed to elect leader for partition t-0 ...``.
    """

    kind: TransitionErrorKind
    detail: str


def partition_transition_valid(current: PartitionState, target: PartitionState) -> bool:
    """Whether ``current -> target`` is a valid partition transition."""
    return current in PARTITION_VALID_PREVIOUS[target]


def replica_transition_valid(
    profile: KafkaVersion, current: ReplicaState, target: ReplicaState
) -> bool:
    """Whether ``current -> target`` is a valid replica transition in this release."""
    if (
        target is _R.ReplicaDeletionIneligible
        and not profile.replica_deletion_ineligible_from_offline
    ):
        return current in _INELIGIBLE_BEFORE_2_3
    return current in REPLICA_VALID_PREVIOUS[target]
