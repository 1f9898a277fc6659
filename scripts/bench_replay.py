"""Benchmark of the replay fold: prints throughput on one core, asserts nothing.

Generates a stream of evidence (default 1,200,000 records over 4,000 partitions of a 12-broker
ZooKeeper-mode cluster, 2.8 rules) with a realistic mix: leader-driven ISR shrinks and expands
(server.log line + ZooKeeper write), controller elections after broker failures (state-change
transition, ZooKeeper write, LeaderAndIsr sent, the new leader's "starts at leader epoch" line),
controlled-shutdown and preferred elections, replica state transitions, a few unclean and
failed elections. Broker failures and restarts are cluster facts (liveness timeline). The
stream is sorted like the Spark job sorts it, then fed to ``ReplayDriver`` in Arrow-batch-sized
chunks; generation and sorting are not timed.

Usage: ``python scripts/bench_replay.py [--events N] [--partitions P] [--chunk C] [--repeat R]
[--profile]``. The rate printed is events per second of CPU time of this process (one core; a
busy machine does not skew it), with the wall-clock rate beside it.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafkactl_core.replay import (
    ClusterFact,
    ClusterFactKind,
    Fact,
    PartitionEvidence,
    ReplayDriver,
    ReplaySettings,
    Source,
    build_timelines,
)

CLUSTER = "bench"
BROKERS = 12
T0 = 1_700_000_000_000


def broker_facts(
    rng: random.Random, span_ms: int
) -> tuple[list[ClusterFact], list[tuple[int, int, int]]]:
    """Broker outages: (broker, down_at, up_at) and the facts announcing them."""
    facts = [
        ClusterFact(
            CLUSTER,
            T0 - 1,
            Source.controller_log,
            ClusterFactKind.registered_set,
            "controller.log:1",
            brokers=tuple(range(BROKERS)),
        )
    ]
    outages: list[tuple[int, int, int]] = []
    at = T0 + 60_000
    line = 2
    while at < T0 + span_ms:
        broker = rng.randrange(BROKERS)
        down = at
        up = at + rng.randrange(30_000, 600_000)
        outages.append((broker, down, up))
        facts.append(
            ClusterFact(
                CLUSTER,
                down,
                Source.controller_log,
                ClusterFactKind.broker_down,
                f"controller.log:{line}",
                broker=broker,
            )
        )
        facts.append(
            ClusterFact(
                CLUSTER,
                up,
                Source.controller_log,
                ClusterFactKind.broker_up,
                f"controller.log:{line + 1}",
                broker=broker,
            )
        )
        line += 2
        at += rng.randrange(120_000, 900_000)
    return facts, outages


def partition_stream(
    rng: random.Random, topic: str, partition: int, events: int, outages: list[tuple[int, int, int]]
) -> list[PartitionEvidence]:
    """One partition's evidence: a small simulation with the mix described above."""
    out: list[PartitionEvidence] = []
    assignment = tuple(rng.sample(range(BROKERS), 3))
    leader = assignment[0]
    isr = assignment
    epoch = 0
    version = 0
    now = T0 + rng.randrange(1_000)
    line = partition * 1_000_000
    replica_states: dict[int, str] = {}
    zxid = partition * 1_000_000

    def add(source: Source, fact: Fact, **values: Any) -> None:
        nonlocal line, zxid
        if source is Source.zk_txn:
            zxid += 1
            ref, seq = f"log.1:zxid=0x{zxid:x}", zxid
        else:
            line += 1
            ref, seq = f"{source.name}.log:{line}", line
        out.append(
            PartitionEvidence(CLUSTER, topic, partition, now, source, fact, ref, seq, **values)
        )

    add(Source.zk_txn, Fact.assignment, replicas=assignment)
    add(
        Source.state_change_log,
        Fact.partition_transition,
        from_state="NewPartition",
        to_state="OnlinePartition",
        leader=leader,
        leader_epoch=0,
        isr=isr,
        partition_epoch=0,
        controller_id=0,
        controller_epoch=1,
    )
    add(
        Source.zk_txn,
        Fact.leadership_written,
        leader=leader,
        leader_epoch=0,
        isr=isr,
        partition_epoch=0,
        controller_epoch=1,
    )
    while len(out) < events:
        now += rng.randrange(50, 20_000)
        r = rng.random()
        if r < 0.55:
            # Leader-driven ISR change: broker line then the ZooKeeper write.
            followers = [b for b in assignment if b != leader]
            if len(isr) == len(assignment):
                gone = rng.choice(followers)
                new_isr = tuple(b for b in isr if b != gone)
                fact_detail: dict[str, Any] = {
                    "previous_isr": isr,
                    "high_watermark": rng.randrange(10**6),
                    "end_offset": rng.randrange(10**6),
                }
            else:
                new_isr = tuple(b for b in assignment if b in isr or b != leader)
                fact_detail = {"previous_isr": isr}
            version += 1
            add(
                Source.server_log,
                Fact.isr_changed,
                leader=leader,
                isr=new_isr,
                broker=leader,
                **fact_detail,
            )
            add(
                Source.zk_txn,
                Fact.leadership_written,
                leader=leader,
                leader_epoch=epoch,
                isr=new_isr,
                partition_epoch=version,
                controller_epoch=1,
            )
            isr = new_isr
        elif r < 0.88:
            replica = rng.choice(assignment)
            before = replica_states.get(replica, "OnlineReplica")
            after = "OfflineReplica" if before == "OnlineReplica" else "OnlineReplica"
            replica_states[replica] = after
            add(
                Source.state_change_log,
                Fact.replica_transition,
                replica=replica,
                from_state=before,
                to_state=after,
                controller_id=0,
                controller_epoch=1,
            )
        elif r < 0.985:
            # An election: who leads next, by a rough mix of triggers.
            candidates = [b for b in assignment if b in isr and b != leader]
            unclean = not candidates or rng.random() < 0.02
            if unclean:
                outside = [b for b in assignment if b not in isr]
                if not outside:
                    continue
                new_leader = rng.choice(outside)
                new_isr = (new_leader,)
            else:
                new_leader = candidates[0]
                new_isr = tuple(b for b in isr if b != leader) or (new_leader,)
            origin = "OnlinePartition" if rng.random() < 0.5 else "OfflinePartition"
            if origin == "OfflinePartition":
                add(
                    Source.state_change_log,
                    Fact.partition_transition,
                    from_state="OnlinePartition",
                    to_state="OfflinePartition",
                    controller_id=0,
                    controller_epoch=1,
                )
            epoch += 1
            version += 1
            values: dict[str, Any] = dict(
                leader=new_leader,
                leader_epoch=epoch,
                isr=new_isr,
                partition_epoch=version,
                controller_id=0,
                controller_epoch=1,
            )
            add(
                Source.state_change_log,
                Fact.partition_transition,
                from_state=origin,
                to_state="OnlinePartition",
                **values,
            )
            add(
                Source.zk_txn,
                Fact.leadership_written,
                leader=new_leader,
                leader_epoch=epoch,
                isr=new_isr,
                partition_epoch=version,
                controller_epoch=1,
            )
            add(Source.state_change_log, Fact.leadership_observed, replicas=assignment, **values)
            now += rng.randrange(1, 50)
            add(
                Source.server_log,
                Fact.leader_started,
                leader=new_leader,
                leader_epoch=epoch,
                previous_leader_epoch=epoch - 1,
                start_offset=rng.randrange(10**6),
                broker=new_leader,
            )
            leader, isr = new_leader, new_isr
        else:
            # A failed election: the partition goes offline, then comes back.
            add(
                Source.state_change_log,
                Fact.partition_transition,
                from_state="OnlinePartition",
                to_state="OfflinePartition",
                controller_id=0,
                controller_epoch=1,
            )
            add(
                Source.state_change_log,
                Fact.election_failed,
                from_state="OfflinePartition",
                to_state="OnlinePartition",
                controller_id=0,
                controller_epoch=1,
            )
            epoch += 1
            version += 1
            add(
                Source.zk_txn,
                Fact.leadership_written,
                leader=-1,
                leader_epoch=epoch,
                isr=isr,
                partition_epoch=version,
                controller_epoch=1,
            )
            leader = -1
            now += rng.randrange(1_000, 60_000)
            new_leader = isr[0]
            epoch += 1
            version += 1
            add(
                Source.state_change_log,
                Fact.partition_transition,
                from_state="OfflinePartition",
                to_state="OnlinePartition",
                leader=new_leader,
                leader_epoch=epoch,
                isr=isr,
                partition_epoch=version,
                controller_id=0,
                controller_epoch=1,
            )
            add(
                Source.zk_txn,
                Fact.leadership_written,
                leader=new_leader,
                leader_epoch=epoch,
                isr=isr,
                partition_epoch=version,
                controller_epoch=1,
            )
            leader = new_leader
    return out


