"""Row records as Arrow batches, a column at a time.

A task that returns many records of one class builds each column from every record at once
(``attrgetter`` over the records, one ``pyarrow.array`` per column), by the columns the core
derives for the class (``column_plan``): what ``pa.RecordBatch.from_pylist`` of their
``to_row()`` gives, in a fifth of the time (545,735 imbalance rows: 3.5 s against 0.7 s).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Any

import pyarrow as pa

from kafkactl_core.replay.values import column_plan

__all__ = ["record_batch"]

_MS = pa.timestamp("ms", tz="UTC")


def record_batch(
    records: Sequence[Any], schema: pa.Schema, constants: Mapping[str, Any] | None = None
) -> pa.RecordBatch:
    """Records of one class as a batch of ``schema``.

    Args:
        records: row records of one dataclass (``to_row`` by ``plain_columns``).
        schema: the batch's columns: every column of the records, and any others, which hold
            their ``constants`` value or null.
        constants: column -> the value of every row, for columns the records do not have.

    Returns:
        The batch.

    Raises:
        ValueError: when ``schema`` lacks a column of the records.
    """
    count = len(records)
    plan: dict[str, tuple[str, bool]] = {}
    if records:
        plan = {column: (name, is_ms) for name, column, is_ms in column_plan(type(records[0]))}
    missing = set(plan) - set(schema.names)
    if missing:
        raise ValueError(f"columns {sorted(missing)} of {type(records[0]).__name__} not in schema")
    fixed = constants or {}
    arrays: list[pa.Array] = []
    for target in schema:
        found = plan.get(target.name)
        if found is None:
            value = fixed.get(target.name)
            arrays.append(
                pa.nulls(count, target.type)
                if value is None
                else pa.array([value] * count, target.type)
            )
            continue
        name, is_ms = found
        values = list(map(attrgetter(name), records))
        if is_ms:
            arrays.append(pa.array(values, pa.int64()).cast(_MS).cast(target.type))
        else:
            arrays.append(pa.array(values, target.type))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
