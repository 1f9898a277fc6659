"""Translation between oracle-case JSON values and the core's types (ZooKeeper-mode levels).

Parsing of ``leader_and_isr`` objects, partition names and enum names on the way in, and
rendering of leaderships, partitions and enums as the plain JSON values cases compare against
on the way out. Bad input raises ``OracleInputError`` (the runner turns it into an error result).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafkactl_core.model import NO_LEADER, LeaderAndIsr, LeaderRecoveryState, TopicPartition


class OracleInputError(ValueError):
    """A case's input cannot be read (a missing key, a value of the wrong shape)."""


def parse_tp(name: str) -> TopicPartition:
    """``t-0`` -> TopicPartition."""
    try:
        return TopicPartition.parse(name)
    except ValueError as exc:
        raise OracleInputError(str(exc)) from exc


def parse_recovery(value: Any) -> LeaderRecoveryState:
    """``RECOVERED`` / ``RECOVERING`` (or 0/1)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return LeaderRecoveryState(value)
    try:
        return LeaderRecoveryState[str(value)]
    except KeyError as exc:
        raise OracleInputError(f"not a leader recovery state: {value!r}") from exc


def parse_leader_and_isr(obj: Mapping[str, Any]) -> LeaderAndIsr:
    """A case's ``leader_and_isr`` object (missing fields take Kafka's initial values)."""
    if not isinstance(obj, Mapping):
        raise OracleInputError(f"not a leader_and_isr object: {obj!r}")
    epoch = obj.get("partition_epoch", obj.get("zk_version", 0))
    return LeaderAndIsr(
        int(obj.get("leader", NO_LEADER)),
        int(obj.get("leader_epoch", 0)),
        tuple(int(b) for b in obj.get("isr", ())),
        int(epoch),
        parse_recovery(obj.get("leader_recovery_state", "RECOVERED")),
    )


def parse_leaderships(raw: Mapping[str, Any]) -> dict[TopicPartition, LeaderAndIsr]:
    """A case's ``{partition name: leader_and_isr object}`` mapping."""
    return {parse_tp(str(name)): parse_leader_and_isr(lai) for name, lai in raw.items()}


def render_leader_and_isr(lai: LeaderAndIsr | None) -> dict[str, Any] | None:
    """A leadership as the JSON object cases assert on (both epoch names given)."""
    if lai is None:
        return None
    return {
        "leader": lai.leader,
        "leader_epoch": lai.leader_epoch,
        "isr": list(lai.isr),
        "partition_epoch": lai.partition_epoch,
        "zk_version": lai.partition_epoch,
        "leader_recovery_state": lai.leader_recovery_state.name,
    }


def ints(value: Any) -> tuple[int, ...]:
    """A list of broker ids."""
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        raise OracleInputError(f"not a list of broker ids: {value!r}")
    return tuple(int(v) for v in value)


def require(mapping: Mapping[str, Any], key: str) -> Any:
    """``mapping[key]`` or an ``OracleInputError`` naming the key."""
    if key not in mapping:
        raise OracleInputError(f"missing input key {key!r}")
    return mapping[key]
