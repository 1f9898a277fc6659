"""The fold of leaderships: each leader epoch's evidence to a new, repeated or late epoch, and
the elections and failed attempts it opens or completes.

``LeadershipFold`` extends ``ReplayState`` with the handling of every line that names a
leader or a leader epoch, and of failure lines: it opens ``Draft``s and merges each line into
the draft of its election (see ``fold`` for how lines are attributed).
"""

from __future__ import annotations

from kafkactl_core.replay.drafts import (
    Draft,
    backfill,
    draft_for_epoch,
    latest_election,
    merge_copy,
    pending_attempt,
    take_offsets,
)
from kafkactl_core.replay.evidence import Fact, PartitionEvidence, Source
from kafkactl_core.replay.findings import epoch_regression, gap, isr_conflict, leader_conflict
from kafkactl_core.replay.state import ReplayState
from kafkactl_core.replay.state_names import NEW, OFFLINE, ONLINE

__all__ = ["LeadershipFold"]

_AUTHORITATIVE_SOURCE = tuple(
    source
    in (
        Source.zk_txn,
        Source.controller_log,
        Source.state_change_log,
        Source.kraft_log,
        Source.kraft_metadata,
    )
    for source in sorted(Source)
)
"""Indexed by ``Source``: whether the source carries the controller's own writes."""
_WRITTEN = Fact.leadership_written
_KRAFT_LOG = Source.kraft_log
_KRAFT_METADATA = Source.kraft_metadata
_STARTED = Fact.leader_started
_WRITE_COPIES = frozenset({Fact.partition_transition, Fact.reassignment})
"""Facts whose leader epoch, when they carry one, is the one the controller just wrote."""


