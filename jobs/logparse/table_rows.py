"""How the rows of ``bronze.log_records``, ``silver.controller_events`` and ``silver.quarantine``
derive from the parsed records: ONE definition, built as Spark columns (``spark_rows``) or as
Arrow arrays inside a task (``arrow_rows``).

A column's source is a parsed column's name, or one of the run's facts:

* ``@cluster``, ``@run_id``: constants of the run;
* ``@file``, ``@content_sha256``, ``@file_kind``: the record's input file, by ``file_index``;
* ``@evidence``: ``<file>:<first line>``;
* ``@origin_broker``: the node named in the record's text, for parsed records only;
* ``@version_conflict``: the parsed ``version_conflict`` (with ``kafka_version: auto`` the
  Spark path passes the per-file inferred conflict instead, see ``ingest_logs``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from jobs.lakehouse.arrow_types import arrow_schema
from jobs.logparse.parse_contract import FIELD_NAMES
from schemas.catalog import TableSpec
from schemas.logs import CONTROLLER_EVENTS, LOG_RECORDS, QUARANTINE

__all__ = ["SOURCES", "STATUS", "RunFiles", "arrow_rows", "spark_rows"]

_BRONZE: tuple[tuple[str, str], ...] = (
    ("cluster", "@cluster"),
    ("file", "@file"),
    ("content_sha256", "@content_sha256"),
    ("file_kind", "@file_kind"),
    ("first_line", "first_line"),
    ("line_count", "line_count"),
    ("byte_offset", "byte_offset"),
    ("byte_length", "byte_length"),
    ("origin_broker", "@origin_broker"),
    ("status", "status"),
    ("text", "text"),
    ("invalid_utf8", "invalid_utf8"),
    ("truncated", "truncated"),
    ("orphan_reason", "orphan_reason"),
    ("run_id", "@run_id"),
)
_EVENTS: tuple[tuple[str, str], ...] = (
    ("cluster", "@cluster"),
    ("event_type", "event_type"),
    ("grammar", "grammar"),
    ("log_time", "log_time"),
    ("log_time_text", "log_time_text"),
    ("level", "level"),
    ("logger", "logger"),
    ("thread", "thread"),
    ("file", "@file"),
    ("first_line", "first_line"),
    ("line_count", "line_count"),
    ("evidence", "@evidence"),
    *((name, name) for name in FIELD_NAMES),
    ("version_conflict", "@version_conflict"),
    ("run_id", "@run_id"),
)
_QUARANTINE: tuple[tuple[str, str], ...] = (
    ("cluster", "@cluster"),
    ("file", "@file"),
    ("content_sha256", "@content_sha256"),
    ("first_line", "first_line"),
    ("line_count", "line_count"),
    ("byte_offset", "byte_offset"),
    ("reason", "reason"),
    ("detail", "reason_detail"),
    ("grammar", "grammar"),
    ("level", "level"),
    ("logger", "logger"),
    ("log_time_text", "log_time_text"),
    ("text", "text"),
    ("invalid_utf8", "invalid_utf8"),
    ("truncated", "truncated"),
    ("run_id", "@run_id"),
)

SOURCES: Mapping[str, tuple[tuple[str, str], ...]] = {
    LOG_RECORDS.qualified_name: _BRONZE,
    CONTROLLER_EVENTS.qualified_name: _EVENTS,
    QUARANTINE.qualified_name: _QUARANTINE,
}
"""Per table: (column, source) in the table's column order."""

STATUS: Mapping[str, str | None] = {
    LOG_RECORDS.qualified_name: None,
    CONTROLLER_EVENTS.qualified_name: "parsed",
    QUARANTINE.qualified_name: "quarantined",
}
"""Per table: the status of the records it holds (``None``: every record)."""

_ARROW_SCHEMAS = {
    spec.qualified_name: arrow_schema(spec.schema)
    for spec in (LOG_RECORDS, CONTROLLER_EVENTS, QUARANTINE)
}
"""Per table: its Arrow schema (built once, not per batch)."""


