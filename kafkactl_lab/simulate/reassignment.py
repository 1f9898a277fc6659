"""Partition reassignments: through the Admin API (2.4+) or ``/admin/reassign_partitions``,
and their completion once the target replicas have caught up."""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.model import (
    NO_LEADER,
    ReplicaState,
    TopicPartition,
)
from kafkactl_lab.simulate import ops as o
from kafkactl_lab.simulate import znodes
from kafkactl_lab.simulate.cluster import REASSIGN_ZNODE, Cluster, us
from kafkactl_lab.simulate.delivery import update_metadata
from kafkactl_lab.simulate.recording import (
    EpochBump,
    IsrUpdate,
    LeadershipWrite,
    PartitionBatch,
    ReplicaBatch,
    Step,
)
from kafkactl_lab.simulate.trace import per_partition, play


def reassign(sim: Cluster, op: o.Reassign) -> bool:
    """Starts a partition's reassignment (through the Admin API from 2.4, else ZooKeeper)."""
    if sim.controller is None:
        return False
    if op.topic is not None and op.partition is not None:
        tp = TopicPartition(op.topic, op.partition)
    else:
        options = [
            tp
            for tp in sorted(sim.zk.zk_assignments)
            if tp.topic not in sim.deleting
            and tp not in sim.zk.ctx.reassignment_targets
            and tp not in sim.pending_expand
        ]
        if not options:
            return False
        tp = options[sim.rng.randrange(len(options))]
    if tp not in sim.zk.zk_assignments or tp in sim.zk.ctx.reassignment_targets:
        return False
    current = sim.assignment(tp)
    target = op.replicas
    if target is None:
        spare = [b for b in sim.live if b not in current.replicas]
        if not spare or not current.replicas:
            return False
        out = sim.rng.randrange(len(current.replicas))
        choice = sim.rng.choice(spare)
        target = tuple(choice if i == out else r for i, r in enumerate(current.replicas))
    if sim.r.alter_isr:
        ok = reassign_api(sim, tp, tuple(target))
    else:
        ok = reassign_zk(sim, tp, tuple(target))
    if ok and op.complete_after_s is not None:
        at = sim.clock.now_us + us(op.complete_after_s)
        sim.schedule(o.CompleteReassignment(at, tp.topic, tp.partition))
    return ok


def reassign_api(sim: Cluster, tp: TopicPartition, target: tuple[int, ...]) -> bool:
    """An ``AlterPartitionReassignments`` request (2.4+)."""
    c = sim.active_controller()
    old = sim.assignment(tp)
    mid = old.reassign_to(target)
    result = sim.call(sim.zk.reassign, tp, target, via="admin")
    steps = sim.zk.drain()
    if result.errors or result.error:
        return False
    if mid != old:
        sim.r.assignment_updating(c, tp, old, mid)
        sim.write_topic_znode(
            tp.topic, sim.session(c), sim.check(), create=False, override={tp: mid}
        )
        sim.r.assignment_updated(c, tp, mid)
    reassignment_steps(sim, tp, steps)
    return True


def reassign_zk(sim: Cluster, tp: TopicPartition, target: tuple[int, ...]) -> bool:
    """``/admin/reassign_partitions`` (before 2.4): one partition at a time here."""
    c = sim.active_controller()
    if sim.history.exists(REASSIGN_ZNODE):
        return False
    old = sim.assignment(tp)
    data = znodes.reassign_partitions({tp: target})
    sim.history.write("create", sim.admin(), REASSIGN_ZNODE, data)
    result = sim.call(sim.zk.reassign, tp, target, via="zk")
    steps = sim.zk.drain()
    if result.errors or result.error:
        sim.history.write("delete", sim.session(c), REASSIGN_ZNODE)
        return False
    mid = sim.assignment(tp) if sim.zk.ctx.is_being_reassigned(tp) else old
    sim.r.reassignment_started(c, tp, target, old.replicas)
    if mid != old:
        sim.write_topic_znode(tp.topic, sim.session(c), None, create=False, override={tp: mid})
        sim.r.reassignment_assigned(c, tp, mid.replicas)
    reassignment_steps(sim, tp, steps)
    return True


def reassignment_steps(sim: Cluster, tp: TopicPartition, steps: Sequence[Step]) -> None:
    """A reassignment's trace, with its own lines where Kafka logs them."""
    c = sim.active_controller()
    ctx = sim.zk.ctx
    completed = tp not in ctx.reassignment_targets
    if not completed:
        play(sim, steps)
        sim.r.reassignment_waiting(c, tp, ctx.reassignment_target(tp))
        return
    target = sim.assignment(tp).replicas
    verdict = None
    for index, step in enumerate(steps):
        if isinstance(step, EpochBump) or (
            isinstance(step, PartitionBatch) and step.before and step.requested_by is None
        ):
            verdict = index
            while verdict > 0 and isinstance(steps[verdict - 1], LeadershipWrite):
                verdict -= 1
            break
    sim.r.reassignment_caught_up(c, tp, target)
    for index, step in enumerate(steps):
        if index == verdict:
            first = steps[index]
            if isinstance(first, LeadershipWrite) and first.before is not None:
                leader = first.before.leader
            elif isinstance(first, PartitionBatch) and tp in first.leadership_before:
                leader = first.leadership_before[tp].leader
            else:
                leader = NO_LEADER
            sim.r.reassignment_leader(c, tp, leader, target, leader in sim.live)
        online = isinstance(step, ReplicaBatch) and step.target is ReplicaState.OnlineReplica
        if online and not sim.zk.profile_kip455:
            # before 2.4 each target replica is moved online on its own
            for chunk in per_partition([step]):
                play(sim, chunk)
        else:
            play(sim, [step])
    session = sim.session(c)
    if sim.r.alter_isr:
        sim.write_topic_znode(tp.topic, session, sim.check(), create=False)
        sim.r.assignment_updated(c, tp, sim.assignment(tp))
    else:
        sim.write_topic_znode(tp.topic, session, None, create=False)
        sim.r.reassignment_assigned(c, tp, sim.assignment(tp).replicas)
        if sim.history.exists(REASSIGN_ZNODE):
            sim.history.write("delete", session, REASSIGN_ZNODE)
        sim.r.reassignment_removed(c, tp)
    update_metadata(sim, sim.live, [tp])


def complete_reassignment(sim: Cluster, op: o.CompleteReassignment) -> bool:
    """The target replicas join the ISR and the reassignment completes."""
    tp = TopicPartition(op.topic, op.partition)
    if sim.controller is None or tp not in sim.zk.ctx.reassignment_targets:
        return False
    lai = sim.leadership(tp)
    live = set(sim.live)
    target = sim.zk.ctx.reassignment_target(tp)
    if lai is None or lai.leader not in live or not set(target) <= live:
        retry = o.CompleteReassignment(sim.clock.now_us + 60_000_000, op.topic, op.partition)
        sim.schedule(retry)
        return False
    joining = [r for r in target if r not in lai.isr]
    if joining:
        sim.r.isr_expanding(lai.leader, tp, lai.isr, (*lai.isr, *joining))
    result = sim.call(sim.zk.reassign_complete, tp)
    steps = sim.zk.drain()
    if result.errors:
        return False
    head: list[Step] = []
    rest: Sequence[Step] = steps
    if len(steps) > 1 and isinstance(steps[0], LeadershipWrite) and isinstance(steps[1], IsrUpdate):
        head, rest = steps[:2], steps[2:]
    play(sim, head, isr_writer=lai.leader)
    reassignment_steps(sim, tp, rest)
    return True
