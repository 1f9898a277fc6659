"""The KRaft controller's election and partition-change rules (``PartitionChangeBuilder``).

Given a partition registration, an acceptable-leader predicate, the metadata version, min ISR and
target values (ISR, replicas, adding/removing, leader recovery state), ``build`` returns the
PartitionChangeRecord Kafka ``3.9.0-rc3`` writes, or None when nothing changes. The steps, in
Kafka's order: complete a reassignment, populate the ELR targets (KIP-966), elect (PREFERRED /
ONLINE / UNCLEAN, ELR members when the ISR is empty, the last known leader), bump the leader
epoch for a removed replica, write ELR fields, write the ISR (never empty unless ELR is on), bump
the leader epoch for an ISR shrink (MV before ``3.6-IV0`` or ZK migration), maintain the last
known leader, write the assignment and directories, then the leader recovery state.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kafkactl_core.kraft import directory_ids
from kafkactl_core.kraft.java_collections import JavaIntHashSet
from kafkactl_core.kraft.metadata_version import REFERENCE_RELEASE, MetadataVersion
from kafkactl_core.kraft.reassignment import ReassignmentReplicas
from kafkactl_core.kraft.records import NO_LEADER_CHANGE, PartitionChangeRecord, RecordAndVersion
from kafkactl_core.kraft.registration import PartitionRegistration
from kafkactl_core.model import NO_LEADER, LeaderRecoveryState
from kafkactl_core.versions import KafkaRelease

Ids = tuple[int, ...]
LeaderPredicate = Callable[[int], bool]
"""``isAcceptableLeader``: whether a broker may lead (active, directory online, ...)."""
DefaultDirProvider = Callable[[int], str]
"""Directory for a replica the partition did not have (``DefaultDirProvider``)."""

_TRUNK = KafkaRelease(4, 0)


class Election(enum.Enum):
    """``PartitionChangeBuilder.Election``."""

    PREFERRED = "PREFERRED"
    """Elect the preferred replica if it is in the ISR; otherwise keep or pick a valid leader."""
    ONLINE = "ONLINE"
    """Keep the partition online from the ISR (the current leader is sticky)."""
    UNCLEAN = "UNCLEAN"
    """As ONLINE, but fall back to any acceptable replica outside the ISR."""


@dataclass(frozen=True, slots=True)
class ElectionResult:
    """What ``electLeader`` chose.

    Attributes:
        node: the leader, ``NO_LEADER`` (-1) when none.
        unclean: True for an election outside the ISR (including the last known leader).
    """

    node: int
    unclean: bool


@dataclass(frozen=True, slots=True)
class BuildResult:
    """The outcome of ``PartitionChangeBuilder.build``.

    Attributes:
        record: the change, None when nothing changes (``Optional.empty()``).
        version: the record version the metadata version writes.
        election: the election ``build`` ran (its node is the current leader when it kept it).
        elected_from_elr: True when the new leader came from the Eligible Leader Replicas.
    """

    record: PartitionChangeRecord | None
    version: int
    election: ElectionResult
    elected_from_elr: bool = False

    @property
    def record_and_version(self) -> RecordAndVersion | None:
        """The record with its version, None when nothing changes."""
        return None if self.record is None else RecordAndVersion(self.record, self.version)


class _Draft:
    """A PartitionChangeRecord under construction (Kafka mutates one in place)."""

    __slots__ = (
        "adding_replicas",
        "directories",
        "eligible_leader_replicas",
        "isr",
        "last_known_elr",
        "leader",
        "leader_recovery_state",
        "partition_id",
        "removing_replicas",
        "replicas",
        "topic_id",
    )

    def __init__(self, record: PartitionChangeRecord) -> None:
        self.partition_id = record.partition_id
        self.topic_id = record.topic_id
        self.isr = record.isr
        self.leader = record.leader
        self.replicas = record.replicas
        self.removing_replicas = record.removing_replicas
        self.adding_replicas = record.adding_replicas
        self.leader_recovery_state = record.leader_recovery_state
        self.directories = record.directories
        self.eligible_leader_replicas = record.eligible_leader_replicas
        self.last_known_elr = record.last_known_elr

    def freeze(self) -> PartitionChangeRecord:
        return PartitionChangeRecord(
            partition_id=self.partition_id,
            topic_id=self.topic_id,
            isr=self.isr,
            leader=self.leader,
            replicas=self.replicas,
            removing_replicas=self.removing_replicas,
            adding_replicas=self.adding_replicas,
            leader_recovery_state=self.leader_recovery_state,
            directories=self.directories,
            eligible_leader_replicas=self.eligible_leader_replicas,
            last_known_elr=self.last_known_elr,
        )


def _unassigned(_broker: int) -> str:
    return directory_ids.UNASSIGNED


class PartitionChangeBuilder:
    """Kafka's ``PartitionChangeBuilder`` for one partition; configure with ``set_*``, then build.

    Like Kafka's, a builder is meant for one ``build`` call: building mutates its targets.
    """

    __slots__ = (
        "_default_dir_provider",
        "_election",
        "_elr_enabled",
        "_is_acceptable_leader",
        "_metadata_version",
        "_min_isr",
        "_partition",
        "_partition_id",
        "_release",
        "_target_adding",
        "_target_directories",
        "_target_elr",
        "_target_isr",
        "_target_last_known_elr",
        "_target_leader_recovery_state",
        "_target_removing",
        "_target_replicas",
        "_topic_id",
        "_unclean_shutdown_replicas",
        "_use_last_known_leader",
        "_zk_migration_enabled",
    )

    def __init__(
        self,
        partition: PartitionRegistration,
        topic_id: str,
        partition_id: int,
        is_acceptable_leader: LeaderPredicate,
        metadata_version: MetadataVersion,
        min_isr: int,
        *,
        release: KafkaRelease = REFERENCE_RELEASE,
    ) -> None:
        """Start from the partition's current state; every target defaults to it.

        Args:
            partition: the current registration.
            topic_id: the topic id written into the record.
            partition_id: the partition number written into the record.
            is_acceptable_leader: which brokers may lead.
            metadata_version: the MV in force.
            min_isr: the effective min ISR (``min(min.insync.replicas, RF)``).
            release: the controller's Kafka release (record version gate, ZK-migration flag).
        """
        self._partition = partition
        self._topic_id = topic_id
        self._partition_id = partition_id
        self._is_acceptable_leader = is_acceptable_leader
        self._metadata_version = metadata_version
        self._min_isr = min_isr
        self._release = release
        self._target_isr: Ids = partition.isr
        self._target_replicas: Ids = partition.replicas
        self._target_removing: Ids = partition.removing_replicas
        self._target_adding: Ids = partition.adding_replicas
        self._target_elr: Ids = partition.elr
        self._target_last_known_elr: Ids = partition.last_known_elr
        self._target_leader_recovery_state = partition.leader_recovery_state
        self._target_directories = dict(
            zip(partition.replicas, partition.directories, strict=False)
        )
        self._unclean_shutdown_replicas: Ids | None = None
        self._election = Election.ONLINE
        self._elr_enabled = False
        self._use_last_known_leader = True
        self._zk_migration_enabled = False
        self._default_dir_provider: DefaultDirProvider = _unassigned

    # -- configuration -------------------------------------------------------------------------

    def set_target_isr(self, isr: Sequence[int]) -> PartitionChangeBuilder:
        """The ISR the change should set (AlterPartition's new ISR, or ISR minus a broker)."""
        self._target_isr = tuple(isr)
        return self

    def set_target_replicas(self, replicas: Sequence[int]) -> PartitionChangeBuilder:
        """The assignment the change should set."""
        self._target_replicas = tuple(replicas)
        return self

    def set_target_removing(self, removing: Sequence[int]) -> PartitionChangeBuilder:
        """The removing replicas of a reassignment."""
        self._target_removing = tuple(removing)
        return self

    def set_target_adding(self, adding: Sequence[int]) -> PartitionChangeBuilder:
        """The adding replicas of a reassignment."""
        self._target_adding = tuple(adding)
        return self

    def set_target_leader_recovery_state(
        self, state: LeaderRecoveryState
    ) -> PartitionChangeBuilder:
        """The recovery state the leader reports (only AlterPartition sets RECOVERED)."""
        self._target_leader_recovery_state = state
        return self

    def set_election(self, election: Election) -> PartitionChangeBuilder:
        """PREFERRED, ONLINE (default) or UNCLEAN."""
        self._election = election
        return self

    def set_eligible_leader_replicas_enabled(self, enabled: bool) -> PartitionChangeBuilder:
        """Turn KIP-966 ELR on (the controller passes ``flag && MV.isElrSupported()``)."""
        self._elr_enabled = enabled
        return self

    def set_use_last_known_leader_in_balanced_recovery(
        self, enabled: bool
    ) -> PartitionChangeBuilder:
        """Whether ``lastKnownElr`` holds the last known leader, electable when all is lost."""
        self._use_last_known_leader = enabled
        return self

    def set_unclean_shutdown_replicas(self, replicas: Sequence[int]) -> PartitionChangeBuilder:
        """Brokers that shut down uncleanly: they leave the ELR."""
        self._unclean_shutdown_replicas = tuple(replicas)
        return self

    def set_zk_migration_enabled(self, enabled: bool) -> PartitionChangeBuilder:
        """ZK migration: ISR shrinks bump the leader epoch at any MV (3.4 to 3.9 only)."""
        self._zk_migration_enabled = enabled
        return self

    def set_directory(self, broker: int, directory: str) -> PartitionChangeBuilder:
        """Assign ``broker``'s replica to ``directory``."""
        self._target_directories[broker] = directory
        return self

    def set_default_dir_provider(self, provider: DefaultDirProvider) -> PartitionChangeBuilder:
        """Directory for replicas the partition does not have yet (default: UNASSIGNED)."""
        self._default_dir_provider = provider
        return self

    @property
    def target_isr(self) -> Ids:
        """The current target ISR (``build`` may change it: reassignment, ELR election)."""
        return self._target_isr

    # -- election ------------------------------------------------------------------------------

    def _is_valid_new_leader(self, replica: int) -> bool:
        in_isr = replica in self._target_isr or (
            not self._target_isr and replica in self._target_elr
        )
        return in_isr and self._is_acceptable_leader(replica)

    def _can_elect_last_known_leader(self) -> bool:
        if not self._elr_enabled or not self._use_last_known_leader:
            return False
        if self._target_elr or self._target_isr:
            return False
        # Whether the last known leader is alive is only logged by Kafka, never checked.
        return len(self._partition.last_known_elr) == 1

    def elect_leader(self) -> ElectionResult:
        """``electLeader``: the leader this builder would choose now, and whether it is unclean.

        Returns:
            The chosen node (``NO_LEADER`` when none) and the unclean flag.
        """
        partition = self._partition
        if self._election is Election.PREFERRED:
            if self._target_replicas and self._is_valid_new_leader(self._target_replicas[0]):
                return ElectionResult(self._target_replicas[0], False)
            if self._is_valid_new_leader(partition.leader):
                return ElectionResult(partition.leader, False)
            for replica in self._target_replicas[1:]:
                if self._is_valid_new_leader(replica):
                    return ElectionResult(replica, False)
            if self._can_elect_last_known_leader():
                return ElectionResult(partition.last_known_elr[0], True)
            return ElectionResult(NO_LEADER, False)
        if self._is_valid_new_leader(partition.leader):
            return ElectionResult(partition.leader, False)
        for replica in self._target_replicas:
            if self._is_valid_new_leader(replica):
                return ElectionResult(replica, False)
        if self._can_elect_last_known_leader():
            return ElectionResult(partition.last_known_elr[0], True)
        if self._election is Election.UNCLEAN:
            for replica in self._target_replicas:
                if self._is_acceptable_leader(replica):
                    return ElectionResult(replica, True)
        return ElectionResult(NO_LEADER, False)

    def _try_election(self, draft: _Draft) -> tuple[ElectionResult, bool]:
        result = self.elect_leader()
        from_elr = False
        partition = self._partition
        if result.node != partition.leader:
            if result.node in self._target_elr:
                from_elr = True
                self._target_isr = (result.node,)
                self._target_elr = tuple(r for r in self._target_elr if r != result.node)
            draft.leader = result.node
            if result.unclean:
                # An unclean leader takes an ISR of itself alone: this can lose data.
                draft.isr = (result.node,)
                if (
                    partition.leader_recovery_state is not LeaderRecoveryState.RECOVERING
                    and self._metadata_version.is_leader_recovery_supported()
                ):
                    draft.leader_recovery_state = LeaderRecoveryState.RECOVERING
        return result, from_elr

    # -- leader epoch bumps --------------------------------------------------------------------

    def _bump_for_reassignment(self, draft: _Draft) -> None:
        if draft.leader != NO_LEADER_CHANGE:
            return
        if not set(self._partition.replicas) <= set(self._target_replicas):
            draft.leader = self._partition.leader

    def _zk_migration(self) -> bool:
        # Trunk (4.0) removed setZkMigrationEnabled: the bump then depends on the MV alone.
        return self._zk_migration_enabled and self._release < _TRUNK

    def _bump_for_isr_shrink(self, draft: _Draft) -> None:
        if not (
            self._metadata_version.is_leader_epoch_bump_required_on_isr_shrink()
            or self._zk_migration()
        ):
            return
        if draft.leader != NO_LEADER_CHANGE or draft.isr is None:
            return
        if not set(self._partition.isr) <= set(draft.isr):
            draft.leader = self._partition.leader

    def trigger_leader_epoch_bump_for_replica_reassignment_if_needed(
        self, record: PartitionChangeRecord
    ) -> PartitionChangeRecord:
        """Set ``leader`` to the current leader when a current replica leaves the assignment.

        Args:
            record: the record being built.

        Returns:
            The record, with the leader field set when a bump is needed.
        """
        draft = _Draft(record)
        self._bump_for_reassignment(draft)
        return draft.freeze()

    def trigger_leader_epoch_bump_for_isr_shrink_if_needed(
        self, record: PartitionChangeRecord
    ) -> PartitionChangeRecord:
        """Set ``leader`` to the current leader when the record's ISR drops a member.

        Only before MV ``3.6-IV0`` (KAFKA-15021) or under ZK migration, and only when the
        record sets an ISR and does not already change the leader.

        Args:
            record: the record being built (its ISR already set).

        Returns:
            The record, with the leader field set when a bump is needed.
        """
        draft = _Draft(record)
        self._bump_for_isr_shrink(draft)
        return draft.freeze()

    # -- reassignment and ELR ------------------------------------------------------------------

    def _complete_reassignment_if_needed(self) -> None:
        layout = ReassignmentReplicas(
            self._target_removing, self._target_adding, self._target_replicas
        )
        completed = layout.maybe_complete(self._target_isr)
        if completed is None:
            return
        self._target_isr = completed.isr
        self._target_replicas = completed.replicas
        self._target_removing = ()
        self._target_adding = ()

    def _maybe_populate_target_elr(self) -> None:
        if not self._elr_enabled:
            return
        if len(self._target_isr) >= self._min_isr:
            self._target_elr = ()
            self._target_last_known_elr = ()
            return
        target_isr = set(self._target_isr)
        unclean = set(self._unclean_shutdown_replicas or ())
        # Kafka collects both lists from one HashSet<Integer>: its iteration order is the
        # order written into the record.
        candidates = JavaIntHashSet(self._target_elr)
        for replica in self._partition.isr:
            candidates.add(replica)
        self._target_elr = tuple(r for r in candidates if r not in target_isr and r not in unclean)
        elr = set(self._target_elr)
        for replica in self._target_last_known_elr:
            candidates.add(replica)
        self._target_last_known_elr = tuple(
            r for r in candidates if r not in target_isr and r not in elr
        )

    def _maybe_update_record_elr(self, draft: _Draft) -> None:
        partition = self._partition
        clean_election = draft.isr is None
        if not clean_election or not self._elr_enabled:
            self._target_elr = ()
            self._target_last_known_elr = ()
        if self._target_elr != partition.elr:
            draft.eligible_leader_replicas = self._target_elr
        if (
            self._use_last_known_leader
            and len(partition.last_known_elr) == 1
            and (
                draft.leader == NO_LEADER
                or (draft.leader == NO_LEADER_CHANGE and partition.leader == NO_LEADER)
            )
        ):
            # The stored last known leader stays while the partition has no leader.
            self._target_last_known_elr = partition.last_known_elr
        if self._use_last_known_leader:
            return  # written by _maybe_update_last_known_leader
        if self._target_last_known_elr != partition.last_known_elr:
            draft.last_known_elr = self._target_last_known_elr

    def _maybe_update_last_known_leader(self, draft: _Draft) -> None:
        if not self._use_last_known_leader or not self._elr_enabled:
            return
        partition = self._partition
        if (
            draft.isr is not None
            and not draft.isr
            and (
                len(partition.last_known_elr) != 1
                or partition.last_known_elr[0] != partition.leader
            )
        ):
            # Only the first time the partition becomes leaderless.
            draft.last_known_elr = (partition.leader,)
        elif (
            draft.leader >= 0 or (partition.leader != NO_LEADER and draft.leader != NO_LEADER)
        ) and partition.last_known_elr:
            # The partition has (or keeps) a valid leader: forget the last known one.
            draft.last_known_elr = ()

    def _set_assignment_changes(self, draft: _Draft) -> None:
        partition = self._partition
        if self._target_replicas:
            if self._metadata_version.is_directory_assignment_supported():
                directories = tuple(
                    self._target_directories.get(r) or self._default_dir_provider(r)
                    for r in self._target_replicas
                )
                if directories != partition.directories:
                    draft.directories = directories
            if self._target_replicas != partition.replicas:
                draft.replicas = self._target_replicas
        if self._target_removing != partition.removing_replicas:
            draft.removing_replicas = self._target_removing
        if self._target_adding != partition.adding_replicas:
            draft.adding_replicas = self._target_adding

    # -- build ---------------------------------------------------------------------------------

    def build(self) -> BuildResult:
        """``build()``: the PartitionChangeRecord for the targets, or None if nothing changes.

        Returns:
            The record (or None), its version, and the election that was run.
        """
        partition = self._partition
        draft = _Draft(PartitionChangeRecord(self._partition_id, self._topic_id))
        self._complete_reassignment_if_needed()
        self._maybe_populate_target_elr()
        election, from_elr = self._try_election(draft)
        self._bump_for_reassignment(draft)
        self._maybe_update_record_elr(draft)
        # The ISR may only become empty when ELR is on.
        if (
            draft.isr is None
            and (self._target_isr or self._elr_enabled)
            and self._target_isr != partition.isr
        ):
            draft.isr = self._target_isr
        self._bump_for_isr_shrink(draft)
        self._maybe_update_last_known_leader(draft)
        self._set_assignment_changes(draft)
        if self._target_leader_recovery_state is not partition.leader_recovery_state:
            draft.leader_recovery_state = self._target_leader_recovery_state
        record = draft.freeze()
        version = self._metadata_version.partition_change_record_version(self._release)
        return BuildResult(None if record.is_no_op() else record, version, election, from_elr)
