"""The per-partition replay fold: rebuild what the controller saw and detect every election.

``PartitionReplay`` is fed one partition's evidence in order, in as many chunks as the caller
likes (Spark Arrow batches); it keeps its state between calls and returns the rows that became
final. It rebuilds the assignment, ISR, leader, epochs and partition state, detects every leader
change and every failed election (no eligible leader: partition left offline), merges the same
election seen in several sources into one, infers the trigger, checks the new leader against
Kafka's rules (``rules.expected_leader``) and reports anomalies.

Ordering. Input is expected in ``PartitionEvidence.order_key`` order (time, source, position).
Clocks of different brokers differ, but leader epochs and znode versions are monotonic, so the
fold attributes evidence by epoch rather than trusting time alone: evidence for an epoch that is
still pending merges into it whatever its timestamp; evidence of an older, settled epoch is a
stale copy (ignored), or an anomaly when an authoritative source goes backwards. This is why a
time sort suffices for the Spark job (a true epoch-first order cannot be expressed as a sort:
most lines carry no epoch).

Merging. An election is identified by its leader epoch. Lines that name the new leader without
an epoch (0.8-1.0 selector and state-change lines, KRaft record replays) merge with the election
of the same new leader within ``merge_window_ms``. A failed election is one attempt of the
controller (Kafka retries an offline partition at every broker change and controller failover,
``triggerOnlinePartitionStateChange``): its failure lines (state-change.log, controller.log) and
the leader -1 its OfflineReplica step writes right after merge when they fall within
``merge_window_ms`` under the same controller epoch; a second failure line of the same source
and kind, or a second write, is the next attempt.

Finality. An election, a timeline interval or an anomaly is emitted once evidence
``settle_ms`` later has been seen (or at ``finish``). Decisions depend only on the evidence
sequence, never on how it was chunked, so chunked feeding gives exactly the rows of one call.

Inference (``inference.infer_trigger``): explicit evidence first (selector or strategy lines,
admin UNCLEAN, preferred-election lines, the reassignment step that re-elects a leader,
new-partition creation, KRaft change contexts), then state transitions (New -> Online: new
partition; Offline -> Online: offline), then context from the cluster timelines at that moment
(old leader shutting down: controlled shutdown; old leader gone: offline; other reassignment
steps or a reassignment in flight: reassign, weaker than the three before; new leader is the
preferred replica while the old one is live: preferred; ZooKeeper-only: an old leader that
deregisters right after: controlled shutdown), else ``unknown``. ``unclean`` is "the new leader
is not in the ISR just before": since 1.1 ZooKeeper-mode controllers log nothing else.

Modules: ``state`` (what the controller saw), ``leadership`` (epochs, elections, failed
attempts), ``drafts`` (elections being assembled), ``findings`` (state machine checks, gaps,
conflicts), ``inference`` (trigger, liveness), ``election`` (a settled election judged),
``intervals`` (timeline intervals); this module routes each fact to its handler and decides
when rows are final.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from kafkactl_core.replay.drafts import Draft
from kafkactl_core.replay.election import judge_election
from kafkactl_core.replay.evidence import KRAFT_SOURCES, Fact, PartitionEvidence
from kafkactl_core.replay.findings import (
    partition_transition,
    refused_transition,
    replica_transition,
)
from kafkactl_core.replay.inference import REASSIGN_STEP
from kafkactl_core.replay.intervals import FAR_FUTURE, carries_on, close, settle_closed
from kafkactl_core.replay.leadership import LeadershipFold
from kafkactl_core.replay.rows import ReplayOutput, TimelineRow
from kafkactl_core.replay.state import FAR_PAST
from kafkactl_core.replay.state_names import NEW, NONEXISTENT, OFFLINE, ONLINE

__all__ = ["PartitionReplay"]

_REASSIGN_ELECTING = frozenset({"leader_not_in_new_replicas", "leader_dead_in_new_replicas"})
"""Reassignment steps Kafka logs right before it re-elects the partition's leader."""
_PREFERRED_REQUESTED = Fact.preferred_requested
_NEW_PARTITION_HINT = Fact.new_partition
_OUT_OF_SYNC = re.compile(r"brokerId: (-?\d+), endOffset: (-?\d+)")


