"""The rows of ``silver.broker_configs`` from the parsed records: one per configuration key.

A recognised configuration record (``config_lines.CONFIG_EVENT_TYPES``, a few per broker start)
fans out into one row per key, cut by the core (``config_lines.config_lines``). ONE definition,
``arrow_config_rows``, serves both ingest paths: inside the one-pass task on the parsed batch,
and on Spark's parsed frame through ``mapInArrow`` (``spark_config_rows``).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from jobs.lakehouse.arrow_types import arrow_schema
from jobs.logparse.table_rows import RunFiles
from kafkactl_core.grammars.config_lines import BROKER_SCOPE, CONFIG_EVENT_TYPES, config_lines
from schemas.logs import BROKER_CONFIGS

__all__ = ["INPUT_COLUMNS", "arrow_config_rows", "spark_config_rows"]

INPUT_COLUMNS = ("file_index", "first_line", "text", "log_time", "event_type", "topic", "detail")
"""The parsed columns the rows derive from."""

_SCHEMA = arrow_schema(BROKER_CONFIGS.schema)
_KINDS = pa.array(sorted(CONFIG_EVENT_TYPES), pa.string())


def arrow_config_rows(parsed: pa.RecordBatch, run: RunFiles) -> pa.RecordBatch:
    """The ``silver.broker_configs`` rows of a batch of parsed records (read errors removed).

    Args:
        parsed: parsed records, with at least ``INPUT_COLUMNS``.
        run: the run's facts.

    Returns:
        One row per key of the batch's configuration records, with the table's Arrow types.
    """
    wanted = pc.is_in(parsed["event_type"], value_set=_KINDS)
    if not pc.any(wanted).as_py():
        return pa.RecordBatch.from_pylist([], schema=_SCHEMA)
    records = parsed.select(list(INPUT_COLUMNS)).filter(wanted).to_pylist()
    rows: list[dict[str, Any]] = []
    for record in records:
        entries = config_lines(
            record["event_type"],
            record["text"],
            record["first_line"],
            record["topic"],
            record["detail"],
        )
        for entry in entries:
            broker = entry.name if entry.scope == BROKER_SCOPE else None
            rows.append(
                {
                    "cluster": run.cluster,
                    "broker": None if broker is None else int(broker),
                    "scope": entry.scope,
                    "name": entry.name,
                    "key": entry.key,
                    "value": entry.value,
                    "logged_at": record["log_time"],
                    "source_kind": entry.source_kind,
                    "file": run.paths[record["file_index"]],
                    "line": entry.line,
                    "run_id": run.run_id,
                }
            )
    return pa.RecordBatch.from_pylist(rows, schema=_SCHEMA)


def _batches(batches: Iterator[pa.RecordBatch], *, run: RunFiles) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        rows = arrow_config_rows(batch, run)
        if rows.num_rows:
            yield rows


def spark_config_rows(good: DataFrame, run: RunFiles) -> DataFrame:
    """The ``silver.broker_configs`` rows of Spark's parsed records (read errors removed).

    Args:
        good: parsed records (``parse_contract.PARSED_SCHEMA``).
        run: the run's facts.

    Returns:
        The table's rows, in its column order.
    """
    records = good.filter(F.col("event_type").isin(sorted(CONFIG_EVENT_TYPES)))
    return records.select(*INPUT_COLUMNS).mapInArrow(
        partial(_batches, run=run), BROKER_CONFIGS.schema
    )
