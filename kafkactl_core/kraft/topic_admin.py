"""Topic administration in the KRaft controller: CreateTopics, CreatePartitions, DeleteTopics.

New partitions get the active replicas as ISR (assignment order) and the first as leader, at
epochs 0; placement follows ``StripedReplicaPlacer``'s rules (see ``placement``) unless the
caller supplies the assignment or the placement Kafka chose. Errors carry Kafka's messages.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping, Sequence

from kafkactl_core.kraft.configs import (
    ConfigResourceType,
    validate_config,
)
from kafkactl_core.kraft.controller import ControllerBase, OpResult, PendingOp
from kafkactl_core.kraft.errors import NO_ERROR, ApiError, Errors
from kafkactl_core.kraft.placement import PlacementError, UsableBroker, place
from kafkactl_core.kraft.records import (
    ConfigRecord,
    RemoveTopicRecord,
    TopicRecord,
)
from kafkactl_core.kraft.registration import PartitionRegistration

_TOPIC_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
_MAX_TOPIC_NAME = 249


def _topic_name_error(name: str, existing: Sequence[str]) -> ApiError | None:
    if not name:
        return ApiError(Errors.INVALID_TOPIC_EXCEPTION, "Topic name is illegal, it can't be empty")
    if name in (".", ".."):
        return ApiError(Errors.INVALID_TOPIC_EXCEPTION, 'Topic name cannot be "." or ".."')
    if len(name) > _MAX_TOPIC_NAME:
        return ApiError(
            Errors.INVALID_TOPIC_EXCEPTION,
            f"Topic name is illegal, it can't be longer than {_MAX_TOPIC_NAME} characters, "
            f"topic name: {name}",
        )
    if not set(name) <= _TOPIC_NAME_CHARS:
        return ApiError(
            Errors.INVALID_TOPIC_EXCEPTION,
            f'Topic name "{name}" is illegal, it contains a character other than ASCII '
            "alphanumerics, '.', '_' and '-'",
        )
    if "." in name or "_" in name:
        unified = name.replace(".", "_")
        for other in existing:
            if other != name and other.replace(".", "_") == unified:
                return ApiError(
                    Errors.INVALID_TOPIC_EXCEPTION,
                    f"Topic '{name}' collides with existing topic: {other}",
                )
    return None


class TopicAdmin(ControllerBase):
    """CreateTopics, CreatePartitions, DeleteTopics."""

    # -- topics and partitions -----------------------------------------------------------------

    def allocate_topic_id(self, name: str) -> str:
        """A fresh topic id (deterministic per cluster, never starting with '-' like Kafka's)."""
        while True:
            self._topic_counter += 1
            raw = uuid.uuid5(uuid.NAMESPACE_URL, f"kafkactl-audit:{name}:{self._topic_counter}")
            text = base64.urlsafe_b64encode(raw.bytes).decode("ascii").rstrip("=")
            if not text.startswith("-") and self.topic_by_id(text) is None:
                return text

    def _usable_brokers(self) -> list[UsableBroker]:
        return [
            UsableBroker(broker_id, registration.fenced)
            for broker_id, registration in self.brokers.items()
            if not self.in_heartbeat_controlled_shutdown(broker_id)
        ]

    def _new_partition(self, replicas: Sequence[int], isr: Sequence[int]) -> PartitionRegistration:
        return PartitionRegistration(
            replicas=tuple(replicas),
            isr=tuple(isr),
            leader=isr[0],
            directories=tuple(self.default_dir(b) for b in replicas),
        )

    def _placements(
        self,
        start: int,
        count: int,
        replication_factor: int,
        assumed: Mapping[int, Sequence[int]] | None,
    ) -> list[tuple[int, ...]]:
        wanted = range(start, start + count)
        if assumed is not None and all(number in assumed for number in wanted):
            return [tuple(assumed[number]) for number in wanted]
        placed = place(self._usable_brokers(), start, count, replication_factor)
        if assumed is not None:
            placed = [
                tuple(assumed[number]) if number in assumed else replicas
                for number, replicas in zip(wanted, placed, strict=True)
            ]
        return placed

    def create_topic(
        self,
        name: str,
        *,
        assignment: Mapping[int, Sequence[int]] | None = None,
        num_partitions: int = -1,
        replication_factor: int = -1,
        configs: Mapping[str, str | None] | None = None,
        placement: Mapping[int, Sequence[int]] | None = None,
    ) -> OpResult[ApiError]:
        """CreateTopics for one topic.

        Each partition's ISR is its active replicas (assignment order), led by the first.

        Args:
            name: topic name.
            assignment: manual assignment by partition number (then RF and count must be -1).
            num_partitions: partition count, -1 for the default.
            replication_factor: replicas per partition, -1 for the default.
            configs: topic configs to create it with.
            placement: the placement Kafka's random placer chose, when known.

        Returns:
            NONE or Kafka's error and message.
        """
        error = _topic_name_error(name, self.topic_names())
        if error is None and self.topic_id(name) is not None:
            error = ApiError(Errors.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        configs = dict(configs or {})
        if error is None:
            nulls = [key for key, value in configs.items() if value is None]
            if nulls:
                error = ApiError(
                    Errors.INVALID_CONFIG,
                    "Null value not supported for topic configs: " + ",".join(nulls),
                )
        for key, value in configs.items():
            error = error or validate_config(key, value)
        new_parts: dict[int, PartitionRegistration] = {}
        if error is None:
            error = self._plan_topic(
                new_parts, assignment, num_partitions, replication_factor, placement
            )
        if error is not None:
            return OpResult((), error)
        op = PendingOp()
        topic_id = self.allocate_topic_id(name)
        op.add(TopicRecord(name, topic_id))
        for key, value in configs.items():
            op.add(ConfigRecord(ConfigResourceType.TOPIC, name, key, value))
        for number, partition in new_parts.items():
            written = partition.to_record(topic_id, number, self.metadata_version, self.release)
            op.records.append(written)
        return self._commit(op, NO_ERROR)

    def _plan_topic(
        self,
        new_parts: dict[int, PartitionRegistration],
        assignment: Mapping[int, Sequence[int]] | None,
        num_partitions: int,
        replication_factor: int,
        placement: Mapping[int, Sequence[int]] | None,
    ) -> ApiError | None:
        if assignment:
            if replication_factor != -1:
                return ApiError(
                    Errors.INVALID_REQUEST,
                    "A manual partition assignment was specified, but replication factor was "
                    "not set to -1.",
                )
            if num_partitions != -1:
                return ApiError(
                    Errors.INVALID_REQUEST,
                    "A manual partition assignment was specified, but numPartitions was not "
                    "set to -1.",
                )
            factor: int | None = None
            for number, replicas in assignment.items():
                error = self._validate_manual_assignment(replicas, factor)
                if error is not None:
                    return error
                factor = len(replicas)
                isr = [r for r in replicas if self.is_active(r)]
                if not isr:
                    return ApiError(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        f"All brokers specified in the manual partition assignment for "
                        f"partition {number} are fenced or in controlled shutdown.",
                    )
                new_parts[int(number)] = self._new_partition(replicas, isr)
            if sorted(new_parts) != list(range(len(new_parts))):
                return ApiError(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "partitions should be a consecutive 0-based integer sequence",
                )
            return None
        if replication_factor < -1 or replication_factor == 0:
            return ApiError(
                Errors.INVALID_REPLICATION_FACTOR,
                "Replication factor must be larger than 0, or -1 to use the default value.",
            )
        if num_partitions < -1 or num_partitions == 0:
            return ApiError(
                Errors.INVALID_PARTITIONS,
                "Number of partitions was set to an invalid non-positive value.",
            )
        count = self.settings.default_num_partitions if num_partitions == -1 else num_partitions
        factor = (
            self.settings.default_replication_factor
            if replication_factor == -1
            else replication_factor
        )
        try:
            placed = self._placements(0, count, factor, placement)
        except PlacementError as failed:
            return ApiError(
                Errors.INVALID_REPLICATION_FACTOR,
                f"Unable to replicate the partition {factor} time(s): {failed}",
            )
        for number, replicas in enumerate(placed):
            isr = [r for r in replicas if self.is_active(r)]
            if not isr:
                return ApiError(
                    Errors.INVALID_REPLICATION_FACTOR,
                    f"Unable to replicate the partition {factor} time(s): All brokers are "
                    "currently fenced or in controlled shutdown.",
                )
            new_parts[number] = self._new_partition(replicas, isr)
        return None

    def create_partitions(
        self,
        name: str,
        count: int,
        *,
        assignment: Sequence[Sequence[int]] | None = None,
        placement: Mapping[int, Sequence[int]] | None = None,
    ) -> OpResult[ApiError]:
        """CreatePartitions: grow a topic to ``count`` partitions.

        Args:
            name: topic name.
            count: the new total number of partitions.
            assignment: replicas of each new partition, in order.
            placement: the placement Kafka's random placer chose, by partition number.

        Returns:
            NONE or Kafka's error and message. As in Kafka, partitions written before a
            failing one stay written.
        """
        topic = self.topic(name)
        if topic is None:
            return OpResult((), ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION))
        existing = len(topic.partitions)
        if count == existing:
            return OpResult(
                (),
                ApiError(Errors.INVALID_PARTITIONS, f"Topic already has {existing} partition(s)."),
            )
        if count < existing:
            return OpResult(
                (),
                ApiError(
                    Errors.INVALID_PARTITIONS,
                    f"The topic {name} currently has {existing} partition(s); {count} would not "
                    "be an increase.",
                ),
            )
        additional = count - existing
        if assignment is not None and len(assignment) != additional:
            return OpResult(
                (),
                ApiError(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    f"Attempted to add {additional} additional partition(s), but only "
                    f"{len(assignment)} assignment(s) were specified.",
                ),
            )
        first = next(iter(topic.partitions.values()), None)
        if first is None:
            return OpResult(
                (),
                ApiError(
                    Errors.UNKNOWN_SERVER_ERROR,
                    f"Invalid state: topic {name} appears to have no partitions.",
                ),
            )
        factor = len(first.replicas)
        if assignment is not None:
            placed = []
            for offset, replicas in enumerate(assignment):
                error = self._validate_manual_assignment(replicas, factor)
                if error is not None:
                    return OpResult((), error)
                if not any(self.is_active(r) for r in replicas):
                    return OpResult(
                        (),
                        ApiError(
                            Errors.INVALID_REPLICA_ASSIGNMENT,
                            f"All brokers specified in the manual partition assignment for "
                            f"partition {existing + offset} are fenced or in controlled "
                            "shutdown.",
                        ),
                    )
                placed.append(tuple(replicas))
        else:
            try:
                placed = self._placements(existing, additional, factor, placement)
            except PlacementError as failed:
                return OpResult((), ApiError(Errors.INVALID_REPLICATION_FACTOR, str(failed)))
        op = PendingOp()
        response = NO_ERROR
        for offset, replicas in enumerate(placed):
            isr = [r for r in replicas if self.is_active(r)]
            if not isr:
                response = ApiError(
                    Errors.INVALID_REPLICATION_FACTOR,
                    f"Unable to replicate the partition {factor} time(s): All brokers are "
                    "currently fenced or in controlled shutdown.",
                )
                break
            partition = self._new_partition(replicas, isr)
            op.records.append(
                partition.to_record(
                    topic.topic_id, existing + offset, self.metadata_version, self.release
                )
            )
        return self._commit(op, response)

    def delete_topic(self, name: str) -> OpResult[ApiError]:
        """DeleteTopics for one topic: a RemoveTopicRecord."""
        topic_id = self.topic_id(name)
        if topic_id is None:
            return OpResult((), ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION))
        op = PendingOp()
        op.add(RemoveTopicRecord(topic_id))
        return self._commit(op, NO_ERROR)