@dataclass(frozen=True)
class RunFiles:
    """The run's facts the rows carry (picklable: it travels to the tasks).

    Attributes:
        cluster: the cluster.
        run_id: the run.
        paths: input file path by ``file_index``.
        sha256: content hash by ``file_index``.
        kinds: file kind by ``file_index``.
    """

    cluster: str
    run_id: str
    paths: tuple[str, ...]
    sha256: tuple[str, ...]
    kinds: tuple[str, ...]


def _spark_lookup(values: Sequence[str], index: Column) -> Column:
    return F.try_element_at(F.array(*[F.lit(v) for v in values or [""]]), index + 1)


def spark_rows(
    good: DataFrame, spec: TableSpec, run: RunFiles, version_conflict: Column
) -> DataFrame:
    """The table's rows from the parsed records (without read errors), as Spark columns.

    Args:
        good: parsed records (``parse_contract.PARSED_SCHEMA``), read errors removed.
        spec: bronze.log_records, silver.controller_events or silver.quarantine.
        run: the run's facts.
        version_conflict: the events' conflict column.

    Returns:
        The table's columns, in its order (types conformed by the lakehouse).
    """
    index = F.col("file_index")
    file = _spark_lookup(run.paths, index)
    special: dict[str, Column] = {
        "@cluster": F.lit(run.cluster),
        "@run_id": F.lit(run.run_id),
        "@file": file,
        "@content_sha256": _spark_lookup(run.sha256, index),
        "@file_kind": _spark_lookup(run.kinds, index),
        "@evidence": F.concat(file, F.lit(":"), F.col("first_line").cast("string")),
        "@origin_broker": F.when(F.col("status") == "parsed", F.col("origin_broker")),
        "@version_conflict": version_conflict,
    }
    status = STATUS[spec.qualified_name]
    rows = good if status is None else good.filter(F.col("status") == status)
    return rows.select(
        *[
            (special[source] if source.startswith("@") else F.col(source)).alias(name)
            for name, source in SOURCES[spec.qualified_name]
        ]
    )


def arrow_rows(parsed: pa.RecordBatch, spec: TableSpec, run: RunFiles) -> pa.RecordBatch:
    """The table's rows from a batch of parsed records (without read errors), in a task.

    Args:
        parsed: parsed records (``parse_contract.PARSED_ARROW_SCHEMA``), read errors removed.
        spec: bronze.log_records, silver.controller_events or silver.quarantine.
        run: the run's facts.

    Returns:
        The table's columns in its order, with the table's Arrow types.
    """
    schema = _ARROW_SCHEMAS[spec.qualified_name]
    status = STATUS[spec.qualified_name]
    wanted = None if status is None else pc.equal(parsed["status"], status)
    kept = parsed.num_rows if wanted is None else (pc.sum(wanted).as_py() or 0)
    if kept == 0:
        return pa.RecordBatch.from_pylist([], schema=schema)
    rows = parsed
    count = rows.num_rows
    index = rows["file_index"]

    def lookup(values: Sequence[str]) -> pa.Array:
        return pc.take(pa.array(values, pa.string()), index)

    def special(source: str) -> pa.Array:
        if source == "@cluster":
            return pa.repeat(pa.scalar(run.cluster, pa.string()), count)
        if source == "@run_id":
            return pa.repeat(pa.scalar(run.run_id, pa.string()), count)
        if source == "@file":
            return lookup(run.paths)
        if source == "@content_sha256":
            return lookup(run.sha256)
        if source == "@file_kind":
            return lookup(run.kinds)
        if source == "@evidence":
            first = pc.cast(rows["first_line"], pa.string())
            return pc.binary_join_element_wise(lookup(run.paths), first, ":")
        if source == "@origin_broker":
            parsed_only = pc.equal(rows["status"], "parsed")
            return pc.if_else(parsed_only, rows["origin_broker"], None)
        if source == "@version_conflict":
            return rows["version_conflict"]
        raise ValueError(f"unknown row source {source}")

    columns = [
        special(source) if source.startswith("@") else rows[source]
        for _, source in SOURCES[spec.qualified_name]
    ]
    batch = pa.RecordBatch.from_arrays(
        [column.cast(field.type) for column, field in zip(columns, schema, strict=True)],
        schema=schema,
    )
    # Filter the table's columns only, not the parsed batch's ~80.
    return batch if wanted is None or kept == count else batch.filter(wanted)
