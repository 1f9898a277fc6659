"""``gold.cluster_facts``: the replay's cluster facts, kept for the report and for SQL.

The replay gathers the facts from every silver row (the normalizers run over all of them); the
report needs the same facts, and reading them back from this table spares it that pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs.lakehouse.port import Lakehouse
from jobs.tasks.wire import driver_frame, wire_row
from kafkactl_core.replay import CLUSTER_FACT_COLUMNS, ClusterFact
from schemas.gold import CLUSTER_FACTS

__all__ = ["facts_frame", "read_facts"]

_TIME = "observed_at"
"""The table's name for ``ClusterFact.time_ms``."""


def facts_frame(spark: SparkSession, facts: Sequence[ClusterFact], run_id: str) -> DataFrame:
    """The facts as ``gold.cluster_facts`` rows.

    Args:
        spark: the session.
        facts: the cluster's facts.
        run_id: this run.

    Returns:
        The frame in the table's columns.
    """
    rows = []
    for fact in facts:
        row = wire_row(fact.to_row())
        row[_TIME] = row.pop("time_ms")
        rows.append(row)
    return driver_frame(spark, rows, CLUSTER_FACTS, run_id)


def read_facts(lakehouse: Lakehouse, cluster: str) -> list[ClusterFact] | None:
    """The cluster's facts as the last replay wrote them.

    Args:
        lakehouse: the lakehouse.
        cluster: the cluster.

    Returns:
        The facts, in no particular order; ``None`` when the table does not exist.
    """
    if not lakehouse.exists(CLUSTER_FACTS):
        return None
    rows = (
        lakehouse.read(CLUSTER_FACTS)
        .filter(F.col("cluster") == cluster)
        .select(
            *(
                F.unix_millis(F.col(_TIME)).alias(name) if name == "time_ms" else F.col(name)
                for name in CLUSTER_FACT_COLUMNS
            )
        )
        .collect()
    )
    facts = [ClusterFact.from_row(row.asDict()) for row in rows]
    return [fact for fact in facts if fact is not None]
