"""The cluster facts on the driver: gathered from the replay's normalized rows, and kept in
``gold.cluster_facts`` for the report and for SQL.

The replay gathers the facts from every silver row (the normalizers run over all of them); the
report needs the same facts, and reading them back from this table spares it that pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pyspark.sql import DataFrame, Row
from pyspark.sql import functions as F

from jobs.lakehouse.port import Lakehouse, WriteMode
from jobs.tasks.replay_tasks import ROW_TYPE
from kafkactl_core.replay import CLUSTER_FACT_COLUMNS, ClusterFact
from kafkactl_core.replay.values import ms_to_datetime
from schemas.gold import CLUSTER_FACTS

__all__ = ["collect_facts", "read_facts", "write_facts"]

_TIME = "observed_at"
"""The table's name for ``ClusterFact.time_ms``."""


def write_facts(
    lakehouse: Lakehouse, cluster: str, facts: Sequence[ClusterFact], run_id: str
) -> int:
    """Replace the cluster's rows of ``gold.cluster_facts`` with ``facts``.

    Args:
        lakehouse: the lakehouse.
        cluster: the cluster.
        facts: its facts.
        run_id: this run.

    Returns:
        Rows written.
    """
    rows = []
    for fact in facts:
        row = fact.to_row()
        row[_TIME] = ms_to_datetime(row.pop("time_ms"))
        row["run_id"] = run_id
        rows.append(row)
    return lakehouse.write_rows(CLUSTER_FACTS, rows, WriteMode.replace_cluster, cluster)


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
    return _facts(rows)


def collect_facts(normalized: DataFrame) -> list[ClusterFact]:
    """The cluster facts of a normalized frame (the replay's normalize step), on the driver
    (they are few)."""
    return _facts(
        normalized.filter(F.col(ROW_TYPE) == "fact").select(*CLUSTER_FACT_COLUMNS).collect()
    )


def _facts(rows: Iterable[Row]) -> list[ClusterFact]:
    """Facts from rows of ``CLUSTER_FACT_COLUMNS``; a row of an unknown source or kind is left
    out."""
    facts = (ClusterFact.from_row(row.asDict()) for row in rows)
    return [fact for fact in facts if fact is not None]
