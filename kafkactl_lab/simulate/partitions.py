"""Operations on partitions: the auto leader rebalance, ISR shrinks and expansions, catch-ups,
and the road to an unclean election (an isolated leader)."""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.model import (
    LeaderAndIsr,
    TopicPartition,
)
from kafkactl_lab.simulate import ops as o
from kafkactl_lab.simulate import znodes
from kafkactl_lab.simulate.cluster import UNCLEAN, Cluster, us
from kafkactl_lab.simulate.delivery import update_metadata
from kafkactl_lab.simulate.recording import (
    IsrUpdate,
    LeadershipWrite,
    PartitionBatch,
    Step,
)
from kafkactl_lab.simulate.scala import ScalaVersion, champ_order, immutable_set_order
from kafkactl_lab.simulate.trace import per_partition, play, state_write


def auto_rebalance(sim: Cluster, op: o.AutoRebalance) -> bool:
    """One run of the auto leader rebalance task, per preferred broker."""
    c = sim.controller
    if c is None or (op.epoch is not None and op.epoch != sim.epoch):
        return False
    sim.r.rebalance_begin(c)
    ctx = sim.zk.ctx
    members: dict[int, list[tuple[TopicPartition, Sequence[int]]]] = {}
    for tp in sorted(ctx.assignments):
        replicas = ctx.assignment(tp).replicas
        if replicas and not ctx.is_queued_for_deletion(tp.topic):
            members.setdefault(replicas[0], []).append((tp, replicas))
    result = sim.call(sim.zk.auto_rebalance_check)
    steps = sim.zk.drain()
    groups = result.imbalance or {}
    if sim.r.scala is ScalaVersion.v2_13:
        order: Sequence[int] = champ_order(sorted(groups))
    else:
        order = immutable_set_order(sorted(groups), sim.r.scala)
    sim.r.rebalance_overview(c, [(b, members.get(b, [])) for b in order])
    by_broker: dict[int, list[Step]] = {}
    pending: list[Step] = []
    for step in steps:
        pending.append(step)
        if isinstance(step, PartitionBatch):
            head = step.before[0][0] if step.before else None
            preferred = sim.assignment(head).replicas[0] if head is not None else -1
            by_broker.setdefault(preferred, []).extend(pending)
            pending = []
    chunks: dict[TopicPartition, list[Step]] = {}
    for chunk in per_partition(steps):
        last = chunk[-1]
        if isinstance(last, PartitionBatch) and last.before:
            chunks[last.before[0][0]] = chunk
    batched = sim.profile.auto_rebalance_batched
    for broker in order:
        group = groups[broker]
        not_preferred = [(tp, sim.assignment(tp).replicas) for tp in group.not_preferred]
        sim.r.rebalance_group(c, broker, not_preferred, group.ratio)
        if not group.rebalance:
            continue
        rounds = [list(group.candidates)] if batched else [[tp] for tp in group.candidates]
        for partitions in rounds:
            sim.r.preferred_started(c, partitions, "AutoTriggered")
            if batched:
                play(sim, by_broker.get(broker, []))
            else:
                play(sim, chunks.get(partitions[0], []))
            for tp in partitions:
                lai = sim.leadership(tp)
                if lai is not None:
                    preferred = sim.assignment(tp).replicas[0]
                    sim.r.preferred_result(c, tp, preferred, lai.leader)
    if op.epoch is not None:
        sim.schedule_rebalance(op.at_us + us(sim.options.auto_rebalance_interval_s))
    return True


def shrink_isr(sim: Cluster, op: o.ShrinkIsr) -> bool:
    """A leader drops a slow follower from a partition's ISR."""
    picked = pick_isr_change(sim, op.topic, op.partition, op.replica, shrink=True)
    if picked is None:
        return False
    tp, replica = picked
    lai = sim.leadership(tp)
    assert lai is not None
    new_isr = tuple(r for r in lai.isr if r != replica)
    end = sim.log_end(tp)
    behind = max(0, end - sim.rng.randint(1, 5000))
    sim.r.isr_shrinking(lai.leader, tp, lai.isr, new_isr, behind, end, [(replica, behind)])
    if not isr_change(sim, tp, new_isr, lai.leader):
        return False
    if op.expand_after_s is not None:
        sim.pending_expand.add(tp)
        at = sim.clock.now_us + us(op.expand_after_s)
        sim.schedule(o.ExpandIsr(at, tp.topic, tp.partition, replica))
    return True


def expand_isr(sim: Cluster, op: o.ExpandIsr) -> bool:
    """A leader adds a caught-up follower back to a partition's ISR."""
    tp = TopicPartition(op.topic, op.partition)
    sim.pending_expand.discard(tp)
    sim.catching_up.discard((tp, op.replica))
    if pick_isr_change(sim, op.topic, op.partition, op.replica, shrink=False) is None:
        return False
    lai = sim.leadership(tp)
    assert lai is not None
    new_isr = (*lai.isr, op.replica)
    sim.r.isr_expanding(lai.leader, tp, lai.isr, new_isr)
    return isr_change(sim, tp, new_isr, lai.leader)


