"""Controller elections and failovers, and the controller's handling of broker changes."""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.model import (
    PartitionState,
    ReplicaState,
)
from kafkactl_lab.simulate import znodes
from kafkactl_lab.simulate.cluster import Cluster
from kafkactl_lab.simulate.delivery import update_metadata
from kafkactl_lab.simulate.recording import (
    LeadershipWrite,
    PartitionBatch,
    ReplicaBatch,
    Step,
)
from kafkactl_lab.simulate.topics import finish_deletions
from kafkactl_lab.simulate.trace import play


def elect(sim: Cluster, c: int) -> None:
    """``elect()`` won by ``c``, then ``onControllerFailover``."""
    session = sim.session(c)
    first = not sim.history.exists("/controller_epoch")
    previous = (sim.epoch, sim.epoch_zk_version)
    controller_data = znodes.controller(c, sim.clock.now_ms)
    if sim.r.fenced_writes:
        if first:
            initial = str(sim.r.initial_epoch_value)
            sim.history.write("create", session, "/controller_epoch", initial)
        current = sim.r.initial_epoch_value if first else sim.epoch
        sim.history.multi(
            session,
            [
                {
                    "op": "create",
                    "path": "/controller",
                    "data": controller_data,
                    "ephemeral": True,
                },
                {
                    "op": "setData",
                    "path": "/controller_epoch",
                    "data": str(current + 1),
                    "version": sim.history.version("/controller_epoch"),
                },
            ],
        )
    else:
        sim.history.write("create", session, "/controller", controller_data, ephemeral=True)
        if first:
            initial = str(sim.r.initial_epoch_value)
            sim.history.write("create", session, "/controller_epoch", initial)
        else:
            sim.history.write(
                "setData",
                session,
                "/controller_epoch",
                str(sim.epoch + 1),
                version=sim.history.version("/controller_epoch"),
            )
    sim.epoch = sim.zk.controller_epoch + 1
    sim.epoch_zk_version = sim.history.version("/controller_epoch")
    sim.controller = c
    for runtime in sim.brokers.values():
        runtime.connected = False
        runtime.correlation = 0
    create_feature = sim.r.feature_znode and not sim.history.exists("/feature")
    sim.r.elected_lines(c, sim.epoch, sim.epoch_zk_version, first, *previous)
    if create_feature:
        sim.history.write("create", session, "/feature", znodes.feature_znode())
    sim.r.failover_begin(c, sim.epoch, create_feature)
    live = sim.live
    epochs = [(b, sim.brokers[b].epoch) for b in live]
    sim.r.context(c, epochs, live, [], sim.topics(), sorted(sim.deleting), [])
    update_metadata(sim, live, [])
    result = sim.call(sim.zk.controller_failover, c)
    if result.error is not None:
        raise RuntimeError(f"controller failover to {c} failed: {result.error}")
    failover_steps(sim, c, sim.zk.drain())
    sim.schedule_rebalance(sim.clock.now_us + 5_000_000)
    for b in live:
        if b != c:
            sim.r.already_elected(b, c)


def failover_steps(sim: Cluster, c: int, steps: list[Step]) -> None:
    """The failover's trace, with the state machines' startup lines around it."""
    ctx = sim.zk.ctx
    sim.r.replica_startup(c, "initializing")
    i = 0
    while i < len(steps):
        step = steps[i]
        if isinstance(step, ReplicaBatch) and step.startup:
            online = step.target is ReplicaState.OnlineReplica
            sim.r.replica_startup(c, "online" if online else "offline")
            play(sim, [step])
            i += 1
            if not online:
                break
            continue
        play(sim, [step])
        i += 1
    states = [
        (tp, r, ctx.replica_state((tp, r)).name)
        for tp in sorted(ctx.assignments)
        for r in ctx.assignment(tp).replicas
    ]
    sim.r.replica_started(c, states)
    sim.r.partition_startup(c)
    j = i
    while j < len(steps) and isinstance(steps[j], LeadershipWrite):
        j += 1
    trigger = steps[j] if j < len(steps) else None
    if (
        isinstance(trigger, PartitionBatch)
        and trigger.target is PartitionState.OnlinePartition
        and trigger.requested_by is None
    ):
        play(sim, steps[i : j + 1])
        i = j + 1
    partition_states = [(tp, ctx.partition_state(tp).name) for tp in sorted(ctx.assignments)]
    sim.r.partition_started(c, partition_states)
    sim.r.failover_ready(c, sim.epoch)
    play(sim, steps[i:])
    sim.r.failover_end(c)


def new_controller(sim: Cluster, old: int, successor: int | None = None) -> None:
    """``/controller`` is gone: another live broker wins the election."""
    sim.controller = None
    candidates = [b for b in sim.live if b != old]
    if not candidates:
        return
    chosen = successor if successor in candidates else sim.rng.choice(candidates)
    assert chosen is not None
    elect(sim, chosen)


def broker_change(
    sim: Cluster, added: Sequence[int], deleted: Sequence[int], were_shutting: Sequence[int] = ()
) -> None:
    """``processBrokerChange`` on the controller."""
    c = sim.active_controller()
    sim.r.broker_change(c, list(added), list(deleted), [], sim.live)
    for b in added:
        sim.r.channel_started(c, b)
    for b in deleted:
        sim.r.channel_stopped(c, b)
    for b in added:
        existing = [x for x in sim.live if x not in added]
        sim.r.broker_startup_callback(c, [b])
        if sim.r.update_all_when_empty:
            update_metadata(sim, sim.live, [])
        else:
            update_metadata(sim, existing, [])
            ctx = sim.zk.ctx
            leaders = sorted(tp for tp in ctx.leadership if tp.topic not in sim.deleting)
            update_metadata(sim, [b], leaders)
        sim.call(sim.zk.broker_startup, b)
        play(sim, sim.zk.drain())
    for b in deleted:
        sim.r.broker_failure_callback(c, [b], [x for x in were_shutting if x == b])
        sim.call(sim.zk.broker_failure, b)
        steps = sim.zk.drain()
        offline = any(
            isinstance(s, PartitionBatch)
            and s.target is PartitionState.OfflinePartition
            and s.before
            for s in steps
        )
        play(sim, steps)
        if not offline:
            update_metadata(sim, sim.live, [])
    sim.r.broker_epochs(c, [(b, sim.brokers[b].epoch) for b in sim.live])
    finish_deletions(sim)
