"""Kafka 1.0 controller lines: its lifecycle, request channels, broker changes, state machines.

``ControllerLines10`` renders what the 1.0 controller logs about itself where 2.8's differs;
``Renderer10`` (``render10``) adds requests, ISR changes, preferred elections, controlled
shutdowns, reassignments and topics.
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
from kafkactl_lab.simulate.output import Emitter, LogFile
from kafkactl_lab.simulate.recording import PartitionBatch, ReplicaBatch
from kafkactl_lab.simulate.render import Renderer28
from kafkactl_lab.simulate.render_base import (
    KC,
    SC,
    expect,
    replica_text,
)
from kafkactl_lab.simulate.render_controller import PREFERRED_ELECTION_CONTEXT
from kafkactl_lab.simulate.render_formats import FORMATS_10
from kafkactl_lab.simulate.scala import (
    ScalaVersion,
    any_set,
    int_set,
    mk,
    scala_map,
    seq,
)

PSM = "kafka.controller.PartitionStateMachine"
RSM = "kafka.controller.ReplicaStateMachine"
LEADER_DURING_DELETE = -2


class ControllerLines10(Renderer28):
    """Kafka 1.0.2: the controller's own lines (see ``render10``)."""

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
    formats = FORMATS_10
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

    # ------------------------------------------------------------------ controller lifecycle

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
            expect("controller_elected", controller_id=c),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + "Starting become controller state transition",
            expect("controller_failover_started"),
        )
        if not first:
            self.ctrl(
                c,
                "INFO",
                KC,
                p + f"Initialized controller epoch to {previous_epoch} and zk version "
                f"{previous_zk_version}",
                expect("controller_epoch_initialized", controller_epoch=previous_epoch),
            )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Incremented epoch to {epoch}",
            expect("controller_epoch_incremented", controller_epoch=epoch),
        )

    def failover_begin(self, c: int, epoch: int, create_feature: bool) -> None:
        """Listener registrations of ``onControllerFailover``."""
        p = f"[Controller id={c}] "
        for listener in ("IsrChangeNotificationListener", "logDirEventNotificationListener"):
            self.ctrl(
                c, "DEBUG", KC, p + f"Registering {listener}", expect("controller_failover_step")
            )

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
            expect("live_brokers", live_brokers=tuple(sorted(live))),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Currently shutting brokers in the cluster: {self.imm_ints(shutting_down)}",
            expect("shutting_down_brokers", brokers=tuple(sorted(shutting_down))),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"Current list of topics in the cluster: {any_set(topics, self.scala)}",
            expect("controller_context"),
        )
        reassignments = (
            "Partitions being reassigned: Map()",
            "Partitions already reassigned: Set()",
            "Resuming reassignment of partitions: Map()",
        )
        self.controller_info(c, reassignments, "controller_context")
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

    def replica_startup(self, c: int, phase: str) -> None:
        """1.0 logs no step of the replica state machine's startup by itself."""

    def replica_started(self, c: int, states: Sequence[tuple[TopicPartition, int, str]]) -> None:
        """``Started replica state machine with initial state -> Map(...)`` (INFO)."""
        body = scala_map([(replica_text(tp, r), s) for tp, r, s in states], self.scala)
        self.ctrl(
            c,
            "INFO",
            RSM,
            f"[ReplicaStateMachine controllerId={c}] Started replica state machine with initial "
            f"state -> {body}",
            expect("state_machine_lifecycle"),
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
            expect("state_machine_lifecycle"),
        )

    def failover_end(self, c: int) -> None:
        """Pending preferred elections (none) and the scheduler start."""
        p = f"[Controller id={c}] "
        self.controller_info(c, PREFERRED_ELECTION_CONTEXT, "preferred_election_context")
        self.preferred_started(c, (), "ZkTriggered")
        self.ctrl(
            c,
            "INFO",
            PSM,
            f"[PartitionStateMachine controllerId={c}] Invoking state change to OnlinePartition "
            "for partitions ",
            expect("state_machine_batch"),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + "Starting the controller scheduler",
            expect("controller_failover_step"),
        )

    # ------------------------------------------------------------------ channels

    # ------------------------------------------------------------------ broker changes

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
            expect("state_machine_batch"),
        )

    def replica_batch_begin(self, c: int, batch: ReplicaBatch) -> None:
        """``handleStateChanges`` of the replica state machine logs its call."""
        replicas = ",".join(replica_text(tp, r) for (tp, r), _ in batch.before)
        self.ctrl(
            c,
            "INFO",
            RSM,
            f"[ReplicaStateMachine controllerId={c}] Invoking state change to "
            f"{batch.target.name} for replicas {replicas}",
            expect("state_machine_batch"),
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
                    expect("partition_state_change", topic=tp.topic, partition=tp.partition),
                )
            elif target is not PartitionState.OnlinePartition:
                self.sc(
                    c,
                    "TRACE",
                    p + f"Changed partition {tp} state from {before.name} to {target.name}",
                    expect("partition_state_change", topic=tp.topic, to_state=target.name),
                )
            elif lai is not None and before is PartitionState.NewPartition:
                live_replicas = [r for r in replicas if r in live]
                self.ctrl(
                    c,
                    "DEBUG",
                    PSM,
                    f"[PartitionStateMachine controllerId={c}] Live assigned replicas for "
                    f"partition {tp} are: [{seq(live_replicas)}]",
                    expect("state_machine_batch"),
                )
                self.ctrl(
                    c,
                    "DEBUG",
                    PSM,
                    f"[PartitionStateMachine controllerId={c}] Initializing leader and isr for "
                    f"partition {tp} to {self.lice(lai, epoch)}",
                    expect("leader_and_isr_initialized", topic=tp.topic, leader=lai.leader),
                )
                self._changed_online(c, epoch, tp, before, lai)
            elif lai is not None:
                self.sc(
                    c,
                    "TRACE",
                    p + f"Started leader election for partition {tp}",
                    expect("leader_election_started", topic=tp.topic, partition=tp.partition),
                )
                self._selector(c, batch, tp, replicas, live, lai)
                self.sc(
                    c,
                    "TRACE",
                    p + f"Elected leader {lai.leader} for Offline partition {tp}",
                    expect(
                        "leader_elected", topic=tp.topic, partition=tp.partition, leader=lai.leader
                    ),
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
            expect(
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
                    expect("leader_selected", topic=tp.topic, leader=lai.leader),
                )
            else:
                alive = [r for r in replicas if r in live]
                self.ctrl(
                    c,
                    "DEBUG",
                    cls,
                    p + f"No broker in ISR is alive for {tp}. Pick the leader from the alive "
                    f"assigned replicas: {mk(alive)}",
                    expect("offline_partition_no_live_isr", topic=tp.topic, partition=tp.partition),
                )
                self.ctrl(
                    c,
                    "WARN",
                    cls,
                    p + f"No broker in ISR is alive for {tp}. Elect leader {lai.leader} from live "
                    f"brokers {mk(alive)}. There's potential data loss.",
                    expect("unclean_leader_election", topic=tp.topic, leader=lai.leader),
                )
            self.ctrl(
                c,
                "INFO",
                cls,
                p + f"Selected new leader and ISR {self.lai(lai)} for offline partition {tp}",
                expect(
                    "leader_selected", topic=tp.topic, partition=tp.partition, leader=lai.leader
                ),
            )
        elif strategy is ElectionStrategy.preferred and before is not None:
            self.ctrl(
                c,
                "INFO",
                "kafka.controller.PreferredReplicaPartitionLeaderSelector",
                f"[PreferredReplicaPartitionLeaderSelector]: Current leader {before.leader} for "
                f"partition {tp} is not the preferred replica. Triggering preferred replica leader "
                "election",
                expect("leader_selected", topic=tp.topic),
            )
        elif strategy is ElectionStrategy.controlled_shutdown and before is not None:
            self.ctrl(
                c,
                "DEBUG",
                "kafka.controller.ControlledShutdownLeaderSelector",
                f"[ControlledShutdownLeaderSelector]: Partition {tp} : current leader = "
                f"{before.leader}, new leader = {lai.leader}",
                expect("leader_selected", topic=tp.topic, leader=lai.leader),
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
            expect("partition_state_change_failed", topic=tp.topic, partition=tp.partition),
            f"{exception}\n\tat kafka.controller.PartitionStateMachine.handleStateChange"
            "(PartitionStateMachine.scala:131)",
        )

    @property
    def _live_text(self) -> str:
        return int_set(self._live, self.scala, sort=True)

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
            expect(
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
                expect("isr_removal_started", topic=tp.topic, replica=replica),
            )
            if replica not in before.isr:
                self.ctrl(
                    c,
                    "WARN",
                    KC,
                    p + f"Cannot remove replica {replica} from ISR of partition {tp} since it is "
                    f"not in the ISR. Leader = {before.leader} ; ISR = {seq(before.isr)}",
                    expect("isr_removal_skipped", topic=tp.topic, replica=replica),
                )
            else:
                if after.isr == before.isr:
                    self.ctrl(
                        c,
                        "INFO",
                        KC,
                        p + f"Retaining last ISR {replica} of partition {tp} since unclean leader "
                        "election is disabled",
                        expect("last_isr_retained", topic=tp.topic, replica=replica),
                    )
                self.ctrl(
                    c,
                    "INFO",
                    KC,
                    p + f"New leader and ISR for partition {tp} is {self.lai(after)}",
                    expect(
                        "replica_removed_from_isr",
                        topic=tp.topic,
                        partition=tp.partition,
                        leader=after.leader,
                        leader_epoch=after.leader_epoch,
                        isr=after.isr,
                    ),
                )
        self._replica_changed(c, epoch, tp, replica, from_state, ReplicaState.OfflineReplica.name)
