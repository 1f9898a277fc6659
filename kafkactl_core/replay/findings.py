"""What the fold finds wrong in the evidence itself: state machine checks, gaps and conflicts.

Each check is a pure function of the line and what the fold knows; it returns a ``Finding``
(an anomaly without its partition, time and reference, which the fold adds) or ``None``.
"""

from __future__ import annotations

from typing import NamedTuple

from kafkactl_core.model import PartitionState, ReplicaState
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.replay.evidence import Fact, PartitionEvidence, Source
from kafkactl_core.replay.rows import AnomalyRow
from kafkactl_core.replay.state_names import OFFLINE, PARTITION_STATES, REPLICA_STATES
from kafkactl_core.zkcontroller.states import partition_transition_valid, replica_transition_valid

__all__ = [
    "Finding",
    "epoch_regression",
    "gap",
    "isr_conflict",
    "leader_conflict",
    "partition_transition",
    "refused_transition",
    "replica_pairs",
    "replica_transition",
]

_TRANSITION = Fact.partition_transition
_REPLICA_TRANSITION = Fact.replica_transition
_VALID_REPLICA_PAIRS: dict[KafkaVersion, frozenset[tuple[str, str]]] = {}


class Finding(NamedTuple):
    """An anomaly's judgement: the ``AnomalyRow`` columns a check decides."""

    kind: str
    severity: str
    expected: str | None
    observed: str | None
    detail: str

    def row(
        self,
        cluster: str,
        topic: str,
        partition: int,
        time: int | None,
        leader_epoch: int | None,
        evidence: tuple[str, ...],
        source: str,
    ) -> AnomalyRow:
        """The anomaly this finding is at a place of the evidence.

        Args:
            cluster: the cluster.
            topic: the topic.
            partition: the partition.
            time: when.
            leader_epoch: the leader epoch concerned.
            evidence: the references of the lines involved.
            source: the sources involved, ``+``-joined.

        Returns:
            The ``AnomalyRow``.
        """
        return AnomalyRow(
            cluster,
            topic,
            partition,
            time,
            self.kind,
            self.severity,
            leader_epoch,
            self.expected,
            self.observed,
            self.detail,
            evidence,
            source,
        )


def replica_pairs(profile: KafkaVersion) -> frozenset[tuple[str, str]]:
    """Valid (from, to) replica state names of a release, computed once per release.

    Args:
        profile: the release's rules.

    Returns:
        The pairs its replica state machine allows.
    """
    pairs = _VALID_REPLICA_PAIRS.get(profile)
    if pairs is None:
        pairs = frozenset(
            (start.name, end.name)
            for start in ReplicaState
            for end in ReplicaState
            if replica_transition_valid(profile, start, end)
        )
        _VALID_REPLICA_PAIRS[profile] = pairs
    return pairs


def leader_conflict(known: int | None, leader: int, epoch: int | None) -> Finding:
    """Two sources name different leaders for one leader epoch.

    Args:
        known: the leader already known for the epoch.
        leader: the one a line names.
        epoch: the epoch.

    Returns:
        The conflict.
    """
    return Finding(
        "evidence_conflict",
        "error",
        f"leader {known}",
        f"leader {leader}",
        f"two sources give different leaders for leader epoch {epoch}",
    )


def isr_conflict(known: tuple[int, ...], isr: tuple[int, ...], version: int) -> Finding:
    """Two sources give different ISRs for one partition epoch (znode version).

    Args:
        known: the ISR already known for the version.
        isr: the one a line gives.
        version: the partition epoch.

    Returns:
        The conflict.
    """
    return Finding(
        "evidence_conflict",
        "error",
        f"isr {list(known)}",
        f"isr {list(isr)}",
        f"two sources give different ISRs for partition epoch {version}",
    )


def epoch_regression(source: Source, last: int, epoch: int) -> Finding:
    """An authoritative source went back to an older leader epoch.

    Args:
        source: the source.
        last: the newest epoch it gave before.
        epoch: the older one it gives now.

    Returns:
        The regression.
    """
    return Finding(
        "epoch_regression",
        "error",
        f"leader epoch >= {last}",
        f"leader epoch {epoch}",
        f"{source.name} went back from leader epoch {last} to {epoch}",
    )


