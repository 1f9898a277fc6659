"""The JSON payloads Kafka writes to ZooKeeper, by release (``reference/ZNODES.md``).

Key order follows the Scala maps Kafka serialises (ZNODES.md lists the orders Scala 2.11 and
2.13 produce); readers parse JSON and never depend on it. Partition maps inside topic znodes
are written in partition order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import LeaderAndIsr, LeaderRecoveryState, TopicPartition


def _dump(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def broker_registration(
    broker: int, timestamp_ms: int, *, version: int, scala_213: bool, port: int = 9092
) -> str:
    """``/brokers/ids/<id>``: v4 (Scala 2.11/2.12 hash order) or v5 (2.13 order, ``features``).

    Args:
        broker: the broker id; the host is ``kafka-<id>``.
        timestamp_ms: registration time.
        version: the registration JSON version (4 or 5).
        scala_213: the build's Scala version is 2.13.
        port: the PLAINTEXT port.

    Returns:
        The JSON text.
    """
    host = f"kafka-{broker}"
    endpoints = [f"PLAINTEXT://{host}:{port}"]
    protocols = {"PLAINTEXT": "PLAINTEXT"}
    stamp = str(timestamp_ms)
    if version >= 5 and scala_213:
        return _dump(
            {
                "features": {},
                "listener_security_protocol_map": protocols,
                "endpoints": endpoints,
                "jmx_port": -1,
                "port": port,
                "host": host,
                "version": version,
                "timestamp": stamp,
            }
        )
    body: dict[str, object] = {
        "listener_security_protocol_map": protocols,
        "endpoints": endpoints,
        "jmx_port": -1,
    }
    if version >= 5:
        body["features"] = {}
    body.update({"host": host, "timestamp": stamp, "port": port, "version": version})
    return _dump(body)


def topic_assignment(
    assignment: Mapping[int, ReplicaAssignment], *, version: int, topic_id: str | None = None
) -> str:
    """``/brokers/topics/<topic>``: v1 (up to 2.3) or v3 (2.8+, Scala 2.13 order, ``topic_id``).

    Args:
        assignment: replicas per partition number (with adding/removing replicas, 2.4+).
        version: 1 or 3.
        topic_id: the topic id (v3).

    Returns:
        The JSON text.
    """
    parts = {str(p): list(assignment[p].replicas) for p in sorted(assignment)}
    if version == 1:
        return _dump({"version": 1, "partitions": parts})
    adding = {str(p): list(a.adding) for p, a in sorted(assignment.items()) if a.adding}
    removing = {str(p): list(a.removing) for p, a in sorted(assignment.items()) if a.removing}
    body: dict[str, object] = {"partitions": parts}
    if topic_id is not None:
        body["topic_id"] = topic_id
    body.update({"adding_replicas": adding, "removing_replicas": removing, "version": version})
    return _dump(body)


def partition_state(leadership: LeaderAndIsr, controller_epoch: int) -> str:
    """``.../partitions/<p>/state``: leader, epochs and ISR (recovery state when RECOVERING)."""
    body: dict[str, object] = {
        "controller_epoch": controller_epoch,
        "leader": leadership.leader,
        "version": 1,
    }
    if leadership.leader_recovery_state is not LeaderRecoveryState.RECOVERED:
        body["leader_recovery_state"] = leadership.leader_recovery_state.value
    body.update({"leader_epoch": leadership.leader_epoch, "isr": list(leadership.isr)})
    return _dump(body)


def controller(broker: int, timestamp_ms: int) -> str:
    """``/controller`` (v1, up to 3.3)."""
    return _dump({"version": 1, "brokerid": broker, "timestamp": str(timestamp_ms)})


def topic_config(config: Mapping[str, object]) -> str:
    """``/config/topics/<topic>``: every value as a string."""
    values = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in config.items()}
    return _dump({"version": 1, "config": values})


def config_change(entity_path: str) -> str:
    """``/config/changes/config_change_<n>``."""
    return _dump({"version": 2, "entity_path": entity_path})


def isr_change_notification(partitions: Sequence[TopicPartition]) -> str:
    """``/isr_change_notification/isr_change_<n>`` (pre-2.7 leaders)."""
    return _dump(
        {
            "version": 1,
            "partitions": [{"topic": tp.topic, "partition": tp.partition} for tp in partitions],
        }
    )


def reassign_partitions(targets: Mapping[TopicPartition, Sequence[int]]) -> str:
    """``/admin/reassign_partitions`` (the legacy reassignment trigger)."""
    return _dump(
        {
            "version": 1,
            "partitions": [
                {"topic": tp.topic, "partition": tp.partition, "replicas": list(r)}
                for tp, r in targets.items()
            ],
        }
    )


def cluster_id(identifier: str) -> str:
    """``/cluster/id`` (its ``version`` is a string)."""
    return _dump({"version": "1", "id": identifier})


def feature_znode() -> str:
    """``/feature`` as a 2.7/2.8 controller creates it (enabled, no finalized features)."""
    return _dump({"features": {}, "version": 1, "status": 1})