def catch_up(sim: Cluster, op: o.CatchUp) -> bool:
    """Leaders add restarted followers back to their ISRs, one batch per leader."""
    groups: dict[int, list[tuple[TopicPartition, int]]] = {}
    for topic, partition, replica in op.items:
        tp = TopicPartition(topic, partition)
        sim.catching_up.discard((tp, replica))
        if pick_isr_change(sim, topic, partition, replica, shrink=False) is None:
            continue
        lai = sim.leadership(tp)
        assert lai is not None
        groups.setdefault(lai.leader, []).append((tp, replica))
    for leader in sorted(groups):
        isr_batch(sim, leader, groups[leader])
    return bool(groups)


def isr_batch(sim: Cluster, leader: int, items: Sequence[tuple[TopicPartition, int]]) -> None:
    """One leader adds several followers back to their ISRs in one go."""
    c = sim.active_controller()
    done: list[tuple[LeadershipWrite, LeaderAndIsr]] = []
    for tp, replica in items:
        lai = sim.leadership(tp)
        assert lai is not None
        sim.r.isr_expanding(leader, tp, lai.isr, (*lai.isr, replica))
    for tp, replica in items:
        lai = sim.leadership(tp)
        assert lai is not None
        result = sim.call(sim.zk.isr_change, tp, (*lai.isr, replica))
        steps = sim.zk.drain()
        update = next((s for s in steps if isinstance(s, IsrUpdate)), None)
        write = next((s for s in steps if isinstance(s, LeadershipWrite)), None)
        if result.errors or update is None or write is None:
            continue
        done.append((write, update.after))
    if not done:
        return
    parts = [w.partition for w, _ in done]
    if sim.r.alter_isr:
        for write, _ in done:
            state_write(sim, write, sim.session(c), sim.check())
        sim.r.isr_batch_applied(c, [(w.partition, after) for w, after in done])
        update_metadata(sim, sim.live, parts)
        for write, after in done:
            sim.r.isr_committed(leader, write.partition, after)
        return
    # before 2.7: the leader writes each ISR, then announces them in one notification
    session = sim.session(leader)
    for write, _ in done:
        state_write(sim, write, session, None)
    path = sim.history.sequential_name("/isr_change_notification/isr_change_")
    data = znodes.isr_change_notification(parts)
    sim.history.write("create", session, path, data, sequential=True)
    sim.r.isr_notification(c, sim.live, parts)
    update_metadata(sim, sim.live, parts)
    sim.history.write("delete", sim.session(c), path)


def isr_change(sim: Cluster, tp: TopicPartition, isr: tuple[int, ...], leader: int) -> bool:
    """A leader's ISR change through the engine, played; whether it was accepted."""
    result = sim.call(sim.zk.isr_change, tp, isr)
    steps = sim.zk.drain()
    if result.errors:
        return False
    play(sim, steps, isr_writer=leader)
    return True


def pick_isr_change(
    sim: Cluster, topic: str | None, partition: int | None, replica: int | None, *, shrink: bool
) -> tuple[TopicPartition, int] | None:
    """A partition and a follower whose ISR membership can change now."""
    if sim.controller is None:
        return None
    live = set(sim.live)
    ctx = sim.zk.ctx
    if topic is not None and partition is not None:
        candidates = [TopicPartition(topic, partition)]
    else:
        everything = sorted(sim.zk.zk_assignments)
        if not everything:
            return None
        candidates = [everything[sim.rng.randrange(len(everything))] for _ in range(8)]
    for tp in candidates:
        lai = sim.leadership(tp)
        if (
            lai is None
            or lai.leader not in live
            or tp.topic in sim.deleting
            or (topic is None and tp in sim.pending_expand)
            or tp in ctx.reassignment_targets
        ):
            continue
        if shrink:
            options = [r for r in lai.isr if r != lai.leader and replica in (None, r)]
        else:
            options = [
                r
                for r in sim.assignment(tp).replicas
                if r not in lai.isr
                and r in live
                and r not in ctx.shutting_down
                and replica in (None, r)
            ]
        if options:
            return tp, options[sim.rng.randrange(len(options))]
    return None


def isolate_leader(sim: Cluster, op: o.IsolateLeader) -> bool:
    """Shrinks an unclean-enabled partition's ISR to its leader, then crashes the leader."""
    live = set(sim.live)
    if op.topic is not None and op.partition is not None:
        candidates = [TopicPartition(op.topic, op.partition)]
    else:
        candidates = [
            tp
            for tp in sorted(sim.zk.zk_assignments)
            if str(sim.zk.zk_topic_configs.get(tp.topic, {}).get(UNCLEAN, "")).lower() == "true"
        ]
        sim.rng.shuffle(candidates)
    for tp in candidates:
        lai = sim.leadership(tp)
        if (
            lai is None
            or lai.leader not in live
            or tp in sim.pending_expand
            or tp.topic in sim.deleting
        ):
            continue
        survivors = [r for r in sim.assignment(tp).replicas if r != lai.leader and r in live]
        if not survivors:
            continue
        for r in (r for r in lai.isr if r != lai.leader):
            sim.schedule(o.ShrinkIsr(sim.clock.now_us, tp.topic, tp.partition, r, None))
        sim.pending_expand.add(tp)
        at = sim.clock.now_us + us(op.crash_after_s)
        sim.schedule(o.CrashBroker(at, lai.leader, op.restart_after_s))
        return True
    return False