def gap(ev: PartitionEvidence, epoch: int, last: tuple[int, int | None]) -> Finding | None:
    """Writes missing between a source's last leadership and ``ev``'s.

    Args:
        ev: a write (or a copy of one) of an authoritative source.
        epoch: its leader epoch.
        last: the leader epoch and znode version the source gave before.

    Returns:
        A ``log_gap`` when znode versions (ZooKeeper) or leader epochs (logs) skip.
    """
    last_epoch, last_version = last
    version = ev.partition_epoch
    if ev.source is Source.zk_txn and version is not None and last_version is not None:
        if version > last_version + 1:
            return Finding(
                "log_gap",
                "warning",
                f"znode version {last_version + 1}",
                f"znode version {version}",
                f"{version - last_version - 1} write(s) to the partition state are missing "
                "from the ZooKeeper logs",
            )
    elif epoch > last_epoch + 1 and ev.source is not Source.controller_log:
        # controller.log shows the leaderships brokers' AlterPartition requests wrote, not
        # the controller's own ISR removals (OfflineReplica): its epochs skip by design.
        return Finding(
            "log_gap",
            "warning",
            f"leader epoch {last_epoch + 1}",
            f"leader epoch {epoch}",
            f"{epoch - last_epoch - 1} leader epoch(s) missing from {ev.source.name}",
        )
    return None


def refused_transition(ev: PartitionEvidence) -> Finding | None:
    """A failed election that Kafka refused because its state machine forbids the transition.

    Args:
        ev: an ``election_failed`` line.

    Returns:
        An ``invalid_transition`` when its from/to states make an invalid transition.
    """
    if ev.from_state is None or ev.to_state is None:
        return None
    origin = PARTITION_STATES.get(ev.from_state)
    target = PARTITION_STATES.get(ev.to_state)
    if origin is None or target is None or partition_transition_valid(origin, target):
        return None
    return Finding(
        "invalid_transition",
        "error",
        "a valid previous state",
        f"{ev.from_state} -> {ev.to_state}",
        "Kafka refused a partition transition its state machine does not allow",
    )


def partition_transition(
    ev: PartitionEvidence,
    origin: str,
    target: str,
    logged: str | None,
    offline_unlogged: bool,
) -> Finding | None:
    """Check a logged partition transition against the state machine and the last logged state.

    Args:
        ev: the transition line.
        origin: its from state.
        target: its to state.
        logged: the state the last logged transition led to.
        offline_unlogged: transitions into OfflinePartition are not written at the log's level.

    Returns:
        An ``invalid_transition``, a ``transition_mismatch`` (from a state other than the last
        logged one, unless the log omits the step between), or ``None``.
    """
    start = PARTITION_STATES.get(origin)
    end = PARTITION_STATES.get(target)
    if start is None or end is None:
        return None
    if not partition_transition_valid(start, end):
        return Finding(
            "invalid_transition",
            "error",
            "a valid previous state",
            f"{origin} -> {target}",
            "the partition state machine does not allow this transition",
        )
    if (
        ev.fact is _TRANSITION
        and logged is not None
        and logged != origin
        and not _unlogged_step(logged, origin, offline_unlogged)
    ):
        return Finding(
            "transition_mismatch",
            "warning",
            logged,
            origin,
            f"logged {origin} -> {target} while the last logged state was {logged}",
        )
    return None


def _unlogged_step(logged: str, origin: str, offline_unlogged: bool) -> bool:
    """Whether the step from the last logged state to ``origin`` is one the log omits.

    Args:
        logged: the partition state the last logged transition led to.
        origin: the state a newly logged transition starts from.
        offline_unlogged: transitions into OfflinePartition are not written at the log's level.

    Returns:
        True when ``origin`` is OfflinePartition, ``logged -> OfflinePartition`` is a valid
        transition and such transitions are not written at the log's level.
    """
    if origin != OFFLINE or not offline_unlogged:
        return False
    start = PARTITION_STATES.get(logged)
    return start is not None and partition_transition_valid(start, PartitionState.OfflinePartition)


def replica_transition(
    ev: PartitionEvidence,
    origin: str,
    target: str,
    valid: frozenset[tuple[str, str]],
    profile: KafkaVersion,
    known: str | None,
) -> Finding | None:
    """Check a logged replica transition against the release's state machine and the replay.

    Args:
        ev: the transition line.
        origin: its from state.
        target: its to state.
        valid: the release's valid pairs (``replica_pairs``).
        profile: the release's rules.
        known: the replica's state as the replay has it, ``None`` when unknown.

    Returns:
        An ``invalid_transition``, a ``transition_mismatch`` or ``None``.
    """
    if (origin, target) not in valid:
        if origin not in REPLICA_STATES or target not in REPLICA_STATES:
            return None
        return Finding(
            "invalid_transition",
            "error",
            "a valid previous state",
            f"replica {ev.replica}: {origin} -> {target}",
            f"the replica state machine of {profile.release} does not allow this",
        )
    if known is not None and known != origin and ev.fact is _REPLICA_TRANSITION:
        return Finding(
            "transition_mismatch",
            "warning",
            known,
            origin,
            f"replica {ev.replica}: logged {origin} -> {target} while the replay had {known}",
        )
    return None
