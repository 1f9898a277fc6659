"""``ReplayDriver``: evidence of many partitions and clusters in Arrow-batch-sized pieces, as a
``mapInArrow`` task receives it; partitions finish as soon as the next one starts (sorted input)
and the rows equal those of one fold per partition."""

from __future__ import annotations

from kafkactl_core.replay import (
    ClusterFact,
    ClusterFactKind,
    Fact,
    PartitionEvidence,
    PartitionReplay,
    ReplayDriver,
    ReplayOutput,
    ReplaySettings,
    Source,
    build_timelines,
    partition_key,
)

T0 = 1_700_000_000_000


def stream(cluster, topic, partition):
    def write(t, leader, epoch, isr, version):
        return PartitionEvidence(
            cluster,
            topic,
            partition,
            T0 + t,
            Source.zk_txn,
            Fact.leadership_written,
            f"log:{topic}-{partition}-{t}",
            t,
            leader=leader,
            leader_epoch=epoch,
            isr=isr,
            partition_epoch=version,
        )

    return [
        PartitionEvidence(
            cluster,
            topic,
            partition,
            T0,
            Source.zk_txn,
            Fact.assignment,
            f"log:{topic}-{partition}-a",
            0,
            replicas=(1, 2, 3),
        ),
        write(1, 1, 0, (1, 2, 3), 0),
        write(500, 1, 0, (1, 2), 1),
        write(1010, 2, 1, (2,), 2),
        write(90_000, 2, 1, (2, 1), 3),
    ]


FACTS = [
    ClusterFact(
        c, T0 - 1, Source.controller_log, ClusterFactKind.registered_set, "x", 0, brokers=(1, 2, 3)
    )
    for c in ("a", "b")
] + [
    ClusterFact(c, T0 + 1000, Source.controller_log, ClusterFactKind.broker_down, "y", 1, broker=1)
    for c in ("a", "b")
]


def evidence():
    items = []
    for cluster in ("a", "b"):
        for topic in ("orders", "audit"):
            for partition in range(3):
                items.extend(stream(cluster, topic, partition))
    items.sort(key=lambda ev: (partition_key(ev), ev.order_key()))
    return items


def rows(out):
    """Rows in a canonical order (the driver emits partitions in input order)."""
    elections = sorted(
        (r.to_row() for r in out.elections),
        key=lambda r: (r["cluster"], r["topic"], r["partition"], r["elected_at"]),
    )
    timeline = sorted(repr(sorted(r.to_row().items())) for r in out.timeline)
    anomalies = sorted((a.cluster, a.topic, a.partition, a.kind) for a in out.anomalies)
    return elections, timeline, anomalies


def per_partition(items, timelines, settings):
    out = ReplayOutput()
    keys = sorted({partition_key(ev) for ev in items})
    for cluster, topic, partition in keys:
        fold = PartitionReplay(cluster, topic, partition, timelines[cluster], settings)
        out.extend(
            fold.feed([ev for ev in items if partition_key(ev) == (cluster, topic, partition)])
        )
        out.extend(fold.finish())
    return out


def test_batches_of_a_sorted_stream_give_the_rows_of_one_fold_per_partition():
    items = evidence()
    timelines = build_timelines(FACTS)
    settings = ReplaySettings.of("2.8")
    expected = per_partition(items, timelines, settings)
    assert len(expected.elections) == 12
    driver = ReplayDriver(timelines, settings)
    got = ReplayOutput()
    for start in range(0, len(items), 7):
        got.extend(driver.feed(items[start : start + 7]))
        # Sorted input: everything but the partition in progress is already out.
        assert driver.open_partitions <= 1
    got.extend(driver.finish())
    assert rows(got) == rows(expected)


def test_unsorted_input_keeps_every_partition_until_finish():
    items = evidence()
    timelines = build_timelines(FACTS)
    settings = {"a": ReplaySettings.of("2.8"), "b": ReplaySettings.of("2.8")}
    interleaved = sorted(items, key=lambda ev: (ev.time_ms, partition_key(ev)))
    driver = ReplayDriver(timelines, settings, sorted_input=False)
    got = driver.feed(interleaved)
    got.extend(driver.finish())
    assert rows(got) == rows(per_partition(items, timelines, ReplaySettings.of("2.8")))


def test_a_cluster_without_settings_is_an_anomaly_not_an_exception():
    items = evidence()
    driver = ReplayDriver(build_timelines(FACTS), {"a": ReplaySettings.of("2.8")})
    out = driver.feed(items)
    out.extend(driver.finish())
    assert {r.cluster for r in out.elections} == {"a"}
    (anomaly,) = [a for a in out.anomalies if a.cluster == "b"]
    assert anomaly.kind == "unusable_evidence" and "'b'" in anomaly.detail
