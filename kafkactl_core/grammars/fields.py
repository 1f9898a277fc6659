"""Field types and the canonical event field set shared by every grammar entry.

Every grammar entry declares its captured fields by *name*; the type of a name is fixed here, once,
for all event types (``EVENT_FIELDS``). ``silver.controller_events`` derives its StructType from
``EVENT_FIELDS``, and the Arrow executor (``jobs.logparse``) applies the simple forms of the
conversion rules below vectorised, leaving every other capture to ``convert_field``, so both
executors produce identical values.

Conversion rules (input: the text a capturing group captured; both executors apply them alike):

* **Null rule.** A capturing group that did not participate in the match, or captured the empty
  string, is treated identically. For scalar types this yields null. For list types it yields
  the empty list, because Kafka renders an empty collection as the empty string
  (``mkString(",")``), so an empty capture *is* an empty list. Fields an entry does not declare
  are null in its events.
* ``str``: the captured text unchanged (no trimming).
* ``int``: 64-bit signed integer. The text must match ``-?[0-9]+`` entirely and fit in
  ``[-2**63, 2**63-1]``; anything else is a conversion failure (``field_conversion: <field>``).
* ``float``: 64-bit IEEE double. The text must match
  ``-?(?:[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|Infinity)`` (Scala's ``Double.toString``
  forms, e.g. ``0.5``, ``1.0E-4``, ``NaN``); anything else is a conversion failure.
* ``bool``: exactly ``true`` or ``false``; anything else is a conversion failure.
* ``int_list``: first every ``BrokerState(brokerId=N, brokerEpoch=E)`` (the 3.5+
  ``isrWithBrokerEpoch`` rendering) is replaced by ``N``: Python
  ``re.sub(r"BrokerState\\(brokerId=(-?[0-9]+), brokerEpoch=-?[0-9]+\\)", r"\\1", s)``.
  Then the empty string is the empty list; otherwise the text is split on the regex ``[ ]*,[ ]*``
  and every element must convert as ``int`` (else a conversion failure). Order is kept.
* ``str_list``: the empty string is the empty list; otherwise the text is split on the regex
  ``[ ]*,[ ]*(?![^\\[(]*[\\])])`` (a comma, with optional spaces around it, that is not inside a
  ``[...]`` or ``(...)`` group, so ``[orders,0],[audit,1]`` gives two elements). Elements are kept
  as rendered (e.g. partitions stay ``orders-0`` or ``[orders,0]``).

Grammar entries may also set constant fields (``GrammarEntry.constants``, same types) and copy a
converted field into another (``GrammarEntry.copies``); both happen after conversion.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Mapping
from types import MappingProxyType

__all__ = [
    "EVENT_FIELDS",
    "INT_LIST_BROKER_STATE_PATTERN",
    "INT_LIST_SPLIT_PATTERN",
    "STR_LIST_SPLIT_PATTERN",
    "ConversionError",
    "FieldType",
    "FieldValue",
    "convert_field",
]


class FieldType(enum.Enum):
    """The closed set of field types both executors convert identically."""

    STR = "str"
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    INT_LIST = "int_list"
    STR_LIST = "str_list"


FieldValue = str | int | float | bool | tuple[int, ...] | tuple[str, ...] | None
"""A converted field value: lists are tuples so events stay hashable and immutable."""

INT_LIST_BROKER_STATE_PATTERN = r"BrokerState\(brokerId=(-?[0-9]+), brokerEpoch=-?[0-9]+\)"
"""Replaced by its group 1 before an ``int_list`` is split (3.5+ ``isrWithBrokerEpoch``)."""

INT_LIST_SPLIT_PATTERN = r"[ ]*,[ ]*"
"""Separator regex of ``int_list`` values."""

STR_LIST_SPLIT_PATTERN = r"[ ]*,[ ]*(?![^\[(]*[\])])"
"""Separator regex of ``str_list`` values: commas outside ``[...]`` and ``(...)``."""

_INT = re.compile(r"-?[0-9]+")
_FLOAT = re.compile(r"-?(?:[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|Infinity)")
_BROKER_STATE = re.compile(INT_LIST_BROKER_STATE_PATTERN)
_INT_SPLIT = re.compile(INT_LIST_SPLIT_PATTERN)
_STR_SPLIT = re.compile(STR_LIST_SPLIT_PATTERN)
_INT_MIN = -(2**63)
_INT_MAX = 2**63 - 1


class ConversionError(ValueError):
    """A captured text that does not convert to its field's type."""


def _to_int(text: str) -> int:
    if _INT.fullmatch(text) is None:
        raise ConversionError(f"not an integer: {text[:40]!r}")
    value = int(text)
    if not _INT_MIN <= value <= _INT_MAX:
        raise ConversionError(f"integer out of 64-bit range: {text[:40]!r}")
    return value


