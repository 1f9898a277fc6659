"""The iteration order of a ``java.util.HashSet<Integer>``, which decides ELR list order.

``PartitionChangeBuilder.maybePopulateTargetElr`` collects the new Eligible Leader Replicas and
last-known ELR from a ``HashSet<Integer>``, so the record lists them in hash-table order: by bucket
``(h ^ (h >>> 16)) & (capacity - 1)`` (``h`` the broker id), ties in insertion order. For small
broker ids that is ascending order; for ids such as 1001..1020 it is not.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

_DEFAULT_CAPACITY = 16
_LOAD_FACTOR = 0.75


def _table_size_for(capacity: int) -> int:
    size = 1
    while size < capacity:
        size <<= 1
    return size


def _bucket(value: int, capacity: int) -> int:
    h = value & 0xFFFFFFFF
    return (h ^ (h >> 16)) & (capacity - 1)


class JavaIntHashSet:
    """A set of ints that iterates like ``new HashSet<>(initial)`` followed by ``add`` calls."""

    __slots__ = ("_capacity", "_members", "_order")

    def __init__(self, initial: Iterable[int] = ()) -> None:
        """Start like ``new HashSet<>(collection)`` (or ``new HashSet<>()`` when empty).

        Args:
            initial: the collection the set is built from, in its iteration order.
        """
        items = list(initial)
        self._capacity = _table_size_for(max(int(len(items) / _LOAD_FACTOR) + 1, _DEFAULT_CAPACITY))
        self._members: set[int] = set()
        self._order: list[int] = []
        for item in items:
            self.add(item)

    def add(self, value: int) -> None:
        """``HashSet.add``: resizes (doubling) when the size passes 3/4 of the capacity."""
        if value in self._members:
            return
        self._members.add(value)
        self._order.append(value)
        if len(self._order) > self._capacity * _LOAD_FACTOR:
            self._capacity *= 2

    def __contains__(self, value: object) -> bool:
        return value in self._members

    def __len__(self) -> int:
        return len(self._order)

    def __iter__(self) -> Iterator[int]:
        position = {value: index for index, value in enumerate(self._order)}
        capacity = self._capacity
        return iter(sorted(self._order, key=lambda v: (_bucket(v, capacity), position[v])))
