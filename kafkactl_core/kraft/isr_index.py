"""Which partitions each broker is in the ISR (or ELR) of: ``BrokersToIsrs`` / ``BrokersToElrs``.

The controller finds the partitions to change when a broker is fenced, unfenced or shuts down
through these indexes, and visits them in the index's order: per broker, topics in the order
they entered the broker's map and, per topic, partitions in the order they were added (a
leadership change keeps the position). Leaderless partitions are filed under broker -1.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.model import NO_LEADER

_LEADER_FLAG = 1 << 31
_REPLICA_MASK = _LEADER_FLAG - 1

TopicIdPartition = tuple[str, int]
"""A partition by topic id and number."""


class _BrokerIndex:
    """broker -> topic id -> partition numbers (leader flag in the high bit)."""

    __slots__ = ("_members",)

    def __init__(self) -> None:
        self._members: dict[int, dict[str, list[int]]] = {}

    def _add(self, broker: int, topic_id: str, partition: int, leader: bool) -> None:
        entry = partition | _LEADER_FLAG if leader else partition
        self._members.setdefault(broker, {}).setdefault(topic_id, []).append(entry)

    def _remove(self, broker: int, topic_id: str, partition: int, leader: bool) -> None:
        entry = partition | _LEADER_FLAG if leader else partition
        topics = self._members.get(broker)
        parts = None if topics is None else topics.get(topic_id)
        if topics is None or parts is None or entry not in parts:
            return
        parts.remove(entry)
        if not parts:
            del topics[topic_id]
            if not topics:
                del self._members[broker]

    def _change(self, broker: int, topic_id: str, partition: int, leader: bool) -> None:
        parts = self._members.get(broker, {}).get(topic_id)
        if parts is None:
            return
        old = partition if leader else partition | _LEADER_FLAG
        new = partition | _LEADER_FLAG if leader else partition
        for index, entry in enumerate(parts):
            if entry == old:
                parts[index] = new

    def remove_topic(self, topic_id: str) -> None:
        """Forget a deleted topic for every broker."""
        for broker in list(self._members):
            topics = self._members[broker]
            topics.pop(topic_id, None)
            if not topics:
                del self._members[broker]

    def partitions(self, broker: int, leaders_only: bool = False) -> list[TopicIdPartition]:
        """The broker's partitions in index order (only those it leads with leaders_only)."""
        found: list[TopicIdPartition] = []
        for topic_id, parts in self._members.get(broker, {}).items():
            for entry in parts:
                if not leaders_only or entry & _LEADER_FLAG:
                    found.append((topic_id, entry & _REPLICA_MASK))
        return found

    def is_empty(self) -> bool:
        """Whether no broker has an entry."""
        return not self._members


class BrokersToIsrs(_BrokerIndex):
    """The ISR index, with leaderless partitions under ``NO_LEADER``."""

    __slots__ = ()

    def update(
        self,
        topic_id: str,
        partition: int,
        prev_isr: Sequence[int] | None,
        next_isr: Sequence[int] | None,
        prev_leader: int,
        next_leader: int,
    ) -> None:
        """``BrokersToIsrs.update``: move the partition between brokers' entries.

        Args:
            topic_id: the topic id.
            partition: the partition number.
            prev_isr: the previous ISR, None for a new partition.
            next_isr: the new ISR, None for a removed partition.
            prev_leader: the previous leader (``NO_LEADER`` when none).
            next_leader: the new leader.
        """
        prev = _with_no_leader(prev_isr, prev_leader)
        nxt = _with_no_leader(next_isr, next_leader)
        for broker in sorted(set(prev) | set(nxt)):
            if broker not in nxt:
                self._remove(broker, topic_id, partition, broker == prev_leader)
            elif broker not in prev:
                self._add(broker, topic_id, partition, broker == next_leader)
            elif (broker == prev_leader) != (broker == next_leader):
                self._change(broker, topic_id, partition, broker == next_leader)

    def partitions_with_broker_in_isr(self, broker: int) -> list[TopicIdPartition]:
        """Partitions whose ISR contains ``broker``."""
        return self.partitions(broker)

    def partitions_led_by(self, broker: int) -> list[TopicIdPartition]:
        """Partitions ``broker`` leads."""
        return self.partitions(broker, leaders_only=True)

    def partitions_with_no_leader(self) -> list[TopicIdPartition]:
        """Partitions without a leader."""
        return self.partitions(NO_LEADER, leaders_only=True)

    def has_leaderships(self, broker: int) -> bool:
        """Whether ``broker`` leads any partition."""
        return bool(self.partitions_led_by(broker))


class BrokersToElrs(_BrokerIndex):
    """The Eligible Leader Replicas index."""

    __slots__ = ()

    def update(
        self,
        topic_id: str,
        partition: int,
        prev_elr: Sequence[int] | None,
        next_elr: Sequence[int] | None,
    ) -> None:
        """``BrokersToElrs.update``: file the partition under its new ELR members."""
        prev = set(prev_elr or ())
        nxt = set(next_elr or ())
        for broker in sorted(prev | nxt):
            if broker not in nxt:
                self._remove(broker, topic_id, partition, False)
            elif broker not in prev:
                self._add(broker, topic_id, partition, False)

    def partitions_with_broker_in_elr(self, broker: int) -> list[TopicIdPartition]:
        """Partitions whose ELR contains ``broker``."""
        return self.partitions(broker)


def _with_no_leader(isr: Sequence[int] | None, leader: int) -> tuple[int, ...]:
    if isr is None:
        return ()
    if leader == NO_LEADER:
        return (*isr, NO_LEADER)
    return tuple(isr)
