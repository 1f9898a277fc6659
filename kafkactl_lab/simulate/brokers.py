"""Operations on broker processes: start, crash, clean stop (controlled shutdown), rolling
restart, and the controller's session expiring."""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.model import (
    ReplicaState,
    TopicPartition,
)
from kafkactl_core.zkcontroller.requests import (
    StopReplicaRequest,
)
from kafkactl_lab.simulate import ops as o
from kafkactl_lab.simulate.cluster import Cluster, us
from kafkactl_lab.simulate.delivery import send
from kafkactl_lab.simulate.failover import broker_change, elect, new_controller
from kafkactl_lab.simulate.recording import (
    ReplicaBatch,
    Requests,
)
from kafkactl_lab.simulate.trace import per_partition, play


def start_broker(sim: Cluster, op: o.StartBroker) -> bool:
    """A broker process starts and registers; it becomes controller if there is none."""
    runtime = sim.runtime(op.broker)
    if runtime.registered:
        return False
    sim.register(op.broker)
    if not op.reregistration:
        sim.r.thread_started(op.broker)
    if sim.controller is None:
        sim.call(sim.zk.broker_startup, op.broker)
        sim.zk.drain()
        elect(sim, op.broker)
    else:
        sim.r.already_elected(op.broker, sim.controller)
        broker_change(sim, [op.broker], [])
    return True


def crash_broker(sim: Cluster, op: o.CrashBroker) -> bool:
    """A broker dies: its session expires, the controller (or its successor) fails it over."""
    broker = sim.pick_live(op.broker)
    if broker is None:
        return False
    was_controller = broker == sim.controller
    sim.unregister(broker, expired=True)
    _gone(sim, broker, was_controller, (), op.restart_after_s)
    return True


def stop_broker(sim: Cluster, op: o.StopBroker) -> bool:
    """A clean stop: up to three controlled-shutdown attempts, then the session closes."""
    broker = sim.pick_live(op.broker)
    if broker is None:
        return False
    sim.r.shutdown_requested(broker)
    shutting: list[int] = []
    if sim.controller is not None:
        for attempt in range(3):
            remaining = controlled_shutdown(sim, broker)
            shutting = [broker]
            sim.r.shutdown_answer(broker, remaining, last=attempt == 2)
            if not remaining:
                break
            sim.clock.advance_to(sim.clock.now_us + 5_000_000)
    was_controller = broker == sim.controller
    if was_controller:
        sim.r.resign(broker, sim.live)
    sim.unregister(broker, expired=False)
    _gone(sim, broker, was_controller, shutting, op.restart_after_s)
    return True


def _gone(
    sim: Cluster,
    broker: int,
    was_controller: bool,
    shutting: Sequence[int],
    restart_after_s: float | None,
) -> None:
    """A broker's registration is gone: a new controller, else the broker change; its restart."""
    if was_controller:
        sim.call(sim.zk.broker_failure, broker)
        sim.zk.drain()
        new_controller(sim, broker)
    elif sim.controller is not None:
        broker_change(sim, [], [broker], shutting)
    else:
        sim.call(sim.zk.broker_failure, broker)
        sim.zk.drain()
    if restart_after_s is not None:
        sim.schedule(o.StartBroker(sim.clock.now_us + us(restart_after_s), broker))


def controlled_shutdown(sim: Cluster, broker: int) -> list[TopicPartition]:
    """One ControlledShutdown request handled by the controller; the partitions left."""
    c = sim.active_controller()
    ctx = sim.zk.ctx
    shutting = sorted(ctx.shutting_down | {broker})
    live = sorted(set(ctx.live_broker_ids) - {broker})
    sim.r.shutdown_controller(c, broker, shutting, live)
    result = sim.call(sim.zk.controlled_shutdown, broker)
    steps = sim.zk.drain()
    followed = [
        tp
        for step in steps
        if isinstance(step, ReplicaBatch) and step.target is ReplicaState.OfflineReplica
        for (tp, _), _ in step.before
    ]
    if sim.r.per_partition_controlled_shutdown:
        # before 1.1 each partition is handled on its own: an election for a led partition,
        # a StopReplica then the ISR removal for a followed one
        for chunk in per_partition(steps):
            head = chunk[-1]
            if isinstance(head, ReplicaBatch):
                tp = head.before[0][0][0]
                send(sim, Requests((), (StopReplicaRequest((broker,), tp, False),)))
            play(sim, chunk)
    else:
        stops = Requests((), tuple(StopReplicaRequest((broker,), tp, False) for tp in followed))
        sent = False
        for step in steps:
            if isinstance(step, ReplicaBatch) and not sent:
                # the StopReplica batch for the followed partitions precedes their removal
                sent = True
                send(sim, stops)
            play(sim, [step])
        if not sent:
            send(sim, stops)
    leaders = [
        (tp, lai, sim.state_epoch.get(tp, sim.epoch)) for tp, lai in sorted(ctx.leadership.items())
    ]
    sim.r.all_leaders(c, leaders)
    return list(result.partitions_remaining or ())


def rolling_restart(sim: Cluster, op: o.RollingRestart) -> bool:
    """Schedules a clean stop and restart of each broker, one after the other."""
    brokers = list(op.brokers) if op.brokers is not None else sim.live
    if not brokers:
        return False
    at = sim.clock.now_us
    for b in brokers:
        sim.schedule(o.StopBroker(at, b, op.down_s))
        at += us(op.interval_s)
    return True


def expire_controller_session(sim: Cluster, op: o.ExpireControllerSession) -> bool:
    """The controller's session expires: a successor is elected, the old one re-registers."""
    old = sim.controller
    if old is None or len(sim.live) < 2:
        return False
    channels = sim.live
    sim.unregister(old, expired=True)
    sim.call(sim.zk.broker_failure, old)
    sim.zk.drain()
    sim.r.resign(old, channels)
    new_controller(sim, old, op.successor)
    at = sim.clock.now_us + us(op.reregister_after_s)
    sim.schedule(o.StartBroker(at, old, reregistration=True))
    return True
