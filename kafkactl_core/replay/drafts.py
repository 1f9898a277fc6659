"""Elections being assembled: the ``Draft`` of one election and how evidence finds its draft.

A draft gathers every line of one election (or of one failed attempt) until it settles. Lines
find their draft by leader epoch, or, without one, by the new leader within the merge window;
failure lines find their attempt by controller epoch within the window (see ``fold``).
"""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.replay.evidence import Fact, PartitionEvidence, Source
from kafkactl_core.replay.state_names import ONLINE

__all__ = [
    "Draft",
    "backfill",
    "draft_for_epoch",
    "latest_election",
    "merge_copy",
    "pending_attempt",
    "take_offsets",
]

_STARTED = Fact.leader_started


class Draft:
    """An election being assembled from its evidence."""

    __slots__ = (
        "assignment",
        "attempt_lines",
        "claim_only",
        "controller_epoch",
        "controller_id",
        "due",
        "elr_after",
        "elr_before",
        "epoch",
        "epoch_before",
        "explicit_trigger",
        "failed",
        "from_state",
        "high_watermark",
        "isr_after",
        "isr_before",
        "last_known_elr_before",
        "leader",
        "left_isr_ms",
        "live_hint",
        "partition_epoch",
        "prev_leader",
        "reassigning",
        "recovering",
        "refs",
        "sources",
        "start_offset",
        "time",
        "unclean_explicit",
        "written",
    )

    def __init__(
        self,
        time: int,
        leader: int,
        epoch: int | None,
        prev_leader: int | None,
        epoch_before: int | None,
        isr_before: tuple[int, ...] | None,
        failed: bool,
        due: int,
    ) -> None:
        """Open a draft with what is known when its first evidence is seen.

        Args:
            time: the election's time (its earliest evidence).
            leader: the new leader, -1 for a failed attempt.
            epoch: its leader epoch, ``None`` until a line gives it.
            prev_leader: the leader before.
            epoch_before: the leader epoch before.
            isr_before: the ISR before.
            failed: whether this is a failed attempt.
            due: when it settles.
        """
        self.time = time
        self.leader = leader
        self.epoch = epoch
        self.prev_leader = prev_leader
        self.epoch_before = epoch_before
        self.isr_before = isr_before
        self.failed = failed
        self.due = due
        self.claim_only = epoch is None and not failed
        self.isr_after: tuple[int, ...] | None = None
        self.partition_epoch: int | None = None
        self.written = False  # failed attempts: the controller wrote leader -1 right after
        self.attempt_lines: set[tuple[Source, Fact]] = set()  # failed attempts: lines merged
        self.assignment: tuple[int, ...] | None = None
        self.controller_id: int | None = None
        self.controller_epoch: int | None = None
        self.explicit_trigger: str | None = None
        self.from_state: str | None = None
        self.unclean_explicit = False
        self.live_hint: tuple[int, ...] | None = None
        self.recovering: bool | None = None
        self.elr_before: tuple[int, ...] | None = None
        self.elr_after: tuple[int, ...] | None = None
        self.last_known_elr_before: tuple[int, ...] | None = None
        self.left_isr_ms: int | None = None
        self.high_watermark: int | None = None
        self.start_offset: int | None = None
        self.reassigning = False
        self.refs: list[str] = []
        self.sources = 0  # bit per Source

    def cite(self, ev: PartitionEvidence) -> None:
        """Count ``ev`` as evidence of the election without taking anything else from it.

        Args:
            ev: a line about the election or about what was in force before it.
        """
        self.refs.append(ev.ref)
        self.sources |= 1 << ev.source

    def add(self, ev: PartitionEvidence) -> None:
        """Merge a line of the election: its reference, source and what it says about it.

        Args:
            ev: a line of the election.
        """
        self.cite(ev)
        if self.controller_id is None:
            self.controller_id = ev.controller_id
        if self.controller_epoch is None:
            self.controller_epoch = ev.controller_epoch
        if ev.live_brokers is not None and self.live_hint is None:
            self.live_hint = ev.live_brokers
        if ev.recovering is not None and self.recovering is None:
            self.recovering = ev.recovering
        if ev.previous_elr is not None and self.elr_before is None:
            self.elr_before = ev.previous_elr
            self.last_known_elr_before = ev.previous_last_known_elr
        if ev.elr is not None and self.elr_after is None:
            self.elr_after = ev.elr
        trigger = ev.trigger
        if (
            trigger is not None
            and trigger not in ("zk", "kraft_unclean")
            and (trigger == "admin_unclean" or self.explicit_trigger is None)
        ):
            self.explicit_trigger = trigger
        if ev.from_state is not None and ev.to_state == ONLINE and self.from_state is None:
            self.from_state = ev.from_state


