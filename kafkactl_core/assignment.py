"""A partition's replica assignment, in and out of reassignments (Kafka's ``ReplicaAssignment``).

From 2.4 (KIP-455) the controller stores the full replica set RS together with the adding (AR)
and removing (RR) replicas; ``reassign_to`` lays RS out as ``(target ++ origin).distinct``.
Up to 2.3 RS was ``(RAR ++ OAR).toSet.toSeq``: the iteration order of a Scala 2.11/2.12
immutable ``Set``, which ``scala_set_order`` reproduces.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kafkactl_core.profiles import ReassignmentLayout


def _without(items: Sequence[int], removed: Iterable[int]) -> tuple[int, ...]:
    gone = set(removed)
    return tuple(i for i in items if i not in gone)


def _distinct(items: Iterable[int]) -> tuple[int, ...]:
    return tuple(dict.fromkeys(items))


@dataclass(frozen=True, slots=True)
class ReplicaAssignment:
    """The ordered replica set of a partition plus its in-flight reassignment, if any.

    Attributes:
        replicas: RS, in order; ``replicas[0]`` is the preferred leader.
        adding: AR, replicas being added by a reassignment.
        removing: RR, replicas being removed by a reassignment.
    """

    replicas: tuple[int, ...]
    adding: tuple[int, ...] = ()
    removing: tuple[int, ...] = ()

    @classmethod
    def of(
        cls, replicas: Sequence[int], adding: Sequence[int] = (), removing: Sequence[int] = ()
    ) -> ReplicaAssignment:
        """Build from any sequences."""
        return cls(tuple(replicas), tuple(adding), tuple(removing))

    @property
    def target_replicas(self) -> tuple[int, ...]:
        """TRS: ``replicas`` minus the removing replicas (order kept)."""
        return _without(self.replicas, self.removing) if self.removing else self.replicas

    @property
    def origin_replicas(self) -> tuple[int, ...]:
        """ORS: ``replicas`` minus the adding replicas (order kept)."""
        return _without(self.replicas, self.adding) if self.adding else self.replicas

    @property
    def is_being_reassigned(self) -> bool:
        """Whether a reassignment is in flight (some replica is being added or removed)."""
        return bool(self.adding or self.removing)

    @property
    def preferred(self) -> int | None:
        """The preferred leader (``replicas.head``), ``None`` for an empty assignment."""
        return self.replicas[0] if self.replicas else None

    def reassign_to(
        self, target: Sequence[int], layout: ReassignmentLayout = ReassignmentLayout.kip455
    ) -> ReplicaAssignment:
        """``ReplicaAssignment.reassignTo``: the assignment while moving to ``target``.

        Replacing an in-flight reassignment keeps the *origin* replicas as the base, so they are
        what is removed; reassigning to the origin set cancels (no adding/removing left).

        Args:
            target: TRS, in the requested order.
            layout: how RS is ordered (``kip455`` from 2.4, ``scala_set`` before).

        Returns:
            The new assignment.
        """
        origin = self.origin_replicas
        tgt = tuple(target)
        if layout is ReassignmentLayout.kip455:
            full = _distinct((*tgt, *origin))
        else:
            full = scala_set_order((*tgt, *origin))
        return ReplicaAssignment(full, _without(full, origin), _without(full, tgt))

    def remove_replica(self, replica: int) -> ReplicaAssignment:
        """``ReplicaAssignment.removeReplica``: drop a replica from every list."""
        return ReplicaAssignment(
            _without(self.replicas, (replica,)),
            _without(self.adding, (replica,)),
            _without(self.removing, (replica,)),
        )

    def completed(self) -> ReplicaAssignment:
        """The assignment once the reassignment is complete: RS = TRS, no AR/RR."""
        return ReplicaAssignment(self.target_replicas)


_MASK = 0xFFFFFFFF


def _scala212_improve(hcode: int) -> int:
    # scala.collection.immutable.HashSet.improve (2.11/2.12), in 32-bit two's complement.
    h = (hcode + (~(hcode << 9) & _MASK)) & _MASK
    h ^= h >> 14
    h = (h + (h << 4)) & _MASK
    return h ^ (h >> 10)


def _trie_key(value: int) -> tuple[int, ...]:
    h = _scala212_improve(value & _MASK)
    return tuple((h >> shift) & 0x1F for shift in range(0, 35, 5))


def scala_set_order(items: Iterable[int]) -> tuple[int, ...]:
    """Iteration order of ``items.toSet.toSeq`` for ints in Scala 2.11/2.12.

    Up to four distinct elements Scala uses ``Set1``..``Set4``, which iterate in insertion
    order; from five on a ``HashTrieSet`` iterates by the 5-bit chunks of the improved hash,
    lowest chunk first.

    Args:
        items: the elements in insertion order (duplicates ignored).

    Returns:
        The elements in the Set's iteration order.
    """
    distinct = _distinct(items)
    if len(distinct) <= 4:
        return distinct
    return tuple(sorted(distinct, key=_trie_key))
