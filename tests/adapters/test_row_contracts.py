"""Every gold table with a core record is that record, one row per record.

``schemas`` derives such a table's columns from its record's fields (``record_columns``); the
record's ``to_row()`` lists the same columns a second time, by hand. A record with a value in
every field must give through ``to_row()`` exactly the table's columns in order (but the
``scenario``/``run_id`` the table adds), each value of its column's Spark type. No JVM:
StructTypes only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
from pyspark.sql.types import (
    ArrayType,
    DateType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    TimestampType,
)

from schemas.catalog import TableSpec
from schemas.gold import CLUSTER_FACTS
from schemas.records import record_columns
from schemas.registry import ALL_TABLES
from schemas.report import REPORT_ANOMALIES
from tests.adapters.record_tables import RECORD_TABLES, compatible, filled


@pytest.mark.parametrize(
    ("spec", "record", "extra"), RECORD_TABLES, ids=[spec.name for spec, _, _ in RECORD_TABLES]
)
def test_to_row_gives_the_tables_columns(spec: TableSpec, record: type, extra: tuple[str, ...]):
    row = filled(record).to_row()
    assert spec.schema.fieldNames() == [*row, *extra]
    for name, value in row.items():
        data_type = spec.schema[name].dataType
        assert compatible(value, data_type), f"{spec.qualified_name}.{name}: {data_type}"
    for name in extra:
        assert spec.schema[name].dataType == StringType() and not spec.schema[name].nullable


def test_every_gold_table_has_its_record_but_report_anomalies_and_cluster_facts():
    # gold.cluster_facts carries ClusterFact, whose to_row() is the replay's wire (``time_ms``
    # in epoch ms); tests/spark/test_facts_table.py round-trips it through the table instead.
    others = (REPORT_ANOMALIES, CLUSTER_FACTS)
    gold = [spec for spec in ALL_TABLES if spec.layer == "gold" and spec not in others]
    assert [spec for spec, _, _ in RECORD_TABLES] == gold


@dataclass
class _Sample:
    name: str
    seen_ms: int | None
    day: date
    ids: tuple[int, ...]
    offset: int | None


_COMMENTS = {"name": "N.", "seen": "S.", "day": "D.", "ids": "I.", "offset": "O."}


def _typed(columns: list[StructField]) -> list[tuple[str, Any, bool]]:
    return [(c.name, c.dataType, c.nullable) for c in columns]


def test_annotations_give_names_types_and_nullability():
    assert _typed(record_columns(_Sample, _COMMENTS)) == [
        ("name", StringType(), False),
        ("seen", TimestampType(), True),
        ("day", DateType(), False),
        ("ids", ArrayType(IntegerType()), True),
        ("offset", IntegerType(), True),
    ]
    assert [c.metadata["comment"] for c in record_columns(_Sample, _COMMENTS)] == list(
        _COMMENTS.values()
    )


def test_overrides_name_type_and_nullability():
    comments = {("seen_at" if name == "seen" else name): c for name, c in _COMMENTS.items()}
    columns = record_columns(
        _Sample,
        comments,
        types={"offset": LongType()},
        nullable=("name",),
        renamed={"seen_ms": "seen_at"},
    )
    assert _typed(columns) == [
        ("name", StringType(), True),
        ("seen_at", TimestampType(), True),
        ("day", DateType(), False),
        ("ids", ArrayType(IntegerType()), True),
        ("offset", LongType(), True),
    ]


@pytest.mark.parametrize(
    "options",
    [
        {"comments": {k: v for k, v in _COMMENTS.items() if k != "day"}},
        {"comments": dict(reversed(_COMMENTS.items()))},
        {"comments": {**_COMMENTS, "extra": "E."}},
        {"types": {"missing": LongType()}},
        {"nullable": ("seen",)},
        {"renamed": {"name_ms": "name_at"}},
    ],
    ids=["comment missing", "wrong order", "comment extra", "type", "nullable", "renamed"],
)
def test_a_comment_or_override_without_its_column_fails(options: dict[str, Any]):
    comments = options.pop("comments", _COMMENTS)
    with pytest.raises(ValueError, match="_Sample"):
        record_columns(_Sample, comments, **options)
