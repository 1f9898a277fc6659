"""Replica placement for new topics and partitions (the rules of ``StripedReplicaPlacer``).

Kafka places replicas at random among the *usable* brokers (registered, not in heartbeat
controlled shutdown): the first replica always on an unfenced broker, fenced brokers only after
the unfenced ones. It fails when no broker is unfenced or when the replication factor exceeds
the usable brokers. This placer keeps those rules and is deterministic (a rotation over the
brokers in id order), so a replay is reproducible; a caller that knows the placement Kafka chose
passes it instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class UsableBroker:
    """A broker the placer may use."""

    broker_id: int
    fenced: bool


class PlacementError(Exception):
    """``InvalidReplicationFactorException`` from the placer, with Kafka's message."""


def place(
    brokers: Sequence[UsableBroker],
    start_partition: int,
    num_partitions: int,
    replication_factor: int,
) -> list[tuple[int, ...]]:
    """Assign replicas to ``num_partitions`` new partitions.

    Args:
        brokers: the usable brokers.
        start_partition: the first new partition's number (rotates the first replica).
        num_partitions: how many partitions to place.
        replication_factor: replicas per partition.

    Returns:
        One replica list per new partition.

    Raises:
        PlacementError: with Kafka's message when the placement is impossible.
    """
    if replication_factor <= 0:
        raise PlacementError(
            f"Invalid replication factor {replication_factor}: "
            "the replication factor must be positive."
        )
    unfenced = sorted(b.broker_id for b in brokers if not b.fenced)
    fenced = sorted(b.broker_id for b in brokers if b.fenced)
    if not unfenced:
        raise PlacementError("All brokers are currently fenced.")
    if replication_factor > len(unfenced) + len(fenced):
        raise PlacementError(
            f"The target replication factor of {replication_factor} cannot be reached because "
            f"only {len(unfenced) + len(fenced)} broker(s) are registered."
        )
    placements: list[tuple[int, ...]] = []
    for offset in range(num_partitions):
        shift = (start_partition + offset) % len(unfenced)
        order = unfenced[shift:] + unfenced[:shift] + fenced
        placements.append(tuple(order[:replication_factor]))
    return placements