class LeadershipFold(ReplayState):
    """A partition's replay state with the handling of leaderships and failed elections."""

    __slots__ = ()

    def _on_leadership(self, ev: PartitionEvidence) -> None:
        if (
            ev.trigger == "new_partition"
            and ev.source is _KRAFT_LOG
            and self.timelines.restated_creation(
                self.topic, ev.time_ms, self.settings.merge_window_ms
            )
        ):
            return  # a restarting controller's replay of a removed topic's creation
        authoritative = ev.fact is _WRITTEN
        if ev.broker is not None:
            self._alive[ev.broker] = ev.time_ms or 0
        if ev.controller_id is not None:
            self._alive[ev.controller_id] = ev.time_ms or 0
        self._set_assignment(ev, 3 if authoritative else 1)
        epoch = ev.leader_epoch
        if epoch is None:
            if ev.leader is not None:
                self._claim(ev, ev.leader)
            return
        current = self.epoch
        # The epochs a source shows the controller writing: its writes, and the transition and
        # reassignment lines that carry the LeaderAndIsr just written (elections are logged only
        # that way), so that a jump between them is a gap and nothing else is.
        checked = _AUTHORITATIVE_SOURCE[ev.source] and (authoritative or ev.fact in _WRITE_COPIES)
        last = self._auth_epochs[ev.source]
        if (
            checked
            and last is not None
            and epoch >= last[0]
            # beside the metadata log, which holds every write, the controller's INFO lines
            # (a subset by design) have no gap worth a finding
            and not (ev.source is _KRAFT_LOG and self._auth_epochs[_KRAFT_METADATA] is not None)
        ):
            version, last_version = ev.partition_epoch, last[1]
            if epoch > last[0] + 1 or (
                version is not None and last_version is not None and version > last_version + 1
            ):
                self._anomaly(ev, gap(ev, epoch, last))
        if current is None or epoch > current:
            self._new_epoch(ev, epoch)
        elif epoch == current:
            self._same_epoch(ev, authoritative)
        else:
            self._late(ev, epoch, authoritative)
        if checked and (authoritative or last is None or epoch >= last[0]):
            self._auth_epochs[ev.source] = (epoch, ev.partition_epoch)

    def _new_epoch(self, ev: PartitionEvidence, epoch: int) -> None:
        time = ev.time_ms or 0
        prev_leader, prev_epoch, isr_before = self.leader, self.epoch, self.isr
        provisional = self._provisional
        if provisional is not None and provisional.prev_leader is not None:
            # The leader was moved by an epoch-less claim: "before" is what the claim saw.
            prev_leader, prev_epoch, isr_before = (
                provisional.prev_leader,
                provisional.epoch_before,
                provisional.isr_before,
            )
        known = prev_epoch is not None
        if not known:
            if ev.previous_leader is not None:
                prev_leader = ev.previous_leader
            if ev.previous_isr is not None:
                isr_before = ev.previous_isr
            if ev.previous_leader_epoch is not None:
                prev_epoch = ev.previous_leader_epoch
        elif ev.previous_isr is not None and ev.previous_leader_epoch == prev_epoch:
            isr_before = ev.previous_isr
        leader = ev.leader if ev.leader is not None else prev_leader
        draft = (
            latest_election(self._drafts, leader, time, self._merge, claims_only=True)
            if leader is not None
            else None
        )
        if draft is None and leader is not None:
            from_offline = ev.from_state in (OFFLINE, NEW) and ev.to_state == ONLINE
            changed = prev_leader is not None and leader != prev_leader
            if leader >= 0 and (changed or from_offline or self._is_creation(ev, prev_leader)):
                draft = self._open(time, leader, epoch, prev_leader, prev_epoch, isr_before)
            elif (
                leader == -1
                and prev_leader is not None
                and prev_leader >= 0
                and not self.timelines.deleting_at(self.topic, time)
                and not self._leader_removed_before_election(ev, time, prev_leader)
            ):
                # No leader written outside a topic deletion: the election found nobody.
                if self._failover_write(ev, time):
                    # onControllerFailover moves dead replicas to OfflineReplica before it
                    # elects: the attempt that follows starts from this write.
                    self._failure(ev, time, -1, epoch, ev.isr).partition_epoch = ev.partition_epoch
                else:
                    self._failure(ev, time, prev_leader, prev_epoch, isr_before, written=True)
            elif prev_leader is None and not known:
                backfill(self._drafts, ev, leader, epoch)
        if draft is not None:
            draft.epoch = epoch
            draft.claim_only = False
            draft.add(ev)
            if ev.isr is not None:
                draft.isr_after = ev.isr
            if ev.partition_epoch is not None:
                draft.partition_epoch = ev.partition_epoch
            if draft.isr_before is None and isr_before is not None:
                draft.isr_before = isr_before
            if ev.fact is _STARTED:
                take_offsets(draft, ev)
        if self._provisional is not None:
            self._provisional = None
        if leader is not None and leader != self.leader:
            self.leader = leader
            self._dirty = True
        self.epoch = epoch
        if ev.isr is not None:
            self._set_isr(ev.isr, time)
        elif leader != prev_leader:
            self.isr = None
        if ev.partition_epoch is not None:
            self.partition_epoch = ev.partition_epoch
        if ev.controller_epoch is not None:
            self.controller_epoch = ev.controller_epoch
        if ev.recovering is not None:
            self.recovering = ev.recovering
        if leader is not None and leader >= 0 and self.state in (None, OFFLINE, NEW):
            self.state = ONLINE
        elif leader == -1 and self.state == ONLINE:
            self.state = OFFLINE
        self._dirty = True

    def _same_epoch(self, ev: PartitionEvidence, authoritative: bool) -> None:
        leader = ev.leader
        provisional = self._provisional
        if leader is not None and self.leader is not None and leader != self.leader:
            if provisional is not None and leader == provisional.prev_leader:
                return  # a copy of the state the epoch-less claim replaced
            self._anomaly(ev, leader_conflict(self.leader, leader, self.epoch))
            return
        draft = draft_for_epoch(self._drafts, ev.leader_epoch) if self._drafts else None
        if draft is not None:
            merge_copy(draft, ev, self._merge)
        pepoch = ev.partition_epoch
        isr = ev.isr
        current = self.partition_epoch
        if pepoch is not None and current is not None and pepoch < current:
            return  # older znode version of this epoch: nothing new
        if isr is not None and isr != self.isr:
            if authoritative and pepoch is not None and pepoch == current and self.isr is not None:
                self._anomaly(ev, isr_conflict(self.isr, isr, pepoch))
                return
            self._set_isr(isr, ev.time_ms or 0)
        if pepoch is not None and pepoch != current:
            self.partition_epoch = pepoch
            self._dirty = True
        if self.leader is None and leader is not None:
            self.leader = leader
            self._dirty = True
        if ev.controller_epoch is not None and ev.controller_epoch != self.controller_epoch:
            self.controller_epoch = ev.controller_epoch
        if ev.recovering is not None:
            self.recovering = ev.recovering

    def _late(self, ev: PartitionEvidence, epoch: int, authoritative: bool) -> None:
        draft = draft_for_epoch(self._drafts, epoch)
        if draft is not None:
            if ev.leader is not None and ev.leader != draft.leader:
                self._anomaly(ev, leader_conflict(draft.leader, ev.leader, epoch))
                return
            merge_copy(draft, ev, self._merge)
            return
        known = self._emitted_epochs.get(epoch)
        if known is not None and ev.leader is not None and ev.leader >= 0 and ev.leader != known:
            self._anomaly(ev, leader_conflict(known, ev.leader, epoch))
            return
        for draft in self._drafts:
            older = draft.epoch is None or epoch < draft.epoch
            if draft.isr_before is None and older and ev.leader != draft.leader:
                if ev.isr is not None:
                    draft.isr_before = ev.isr
                if draft.prev_leader is None:
                    draft.prev_leader = ev.leader
                if draft.epoch_before is None:
                    draft.epoch_before = epoch
                if draft.failed and not draft.written and draft.epoch is None:
                    # Nothing written after the attempt: what it saw stayed in force.
                    draft.epoch, draft.isr_after = draft.epoch_before, draft.isr_before
                    draft.partition_epoch = ev.partition_epoch
                draft.cite(ev)
        last = self._auth_epochs[ev.source]
        if (
            authoritative
            and _AUTHORITATIVE_SOURCE[ev.source]
            and last is not None
            and epoch < last[0]
        ):
            self._anomaly(ev, epoch_regression(ev.source, last[0], epoch))

    def _claim(self, ev: PartitionEvidence, leader: int) -> Draft | None:
        time = ev.time_ms or 0
        draft = latest_election(self._drafts, leader, time, self._merge)
        if draft is not None:
            draft.add(ev)
            return draft
        if leader < 0 or leader == self.leader:
            return None
        draft = self._open(time, leader, None, self.leader, self.epoch, self.isr)
        draft.add(ev)
        self._provisional = draft
        self.leader = leader
        if self.state in (OFFLINE, NEW):
            self.state = ONLINE
        self._dirty = True
        return draft

    def _failure(
        self,
        ev: PartitionEvidence,
        time: int,
        prev_leader: int | None = None,
        prev_epoch: int | None = None,
        isr_before: tuple[int, ...] | None = None,
        *,
        written: bool = False,
    ) -> Draft:
        """Add evidence of a failed election to its attempt, opened here when none is pending.

        Args:
            ev: a failure line, or the write of leader -1 (``written``).
            time: its time.
            prev_leader: the leader before the attempt (default: the one in force).
            prev_epoch: the leader epoch before it.
            isr_before: the ISR before it.
            written: ``ev`` is the leadership the controller wrote right after the attempt.

        Returns:
            The attempt's draft.
        """
        self._tentative = None
        draft = pending_attempt(self._drafts, ev, time, written, self._merge)
        if draft is None:
            if prev_leader is None:
                prev_leader, prev_epoch, isr_before = self.leader, self.epoch, self.isr
            draft = Draft(
                time, -1, prev_epoch, prev_leader, prev_epoch, isr_before, True, time + self._settle
            )
            # What is in force after the attempt unless a write follows it.
            draft.isr_after = isr_before
            draft.partition_epoch = self.partition_epoch
            draft.assignment = self.assignment
            draft.from_state = ev.from_state or (self.state if self.state != ONLINE else OFFLINE)
            self._push(draft)
        draft.add(ev)
        if written:
            draft.written = True
            draft.epoch = ev.leader_epoch
            if ev.isr is not None:
                draft.isr_after = ev.isr
            draft.partition_epoch = ev.partition_epoch
        else:
            draft.attempt_lines.add((ev.source, ev.fact))
        return draft

    def _open(
        self,
        time: int,
        leader: int,
        epoch: int | None,
        prev_leader: int | None,
        prev_epoch: int | None,
        isr_before: tuple[int, ...] | None,
    ) -> Draft:
        draft = Draft(
            time, leader, epoch, prev_leader, prev_epoch, isr_before, False, time + self._settle
        )
        draft.assignment = self.assignment
        draft.left_isr_ms = self._left_isr.get(leader)
        draft.high_watermark = self._last_hw
        draft.start_offset = self._lagging_end.get(leader)
        draft.reassigning = bool(self.adding or self.removing)
        if self.state is not None and draft.from_state is None:
            draft.from_state = self.state if self.state != ONLINE else None
        tentative = self._tentative
        if tentative is not None:
            hint, live = tentative
            if abs((hint.time_ms or 0) - time) <= self._merge:
                draft.live_hint = live
                draft.cite(hint)
                self._tentative = None
            else:
                self._resolve_tentative(time)
        self._push(draft)
        return draft

    def _resolve_tentative(self, now: int | None) -> None:
        tentative = self._tentative
        if tentative is None:
            return
        ev, live = tentative
        time = ev.time_ms or 0
        if now is not None and now < time + self._merge:
            return
        self._tentative = None
        unclean, _ = self.timelines.unclean_setting(self.topic, time, self.settings, None)
        if unclean:
            return  # unclean allowed: a leader outside the ISR would have been chosen
        draft = self._failure(ev, time)
        if draft.live_hint is None:
            draft.live_hint = live

    def _leader_removed_before_election(
        self, ev: PartitionEvidence, time: int, prev_leader: int
    ) -> bool:
        """A written "no leader" that is the dead leader's removal from the ISR while in-sync
        replicas are live: an election follows, nothing failed. A controller taking over moves
        the replicas of dead brokers to OfflineReplica (which writes leader -1 and the ISR
        without the leader) before it elects leaders for the partitions left without one. A
        failed election leaves no live member in the ISR (1.1+ keeps the dead last member),
        unless unclean elections are allowed: then a live assigned replica outside the ISR is
        elected right after, and nothing failed either."""
        isr = ev.isr
        if not isr:
            return False
        live = self.timelines.liveness_at(time).live
        if prev_leader not in isr:
            return any(replica in live for replica in isr)
        if isr != (prev_leader,) or not self.assignment:
            return False
        unclean, _ = self.timelines.unclean_setting(self.topic, time, self.settings, None)
        return unclean and any(r in live for r in self.assignment if r != prev_leader)

    def _failover_write(self, ev: PartitionEvidence, time: int) -> bool:
        """Whether ``ev`` was written by a controller that took over within the merge window.

        Args:
            ev: a write.
            time: its time.

        Returns:
            True when its controller epoch (else the one in force) is not the one in force
            ``merge_window_ms`` before.
        """
        epoch = ev.controller_epoch
        if epoch is None:
            epoch = self.timelines.controller_at(time)[1]
        before = self.timelines.controller_at(time - self._merge)[1]
        return epoch is not None and before is not None and epoch != before

    def _is_creation(self, ev: PartitionEvidence, prev_leader: int | None) -> bool:
        if prev_leader is not None:
            return False
        if ev.trigger == "new_partition" or self.state == NEW or ev.from_state == NEW:
            return True
        time = ev.time_ms or 0
        return ev.leader_epoch == 0 and any(
            trigger == "new_partition" and abs(hint_time - time) <= self._merge
            for hint_time, trigger, _ in self._hints
        )
