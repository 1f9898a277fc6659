"""Hand-built evidence for the fold's tests: one partition ``t-0`` of cluster ``c``, replayed
with cluster facts for liveness and configs.

Evidence is built directly (``PartitionEvidence``) the way the normalizers produce it; times are
milliseconds after ``T0``.
"""

from __future__ import annotations

from kafkactl_core.replay import (
    ClusterFact,
    ClusterFactKind,
    ElectionRow,
    Fact,
    PartitionEvidence,
    ReplayOutput,
    ReplaySettings,
    Source,
    build_timelines,
    replay,
)

T0 = 1_700_000_000_000
K = ClusterFactKind
F = Fact
ZK = Source.zk_txn
SC = Source.state_change_log
CTRL = Source.controller_log
SRV = Source.server_log


def ev(fact, t, source=ZK, *, topic="t", partition=0, ref=None, **values):
    return PartitionEvidence(
        "c", topic, partition, T0 + t, source, fact, ref or f"{source.name}:{t}", t, **values
    )


def write(t, leader, epoch, isr, version, source=ZK, **values):
    return ev(
        F.leadership_written,
        t,
        source,
        leader=leader,
        leader_epoch=epoch,
        isr=tuple(isr),
        partition_epoch=version,
        **values,
    )


def transition(t, origin, target, **values):
    """A partition transition ``origin -> target`` logged in state-change.log at ``t``."""
    return ev(F.partition_transition, t, SC, from_state=origin, to_state=target, **values)


def election_line(t, origin, leader, epoch, isr, version, **values):
    """A transition ``origin -> OnlinePartition`` logged with the leadership it wrote."""
    return transition(
        t,
        origin,
        "OnlinePartition",
        leader=leader,
        leader_epoch=epoch,
        isr=tuple(isr),
        partition_epoch=version,
        **values,
    )


def isr_change(t, previous, isr, leader=1, **values):
    """The leader's server log at ``t``: its ISR went from ``previous`` to ``isr``."""
    return ev(
        F.isr_changed,
        t,
        SRV,
        leader=leader,
        previous_isr=tuple(previous),
        isr=tuple(isr),
        broker=leader,
        **values,
    )


def fact(kind, t, **values):
    return ClusterFact("c", T0 + t, CTRL, kind, f"controller.log:{t}", t, **values)


def unclean_enabled(t):
    """Topic ``t``'s ``unclean.leader.election.enable`` set to true at ``t``."""
    return fact(
        K.config, t, scope="topic", name="t", key="unclean.leader.election.enable", value="true"
    )


def registered(t, *brokers):
    return fact(K.registered_set, t, brokers=brokers)


def run(evidence, facts=(), version="2.8", **settings) -> ReplayOutput:
    return replay(evidence, build_timelines(facts), ReplaySettings.of(version, **settings))


def only(rows):
    assert len(rows) == 1, rows
    return rows[0]


def before_and_after(row: ElectionRow) -> tuple[object, ...]:
    """What an election row says was in force: the controller epoch; the leader, its epoch and
    the ISR before; the leader epoch, ISR and partition epoch after."""
    return (
        row.controller_epoch,
        row.prev_leader,
        row.prev_leader_epoch,
        row.isr_before,
        row.leader_epoch,
        row.isr_after,
        row.partition_epoch,
    )


def kinds(out):
    return sorted(a.kind for a in out.anomalies)


ASSIGN = ev(F.assignment, 0, replicas=(1, 2, 3), detail="topic_znode")
STABLE = [ASSIGN, write(1, 1, 3, [1, 2, 3], 10)]
"""Leader 1 at epoch 3 (znode version 10) with the full ISR."""


def unclean_stream(topic_unclean: bool):
    """2.8: broker 2 falls out of the ISR, leader 1 dies (election fails, leader -1 with ISR
    [1] kept), broker 2 comes back and is elected although it is not in the ISR."""
    evidence = [
        *STABLE,
        isr_change(
            100,
            [1, 2, 3],
            [1, 3],
            high_watermark=120,
            end_offset=125,
            detail="(brokerId: 2, endOffset: 90)",
        ),
        write(101, 1, 3, [1, 3], 11),
        isr_change(200, [1, 3], [1]),
        write(201, 1, 3, [1], 12),
        ev(F.election_failed, 1010, SC, from_state="OfflinePartition", to_state="OnlinePartition"),
        write(1012, -1, 4, [1], 13),
        write(60_000, 2, 5, [2], 14),
    ]
    facts = [
        registered(-10, 1, 2, 3),
        fact(K.broker_down, 150, broker=2),
        fact(K.broker_down, 180, broker=3),
        fact(K.broker_down, 1000, broker=1),
        fact(K.broker_up, 59_990, broker=2),
    ]
    if topic_unclean:
        facts.append(unclean_enabled(50))
    return evidence, facts
