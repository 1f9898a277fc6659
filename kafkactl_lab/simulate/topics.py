"""Operations on topics: creation (Kafka's rack-unaware assignment), deletion and its
completion, and dynamic topic configs."""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.model import (
    PartitionState,
    ReplicaState,
    TopicPartition,
)
from kafkactl_lab.simulate import ops as o
from kafkactl_lab.simulate import znodes
from kafkactl_lab.simulate.cluster import UNCLEAN, Cluster
from kafkactl_lab.simulate.delivery import update_metadata
from kafkactl_lab.simulate.recording import (
    PartitionBatch,
    ReplicaBatch,
    Step,
)
from kafkactl_lab.simulate.trace import play


def kafka_assignment(sim: Cluster, partitions: int, rf: int) -> dict[int, tuple[int, ...]] | None:
    """``assignReplicasToBrokersRackUnaware`` over the live brokers."""
    brokers = sim.live
    n = len(brokers)
    if n == 0 or rf > n or rf < 1:
        return None
    start = sim.rng.randrange(n)
    shift = sim.rng.randrange(n)
    out: dict[int, tuple[int, ...]] = {}
    for p in range(partitions):
        if p > 0 and p % n == 0:
            shift += 1
        first = (p + start) % n
        replicas = [brokers[first]]
        for j in range(rf - 1):
            replicas.append(brokers[(first + 1 + (shift + j) % (n - 1)) % n])
        out[p] = tuple(replicas)
    return out


def create_topic(sim: Cluster, op: o.CreateTopic) -> bool:
    """The admin tools write a topic's znodes; the controller creates its partitions."""
    if op.topic in sim.topics() or op.topic in sim.deleting:
        return False
    assignment = (
        dict(op.assignment)
        if op.assignment is not None
        else kafka_assignment(sim, op.partitions, op.replication_factor)
    )
    if not assignment:
        return False
    config = dict(op.config)
    result = sim.call(
        sim.zk.create_topic, op.topic, {p: list(r) for p, r in assignment.items()}, config
    )
    steps = sim.zk.drain()
    if result.error is not None:
        return False
    admin = sim.admin()
    sim.history.write("create", admin, f"/config/topics/{op.topic}", znodes.topic_config(config))
    sim.write_topic_znode(op.topic, admin, None, create=True)
    for p in sorted(assignment):
        # producers find the new partitions a little later
        rate = sim.rng.uniform(1.0, 400.0)
        sim.traffic[TopicPartition(op.topic, p)] = (sim.clock.now_us + 30_000_000, rate)
    if op.deletable:
        sim.deletable.add(op.topic)
    c = sim.controller
    if c is None:
        return True
    partitions = [TopicPartition(op.topic, p) for p in sorted(assignment)]
    topic_id = sim.topic_id(op.topic) if sim.r.topic_ids else None
    added = [(op.topic, topic_id, [(tp, sim.assignment(tp)) for tp in partitions])]
    sim.r.topics_changed(c, [op.topic], [], added)
    sim.r.partition_creation(c, partitions)
    play(sim, steps)
    return True


def delete_topic(sim: Cluster, op: o.DeleteTopic) -> bool:
    """The admin tools request a topic's deletion; the controller deletes what it can."""
    topic = op.topic
    known = sim.topics()
    if topic is None:
        eligible = [
            t
            for t in sorted(sim.deletable)
            if t in known and t not in sim.deleting and all_replicas_live(sim, t)
        ]
        if not eligible:
            return False
        topic = sim.rng.choice(eligible)
    if topic not in known or topic in sim.deleting:
        return False
    sim.history.write("create", sim.admin(), f"/admin/delete_topics/{topic}", None)
    sim.deleting.add(topic)
    c = sim.controller
    if c is None:
        sim.call(sim.zk.delete_topic, topic)
        sim.zk.drain()
        return True
    sim.r.deletion_requested(c, [topic])
    sim.r.deletion_step(c, "handling", topic)
    if all_replicas_live(sim, topic):
        sim.r.deletion_step(c, "started", topic)
    sim.call(sim.zk.delete_topic, topic)
    deletion_steps(sim, sim.zk.drain())
    finish_deletions(sim)
    return True


