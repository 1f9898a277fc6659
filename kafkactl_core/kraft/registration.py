"""A KRaft partition's registration and how records change it (``PartitionRegistration``).

``merge`` is the replay rule of a PartitionChangeRecord: every set field replaces the old value,
a set ``leader`` (even the same leader) bumps the leader epoch, and every record bumps the
partition epoch. A PartitionRecord replaces the whole registration, epochs taken verbatim.
Directories default to MIGRATING for each replica when a record carries none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from kafkactl_core.kraft import directory_ids
from kafkactl_core.kraft.metadata_version import REFERENCE_RELEASE, MetadataVersion
from kafkactl_core.kraft.records import (
    NO_LEADER_CHANGE,
    PartitionChangeRecord,
    PartitionRecord,
    RecordAndVersion,
)
from kafkactl_core.model import NO_LEADER, LeaderRecoveryState
from kafkactl_core.versions import KafkaRelease

Ids = tuple[int, ...]


_T = TypeVar("_T")


def _set_or(change: _T | None, current: _T) -> _T:
    """A change record's field: its value when the record sets it, else the current one."""
    return current if change is None else change


def _default_to_migrating(directories: tuple[str, ...], replicas: int) -> tuple[str, ...]:
    if directories:
        return directories
    return (directory_ids.MIGRATING,) * replicas


