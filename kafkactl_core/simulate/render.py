"""Log lines of the ZooKeeper-mode controller and brokers, as Kafka 2.8 writes them.

``Renderer28`` turns what the simulator saw happen into the lines Kafka 2.8.2 writes with its
default ``config/log4j.properties``: ``kafka.controller`` at TRACE into ``controller.log``,
``state.change.logger`` at INFO into ``state-change.log`` (the per-replica and Offline/NonExistent
transitions are TRACE there, hence absent), everything else (``kafka.cluster.Partition``,
``kafka.server.KafkaServer``) at INFO into ``server.log``. Every message follows a format string
of ``reference/catalog/log-statements-2.8.2.tsv`` (or, for broker-side lines outside its scope,
``reference/FORMATS.md``), with Scala 2.13 ``toString`` renderings (``scala.py``). Each line
carries an ``Expect`` (the event type or ignored family the grammars must give it, and the
fields that matter) for the tests; the ``Renderer`` base class holds what every version shares.

Not every line a real broker prints is reproduced (request/response TRACE lines of the
controller's channel, listener registrations, async error paths); every line that is written
is exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import LeaderAndIsr, PartitionState, TopicPartition
from kafkactl_core.simulate.output import Emitter, Expect, LogFile
from kafkactl_core.simulate.recording import PartitionBatch, ReplicaBatch
from kafkactl_core.simulate.scala import (
    ScalaVersion,
    any_set,
    int_map,
    int_set,
    java_double,
    mk,
    scala_map,
    seq,
)

KC = "kafka.controller.KafkaController"
SC = "state.change.logger"
PARTITION_LOGGER = "kafka.cluster.Partition"
SERVER_LOGGER = "kafka.server.KafkaServer"


def _x(kind: str, **fields: object) -> Expect:
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

    Class attributes say how the release talks to ZooKeeper: ``fenced_writes`` (2.2+: every
    controller write is a multi with a ``/controller_epoch`` version check),
    ``registration_version`` (broker JSON), ``topic_znode_version``, ``topic_ids`` (2.8+),
    ``alter_isr`` (2.7+: leaders ask the controller to change the ISR instead of writing it),
    ``feature_znode`` (2.7+), ``initial_epoch_value`` (what a first controller finds or
    creates in ``/controller_epoch``).
    """

    scala = ScalaVersion.v2_13
    name = ""
    release = ""
    fenced_writes = False
    registration_version = 4
    topic_znode_version = 1
    topic_ids = False
    alter_isr = False
    feature_znode = False
    initial_epoch_value = 1
    session_timeout_ms = 6_000
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

    def __init__(self, out: Emitter) -> None:
        """Render into ``out``."""
        self.out = out

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


