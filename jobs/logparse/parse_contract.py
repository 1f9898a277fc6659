"""The parse stage's contract: what a grammar executor is given and the rows it returns.

``kafkactl_core.grammars.executor.parse_record`` is the specification of the outcome of a
record; ``arrow_executor.ArrowExecutor`` computes it for the reader's batches. Both sides of that
stage meet here:

* **Given**: ``ExecutorSettings``, the trial order of the grammar entries (``TrialOrder``, from
  the version hint: the reader's candidate positions refer to it), the run's layouts and the
  cluster's time zone.
* **Returned**: one row per record, ``PARSED_SCHEMA``: the reader's ``KEEP_COLUMNS``, then
  ``OUTCOME_COLUMNS`` (status, reason, grammar, family, version conflict, head, and the event
  fields ``FIELD_NAMES``, null unless the record is parsed). ``table_rows`` derives the tables'
  rows from these columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from pyspark.sql.types import (
    BooleanType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from jobs.lakehouse.arrow_types import arrow_schema
from kafkactl_core.grammars import (
    EVENT_FIELDS,
    CompiledLayout,
    GrammarEntry,
    grammar_entries,
    grammars_for_version,
)
from kafkactl_core.versions import KafkaRelease
from schemas.logs import spark_type

__all__ = [
    "FIELD_NAMES",
    "KEEP_COLUMNS",
    "OUTCOME_COLUMNS",
    "PARSED_ARROW_SCHEMA",
    "PARSED_SCHEMA",
    "ExecutorSettings",
    "TrialOrder",
]

FIELD_NAMES: tuple[str, ...] = tuple(EVENT_FIELDS)
"""The event fields, in ``EVENT_FIELDS`` order (one column each)."""


@dataclass(frozen=True)
class TrialOrder:
    """The order the executors try entries in, for a version hint.

    Attributes:
        entries: every entry, in trial order.
        in_range: how many leading entries contain the hint (all of them without a hint).
        hint: the configured release, ``None`` for ``auto``.
    """

    entries: tuple[GrammarEntry, ...]
    in_range: int
    hint: KafkaRelease | None

    @classmethod
    def for_hint(cls, hint: KafkaRelease | None) -> TrialOrder:
        """The trial order of ``executor.parse_record`` for ``hint``.

        Args:
            hint: the cluster's configured release, or ``None``.

        Returns:
            The order.
        """
        if hint is None:
            entries = grammar_entries()
            return cls(entries, len(entries), None)
        inside = grammars_for_version(hint)
        chosen = {entry.name for entry in inside}
        rest = tuple(entry for entry in grammar_entries() if entry.name not in chosen)
        return cls(inside + rest, len(inside), hint)

    @cached_property
    def positions(self) -> Mapping[str, int]:
        """Entry name -> trial position."""
        return {entry.name: position for position, entry in enumerate(self.entries)}


@dataclass(frozen=True)
class ExecutorSettings:
    """What the grammar executor needs besides the records.

    Attributes:
        order: the grammars' trial order (from the version hint).
        layouts: the run's layouts; each record names its own by ``layout_index``.
        time_zone: the zone the logs were written in (timestamps are stored as UTC).
    """

    order: TrialOrder
    layouts: tuple[CompiledLayout, ...]
    time_zone: str


KEEP_COLUMNS: tuple[str, ...] = (
    "file_index",
    "first_line",
    "line_count",
    "byte_offset",
    "byte_length",
    "text",
    "orphan_reason",
    "invalid_utf8",
    "truncated",
    "read_error",
)
"""The reader's columns the executor carries through (``ingest_logs`` keeps the same)."""

OUTCOME_COLUMNS: tuple[str, ...] = (
    "status",
    "reason",
    "reason_detail",
    "grammar",
    "event_type",
    "family",
    "version_conflict",
    "log_time",
    "log_time_text",
    "level",
    "logger",
    "thread",
    *FIELD_NAMES,
)
"""Columns the executor adds (``status``: parsed, ignored or quarantined; ``reason`` and
``reason_detail``: why a record is quarantined; ``family``: the event type, the ignored family, or
null for a quarantined record)."""

_KEEP_FIELDS = {
    "file_index": StructField("file_index", IntegerType(), False),
    "first_line": StructField("first_line", LongType(), False),
    "line_count": StructField("line_count", LongType(), False),
    "byte_offset": StructField("byte_offset", LongType(), False),
    "byte_length": StructField("byte_length", LongType(), False),
    "text": StructField("text", StringType(), False),
    "orphan_reason": StructField("orphan_reason", StringType(), True),
    "invalid_utf8": StructField("invalid_utf8", BooleanType(), False),
    "truncated": StructField("truncated", BooleanType(), False),
    "read_error": StructField("read_error", StringType(), True),
}
_NEVER_NULL = frozenset({"status", "version_conflict"})
_OUTCOME_TYPES = {
    "version_conflict": BooleanType(),
    "log_time": TimestampType(),
    **{name: spark_type(kind) for name, kind in EVENT_FIELDS.items()},
}

PARSED_SCHEMA = StructType(
    [_KEEP_FIELDS[name] for name in KEEP_COLUMNS]
    + [
        StructField(name, _OUTCOME_TYPES.get(name, StringType()), name not in _NEVER_NULL)
        for name in OUTCOME_COLUMNS
    ]
)
"""``KEEP_COLUMNS`` + ``OUTCOME_COLUMNS``, typed: the parsed records as Spark gets them."""

PARSED_ARROW_SCHEMA = arrow_schema(PARSED_SCHEMA)
"""``PARSED_SCHEMA`` in Arrow (timestamps: microseconds, UTC)."""
