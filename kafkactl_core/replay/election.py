"""A settled election judged: its trigger, whether it was unclean, the leader Kafka's rules
expected, and the ``ElectionRow`` and anomalies it becomes.

``judge_election`` is a pure function of the election's ``Draft`` and the ``ElectionContext``
the fold gives when the draft settles.
"""

from __future__ import annotations

from kafkactl_core.replay.drafts import Draft
from kafkactl_core.replay.evidence import Source
from kafkactl_core.replay.findings import Finding
from kafkactl_core.replay.inference import (
    REASSIGN_STEP,
    ElectionContext,
    election_liveness,
    infer_trigger,
)
from kafkactl_core.replay.rows import AnomalyRow, ElectionRow
from kafkactl_core.replay.rules import ElectionInputs, Expectation, expected_leader
from kafkactl_core.replay.timelines import LivenessView

__all__ = ["judge_election", "source_names"]

_SOURCES = tuple(sorted(Source))
_SOURCE_NAMES: dict[int, str] = {}


def source_names(mask: int) -> str:
    """The names of the sources of a bit mask (a bit per ``Source``), joined by ``+``.

    Args:
        mask: the sources a draft was seen in.

    Returns:
        Their names in ``Source`` order (computed once per mask).
    """
    names = _SOURCE_NAMES.get(mask)
    if names is None:
        names = "+".join(source.name for source in _SOURCES if mask >> source & 1)
        _SOURCE_NAMES[mask] = names
    return names


ISR_ONLY_TRIGGERS = frozenset({"preferred", "controlled_shutdown", "reassign"})
"""Triggers whose election Kafka makes only from the ISR (ZooKeeper and KRaft alike)."""


def _unclean(draft: Draft, trigger: str, isr_before: tuple[int, ...] | None) -> bool | None:
    if draft.failed:
        return None
    if trigger == "new_partition":
        return False  # a first leader: every assigned replica is eligible
    if isr_before is not None:
        # KRaft's electionWasClean: a leader from the ISR or the ELR (KIP-966) is clean
        return draft.leader not in isr_before and draft.leader not in (draft.elr_before or ())
    if draft.unclean_explicit or draft.recovering:
        return True
    return None


def _from_elr(draft: Draft, isr_before: tuple[int, ...] | None) -> bool:
    """KIP-966: the new leader was an Eligible Leader Replica, not an ISR member."""
    return (
        not draft.failed
        and isr_before is not None
        and draft.leader not in isr_before
        and draft.leader in (draft.elr_before or ())
    )


def _isr_before(draft: Draft, trigger: str) -> tuple[int, ...] | None:
    """The ISR before the election, with the new leader in it when only an unlogged expansion
    can explain it: Kafka makes an election of an ISR-only trigger (not marked unclean) only
    from the ISR, so the leader had joined it (the leader of a real 4.1.1 capture did not log
    that expansion, and 2.8's state-change log never shows one)."""
    isr_before = draft.isr_before
    if (
        trigger not in ISR_ONLY_TRIGGERS
        or isr_before is None
        or draft.failed
        or draft.leader in isr_before
        or draft.unclean_explicit
        or draft.recovering
    ):
        return isr_before
    return (*isr_before, draft.leader)


def _findings(
    draft: Draft,
    trigger: str,
    expectation: Expectation,
    assignment: tuple[int, ...] | None,
    presumed: list[int],
) -> tuple[bool | None, list[Finding]]:
    """Whether the new leader is the one expected, and what is wrong with the election."""
    expected, new_leader, isr_before = expectation.leader, draft.leader, draft.isr_before
    agrees: bool | None = None
    findings: list[Finding] = []
    if expected is not None:
        agrees = expected == new_leader
        if not agrees and expectation.unknown_liveness:
            agrees = None
            findings.append(
                Finding(
                    "unknown_liveness",
                    "warning",
                    str(expected),
                    str(new_leader),
                    f"outcome depends on brokers {list(expectation.unknown_liveness)} whose "
                    "liveness no evidence gives",
                )
            )
        elif not agrees:
            findings.append(
                Finding(
                    "decision_disagreement",
                    "error",
                    str(expected),
                    str(new_leader),
                    f"{trigger} election: {expectation.reason} gives {expected}, the evidence "
                    f"shows {new_leader}" + (f" (presumed live: {presumed})" if presumed else ""),
                )
            )
    if assignment is None:
        findings.append(
            Finding(
                "unknown_assignment",
                "warning",
                None,
                None,
                "no evidence gives the replica assignment: the election cannot be checked",
            )
        )
    if draft.unclean_explicit and isr_before is not None and new_leader in isr_before:
        findings.append(
            Finding(
                "evidence_conflict",
                "warning",
                f"leader outside isr {list(isr_before)}",
                f"leader {new_leader}",
                "an unclean-election line names a leader that was in the ISR before",
            )
        )
    return agrees, findings