def all_replicas_live(sim: Cluster, topic: str) -> bool:
    """Whether every replica of the topic is on a live broker."""
    live = set(sim.live)
    return all(set(sim.assignment(tp).replicas) <= live for tp in sim.partitions_of(topic))


def deletion_steps(sim: Cluster, steps: Sequence[Step]) -> None:
    """A deletion's trace, with the deletion manager's own lines and metadata update."""
    c = sim.active_controller()
    for step in steps:
        if isinstance(step, ReplicaBatch) and step.before:
            topics = sorted({tp.topic for (tp, _), _ in step.before} & sim.deleting)
            if step.target is ReplicaState.ReplicaDeletionSuccessful and topics:
                sim.r.deletion_step(c, "replicas_done", replicas=[k for k, _ in step.before])
            elif step.target is ReplicaState.NonExistentReplica and topics:
                sim.r.deletion_step(c, "handling", ",".join(topics))
        play(sim, [step])
        if (
            isinstance(step, PartitionBatch)
            and step.target is PartitionState.NonExistentPartition
            and step.before
        ):
            # brokers stop serving the deleted partitions (LeaderDuringDelete)
            update_metadata(sim, sim.live, [tp for tp, _ in step.before])


def finish_deletions(sim: Cluster) -> None:
    """Topics whose deletion completed: their znodes go, the listeners fire."""
    known = set(sim.topics())
    for topic in sorted(t for t in sim.deleting if t not in known):
        sim.deleting.discard(topic)
        sim.deletable.discard(topic)
        c = sim.active_controller()
        session, check = sim.session(c), sim.check()
        base = f"/brokers/topics/{topic}"
        prefix = base + "/partitions/"
        parts = sorted(
            (p for p in sim.history.nodes if p.startswith(prefix) and "/" not in p[len(prefix) :]),
            key=lambda p: int(p.rsplit("/", 1)[1]),
        )
        for path in parts:
            if sim.history.exists(path + "/state"):
                sim.history.write("delete", session, path + "/state", check=check)
            sim.history.write("delete", session, path, check=check)
        for path in (
            base + "/partitions",
            base,
            f"/config/topics/{topic}",
            f"/admin/delete_topics/{topic}",
        ):
            if sim.history.exists(path):
                sim.history.write("delete", session, path, check=check)
        sim.r.deletion_step(c, "completed", topic)
        sim.r.topics_changed(c, [], [], [])
        sim.r.deletion_requested(c, [])
        for tp in [t for t in sim.traffic if t.topic == topic]:
            del sim.traffic[tp]
            sim.state_epoch.pop(tp, None)
            sim.state_written_ms.pop(tp, None)
        sim.topic_ids.pop(topic, None)


def set_topic_config(sim: Cluster, op: o.SetTopicConfig) -> bool:
    """A dynamic topic config change, with its change notification."""
    if op.topic not in sim.topics() or op.topic in sim.deleting:
        return False
    admin = sim.admin()
    conf = {k: str(v) for k, v in sim.zk.zk_topic_configs.get(op.topic, {}).items()}
    if op.value is None:
        conf.pop(op.key, None)
    else:
        conf[op.key] = op.value
    path = f"/config/topics/{op.topic}"
    verb = "setData" if sim.history.exists(path) else "create"
    sim.history.write(verb, admin, path, znodes.topic_config(conf))
    change = sim.history.sequential_name("/config/changes/config_change_")
    data = znodes.config_change(f"topics/{op.topic}")
    sim.history.write("create", admin, change, data, sequential=True)
    sim.call(sim.zk.set_config, "topic", op.key, op.value, topic=op.topic)
    steps = sim.zk.drain()
    c = sim.controller
    if c is not None and op.key == UNCLEAN and (op.value or "").lower() == "true":
        sim.r.unclean_enabled(c, op.topic)
    if c is not None:
        play(sim, steps)
    return True
