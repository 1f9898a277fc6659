"""What an election's evidence and the cluster's timelines say about it: trigger and liveness.

Pure functions of the election's ``Draft`` and an ``ElectionContext`` (what the fold knows of
the partition when the election settles). The trigger's order of inference is ``fold``'s
module docstring's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kafkactl_core.replay.drafts import Draft
from kafkactl_core.replay.settings import ReplaySettings
from kafkactl_core.replay.state_names import NEW, OFFLINE, ONLINE
from kafkactl_core.replay.timelines import ClusterTimelines, LivenessView

__all__ = ["REASSIGN_STEP", "ElectionContext", "election_liveness", "infer_trigger"]

REASSIGN_STEP = "reassign_step"
"""Hint of any other reassignment step: one near an election does not say it caused it (the
reassignment may have ended, or kept its leader, just before a broker failed or shut down)."""
_KRAFT_CONTEXT_TRIGGERS = (
    ("ControlledShutdown", "controlled_shutdown"),
    ("Balance", "preferred"),
    ("electPreferred", "preferred"),
    ("Fenced", "offline"),
    ("Unregistered", "offline"),
    ("UncleanShutdown", "offline"),
    ("DirectoriesOffline", "offline"),
    ("Unfenced", "offline"),
    ("electUnclean", "offline"),
)


@dataclass(slots=True)
class ElectionContext:
    """What an election is judged against besides its own evidence (built for every election:
    not frozen, whose ``__init__`` costs four times as much).

    Attributes:
        cluster: the cluster.
        topic: the topic.
        partition: the partition.
        timelines: the cluster's timelines.
        settings: the replay's settings.
        kraft: the cluster runs in KRaft mode.
        assignment: the assignment the fold has now (``None``: unknown).
        reassign_target: the latest reassignment's target replicas and when it was seen.
        hints: recent (time, trigger, reference) hints of why elections ran.
        alive: the last time each broker was seen writing a line.
    """

    cluster: str
    topic: str
    partition: int
    timelines: ClusterTimelines
    settings: ReplaySettings
    kraft: bool
    assignment: tuple[int, ...] | None
    reassign_target: tuple[tuple[int, ...], int] | None
    hints: Sequence[tuple[int, str, str]]
    alive: Mapping[int, int]


def _seen_alive(ctx: ElectionContext, broker: int, time: int) -> bool:
    seen = ctx.alive.get(broker)
    return seen is not None and abs(seen - time) <= ctx.settings.settle_ms


def _failed_trigger(
    draft: Draft, ctx: ElectionContext, hints: Sequence[str], explicit: str | None
) -> tuple[str, str]:
    if draft.from_state == NEW:
        return "new_partition", "new partition with no live replica"
    stopping = ctx.timelines.liveness_at(draft.time).shutting_down
    if draft.from_state == ONLINE and draft.prev_leader in stopping:
        # Offline elections start from OfflinePartition; Online -> Online failing while
        # the leader stops is the controlled shutdown's (its ISR had no other member).
        return "controlled_shutdown", "no eligible leader while the old leader shut down"
    if draft.from_state == ONLINE:
        # Offline elections start from Offline/New: Online -> Online is another's.
        for trigger in ("reassign", "preferred", "controlled_shutdown"):
            if explicit == trigger or trigger in hints:
                return trigger, f"no eligible leader; {trigger} step at the time"
    return "offline", "no eligible leader"


def _old_leader_fate(prev: int | None, view: LivenessView) -> tuple[str, str] | None:
    if prev is not None and prev in view.shutting_down:
        return "controlled_shutdown", "old leader in controlled shutdown"
    if prev is not None and (prev < 0 or (view.is_known(prev) and prev not in view.live)):
        return "offline", "old leader not live"
    return None


def infer_trigger(
    draft: Draft, assignment: tuple[int, ...] | None, ctx: ElectionContext
) -> tuple[str, str]:
    """The election's trigger and how it was inferred.

    Args:
        draft: the election.
        assignment: the assignment in force at it.
        ctx: what the fold knows of the partition.

    Returns:
        The trigger and a phrase saying which evidence gave it.
    """
    time = draft.time
    window = ctx.settings.merge_window_ms
    explicit = draft.explicit_trigger
    hints = [trigger for t, trigger, _ in ctx.hints if abs(t - time) <= window] if ctx.hints else ()
    if explicit == "admin_unclean" or "admin_unclean" in hints:
        return "admin_unclean", "admin UNCLEAN election request"
    if draft.failed:
        return _failed_trigger(draft, ctx, hints, explicit)
    if explicit is not None:
        return explicit, "named by the election's own evidence"
    if draft.from_state == NEW or (draft.prev_leader is None and "new_partition" in hints):
        return "new_partition", "NewPartition -> OnlinePartition"
    for trigger in ("reassign", "controlled_shutdown", "preferred", "offline"):
        if trigger in hints:
            return trigger, f"{trigger} step logged at the time of the election"
    if ctx.kraft:
        context = ctx.timelines.kraft_context_near(time, window)
        if context is not None:
            for marker, trigger in _KRAFT_CONTEXT_TRIGGERS:
                if marker in context:
                    return trigger, f"KRaft change context {context}"
    target = ctx.reassign_target
    recent = (
        target is not None
        and draft.leader in target[0]
        and time - target[1] <= ctx.settings.settle_ms
    )
    prev = draft.prev_leader
    if REASSIGN_STEP in hints or recent:
        # A reassignment step near the election, not the one that re-elects: the old
        # leader's own fate, when known, is the cause (Kafka elects offline partitions and
        # a stopping broker's partitions in those events, not in the reassignment's).
        if draft.from_state == OFFLINE:
            return "offline", "OfflinePartition -> OnlinePartition during a reassignment"
        fate = _old_leader_fate(prev, ctx.timelines.liveness_at(time))
        if fate is not None:
            return fate
        if REASSIGN_STEP in hints:
            return "reassign", "reassign step logged at the time of the election"
        return "reassign", "reassignment in flight"
    if (
        target is not None
        and draft.reassigning
        and draft.leader in target[0]
        and prev not in target[0]
    ):
        return "reassign", "reassignment in flight (adding/removing replicas)"
    if assignment is not None and prev is not None and prev >= 0 and prev not in assignment:
        return "reassign", "old leader no longer assigned"
    view = ctx.timelines.liveness_at(time)
    fate = _old_leader_fate(prev, view)
    if fate is not None:
        return fate
    if draft.from_state == OFFLINE:
        return "offline", "OfflinePartition -> OnlinePartition"
    if prev is None or prev < 0:
        return "unknown", "no evidence of why"
    online = draft.from_state == ONLINE
    if prev in view.live or _seen_alive(ctx, prev, time) or online or view.is_known(prev):
        window_ms = ctx.settings.shutdown_window_ms
        if ctx.timelines.went_down_within(prev, time, window_ms):
            return "controlled_shutdown", "old leader deregistered right after"
        if assignment and draft.leader == assignment[0]:
            return "preferred", "preferred replica took over from a live leader"
        if online:
            return (
                "controlled_shutdown",
                "OnlinePartition -> OnlinePartition to a non-preferred replica without a "
                "reassignment (by elimination)",
            )
    return "unknown", "no evidence of why"


def election_liveness(
    draft: Draft, trigger: str, assignment: tuple[int, ...] | None, ctx: ElectionContext
) -> tuple[LivenessView, list[int]]:
    """Liveness at the election: the timelines, corrected by what the partition's own
    evidence shows (the live replicas a line lists; an old leader the trigger says was
    offline or shutting down); assigned replicas no fact covers are presumed live when the
    evidence shows them alive (a line they wrote, the controller itself), in the ISR before,
    or, for a new partition, in its first ISR.

    Args:
        draft: the election.
        trigger: its trigger.
        assignment: the assignment in force at it.
        ctx: what the fold knows of the partition.

    Returns:
        The liveness view to judge the election by, and the replicas presumed live.
    """
    time = draft.time
    view = ctx.timelines.liveness_at(time)
    if assignment is None:
        return view, []
    prev = draft.prev_leader
    offline_prev = trigger in ("offline", "admin_unclean") and prev in view.registered
    shutting_prev = trigger == "controlled_shutdown" and (
        prev is not None and prev >= 0 and prev not in view.shutting_down
    )
    if view.complete and draft.live_hint is None and not offline_prev and not shutting_prev:
        return view, []
    registered = set(view.registered)
    shutting = set(view.shutting_down)
    known = set(view.known)
    if draft.live_hint is not None:
        registered = {b for b in registered if b not in assignment} | set(draft.live_hint)
        known |= set(assignment)
    if prev is not None and prev >= 0:
        if trigger in ("offline", "admin_unclean"):
            registered.discard(prev)  # the old leader is gone: that is why the election ran
            shutting.discard(prev)
            known.add(prev)
        elif trigger == "controlled_shutdown":
            registered.add(prev)
            shutting.add(prev)
            known.add(prev)
    presumed: list[int] = []
    if not view.complete:
        isr_before = draft.isr_before or ()
        first_isr = (draft.isr_after or ()) if trigger == "new_partition" else ()
        for replica in assignment:
            if replica in known:
                continue
            if (
                _seen_alive(ctx, replica, time)
                or replica == draft.controller_id
                or replica in isr_before
                or replica in first_isr
            ):
                registered.add(replica)
                known.add(replica)
                presumed.append(replica)
    return (
        LivenessView(frozenset(registered), frozenset(shutting), frozenset(known), view.complete),
        presumed,
    )
