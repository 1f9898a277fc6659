"""The ground truth of a run: every election the controller made, and every failed attempt.

Each row goes to ``ground-truth-elections.jsonl`` as it happens; a failed attempt waits until
the write right after it (or the operation's end) says what was in force after it.
"""

from __future__ import annotations

import json

from kafkactl_core.model import (
    NO_LEADER,
    ElectionStrategy,
    ElectionTrigger,
    LeaderAndIsr,
    PartitionState,
    TopicPartition,
)
from kafkactl_core.zkcontroller.partition_sm import TRIGGER_OF_STRATEGY
from kafkactl_lab.simulate.clock import iso_ms
from kafkactl_lab.simulate.cluster import Cluster
from kafkactl_lab.simulate.recording import (
    PartitionBatch,
)


def record_elections(sim: Cluster, batch: PartitionBatch) -> None:
    """Counts a batch's elections and writes them to the ground truth."""
    for record in batch.elections:
        sim.stats.elections += 1
        if record.unclean:
            sim.stats.unclean_elections += 1
        if sim.truth_out is None:
            continue
        written = batch.results.get(record.partition)
        zk_version = written.partition_epoch if isinstance(written, LeaderAndIsr) else None
        before = batch.leadership_before.get(record.partition)
        ms = sim.state_written_ms.get(record.partition, sim.clock.now_ms)
        row = {
            "time": iso_ms(ms),
            "t": ms,
            "topic": record.partition.topic,
            "partition": record.partition.partition,
            "trigger": record.trigger.value,
            "strategy": None if record.strategy is None else record.strategy.value,
            "previous_leader": record.previous_leader,
            "new_leader": record.new_leader,
            "previous_leader_epoch": None if before is None else before.leader_epoch,
            "leader_epoch": record.leader_epoch,
            "zk_version": zk_version,
            "isr_before": list(record.isr_before),
            "isr_after": list(record.isr_after),
            "unclean": record.unclean,
            "leader_recovery_state": record.leader_recovery_state.name,
            "requested_by": None if record.requested_by is None else record.requested_by.value,
            "controller": sim.controller,
            "controller_epoch": sim.epoch,
            "operation": sim.current_op,
        }
        sim.truth_out.write(json.dumps(row, separators=(",", ":")) + "\n")


def failed_attempt(
    sim: Cluster, batch: PartitionBatch, tp: TopicPartition, state: PartitionState
) -> None:
    """A transition to OnlinePartition that elected nobody, at its failure line's time."""
    sim.stats.failed_elections += 1
    if sim.truth_out is None:
        return
    if tp in sim.failed_attempts:
        record_failure(sim, tp, None)
    before = batch.leadership_before.get(tp)
    if state is PartitionState.NewPartition:
        trigger = ElectionTrigger.new_partition
    elif batch.allow_unclean:
        trigger = ElectionTrigger.admin_unclean
    else:
        trigger = TRIGGER_OF_STRATEGY[batch.strategy or ElectionStrategy.offline]
    ms = sim.clock.now_ms
    sim.failed_attempts[tp] = {
        "time": iso_ms(ms),
        "t": ms,
        "topic": tp.topic,
        "partition": tp.partition,
        "trigger": trigger.value,
        "strategy": None if batch.strategy is None else batch.strategy.value,
        "previous_leader": None if before is None else before.leader,
        "new_leader": NO_LEADER,
        "previous_leader_epoch": None if before is None else before.leader_epoch,
        "previous_zk_version": None if before is None else before.partition_epoch,
        "leader_epoch": None if before is None else before.leader_epoch,
        "zk_version": None if before is None else before.partition_epoch,
        "isr_before": [] if before is None else list(before.isr),
        "isr_after": None if before is None else list(before.isr),
        "written_after": False,
        "unclean": None,
        "requested_by": None if batch.requested_by is None else batch.requested_by.value,
        "controller": sim.controller,
        "controller_epoch": sim.epoch,
        "operation": sim.current_op,
    }


def record_failure(sim: Cluster, tp: TopicPartition, written: LeaderAndIsr | None) -> None:
    """Write a failed attempt to the ground truth with what was in force after it: the
    leader -1 written right after it (OfflineReplica), else what was there before."""
    row = sim.failed_attempts.pop(tp)
    if sim.truth_out is None:
        return
    if written is not None and written.leader == NO_LEADER:
        row["leader_epoch"] = written.leader_epoch
        row["zk_version"] = written.partition_epoch
        row["isr_after"] = list(written.isr)
        row["written_after"] = True
    sim.truth_out.write(json.dumps(row, separators=(",", ":")) + "\n")
