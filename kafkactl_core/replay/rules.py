"""The leader Kafka's own rules give for an election, from what the controller saw then.

``expected_leader`` maps an inferred trigger to the core's election algorithm for the cluster's
release (``kafkactl_core.zkcontroller.election``: pre-1.1 selectors and 1.1+ algorithms by
``KafkaVersion``; KRaft: ``PartitionChangeBuilder.elect_leader``) and runs it on the assignment,
the ISR just before the election, the live and shutting-down brokers and the unclean setting in
force. The result is a leader, "no leader" (-1), or "not computable" with the reason (unknown
assignment, unknown ISR, unknown trigger).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkactl_core.kraft.builder import Election, PartitionChangeBuilder
from kafkactl_core.kraft.registration import PartitionRegistration
from kafkactl_core.model import NO_LEADER, LeaderAndIsr
from kafkactl_core.replay.settings import ReplaySettings
from kafkactl_core.replay.timelines import LivenessView
from kafkactl_core.zkcontroller.election import (
    elect_controlled_shutdown,
    elect_offline,
    elect_preferred,
    elect_reassign,
)

__all__ = ["ElectionInputs", "Expectation", "expected_leader"]


@dataclass(slots=True)
class ElectionInputs:
    """What the controller saw when it elected.

    Attributes:
        trigger: the inferred trigger.
        partition: the partition number (KRaft builder input).
        prev_leader: the leader before, ``None`` when unknown.
        epoch_before: the leader epoch before, ``None`` when unknown.
        isr_before: the ISR before, ``None`` when unknown.
        assignment: the replica assignment, ``None`` when unknown.
        target: reassignment target replicas, ``None`` when not reassigning.
        liveness: live and shutting-down brokers.
        unclean_enabled: the unclean setting in force (admin UNCLEAN elections pass True).
        kraft: replay with KRaft rules.
        elr_before: the KRaft Eligible Leader Replicas before, empty when unknown.
        last_known_elr_before: the KRaft last known ELR before, empty when unknown.
        min_isr: ``min.insync.replicas`` in force (KRaft caps it at the replication factor).
    """

    trigger: str
    partition: int
    prev_leader: int | None
    epoch_before: int | None
    isr_before: tuple[int, ...] | None
    assignment: tuple[int, ...] | None
    target: tuple[int, ...] | None
    liveness: LivenessView
    unclean_enabled: bool
    kraft: bool
    elr_before: tuple[int, ...] = ()
    last_known_elr_before: tuple[int, ...] = ()
    min_isr: int = 1


@dataclass(slots=True)
class Expectation:
    """The rules' verdict.

    Attributes:
        leader: the expected leader, -1 when no leader can be elected, ``None`` when the rules
            cannot be applied (see ``reason``).
        reason: how it was computed or why it could not be.
        unknown_liveness: assigned replicas whose liveness no fact gives (their status was
            taken as "not live").
    """

    leader: int | None
    reason: str
    unknown_liveness: tuple[int, ...] = ()


def _current(inputs: ElectionInputs) -> LeaderAndIsr:
    prev = NO_LEADER if inputs.prev_leader is None else inputs.prev_leader
    return LeaderAndIsr(prev, inputs.epoch_before or 0, inputs.isr_before or ())


def _kraft(inputs: ElectionInputs, settings: ReplaySettings, live: frozenset[int]) -> int:
    assignment = inputs.assignment or ()
    if inputs.trigger == "new_partition":
        return next((r for r in assignment if r in live), NO_LEADER)
    profile = settings.profile
    if inputs.trigger == "preferred":
        election = Election.PREFERRED
    elif inputs.trigger == "admin_unclean" or (
        inputs.unclean_enabled and profile.kraft_unclean_config_honoured
    ):
        election = Election.UNCLEAN
    else:
        election = Election.ONLINE
    isr = inputs.isr_before or ()
    replicas = assignment
    if inputs.trigger == "reassign" and inputs.target:
        # completeReassignmentIfNeeded: the removed replicas leave the target ISR before the
        # election, so a leader being removed is no valid leader any more
        replicas = inputs.target
        isr = tuple(r for r in isr if r in replicas)
    registration = PartitionRegistration(
        replicas=replicas,
        isr=isr,
        leader=NO_LEADER if inputs.prev_leader is None else inputs.prev_leader,
        leader_epoch=inputs.epoch_before or 0,
        elr=inputs.elr_before,
        last_known_elr=inputs.last_known_elr_before,
    )
    builder = PartitionChangeBuilder(
        registration,
        "",
        inputs.partition,
        live.__contains__,
        settings.kraft_metadata_version,
        # getTopicEffectiveMinIsr: the config, capped at the replication factor
        min(inputs.min_isr, len(assignment)) if assignment else inputs.min_isr,
        release=settings.release,
    )
    # Kafka fills the ELR and last known ELR only where ELR is on (its feature or MV gate): a
    # partition with either set was replayed under ELR, one with neither elects the same
    # leader whether ELR is on or not.
    builder.set_eligible_leader_replicas_enabled(
        bool(inputs.elr_before or inputs.last_known_elr_before)
    )
    return builder.set_election(election).elect_leader().node


def expected_leader(inputs: ElectionInputs, settings: ReplaySettings) -> Expectation:
    """The leader the cluster's release elects for ``inputs``.

    Args:
        inputs: the trigger and what the controller saw.
        settings: release, IBP (RECOVERING) and KRaft metadata version.

    Returns:
        The expectation; ``leader`` ``None`` when the assignment, the ISR before or the trigger
        is unknown.
    """
    assignment = inputs.assignment
    if assignment is None:
        return Expectation(None, "assignment unknown")
    trigger = inputs.trigger
    if trigger == "unknown":
        return Expectation(None, "trigger unknown")
    if trigger != "new_partition" and inputs.isr_before is None:
        return Expectation(None, "ISR before the election unknown")
    view = inputs.liveness
    live = view.live
    unknown = () if view.complete else tuple(r for r in assignment if r not in view.known)
    if inputs.kraft:
        leader = _kraft(inputs, settings, live)
        return Expectation(leader, f"KRaft PartitionChangeBuilder ({trigger})", unknown)
    profile = settings.profile
    live_assigned = [r for r in assignment if r in live]
    current = _current(inputs)
    if trigger == "new_partition":
        leader = live_assigned[0] if live_assigned else NO_LEADER
        return Expectation(leader, "new partition: first live assigned replica", unknown)
    if trigger in ("offline", "admin_unclean"):
        allow = inputs.unclean_enabled or trigger == "admin_unclean"
        outcome = elect_offline(
            profile, current, assignment, live_assigned, allow, settings.recovery_supported
        )
        rule = "offline election" + (" (unclean allowed)" if allow else "")
    elif trigger == "preferred":
        outcome = elect_preferred(profile, current, assignment, live_assigned)
        if outcome.not_needed:
            return Expectation(assignment[0], "preferred replica already leads", unknown)
        rule = "preferred election"
    elif trigger == "controlled_shutdown":
        registered = view.registered
        los = [r for r in assignment if r in registered]
        outcome = elect_controlled_shutdown(profile, current, assignment, los, view.shutting_down)
        rule = "controlled-shutdown election"
    elif trigger == "reassign":
        target = inputs.target or assignment
        outcome = elect_reassign(current, target, [r for r in target if r in live])
        rule = "reassignment election"
    else:
        return Expectation(None, f"no rule for trigger {trigger}")
    lai = outcome.leader_and_isr
    leader = NO_LEADER if lai is None else lai.leader
    return Expectation(leader, f"{rule} under {profile.release}", unknown)
