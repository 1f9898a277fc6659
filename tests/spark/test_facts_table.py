"""``gold.cluster_facts``: the replay's facts come back from the table exactly as they went in.

The report reads its facts from this table instead of gathering them again, so a fact that
changed on the way (a 64-bit session id or zxid cut to 32 bits, a null time made 0, a broker
set reordered, an enum name lost) would change the report; every kind and source is written
and read back on both engines.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.stages.facts_table import read_facts, write_facts
from kafkactl_core.replay import ClusterFact, ClusterFactKind
from kafkactl_core.replay.evidence import Source
from tests.helpers import ENGINES, lakehouse_on

_SESSION = 0x1_0000_0A3F_0001
"""A ZooKeeper session id wider than 32 bits."""
_ZXID = 0x5_0000_0012
"""A creation zxid (a ZooKeeper broker epoch) wider than 32 bits."""


def _facts(cluster: str) -> list[ClusterFact]:
    facts = [
        ClusterFact(
            cluster=cluster,
            time_ms=1_700_000_000_000 + i,
            source=list(Source)[i % len(Source)],
            kind=kind,
            ref=f"controller.log:{i + 1}",
            seq=i,
        )
        for i, kind in enumerate(ClusterFactKind)
    ]
    facts.append(
        ClusterFact(
            cluster=cluster,
            time_ms=None,
            source=Source.zk_txn,
            kind=ClusterFactKind.broker_up,
            ref="log.5000000012:zxid=0x500000012",
            seq=2**40,
            broker=3,
            brokers=(3, 1, 2),
            controller_id=1,
            epoch=_ZXID,
            topic="orders",
            scope="topic",
            name="orders",
            key="unclean.leader.election.enable",
            value=None,
            session=_SESSION,
            detail="registered",
        )
    )
    return facts


@pytest.mark.parametrize("engine", ENGINES)
def test_facts_read_back_equal_what_was_written(
    engine: str, spark: SparkSession, lakehouse_dir: Path
) -> None:
    lakehouse = lakehouse_on(engine, spark, str(lakehouse_dir))
    assert read_facts(lakehouse, "east") is None
    for cluster in ("east", "west"):
        assert write_facts(lakehouse, cluster, _facts(cluster), f"run-{cluster}") == len(
            _facts(cluster)
        )

    back = read_facts(lakehouse, "east")

    assert back is not None
    assert sorted(back, key=ClusterFact.order_key) == sorted(
        _facts("east"), key=ClusterFact.order_key
    )
    assert read_facts(lakehouse, "north") == []
