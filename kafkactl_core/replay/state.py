"""What the fold knows of one partition: the controller's view rebuilt from the evidence.

``ReplayState`` holds the partition's identity, the settings and timelines it is replayed
under, what the controller saw (assignment, ISR, leader, epochs, partition state), the
elections being assembled and the rows not yet returned, with the small updates every handler
shares. ``leadership.LeadershipFold`` and ``fold.PartitionReplay`` build the fold on it.
"""

from __future__ import annotations

from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.replay.drafts import Draft
from kafkactl_core.replay.evidence import PartitionEvidence, Source
from kafkactl_core.replay.findings import Finding, replica_pairs
from kafkactl_core.replay.inference import ElectionContext
from kafkactl_core.replay.intervals import FAR_FUTURE
from kafkactl_core.replay.rows import ReplayOutput, TimelineRow
from kafkactl_core.replay.settings import ReplaySettings
from kafkactl_core.replay.state_names import NONEXISTENT
from kafkactl_core.replay.timelines import ClusterTimelines
from kafkactl_core.versions import KafkaRelease

__all__ = ["FAR_PAST", "SOURCE_COUNT", "ReplayState"]

FAR_PAST = -(1 << 62)
"""A time before every evidence: no evidence seen yet."""
SOURCE_COUNT = len(Source)
_RELEASE_0_8_2 = KafkaRelease(0, 8, 2)
_RELEASE_2_6 = KafkaRelease(2, 6, 0)


class ReplayState:
    """One partition's replay state, before any evidence; the base of ``PartitionReplay``."""

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
        self._replica_valid = replica_pairs(settings.profile)
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
        self._auth_epochs: list[tuple[int, int | None] | None] = [None] * SOURCE_COUNT
        self._emitted_epochs: dict[int, int] = {}
        # Elections being assembled.
        self._drafts: list[Draft] = []
        self._provisional: Draft | None = None
        self._tentative: tuple[PartitionEvidence, tuple[int, ...]] | None = None
        self._hints: list[tuple[int, str, str]] = []
        # Timeline intervals and output.
        self._current: TimelineRow | None = None
        self._closed: list[TimelineRow] = []
        self._dirty = False
        self._watermark = FAR_PAST
        self._next_due = FAR_FUTURE
        # The topic's completed deletions end the partition (see ``_topic_deleted``).
        self._gone = self.timelines.completed_deletions(topic)
        self._gone_index = 0
        self._gone_next = (self._gone[0].time_ms or 0) if self._gone else FAR_FUTURE
        self._out = ReplayOutput()
        self._finished = False

    def _set_isr(self, isr: tuple[int, ...], time: int) -> None:
        old = self.isr
        if old is not None:
            for replica in old:
                if replica not in isr:
                    self._left_isr[replica] = time
        self.isr = isr
        self._dirty = True

    def _set_assignment(self, ev: PartitionEvidence, rank: int) -> None:
        replicas = ev.replicas
        if replicas is None:
            return
        if ev.source is Source.kraft_log and (
            self._auth_epochs[Source.kraft_metadata] is not None
            or self.timelines.restated_creation(
                self.topic, ev.time_ms, self.settings.merge_window_ms
            )
        ):
            # a controller's line may be a restarted controller restating history: beside the
            # metadata log, which holds every write, the records say the assignment; without
            # it, the lines just after a restated creation of the topic restate old ones
            return
        current = self.assignment
        if current == replicas:
            self._assign_rank = max(self._assign_rank, rank)
            return
        if current is not None and rank < self._assign_rank and set(current) == set(replicas):
            return  # a lower-ranked source (request line, maybe set-ordered) with the same replicas
        self.assignment = replicas
        self._assign_rank = rank
        self._dirty = True

    def _deleted(self) -> None:
        self.state = NONEXISTENT
        self._logged_state = None
        self.leader = None
        self.epoch = None
        self.partition_epoch = None
        self.isr = None
        self._auth_epochs = [None] * SOURCE_COUNT
        self._provisional = None
        self._dirty = True

    def _hint(self, time: int, trigger: str, ref: str) -> None:
        hints = self._hints
        hints.append((time, trigger, ref))
        if len(hints) > 32:
            horizon = time - 4 * self._merge
            self._hints = [hint for hint in hints if hint[0] >= horizon][-32:]

    def _anomaly(self, ev: PartitionEvidence, finding: Finding | None) -> bool:
        """Report ``finding`` (if any) at ``ev``; return whether there was one."""
        if finding is None:
            return False
        self._out.anomalies.append(
            finding.row(
                self.cluster,
                self.topic,
                self.partition,
                ev.time_ms,
                ev.leader_epoch if ev.leader_epoch is not None else self.epoch,
                (ev.ref,),
                ev.source.name,
            )
        )
        return True

    def _push(self, draft: Draft) -> None:
        self._drafts.append(draft)
        if draft.due < self._next_due:
            self._next_due = draft.due

    def _context(self) -> ElectionContext:
        """What a settling election is judged against, as the fold knows it now."""
        return ElectionContext(
            self.cluster,
            self.topic,
            self.partition,
            self.timelines,
            self.settings,
            self.kraft,
            self.assignment,
            self._reassign_target,
            self._hints,
            self._alive,
        )
