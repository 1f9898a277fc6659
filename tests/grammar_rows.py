"""The reference executor's outcome of a record as the row the Arrow executor must give: the
expectation of its parity tests."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from jobs.logparse.parse_contract import FIELD_NAMES
from kafkactl_core.grammars import IgnoredRecord, LogRecord, Outcome, ParsedEvent, Quarantined


def reference_row(
    index: int, record: LogRecord, outcome: Outcome, log_time: datetime | None
) -> dict[str, Any]:
    """The parsed columns (``parse_contract.PARSED_SCHEMA``) of one record, from the reference.

    Args:
        index: the record's file index.
        record: the record, as ``assemble_records`` cut it.
        outcome: ``parse_record``'s outcome for it.
        log_time: the timestamp as the executor under test stores it.

    Returns:
        Column name -> value; event fields set for parsed records only.
    """
    row: dict[str, Any] = {
        "file_index": index,
        "first_line": record.first_line,
        "line_count": record.line_count,
        "text": record.text,
        "orphan_reason": record.orphan_reason,
        "invalid_utf8": record.invalid_utf8,
        "truncated": record.truncated,
        "status": outcome.status,
        "reason": None,
        "reason_detail": None,
        "grammar": None,
        "event_type": None,
        "family": None,
        "version_conflict": False,
        "log_time": log_time,
        "log_time_text": record.timestamp_text,
        "level": record.level,
        "logger": record.logger,
        "thread": record.thread,
        **dict.fromkeys(FIELD_NAMES),
    }
    if isinstance(outcome, ParsedEvent):
        row.update(
            grammar=outcome.grammar,
            event_type=outcome.event.event_type.value,
            family=outcome.event.event_type.value,
            version_conflict=outcome.version_conflict,
        )
        for name in FIELD_NAMES:
            value = getattr(outcome.event, name)
            row[name] = list(value) if isinstance(value, tuple) else value
    elif isinstance(outcome, IgnoredRecord):
        row.update(grammar=outcome.grammar, family=outcome.family)
    elif isinstance(outcome, Quarantined):
        row.update(reason=outcome.reason, reason_detail=outcome.detail)
        if outcome.reason.startswith("field_conversion"):
            row["grammar"] = (outcome.detail or "").split(":")[0]
    return row
