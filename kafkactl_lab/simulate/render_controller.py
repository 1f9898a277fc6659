"""Kafka 2.8 controller lines: its lifecycle, request channels, broker changes, state machines.

``ControllerLines28`` renders what the controller logs about itself; ``Renderer28`` (``render``)
adds requests, ISR changes, preferred elections, controlled shutdowns, reassignments and topics.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import LeaderAndIsr, PartitionState, TopicPartition
from kafkactl_lab.simulate.output import LogFile
from kafkactl_lab.simulate.recording import PartitionBatch, ReplicaBatch
from kafkactl_lab.simulate.render_base import (
    KC,
    SC,
    Renderer,
    expect,
)
from kafkactl_lab.simulate.render_formats import FORMATS_28
from kafkactl_lab.simulate.scala import (
    ScalaVersion,
    any_set,
    mk,
    scala_map,
    seq,
)

PREFERRED_ELECTION_CONTEXT = (
    "Partitions undergoing preferred replica election: ",
    "Partitions that completed preferred replica election: ",
    "Skipping preferred replica election for partitions due to topic deletion: ",
    "Resuming preferred replica election for partitions: ",
)
"""The (empty) preferred-election part of ``onControllerFailover``, one line each."""


class ControllerLines28(Renderer):
    """Kafka 2.8.2 (Scala 2.13 build): the controller's own lines (see ``render``)."""

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
    formats = FORMATS_28

    # ------------------------------------------------------------------ value renderings

    def lai(self, lai: LeaderAndIsr) -> str:
        """``LeaderAndIsr.toString`` (1.1 - 3.1)."""
        return (
            f"LeaderAndIsr(leader={lai.leader}, leaderEpoch={lai.leader_epoch}, "
            f"isr={self.ints(lai.isr)}, zkVersion={lai.partition_epoch})"
        )

    def lice(self, lai: LeaderAndIsr, controller_epoch: int) -> str:
        """``LeaderIsrAndControllerEpoch.toString`` (2.7.2/2.8.1+: with ``ZkVersion``)."""
        return self.say(
            "leader_isr_controller_epoch",
            leader=lai.leader,
            isr=mk(lai.isr),
            leader_epoch=lai.leader_epoch,
            zk_version=lai.partition_epoch,
            controller_epoch=controller_epoch,
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
            self.say("event_thread_started", broker=broker),
            expect("thread_lifecycle"),
        )

    def already_elected(self, broker: int, controller: int) -> None:
        """A broker finds ``/controller`` taken."""
        self.ctrl(
            broker,
            "DEBUG",
            KC,
            f"[Controller id={broker}] Broker {controller} has been elected as the controller, "
            "so stopping the election process.",
            expect("controller_moved", controller_id=controller),
        )

    def resign(self, broker: int, channels: Sequence[int]) -> None:
        """``onControllerResignation`` (``channels``: the brokers it had request threads to)."""
        p = f"[Controller id={broker}] "
        self.ctrl(broker, "DEBUG", KC, p + "Resigning", expect("controller_resigning"))
        self.ctrl(
            broker,
            "INFO",
            self.say("partition_state_machine"),
            f"[PartitionStateMachine controllerId={broker}] Stopped partition state machine",
            expect("state_machine_lifecycle"),
        )
        self.ctrl(
            broker,
            "INFO",
            self.say("replica_state_machine"),
            f"[ReplicaStateMachine controllerId={broker}] Stopped replica state machine",
            expect("state_machine_lifecycle"),
        )
        for b in channels:
            self.channel_stopped(broker, b)
        self.ctrl(broker, "INFO", KC, p + "Resigned", expect("controller_resigned"))

    def elected(self, c: int, epoch: int, epoch_zk_version: int) -> None:
        """``elect()`` won."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] {c} successfully elected as the controller. Epoch incremented "
            f"to {epoch} and epoch zk version is now {epoch_zk_version}",
            expect("controller_elected", controller_id=c, controller_epoch=epoch),
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

    def controller_info(self, c: int, texts: Iterable[str], kind: str) -> None:
        """One ``KafkaController`` INFO line per text, after the ``[Controller id=c]`` prefix."""
        for text in texts:
            self.ctrl(c, "INFO", KC, f"[Controller id={c}] {text}", expect(kind))

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
                expect("feature_znode"),
            )
        steps = (
            "Registering handlers",
            "Deleting log dir event notifications",
            "Deleting isr change notifications",
            "Initializing controller context",
        )
        self.controller_info(c, steps, "controller_failover_step")

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
            expect("broker_epochs"),
        )
        for b in live:
            self.channel_started(c, b)
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Currently active brokers in the cluster: {self.imm_ints(live)}",
            expect("live_brokers", live_brokers=tuple(sorted(live))),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Currently shutting brokers in the cluster: {self.hash_ints(shutting_down)}",
            expect("shutting_down_brokers", brokers=tuple(sorted(shutting_down))),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p
            + f"Current list of topics in the cluster: {any_set(topics, self.scala, mutable=True)}",
            expect("controller_context"),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + "Fetching topic deletions in progress",
            expect("controller_failover_step"),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"List of topics to be deleted: {mk(deleting)}",
            expect("deletion_detail"),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"List of topics ineligible for deletion: {mk(ineligible)}",
            expect("deletion_detail"),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + "Initializing topic deletion manager",
            expect("controller_failover_step"),
        )
        self.ctrl(
            c,
            "INFO",
            "kafka.controller.TopicDeletionManager",
            f"[Topic Deletion Manager {c}] Initializing manager with initial deletions: "
            f"{any_set(deleting, self.scala)}, initial ineligible deletions: "
            f"{any_set(ineligible, self.scala, mutable=True)}",
            expect("deletion_detail"),
        )
        self.ctrl(
            c, "INFO", KC, p + "Sending update metadata request", expect("controller_failover_step")
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
            expect("state_machine_lifecycle"),
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
            expect("state_machine_lifecycle"),
        )

    def partition_startup(self, c: int) -> None:
        """``PartitionStateMachine.startup`` up to the online trigger."""
        for text in ("Initializing partition state", "Triggering online partition state changes"):
            self.ctrl(
                c,
                "INFO",
                "kafka.controller.ZkPartitionStateMachine",
                f"[PartitionStateMachine controllerId={c}] {text}",
                expect("state_machine_lifecycle"),
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
            expect("state_machine_lifecycle"),
        )

    def failover_ready(self, c: int, epoch: int) -> None:
        """``Ready to serve as the new controller``."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Ready to serve as the new controller with epoch {epoch}",
            expect("controller_ready", controller_epoch=epoch),
        )

    def failover_end(self, c: int) -> None:
        """Pending preferred elections (none) and the scheduler start."""
        p = f"[Controller id={c}] "
        self.controller_info(c, PREFERRED_ELECTION_CONTEXT, "preferred_election_context")
        self.preferred_started(c, (), "ZkTriggered")
        self.ctrl(
            c,
            "INFO",
            KC,
            p + "Starting the controller scheduler",
            expect("controller_failover_step"),
        )

    # ------------------------------------------------------------------ channels

    def thread(self, c: int, broker: int) -> str:
        """A ``RequestSendThread``'s log prefix (named after its broker before 1.1)."""
        return self.say("send_thread", c=c, broker=broker)

    def channel_started(self, c: int, broker: int) -> None:
        """A ``RequestSendThread`` to ``broker`` starts."""
        self.ctrl(
            c,
            "INFO",
            "kafka.controller.RequestSendThread",
            self.thread(c, broker) + "Starting",
            expect("thread_lifecycle"),
        )

    def channel_stopped(self, c: int, broker: int) -> None:
        """The ``RequestSendThread`` to ``broker`` stops."""
        for text in ("Shutting down", "Stopped", "Shutdown completed"):
            self.ctrl(
                c,
                "INFO",
                "kafka.controller.RequestSendThread",
                self.thread(c, broker) + text,
                expect("thread_lifecycle"),
            )

    def channel_connected(self, c: int, broker: int) -> None:
        """The first request to a broker opens the connection."""
        self.ctrl(
            c,
            "INFO",
            "kafka.controller.RequestSendThread",
            self.thread(c, broker) + f"Controller {c} connected to {self.node(broker)} for "
            "sending state change requests",
            expect("controller_connection"),
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
        """``processBrokerChange``'s summary line (bounced brokers from 2.2)."""
        self.ctrl(
            c,
            "INFO",
            KC,
            self.say(
                "broker_change",
                c=c,
                added=mk(added),
                deleted=mk(deleted),
                bounced=mk(bounced),
                live=mk(live),
            ),
            expect(
                "broker_change",
                added_brokers=tuple(added),
                deleted_brokers=tuple(deleted),
                live_brokers=tuple(live),
            ),
        )

    def broker_failure_callback(
        self, c: int, dead: Sequence[int], were_shutting: Sequence[int]
    ) -> None:
        """``onBrokerFailure``'s lines (1.0 prints the removed brokers as a Scala buffer)."""
        p = f"[Controller id={c}] "
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Broker failure callback for {mk(dead)}",
            expect("broker_failure_callback", brokers=tuple(dead)),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p
            + self.say(
                "shutting_down_removed",
                brokers=mk(were_shutting),
                buffer=seq(were_shutting, "ArrayBuffer"),
            ),
            expect("shutting_down_brokers", brokers=tuple(were_shutting)),
        )

    def broker_startup_callback(self, c: int, new: Sequence[int]) -> None:
        """``onBrokerStartup``'s first line."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] New broker startup callback for {mk(new)}",
            expect("broker_startup_callback", brokers=tuple(new)),
        )

    def broker_epochs(self, c: int, epochs: Sequence[tuple[int, int]]) -> None:
        """``Updated broker epochs cache``."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Updated broker epochs cache: {self.epochs_map(epochs)}",
            expect("broker_epochs"),
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
                    expect(
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
                    expect(
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
            expect("partition_state_change_failed", topic=tp.topic, partition=tp.partition),
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
        """A replica transition that failed: ERROR with the exception's stack trace."""
        self.out.emit(
            c,
            LogFile.state_change,
            "ERROR",
            SC,
            self.say(
                "replica_failed",
                c=c,
                epoch=epoch,
                replica=replica,
                tp=tp,
                before=before,
                target=target,
            ),
            expect(
                "replica_state_change_failed",
                topic=tp.topic,
                partition=tp.partition,
                replica=replica,
            ),
            f"java.lang.IllegalStateException: {detail}\n\tat kafka.controller."
            + self.say("replica_failed_frame"),
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
            expect(
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

    def preferred_started(self, c: int, partitions: Sequence[TopicPartition], trigger: str) -> None:
        """``onReplicaElection``'s first line (2.4+)."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Starting replica leader election (PREFERRED) for partitions "
            f"{mk(partitions)} triggered by {trigger}",
            expect(
                "preferred_election_started",
                trigger=trigger,
                partitions=tuple(str(tp) for tp in partitions),
            ),
        )
