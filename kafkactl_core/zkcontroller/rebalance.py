"""The auto-rebalance computation: imbalance ratio per preferred broker and candidate filters.

``checkAndTriggerAutoLeaderRebalance`` groups the partitions of topics not queued for deletion by
their preferred replica (``replicas.head``); a partition with leadership whose leader is not that
broker (``-1`` included) is "not preferred"; the ratio's denominator counts every partition of
the group, with or without leadership. A group is rebalanced when the ratio is strictly greater
than ``leader.imbalance.per.broker.percentage / 100``; which of its partitions are then elected
depends on the release (``AutoRebalanceFilter``).
"""

from __future__ import annotations

from kafkactl_core.model import TopicPartition
from kafkactl_core.profiles import AutoRebalanceFilter
from kafkactl_core.zkcontroller.context import ControllerContext
from kafkactl_core.zkcontroller.election import preferred_leader
from kafkactl_core.zkcontroller.results import ImbalanceGroup


def can_preferred_replica_be_leader(ctx: ControllerContext, tp: TopicPartition) -> bool:
    """``canPreferredReplicaBeLeader``: the preferred replica is online and in the ISR."""
    leader_and_isr = ctx.leadership.get(tp)
    if leader_and_isr is None:
        return False
    assignment = ctx.assignment(tp).replicas
    live = {r for r in assignment if ctx.is_replica_online(r, tp)}
    return preferred_leader(assignment, leader_and_isr.isr, live) is not None


def _passes_filter(ctx: ControllerContext, broker: int, tp: TopicPartition) -> bool:
    rule = ctx.profile.auto_rebalance_filter
    if ctx.is_queued_for_deletion(tp.topic) or tp.topic not in ctx.topic_index:
        return False
    no_reassignment = not ctx.reassignment_targets
    if rule is AutoRebalanceFilter.can_be_leader:
        return can_preferred_replica_be_leader(ctx, tp)
    if rule is AutoRebalanceFilter.no_reassign_can_be_leader:
        return no_reassignment and can_preferred_replica_be_leader(ctx, tp)
    if rule is AutoRebalanceFilter.online_no_reassign:
        return no_reassignment and ctx.is_replica_online(broker, tp)
    return no_reassignment and broker in ctx.live_broker_ids


def imbalance_groups(ctx: ControllerContext, percentage: int) -> dict[int, ImbalanceGroup]:
    """The computation for every preferred broker, without electing anyone.

    Args:
        ctx: the controller context.
        percentage: ``leader.imbalance.per.broker.percentage``.

    Returns:
        One group per preferred broker, by broker id; ``candidates`` is filled only for
        groups over the threshold.
    """
    groups: dict[int, list[TopicPartition]] = {}
    for tp, assignment in ctx.assignments.items():
        if ctx.is_queued_for_deletion(tp.topic) or not assignment.replicas:
            continue
        groups.setdefault(assignment.replicas[0], []).append(tp)
    threshold = percentage / 100
    out: dict[int, ImbalanceGroup] = {}
    for broker in sorted(groups):
        members = groups[broker]
        not_preferred = tuple(
            sorted(
                tp
                for tp in members
                if (leader_and_isr := ctx.leadership.get(tp)) is not None
                and leader_and_isr.leader != broker
            )
        )
        ratio = len(not_preferred) / len(members)
        rebalance = ratio > threshold
        candidates: tuple[TopicPartition, ...] = ()
        if rebalance:
            candidates = tuple(tp for tp in not_preferred if _passes_filter(ctx, broker, tp))
        out[broker] = ImbalanceGroup(
            broker, len(members), not_preferred, ratio, rebalance, candidates
        )
    return out
