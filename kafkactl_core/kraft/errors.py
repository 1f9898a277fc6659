"""Kafka error codes the KRaft controller answers with, as values (``Errors`` / ``ApiError``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Errors(enum.Enum):
    """The ``org.apache.kafka.common.protocol.Errors`` the modelled requests can return."""

    NONE = 0
    UNKNOWN_SERVER_ERROR = -1
    UNKNOWN_TOPIC_OR_PARTITION = 3
    NOT_LEADER_OR_FOLLOWER = 6
    NOT_CONTROLLER = 41
    INVALID_REQUEST = 42
    INVALID_TOPIC_EXCEPTION = 17
    INVALID_PARTITIONS = 37
    INVALID_REPLICATION_FACTOR = 38
    INVALID_REPLICA_ASSIGNMENT = 39
    INVALID_CONFIG = 40
    TOPIC_ALREADY_EXISTS = 36
    STALE_BROKER_EPOCH = 77
    PREFERRED_LEADER_NOT_AVAILABLE = 80
    ELIGIBLE_LEADERS_NOT_AVAILABLE = 83
    ELECTION_NOT_NEEDED = 84
    NO_REASSIGNMENT_IN_PROGRESS = 85
    FENCED_LEADER_EPOCH = 74
    INVALID_UPDATE_VERSION = 95
    UNKNOWN_TOPIC_ID = 100
    BROKER_ID_NOT_REGISTERED = 102
    NEW_LEADER_ELECTED = 109
    OPERATION_NOT_ATTEMPTED = 55
    INELIGIBLE_REPLICA = 107


@dataclass(frozen=True, slots=True)
class ApiError:
    """An error code with its optional message (``ApiError``)."""

    error: Errors
    message: str | None = None

    @property
    def is_success(self) -> bool:
        """Whether the error is NONE."""
        return self.error is Errors.NONE

    def to_json_dict(self) -> dict[str, str]:
        """``{"error": NAME, "message": text}`` (message only when there is one)."""
        data = {"error": self.error.name}
        if self.message is not None:
            data["message"] = self.message
        return data


NO_ERROR = ApiError(Errors.NONE)
"""Success."""