def _evidence(draft: Draft, trigger: str, ctx: ElectionContext) -> tuple[str, ...]:
    """The election's references, with those of the hints that gave its trigger."""
    refs = draft.refs
    if ctx.hints:
        window = ctx.settings.merge_window_ms
        refs = refs + [
            ref
            for at, hint, ref in ctx.hints
            if (hint == trigger or (hint == REASSIGN_STEP and trigger == "reassign"))
            and abs(at - draft.time) <= window
        ]
    return tuple(dict.fromkeys(refs))


def _known(view: LivenessView) -> bool:
    return view.complete or bool(view.known)


def judge_election(draft: Draft, ctx: ElectionContext) -> tuple[ElectionRow, list[AnomalyRow]]:
    """Judge a settled election against Kafka's rules.

    Args:
        draft: the election (or failed attempt), with all its evidence.
        ctx: what the fold knows of the partition when it settles.

    Returns:
        Its ``ElectionRow`` and the anomalies it shows, in order.
    """
    time = draft.time
    timelines = ctx.timelines
    assignment = draft.assignment or ctx.assignment
    if assignment is None:
        assignment = timelines.assignment_at(ctx.topic, ctx.partition, time)
    trigger, how = infer_trigger(draft, assignment, ctx)
    if (
        trigger == "reassign"
        and not ctx.reassign_target
        and assignment is not None
        and draft.leader >= 0
        and draft.leader not in assignment
    ):
        # the leader is outside every replica the evidence knows: the reassignment's target
        # never reached the evidence (a KRaft controller logs it at DEBUG), so the rules
        # cannot be checked against the old assignment
        assignment = None
    view, presumed = election_liveness(draft, trigger, assignment, ctx)
    controller_id, controller_epoch = draft.controller_id, draft.controller_epoch
    if controller_id is None or controller_epoch is None:
        known_id, known_epoch = timelines.controller_at(time)
        controller_id = controller_id if controller_id is not None else known_id
        controller_epoch = controller_epoch if controller_epoch is not None else known_epoch
    if trigger == "admin_unclean":
        setting, setting_source = True, "admin"
    else:
        setting, setting_source = timelines.unclean_setting(
            ctx.topic, time, ctx.settings, controller_id
        )
    min_isr, min_isr_source = timelines.min_isr_setting(
        ctx.topic, time, ctx.settings.broker_min_isr, controller_id
    )
    new_leader = draft.leader
    isr_before = _isr_before(draft, trigger)
    unclean = _unclean(draft, trigger, isr_before)
    expectation = expected_leader(
        ElectionInputs(
            trigger,
            ctx.partition,
            draft.prev_leader,
            draft.epoch_before,
            isr_before,
            assignment,
            ctx.reassign_target[0] if ctx.reassign_target else None,
            view,
            setting,
            ctx.kraft,
            draft.elr_before or (),
            draft.last_known_elr_before or (),
            min_isr,
        ),
        ctx.settings,
    )
    evidence = _evidence(draft, trigger, ctx)
    sources = source_names(draft.sources)
    agrees, findings = _findings(draft, trigger, expectation, assignment, presumed)
    anomalies = [
        finding.row(ctx.cluster, ctx.topic, ctx.partition, time, draft.epoch, evidence, sources)
        for finding in findings
    ]
    exposure: float | None = None
    left = draft.left_isr_ms if unclean else None
    if left is not None:
        exposure = max(0, time - left) / 1000.0
    at_risk: int | None = None
    if unclean and draft.high_watermark is not None and draft.start_offset is not None:
        at_risk = max(0, draft.high_watermark - draft.start_offset)
    election = ElectionRow(
        cluster=ctx.cluster,
        topic=ctx.topic,
        partition=ctx.partition,
        scenario=ctx.settings.scenario,
        elected_at_ms=time,
        controller_id=controller_id,
        controller_epoch=controller_epoch,
        trigger=trigger,
        prev_leader=draft.prev_leader,
        new_leader=new_leader,
        leader_epoch=draft.epoch,
        isr_before=isr_before,
        isr_after=draft.isr_after,
        assignment=assignment,
        live_brokers=tuple(sorted(view.live)) if _known(view) else draft.live_hint,
        unclean=unclean,
        expected_leader=expectation.leader,
        agrees=agrees,
        evidence=evidence,
        source=sources,
        unclean_setting=setting,
        unclean_setting_source=setting_source,
        new_leader_left_isr_ms=left,
        exposure_seconds=exposure,
        high_watermark=draft.high_watermark if unclean else None,
        new_leader_start_offset=draft.start_offset,
        offsets_at_risk=at_risk,
        detail=f"trigger: {how}; expected: {expectation.reason}"
        + (f"; presumed live: {presumed}" if presumed else "")
        + ("; elected from the ELR (clean)" if _from_elr(draft, isr_before) else ""),
        prev_leader_epoch=draft.epoch_before,
        partition_epoch=draft.partition_epoch,
        elr_before=draft.elr_before,
        elr_after=draft.elr_after,
        leader_recovery_state=None
        if draft.recovering is None
        else ("RECOVERING" if draft.recovering else "RECOVERED"),
        min_insync_replicas=min_isr,
        min_insync_replicas_source=min_isr_source,
    )
    return election, anomalies