class PartitionReplay(LeadershipFold):
    """The replay of one partition: feed its evidence in order, collect rows, then finish.

    Typical use (one call or many; the rows are the same)::

        replay = PartitionReplay(cluster, topic, partition, timelines, settings)
        for chunk in chunks:
            out = replay.feed(chunk)      # rows that became final
        out = replay.finish()             # everything still pending
    """

    __slots__ = ()

    # ================================================================== public API

    def feed(self, evidence: Iterable[PartitionEvidence]) -> ReplayOutput:
        """Fold a chunk of this partition's evidence (in ``order_key`` order).

        Args:
            evidence: the next records; records of another partition are ignored.

        Returns:
            The rows that became final during this chunk.
        """
        if self._finished:
            return ReplayOutput()
        handlers = _HANDLER_LIST
        topic, partition = self.topic, self.partition
        # auto mode: watch for the first KRaft evidence, then stop looking
        watch_kraft = self._auto_mode and not self.kraft
        kraft_sources = KRAFT_SOURCES
        kraft_since = self.timelines.kraft_since if watch_kraft else None
        if kraft_since is None:
            kraft_since = FAR_FUTURE
        watermark, next_due = self._watermark, self._next_due
        gone_next = self._gone_next
        for ev in evidence:
            if ev.partition != partition or ev.topic != topic:
                continue
            time = ev.time_ms
            if time is None:
                ev = _replace(ev, time_ms=watermark if watermark > FAR_PAST else 0)
            elif time > watermark:
                watermark = time
                if time >= next_due:
                    self._flush(time)
                    next_due = self._next_due
                if time > gone_next:
                    gone_next = self._topic_deleted(time)
            if watch_kraft and (ev.source in kraft_sources or (ev.time_ms or 0) >= kraft_since):
                self.kraft = True
                watch_kraft = False
            handlers[ev.fact](self, ev)
            if self._dirty:
                self._interval(ev)
            if self._next_due < next_due:
                next_due = self._next_due
        self._watermark = watermark
        self._next_due = next_due
        self._gone_next = gone_next
        out, self._out = self._out, ReplayOutput()
        return out

    def finish(self) -> ReplayOutput:
        """Emit everything still pending: elections, the last intervals (the final one with
        ``valid_to`` ``None``: in force at the end of the evidence) and anomalies.

        Returns:
            The remaining rows. Later ``feed``/``finish`` calls return nothing.
        """
        if self._finished:
            return ReplayOutput()
        self._topic_deleted(None)
        self._resolve_tentative(None)
        for draft in list(self._drafts):
            self._finalize(draft)
        self._drafts.clear()
        self._out.timeline.extend(self._closed)
        self._closed.clear()
        if self._current is not None:
            self._out.timeline.append(self._current)
            self._current = None
        self._finished = True
        out, self._out = self._out, ReplayOutput()
        return out

    # ================================================================== handlers

    def _on_transition(self, ev: PartitionEvidence) -> None:
        target = ev.to_state
        origin = ev.from_state
        if origin == target == ONLINE and self._quirky_from_state:
            # 0.8.0/0.8.1 log the state *after* the update as the "from" state.
            ev = _replace(ev, from_state=None)
            origin = None
        if origin == NONEXISTENT and target == NEW and self.epoch is not None:
            # Kafka says the partition did not exist: a new incarnation starts from epoch 0.
            # Without a known deletion in between, the mismatch is still reported.
            logged = self._logged_state
            known = self.timelines.deleted_between(self.topic, self._state_since, ev.time_ms)
            self._deleted()
            if not known:
                self._logged_state = logged
        if target in (OFFLINE, NONEXISTENT):
            self._offline_unlogged = False
        if origin is not None and target is not None:
            self._check_partition_transition(ev, origin, target)
        if target is not None:
            self._state_since = ev.time_ms
        if target is not None:
            self._logged_state = target
            if target != self.state:
                self.state = target
                self._dirty = True
        if target == ONLINE:
            if ev.leader is not None or ev.leader_epoch is not None:
                self._on_leadership(ev)
        elif target == NONEXISTENT:
            self._deleted()
        elif target == NEW:
            self._set_assignment(ev, 3)
            self._hint(ev.time_ms or 0, "new_partition", ev.ref)

    def _on_isr_changed(self, ev: PartitionEvidence) -> None:
        leader = ev.leader
        if self.leader is not None and leader is not None and leader != self.leader:
            return  # a former leader's late line: the current epoch has another leader
        time = ev.time_ms or 0
        if ev.broker is not None:
            self._alive[ev.broker] = time
        if ev.high_watermark is not None:
            self._last_hw = ev.high_watermark
        detail = ev.detail
        if detail is not None and "endOffset" in detail:
            for replica, offset in _OUT_OF_SYNC.findall(detail):
                self._lagging_end[int(replica)] = int(offset)
        previous = ev.previous_isr
        if self.isr is None and previous is not None:
            self.isr = previous
        new = ev.isr
        pepoch = ev.partition_epoch
        if (
            pepoch is not None
            and self.partition_epoch is not None
            and pepoch < self.partition_epoch
        ):
            return  # stale: a newer znode version is already known
        if new is not None and new != self.isr:
            self._set_isr(new, time)
            if pepoch is None:
                # The change is written as a new znode version / partition epoch that this line
                # does not give: unknown until the write shows it (then the interval fills in).
                self.partition_epoch = None
        if pepoch is not None and pepoch != self.partition_epoch:
            self.partition_epoch = pepoch
            self._dirty = True
        if self.leader is None and leader is not None:
            self.leader = leader
            self._dirty = True

    def _on_replica_transition(self, ev: PartitionEvidence) -> None:
        replica = ev.replica
        target = ev.to_state
        if replica is None or target is None:
            return
        origin = ev.from_state
        self._offline_unlogged = False
        if origin is not None:
            self._check_replica_transition(ev, origin, target)
        self._replica_states[replica] = target

    def _on_election_failed(self, ev: PartitionEvidence) -> None:
        if not self._anomaly(ev, refused_transition(ev)):
            self._failure(ev, ev.time_ms or 0)

    def _on_transition_failed(self, ev: PartitionEvidence) -> None:
        if ev.trigger == "preferred" and ev.leader is not None and self.leader is None:
            self.leader = ev.leader  # "failed to complete preferred election. Leader is still L"
            self._dirty = True
        origin, target = ev.from_state, ev.to_state
        if origin is None or target is None:
            return
        if ev.replica is not None:
            self._check_replica_transition(ev, origin, target)
        else:
            self._check_partition_transition(ev, origin, target)

    def _on_hint(self, ev: PartitionEvidence) -> None:
        trigger = ev.trigger
        if ev.fact is _PREFERRED_REQUESTED:
            trigger = "preferred"
        elif ev.fact is _NEW_PARTITION_HINT:
            trigger = "new_partition"
        if trigger is not None:
            self._hint(ev.time_ms or 0, trigger, ev.ref)
            for draft in self._drafts:
                if not draft.failed and abs(draft.time - (ev.time_ms or 0)) <= self._merge:
                    if trigger == "admin_unclean" or draft.explicit_trigger is None:
                        draft.explicit_trigger = trigger
                    draft.cite(ev)

    def _on_claim(self, ev: PartitionEvidence) -> None:
        if ev.leader is not None:
            self._claim(ev, ev.leader)

    def _on_no_live_isr(self, ev: PartitionEvidence) -> None:
        live = ev.live_brokers or ()
        time = ev.time_ms or 0
        if not live:
            self._failure(ev, time)  # no live replica at all: the election cannot succeed
        else:
            self._tentative = (ev, live)

    def _on_unclean_warning(self, ev: PartitionEvidence) -> None:
        if ev.leader is None:
            return
        draft = self._claim(ev, ev.leader)
        if draft is not None:
            draft.unclean_explicit = True

    def _on_assignment(self, ev: PartitionEvidence) -> None:
        self._set_assignment(ev, 3)
        if ev.adding_replicas is not None:
            self.adding = ev.adding_replicas
        if ev.removing_replicas is not None:
            self.removing = ev.removing_replicas
        if ev.replicas is not None and (self.adding or self.removing):
            # A KIP-455 assignment (ZooKeeper topic znode) with a reassignment in flight: its
            # target is the assignment without the replicas being removed.
            target = tuple(r for r in ev.replicas if r not in self.removing)
            self._reassign_target = (target, ev.time_ms or 0)

    def _on_reassignment(self, ev: PartitionEvidence) -> None:
        time = ev.time_ms or 0
        phase = ev.detail or ""
        if ev.replicas is not None and phase in ("started", "requested", "caught_up"):
            self._reassign_target = (ev.replicas, time)
        elif ev.replicas is not None and phase in ("assignment_updated", "completed"):
            self._set_assignment(ev, 2)
            self._reassign_target = (ev.replicas, time)
        self._hint(time, "reassign" if phase in _REASSIGN_ELECTING else REASSIGN_STEP, ev.ref)
        if ev.leader_epoch is not None:
            self._on_leadership(ev)

    def _on_deletion(self, ev: PartitionEvidence) -> None:
        if ev.detail in ("completed", "state_znode_deleted", None):
            self._deleted()

    def _topic_deleted(self, before: int | None) -> int:
        """End the partition at each completed deletion of its topic before ``before`` (every
        one left when ``None``); return the time of the next one (far future: none).

        Kafka logs a deleted partition's last transitions (to Offline, then NonExistent) only at
        TRACE, so without ZooKeeper's evidence the topic's completion is all that says the
        partition is gone. A deletion before the partition's first evidence was of an earlier
        incarnation; one of a partition already gone changes nothing.
        """
        gone = self._gone
        while self._gone_index < len(gone):
            fact = gone[self._gone_index]
            at = fact.time_ms or 0
            if before is not None and at >= before:
                return at
            self._gone_index += 1
            if self._current is None or self.state == NONEXISTENT:
                continue
            ev = PartitionEvidence(
                self.cluster,
                self.topic,
                self.partition,
                at,
                fact.source,
                Fact.deletion,
                fact.ref,
                fact.seq,
                detail="completed",
            )
            self._on_deletion(ev)
            self._interval(ev)
        return FAR_FUTURE

    def _on_recovered(self, ev: PartitionEvidence) -> None:
        self.recovering = False

    def _on_ignore(self, ev: PartitionEvidence) -> None:
        return

    def _check_partition_transition(self, ev: PartitionEvidence, origin: str, target: str) -> None:
        self._anomaly(
            ev, partition_transition(ev, origin, target, self._logged_state, self._offline_unlogged)
        )

    def _check_replica_transition(self, ev: PartitionEvidence, origin: str, target: str) -> None:
        replica = ev.replica
        known = self._replica_states.get(replica) if replica is not None else None
        self._anomaly(
            ev, replica_transition(ev, origin, target, self._replica_valid, self._profile, known)
        )

    # ================================================================== timeline

    def _interval(self, ev: PartitionEvidence) -> None:
        self._dirty = False
        state, leader, isr = self.state, self.leader, self.isr
        epoch, pepoch, assignment = self.epoch, self.partition_epoch, self.assignment
        current = self._current
        time = ev.time_ms or 0
        if current is not None:
            if carries_on(current, state, leader, isr, epoch, pepoch, assignment):
                return
            time = close(current, time)
            self._closed.append(current)
        self._current = TimelineRow(
            self.cluster,
            self.topic,
            self.partition,
            time,
            None,
            state,
            leader,
            isr,
            epoch,
            pepoch,
            assignment,
            self.controller_epoch,
            ev.ref,
        )

    # ================================================================== finality

    def _flush(self, now: int) -> None:
        self._resolve_tentative(now)
        settle = self._settle
        drafts = self._drafts
        due = FAR_FUTURE
        if drafts:
            keep: list[Draft] = []
            for draft in drafts:
                if draft.due <= now:
                    self._finalize(draft)
                else:
                    keep.append(draft)
                    if draft.due < due:
                        due = draft.due
            self._drafts = keep
        if self._closed:
            self._closed, closing = settle_closed(self._closed, now, settle, self._out.timeline)
            due = min(due, closing)
        if self._tentative is not None:
            due = min(due, (self._tentative[0].time_ms or 0) + self._merge)
        # Flushing is batched (at most every half settle period): emission is a little later
        # than strictly possible, and the same for any chunking of the input.
        self._next_due = max(due, now + settle // 2)

    def _finalize(self, draft: Draft) -> None:
        election, anomalies = judge_election(draft, self._context())
        if draft.epoch is not None and not draft.failed:
            emitted = self._emitted_epochs
            emitted[draft.epoch] = draft.leader
            if len(emitted) > 64:
                for epoch in sorted(emitted)[:32]:
                    del emitted[epoch]
        self._out.anomalies.extend(anomalies)
        self._out.elections.append(election)


def _replace(ev: PartitionEvidence, **changes: object) -> PartitionEvidence:
    clone = PartitionEvidence(
        ev.cluster, ev.topic, ev.partition, ev.time_ms, ev.source, ev.fact, ev.ref, ev.seq
    )
    for name in PartitionEvidence.__dataclass_fields__:
        setattr(clone, name, changes[name] if name in changes else getattr(ev, name))
    return clone


_HANDLERS: dict[Fact, Callable[[PartitionReplay, PartitionEvidence], None]] = {
    Fact.leadership_written: PartitionReplay._on_leadership,
    Fact.leadership_observed: PartitionReplay._on_leadership,
    Fact.leader_started: PartitionReplay._on_leadership,
    Fact.isr_changed: PartitionReplay._on_isr_changed,
    Fact.partition_transition: PartitionReplay._on_transition,
    Fact.replica_transition: PartitionReplay._on_replica_transition,
    Fact.election_failed: PartitionReplay._on_election_failed,
    Fact.transition_failed: PartitionReplay._on_transition_failed,
    Fact.election_started: PartitionReplay._on_hint,
    Fact.leader_claimed: PartitionReplay._on_claim,
    Fact.no_live_isr: PartitionReplay._on_no_live_isr,
    Fact.unclean_warning: PartitionReplay._on_unclean_warning,
    Fact.assignment: PartitionReplay._on_assignment,
    Fact.reassignment: PartitionReplay._on_reassignment,
    Fact.preferred_requested: PartitionReplay._on_hint,
    Fact.new_partition: PartitionReplay._on_hint,
    Fact.deletion: PartitionReplay._on_deletion,
    Fact.recovered: PartitionReplay._on_recovered,
    Fact.isr_retained: PartitionReplay._on_ignore,
}

_HANDLER_LIST = [_HANDLERS[fact] for fact in sorted(Fact)]
"""Handlers indexed by ``Fact`` value (a list index is cheaper than a dict lookup)."""
