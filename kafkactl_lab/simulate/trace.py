"""The controller's trace played in order: ZooKeeper writes, state-machine batches and their
log lines, requests and elections.

``per_partition`` splits a trace the way Kafka before 1.1 handles partitions: one at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.model import LeaderAndIsr, PartitionState, ReplicaState, TopicPartition
from kafkactl_core.zkcontroller.requests import (
    LeaderAndIsrRequest,
    StopReplicaRequest,
    UpdateMetadataRequest,
)
from kafkactl_core.zkcontroller.states import TransitionError, TransitionErrorKind
from kafkactl_lab.simulate import znodes
from kafkactl_lab.simulate.cluster import Cluster
from kafkactl_lab.simulate.delivery import send, update_metadata
from kafkactl_lab.simulate.ground_truth import failed_attempt, record_elections, record_failure
from kafkactl_lab.simulate.history import Check
from kafkactl_lab.simulate.recording import (
    EpochBump,
    IsrUpdate,
    LeadershipWrite,
    PartitionBatch,
    ReplicaBatch,
    Requests,
    Step,
)


def _is_create(step: Step) -> bool:
    return isinstance(step, LeadershipWrite) and step.before is None and step.after is not None


def _only(requests: Requests, tp: TopicPartition, replica: int | None) -> Requests:
    """The requests of a batch that concern one partition (and one replica)."""

    def mine(brokers: tuple[int, ...]) -> bool:
        return replica is None or replica in brokers

    return Requests(
        tuple(r for r in requests.leader_and_isr if r.partition == tp and mine(r.brokers)),
        tuple(r for r in requests.stop_replica if r.partition == tp and mine(r.brokers)),
        tuple(
            UpdateMetadataRequest(r.brokers, (tp,))
            for r in requests.update_metadata
            if tp in r.partitions
        ),
    )


def per_partition(steps: Sequence[Step]) -> list[list[Step]]:
    """A trace of batches split into one sub-trace per partition (or replica) and batch.

    Each sub-trace is the partition's leadership writes followed by a batch holding only that
    partition (Kafka before 1.1 handles these partitions one at a time).
    """
    out: list[list[Step]] = []
    writes: list[LeadershipWrite] = []

    def take(tp: TopicPartition) -> list[Step]:
        mine = [w for w in writes if w.partition == tp]
        for w in mine:
            writes.remove(w)
        return list(mine)

    for step in steps:
        if isinstance(step, LeadershipWrite):
            writes.append(step)
            continue
        if isinstance(step, PartitionBatch):
            for tp, state in step.before:
                sub = PartitionBatch(
                    step.target,
                    step.strategy,
                    step.allow_unclean,
                    step.requested_by,
                    ((tp, state),),
                    {k: v for k, v in step.leadership_before.items() if k == tp},
                    {k: v for k, v in step.results.items() if k == tp},
                    tuple(e for e in step.elections if e.partition == tp),
                    _only(step.requests, tp, None),
                    step.triggered,
                )
                out.append([*take(tp), sub])
        elif isinstance(step, ReplicaBatch):
            leadership = dict(step.leadership_before)
            for key, replica_state in step.before:
                tp, replica = key
                removals = tuple(r for r in step.isr_removals if (r[0], r[1]) == key)
                replica_sub = ReplicaBatch(
                    step.target,
                    ((key, replica_state),),
                    {k: v for k, v in step.results.items() if k == key},
                    removals,
                    {tp: leadership[tp]} if tp in leadership else {},
                    _only(step.requests, tp, replica),
                    step.startup,
                )
                for _, _, _, after in removals:
                    leadership[tp] = after  # what the partition's next replica starts from
                out.append([*take(tp), replica_sub])
        else:
            out.append([*writes, step])
        if writes and out:
            out[-1][:0] = writes
        writes = []
    if writes:
        out.append(list(writes))
    return out


def state_write(sim: Cluster, write: LeadershipWrite, session: str, check: Check | None) -> None:
    """Writes a partition's state znode (create or versioned setData)."""
    tp, after = write.partition, write.after
    if after is None:
        return  # deletions are written with the topic's znodes
    sim.state_epoch[tp] = sim.epoch
    path = f"/brokers/topics/{tp.topic}/partitions/{tp.partition}/state"
    data = znodes.partition_state(after, sim.epoch)
    if write.before is None:
        sim.history.write("create", session, path, data, check=check)
    else:
        version = write.before.partition_epoch
        sim.history.write("setData", session, path, data, version=version, check=check)
    sim.state_written_ms[tp] = sim.clock.now_ms
    if tp in sim.failed_attempts:
        record_failure(sim, tp, after)


