"""What the executor makes of a record: a typed event, an ignored record, or a quarantined one.

``parse_record`` returns exactly one ``Outcome`` per record, so every record is accounted for once:

* ``ParsedEvent``: a grammar recognised the record; ``event`` is a ``ControllerEvent`` whose
  fields are the canonical ``EVENT_FIELDS`` (null unless the grammar captured or set them);
* ``IgnoredRecord``: recognised as carrying nothing the audit uses, counted under a family;
* ``Quarantined``: not usable, with a precise ``reason`` (see ``executor``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from kafkactl_core.grammars.events import EventType

__all__ = ["ControllerEvent", "IgnoredRecord", "Outcome", "ParsedEvent", "Quarantined"]


@dataclass(frozen=True, slots=True)
class ControllerEvent:
    """A typed controller event: ``event_type`` plus the canonical fields (``EVENT_FIELDS``).

    Field names and types mirror ``kafkactl_core.grammars.fields.EVENT_FIELDS`` one to one
    (lists are tuples); a test ties the two.
    """

    event_type: EventType
    origin_broker: int | None = None
    controller_id: int | None = None
    controller_epoch: int | None = None
    controller_epoch_zk_version: int | None = None
    previous_controller_epoch: int | None = None
    topic: str | None = None
    partition: int | None = None
    topic_id: str | None = None
    replica: int | None = None
    broker: int | None = None
    partitions: tuple[str, ...] | None = None
    topics: tuple[str, ...] | None = None
    deleted_topics: tuple[str, ...] | None = None
    from_state: str | None = None
    to_state: str | None = None
    leader: int | None = None
    previous_leader: int | None = None
    leader_epoch: int | None = None
    previous_leader_epoch: int | None = None
    isr: tuple[int, ...] | None = None
    previous_isr: tuple[int, ...] | None = None
    zk_version: int | None = None
    partition_epoch: int | None = None
    state_controller_epoch: int | None = None
    leader_recovery_state: str | None = None
    replicas: tuple[int, ...] | None = None
    adding_replicas: tuple[int, ...] | None = None
    removing_replicas: tuple[int, ...] | None = None
    brokers: tuple[int, ...] | None = None
    added_brokers: tuple[int, ...] | None = None
    deleted_brokers: tuple[int, ...] | None = None
    bounced_brokers: tuple[int, ...] | None = None
    live_brokers: tuple[int, ...] | None = None
    ratio: float | None = None
    election_type: str | None = None
    trigger: str | None = None
    strategy: str | None = None
    correlation_id: int | None = None
    api: str | None = None
    role: str | None = None
    phase: str | None = None
    delete_partitions: bool | None = None
    count: int | None = None
    become_leader_count: int | None = None
    become_follower_count: int | None = None
    deleted_count: int | None = None
    elapsed_ms: int | None = None
    duration_us: int | None = None
    start_offset: int | None = None
    high_watermark: int | None = None
    end_offset: int | None = None
    offset: int | None = None
    broker_epoch: int | None = None
    error: str | None = None
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class ParsedEvent:
    """A record a grammar entry recognised as an event.

    Attributes:
        first_line: the record's first physical line (1-based).
        line_count: the record's physical line count.
        grammar: the name of the entry that matched.
        event: the typed event.
        timestamp: the record's naive timestamp.
        level: the record's level.
        logger: the record's logger.
        version_conflict: a version hint was given and the entry's range does not contain it
            (no entry inside the range matched).
    """

    first_line: int
    line_count: int
    grammar: str
    event: ControllerEvent
    timestamp: datetime | None
    level: str | None
    logger: str | None
    version_conflict: bool = False
    status: Literal["parsed"] = "parsed"


@dataclass(frozen=True, slots=True)
class IgnoredRecord:
    """A record recognised as carrying nothing the audit uses.

    Attributes:
        first_line: the record's first physical line (1-based).
        line_count: the record's physical line count.
        family: the ignored family (``IgnoredFamily`` value).
        grammar: the entry that matched, ``None`` for the foreign-logger rule.
    """

    first_line: int
    line_count: int
    family: str
    grammar: str | None
    status: Literal["ignored"] = "ignored"


@dataclass(frozen=True, slots=True)
class Quarantined:
    """A record that could not be used, and why.

    Attributes:
        first_line: the record's first physical line (1-based).
        line_count: the record's physical line count.
        reason: ``no_grammar``, ``orphan_continuation``, ``invalid_utf8``, ``bad_timestamp``,
            ``missing_tail``, ``truncated_record``, ``field_conversion: <field>`` or
            ``internal_error: <exception>``.
        detail: more context (the orphan reason, the grammar that failed conversion, ...).
    """

    first_line: int
    line_count: int
    reason: str
    detail: str | None = None
    status: Literal["quarantined"] = "quarantined"


Outcome = ParsedEvent | IgnoredRecord | Quarantined
"""Exactly one per record."""
