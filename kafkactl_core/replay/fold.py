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

Inference (see ``_trigger``): explicit evidence first (selector or strategy lines, admin
UNCLEAN, preferred-election lines, the reassignment step that re-elects a leader, new-partition
creation, KRaft change contexts), then state transitions (New -> Online: new partition;
Offline -> Online: offline), then context from the cluster timelines at that moment (old leader
shutting down: controlled shutdown; old leader gone: offline; other reassignment steps or a
reassignment in flight: reassign, weaker than the three before; new leader is the
preferred replica while the old one is live: preferred; ZooKeeper-only: an old leader that
deregisters right after: controlled shutdown), else ``unknown``. ``unclean`` is "the new leader
is not in the ISR just before": since 1.1 ZooKeeper-mode controllers log nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from kafkactl_core.model import PartitionState, ReplicaState
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.replay.evidence import Fact, PartitionEvidence, Source
from kafkactl_core.replay.rows import AnomalyRow, ElectionRow, ReplayOutput, TimelineRow
from kafkactl_core.replay.rules import ElectionInputs, expected_leader
from kafkactl_core.replay.settings import ReplaySettings
from kafkactl_core.replay.timelines import ClusterTimelines, LivenessView
from kafkactl_core.versions import KafkaRelease
from kafkactl_core.zkcontroller.states import partition_transition_valid, replica_transition_valid

__all__ = ["PartitionReplay"]

_RELEASE_0_8_2 = KafkaRelease(0, 8, 2)
_RELEASE_2_6 = KafkaRelease(2, 6, 0)
_FAR_PAST = -(1 << 62)
_FAR_FUTURE = 1 << 62
_ONLINE = "OnlinePartition"
_OFFLINE = "OfflinePartition"
_NEW = "NewPartition"
_REASSIGN_ELECTING = frozenset({"leader_not_in_new_replicas", "leader_dead_in_new_replicas"})
"""Reassignment steps Kafka logs right before it re-elects the partition's leader."""
_REASSIGN_STEP = "reassign_step"
"""Hint of any other reassignment step: one near an election does not say it caused it (the
reassignment may have ended, or kept its leader, just before a broker failed or shut down)."""
_NONEXISTENT = "NonExistentPartition"
_PARTITION_STATES = {state.name: state for state in PartitionState}
_REPLICA_STATES = {state.name: state for state in ReplicaState}
_AUTHORITATIVE_SOURCE = tuple(
    source in (Source.zk_txn, Source.controller_log, Source.state_change_log, Source.kraft_log)
    for source in sorted(Source)
)
"""Indexed by ``Source``: whether the source carries the controller's own writes."""
_SOURCES = tuple(sorted(Source))
_ZK_TXN = Source.zk_txn
_KRAFT_LOG = Source.kraft_log
_WRITTEN = Fact.leadership_written
_OBSERVED = Fact.leadership_observed
_STARTED = Fact.leader_started
_TRANSITION = Fact.partition_transition
_REPLICA_TRANSITION = Fact.replica_transition
_PREFERRED_REQUESTED = Fact.preferred_requested
_WRITE_COPIES = frozenset({Fact.partition_transition, Fact.reassignment})
"""Facts whose leader epoch, when they carry one, is the one the controller just wrote."""
_NEW_PARTITION_HINT = Fact.new_partition
_VALID_REPLICA_PAIRS: dict[KafkaVersion, frozenset[tuple[str, str]]] = {}


def _replica_pairs(profile: KafkaVersion) -> frozenset[tuple[str, str]]:
    """Valid (from, to) replica state names of a release, computed once per release."""
    pairs = _VALID_REPLICA_PAIRS.get(profile)
    if pairs is None:
        pairs = frozenset(
            (start.name, end.name)
            for start in ReplicaState
            for end in ReplicaState
            if replica_transition_valid(profile, start, end)
        )
        _VALID_REPLICA_PAIRS[profile] = pairs
    return pairs


_SOURCE_NAMES: dict[int, str] = {}


def _source_names(mask: int) -> str:
    names = _SOURCE_NAMES.get(mask)
    if names is None:
        names = "+".join(source.name for source in _SOURCES if mask >> source & 1)
        _SOURCE_NAMES[mask] = names
    return names


_OUT_OF_SYNC = re.compile(r"brokerId: (-?\d+), endOffset: (-?\d+)")
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