def latest_election(
    drafts: Sequence[Draft], leader: int, time: int, window: int, *, claims_only: bool = False
) -> Draft | None:
    """The latest pending election of ``leader`` within ``window`` of ``time``, if any.

    Args:
        drafts: the pending drafts, oldest first.
        leader: the leader a line names.
        time: the line's time.
        window: the merge window (ms).
        claims_only: only an epoch-less claim (the draft a write's epoch completes).

    Returns:
        The election the line is one more copy of, or ``None``.
    """
    for draft in reversed(drafts):
        if (
            (draft.claim_only if claims_only else not draft.failed)
            and draft.leader == leader
            and abs(draft.time - time) <= window
        ):
            return draft
    return None


def draft_for_epoch(drafts: Sequence[Draft], epoch: int | None) -> Draft | None:
    """The pending election of leader epoch ``epoch``, if any (``None`` for no epoch)."""
    if epoch is None:
        return None
    for draft in drafts:
        if draft.epoch == epoch and not draft.failed:
            return draft
    return None


def pending_attempt(
    drafts: Sequence[Draft], ev: PartitionEvidence, time: int, written: bool, window: int
) -> Draft | None:
    """The pending failed attempt ``ev`` belongs to: one within the merge window, by the
    same controller epoch, that has neither a line of the same source and kind nor, for a
    write, a write already (each is one per attempt: another one is the next attempt).

    Args:
        drafts: the pending drafts, oldest first.
        ev: a failure line or a write of leader -1.
        time: its time.
        written: ``ev`` is a write.
        window: the merge window (ms).

    Returns:
        The attempt, or ``None`` when ``ev`` starts another one.
    """
    epoch = ev.controller_epoch
    line = (ev.source, ev.fact)
    for draft in reversed(drafts):
        if not draft.failed or abs(draft.time - time) > window:
            continue
        if epoch is not None and draft.controller_epoch not in (None, epoch):
            continue
        if draft.written if written else line in draft.attempt_lines:
            continue
        return draft
    return None


def backfill(drafts: Sequence[Draft], ev: PartitionEvidence, leader: int, epoch: int) -> None:
    """First view of the partition: complete pending failures that began before it.

    Args:
        drafts: the pending drafts.
        ev: the first leadership seen.
        leader: its leader.
        epoch: its leader epoch.
    """
    for draft in drafts:
        if draft.prev_leader is None and draft.failed:
            draft.prev_leader = leader
            draft.epoch_before = epoch
            draft.epoch = epoch
            if draft.isr_before is None:
                draft.isr_before = ev.isr
            if draft.isr_after is None:
                draft.isr_after = ev.isr
            if draft.partition_epoch is None:
                draft.partition_epoch = ev.partition_epoch
            draft.cite(ev)


def merge_copy(draft: Draft, ev: PartitionEvidence, window: int) -> None:
    """Merge another source's copy of an election's leadership.

    Args:
        draft: the election.
        ev: the copy.
        window: the merge window (ms).
    """
    draft.add(ev)
    if draft.isr_after is None and ev.isr is not None:
        draft.isr_after = ev.isr
    if (
        draft.partition_epoch is None
        and ev.partition_epoch is not None
        and abs((ev.time_ms or 0) - draft.time) <= window
    ):
        # Later in the epoch, the leader's own ISR changes write newer versions.
        draft.partition_epoch = ev.partition_epoch
    if ev.fact is _STARTED:
        take_offsets(draft, ev)


def take_offsets(draft: Draft, ev: PartitionEvidence) -> None:
    """Take the new leader's start offset from its "starts at leader epoch" line.

    Args:
        draft: the election.
        ev: a line of it.
    """
    if ev.leader == draft.leader and ev.start_offset is not None:
        draft.start_offset = ev.start_offset