class Renderer28(Renderer):
    """Kafka 2.8.2 (Scala 2.13 build): see the module docstring."""

    scala = ScalaVersion.v2_13
    name = "2.8"
    release = "2.8.2"
    fenced_writes = True
    registration_version = 5
    topic_znode_version = 3
    topic_ids = True
    alter_isr = True
    feature_znode = True
    initial_epoch_value = 0
    session_timeout_ms = 18_000

    # ------------------------------------------------------------------ value renderings

    def lai(self, lai: LeaderAndIsr) -> str:
        """``LeaderAndIsr.toString`` (1.1 - 3.1)."""
        return (
            f"LeaderAndIsr(leader={lai.leader}, leaderEpoch={lai.leader_epoch}, "
            f"isr={self.ints(lai.isr)}, zkVersion={lai.partition_epoch})"
        )

    def lice(self, lai: LeaderAndIsr, controller_epoch: int) -> str:
        """``LeaderIsrAndControllerEpoch.toString`` (2.8.1+: with ``ZkVersion``)."""
        return (
            f"(Leader:{lai.leader},ISR:{mk(lai.isr)},LeaderEpoch:{lai.leader_epoch},"
            f"ZkVersion:{lai.partition_epoch},ControllerEpoch:{controller_epoch})"
        )

    def assignment(self, a: ReplicaAssignment) -> str:
        """``ReplicaAssignment.toString`` (2.4+)."""
        return (
            f"ReplicaAssignment(replicas={mk(a.replicas)}, addingReplicas={mk(a.adding)}, "
            f"removingReplicas={mk(a.removing)})"
        )

    def node(self, broker: int) -> str:
        """``Node.toString`` of a broker's inter-broker endpoint."""
        return f"kafka-{broker}:9092 (id: {broker} rack: null)"

    # ------------------------------------------------------------------ controller lifecycle

    def thread_started(self, broker: int) -> None:
        """The controller event thread starts (every broker, at startup)."""
        self.ctrl(
            broker,
            "INFO",
            "kafka.controller.ControllerEventManager$ControllerEventThread",
            f"[ControllerEventThread controllerId={broker}] Starting",
            _x("thread_lifecycle"),
        )

    def already_elected(self, broker: int, controller: int) -> None:
        """A broker finds ``/controller`` taken."""
        self.ctrl(
            broker,
            "DEBUG",
            KC,
            f"[Controller id={broker}] Broker {controller} has been elected as the controller, "
            "so stopping the election process.",
            _x("controller_moved", controller_id=controller),
        )

    def resign(self, broker: int, channels: Sequence[int]) -> None:
        """``onControllerResignation`` (``channels``: the brokers it had request threads to)."""
        p = f"[Controller id={broker}] "
        self.ctrl(broker, "DEBUG", KC, p + "Resigning", _x("controller_resigning"))
        self.ctrl(
            broker,
            "INFO",
            "kafka.controller.ZkPartitionStateMachine",
            f"[PartitionStateMachine controllerId={broker}] Stopped partition state machine",
            _x("state_machine_lifecycle"),
        )
        self.ctrl(
            broker,
            "INFO",
            "kafka.controller.ZkReplicaStateMachine",
            f"[ReplicaStateMachine controllerId={broker}] Stopped replica state machine",
            _x("state_machine_lifecycle"),
        )
        for b in channels:
            self.channel_stopped(broker, b)
        self.ctrl(broker, "INFO", KC, p + "Resigned", _x("controller_resigned"))

    def elected(self, c: int, epoch: int, epoch_zk_version: int) -> None:
        """``elect()`` won."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] {c} successfully elected as the controller. Epoch incremented "
            f"to {epoch} and epoch zk version is now {epoch_zk_version}",
            _x("controller_elected", controller_id=c, controller_epoch=epoch),
        )

    def elected_lines(
        self,
        c: int,
        epoch: int,
        epoch_zk_version: int,
        first: bool,
        previous_epoch: int,
        previous_zk_version: int,
    ) -> None:
        """What ``elect()`` logs once ``c`` won (2.1+: a single line)."""
        self.elected(c, epoch, epoch_zk_version)

    def failover_begin(self, c: int, epoch: int, create_feature: bool) -> None:
        """``onControllerFailover`` up to the context initialisation."""
        p = f"[Controller id={c}] "
        if create_feature:
            self.ctrl(
                c,
                "INFO",
                KC,
                p + "Creating FeatureZNode at path: /feature with contents: "
                "FeatureZNode(Enabled,Features{})",
                _x("feature_znode"),
            )
        for step in (
            "Registering handlers",
            "Deleting log dir event notifications",
            "Deleting isr change notifications",
            "Initializing controller context",
        ):
            self.ctrl(c, "INFO", KC, p + step, _x("controller_failover_step"))

    def context(
        self,
        c: int,
        epochs: Sequence[tuple[int, int]],
        live: Sequence[int],
        shutting_down: Sequence[int],
        topics: Sequence[str],
        deleting: Sequence[str],
        ineligible: Sequence[str],
    ) -> None:
        """``initializeControllerContext`` and the topic-deletion manager's start."""
        p = f"[Controller id={c}] "
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Initialized broker epochs cache: {self.epochs_map(epochs)}",
            _x("broker_epochs"),
        )
        for b in live:
            self.channel_started(c, b)
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Currently active brokers in the cluster: {self.imm_ints(live)}",
            _x("live_brokers", live_brokers=tuple(sorted(live))),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Currently shutting brokers in the cluster: {self.hash_ints(shutting_down)}",
            _x("shutting_down_brokers", brokers=tuple(sorted(shutting_down))),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p
            + f"Current list of topics in the cluster: {any_set(topics, self.scala, mutable=True)}",
            _x("controller_context"),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + "Fetching topic deletions in progress",
            _x("controller_failover_step"),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"List of topics to be deleted: {mk(deleting)}",
            _x("deletion_detail"),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"List of topics ineligible for deletion: {mk(ineligible)}",
            _x("deletion_detail"),
        )
        self.ctrl(
            c, "INFO", KC, p + "Initializing topic deletion manager", _x("controller_failover_step")
        )
        self.ctrl(
            c,
            "INFO",
            "kafka.controller.TopicDeletionManager",
            f"[Topic Deletion Manager {c}] Initializing manager with initial deletions: "
            f"{any_set(deleting, self.scala)}, initial ineligible deletions: "
            f"{any_set(ineligible, self.scala, mutable=True)}",
            _x("deletion_detail"),
        )
        self.ctrl(
            c, "INFO", KC, p + "Sending update metadata request", _x("controller_failover_step")
        )

    def replica_startup(self, c: int, phase: str) -> None:
        """``ReplicaStateMachine.startup`` steps: ``initializing``, ``online``, ``offline``."""
        text = {
            "initializing": "Initializing replica state",
            "online": "Triggering online replica state changes",
            "offline": "Triggering offline replica state changes",
        }[phase]
        self.ctrl(
            c,
            "INFO",
            "kafka.controller.ZkReplicaStateMachine",
            f"[ReplicaStateMachine controllerId={c}] {text}",
            _x("state_machine_lifecycle"),
        )

    def replica_started(self, c: int, states: Sequence[tuple[TopicPartition, int, str]]) -> None:
        """The replica state machine's initial states (one line, however many replicas)."""
        body = scala_map(
            [
                (f"[Topic={tp.topic},Partition={tp.partition},Replica={r}]", s)
                for tp, r, s in states
            ],
            self.scala,
            mutable=True,
        )
        self.ctrl(
            c,
            "DEBUG",
            "kafka.controller.ZkReplicaStateMachine",
            f"[ReplicaStateMachine controllerId={c}] Started replica state machine with initial "
            f"state -> {body}",
            _x("state_machine_lifecycle"),
        )

    def partition_startup(self, c: int) -> None:
        """``PartitionStateMachine.startup`` up to the online trigger."""
        for text in ("Initializing partition state", "Triggering online partition state changes"):
            self.ctrl(
                c,
                "INFO",
                "kafka.controller.ZkPartitionStateMachine",
                f"[PartitionStateMachine controllerId={c}] {text}",
                _x("state_machine_lifecycle"),
            )

    def partition_started(self, c: int, states: Sequence[tuple[TopicPartition, str]]) -> None:
        """The partition state machine's initial states."""
        body = scala_map([(str(tp), s) for tp, s in states], self.scala, mutable=True)
        self.ctrl(
            c,
            "DEBUG",
            "kafka.controller.ZkPartitionStateMachine",
            f"[PartitionStateMachine controllerId={c}] Started partition state machine with "
            f"initial state -> {body}",
            _x("state_machine_lifecycle"),
        )

    def failover_ready(self, c: int, epoch: int) -> None:
        """``Ready to serve as the new controller``."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Ready to serve as the new controller with epoch {epoch}",
            _x("controller_ready", controller_epoch=epoch),
        )

    def failover_end(self, c: int) -> None:
        """Pending preferred elections (none) and the scheduler start."""
        p = f"[Controller id={c}] "
        for text in (
            "Partitions undergoing preferred replica election: ",
            "Partitions that completed preferred replica election: ",
            "Skipping preferred replica election for partitions due to topic deletion: ",
            "Resuming preferred replica election for partitions: ",
        ):
            self.ctrl(c, "INFO", KC, p + text, _x("preferred_election_context"))
        self.preferred_started(c, (), "ZkTriggered")
        self.ctrl(
            c, "INFO", KC, p + "Starting the controller scheduler", _x("controller_failover_step")
        )

    # ------------------------------------------------------------------ channels

    def channel_started(self, c: int, broker: int) -> None:
        """A ``RequestSendThread`` to ``broker`` starts."""
        self.ctrl(
            c,
            "INFO",
            "kafka.controller.RequestSendThread",
            f"[RequestSendThread controllerId={c}] Starting",
            _x("thread_lifecycle"),
        )

    def channel_stopped(self, c: int, broker: int) -> None:
        """The ``RequestSendThread`` to ``broker`` stops."""
        for text in ("Shutting down", "Stopped", "Shutdown completed"):
            self.ctrl(
                c,
                "INFO",
                "kafka.controller.RequestSendThread",
                f"[RequestSendThread controllerId={c}] {text}",
                _x("thread_lifecycle"),
            )

    def channel_connected(self, c: int, broker: int) -> None:
        """The first request to a broker opens the connection."""
        self.ctrl(
            c,
            "INFO",
            "kafka.controller.RequestSendThread",
            f"[RequestSendThread controllerId={c}] Controller {c} connected to "
            f"{self.node(broker)} for sending state change requests",
            _x("controller_connection"),
        )

    # ------------------------------------------------------------------ broker changes

    def broker_change(
        self,
        c: int,
        added: Sequence[int],
        deleted: Sequence[int],
        bounced: Sequence[int],
        live: Sequence[int],
    ) -> None:
        """``processBrokerChange``'s summary line."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Newly added brokers: {mk(added)}, deleted brokers: "
            f"{mk(deleted)}, bounced brokers: {mk(bounced)}, all live brokers: {mk(live)}",
            _x(
                "broker_change",
                added_brokers=tuple(added),
                deleted_brokers=tuple(deleted),
                live_brokers=tuple(live),
            ),
        )

    def broker_failure_callback(
        self, c: int, dead: Sequence[int], were_shutting: Sequence[int]
    ) -> None:
        """``onBrokerFailure``'s lines."""
        p = f"[Controller id={c}] "
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Broker failure callback for {mk(dead)}",
            _x("broker_failure_callback", brokers=tuple(dead)),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Removed {mk(were_shutting)} from list of shutting down brokers.",
            _x("shutting_down_brokers", brokers=tuple(were_shutting)),
        )

    def broker_startup_callback(self, c: int, new: Sequence[int]) -> None:
        """``onBrokerStartup``'s first line."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] New broker startup callback for {mk(new)}",
            _x("broker_startup_callback", brokers=tuple(new)),
        )

    def broker_epochs(self, c: int, epochs: Sequence[tuple[int, int]]) -> None:
        """``Updated broker epochs cache``."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Updated broker epochs cache: {self.epochs_map(epochs)}",
            _x("broker_epochs"),
        )

    # ------------------------------------------------------------------ state machines

    def partition_changes(
        self,
        c: int,
        epoch: int,
        batch: PartitionBatch,
        changes: Sequence[tuple[TopicPartition, PartitionState, LeaderAndIsr | None]],
        assignments: dict[TopicPartition, ReplicaAssignment],
        live: Sequence[int],
    ) -> None:
        """The INFO lines of one partition batch (Offline/NonExistent targets are TRACE).

        Args:
            c: the controller.
            epoch: its epoch.
            batch: the batch (target state, strategy, elections).
            changes: (partition, from state, leadership written) of the partitions moved.
            assignments: the partitions' assignments.
            live: the brokers the controller considered live.
        """
        target = batch.target
        p = f"[Controller id={c} epoch={epoch}] "
        for tp, before, lai in changes:
            if target is PartitionState.NewPartition:
                self.sc(
                    c,
                    "INFO",
                    p + f"Changed partition {tp} state from {before.name} to NewPartition with "
                    f"assigned replicas {mk(assignments[tp].replicas)}",
                    _x(
                        "partition_state_change",
                        topic=tp.topic,
                        partition=tp.partition,
                        to_state="NewPartition",
                    ),
                )
            elif target is PartitionState.OnlinePartition and lai is not None:
                self.sc(
                    c,
                    "INFO",
                    p + f"Changed partition {tp} from {before.name} to OnlinePartition with state "
                    f"{self.lai(lai)}",
                    _x(
                        "partition_state_change",
                        topic=tp.topic,
                        partition=tp.partition,
                        from_state=before.name,
                        to_state="OnlinePartition",
                        leader=lai.leader,
                        leader_epoch=lai.leader_epoch,
                        isr=lai.isr,
                        zk_version=lai.partition_epoch,
                    ),
                )

    def partition_batch_begin(self, c: int, batch: PartitionBatch, live: Sequence[int]) -> None:
        """Before a partition batch's lines (``Invoking state change ...`` before 1.1)."""

    def replica_batch_begin(self, c: int, batch: ReplicaBatch) -> None:
        """Before a replica batch's lines (``Invoking state change ...`` before 1.1)."""

    def offline_replica(
        self,
        c: int,
        epoch: int,
        tp: TopicPartition,
        replica: int,
        from_state: str,
        before: LeaderAndIsr | None,
        after: LeaderAndIsr | None,
        state_epoch: int,
    ) -> None:
        """A replica moved to OfflineReplica (its ISR removal, if the partition has a leader).

        Args:
            c: the controller.
            epoch: its epoch.
            tp: the partition.
            replica: the replica.
            from_state: its previous state.
            before: the leadership before the ISR removal (``None``: none).
            after: the leadership after it.
            state_epoch: the controller epoch stored with ``after``.
        """
        if after is not None:
            self.isr_removed(c, epoch, tp, replica, after, state_epoch)

    def partition_failed(
        self, c: int, epoch: int, tp: TopicPartition, before: str, target: str, detail: str
    ) -> None:
        """``logFailedStateChange`` of a partition: ERROR with the exception's stack trace."""
        exception = (
            "java.lang.IllegalStateException"
            if "should be in one of" in detail
            else "kafka.common.StateChangeFailedException"
        )
        self.out.emit(
            c,
            LogFile.state_change,
            "ERROR",
            SC,
            f"[Controller id={c} epoch={epoch}] Controller {c} epoch {epoch} failed to change "
            f"state for partition {tp} from {before} to {target}",
            _x("partition_state_change_failed", topic=tp.topic, partition=tp.partition),
            f"{exception}: {detail}\n\tat kafka.controller.ZkPartitionStateMachine."
            "doHandleStateChanges(PartitionStateMachine.scala:228)",
        )

    def replica_failed(
        self,
        c: int,
        epoch: int,
        tp: TopicPartition,
        replica: int,
        before: str,
        target: str,
        detail: str,
    ) -> None:
        """``logFailedStateChange`` of a replica: ERROR with the exception's stack trace."""
        self.out.emit(
            c,
            LogFile.state_change,
            "ERROR",
            SC,
            f"[Controller id={c} epoch={epoch}] Controller {c} epoch {epoch} initiated state "
            f"change of replica {replica} for partition {tp} from {before} to {target} failed",
            _x(
                "replica_state_change_failed",
                topic=tp.topic,
                partition=tp.partition,
                replica=replica,
            ),
            f"java.lang.IllegalStateException: {detail}\n\tat kafka.controller."
            "ZkReplicaStateMachine.logInvalidTransition(ReplicaStateMachine.scala:438)",
        )

    def replica_changes(
        self,
        c: int,
        epoch: int,
        target: str,
        changes: Sequence[tuple[TopicPartition, int, str]],
    ) -> None:
        """Per-replica transitions: TRACE in 2.6+, so nothing at the default level."""

    def isr_removed(
        self,
        c: int,
        epoch: int,
        tp: TopicPartition,
        replica: int,
        lai: LeaderAndIsr,
        state_epoch: int,
    ) -> None:
        """The OfflineReplica ISR removal (logged even when the replica was not in the ISR)."""
        self.sc(
            c,
            "INFO",
            f"[Controller id={c} epoch={epoch}] Partition {tp} state changed to "
            f"{self.lice(lai, state_epoch)} after removing replica {replica} from the ISR as part "
            "of transition to OfflineReplica",
            _x(
                "replica_removed_from_isr",
                topic=tp.topic,
                partition=tp.partition,
                replica=replica,
                leader=lai.leader,
                leader_epoch=lai.leader_epoch,
                isr=lai.isr,
                zk_version=lai.partition_epoch,
            ),
        )

    # ------------------------------------------------------------------ requests

    def requests_sent(
        self,
        c: int,
        epoch: int,
        leader_and_isr: Sequence[tuple[int, Sequence[tuple[TopicPartition, LeaderAndIsr, bool]]]],
        update_brokers: Sequence[int],
        update_partitions: Sequence[TopicPartition],
        stop_replica: Sequence[tuple[int, Sequence[tuple[TopicPartition, bool]]]],
        info: RequestInfo,
    ) -> None:
        """``sendRequestsToBrokers``: the 2.6+ summary lines.

        Args:
            c: the controller.
            epoch: its epoch.
            leader_and_isr: per broker, (partition, leadership, is_new) entries.
            update_brokers: UpdateMetadata recipients.
            update_partitions: UpdateMetadata partitions.
            stop_replica: per broker (registered or not), (partition, delete) entries.
            info: what the controller knew of the partitions.
        """
        p = f"[Controller id={c} epoch={epoch}] "
        for broker, entries in leader_and_isr:
            leaders = sum(1 for _, lai, _ in entries if lai.leader == broker)
            self.sc(
                c,
                "INFO",
                p + f"Sending LeaderAndIsr request to broker {broker} with {leaders} become-leader "
                f"and {len(entries) - leaders} become-follower partitions",
                _x(
                    "leader_and_isr_sent",
                    broker=broker,
                    become_leader_count=leaders,
                    become_follower_count=len(entries) - leaders,
                ),
            )
        self.sc(
            c,
            "INFO",
            p + f"Sending UpdateMetadata request to brokers {self.hash_ints(update_brokers)} for "
            f"{len(update_partitions)} partitions",
            _x(
                "update_metadata_sent",
                brokers=tuple(sorted(update_brokers)),
                count=len(update_partitions),
            ),
        )
        for broker, stops in stop_replica:
            if broker not in info.registered:
                continue
            self.sc(
                c,
                "INFO",
                p + f"Sending StopReplica request for {len(stops)} replicas to broker {broker}",
                _x("stop_replica_sent", broker=broker, count=len(stops)),
            )

    def broker_leader_and_isr(self, o: LaiOutcome) -> None:
        """A broker handles a LeaderAndIsr request (``becomeLeaderOrFollower``)."""
        b, c, e, k = o.broker, o.controller, o.controller_epoch, o.correlation_id
        p = f"[Broker id={b}] "
        self.sc(
            b,
            "INFO",
            p + f"Handling LeaderAndIsr request correlationId {k} from controller {c} for "
            f"{o.partitions} partitions",
            _x("leader_and_isr_received", correlation_id=k, count=o.partitions),
        )
        for tp, requested, current in o.stale:
            if requested == current:
                self.sc(
                    b,
                    "INFO",
                    p
                    + f"Ignoring LeaderAndIsr request from controller {c} with correlation id {k} "
                    f"epoch {e} for partition {tp} since its associated leader epoch {requested} "
                    "matches the current leader epoch",
                    _x("leader_and_isr_ignored", topic=tp.topic, partition=tp.partition),
                )
            else:
                self.sc(
                    b,
                    "WARN",
                    p
                    + f"Ignoring LeaderAndIsr request from controller {c} with correlation id {k} "
                    f"epoch {e} for partition {tp} since its associated leader epoch {requested} "
                    f"is smaller than the current leader epoch {current}",
                    _x("leader_and_isr_ignored", topic=tp.topic, partition=tp.partition),
                )
        if o.leaders:
            self.sc(
                b,
                "INFO",
                p + f"Stopped fetchers as part of LeaderAndIsr request correlationId {k} from "
                f"controller {c} epoch {e} as part of the become-leader transition for "
                f"{len(o.leaders)} partitions",
                _x("become_transition", role="become-leader", count=len(o.leaders)),
            )
            for s in o.leaders:
                lai, a = s.leadership, s.assignment
                self.sc(
                    b,
                    "INFO",
                    p
                    + f"Leader {s.partition} starts at leader epoch {lai.leader_epoch} from offset "
                    f"{s.offset} with high watermark {s.high_watermark} ISR [{mk(lai.isr)}] "
                    f"addingReplicas [{mk(a.adding)}] removingReplicas [{mk(a.removing)}]. "
                    f"Previous leader epoch was {s.previous_epoch}.",
                    _x(
                        "partition_leader_started",
                        topic=s.partition.topic,
                        partition=s.partition.partition,
                        leader=b,
                        leader_epoch=lai.leader_epoch,
                        isr=lai.isr,
                    ),
                )
        leaderless = [x for x in o.entries if x.role == "leaderless"]
        if o.followers or leaderless:
            for f in o.followers:
                self.sc(
                    b,
                    "INFO",
                    p
                    + f"Follower {f.partition} starts at leader epoch {f.leadership.leader_epoch} "
                    f"from offset {f.offset} with high watermark {f.high_watermark}. Previous "
                    f"leader epoch was {f.previous_epoch}.",
                    _x(
                        "partition_follower_started",
                        topic=f.partition.topic,
                        partition=f.partition.partition,
                        leader_epoch=f.leadership.leader_epoch,
                    ),
                )
            for entry in leaderless:
                self.leader_unavailable(o, entry)
            self.sc(
                b,
                "INFO",
                p + f"Stopped fetchers as part of become-follower request from controller {c} "
                f"epoch {e} with correlation id {k} for {len(o.followers)} partitions",
                _x("become_transition", role="become-follower", count=len(o.followers)),
            )
        self.sc(
            b,
            "INFO",
            p + f"Finished LeaderAndIsr request in {o.elapsed_ms}ms correlationId {k} from "
            f"controller {c} for {o.partitions} partitions",
            _x("leader_and_isr_received", correlation_id=k, count=o.partitions),
        )

    def leader_unavailable(self, o: LaiOutcome, entry: LaiEntry) -> None:
        """``makeFollowers``: the new leader is not a live broker (-1), nothing is followed."""
        b, tp = o.broker, entry.partition
        state_epoch = o.info.state_epochs.get(tp, o.controller_epoch)
        self.sc(
            b,
            "ERROR",
            f"[Broker id={b}] Received LeaderAndIsrRequest with correlation id {o.correlation_id} "
            f"from controller {o.controller} epoch {o.controller_epoch} for partition {tp} (last "
            f"update controller epoch {state_epoch}) but cannot become follower since the new "
            f"leader {entry.leadership.leader} is unavailable.",
            _x(
                "become_transition",
                role="become-follower",
                phase="failed",
                leader=entry.leadership.leader,
            ),
        )

    def broker_update_metadata(
        self,
        broker: int,
        c: int,
        epoch: int,
        correlation_id: int,
        partitions: Sequence[tuple[TopicPartition, LeaderAndIsr | None, bool]],
        info: RequestInfo,
    ) -> None:
        """A broker caches an UpdateMetadata request (``deleted``: a partition being deleted)."""
        deleted = sum(1 for _, _, gone in partitions if gone)
        self.sc(
            broker,
            "INFO",
            f"[Broker id={broker}] Add {len(partitions) - deleted} partitions and deleted "
            f"{deleted} partitions from metadata cache in response to UpdateMetadata request sent "
            f"by controller {c} epoch {epoch} with correlation id {correlation_id}",
            _x(
                "update_metadata_received",
                correlation_id=correlation_id,
                count=len(partitions) - deleted,
            ),
        )

    def broker_stop_replica(
        self,
        broker: int,
        c: int,
        epoch: int,
        correlation_id: int,
        entries: Sequence[tuple[TopicPartition, bool]],
    ) -> None:
        """A broker handles a StopReplica request."""
        self.sc(
            broker,
            "INFO",
            f"[Broker id={broker}] Handling StopReplica request correlationId {correlation_id} "
            f"from controller {c} for {len(entries)} partitions",
            _x("stop_replica_received", correlation_id=correlation_id, count=len(entries)),
        )

    # ------------------------------------------------------------------ ISR changes

    def isr_shrinking(
        self,
        leader: int,
        tp: TopicPartition,
        old: Sequence[int],
        new: Sequence[int],
        high_watermark: int,
        end_offset: int,
        out_of_sync: Sequence[tuple[int, int]],
    ) -> None:
        """``Partition.maybeShrinkIsr`` on the leader (server.log)."""
        lagging = " ".join(f"(brokerId: {r}, endOffset: {o})" for r, o in out_of_sync)
        self.srv(
            leader,
            "INFO",
            PARTITION_LOGGER,
            f"[Partition {tp} broker={leader}] Shrinking ISR from {mk(old)} to {mk(new)}. "
            f"Leader: (highWatermark: {high_watermark}, endOffset: {end_offset}). Out of sync "
            f"replicas: {lagging}.",
            _x(
                "isr_shrink",
                topic=tp.topic,
                partition=tp.partition,
                previous_isr=tuple(old),
                isr=tuple(new),
            ),
        )

    def isr_expanding(
        self, leader: int, tp: TopicPartition, old: Sequence[int], new: Sequence[int]
    ) -> None:
        """``Partition.maybeExpandIsr`` on the leader (server.log)."""
        self.srv(
            leader,
            "INFO",
            PARTITION_LOGGER,
            f"[Partition {tp} broker={leader}] Expanding ISR from {mk(old)} to {mk(new)}",
            _x(
                "isr_expand",
                topic=tp.topic,
                partition=tp.partition,
                previous_isr=tuple(old),
                isr=tuple(new),
            ),
        )

    def isr_applied(self, c: int, tp: TopicPartition, lai: LeaderAndIsr) -> None:
        """The controller applies an AlterIsr request for one partition (2.7+)."""
        self.isr_batch_applied(c, [(tp, lai)])

    def isr_batch_applied(
        self, c: int, updates: Sequence[tuple[TopicPartition, LeaderAndIsr]]
    ) -> None:
        """The controller applies an AlterIsr request (2.7+): a line, then one per partition."""
        p = f"[Controller id={c}] "
        parts = [tp for tp, _ in updates]
        self.ctrl(
            c,
            "DEBUG",
            KC,
            p + f"Updating ISRs for partitions: {any_set(parts, self.scala)}.",
            _x("alter_isr_received", partitions=tuple(str(tp) for tp in parts)),
        )
        for tp, lai in updates:
            self.ctrl(
                c,
                "DEBUG",
                KC,
                p + f"ISR for partition {tp} updated to [{mk(lai.isr)}] and zkVersion updated to "
                f"[{lai.partition_epoch}]",
                _x(
                    "alter_isr_applied",
                    topic=tp.topic,
                    partition=tp.partition,
                    isr=lai.isr,
                    zk_version=lai.partition_epoch,
                ),
            )

    def isr_committed(self, leader: int, tp: TopicPartition, lai: LeaderAndIsr) -> None:
        """The leader learns its ISR change was written (server.log)."""
        self.srv(
            leader,
            "INFO",
            PARTITION_LOGGER,
            f"[Partition {tp} broker={leader}] ISR updated to {mk(lai.isr)} and version updated to "
            f"[{lai.partition_epoch}]",
            _x("isr_update_committed", topic=tp.topic, partition=tp.partition, isr=lai.isr),
        )

    # ------------------------------------------------------------------ preferred elections

    def rebalance_begin(self, c: int) -> None:
        """The auto-rebalance task runs."""
        p = f"[Controller id={c}] "
        self.ctrl(
            c,
            "INFO",
            KC,
            p + "Processing automatic preferred replica leader election",
            _x("auto_rebalance_check"),
        )
        self.ctrl(
            c,
            "TRACE",
            KC,
            p + "Checking need to trigger auto leader balancing",
            _x("auto_rebalance_check"),
        )

    def rebalance_group(
        self,
        c: int,
        broker: int,
        not_preferred: Sequence[tuple[TopicPartition, Sequence[int]]],
        ratio: float,
    ) -> None:
        """One preferred broker's computation (DEBUG map, TRACE ratio)."""
        p = f"[Controller id={c}] "
        body = scala_map([(str(tp), self.ints(r)) for tp, r in not_preferred], self.scala)
        self.ctrl(
            c,
            "DEBUG",
            KC,
            p + f"Topics not in preferred replica for broker {broker} {body}",
            _x("preferred_replica_imbalance", broker=broker),
        )
        self.ctrl(
            c,
            "TRACE",
            KC,
            p + f"Leader imbalance ratio for broker {broker} is {java_double(ratio)}",
            _x("leader_imbalance_ratio", broker=broker, ratio=ratio),
        )

    def preferred_started(self, c: int, partitions: Sequence[TopicPartition], trigger: str) -> None:
        """``onReplicaElection``'s first line (2.4+)."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Starting replica leader election (PREFERRED) for partitions "
            f"{mk(partitions)} triggered by {trigger}",
            _x(
                "preferred_election_started",
                trigger=trigger,
                partitions=tuple(str(tp) for tp in partitions),
            ),
        )

    def preferred_result(self, c: int, tp: TopicPartition, preferred: int, leader: int) -> None:
        """``removePartitionsFromPreferredReplicaElection``'s verdict per partition."""
        p = f"[Controller id={c}] "
        if leader == preferred:
            self.ctrl(
                c,
                "INFO",
                KC,
                p + f"Partition {tp} completed preferred replica leader election. "
                f"New leader is {preferred}",
                _x(
                    "preferred_election_completed",
                    topic=tp.topic,
                    partition=tp.partition,
                    leader=preferred,
                ),
            )
        else:
            self.ctrl(
                c,
                "WARN",
                KC,
                p + f"Partition {tp} failed to complete preferred replica leader election to "
                f"{preferred}. Leader is still {leader}",
                _x("preferred_election_failed", topic=tp.topic, partition=tp.partition),
            )

    # ------------------------------------------------------------------ controlled shutdown

    def shutdown_requested(self, broker: int) -> None:
        """The broker asks the controller for a controlled shutdown (server.log)."""
        self.srv(
            broker,
            "INFO",
            SERVER_LOGGER,
            f"[KafkaServer id={broker}] Starting controlled shutdown",
            _x("controlled_shutdown", broker=broker, phase="requested"),
        )

    def shutdown_answer(self, broker: int, remaining: Sequence[TopicPartition], last: bool) -> None:
        """The broker's reading of the controller's answer (server.log)."""
        p = f"[KafkaServer id={broker}] "
        if not remaining:
            self.srv(
                broker,
                "INFO",
                SERVER_LOGGER,
                p + "Controlled shutdown succeeded",
                _x("controlled_shutdown", phase="succeeded"),
            )
            return
        listed = ", ".join(
            f"RemainingPartition(topicName='{tp.topic}', partitionIndex={tp.partition})"
            for tp in remaining
        )
        self.srv(
            broker,
            "INFO",
            SERVER_LOGGER,
            p + f"Remaining partitions to move: [{listed}]",
            _x("controlled_shutdown", phase="remaining_partitions"),
        )
        self.srv(
            broker,
            "WARN",
            SERVER_LOGGER,
            p + "Retrying controlled shutdown after the previous attempt failed...",
            _x("controlled_shutdown", phase="retrying"),
        )
        if last:
            self.srv(
                broker,
                "WARN",
                SERVER_LOGGER,
                p + "Proceeding to do an unclean shutdown as all the controlled shutdown "
                "attempts failed",
                _x("controlled_shutdown", phase="gave_up"),
            )

    def shutdown_controller(
        self, c: int, broker: int, shutting: Sequence[int], live: Sequence[int]
    ) -> None:
        """``doControlledShutdown``'s opening lines."""
        p = f"[Controller id={c}] "
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Shutting down broker {broker}",
            _x("controlled_shutdown", broker=broker, phase="started"),
        )
        self.ctrl(
            c,
            "DEBUG",
            KC,
            p + f"All shutting down brokers: {mk(shutting)}",
            _x("shutting_down_brokers", brokers=tuple(shutting)),
        )
        self.ctrl(
            c,
            "DEBUG",
            KC,
            p + f"Live brokers: {mk(live)}",
            _x("live_brokers", live_brokers=tuple(live)),
        )

    def all_leaders(
        self, c: int, leaders: Sequence[tuple[TopicPartition, LeaderAndIsr, int]]
    ) -> None:
        """``All leaders = ...``: the whole leadership cache, one line."""
        body = ",".join(f"({tp},{self.lice(lai, ce)})" for tp, lai, ce in leaders)
        self.ctrl(
            c, "TRACE", KC, f"[Controller id={c}] All leaders = {body}", _x("leadership_dump")
        )

    # ------------------------------------------------------------------ reassignment

    def assignment_updating(
        self, c: int, tp: TopicPartition, old: ReplicaAssignment, new: ReplicaAssignment
    ) -> None:
        """``updateCurrentReplicaAssignment`` (DEBUG)."""
        self.ctrl(
            c,
            "DEBUG",
            KC,
            f"[Controller id={c}] Updating assignment of partition {tp} from "
            f"{self.assignment(old)} "
            f"to {self.assignment(new)}",
            _x(
                "reassignment",
                topic=tp.topic,
                partition=tp.partition,
                replicas=new.replicas,
                phase="assignment_updating",
            ),
        )

    def assignment_updated(self, c: int, tp: TopicPartition, new: ReplicaAssignment) -> None:
        """The topic znode was written with the partition's new assignment."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Successfully updated assignment of partition {tp} to "
            f"{self.assignment(new)}",
            _x(
                "reassignment",
                topic=tp.topic,
                partition=tp.partition,
                replicas=new.replicas,
                phase="assignment_updated",
            ),
        )

    def epoch_updating(self, c: int, tp: TopicPartition) -> None:
        """``updateLeaderEpoch`` starts (DEBUG)."""
        self.ctrl(
            c,
            "DEBUG",
            KC,
            f"[Controller id={c}] Updating leader epoch for partition {tp}",
            _x("leader_epoch_updated", topic=tp.topic, partition=tp.partition, phase="updating"),
        )

    def epoch_updated(self, c: int, tp: TopicPartition, lai: LeaderAndIsr) -> None:
        """``Updated leader epoch for partition ...`` (2.8.1+: with ``zkVersion=``)."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Updated leader epoch for partition {tp} to {lai.leader_epoch}, "
            f"zkVersion={lai.partition_epoch}",
            _x(
                "leader_epoch_updated",
                topic=tp.topic,
                partition=tp.partition,
                leader_epoch=lai.leader_epoch,
                zk_version=lai.partition_epoch,
            ),
        )

    def reassign_request_sent(
        self,
        c: int,
        epoch: int,
        tp: TopicPartition,
        lai: LeaderAndIsr,
        state_epoch: int,
        a: ReplicaAssignment,
    ) -> None:
        """The state-change line after ``updateLeaderEpochAndSendRequest``."""
        self.sc(
            c,
            "INFO",
            f"[Controller id={c} epoch={epoch}] Sent LeaderAndIsr request "
            f"{self.lice(lai, state_epoch)} with new replica assignment {self.assignment(a)} "
            f"to leader {lai.leader} for partition being reassigned {tp}",
            _x(
                "reassignment",
                topic=tp.topic,
                partition=tp.partition,
                leader=lai.leader,
                phase="leader_and_isr_sent",
            ),
        )

    def reassignment_caught_up(self, c: int, tp: TopicPartition, target: Sequence[int]) -> None:
        """Every target replica is in the ISR."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Target replicas {self.ints(target)} have all caught up with the "
            f"leader for reassigning partition {tp}",
            _x(
                "reassignment",
                topic=tp.topic,
                partition=tp.partition,
                replicas=tuple(target),
                phase="caught_up",
            ),
        )

    def reassignment_leader(
        self, c: int, tp: TopicPartition, leader: int, target: Sequence[int], alive: bool
    ) -> None:
        """``moveReassignedPartitionLeaderIfRequired``'s verdict."""
        p = f"[Controller id={c}] Leader {leader} for partition {tp} being reassigned, "
        if leader not in target:
            text, phase = (
                f"is not in the new list of replicas {mk(target)}. Re-electing leader",
                "leader_not_in_new_replicas",
            )
        elif alive:
            text, phase = (
                f"is already in the new list of replicas {mk(target)} and is alive",
                "leader_alive_in_new_replicas",
            )
        else:
            text, phase = (
                f"is already in the new list of replicas {mk(target)} but is dead",
                "leader_dead_in_new_replicas",
            )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + text,
            _x("reassignment", topic=tp.topic, partition=tp.partition, phase=phase),
        )

    def reassignment_started(
        self, c: int, tp: TopicPartition, target: Sequence[int], old: Sequence[int]
    ) -> None:
        """A ZooKeeper-triggered reassignment starts (before 2.4; 2.8 logs the 2.4+ lines)."""

    def reassignment_assigned(self, c: int, tp: TopicPartition, replicas: Sequence[int]) -> None:
        """The topic znode holds the reassignment's replica list (before 2.4)."""

    def reassignment_removed(self, c: int, tp: TopicPartition) -> None:
        """The partition leaves ``/admin/reassign_partitions`` (before 2.4)."""

    def reassignment_waiting(self, c: int, tp: TopicPartition, target: Sequence[int]) -> None:
        """A reassignment waits for its new replicas (before 2.4)."""

    def rebalance_overview(
        self, c: int, groups: Sequence[tuple[int, Sequence[tuple[TopicPartition, Sequence[int]]]]]
    ) -> None:
        """Every preferred broker's partitions (before 2.4, one DEBUG line)."""

    def isr_notification(
        self, c: int, live: Sequence[int], partitions: Sequence[TopicPartition]
    ) -> None:
        """An ISR change notification processed by the controller (before 2.7)."""

    def unclean_enabled(self, c: int, topic: str) -> None:
        """A topic's ``unclean.leader.election.enable`` was set to true (2.3+)."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Unclean leader election has been enabled for topic {topic}",
            _x("unclean_election_enabled"),
        )

    # ------------------------------------------------------------------ topics

    def topics_changed(
        self,
        c: int,
        new_topics: Sequence[str],
        deleted: Sequence[str],
        added: Sequence[tuple[str, str | None, Sequence[tuple[TopicPartition, ReplicaAssignment]]]],
    ) -> None:
        """``processTopicChange``'s summary (2.8: ``TopicIdReplicaAssignment``)."""
        parts = []
        for topic, topic_id, assignment in added:
            inner = scala_map([(str(tp), self.assignment(a)) for tp, a in assignment], self.scala)
            ident = f"Some({topic_id})" if topic_id else "None"
            parts.append(f"TopicIdReplicaAssignment({topic},{ident},{inner})")
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] New topics: [{any_set(new_topics, self.scala)}], deleted topics: "
            f"[{any_set(deleted, self.scala, mutable=True)}], new partition replica assignment "
            f"[{any_set(parts, self.scala)}]",
            _x("topics_changed", topics=tuple(new_topics)),
        )

    def partition_creation(self, c: int, partitions: Sequence[TopicPartition]) -> None:
        """``onNewPartitionCreation``'s line."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] New partition creation callback for {mk(partitions)}",
            _x("partition_creation_callback", partitions=tuple(str(tp) for tp in partitions)),
        )

    def deletion_requested(self, c: int, topics: Sequence[str]) -> None:
        """``processTopicDeletion``'s lines (no topics: the listener firing after a deletion)."""
        p = f"[Controller id={c}] "
        self.ctrl(
            c,
            "DEBUG",
            KC,
            p + f"Delete topics listener fired for topics {mk(topics)} to be deleted",
            _x("topic_deletion"),
        )
        if topics:
            self.ctrl(
                c,
                "INFO",
                KC,
                p + f"Starting topic deletion for topics {mk(topics)}",
                _x("topic_deletion", topics=tuple(topics)),
            )

    def deletion_step(
        self,
        c: int,
        phase: str,
        topic: str = "",
        replicas: Sequence[tuple[TopicPartition, int]] = (),
    ) -> None:
        """Deletion manager lines: ``handling``, ``started``, ``replicas_done``, ``completed``."""
        cls = "kafka.controller.TopicDeletionManager"
        p = f"[Topic Deletion Manager {c}] "
        if phase == "handling":
            self.ctrl(
                c, "INFO", cls, p + f"Handling deletion for topics {topic}", _x("topic_deletion")
            )
        elif phase == "started":
            self.ctrl(
                c, "INFO", cls, p + f"Deletion of topic {topic} (re)started", _x("topic_deletion")
            )
        elif phase == "replicas_done":
            listed = ",".join(
                f"[Topic={tp.topic},Partition={tp.partition},Replica={r}]" for tp, r in replicas
            )
            self.ctrl(
                c,
                "DEBUG",
                cls,
                p + f"Deletion successfully completed for replicas {listed}",
                _x("deletion_detail"),
            )
        elif phase == "completed":
            self.ctrl(
                c,
                "INFO",
                cls,
                p + f"Deletion of topic {topic} successfully completed",
                _x("topic_deletion"),
            )