class _Draft:
    """An election being assembled from its evidence."""

    __slots__ = (
        "assignment",
        "attempt_lines",
        "claim_only",
        "controller_epoch",
        "controller_id",
        "due",
        "epoch",
        "epoch_before",
        "explicit_trigger",
        "failed",
        "from_state",
        "high_watermark",
        "isr_after",
        "isr_before",
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
        self.left_isr_ms: int | None = None
        self.high_watermark: int | None = None
        self.start_offset: int | None = None
        self.reassigning = False
        self.refs: list[str] = []
        self.sources = 0  # bit per Source

    def add(self, ev: PartitionEvidence) -> None:
        self.refs.append(ev.ref)
        self.sources |= 1 << ev.source
        if self.controller_id is None:
            self.controller_id = ev.controller_id
        if self.controller_epoch is None:
            self.controller_epoch = ev.controller_epoch
        if ev.live_brokers is not None and self.live_hint is None:
            self.live_hint = ev.live_brokers
        if ev.recovering is not None and self.recovering is None:
            self.recovering = ev.recovering
        trigger = ev.trigger
        if (
            trigger is not None
            and trigger not in ("zk", "kraft_unclean")
            and (trigger == "admin_unclean" or self.explicit_trigger is None)
        ):
            self.explicit_trigger = trigger
        if ev.from_state is not None and ev.to_state == _ONLINE and self.from_state is None:
            self.from_state = ev.from_state


class PartitionReplay:
    """The replay of one partition: feed its evidence in order, collect rows, then finish.

    Typical use (one call or many; the rows are the same)::

        replay = PartitionReplay(cluster, topic, partition, timelines, settings)
        for chunk in chunks:
            out = replay.feed(chunk)      # rows that became final
        out = replay.finish()             # everything still pending
    """

    __slots__ = (
        "_alive",
        "_assign_rank",
        "_auth_epochs",
        "_auto_mode",
        "_closed",
        "_current",
        "_dirty",
        "_drafts",
        "_emitted_epochs",
        "_finished",
        "_gone",
        "_gone_index",
        "_gone_next",
        "_hints",
        "_lagging_end",
        "_last_hw",
        "_left_isr",
        "_logged_state",
        "_merge",
        "_next_due",
        "_offline_unlogged",
        "_out",
        "_profile",
        "_provisional",
        "_quirky_from_state",
        "_reassign_target",
        "_replica_states",
        "_replica_valid",
        "_settle",
        "_state_since",
        "_tentative",
        "_watermark",
        "adding",
        "assignment",
        "cluster",
        "controller_epoch",
        "epoch",
        "isr",
        "kraft",
        "leader",
        "partition",
        "partition_epoch",
        "recovering",
        "removing",
        "settings",
        "state",
        "timelines",
        "topic",
    )

    def __init__(
        self,
        cluster: str,
        topic: str,
        partition: int,
        timelines: ClusterTimelines | None,
        settings: ReplaySettings,
    ) -> None:
        """Start a replay with nothing known about the partition.

        Args:
            cluster: the cluster.
            topic: the topic.
            partition: the partition.
            timelines: the cluster's timelines (liveness, configs, ...); ``None`` = none known.
            settings: release, mode, windows and scenario.
        """
        self.cluster = cluster
        self.topic = topic
        self.partition = partition
        self.timelines = timelines if timelines is not None else ClusterTimelines(cluster)
        self.settings = settings
        self._profile: KafkaVersion = settings.profile
        self._replica_valid = _replica_pairs(settings.profile)
        self._merge = settings.merge_window_ms
        self._settle = settings.settle_ms
        self.kraft = settings.mode == "kraft"
        self._auto_mode = settings.mode == "auto"
        # What the controller saw.
        self.leader: int | None = None
        self.epoch: int | None = None
        self.partition_epoch: int | None = None
        self.isr: tuple[int, ...] | None = None
        self.state: str | None = None
        self._logged_state: str | None = None
        self._state_since: int | None = None
        self._quirky_from_state = settings.release < _RELEASE_0_8_2
        # Transitions into OfflinePartition (and replica transitions) are TRACE lines in every
        # release; Kafka's shipped log4j.properties writes state.change.logger at TRACE up to
        # 2.5 and at INFO since 2.6 (KAFKA-8470), so by default they are absent from 2.6 on,
        # until a TRACE line of this partition shows the log was configured otherwise.
        self._offline_unlogged = settings.release >= _RELEASE_2_6
        self.controller_epoch: int | None = None
        self.recovering: bool | None = None
        self.assignment: tuple[int, ...] | None = None
        self.adding: tuple[int, ...] = ()
        self.removing: tuple[int, ...] = ()
        self._assign_rank = -1
        self._reassign_target: tuple[tuple[int, ...], int] | None = None
        self._replica_states: dict[int, str] = {}
        self._left_isr: dict[int, int] = {}
        self._alive: dict[int, int] = {}
        self._last_hw: int | None = None
        self._lagging_end: dict[int, int] = {}
        self._auth_epochs: list[tuple[int, int | None] | None] = [None] * len(_SOURCES)
        self._emitted_epochs: dict[int, int] = {}
        # Elections being assembled.
        self._drafts: list[_Draft] = []
        self._provisional: _Draft | None = None
        self._tentative: tuple[PartitionEvidence, tuple[int, ...]] | None = None
        self._hints: list[tuple[int, str, str]] = []
        # Timeline intervals and output.
        self._current: TimelineRow | None = None
        self._closed: list[TimelineRow] = []
        self._dirty = False
        self._watermark = _FAR_PAST
        self._next_due = _FAR_FUTURE
        # The topic's completed deletions end the partition (see ``_topic_deleted``).
        self._gone = self.timelines.completed_deletions(topic)
        self._gone_index = 0
        self._gone_next = (self._gone[0].time_ms or 0) if self._gone else _FAR_FUTURE
        self._out = ReplayOutput()
        self._finished = False

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
        watch_kraft = self._auto_mode
        kraft_log = _KRAFT_LOG
        watermark, next_due = self._watermark, self._next_due
        gone_next = self._gone_next
        for ev in evidence:
            if ev.partition != partition or ev.topic != topic:
                continue
            time = ev.time_ms
            if time is None:
                ev = _replace(ev, time_ms=watermark if watermark > _FAR_PAST else 0)
            elif time > watermark:
                watermark = time
                if time >= next_due:
                    self._flush(time)
                    next_due = self._next_due
                if time > gone_next:
                    gone_next = self._topic_deleted(time)
            if watch_kraft and ev.source is kraft_log:
                self.kraft = True
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

    def _on_leadership(self, ev: PartitionEvidence) -> None:
        authoritative = ev.fact is _WRITTEN
        if ev.broker is not None:
            self._alive[ev.broker] = ev.time_ms or 0
        if ev.controller_id is not None:
            self._alive[ev.controller_id] = ev.time_ms or 0
        if ev.replicas is not None:
            self._set_assignment(ev.replicas, 3 if authoritative else 1, ev)
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
        if checked and last is not None and epoch >= last[0]:
            version, last_version = ev.partition_epoch, last[1]
            if epoch > last[0] + 1 or (
                version is not None and last_version is not None and version > last_version + 1
            ):
                self._check_gap(ev, epoch, last)
        if current is None or epoch > current:
            self._new_epoch(ev, epoch, authoritative)
        elif epoch == current:
            self._same_epoch(ev, authoritative)
        else:
            self._late(ev, epoch, authoritative)
        if checked and (authoritative or last is None or epoch >= last[0]):
            self._auth_epochs[ev.source] = (epoch, ev.partition_epoch)

    def _on_transition(self, ev: PartitionEvidence) -> None:
        target = ev.to_state
        origin = ev.from_state
        if origin == target == _ONLINE and self._quirky_from_state:
            # 0.8.0/0.8.1 log the state *after* the update as the "from" state.
            ev = _replace(ev, from_state=None)
            origin = None
        if origin == _NONEXISTENT and target == _NEW and self.epoch is not None:
            # Kafka says the partition did not exist: a new incarnation starts from epoch 0.
            # Without a known deletion in between, the mismatch is still reported.
            logged = self._logged_state
            known = self.timelines.deleted_between(self.topic, self._state_since, ev.time_ms)
            self._deleted(ev)
            if not known:
                self._logged_state = logged
        if target in (_OFFLINE, _NONEXISTENT):
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
        if target == _ONLINE:
            if ev.leader is not None or ev.leader_epoch is not None:
                self._on_leadership(ev)
        elif target == _NONEXISTENT:
            self._deleted(ev)
        elif target == _NEW:
            if ev.replicas is not None:
                self._set_assignment(ev.replicas, 3, ev)
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
        time = ev.time_ms or 0
        if ev.from_state is not None and ev.to_state is not None:
            origin = _PARTITION_STATES.get(ev.from_state)
            target = _PARTITION_STATES.get(ev.to_state)
            if (
                origin is not None
                and target is not None
                and not partition_transition_valid(origin, target)
            ):
                self._anomaly(
                    ev,
                    "invalid_transition",
                    "error",
                    "a valid previous state",
                    f"{ev.from_state} -> {ev.to_state}",
                    "Kafka refused a partition transition its state machine does not allow",
                )
                return
        self._failure(ev, time)

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
                    draft.refs.append(ev.ref)
                    draft.sources |= 1 << ev.source

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
        if ev.replicas is not None:
            self._set_assignment(ev.replicas, 3, ev)
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
            self._set_assignment(ev.replicas, 2, ev)
            self._reassign_target = (ev.replicas, time)
        self._hint(time, "reassign" if phase in _REASSIGN_ELECTING else _REASSIGN_STEP, ev.ref)
        if ev.leader_epoch is not None:
            self._on_leadership(ev)

    def _on_deletion(self, ev: PartitionEvidence) -> None:
        if ev.detail in ("completed", "state_znode_deleted", None):
            self._deleted(ev)

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
            if self._current is None or self.state == _NONEXISTENT:
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
        return _FAR_FUTURE

    def _on_recovered(self, ev: PartitionEvidence) -> None:
        self.recovering = False

    def _on_ignore(self, ev: PartitionEvidence) -> None:
        return

    # ================================================================== leadership

    def _new_epoch(self, ev: PartitionEvidence, epoch: int, authoritative: bool) -> None:
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
        draft = self._pending_claim(leader, time) if leader is not None else None
        if draft is None and leader is not None:
            from_offline = ev.from_state in (_OFFLINE, _NEW) and ev.to_state == _ONLINE
            changed = prev_leader is not None and leader != prev_leader
            if leader >= 0 and (changed or from_offline or self._is_creation(ev, prev_leader)):
                draft = self._open(time, leader, epoch, prev_leader, prev_epoch, isr_before, ev)
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
                self._backfill(ev, leader, epoch)
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
                self._offsets(draft, ev)
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
        if leader is not None and leader >= 0 and self.state in (None, _OFFLINE, _NEW):
            self.state = _ONLINE
        elif leader == -1 and self.state == _ONLINE:
            self.state = _OFFLINE
        self._dirty = True

    def _same_epoch(self, ev: PartitionEvidence, authoritative: bool) -> None:
        leader = ev.leader
        provisional = self._provisional
        if leader is not None and self.leader is not None and leader != self.leader:
            if provisional is not None and leader == provisional.prev_leader:
                return  # a copy of the state the epoch-less claim replaced
            self._anomaly(
                ev,
                "evidence_conflict",
                "error",
                f"leader {self.leader}",
                f"leader {leader}",
                f"two sources give different leaders for leader epoch {self.epoch}",
            )
            return
        draft = self._draft_for_epoch(ev.leader_epoch) if self._drafts else None
        if draft is not None:
            self._merge_copy(draft, ev)
        pepoch = ev.partition_epoch
        isr = ev.isr
        current = self.partition_epoch
        if pepoch is not None and current is not None and pepoch < current:
            return  # older znode version of this epoch: nothing new
        if isr is not None and isr != self.isr:
            if authoritative and pepoch is not None and pepoch == current and self.isr is not None:
                self._anomaly(
                    ev,
                    "evidence_conflict",
                    "error",
                    f"isr {list(self.isr)}",
                    f"isr {list(isr)}",
                    f"two sources give different ISRs for partition epoch {pepoch}",
                )
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
        draft = self._draft_for_epoch(epoch)
        if draft is not None:
            if ev.leader is not None and ev.leader != draft.leader:
                self._anomaly(
                    ev,
                    "evidence_conflict",
                    "error",
                    f"leader {draft.leader}",
                    f"leader {ev.leader}",
                    f"two sources give different leaders for leader epoch {epoch}",
                )
                return
            self._merge_copy(draft, ev)
            return
        known = self._emitted_epochs.get(epoch)
        if known is not None and ev.leader is not None and ev.leader >= 0 and ev.leader != known:
            self._anomaly(
                ev,
                "evidence_conflict",
                "error",
                f"leader {known}",
                f"leader {ev.leader}",
                f"two sources give different leaders for leader epoch {epoch}",
            )
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
                draft.refs.append(ev.ref)
                draft.sources |= 1 << ev.source
        last = self._auth_epochs[ev.source]
        if (
            authoritative
            and _AUTHORITATIVE_SOURCE[ev.source]
            and last is not None
            and epoch < last[0]
        ):
            self._anomaly(
                ev,
                "epoch_regression",
                "error",
                f"leader epoch >= {last[0]}",
                f"leader epoch {epoch}",
                f"{ev.source.name} went back from leader epoch {last[0]} to {epoch}",
            )

    def _claim(self, ev: PartitionEvidence, leader: int) -> _Draft | None:
        time = ev.time_ms or 0
        draft = self._recent_draft(leader, time)
        if draft is not None:
            draft.add(ev)
            return draft
        if leader < 0 or leader == self.leader:
            return None
        draft = self._open(time, leader, None, self.leader, self.epoch, self.isr, ev)
        draft.add(ev)
        self._provisional = draft
        self.leader = leader
        if self.state in (_OFFLINE, _NEW):
            self.state = _ONLINE
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
    ) -> _Draft:
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
        draft = self._attempt(ev, time, written)
        if draft is None:
            if prev_leader is None:
                prev_leader, prev_epoch, isr_before = self.leader, self.epoch, self.isr
            draft = _Draft(
                time, -1, prev_epoch, prev_leader, prev_epoch, isr_before, True, time + self._settle
            )
            # What is in force after the attempt unless a write follows it.
            draft.isr_after = isr_before
            draft.partition_epoch = self.partition_epoch
            draft.assignment = self.assignment
            draft.from_state = ev.from_state or (self.state if self.state != _ONLINE else _OFFLINE)
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

    def _attempt(self, ev: PartitionEvidence, time: int, written: bool) -> _Draft | None:
        """The pending failed attempt ``ev`` belongs to: one within the merge window, by the
        same controller epoch, that has neither a line of the same source and kind nor, for a
        write, a write already (each is one per attempt: another one is the next attempt)."""
        epoch = ev.controller_epoch
        line = (ev.source, ev.fact)
        for draft in reversed(self._drafts):
            if not draft.failed or abs(draft.time - time) > self._merge:
                continue
            if epoch is not None and draft.controller_epoch not in (None, epoch):
                continue
            if draft.written if written else line in draft.attempt_lines:
                continue
            return draft
        return None

    def _merge_copy(self, draft: _Draft, ev: PartitionEvidence) -> None:
        """Another source's copy of an election's leadership."""
        draft.add(ev)
        if draft.isr_after is None and ev.isr is not None:
            draft.isr_after = ev.isr
        if (
            draft.partition_epoch is None
            and ev.partition_epoch is not None
            and abs((ev.time_ms or 0) - draft.time) <= self._merge
        ):
            # Later in the epoch, the leader's own ISR changes write newer versions.
            draft.partition_epoch = ev.partition_epoch
        if ev.fact is _STARTED:
            self._offsets(draft, ev)

    def _open(
        self,
        time: int,
        leader: int,
        epoch: int | None,
        prev_leader: int | None,
        prev_epoch: int | None,
        isr_before: tuple[int, ...] | None,
        ev: PartitionEvidence,
    ) -> _Draft:
        draft = _Draft(
            time, leader, epoch, prev_leader, prev_epoch, isr_before, False, time + self._settle
        )
        draft.assignment = self.assignment
        draft.left_isr_ms = self._left_isr.get(leader)
        draft.high_watermark = self._last_hw
        draft.start_offset = self._lagging_end.get(leader)
        draft.reassigning = bool(self.adding or self.removing)
        if self.state is not None and draft.from_state is None:
            draft.from_state = self.state if self.state != _ONLINE else None
        tentative = self._tentative
        if tentative is not None:
            hint, live = tentative
            if abs((hint.time_ms or 0) - time) <= self._merge:
                draft.live_hint = live
                draft.refs.append(hint.ref)
                draft.sources |= 1 << hint.source
                self._tentative = None
            else:
                self._resolve_tentative(time)
        self._push(draft)
        return draft

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
        if ev.trigger == "new_partition" or self.state == _NEW or ev.from_state == _NEW:
            return True
        time = ev.time_ms or 0
        return ev.leader_epoch == 0 and any(
            trigger == "new_partition" and abs(hint_time - time) <= self._merge
            for hint_time, trigger, _ in self._hints
        )

    def _backfill(self, ev: PartitionEvidence, leader: int, epoch: int) -> None:
        """First view of the partition: complete pending failures that began before it."""
        for draft in self._drafts:
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
                draft.refs.append(ev.ref)
                draft.sources |= 1 << ev.source

    def _pending_claim(self, leader: int, time: int) -> _Draft | None:
        for draft in reversed(self._drafts):
            if (
                draft.claim_only
                and draft.leader == leader
                and abs(draft.time - time) <= self._merge
            ):
                return draft
        return None

    def _recent_draft(self, leader: int, time: int) -> _Draft | None:
        for draft in reversed(self._drafts):
            if (
                not draft.failed
                and draft.leader == leader
                and abs(draft.time - time) <= self._merge
            ):
                return draft
        return None

    def _draft_for_epoch(self, epoch: int | None) -> _Draft | None:
        if epoch is None:
            return None
        for draft in self._drafts:
            if draft.epoch == epoch and not draft.failed:
                return draft
        return None

    def _offsets(self, draft: _Draft, ev: PartitionEvidence) -> None:
        if ev.leader == draft.leader and ev.start_offset is not None:
            draft.start_offset = ev.start_offset

    # ================================================================== state helpers

    def _set_isr(self, isr: tuple[int, ...], time: int) -> None:
        old = self.isr
        if old is not None:
            for replica in old:
                if replica not in isr:
                    self._left_isr[replica] = time
        self.isr = isr
        self._dirty = True

    def _set_assignment(self, replicas: tuple[int, ...], rank: int, ev: PartitionEvidence) -> None:
        current = self.assignment
        if current == replicas:
            self._assign_rank = max(self._assign_rank, rank)
            return
        if current is not None and rank < self._assign_rank and set(current) == set(replicas):
            return  # a lower-ranked source (request line, maybe set-ordered) with the same replicas
        self.assignment = replicas
        self._assign_rank = rank
        self._dirty = True

    def _deleted(self, ev: PartitionEvidence) -> None:
        self.state = _NONEXISTENT
        self._logged_state = None
        self.leader = None
        self.epoch = None
        self.partition_epoch = None
        self.isr = None
        self._auth_epochs = [None] * len(_SOURCES)
        self._provisional = None
        self._dirty = True

    def _hint(self, time: int, trigger: str, ref: str) -> None:
        hints = self._hints
        hints.append((time, trigger, ref))
        if len(hints) > 32:
            horizon = time - 4 * self._merge
            self._hints = [hint for hint in hints if hint[0] >= horizon][-32:]

    def _check_gap(self, ev: PartitionEvidence, epoch: int, last: tuple[int, int | None]) -> None:
        last_epoch, last_version = last
        version = ev.partition_epoch
        if ev.source is _ZK_TXN and version is not None and last_version is not None:
            if version > last_version + 1:
                self._anomaly(
                    ev,
                    "log_gap",
                    "warning",
                    f"znode version {last_version + 1}",
                    f"znode version {version}",
                    f"{version - last_version - 1} write(s) to the partition state are missing "
                    "from the ZooKeeper logs",
                )
        elif epoch > last_epoch + 1 and ev.source is not Source.controller_log:
            # controller.log shows the leaderships brokers' AlterPartition requests wrote, not
            # the controller's own ISR removals (OfflineReplica): its epochs skip by design.
            self._anomaly(
                ev,
                "log_gap",
                "warning",
                f"leader epoch {last_epoch + 1}",
                f"leader epoch {epoch}",
                f"{epoch - last_epoch - 1} leader epoch(s) missing from {ev.source.name}",
            )

    def _check_partition_transition(self, ev: PartitionEvidence, origin: str, target: str) -> None:
        start = _PARTITION_STATES.get(origin)
        end = _PARTITION_STATES.get(target)
        if start is None or end is None:
            return
        if not partition_transition_valid(start, end):
            self._anomaly(
                ev,
                "invalid_transition",
                "error",
                "a valid previous state",
                f"{origin} -> {target}",
                "the partition state machine does not allow this transition",
            )
        elif ev.fact is _TRANSITION:
            logged = self._logged_state
            if logged is not None and logged != origin and not self._unlogged_step(logged, origin):
                self._anomaly(
                    ev,
                    "transition_mismatch",
                    "warning",
                    logged,
                    origin,
                    f"logged {origin} -> {target} while the last logged state was {logged}",
                )

    def _unlogged_step(self, logged: str, origin: str) -> bool:
        """Whether the step from the last logged state to ``origin`` is one the log omits.

        Args:
            logged: the partition state the last logged transition led to.
            origin: the state a newly logged transition starts from.

        Returns:
            True when ``origin`` is OfflinePartition, ``logged -> OfflinePartition`` is a valid
            transition and such transitions are not written at the log's level.
        """
        if origin != _OFFLINE or not self._offline_unlogged:
            return False
        start = _PARTITION_STATES.get(logged)
        return start is not None and partition_transition_valid(
            start, PartitionState.OfflinePartition
        )

    def _check_replica_transition(self, ev: PartitionEvidence, origin: str, target: str) -> None:
        if (origin, target) not in self._replica_valid:
            if origin not in _REPLICA_STATES or target not in _REPLICA_STATES:
                return
            self._anomaly(
                ev,
                "invalid_transition",
                "error",
                "a valid previous state",
                f"replica {ev.replica}: {origin} -> {target}",
                f"the replica state machine of {self._profile.release} does not allow this",
            )
            return
        known = self._replica_states.get(ev.replica) if ev.replica is not None else None
        if known is not None and known != origin and ev.fact is _REPLICA_TRANSITION:
            self._anomaly(
                ev,
                "transition_mismatch",
                "warning",
                known,
                origin,
                f"replica {ev.replica}: logged {origin} -> {target} while the replay had {known}",
            )

    def _anomaly(
        self,
        ev: PartitionEvidence,
        kind: str,
        severity: str,
        expected: str | None,
        observed: str | None,
        detail: str,
    ) -> None:
        self._out.anomalies.append(
            AnomalyRow(
                self.cluster,
                self.topic,
                self.partition,
                ev.time_ms,
                kind,
                severity,
                ev.leader_epoch if ev.leader_epoch is not None else self.epoch,
                expected,
                observed,
                detail,
                (ev.ref,),
                ev.source.name,
            )
        )

    # ================================================================== timeline

    def _interval(self, ev: PartitionEvidence) -> None:
        self._dirty = False
        state, leader, isr = self.state, self.leader, self.isr
        epoch, pepoch, assignment = self.epoch, self.partition_epoch, self.assignment
        current = self._current
        time = ev.time_ms or 0
        if current is not None:
            same = (
                current.leader == leader
                and current.isr == isr
                and current.leader_epoch == epoch
                and current.partition_epoch == pepoch
                and current.state == state
                and current.assignment == assignment
            )
            if same:
                return
            if (
                (current.leader is None or current.leader == leader)
                and (current.isr is None or current.isr == isr)
                and (current.leader_epoch is None or current.leader_epoch == epoch)
                and (current.partition_epoch is None or current.partition_epoch == pepoch)
                and (current.state is None or current.state == state)
                and (current.assignment is None or current.assignment == assignment)
            ):
                # Only unknowns were filled in: the same interval, better known.
                current.leader, current.isr, current.leader_epoch = leader, isr, epoch
                current.partition_epoch, current.state = pepoch, state
                current.assignment = assignment
                return
            start = current.valid_from_ms
            if start is not None and time < start:
                time = start
            current.valid_to_ms = time
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

    def _push(self, draft: _Draft) -> None:
        self._drafts.append(draft)
        if draft.due < self._next_due:
            self._next_due = draft.due

    def _flush(self, now: int) -> None:
        self._resolve_tentative(now)
        settle = self._settle
        drafts = self._drafts
        due = _FAR_FUTURE
        if drafts:
            keep: list[_Draft] = []
            for draft in drafts:
                if draft.due <= now:
                    self._finalize(draft)
                else:
                    keep.append(draft)
                    if draft.due < due:
                        due = draft.due
            self._drafts = keep
        closed = self._closed
        if closed:
            horizon = now - settle
            remaining: list[TimelineRow] = []
            timeline = self._out.timeline
            for interval in closed:
                end = interval.valid_to_ms
                if end is None or end <= horizon:
                    timeline.append(interval)
                else:
                    remaining.append(interval)
                    if end + settle < due:
                        due = end + settle
            self._closed = remaining
        if self._tentative is not None:
            due = min(due, (self._tentative[0].time_ms or 0) + self._merge)
        # Flushing is batched (at most every half settle period): emission is a little later
        # than strictly possible, and the same for any chunking of the input.
        self._next_due = max(due, now + settle // 2)

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

    def _finalize(self, draft: _Draft) -> None:
        time = draft.time
        assignment = draft.assignment or self.assignment
        if assignment is None:
            assignment = self.timelines.assignment_at(self.topic, self.partition, time)
        trigger, how = self._trigger(draft, assignment)
        timelines = self.timelines
        view, presumed = self._liveness(draft, trigger, assignment)
        controller_id, controller_epoch = draft.controller_id, draft.controller_epoch
        if controller_id is None or controller_epoch is None:
            known_id, known_epoch = timelines.controller_at(time)
            controller_id = controller_id if controller_id is not None else known_id
            controller_epoch = controller_epoch if controller_epoch is not None else known_epoch
        if trigger == "admin_unclean":
            setting, setting_source = True, "admin"
        else:
            setting, setting_source = timelines.unclean_setting(
                self.topic, time, self.settings, controller_id
            )
        new_leader = draft.leader
        isr_before = draft.isr_before
        if draft.failed:
            unclean: bool | None = None
        elif trigger == "new_partition":
            unclean = False  # a first leader: every assigned replica is eligible
        elif isr_before is not None:
            unclean = new_leader not in isr_before
        elif draft.unclean_explicit or draft.recovering:
            unclean = True
        else:
            unclean = None
        expectation = expected_leader(
            ElectionInputs(
                trigger,
                self.partition,
                draft.prev_leader,
                draft.epoch_before,
                isr_before,
                assignment,
                self._reassign_target[0] if self._reassign_target else None,
                view,
                setting,
                self.kraft,
            ),
            self.settings,
        )
        expected = expectation.leader
        agrees: bool | None = None
        refs = draft.refs
        if self._hints:
            window = self._merge
            refs = refs + [
                ref
                for at, hint, ref in self._hints
                if (hint == trigger or (hint == _REASSIGN_STEP and trigger == "reassign"))
                and abs(at - time) <= window
            ]
        evidence = tuple(dict.fromkeys(refs))
        sources = _source_names(draft.sources)
        if expected is not None:
            agrees = expected == new_leader
            if not agrees and expectation.unknown_liveness:
                agrees = None
                self._draft_anomaly(
                    draft,
                    "unknown_liveness",
                    "warning",
                    str(expected),
                    str(new_leader),
                    f"outcome depends on brokers {list(expectation.unknown_liveness)} whose "
                    "liveness no evidence gives",
                    evidence,
                    sources,
                )
            elif not agrees:
                self._draft_anomaly(
                    draft,
                    "decision_disagreement",
                    "error",
                    str(expected),
                    str(new_leader),
                    f"{trigger} election: {expectation.reason} gives {expected}, the evidence "
                    f"shows {new_leader}" + (f" (presumed live: {presumed})" if presumed else ""),
                    evidence,
                    sources,
                )
        if assignment is None:
            self._draft_anomaly(
                draft,
                "unknown_assignment",
                "warning",
                None,
                None,
                "no evidence gives the replica assignment: the election cannot be checked",
                evidence,
                sources,
            )
        if draft.unclean_explicit and isr_before is not None and new_leader in isr_before:
            self._draft_anomaly(
                draft,
                "evidence_conflict",
                "warning",
                f"leader outside isr {list(isr_before)}",
                f"leader {new_leader}",
                "an unclean-election line names a leader that was in the ISR before",
                evidence,
                sources,
            )
        exposure: float | None = None
        left = draft.left_isr_ms if unclean else None
        if left is not None:
            exposure = max(0, time - left) / 1000.0
        at_risk: int | None = None
        if unclean and draft.high_watermark is not None and draft.start_offset is not None:
            at_risk = max(0, draft.high_watermark - draft.start_offset)
        if draft.epoch is not None and not draft.failed:
            emitted = self._emitted_epochs
            emitted[draft.epoch] = new_leader
            if len(emitted) > 64:
                for epoch in sorted(emitted)[:32]:
                    del emitted[epoch]
        self._out.elections.append(
            ElectionRow(
                cluster=self.cluster,
                topic=self.topic,
                partition=self.partition,
                scenario=self.settings.scenario,
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
                expected_leader=expected,
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
                + (f"; presumed live: {presumed}" if presumed else ""),
                prev_leader_epoch=draft.epoch_before,
                partition_epoch=draft.partition_epoch,
            )
        )

    def _liveness(
        self, draft: _Draft, trigger: str, assignment: tuple[int, ...] | None
    ) -> tuple[LivenessView, list[int]]:
        """Liveness at the election: the timelines, corrected by what the partition's own
        evidence shows (the live replicas a line lists; an old leader the trigger says was
        offline or shutting down); assigned replicas no fact covers are presumed live when the
        evidence shows them alive (a line they wrote, the controller itself), in the ISR before,
        or, for a new partition, in its first ISR."""
        time = draft.time
        view = self.timelines.liveness_at(time)
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
                seen = self._alive.get(replica)
                alive = seen is not None and abs(seen - time) <= self._settle
                if (
                    alive
                    or replica == draft.controller_id
                    or replica in isr_before
                    or replica in first_isr
                ):
                    registered.add(replica)
                    known.add(replica)
                    presumed.append(replica)
        return (
            LivenessView(
                frozenset(registered), frozenset(shutting), frozenset(known), view.complete
            ),
            presumed,
        )

    def _draft_anomaly(
        self,
        draft: _Draft,
        kind: str,
        severity: str,
        expected: str | None,
        observed: str | None,
        detail: str,
        evidence: tuple[str, ...],
        sources: str,
    ) -> None:
        self._out.anomalies.append(
            AnomalyRow(
                self.cluster,
                self.topic,
                self.partition,
                draft.time,
                kind,
                severity,
                draft.epoch,
                expected,
                observed,
                detail,
                evidence,
                sources,
            )
        )

    def _trigger(self, draft: _Draft, assignment: tuple[int, ...] | None) -> tuple[str, str]:
        """The election's trigger and how it was inferred."""
        time = draft.time
        window = self._merge
        explicit = draft.explicit_trigger
        hints = (
            [trigger for t, trigger, _ in self._hints if abs(t - time) <= window]
            if self._hints
            else ()
        )
        if explicit == "admin_unclean" or "admin_unclean" in hints:
            return "admin_unclean", "admin UNCLEAN election request"
        if draft.failed:
            if draft.from_state == _NEW:
                return "new_partition", "new partition with no live replica"
            stopping = self.timelines.liveness_at(time).shutting_down
            if draft.from_state == _ONLINE and draft.prev_leader in stopping:
                # Offline elections start from OfflinePartition; Online -> Online failing while
                # the leader stops is the controlled shutdown's (its ISR had no other member).
                return "controlled_shutdown", "no eligible leader while the old leader shut down"
            if draft.from_state == _ONLINE:
                # Offline elections start from Offline/New: Online -> Online is another's.
                for trigger in ("reassign", "preferred", "controlled_shutdown"):
                    if explicit == trigger or trigger in hints:
                        return trigger, f"no eligible leader; {trigger} step at the time"
            return "offline", "no eligible leader"
        if explicit is not None:
            return explicit, "named by the election's own evidence"
        if draft.from_state == _NEW or (draft.prev_leader is None and "new_partition" in hints):
            return "new_partition", "NewPartition -> OnlinePartition"
        for trigger in ("reassign", "controlled_shutdown", "preferred", "offline"):
            if trigger in hints:
                return trigger, f"{trigger} step logged at the time of the election"
        if self.kraft:
            context = self.timelines.kraft_context_near(time, window)
            if context is not None:
                for marker, trigger in _KRAFT_CONTEXT_TRIGGERS:
                    if marker in context:
                        return trigger, f"KRaft change context {context}"
        target = self._reassign_target
        recent = (
            target is not None and draft.leader in target[0] and time - target[1] <= self._settle
        )
        if _REASSIGN_STEP in hints or recent:
            # A reassignment step near the election, not the one that re-elects: the old
            # leader's own fate, when known, is the cause (Kafka elects offline partitions and
            # a stopping broker's partitions in those events, not in the reassignment's).
            view = self.timelines.liveness_at(time)
            prev = draft.prev_leader
            if draft.from_state == _OFFLINE:
                return "offline", "OfflinePartition -> OnlinePartition during a reassignment"
            if prev is not None and prev in view.shutting_down:
                return "controlled_shutdown", "old leader in controlled shutdown"
            if prev is not None and (prev < 0 or (view.is_known(prev) and prev not in view.live)):
                return "offline", "old leader not live"
            if _REASSIGN_STEP in hints:
                return "reassign", "reassign step logged at the time of the election"
            return "reassign", "reassignment in flight"
        if (
            target is not None
            and draft.reassigning
            and draft.leader in target[0]
            and draft.prev_leader not in target[0]
        ):
            return "reassign", "reassignment in flight (adding/removing replicas)"
        prev = draft.prev_leader
        if assignment is not None and prev is not None and prev >= 0 and prev not in assignment:
            return "reassign", "old leader no longer assigned"
        view = self.timelines.liveness_at(time)
        if prev is not None and prev in view.shutting_down:
            return "controlled_shutdown", "old leader in controlled shutdown"
        if prev is not None and (prev < 0 or (view.is_known(prev) and prev not in view.live)):
            return "offline", "old leader not live"
        if draft.from_state == _OFFLINE:
            return "offline", "OfflinePartition -> OnlinePartition"
        if prev is None or prev < 0:
            return "unknown", "no evidence of why"
        seen = self._alive.get(prev)
        alive = prev in view.live or (seen is not None and abs(seen - time) <= self._settle)
        online = draft.from_state == _ONLINE
        if alive or online or view.is_known(prev):
            window_ms = self.settings.shutdown_window_ms
            if self.timelines.went_down_within(prev, time, window_ms):
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


def _known(view: LivenessView) -> bool:
    return view.complete or bool(view.known)


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
