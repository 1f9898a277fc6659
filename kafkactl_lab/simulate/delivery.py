"""Requests the controller sends, delivered to the live brokers, which log what they do with
them (become leader or follower, ignore a stale epoch, cache metadata)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kafkactl_core.model import (
    NO_LEADER,
    LeaderAndIsr,
    TopicPartition,
)
from kafkactl_core.zkcontroller.requests import (
    UpdateMetadataRequest,
)
from kafkactl_lab.simulate import ops as o
from kafkactl_lab.simulate.cluster import BrokerRuntime, Cluster, us
from kafkactl_lab.simulate.recording import (
    Requests,
)
from kafkactl_lab.simulate.render_base import (
    FollowerStart,
    LaiEntry,
    LaiOutcome,
    LeaderStart,
    RequestInfo,
)


def update_metadata(
    sim: Cluster, brokers: Sequence[int], partitions: Sequence[TopicPartition]
) -> None:
    """``sendUpdateMetadataRequest`` outside a state-machine batch.

    Before 1.1 an empty partition set means every partition with a leader.
    """
    if not partitions and sim.r.update_all_when_empty:
        ctx = sim.zk.ctx
        partitions = sorted(tp for tp in ctx.leadership if tp.topic not in sim.deleting)
    send(sim, Requests((), (), (UpdateMetadataRequest(tuple(brokers), tuple(partitions)),)))


def _request_info(
    sim: Cluster, partitions: Iterable[TopicPartition], registered: set[int]
) -> RequestInfo:
    ctx = sim.zk.ctx
    parts = list(dict.fromkeys(partitions))
    leaderships = {tp: lai for tp in parts if (lai := sim.leadership(tp)) is not None}
    return RequestInfo(
        {tp: ctx.assignment(tp) for tp in parts},
        leaderships,
        {tp: sim.state_epoch.get(tp, sim.epoch) for tp in parts},
        frozenset(registered),
        frozenset(sim.deleting),
    )


def send(sim: Cluster, requests: Requests) -> None:
    """``sendRequestsToBrokers``: log the batch, then let each live broker handle its part."""
    c = sim.active_controller()
    registered = {b for b, s in sim.brokers.items() if s.registered}
    lai_map: dict[int, dict[TopicPartition, tuple[LeaderAndIsr, bool]]] = {}
    update_brokers: set[int] = set()
    update_parts: dict[TopicPartition, None] = {}
    for entry in requests.leader_and_isr:
        for broker in entry.brokers:
            if broker < 0:
                continue
            per = lai_map.setdefault(broker, {})
            already_new = entry.partition in per and per[entry.partition][1]
            per[entry.partition] = (entry.leader_and_isr, entry.is_new or already_new)
        update_brokers |= registered
        update_parts[entry.partition] = None
    for update in requests.update_metadata:
        update_brokers |= set(update.brokers)
        for tp in update.partitions:
            update_parts[tp] = None
    stop_map: dict[int, list[tuple[TopicPartition, bool]]] = {}
    for stop in requests.stop_replica:
        for broker in stop.brokers:
            stop_map.setdefault(broker, []).append((stop.partition, stop.delete))
    lai_sent = [
        (b, [(tp, lai, new) for tp, (lai, new) in lai_map[b].items()])
        for b in sorted(lai_map)
        if b in registered or not sim.r.lai_filtered_to_live
    ]
    stop_sent = [(b, stop_map[b]) for b in sorted(stop_map)]
    info = _request_info(
        sim,
        [tp for _, entries in lai_sent for tp, _, _ in entries] + list(update_parts),
        registered,
    )
    sim.r.requests_sent(
        c, sim.epoch, lai_sent, sorted(update_brokers), list(update_parts), stop_sent, info
    )
    receivers = (set(lai_map) | update_brokers | set(stop_map)) & registered
    for broker in sorted(receivers):
        runtime = sim.brokers[broker]
        if not runtime.connected:
            runtime.connected = True
            sim.r.channel_connected(c, broker)
        if broker in lai_map:
            broker_leader_and_isr(sim, runtime, lai_map[broker], info)
        if broker in update_brokers:
            runtime.correlation += 1
            entries = [(tp, sim.leadership(tp), tp.topic in sim.deleting) for tp in update_parts]
            sim.r.broker_update_metadata(broker, c, sim.epoch, runtime.correlation, entries, info)
        if broker in stop_map:
            runtime.correlation += 1
            sim.r.broker_stop_replica(broker, c, sim.epoch, runtime.correlation, stop_map[broker])
            for tp, delete in stop_map[broker]:
                if delete:
                    runtime.epochs.pop(tp, None)


def broker_leader_and_isr(
    sim: Cluster,
    runtime: BrokerRuntime,
    entries: Mapping[TopicPartition, tuple[LeaderAndIsr, bool]],
    info: RequestInfo,
) -> None:
    """A broker applies a LeaderAndIsr request (newer leader epochs only)."""
    c = sim.active_controller()
    runtime.correlation += 1
    stale: list[tuple[TopicPartition, int, int]] = []
    leaders: list[LeaderStart] = []
    followers: list[FollowerStart] = []
    received: list[LaiEntry] = []
    behind: dict[int, list[tuple[str, int, int]]] = {}
    b = runtime.broker
    for tp, (lai, is_new) in entries.items():
        current = runtime.epochs.get(tp, -1)
        if lai.leader_epoch <= current:
            stale.append((tp, lai.leader_epoch, current))
            received.append(LaiEntry(tp, lai, is_new, "stale", current, 0))
            continue
        if lai.leader == NO_LEADER:
            # makeFollowers finds no live leader: the partition keeps its leader epoch
            received.append(LaiEntry(tp, lai, is_new, "leaderless", current, 0))
            continue
        runtime.epochs[tp] = lai.leader_epoch
        # a replica created by this request (reassignment target) starts with an empty log
        offset = 0 if is_new and current < 0 and lai.leader != b else sim.log_end(tp)
        if lai.leader == b:
            start = LeaderStart(tp, lai, current, offset, offset, sim.assignment(tp))
            leaders.append(start)
            received.append(LaiEntry(tp, lai, is_new, "leader", current, offset))
        else:
            followers.append(FollowerStart(tp, lai, current, offset, offset))
            received.append(LaiEntry(tp, lai, is_new, "follower", current, offset))
            if b not in lai.isr and not is_new and (tp, b) not in sim.catching_up:
                # a restarted follower fetches from the leader and rejoins the ISR
                sim.catching_up.add((tp, b))
                behind.setdefault(lai.leader, []).append((tp.topic, tp.partition, b))
    elapsed = 3 + (len(leaders) + len(followers)) // 2
    outcome = LaiOutcome(
        b,
        c,
        sim.epoch,
        runtime.correlation,
        len(entries),
        tuple(stale),
        tuple(leaders),
        tuple(followers),
        elapsed,
        tuple(received),
        info,
    )
    start_us = sim.clock.now_us
    sim.r.broker_leader_and_isr(outcome)
    sim.clock.advance_to(start_us + elapsed * 1000)
    for leader in sorted(behind):
        at = sim.clock.now_us + us(sim.rng.uniform(2.0, 45.0))
        sim.schedule(o.CatchUp(at, tuple(behind[leader])))