def state_creates(sim: Cluster, writes: Sequence[LeadershipWrite], session: str) -> None:
    """``createTopicPartitionStatesRaw``: partitions dirs, partition dirs, then states."""
    check = sim.check()
    for write in writes:
        path = f"/brokers/topics/{write.partition.topic}/partitions"
        if not sim.history.exists(path):
            sim.history.write("create", session, path, None, check=check)
    for write in writes:
        tp = write.partition
        path = f"/brokers/topics/{tp.topic}/partitions/{tp.partition}"
        if not sim.history.exists(path):
            sim.history.write("create", session, path, None, check=check)
    for write in writes:
        state_write(sim, write, session, check)


def play(sim: Cluster, steps: Sequence[Step], *, isr_writer: int | None = None) -> None:
    """Write and render a trace in order.

    Args:
        steps: trace steps of the engine.
        isr_writer: the partition leader that changed an ISR (before 2.7 it writes the
            znode itself, with its own session).
    """
    i = 0
    while i < len(steps):
        step = steps[i]
        if isinstance(step, LeadershipWrite):
            c = sim.active_controller()
            if _is_create(step):
                j = i
                while j < len(steps) and _is_create(steps[j]):
                    j += 1
                creates = [s for s in steps[i:j] if isinstance(s, LeadershipWrite)]
                state_creates(sim, creates, sim.session(c))
                i = j
                continue
            nxt = steps[i + 1] if i + 1 < len(steps) else None
            if isinstance(nxt, EpochBump) and nxt.partition == step.partition:
                sim.r.epoch_updating(c, step.partition)
            if isinstance(nxt, IsrUpdate) and isr_writer is not None and not sim.r.alter_isr:
                state_write(sim, step, sim.session(isr_writer), None)
            else:
                state_write(sim, step, sim.session(c), sim.check())
        elif isinstance(step, PartitionBatch):
            partition_batch(sim, step)
        elif isinstance(step, ReplicaBatch):
            replica_batch(sim, step)
        elif isinstance(step, EpochBump):
            epoch_bump(sim, step)
        else:
            isr_update(sim, step, isr_writer)
        i += 1


def partition_batch(sim: Cluster, batch: PartitionBatch) -> None:
    """A partition state machine batch: its lines, requests and elections."""
    c = sim.active_controller()
    if not batch.before:
        return  # Kafka skips an empty batch entirely
    ctx = sim.zk.ctx
    live = sorted(ctx.live_broker_ids)
    sim.r.partition_batch_begin(c, batch, live)
    changes: list[tuple[TopicPartition, PartitionState, LeaderAndIsr | None]] = []
    for tp, before in batch.before:
        result = batch.results.get(tp)
        if isinstance(result, TransitionError):
            sim.r.partition_failed(c, sim.epoch, tp, before.name, batch.target.name, result.detail)
            if (
                result.kind is TransitionErrorKind.state_change_failed
                and batch.target is PartitionState.OnlinePartition
            ):
                failed_attempt(sim, batch, tp, before)
        else:
            changes.append((tp, before, result))
    assignments = {tp: ctx.assignment(tp) for tp, _ in batch.before}
    sim.r.partition_changes(c, sim.epoch, batch, changes, assignments, live)
    send(sim, batch.requests)
    record_elections(sim, batch)