@dataclass(frozen=True, slots=True)
class PartitionRegistration:
    """A partition as the KRaft controller holds it.

    Attributes:
        replicas: the assignment, preferred replica first.
        isr: in-sync replicas, in the order the controller keeps them.
        leader: leader broker id, ``NO_LEADER`` (-1) when none.
        leader_epoch: bumped whenever a record sets the leader field.
        partition_epoch: bumped by every PartitionChangeRecord.
        leader_recovery_state: KIP-704 state.
        removing_replicas: replicas a reassignment removes.
        adding_replicas: replicas a reassignment adds.
        directories: directory id per replica (MIGRATING when unknown).
        elr: Eligible Leader Replicas (KIP-966).
        last_known_elr: last-known ELR, or the last known leader.
    """

    replicas: Ids
    isr: Ids
    leader: int = NO_LEADER
    leader_epoch: int = 0
    partition_epoch: int = 0
    leader_recovery_state: LeaderRecoveryState = LeaderRecoveryState.RECOVERED
    removing_replicas: Ids = ()
    adding_replicas: Ids = ()
    directories: tuple[str, ...] = ()
    elr: Ids = ()
    last_known_elr: Ids = ()

    def __post_init__(self) -> None:
        # Kafka's constructors fill missing directories with MIGRATING (defaultToMigrating).
        if not self.directories and self.replicas:
            object.__setattr__(
                self, "directories", _default_to_migrating(self.directories, len(self.replicas))
            )

    @classmethod
    def from_record(cls, record: PartitionRecord) -> PartitionRegistration:
        """The registration a PartitionRecord describes."""
        return cls(
            replicas=record.replicas,
            isr=record.isr,
            leader=record.leader,
            leader_epoch=record.leader_epoch,
            partition_epoch=record.partition_epoch,
            leader_recovery_state=record.leader_recovery_state,
            removing_replicas=record.removing_replicas,
            adding_replicas=record.adding_replicas,
            directories=record.directories,
            elr=record.eligible_leader_replicas or (),
            last_known_elr=record.last_known_elr or (),
        )

    def to_record(
        self,
        topic_id: str,
        partition_id: int,
        metadata_version: MetadataVersion,
        release: KafkaRelease = REFERENCE_RELEASE,
    ) -> RecordAndVersion:
        """``PartitionRegistration.toRecord``: the PartitionRecord written for this state.

        Directories are written from ``3.7-IV2``, ELR fields only when ELR is supported.

        Args:
            topic_id: the topic id.
            partition_id: the partition number.
            metadata_version: the MV in force.
            release: the controller's Kafka release.

        Returns:
            The record with the version the MV writes.
        """
        with_elr = metadata_version.is_elr_supported(release)
        record = PartitionRecord(
            partition_id=partition_id,
            topic_id=topic_id,
            replicas=self.replicas,
            isr=self.isr,
            removing_replicas=self.removing_replicas,
            adding_replicas=self.adding_replicas,
            leader=self.leader,
            leader_recovery_state=self.leader_recovery_state,
            leader_epoch=self.leader_epoch,
            partition_epoch=self.partition_epoch,
            directories=(
                self.directories if metadata_version.is_directory_assignment_supported() else ()
            ),
            eligible_leader_replicas=self.elr if with_elr else None,
            last_known_elr=self.last_known_elr if with_elr else None,
        )
        return RecordAndVersion(record, metadata_version.partition_record_version(release))

    def merge(self, record: PartitionChangeRecord) -> PartitionRegistration:
        """Replay a PartitionChangeRecord (``PartitionRegistration.merge``).

        Args:
            record: the change.

        Returns:
            The new registration: set fields replaced, leader epoch + 1 iff the leader field is
            set, partition epoch + 1 always.

        Raises:
            ValueError: when the record's directories do not match its replicas in length.
        """
        replicas = _set_or(record.replicas, self.replicas)
        if record.directories is None:
            directories = self.directories
        else:
            if len(record.directories) != len(replicas):
                raise ValueError(
                    f"The lengths for replicas and directories do not match: "
                    f"{list(replicas)} vs {list(record.directories)}"
                )
            directories = record.directories
        if record.leader == NO_LEADER_CHANGE:
            leader, leader_epoch = self.leader, self.leader_epoch
        else:
            leader, leader_epoch = record.leader, self.leader_epoch + 1
        return PartitionRegistration(
            replicas=replicas,
            isr=_set_or(record.isr, self.isr),
            leader=leader,
            leader_epoch=leader_epoch,
            partition_epoch=self.partition_epoch + 1,
            leader_recovery_state=_set_or(record.leader_recovery_state, self.leader_recovery_state),
            removing_replicas=_set_or(record.removing_replicas, self.removing_replicas),
            adding_replicas=_set_or(record.adding_replicas, self.adding_replicas),
            directories=_default_to_migrating(directories, len(replicas)),
            elr=_set_or(record.eligible_leader_replicas, self.elr),
            last_known_elr=_set_or(record.last_known_elr, self.last_known_elr),
        )

    @property
    def has_leader(self) -> bool:
        """Whether a leader is set."""
        return self.leader != NO_LEADER

    @property
    def preferred_replica(self) -> int:
        """The first assigned replica, ``NO_LEADER`` when there is none."""
        return self.replicas[0] if self.replicas else NO_LEADER

    @property
    def has_preferred_leader(self) -> bool:
        """Whether the leader is the preferred replica."""
        return self.leader == self.preferred_replica

    @property
    def is_reassignment_in_progress(self) -> bool:
        """Whether replicas are being added or removed."""
        return bool(self.removing_replicas or self.adding_replicas)

    def directory(self, replica: int) -> str:
        """The directory of ``replica``; UNASSIGNED for a broker not in the assignment.

        (Kafka throws there; a candidate outside the assignment can only come from a target
        replica list, and UNASSIGNED keeps it online, which is what the election needs.)
        """
        for index, broker in enumerate(self.replicas):
            if broker == replica:
                return (
                    self.directories[index]
                    if index < len(self.directories)
                    else (directory_ids.MIGRATING)
                )
        return directory_ids.UNASSIGNED


def election_was_clean(new_leader: int, previous_isr: Ids) -> bool:
    """``PartitionRegistration.electionWasClean``: no leader, or a leader from the old ISR.

    This is what the controller's ``UNCLEAN partition change`` log line tests; an ELR election
    fails it although the builder treats it as clean.
    """
    return new_leader == NO_LEADER or new_leader in previous_isr
