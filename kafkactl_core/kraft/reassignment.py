"""KRaft partition reassignment arithmetic (``PartitionReassignmentReplicas`` and ``...Revert``).

A reassignment first writes ``replicas = target ++ removing`` with adding/removing sets; once the
ISR (without the removing replicas) holds every remaining replica, the builder completes it:
``isr = targetIsr - removing``, ``replicas = replicas - removing``, adding/removing emptied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kafkactl_core.kraft.registration import PartitionRegistration

Ids = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CompletedReassignment:
    """The assignment and ISR once a reassignment completes."""

    replicas: Ids
    isr: Ids


@dataclass(frozen=True, slots=True)
class ReassignmentReplicas:
    """Replicas, removing and adding sets of a reassignment in flight.

    Attributes:
        removing: replicas being removed.
        adding: replicas being added.
        replicas: the full replica list while the reassignment runs.
    """

    removing: Ids
    adding: Ids
    replicas: Ids

    @classmethod
    def between(cls, current: Sequence[int], target: Sequence[int]) -> ReassignmentReplicas:
        """The layout of a reassignment from ``current`` to ``target``.

        removing = sorted(current - target), adding = sorted(target - current),
        replicas = target ++ removing.
        """
        removing = tuple(sorted(set(current) - set(target)))
        adding = tuple(sorted(set(target) - set(current)))
        return cls(removing, adding, tuple(target) + removing)

    @property
    def in_progress(self) -> bool:
        """Whether anything is being added or removed."""
        return bool(self.removing or self.adding)

    def maybe_complete(self, target_isr: Sequence[int]) -> CompletedReassignment | None:
        """``maybeCompleteReassignment``: the completed layout, or None if not complete yet.

        Args:
            target_isr: the ISR the change would set.

        Returns:
            The layout without the removing replicas when every remaining replica is in the
            ISR (and both stay non-empty); None otherwise.
        """
        if not self.in_progress:
            return None
        isr = tuple(target_isr)
        replicas = self.replicas
        if self.removing:
            isr = tuple(r for r in target_isr if r not in self.removing)
            replicas = tuple(r for r in self.replicas if r not in self.removing)
        if not isr or not replicas:
            return None
        if any(r not in isr for r in replicas):
            return None
        return CompletedReassignment(replicas, isr)


@dataclass(frozen=True, slots=True)
class ReassignmentRevert:
    """``PartitionReassignmentRevert``: the assignment and ISR after cancelling a reassignment.

    Attributes:
        replicas: the replicas without those being added.
        isr: the ISR without those being added.
        unclean: True when no ISR member remains (reverting needs an unclean election).
    """

    replicas: Ids
    isr: Ids
    unclean: bool

    @classmethod
    def of(cls, partition: PartitionRegistration) -> ReassignmentRevert:
        """Revert the reassignment in flight on ``partition``."""
        adding = set(partition.adding_replicas)
        isr = tuple(r for r in partition.isr if r not in adding)
        replicas = tuple(r for r in partition.replicas if r not in adding)
        return cls(replicas, isr, not isr)
