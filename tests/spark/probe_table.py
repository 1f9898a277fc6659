"""The probe table the lakehouse tests write on every engine: one column of each type the
pipeline writes, and its rows."""

from __future__ import annotations

from datetime import datetime

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructType,
    TimestampType,
)

from schemas.catalog import TableSpec, column

SPEC = TableSpec(
    layer="silver",
    name="lakehouse_probe",
    description="Rows of every column type the pipeline writes.",
    schema=StructType(
        [
            column("cluster", StringType(), "Cluster.", nullable=False),
            column("topic", StringType(), "Topic."),
            column("partition", IntegerType(), "Partition."),
            column("leader_epoch", LongType(), "Epoch."),
            column("ratio", DoubleType(), "Ratio."),
            column("unclean", BooleanType(), "Unclean."),
            column("isr", ArrayType(IntegerType()), "ISR."),
            column("at", TimestampType(), "When."),
        ]
    ),
)
T0 = datetime(2024, 3, 1, 12, 30, 45, 123456)


def probe_rows(cluster: str, count: int, epoch_base: int = 0) -> list[tuple[object, ...]]:
    """``count`` rows of ``cluster`` (epochs from ``epoch_base``), then one of nulls only."""
    return [
        (cluster, f"t{i % 3}", i, epoch_base + i, i / 4, i % 2 == 0, [1, 2, i], T0)
        for i in range(count)
    ] + [(cluster, None, None, None, None, None, None, None)]
