"""The gold tables that carry a core record per row, and records filled with sample values.

``RECORD_TABLES`` pairs each such table with its record and the columns the table adds after the
record's (``scenario`` where the record has none, ``run_id``); ``filled`` builds a record with a
value in every field and ``compatible`` says whether a ``to_row()`` value fits a Spark type;
``core_schema`` gives the Arrow schema of columns named by the core's type names.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

import pyarrow as pa
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DateType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    TimestampType,
)

from kafkactl_core import replay, report
from kafkactl_core.report import rows as report_rows
from schemas import gold
from schemas import report as report_tables
from schemas.catalog import TableSpec

RECORD_TABLES: tuple[tuple[TableSpec, type, tuple[str, ...]], ...] = (
    (gold.ELECTIONS, replay.ElectionRow, ("run_id",)),
    (gold.PARTITION_TIMELINE, replay.TimelineRow, ("scenario", "run_id")),
    (gold.ANOMALIES, replay.AnomalyRow, ("scenario", "run_id")),
    (gold.WHAT_IF, replay.WhatIfRow, ("run_id",)),
    (report_tables.LEADER_IMBALANCE, report.ImbalanceRow, ("run_id",)),
    (report_tables.LEADER_IMBALANCE_DAILY, report.ImbalanceDailyRow, ("run_id",)),
    (report_tables.UNCLEAN_ELECTIONS, report.UncleanRow, ("run_id",)),
    (report_tables.UNCLEAN_ELECTIONS_DAILY, report.UncleanDailyRow, ("run_id",)),
    (report_tables.OFFLINE_INTERVALS, report.OfflineInterval, ("run_id",)),
    (report_tables.CONTROLLER_HISTORY, report.ControllerTenure, ("run_id",)),
    (report_tables.UNDER_REPLICATED, report_rows.UnderReplicatedInterval, ("run_id",)),
    (report_tables.ISR_CHURN_DAILY, report_rows.IsrChurnDailyRow, ("run_id",)),
    (report_tables.BROKER_TIMELINE, report_rows.BrokerInterval, ("run_id",)),
    (report_tables.REASSIGNMENTS, report_rows.Reassignment, ("run_id",)),
    (report_tables.TOPIC_LIFECYCLE, report_rows.TopicLifecycle, ("run_id",)),
)
"""Every gold table with a core record: (table, record, columns after the record's)."""

_SAMPLE = {str: "x", int: 7, float: 1.5, bool: True, date: date(2024, 3, 5)}


def _sample(hint: Any) -> Any:
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return list(hint)[-1]
    if typing.get_origin(hint) is tuple:
        return (_SAMPLE[typing.get_args(hint)[0]],)
    if type(None) in typing.get_args(hint):
        (hint,) = (a for a in typing.get_args(hint) if a is not type(None))
        return _sample(hint)
    return _SAMPLE[hint]


def filled(record: type) -> Any:
    """``record`` with a sample value in every field (never ``None``)."""
    hints = typing.get_type_hints(record)
    return record(**{f.name: _sample(hints[f.name]) for f in dataclasses.fields(record)})


_SPARK_TYPES: dict[type, tuple[type[DataType], ...]] = {
    bool: (BooleanType,),
    int: (IntegerType, LongType),
    float: (DoubleType,),
    str: (StringType,),
    datetime: (TimestampType,),
    date: (DateType,),
}


def compatible(value: Any, data_type: DataType) -> bool:
    """Whether a ``to_row()`` value can be written to a column of ``data_type``."""
    if isinstance(value, list):
        return isinstance(data_type, ArrayType) and all(
            compatible(v, data_type.elementType) for v in value
        )
    return isinstance(data_type, _SPARK_TYPES[type(value)])


_CORE_ARROW = {
    "str": pa.string(),
    "int": pa.int64(),
    "ints": pa.list_(pa.int64()),
    "bool": pa.bool_(),
}


def core_schema(columns: Mapping[str, str]) -> pa.Schema:
    """The Arrow schema of columns given by the core's type names (``EVIDENCE_COLUMNS``, ...)."""
    return pa.schema([pa.field(name, _CORE_ARROW[kind]) for name, kind in columns.items()])