def _to_float(text: str) -> float:
    if _FLOAT.fullmatch(text) is None:
        raise ConversionError(f"not a number: {text[:40]!r}")
    if text.endswith("NaN"):
        return math.nan
    return float(text)


def convert_field(field_type: FieldType, text: str | None) -> FieldValue:
    """Convert one captured text by the rules of the module docstring.

    Args:
        field_type: the field's type.
        text: the captured text, ``None`` when the group did not participate.

    Returns:
        The typed value; ``None`` for an empty scalar, ``()`` for an empty list.

    Raises:
        ConversionError: when the text does not convert to ``field_type``.
    """
    if field_type is FieldType.INT_LIST:
        if not text:
            return ()
        flattened = _BROKER_STATE.sub(r"\1", text) if "BrokerState" in text else text
        if not flattened:
            return ()
        return tuple(_to_int(part) for part in _INT_SPLIT.split(flattened))
    if field_type is FieldType.STR_LIST:
        if not text:
            return ()
        return tuple(_STR_SPLIT.split(text))
    if not text:
        return None
    if field_type is FieldType.STR:
        return text
    if field_type is FieldType.INT:
        return _to_int(text)
    if field_type is FieldType.FLOAT:
        return _to_float(text)
    if text == "true":
        return True
    if text == "false":
        return False
    raise ConversionError(f"not a boolean: {text[:40]!r}")


_S = FieldType.STR
_I = FieldType.INT
_F = FieldType.FLOAT
_B = FieldType.BOOL
_IL = FieldType.INT_LIST
_SL = FieldType.STR_LIST

EVENT_FIELDS: Mapping[str, FieldType] = MappingProxyType(
    {
        # Who wrote the line and for which controller generation.
        "origin_broker": _I,  # node id in the line's prefix ([Controller id=1], [Broker id=2], ...)
        "controller_id": _I,  # the controller that acted (the writer on the controller side)
        "controller_epoch": _I,  # ZK controller epoch (prefix epoch=, "epoch N"), KRaft: raft epoch
        "controller_epoch_zk_version": _I,  # version of /controller_epoch
        "previous_controller_epoch": _I,  # KRaft renounce: "We were the leader at epoch N"
        # What the event is about.
        "topic": _S,
        "partition": _I,
        "topic_id": _S,
        "replica": _I,
        "broker": _I,  # the broker an event is about (shut down, fenced, request target, ...)
        "partitions": _SL,  # partitions as rendered (``t-p`` or ``[t,p]``)
        "topics": _SL,
        "deleted_topics": _SL,
        # State machine transitions.
        "from_state": _S,
        "to_state": _S,
        # Leadership.
        "leader": _I,
        "previous_leader": _I,
        "leader_epoch": _I,
        "previous_leader_epoch": _I,
        "isr": _IL,
        "previous_isr": _IL,
        "zk_version": _I,  # LeaderAndIsr zkVersion / LeaderIsrAndControllerEpoch ZkVersion
        "partition_epoch": _I,  # 3.3+ partitionEpoch (also KRaft)
        "state_controller_epoch": _I,  # ControllerEpoch inside (Leader:..,ControllerEpoch:N)
        "leader_recovery_state": _S,  # RECOVERED / RECOVERING
        # Assignments.
        "replicas": _IL,
        "adding_replicas": _IL,
        "removing_replicas": _IL,
        # Broker sets.
        "brokers": _IL,
        "added_brokers": _IL,
        "deleted_brokers": _IL,
        "bounced_brokers": _IL,
        "live_brokers": _IL,
        # Preferred / auto rebalance and elections.
        "ratio": _F,
        "election_type": _S,  # PREFERRED / UNCLEAN
        "trigger": _S,  # AutoTriggered / ZkTriggered / AdminClientTriggered, or the grammar's own
        "strategy": _S,  # election strategy as rendered
        # Requests.
        "correlation_id": _I,
        "api": _S,  # request API the line names (LEADER_AND_ISR, UPDATE_METADATA, ...)
        "role": _S,  # become-leader / become-follower / leader / follower
        "phase": _S,  # step of a multi-line procedure (start, stopped_fetchers, completed, ...)
        "delete_partitions": _B,  # StopReplica delete flag
        "count": _I,  # number of partitions/replicas/records an aggregate line reports
        "become_leader_count": _I,
        "become_follower_count": _I,
        "deleted_count": _I,
        "elapsed_ms": _I,
        "duration_us": _I,
        # Broker-side replication offsets.
        "start_offset": _I,  # leader epoch start offset / follower end offset
        "high_watermark": _I,
        "end_offset": _I,  # leader log end offset (Shrinking ISR)
        "offset": _I,  # KRaft log offsets (next write offset, last stable offset, ...)
        "broker_epoch": _I,
        # Free text the grammar keeps verbatim.
        "error": _S,  # error code or exception class the line names
        "detail": _S,  # a remainder kept as rendered (event name, reason, KRaft diff, ...)
    }
)
"""Canonical typed field set of ``silver.controller_events``: field name -> type."""
