"""What every release's renderer shares: loggers, expectations, what a broker saw, plumbing.

``Renderer`` writes lines into an ``Emitter`` (controller.log, state-change.log, server.log) and
holds the renderings every release has in common; ``FORMATS`` (``render_formats``) gives each
release's message templates. The dataclasses carry what a broker did with a LeaderAndIsr
request, for the renderers to print.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import LeaderAndIsr, TopicPartition
from kafkactl_lab.simulate.output import Emitter, Expect, LogFile
from kafkactl_lab.simulate.scala import (
    ScalaVersion,
    int_map,
    int_set,
    seq,
)

KC = "kafka.controller.KafkaController"
SC = "state.change.logger"
PARTITION_LOGGER = "kafka.cluster.Partition"
SERVER_LOGGER = "kafka.server.KafkaServer"


def expect(kind: str, **fields: object) -> Expect:
    return Expect(kind, tuple(fields.items()))


@dataclass(frozen=True, slots=True)
class LeaderStart:
    """A partition a broker starts leading (from a LeaderAndIsr request)."""

    partition: TopicPartition
    leadership: LeaderAndIsr
    previous_epoch: int
    offset: int
    high_watermark: int
    assignment: ReplicaAssignment


@dataclass(frozen=True, slots=True)
class FollowerStart:
    """A partition a broker starts following."""

    partition: TopicPartition
    leadership: LeaderAndIsr
    previous_epoch: int
    offset: int
    high_watermark: int


@dataclass(frozen=True, slots=True)
class LaiEntry:
    """One partition of a LeaderAndIsr request as a broker received it.

    Attributes:
        partition: the partition.
        leadership: the leadership sent.
        is_new: the replica is new (created by this request).
        role: ``leader``, ``follower``, ``stale`` (its leader epoch was not newer) or
            ``leaderless`` (a follower whose new leader is -1: ``makeFollowers`` refuses it).
        previous_epoch: the leader epoch the broker had (-1: none).
        offset: the log end offset it starts from.
    """

    partition: TopicPartition
    leadership: LeaderAndIsr
    is_new: bool
    role: str
    previous_epoch: int
    offset: int


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """What the controller knew of the partitions of one request batch.

    Attributes:
        assignments: their replica assignments.
        leaderships: their leaderships (partitions with one).
        state_epochs: the controller epoch stored with each leadership.
        registered: the brokers registered when the batch was sent.
        deleting: the topics being deleted.
    """

    assignments: Mapping[TopicPartition, ReplicaAssignment]
    leaderships: Mapping[TopicPartition, LeaderAndIsr]
    state_epochs: Mapping[TopicPartition, int]
    registered: frozenset[int]
    deleting: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class LaiOutcome:
    """What a broker did with one LeaderAndIsr request."""

    broker: int
    controller: int
    controller_epoch: int
    correlation_id: int
    partitions: int
    stale: tuple[tuple[TopicPartition, int, int], ...]
    leaders: tuple[LeaderStart, ...]
    followers: tuple[FollowerStart, ...]
    elapsed_ms: int
    entries: tuple[LaiEntry, ...]
    info: RequestInfo


class Renderer:
    """Shared plumbing: where lines go and the renderings every version has in common.

    Each release sets the class attributes declared here; they say how it talks to ZooKeeper:
    ``fenced_writes`` (2.2+: every controller write is a multi with a ``/controller_epoch``
    version check), ``registration_version`` (broker JSON), ``topic_znode_version``,
    ``topic_ids`` (2.8+), ``alter_isr`` (2.7+: leaders ask the controller to change the ISR
    instead of writing it), ``feature_znode`` (2.7+), ``initial_epoch_value`` (what a first
    controller finds or creates in ``/controller_epoch``).
    """

    scala: ScalaVersion
    name: str
    release: str
    fenced_writes: bool
    registration_version: int
    topic_znode_version: int
    topic_ids: bool
    alter_isr: bool
    feature_znode: bool
    initial_epoch_value: int
    session_timeout_ms: int
    update_all_when_empty = False
    """Before 1.1 an UpdateMetadata for no partition in particular carries every partition."""
    lai_filtered_to_live = True
    """LeaderAndIsr entries for unregistered brokers are dropped before logging (1.1+)."""
    per_partition_controlled_shutdown = False
    """Before 1.1 a controlled shutdown handles the broker's partitions one at a time."""
    top_level_paths: tuple[str, ...] = (
        "/consumers",
        "/brokers/ids",
        "/brokers/topics",
        "/config/changes",
        "/admin/delete_topics",
        "/brokers/seqid",
        "/isr_change_notification",
        "/latest_producer_id_block",
        "/log_dir_event_notification",
        "/config/topics",
        "/config/clients",
        "/config/users",
        "/config/brokers",
    )
    """``ZkData.PersistentZkPaths`` (created with their parents by the first broker)."""

    formats: Mapping[str, str | None] = {}
    """The release's message templates (``render_formats``)."""

    def __init__(self, out: Emitter) -> None:
        """Render into ``out``."""
        self.out = out

    def line(self, key: str, **fields: object) -> str | None:
        """The release's template ``key`` filled in, or ``None`` if the release has no such line.

        Args:
            key: the template's name in ``formats``.
            **fields: its fields (a template may leave some out).

        Returns:
            The text.
        """
        template = self.formats[key]
        return None if template is None else template.format(**fields)

    def say(self, key: str, **fields: object) -> str:
        """The release's template ``key`` filled in (one every release has).

        Args:
            key: the template's name in ``formats``.
            **fields: its fields.

        Returns:
            The text.
        """
        text = self.line(key, **fields)
        if text is None:
            raise KeyError(f"{self.release} has no {key!r} line")
        return text

    # ------------------------------------------------------------------ plumbing

    def ctrl(
        self, broker: int, level: str, cls: str, message: str, expect: Expect | None = None
    ) -> None:
        """A ``kafka.controller.<cls>`` line in the broker's controller.log."""
        self.out.emit(broker, LogFile.controller, level, cls, message, expect)

    def sc(self, broker: int, level: str, message: str, expect: Expect | None = None) -> None:
        """A ``state.change.logger`` line in the broker's state-change.log."""
        self.out.emit(broker, LogFile.state_change, level, SC, message, expect)

    def srv(
        self, broker: int, level: str, logger: str, message: str, expect: Expect | None = None
    ) -> None:
        """A line in the broker's server.log."""
        self.out.emit(broker, LogFile.server, level, logger, message, expect)

    # ------------------------------------------------------------------ renderings

    def ints(self, items: Sequence[int]) -> str:
        """A ``List[Int]``."""
        return seq(items, "List")

    def hash_ints(self, items: Sequence[int]) -> str:
        """A ``mutable.HashSet[Int]`` (request recipient sets)."""
        return int_set(items, self.scala, mutable=True)

    def imm_ints(self, items: Sequence[int]) -> str:
        """An immutable ``Set[Int]``."""
        return int_set(items, self.scala)

    def epochs_map(self, epochs: Sequence[tuple[int, int]]) -> str:
        """``liveBrokerIdAndEpochs``: an immutable ``Map[Int, Long]``."""
        return int_map(epochs, self.scala)


def replica_text(tp: TopicPartition, replica: int) -> str:
    """``PartitionAndReplica.toString``."""
    return f"[Topic={tp.topic},Partition={tp.partition},Replica={replica}]"