def generate(
    events: int, partitions: int, seed: int
) -> tuple[list[PartitionEvidence], list[ClusterFact]]:
    rng = random.Random(seed)
    per = max(10, events // partitions)
    span = per * 10_000
    facts, outages = broker_facts(rng, span)
    evidence: list[PartitionEvidence] = []
    for p in range(partitions):
        evidence.extend(partition_stream(rng, f"topic-{p % 40}", p, per, outages))
    evidence.sort(key=lambda ev: ((ev.cluster, ev.topic, ev.partition), ev.order_key()))
    return evidence, facts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_200_000)
    parser.add_argument("--partitions", type=int, default=4_000)
    parser.add_argument("--chunk", type=int, default=10_000, help="records per feed() call")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3, help="runs; the fastest is printed")
    parser.add_argument("--profile", action="store_true", help="print the top of a cProfile")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    evidence, facts = generate(args.events, args.partitions, args.seed)
    generated = time.perf_counter() - started
    timelines = build_timelines(facts)
    settings = ReplaySettings.of("2.8")
    print(
        f"generated {len(evidence):,} evidence records over {args.partitions:,} partitions "
        f"and {len(facts):,} cluster facts in {generated:.1f} s (not timed below)"
    )

    def run() -> tuple[float, float, int, int, int]:
        driver = ReplayDriver(timelines, settings)
        elections = timeline = anomalies = 0
        cpu = time.process_time()
        begin = time.perf_counter()
        for start in range(0, len(evidence), args.chunk):
            out = driver.feed(evidence[start : start + args.chunk])
            elections += len(out.elections)
            timeline += len(out.timeline)
            anomalies += len(out.anomalies)
        out = driver.finish()
        elapsed = time.perf_counter() - begin
        cpu = time.process_time() - cpu
        return (
            elapsed,
            cpu,
            elections + len(out.elections),
            timeline + len(out.timeline),
            anomalies + len(out.anomalies),
        )

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return 0
    best: tuple[float, float, int, int, int] | None = None
    for _ in range(args.repeat):
        result = run()
        if best is None or result[1] < best[1]:
            best = result
    assert best is not None
    elapsed, cpu, elections, timeline, anomalies = best
    print(
        f"fold (one core, chunks of {args.chunk:,}, best of {args.repeat}): {len(evidence):,} "
        f"events in {cpu:.2f} s CPU = {len(evidence) / cpu:,.0f} events/s "
        f"(wall {elapsed:.2f} s = {len(evidence) / elapsed:,.0f} events/s)"
    )
    print(
        f"rows: {elections:,} elections, {timeline:,} timeline intervals, {anomalies:,} anomalies"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
