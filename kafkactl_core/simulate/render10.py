"""Log lines of the ZooKeeper-mode controller and brokers, as Kafka 1.0 writes them.

``Renderer10`` renders Kafka 1.0.2 (Scala 2.11 build) with its default ``log4j.properties``:
``kafka.controller`` and ``state.change.logger`` both at TRACE, so ``state-change.log`` holds a
line per partition and replica transition, per request entry sent and received; the controller
logs ``Invoking state change ...`` for each state-machine call and the ``PartitionLeaderSelector``
lines, among them the WARN ``No broker in ISR is alive for t-0. Elect leader 3 from live brokers
3. There's potential data loss.`` of an unclean election (gone from 1.1 on). Messages follow the
format strings of ``reference/catalog/log-statements-1.0.2.tsv`` and ``reference/FORMATS.md``:
partitions print ``t-0``, ``LeaderAndIsr`` as JSON, replicas as
``[Topic=t,Partition=0,Replica=1]``; broker ids are not yet part of the controller's state
(no broker epochs); ISR changes are written by the partition leaders and announced through
``/isr_change_notification``.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import (
    ElectionStrategy,
    LeaderAndIsr,
    PartitionState,
    ReplicaState,
    TopicPartition,
)
from kafkactl_core.simulate.output import Emitter, LogFile
from kafkactl_core.simulate.recording import PartitionBatch, ReplicaBatch
from kafkactl_core.simulate.render import (
    KC,
    PARTITION_LOGGER,
    SC,
    SERVER_LOGGER,
    LaiOutcome,
    Renderer28,
    RequestInfo,
    _x,
)
from kafkactl_core.simulate.scala import (
    ScalaVersion,
    any_set,
    int_set,
    java_double,
    mk,
    scala_map,
    seq,
)

PSM = "kafka.controller.PartitionStateMachine"
RSM = "kafka.controller.ReplicaStateMachine"
LEADER_DURING_DELETE = -2


def _replica(tp: TopicPartition, replica: int) -> str:
    """``PartitionAndReplica.toString``."""
    return f"[Topic={tp.topic},Partition={tp.partition},Replica={replica}]"


class Renderer10(Renderer28):
    """Kafka 1.0.2: see the module docstring."""

    scala = ScalaVersion.v2_11
    name = "1.0"
    release = "1.0.2"
    fenced_writes = False
    registration_version = 4
    topic_znode_version = 1
    topic_ids = False
    alter_isr = False
    feature_znode = False
    initial_epoch_value = 1
    session_timeout_ms = 6_000
    update_all_when_empty = True
    lai_filtered_to_live = False
    per_partition_controlled_shutdown = True
    top_level_paths = (
        "/consumers",
        "/brokers/ids",
        "/brokers/topics",
        "/config/changes",
        "/config/topics",
        "/config/clients",
        "/admin/delete_topics",
        "/brokers/seqid",
        "/isr_change_notification",
        "/latest_producer_id_block",
        "/log_dir_event_notification",
    )

    def __init__(self, out: Emitter) -> None:
        """Render into ``out``."""
        super().__init__(out)
        self._batch: PartitionBatch | None = None
        self._live: Sequence[int] = ()

    # ------------------------------------------------------------------ value renderings

    def lai(self, lai: LeaderAndIsr) -> str:
        """``LeaderAndIsr.toString`` up to 1.0: its JSON."""
        return f'{{"leader":{lai.leader},"leader_epoch":{lai.leader_epoch},"isr":[{mk(lai.isr)}]}}'

    def lice(self, lai: LeaderAndIsr, controller_epoch: int) -> str:
        """``LeaderIsrAndControllerEpoch.toString`` (no zk version before 2.7.2/2.8.1)."""
        return (
            f"(Leader:{lai.leader},ISR:{mk(lai.isr)},LeaderEpoch:{lai.leader_epoch},"
            f"ControllerEpoch:{controller_epoch})"
        )

    def request_state(
        self, state_epoch: int, lai: LeaderAndIsr, replicas: Sequence[int], is_new: bool
    ) -> str:
        """A LeaderAndIsr request's ``PartitionState`` (lists joined with commas)."""
        return (
            f"PartitionState(controllerEpoch={state_epoch}, leader={lai.leader}, "
            f"leaderEpoch={lai.leader_epoch}, isr={mk(lai.isr)}, zkVersion={lai.partition_epoch}, "
            f"replicas={mk(replicas)}, isNew={str(is_new).lower()})"
        )

    def metadata_state(
        self,
        state_epoch: int,
        lai: LeaderAndIsr,
        replicas: Sequence[int],
        offline: Sequence[int],
        deleted: bool,
    ) -> str:
        """An UpdateMetadata request's ``PartitionState`` (Java lists)."""
        leader = LEADER_DURING_DELETE if deleted else lai.leader
        return (
            f"PartitionState(controllerEpoch={state_epoch}, leader={leader}, "
            f"leaderEpoch={lai.leader_epoch}, isr=[{mk(lai.isr, ', ')}], "
            f"zkVersion={lai.partition_epoch}, replicas=[{mk(replicas, ', ')}], "
            f"offlineReplicas=[{mk(offline, ', ')}])"
        )

    def thread(self, c: int, broker: int) -> str:
        """A ``RequestSendThread``'s log prefix (its thread name)."""
        return f"[Controller-{c}-to-broker-{broker}-send-thread]: "

    # ------------------------------------------------------------------ controller lifecycle

    def thread_started(self, broker: int) -> None:
        """The controller event thread starts (every broker, at startup)."""
        self.ctrl(
            broker,
            "INFO",
            "kafka.controller.ControllerEventManager$ControllerEventThread",
            "[controller-event-thread]: Starting",
            _x("thread_lifecycle"),
        )

    def resign(self, broker: int, channels: Sequence[int]) -> None:
        """``onControllerResignation``."""
        p = f"[Controller id={broker}] "
        self.ctrl(broker, "DEBUG", KC, p + "Resigning", _x("controller_resigning"))
        self.ctrl(
            broker,
            "INFO",
            PSM,
            f"[PartitionStateMachine controllerId={broker}] Stopped partition state machine",
            _x("state_machine_lifecycle"),
        )
        self.ctrl(
            broker,
            "INFO",
            RSM,
            f"[ReplicaStateMachine controllerId={broker}] Stopped replica state machine",
            _x("state_machine_lifecycle"),
        )
        for b in channels:
            self.channel_stopped(broker, b)
        self.ctrl(broker, "INFO", KC, p + "Resigned", _x("controller_resigned"))

    def elected_lines(
        self,
        c: int,
        epoch: int,
        epoch_zk_version: int,
        first: bool,
        previous_epoch: int,
        previous_zk_version: int,
    ) -> None:
        """``elect()`` and the epoch increment of ``onControllerFailover``."""
        p = f"[Controller id={c}] "
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"{c} successfully elected as the controller",
            _x("controller_elected", controller_id=c),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + "Starting become controller state transition",
            _x("controller_failover_started"),
        )
        if not first:
            self.ctrl(
                c,
                "INFO",
                KC,
                p + f"Initialized controller epoch to {previous_epoch} and zk version "
                f"{previous_zk_version}",
                _x("controller_epoch_initialized", controller_epoch=previous_epoch),
            )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Incremented epoch to {epoch}",
            _x("controller_epoch_incremented", controller_epoch=epoch),
        )

    def failover_begin(self, c: int, epoch: int, create_feature: bool) -> None:
        """Listener registrations of ``onControllerFailover``."""
        p = f"[Controller id={c}] "
        for listener in ("IsrChangeNotificationListener", "logDirEventNotificationListener"):
            self.ctrl(c, "DEBUG", KC, p + f"Registering {listener}", _x("controller_failover_step"))

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
        """``initializeControllerContext``, reassignments and deletions in progress."""
        p = f"[Controller id={c}] "
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
            p + f"Currently shutting brokers in the cluster: {self.imm_ints(shutting_down)}",
            _x("shutting_down_brokers", brokers=tuple(sorted(shutting_down))),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Current list of topics in the cluster: {any_set(topics, self.scala)}",
            _x("controller_context"),
        )
        for text in (
            "Partitions being reassigned: Map()",
            "Partitions already reassigned: Set()",
            "Resuming reassignment of partitions: Map()",
        ):
            self.ctrl(c, "INFO", KC, p + text, _x("controller_context"))
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

    def replica_startup(self, c: int, phase: str) -> None:
        """1.0 logs no step of the replica state machine's startup by itself."""

    def replica_started(self, c: int, states: Sequence[tuple[TopicPartition, int, str]]) -> None:
        """``Started replica state machine with initial state -> Map(...)`` (INFO)."""
        body = scala_map([(_replica(tp, r), s) for tp, r, s in states], self.scala)
        self.ctrl(
            c,
            "INFO",
            RSM,
            f"[ReplicaStateMachine controllerId={c}] Started replica state machine with initial "
            f"state -> {body}",
            _x("state_machine_lifecycle"),
        )

    def partition_startup(self, c: int) -> None:
        """1.0 logs no step of the partition state machine's startup before it is done."""

    def partition_started(self, c: int, states: Sequence[tuple[TopicPartition, str]]) -> None:
        """``Started partition state machine with initial state -> Map(...)``."""
        body = scala_map([(str(tp), s) for tp, s in states], self.scala)
        self.ctrl(
            c,
            "INFO",
            PSM,
            f"[PartitionStateMachine controllerId={c}] Started partition state machine with "
            f"initial state -> {body}",
            _x("state_machine_lifecycle"),
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
            c,
            "INFO",
            PSM,
            f"[PartitionStateMachine controllerId={c}] Invoking state change to OnlinePartition "
            "for partitions ",
            _x("state_machine_batch"),
        )
        self.ctrl(
            c, "INFO", KC, p + "Starting the controller scheduler", _x("controller_failover_step")
        )

    # ------------------------------------------------------------------ channels

    def channel_started(self, c: int, broker: int) -> None:
        """A ``RequestSendThread`` to ``broker`` starts (named after it before 1.1)."""
        self.ctrl(
            c,
            "INFO",
            "kafka.controller.RequestSendThread",
            self.thread(c, broker) + "Starting",
            _x("thread_lifecycle"),
        )

    def channel_stopped(self, c: int, broker: int) -> None:
        """The ``RequestSendThread`` to ``broker`` stops."""
        for text in ("Shutting down", "Stopped", "Shutdown completed"):
            self.ctrl(
                c,
                "INFO",
                "kafka.controller.RequestSendThread",
                self.thread(c, broker) + text,
                _x("thread_lifecycle"),
            )

    def channel_connected(self, c: int, broker: int) -> None:
        """The first request to a broker opens the connection."""
        self.ctrl(
            c,
            "INFO",
            "kafka.controller.RequestSendThread",
            self.thread(c, broker) + f"Controller {c} connected to {self.node(broker)} for "
            "sending state change requests",
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
        """The broker change summary (no bounced brokers before 2.2)."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Newly added brokers: {mk(added)}, deleted brokers: "
            f"{mk(deleted)}, all live brokers: {mk(live)}",
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
        """``onBrokerFailure``'s lines (the removed brokers print as a Scala buffer)."""
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
            p + f"Removed {seq(were_shutting, 'ArrayBuffer')} from list of shutting down brokers.",
            _x("shutting_down_brokers", brokers=tuple(were_shutting)),
        )

    def broker_epochs(self, c: int, epochs: Sequence[tuple[int, int]]) -> None:
        """Broker epochs arrived in 2.2."""

    # ------------------------------------------------------------------ state machines

    def partition_batch_begin(self, c: int, batch: PartitionBatch, live: Sequence[int]) -> None:
        """``handleStateChanges`` logs its call (``triggerOnlinePartitionStateChange`` does not)."""
        self._batch = batch
        self._live = live
        if batch.triggered:
            return
        parts = mk(tp for tp, _ in batch.before)
        self.ctrl(
            c,
            "INFO",
            PSM,
            f"[PartitionStateMachine controllerId={c}] Invoking state change to "
            f"{batch.target.name} for partitions {parts}",
            _x("state_machine_batch"),
        )

    def replica_batch_begin(self, c: int, batch: ReplicaBatch) -> None:
        """``handleStateChanges`` of the replica state machine logs its call."""
        replicas = ",".join(_replica(tp, r) for (tp, r), _ in batch.before)
        self.ctrl(
            c,
            "INFO",
            RSM,
            f"[ReplicaStateMachine controllerId={c}] Invoking state change to "
            f"{batch.target.name} for replicas {replicas}",
            _x("state_machine_batch"),
        )

    def partition_changes(
        self,
        c: int,
        epoch: int,
        batch: PartitionBatch,
        changes: Sequence[tuple[TopicPartition, PartitionState, LeaderAndIsr | None]],
        assignments: dict[TopicPartition, ReplicaAssignment],
        live: Sequence[int],
    ) -> None:
        """Per-partition TRACE transitions, the selectors' lines for elections."""
        p = f"[Controller id={c} epoch={epoch}] "
        target = batch.target
        for tp, before, lai in changes:
            replicas = assignments[tp].replicas
            if target is PartitionState.NewPartition:
                self.sc(
                    c,
                    "TRACE",
                    p + f"Changed partition {tp} state from {before.name} to NewPartition with "
                    f"assigned replicas {mk(replicas)}",
                    _x("partition_state_change", topic=tp.topic, partition=tp.partition),
                )
            elif target is not PartitionState.OnlinePartition:
                self.sc(
                    c,
                    "TRACE",
                    p + f"Changed partition {tp} state from {before.name} to {target.name}",
                    _x("partition_state_change", topic=tp.topic, to_state=target.name),
                )
            elif lai is not None and before is PartitionState.NewPartition:
                live_replicas = [r for r in replicas if r in live]
                self.ctrl(
                    c,
                    "DEBUG",
                    PSM,
                    f"[PartitionStateMachine controllerId={c}] Live assigned replicas for "
                    f"partition {tp} are: [{seq(live_replicas)}]",
                    _x("state_machine_batch"),
                )
                self.ctrl(
                    c,
                    "DEBUG",
                    PSM,
                    f"[PartitionStateMachine controllerId={c}] Initializing leader and isr for "
                    f"partition {tp} to {self.lice(lai, epoch)}",
                    _x("leader_and_isr_initialized", topic=tp.topic, leader=lai.leader),
                )
                self._changed_online(c, epoch, tp, before, lai)
            elif lai is not None:
                self.sc(
                    c,
                    "TRACE",
                    p + f"Started leader election for partition {tp}",
                    _x("leader_election_started", topic=tp.topic, partition=tp.partition),
                )
                self._selector(c, batch, tp, replicas, live, lai)
                self.sc(
                    c,
                    "TRACE",
                    p + f"Elected leader {lai.leader} for Offline partition {tp}",
                    _x("leader_elected", topic=tp.topic, partition=tp.partition, leader=lai.leader),
                )
                self._changed_online(c, epoch, tp, before, lai)

    def _changed_online(
        self, c: int, epoch: int, tp: TopicPartition, before: PartitionState, lai: LeaderAndIsr
    ) -> None:
        self.sc(
            c,
            "TRACE",
            f"[Controller id={c} epoch={epoch}] Changed partition {tp} from {before.name} to "
            f"OnlinePartition with leader {lai.leader}",
            _x(
                "partition_state_change",
                topic=tp.topic,
                partition=tp.partition,
                from_state=before.name,
                to_state="OnlinePartition",
                leader=lai.leader,
            ),
        )

    def _selector(
        self,
        c: int,
        batch: PartitionBatch,
        tp: TopicPartition,
        replicas: Sequence[int],
        live: Sequence[int],
        lai: LeaderAndIsr,
    ) -> None:
        """The ``PartitionLeaderSelector`` lines of one election."""
        before = batch.leadership_before.get(tp)
        strategy = batch.strategy
        if strategy is ElectionStrategy.offline:
            cls = "kafka.controller.OfflinePartitionLeaderSelector"
            p = "[OfflinePartitionLeaderSelector]: "
            live_isr = [r for r in (before.isr if before else ()) if r in live]
            if live_isr:
                self.ctrl(
                    c,
                    "DEBUG",
                    cls,
                    p + f"Some broker in ISR is alive for {tp}. Select {lai.leader} from ISR "
                    f"{mk(live_isr)} to be the leader.",
                    _x("leader_selected", topic=tp.topic, leader=lai.leader),
                )
            else:
                alive = [r for r in replicas if r in live]
                self.ctrl(
                    c,
                    "DEBUG",
                    cls,
                    p + f"No broker in ISR is alive for {tp}. Pick the leader from the alive "
                    f"assigned replicas: {mk(alive)}",
                    _x("offline_partition_no_live_isr", topic=tp.topic, partition=tp.partition),
                )
                self.ctrl(
                    c,
                    "WARN",
                    cls,
                    p + f"No broker in ISR is alive for {tp}. Elect leader {lai.leader} from live "
                    f"brokers {mk(alive)}. There's potential data loss.",
                    _x("unclean_leader_election", topic=tp.topic, leader=lai.leader),
                )
            self.ctrl(
                c,
                "INFO",
                cls,
                p + f"Selected new leader and ISR {self.lai(lai)} for offline partition {tp}",
                _x("leader_selected", topic=tp.topic, partition=tp.partition, leader=lai.leader),
            )
        elif strategy is ElectionStrategy.preferred and before is not None:
            self.ctrl(
                c,
                "INFO",
                "kafka.controller.PreferredReplicaPartitionLeaderSelector",
                f"[PreferredReplicaPartitionLeaderSelector]: Current leader {before.leader} for "
                f"partition {tp} is not the preferred replica. Triggering preferred replica leader "
                "election",
                _x("leader_selected", topic=tp.topic),
            )
        elif strategy is ElectionStrategy.controlled_shutdown and before is not None:
            self.ctrl(
                c,
                "DEBUG",
                "kafka.controller.ControlledShutdownLeaderSelector",
                f"[ControlledShutdownLeaderSelector]: Partition {tp} : current leader = "
                f"{before.leader}, new leader = {lai.leader}",
                _x("leader_selected", topic=tp.topic, leader=lai.leader),
            )

    def partition_failed(
        self, c: int, epoch: int, tp: TopicPartition, before: str, target: str, detail: str
    ) -> None:
        """``handleStateChange``'s ERROR with the exception of the failed transition."""
        batch = self._batch
        if "should be in one of" in detail:
            exception = f"java.lang.IllegalStateException: {detail}"
        elif batch is not None and batch.strategy is ElectionStrategy.offline:
            lai = batch.leadership_before.get(tp)
            isr = mk(lai.isr) if lai is not None else ""
            exception = (
                f"kafka.common.NoReplicaOnlineException: No replica in ISR for partition {tp} is "
                f"alive. Live brokers are: [{self._live_text}], ISR brokers are: [{isr}]"
            )
        else:
            exception = f"kafka.common.StateChangeFailedException: {detail}"
        self.out.emit(
            c,
            LogFile.state_change,
            "ERROR",
            SC,
            f"[Controller id={c} epoch={epoch}] Initiated state change for partition {tp} from "
            f"{before} to {target} failed",
            _x("partition_state_change_failed", topic=tp.topic, partition=tp.partition),
            f"{exception}\n\tat kafka.controller.PartitionStateMachine.handleStateChange"
            "(PartitionStateMachine.scala:131)",
        )

    @property
    def _live_text(self) -> str:
        return int_set(self._live, self.scala, sort=True)

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
        """``handleStateChange``'s ERROR for a replica transition that failed."""
        self.out.emit(
            c,
            LogFile.state_change,
            "ERROR",
            SC,
            f"[Controller id={c} epoch={epoch}] Initiated state change of replica {replica} for "
            f"partition {tp} from {before} to {target} failed",
            _x(
                "replica_state_change_failed",
                topic=tp.topic,
                partition=tp.partition,
                replica=replica,
            ),
            f"java.lang.IllegalStateException: {detail}\n\tat kafka.controller."
            "ReplicaStateMachine.assertValidPreviousStates(ReplicaStateMachine.scala:320)",
        )

    def replica_changes(
        self,
        c: int,
        epoch: int,
        target: str,
        changes: Sequence[tuple[TopicPartition, int, str]],
    ) -> None:
        """``Changed state of replica ...`` per replica (TRACE, written before 2.6)."""
        for tp, replica, before in changes:
            self._replica_changed(c, epoch, tp, replica, before, target)

    def _replica_changed(
        self, c: int, epoch: int, tp: TopicPartition, replica: int, before: str, target: str
    ) -> None:
        self.sc(
            c,
            "TRACE",
            f"[Controller id={c} epoch={epoch}] Changed state of replica {replica} for partition "
            f"{tp} from {before} to {target}",
            _x(
                "replica_state_change",
                topic=tp.topic,
                partition=tp.partition,
                replica=replica,
                to_state=target,
            ),
        )

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
        """``KafkaController.removeReplicaFromIsr`` (0.8.2-1.0), then the transition."""
        if before is not None and after is not None:
            p = f"[Controller id={c}] "
            self.ctrl(
                c,
                "DEBUG",
                KC,
                p + f"Removing replica {replica} from ISR {mk(before.isr)} for partition {tp}.",
                _x("isr_removal_started", topic=tp.topic, replica=replica),
            )
            if replica not in before.isr:
                self.ctrl(
                    c,
                    "WARN",
                    KC,
                    p + f"Cannot remove replica {replica} from ISR of partition {tp} since it is "
                    f"not in the ISR. Leader = {before.leader} ; ISR = {seq(before.isr)}",
                    _x("isr_removal_skipped", topic=tp.topic, replica=replica),
                )
            else:
                if after.isr == before.isr:
                    self.ctrl(
                        c,
                        "INFO",
                        KC,
                        p + f"Retaining last ISR {replica} of partition {tp} since unclean leader "
                        "election is disabled",
                        _x("last_isr_retained", topic=tp.topic, replica=replica),
                    )
                self.ctrl(
                    c,
                    "INFO",
                    KC,
                    p + f"New leader and ISR for partition {tp} is {self.lai(after)}",
                    _x(
                        "replica_removed_from_isr",
                        topic=tp.topic,
                        partition=tp.partition,
                        leader=after.leader,
                        leader_epoch=after.leader_epoch,
                        isr=after.isr,
                    ),
                )
        self._replica_changed(c, epoch, tp, replica, from_state, ReplicaState.OfflineReplica.name)

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
        """``sendRequestsToBrokers``: a TRACE line per entry, StopReplica DEBUG/WARN lines."""
        p = f"[Controller id={c} epoch={epoch}] "
        for broker, entries in leader_and_isr:
            for tp, lai, is_new in entries:
                role = "become-leader" if lai.leader == broker else "become-follower"
                state = self.request_state(
                    info.state_epochs.get(tp, epoch), lai, info.assignments[tp].replicas, is_new
                )
                self.sc(
                    c,
                    "TRACE",
                    p + f"Sending {role} LeaderAndIsr request {state} to broker {broker} for "
                    f"partition {tp}",
                    _x(
                        "leader_and_isr_sent", topic=tp.topic, partition=tp.partition, broker=broker
                    ),
                )
        brokers = int_set(update_brokers, self.scala, mutable=True, sort=True)
        for tp in update_partitions:
            cached = info.leaderships.get(tp)
            if cached is None:
                continue
            replicas = info.assignments[tp].replicas
            offline = [r for r in replicas if r not in info.registered]
            deleted = tp.topic in info.deleting
            state = self.metadata_state(
                info.state_epochs.get(tp, epoch), cached, replicas, offline, deleted
            )
            self.sc(
                c,
                "TRACE",
                p + f"Sending UpdateMetadata request {state} to brokers {brokers} for "
                f"partition {tp}",
                _x("update_metadata_sent", topic=tp.topic, partition=tp.partition),
            )
        cls = "kafka.controller.ControllerBrokerRequestBatch"
        for broker, stops in stop_replica:
            with_delete = [tp for tp, delete in stops if delete]
            without = [tp for tp, delete in stops if not delete]
            for flag, group in (("true", with_delete), ("false", without)):
                listed = ",".join(_replica(tp, broker) for tp in group)
                self.ctrl(
                    c,
                    "DEBUG",
                    cls,
                    f"The stop replica request (delete = {flag}) sent to broker {broker} is "
                    f"{listed}",
                    _x("stop_replica_sent", broker=broker),
                )
            if broker in info.registered:
                continue
            requests = [(False, without)] if without else []
            requests += [(True, [tp]) for tp in with_delete]
            for delete, group in requests:
                self.ctrl(
                    c,
                    "WARN",
                    "kafka.controller.ControllerChannelManager",
                    f"[Channel manager on controller {c}]: Not sending request (type="
                    f"StopReplicaRequest, controllerId={c}, controllerEpoch={epoch}, "
                    f"deletePartitions={str(delete).lower()}, partitions={mk(group)}) to broker "
                    f"{broker}, since it is offline.",
                    _x("request_not_sent", broker=broker),
                )

    def broker_leader_and_isr(self, o: LaiOutcome) -> None:
        """A broker handles a LeaderAndIsr request: TRACE lines per partition."""
        b, c, e, k = o.broker, o.controller, o.controller_epoch, o.correlation_id
        p = f"[Broker id={b}] "
        info = o.info
        for entry in o.entries:
            tp, lai = entry.partition, entry.leadership
            state = self.request_state(
                info.state_epochs.get(tp, e), lai, info.assignments[tp].replicas, entry.is_new
            )
            self.sc(
                b,
                "TRACE",
                p + f"Received LeaderAndIsr request {state} correlation id {k} from controller "
                f"{c} epoch {e} for partition {tp}",
                _x("leader_and_isr_received", topic=tp.topic, partition=tp.partition),
            )
            if entry.role == "stale":
                self.sc(
                    b,
                    "WARN",
                    p + f"Ignoring LeaderAndIsr request from controller {c} with correlation id "
                    f"{k} epoch {e} for partition {tp} since its associated leader epoch "
                    f"{lai.leader_epoch} is not higher than the current leader epoch "
                    f"{entry.previous_epoch}",
                    _x("leader_and_isr_ignored", topic=tp.topic, partition=tp.partition),
                )
        leaders = [x for x in o.entries if x.role == "leader"]
        followers = [x for x in o.entries if x.role == "follower"]
        # a follower whose new leader is -1 starts and completes the transition, nothing between
        every_follower = [x for x in o.entries if x.role in ("follower", "leaderless")]
        for entry in leaders:
            self.sc(
                b,
                "TRACE",
                p + f"Handling LeaderAndIsr request correlationId {k} from controller {c} epoch "
                f"{e} starting the become-leader transition for partition {entry.partition}",
                _x("become_transition", topic=entry.partition.topic, role="become-leader"),
            )
        for entry in leaders:
            tp = entry.partition
            self.srv(
                b,
                "INFO",
                PARTITION_LOGGER,
                f"[Partition {tp} broker={b}] {tp} starts at Leader Epoch "
                f"{entry.leadership.leader_epoch} from offset {entry.offset}. Previous Leader "
                f"Epoch was: {entry.previous_epoch}",
                _x(
                    "partition_leader_started",
                    topic=tp.topic,
                    partition=tp.partition,
                    leader_epoch=entry.leadership.leader_epoch,
                ),
            )
            self.sc(
                b,
                "TRACE",
                p + f"Stopped fetchers as part of become-leader request from controller {c} "
                f"epoch {e} with correlation id {k} for partition {tp} (last update controller "
                f"epoch {info.state_epochs.get(tp, e)})",
                _x("become_transition", topic=tp.topic, role="become-leader"),
            )
        for entry in leaders:
            self.sc(
                b,
                "TRACE",
                p + f"Completed LeaderAndIsr request correlationId {k} from controller {c} epoch "
                f"{e} for the become-leader transition for partition {entry.partition}",
                _x("become_transition", topic=entry.partition.topic, role="become-leader"),
            )
        follower_steps = (
            "Handling LeaderAndIsr request correlationId {k} from controller {c} epoch {e} "
            "starting the become-follower transition for partition {tp}",
            "Stopped fetchers as part of become-follower request from controller {c} epoch {e} "
            "with correlation id {k} for partition {tp}",
            "Truncated logs and checkpointed recovery boundaries for partition {tp} as part of "
            "become-follower request with correlation id {k} from controller {c} epoch {e}",
            "Started fetcher to new leader as part of become-follower request from controller "
            "{c} epoch {e} with correlation id {k} for partition {tp}",
            "Completed LeaderAndIsr request correlationId {k} from controller {c} epoch {e} for "
            "the become-follower transition for partition {tp}",
        )
        for step, template in enumerate(follower_steps):
            if step == 1:
                for entry in every_follower:
                    if entry.role == "leaderless":
                        self.leader_unavailable(o, entry)
            every = step in (0, len(follower_steps) - 1)
            for entry in every_follower if every else followers:
                tp = entry.partition
                self.sc(
                    b,
                    "TRACE",
                    p + template.format(k=k, c=c, e=e, tp=tp),
                    _x("become_transition", topic=tp.topic, role="become-follower"),
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
        """A broker caches an UpdateMetadata request: a TRACE line per partition."""
        p = f"[Broker id={broker}] "
        tail = (
            f"in response to UpdateMetadata request sent by controller {c} epoch {epoch} with "
            f"correlation id {correlation_id}"
        )
        for tp, lai, deleted in partitions:
            if lai is None:
                continue
            if deleted:
                self.sc(
                    broker,
                    "TRACE",
                    p + f"Deleted partition {tp} from metadata cache {tail}",
                    _x("update_metadata_received", topic=tp.topic, partition=tp.partition),
                )
                continue
            replicas = info.assignments[tp].replicas
            offline = [r for r in replicas if r not in info.registered]
            state = self.metadata_state(
                info.state_epochs.get(tp, epoch), lai, replicas, offline, False
            )
            self.sc(
                broker,
                "TRACE",
                p + f"Cached leader info {state} for partition {tp} {tail}",
                _x("update_metadata_received", topic=tp.topic, partition=tp.partition),
            )

    def broker_stop_replica(
        self,
        broker: int,
        c: int,
        epoch: int,
        correlation_id: int,
        entries: Sequence[tuple[TopicPartition, bool]],
    ) -> None:
        """A broker handles a StopReplica request: TRACE lines per partition."""
        p = f"[Broker id={broker}] "
        for tp, delete in entries:
            flag = str(delete).lower()
            for text in ("Handling", "Finished handling"):
                self.sc(
                    broker,
                    "TRACE",
                    p + f"{text} stop replica (delete={flag}) for partition {tp}",
                    _x("stop_replica_received", topic=tp.topic, partition=tp.partition),
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
        """``Partition.maybeShrinkIsr`` on the leader (1.0: no offsets)."""
        self.srv(
            leader,
            "INFO",
            PARTITION_LOGGER,
            f"[Partition {tp} broker={leader}] Shrinking ISR from {mk(old)} to {mk(new)}",
            _x("isr_shrink", topic=tp.topic, partition=tp.partition, isr=tuple(new)),
        )

    def isr_notification(
        self, c: int, live: Sequence[int], partitions: Sequence[TopicPartition]
    ) -> None:
        """The controller processes an ISR change notification."""
        self.ctrl(
            c,
            "DEBUG",
            KC,
            f"[Controller id={c}] Sending MetadataRequest to Brokers:{seq(live, 'ArrayBuffer')} "
            f"for TopicAndPartitions:{any_set(partitions, self.scala)}",
            _x("isr_change_notification", partitions=tuple(str(tp) for tp in partitions)),
        )

    def unclean_enabled(self, c: int, topic: str) -> None:
        """The topic-level trigger and its line arrived in 2.3/2.4."""

    # ------------------------------------------------------------------ preferred elections

    def rebalance_begin(self, c: int) -> None:
        """The auto-rebalance task runs (1.0: only the TRACE line)."""
        self.ctrl(
            c,
            "TRACE",
            KC,
            f"[Controller id={c}] Checking need to trigger auto leader balancing",
            _x("auto_rebalance_check"),
        )

    def rebalance_overview(
        self, c: int, groups: Sequence[tuple[int, Sequence[tuple[TopicPartition, Sequence[int]]]]]
    ) -> None:
        """``Preferred replicas by broker Map(...)``."""
        body = scala_map(
            [
                (b, scala_map([(str(tp), seq(r)) for tp, r in members], self.scala))
                for b, members in groups
            ],
            self.scala,
        )
        self.ctrl(
            c,
            "DEBUG",
            KC,
            f"[Controller id={c}] Preferred replicas by broker {body}",
            _x("preferred_election_context"),
        )

    def rebalance_group(
        self,
        c: int,
        broker: int,
        not_preferred: Sequence[tuple[TopicPartition, Sequence[int]]],
        ratio: float,
    ) -> None:
        """One preferred broker's computation (no broker id in the DEBUG map before 2.x)."""
        p = f"[Controller id={c}] "
        body = scala_map([(str(tp), self.ints(r)) for tp, r in not_preferred], self.scala)
        self.ctrl(
            c,
            "DEBUG",
            KC,
            p + f"Topics not in preferred replica {body}",
            _x("preferred_replica_imbalance"),
        )
        self.ctrl(
            c,
            "TRACE",
            KC,
            p + f"Leader imbalance ratio for broker {broker} is {java_double(ratio)}",
            _x("leader_imbalance_ratio", broker=broker, ratio=ratio),
        )

    def preferred_started(self, c: int, partitions: Sequence[TopicPartition], trigger: str) -> None:
        """``onPreferredReplicaElection``'s first line."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Starting preferred replica leader election for partitions "
            f"{mk(partitions)}",
            _x("preferred_election_started", partitions=tuple(str(tp) for tp in partitions))
            if partitions
            else _x("preferred_election_started"),
        )

    def preferred_result(self, c: int, tp: TopicPartition, preferred: int, leader: int) -> None:
        """``removePartitionsFromPreferredReplicaElection``'s verdict."""
        p = f"[Controller id={c}] "
        if leader == preferred:
            self.ctrl(
                c,
                "INFO",
                KC,
                p + f"Partition {tp} completed preferred replica leader election. "
                f"New leader is {preferred}",
                _x("preferred_election_completed", topic=tp.topic, leader=preferred),
            )
        else:
            self.ctrl(
                c,
                "WARN",
                KC,
                p + f"Partition {tp} failed to complete preferred replica leader election. "
                f"Leader is {leader}",
                _x("preferred_election_failed", topic=tp.topic, partition=tp.partition),
            )

    # ------------------------------------------------------------------ controlled shutdown

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
        self.srv(
            broker,
            "INFO",
            SERVER_LOGGER,
            p + f"Remaining partitions to move: {mk(remaining)}",
            _x("controlled_shutdown", phase="remaining_partitions"),
        )
        self.srv(
            broker,
            "INFO",
            SERVER_LOGGER,
            p + "Error code from controller: 0",
            _x("controlled_shutdown", phase="failed"),
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

    # ------------------------------------------------------------------ reassignment

    def epoch_updating(self, c: int, tp: TopicPartition) -> None:
        """``updateLeaderEpoch`` starts (1.0: with a period)."""
        self.ctrl(
            c,
            "DEBUG",
            KC,
            f"[Controller id={c}] Updating leader epoch for partition {tp}.",
            _x("leader_epoch_updated", topic=tp.topic, partition=tp.partition, phase="updating"),
        )

    def epoch_updated(self, c: int, tp: TopicPartition, lai: LeaderAndIsr) -> None:
        """``Updated leader epoch for partition ... to E``."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Updated leader epoch for partition {tp} to {lai.leader_epoch}",
            _x("leader_epoch_updated", topic=tp.topic, leader_epoch=lai.leader_epoch),
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
        """The TRACE state-change line after ``updateLeaderEpochAndSendRequest``."""
        self.sc(
            c,
            "TRACE",
            f"[Controller id={c} epoch={epoch}] Sent LeaderAndIsr request "
            f"{self.lice(lai, state_epoch)} with new assigned replica list {mk(a.replicas)} "
            f"to leader {lai.leader} for partition being reassigned {tp}",
            _x("reassignment", topic=tp.topic, partition=tp.partition, leader=lai.leader),
        )

    def reassignment_started(
        self, c: int, tp: TopicPartition, target: Sequence[int], old: Sequence[int]
    ) -> None:
        """``onPartitionReassignment`` opening lines."""
        p = f"[Controller id={c}] "
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Handling reassignment of partition {tp} to new replicas {mk(target)}",
            _x("reassignment", topic=tp.topic, partition=tp.partition),
        )
        if not set(target) <= set(old):
            self.ctrl(
                c,
                "INFO",
                KC,
                p + f"New replicas {mk(target)} for partition {tp} being reassigned not yet "
                "caught up with the leader",
                _x("reassignment", topic=tp.topic, partition=tp.partition),
            )

    def reassignment_assigned(self, c: int, tp: TopicPartition, replicas: Sequence[int]) -> None:
        """The topic znode holds the reassignment's replica list (note the trailing space)."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Updated assigned replicas for partition {tp} being reassigned "
            f"to {mk(replicas)} ",
            _x("reassignment", topic=tp.topic, partition=tp.partition),
        )

    def reassignment_waiting(self, c: int, tp: TopicPartition, target: Sequence[int]) -> None:
        """The new replicas have to catch up first."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Waiting for new replicas {mk(target)} for partition {tp} being "
            "reassigned to catch up with the leader",
            _x("reassignment", topic=tp.topic, partition=tp.partition),
        )

    def reassignment_caught_up(self, c: int, tp: TopicPartition, target: Sequence[int]) -> None:
        """Every target replica is in the ISR: the reassignment resumes."""
        n = len(target)
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] {n}/{n} replicas have caught up with the leader for partition "
            f"{tp} being reassigned.Resuming partition reassignment",
            _x("reassignment", topic=tp.topic, partition=tp.partition),
        )

    def reassignment_removed(self, c: int, tp: TopicPartition) -> None:
        """The partition leaves ``/admin/reassign_partitions``."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Removed partition {tp} from the list of reassigned partitions "
            "in zookeeper",
            _x("reassignment", topic=tp.topic, partition=tp.partition),
        )

    # ------------------------------------------------------------------ topics

    def topics_changed(
        self,
        c: int,
        new_topics: Sequence[str],
        deleted: Sequence[str],
        added: Sequence[tuple[str, str | None, Sequence[tuple[TopicPartition, ReplicaAssignment]]]],
    ) -> None:
        """``TopicChange``'s summary: the new partitions' replicas as a ``Map``."""
        pairs = [(str(tp), seq(a.replicas)) for _, _, parts in added for tp, a in parts]
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] New topics: [{any_set(new_topics, self.scala)}], deleted "
            f"topics: [{any_set(deleted, self.scala)}], new partition replica assignment "
            f"[{scala_map(pairs, self.scala)}]",
            _x("topics_changed", topics=tuple(new_topics)),
        )

    def partition_creation(self, c: int, partitions: Sequence[TopicPartition]) -> None:
        """``onNewTopicCreation`` then ``onNewPartitionCreation``."""
        p = f"[Controller id={c}] "
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"New topic creation callback for {mk(partitions)}",
            _x("topic_creation_callback"),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"New partition creation callback for {mk(partitions)}",
            _x("partition_creation_callback", partitions=tuple(str(tp) for tp in partitions)),
        )

    def deletion_step(
        self,
        c: int,
        phase: str,
        topic: str = "",
        replicas: Sequence[tuple[TopicPartition, int]] = (),
    ) -> None:
        """Deletion manager lines (its 1.0 prefix ends with a comma)."""
        cls = "kafka.controller.TopicDeletionManager"
        p = f"[Topic Deletion Manager {c}], "
        if phase == "handling":
            self.ctrl(
                c, "INFO", cls, p + f"Handling deletion for topics {topic}", _x("topic_deletion")
            )
        elif phase == "started":
            self.ctrl(
                c, "INFO", cls, p + f"Topic deletion callback for {topic}", _x("topic_deletion")
            )
        elif phase == "replicas_done":
            listed = ",".join(_replica(tp, r) for tp, r in replicas)
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
