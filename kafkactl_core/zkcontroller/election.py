"""ZooKeeper-mode leader election: the 1.1+ algorithms and the pre-1.1 ``PartitionLeaderSelector``s.

``PartitionLeaderElectionAlgorithms`` (1.1+) pick a leader from plain lists; the ``elect_*``
functions add what ``Election.scala`` (2.3+; private methods of ``PartitionStateMachine`` in
1.1-2.2) or the old selectors (0.8-1.0) do around them: the new ISR, the epoch arithmetic, the
recovery state and the LeaderAndIsr recipients, switched by the release's ``KafkaVersion``.
All inputs are the values the controller has at that moment; nothing here reads global state.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from kafkactl_core.model import LeaderAndIsr
from kafkactl_core.profiles import ControlledShutdownRule, KafkaVersion, OfflineLeaderRule


def offline_leader(
    assignment: Sequence[int],
    isr: Collection[int],
    live: Collection[int],
    unclean_enabled: bool,
) -> tuple[int | None, bool]:
    """``offlinePartitionLeaderElection``: first live ISR member in assignment order.

    Args:
        assignment: the partition's replicas, in order.
        isr: the current ISR (membership only).
        live: the replicas treated as live.
        unclean_enabled: whether a live replica outside the ISR may be chosen.

    Returns:
        ``(leader, unclean)``; ``leader`` is ``None`` when nobody can lead.
    """
    for replica in assignment:
        if replica in live and replica in isr:
            return replica, False
    if unclean_enabled:
        for replica in assignment:
            if replica in live:
                return replica, True
    return None, False


def reassign_leader(
    target: Sequence[int], isr: Collection[int], live: Collection[int]
) -> int | None:
    """``reassignPartitionLeaderElection``: first target replica that is live and in the ISR."""
    for replica in target:
        if replica in live and replica in isr:
            return replica
    return None


def preferred_leader(
    assignment: Sequence[int], isr: Collection[int], live: Collection[int]
) -> int | None:
    """``preferredReplicaPartitionLeaderElection``: ``assignment.head`` if live and in the ISR."""
    if assignment and assignment[0] in live and assignment[0] in isr:
        return assignment[0]
    return None


def controlled_shutdown_leader(
    assignment: Sequence[int],
    isr: Collection[int],
    live: Collection[int],
    shutting_down: Collection[int],
) -> int | None:
    """``controlledShutdownPartitionLeaderElection``: first live ISR member not shutting down."""
    for replica in assignment:
        if replica in live and replica in isr and replica not in shutting_down:
            return replica
    return None


@dataclass(frozen=True, slots=True)
class ElectionOutcome:
    """What one election computed.

    Attributes:
        leader_and_isr: the leadership to write (epochs bumped, partition epoch unchanged: it is
            the expected znode version), ``None`` when no leader could be elected.
        recipients: brokers the resulting LeaderAndIsr request goes to.
        unclean: the leader was taken from outside the ISR.
        not_needed: pre-1.1 ``LeaderElectionNotNeededException`` (preferred replica already
            leads); nothing is written.
    """

    leader_and_isr: LeaderAndIsr | None
    recipients: tuple[int, ...] = ()
    unclean: bool = False
    not_needed: bool = False


FAILED = ElectionOutcome(None)
"""The outcome of an election that found no leader."""


def elect_offline(
    profile: KafkaVersion,
    current: LeaderAndIsr,
    assignment: Sequence[int],
    live: Sequence[int],
    unclean_enabled: bool,
    recovery_supported: bool,
) -> ElectionOutcome:
    """Offline election (``leaderForOffline`` / ``OfflinePartitionLeaderSelector``).

    Args:
        profile: the release's behaviour.
        current: the leadership read from ZooKeeper.
        assignment: the full replica list (RS during a reassignment).
        live: the assigned replicas that are online, in assignment order.
        unclean_enabled: the resolved unclean setting (admin UNCLEAN, topic, broker, default).
            Releases before 0.8.2 ignore it and always allow an unclean leader.
        recovery_supported: IBP >= 3.2: an unclean leader is written RECOVERING.

    Returns:
        The outcome; recipients are the live replicas.
    """
    live_set = set(live)
    live_isr = tuple(r for r in current.isr if r in live_set)
    allow_unclean = unclean_enabled or not profile.unclean_config_checked
    recipients = tuple(live)
    if profile.offline_leader_rule is OfflineLeaderRule.live_isr_head and live_isr:
        leader: int | None = live_isr[0]
        unclean = False
    else:
        leader, unclean = offline_leader(assignment, live_isr, live_set, allow_unclean)
    if leader is None:
        return FAILED
    if not unclean:
        return ElectionOutcome(current.new_leader_and_isr(leader, live_isr), recipients)
    if recovery_supported:
        return ElectionOutcome(
            current.new_recovering_leader_and_isr(leader, (leader,)), recipients, unclean=True
        )
    return ElectionOutcome(current.new_leader_and_isr(leader, (leader,)), recipients, unclean=True)


def elect_reassign(
    current: LeaderAndIsr, target: Sequence[int], live: Collection[int]
) -> ElectionOutcome:
    """Reassignment election: ISR unchanged, leaderEpoch + 1, recipients = all target replicas.

    Args:
        current: the leadership read from ZooKeeper.
        target: the target replicas (TRS, or RAR before 2.4), in order.
        live: the target replicas that are online.

    Returns:
        The outcome.
    """
    leader = reassign_leader(target, current.isr, live)
    if leader is None:
        return FAILED
    return ElectionOutcome(current.new_leader(leader), tuple(target))


def elect_preferred(
    profile: KafkaVersion,
    current: LeaderAndIsr,
    assignment: Sequence[int],
    live: Collection[int],
) -> ElectionOutcome:
    """Preferred-replica election: ``assignment.head`` only, ISR unchanged, leaderEpoch + 1.

    Before 1.1 the selector first refuses a partition whose preferred replica already leads
    (``LeaderElectionNotNeededException``); from 1.1 the algorithm has no such check.

    Args:
        profile: the release's behaviour.
        current: the leadership read from ZooKeeper.
        assignment: the replica list; its head is the preferred replica.
        live: the assigned replicas that are online.

    Returns:
        The outcome; recipients are the whole assignment.
    """
    if not profile.explicit_strategy_required and assignment and current.leader == assignment[0]:
        return ElectionOutcome(None, not_needed=True)
    leader = preferred_leader(assignment, current.isr, live)
    if leader is None:
        return FAILED
    return ElectionOutcome(current.new_leader(leader), tuple(assignment))


def elect_controlled_shutdown(
    profile: KafkaVersion,
    current: LeaderAndIsr,
    assignment: Sequence[int],
    live_or_shutting_down: Sequence[int],
    shutting_down: Collection[int],
) -> ElectionOutcome:
    """Controlled-shutdown election, by release.

    Args:
        profile: the release's behaviour.
        current: the leadership read from ZooKeeper.
        assignment: the replica list, in order.
        live_or_shutting_down: assigned replicas that are registered (shutting down or not) and
            not on an offline log dir, in assignment order.
        shutting_down: the brokers in controlled shutdown.

    Returns:
        The outcome. The new ISR is the ISR without shutting-down brokers (0.8.0: without the
        current leader); recipients include the shutting-down broker from 2.1 and before 1.1.
    """
    rule = profile.controlled_shutdown_rule
    if rule is ControlledShutdownRule.isr_minus_leader:
        new_isr = tuple(r for r in current.isr if r != current.leader)
    else:
        new_isr = tuple(r for r in current.isr if r not in shutting_down)
    recipients = tuple(live_or_shutting_down)
    leader: int | None
    if rule is ControlledShutdownRule.algorithm:
        live = tuple(r for r in live_or_shutting_down if r not in shutting_down)
        leader = controlled_shutdown_leader(assignment, current.isr, live, shutting_down)
        if not profile.controlled_shutdown_notifies_shutting_down:
            recipients = live
    elif rule is ControlledShutdownRule.assignment_order_selector:
        leader = next((r for r in live_or_shutting_down if r in new_isr), None)
    else:
        leader = new_isr[0] if new_isr else None
    if leader is None:
        return FAILED
    return ElectionOutcome(current.new_leader_and_isr(leader, new_isr), recipients)