def replica_batch(sim: Cluster, batch: ReplicaBatch) -> None:
    """A replica state machine batch: its lines and requests."""
    c = sim.active_controller()
    if not batch.before:
        return
    sim.r.replica_batch_begin(c, batch)
    moved: list[tuple[TopicPartition, int, str]] = []
    for (tp, replica), before in batch.before:
        result = batch.results.get((tp, replica))
        if isinstance(result, TransitionError):
            sim.r.replica_failed(
                c, sim.epoch, tp, replica, before.name, batch.target.name, result.detail
            )
        else:
            moved.append((tp, replica, before.name))
    requests = batch.requests
    if batch.target is ReplicaState.OfflineReplica:
        requests = offline_requests(sim, batch, moved)
    else:
        sim.r.replica_changes(c, sim.epoch, batch.target.name, moved)
    send(sim, requests)


def offline_requests(
    sim: Cluster, batch: ReplicaBatch, moved: Sequence[tuple[TopicPartition, int, str]]
) -> Requests:
    """OfflineReplica: Kafka logs and re-sends the leadership of every partition it has.

    ``removeReplicasFromIsr`` returns the partitions whose ISR did not hold the replica as
    well (unchanged); each gets the state-change line and a LeaderAndIsr to the other
    replicas, unless its topic is being deleted. Each replica's line and request carry the
    leadership at its own step: the batch's starting leadership with the removals made so
    far (the operation may elect right after, as a controller failover does).
    """
    c = sim.active_controller()
    ctx = sim.zk.ctx
    stops = [StopReplicaRequest((r,), tp, False) for tp, r, _ in moved]
    lais: list[LeaderAndIsrRequest] = []
    updates = list(batch.requests.update_metadata)
    written = {(tp, r): (before, after) for tp, r, before, after in batch.isr_removals}
    leadership = dict(batch.leadership_before)
    for tp, replica, from_state in moved:
        removal = written.get((tp, replica))
        if removal is not None:
            leadership[tp] = removal[1]
        lai = leadership.get(tp)
        before = lai if removal is None else removal[0]
        state_epoch = sim.state_epoch.get(tp, sim.epoch)
        sim.r.offline_replica(c, sim.epoch, tp, replica, from_state, before, lai, state_epoch)
        if lai is None:
            continue
        if not ctx.is_queued_for_deletion(tp.topic):
            others = tuple(b for b in ctx.assignment(tp).replicas if b != replica)
            lais.append(LeaderAndIsrRequest(others, tp, lai, False))
    return Requests(tuple(lais), tuple(stops), tuple(updates))


def epoch_bump(sim: Cluster, bump: EpochBump) -> None:
    """``updateLeaderEpochAndSendRequest`` of a reassignment."""
    c = sim.active_controller()
    tp, lai = bump.partition, bump.after
    sim.r.epoch_updated(c, tp, lai)
    assignment = sim.assignment(tp)
    requests: tuple[LeaderAndIsrRequest, ...]
    if sim.zk.profile_kip455:
        origin = tuple(r for r in assignment.replicas if r not in assignment.adding)
        requests = (
            LeaderAndIsrRequest(origin, tp, lai, False),
            LeaderAndIsrRequest(assignment.adding, tp, lai, True),
        )
    else:
        requests = (LeaderAndIsrRequest(assignment.replicas, tp, lai, False),)
    send(sim, Requests(requests))
    sim.r.reassign_request_sent(c, sim.epoch, tp, lai, sim.epoch, assignment)


def isr_update(sim: Cluster, update: IsrUpdate, writer: int | None) -> None:
    """A leader's ISR change, once written."""
    c = sim.active_controller()
    tp, lai = update.partition, update.after
    if sim.r.alter_isr:
        sim.r.isr_applied(c, tp, lai)
        update_metadata(sim, sim.live, [tp])
        if lai.leader in sim.brokers and sim.brokers[lai.leader].registered:
            sim.r.isr_committed(lai.leader, tp, lai)
        return
    # before 2.7: the leader wrote the znode and announces the change
    session = sim.session(writer if writer is not None else lai.leader)
    path = sim.history.sequential_name("/isr_change_notification/isr_change_")
    data = znodes.isr_change_notification([tp])
    sim.history.write("create", session, path, data, sequential=True)
    sim.r.isr_notification(c, sim.live, [tp])
    update_metadata(sim, sim.live, [tp])
    sim.history.write("delete", sim.session(c), path)
