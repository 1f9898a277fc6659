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
``/isr_change_notification``. ``ControllerLines10`` (``render10_controller``) holds the
controller's own lines; wording that alone differs from 2.8 is in ``render_formats.FORMATS_10``.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import (
    LeaderAndIsr,
    TopicPartition,
)
from kafkactl_lab.simulate.render10_controller import (
    ControllerLines10,
)
from kafkactl_lab.simulate.render_base import (
    KC,
    PARTITION_LOGGER,
    SERVER_LOGGER,
    LaiOutcome,
    RequestInfo,
    expect,
    replica_text,
)
from kafkactl_lab.simulate.scala import (
    any_set,
    int_set,
    java_double,
    mk,
    scala_map,
    seq,
)


class Renderer10(ControllerLines10):
    """Kafka 1.0.2: see the module docstring."""

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
                    expect(
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
                expect("update_metadata_sent", topic=tp.topic, partition=tp.partition),
            )
        cls = "kafka.controller.ControllerBrokerRequestBatch"
        for broker, stops in stop_replica:
            with_delete = [tp for tp, delete in stops if delete]
            without = [tp for tp, delete in stops if not delete]
            for flag, group in (("true", with_delete), ("false", without)):
                listed = ",".join(replica_text(tp, broker) for tp in group)
                self.ctrl(
                    c,
                    "DEBUG",
                    cls,
                    f"The stop replica request (delete = {flag}) sent to broker {broker} is "
                    f"{listed}",
                    expect("stop_replica_sent", broker=broker),
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
                    expect("request_not_sent", broker=broker),
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
                expect("leader_and_isr_received", topic=tp.topic, partition=tp.partition),
            )
            if entry.role == "stale":
                self.sc(
                    b,
                    "WARN",
                    p + f"Ignoring LeaderAndIsr request from controller {c} with correlation id "
                    f"{k} epoch {e} for partition {tp} since its associated leader epoch "
                    f"{lai.leader_epoch} is not higher than the current leader epoch "
                    f"{entry.previous_epoch}",
                    expect("leader_and_isr_ignored", topic=tp.topic, partition=tp.partition),
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
                expect("become_transition", topic=entry.partition.topic, role="become-leader"),
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
                expect(
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
                expect("become_transition", topic=tp.topic, role="become-leader"),
            )
        for entry in leaders:
            self.sc(
                b,
                "TRACE",
                p + f"Completed LeaderAndIsr request correlationId {k} from controller {c} epoch "
                f"{e} for the become-leader transition for partition {entry.partition}",
                expect("become_transition", topic=entry.partition.topic, role="become-leader"),
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
                    expect("become_transition", topic=tp.topic, role="become-follower"),
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
                    expect("update_metadata_received", topic=tp.topic, partition=tp.partition),
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
                expect("update_metadata_received", topic=tp.topic, partition=tp.partition),
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
                    expect("stop_replica_received", topic=tp.topic, partition=tp.partition),
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
            expect("isr_shrink", topic=tp.topic, partition=tp.partition, isr=tuple(new)),
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
            expect("isr_change_notification", partitions=tuple(str(tp) for tp in partitions)),
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
            expect("auto_rebalance_check"),
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
            expect("preferred_election_context"),
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
            expect("preferred_replica_imbalance"),
        )
        self.ctrl(
            c,
            "TRACE",
            KC,
            p + f"Leader imbalance ratio for broker {broker} is {java_double(ratio)}",
            expect("leader_imbalance_ratio", broker=broker, ratio=ratio),
        )

    def preferred_started(self, c: int, partitions: Sequence[TopicPartition], trigger: str) -> None:
        """``onPreferredReplicaElection``'s first line."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Starting preferred replica leader election for partitions "
            f"{mk(partitions)}",
            expect("preferred_election_started", partitions=tuple(str(tp) for tp in partitions))
            if partitions
            else expect("preferred_election_started"),
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
                expect("preferred_election_completed", topic=tp.topic, leader=preferred),
            )
        else:
            self.ctrl(
                c,
                "WARN",
                KC,
                p + f"Partition {tp} failed to complete preferred replica leader election. "
                f"Leader is {leader}",
                expect("preferred_election_failed", topic=tp.topic, partition=tp.partition),
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
                expect("controlled_shutdown", phase="succeeded"),
            )
            return
        self.srv(
            broker,
            "INFO",
            SERVER_LOGGER,
            p + f"Remaining partitions to move: {mk(remaining)}",
            expect("controlled_shutdown", phase="remaining_partitions"),
        )
        self.srv(
            broker,
            "INFO",
            SERVER_LOGGER,
            p + "Error code from controller: 0",
            expect("controlled_shutdown", phase="failed"),
        )
        self.srv(
            broker,
            "WARN",
            SERVER_LOGGER,
            p + "Retrying controlled shutdown after the previous attempt failed...",
            expect("controlled_shutdown", phase="retrying"),
        )
        if last:
            self.srv(
                broker,
                "WARN",
                SERVER_LOGGER,
                p + "Proceeding to do an unclean shutdown as all the controlled shutdown "
                "attempts failed",
                expect("controlled_shutdown", phase="gave_up"),
            )

    # ------------------------------------------------------------------ reassignment

    def epoch_updated(self, c: int, tp: TopicPartition, lai: LeaderAndIsr) -> None:
        """``Updated leader epoch for partition ... to E``."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Updated leader epoch for partition {tp} to {lai.leader_epoch}",
            expect("leader_epoch_updated", topic=tp.topic, leader_epoch=lai.leader_epoch),
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
            expect("reassignment", topic=tp.topic, partition=tp.partition, leader=lai.leader),
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
            expect("reassignment", topic=tp.topic, partition=tp.partition),
        )
        if not set(target) <= set(old):
            self.ctrl(
                c,
                "INFO",
                KC,
                p + f"New replicas {mk(target)} for partition {tp} being reassigned not yet "
                "caught up with the leader",
                expect("reassignment", topic=tp.topic, partition=tp.partition),
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
            expect("reassignment", topic=tp.topic, partition=tp.partition),
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
            expect("topics_changed", topics=tuple(new_topics)),
        )

    def partition_creation(self, c: int, partitions: Sequence[TopicPartition]) -> None:
        """``onNewTopicCreation`` then ``onNewPartitionCreation``."""
        p = f"[Controller id={c}] "
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"New topic creation callback for {mk(partitions)}",
            expect("topic_creation_callback"),
        )
        self.ctrl(
            c,
            "INFO",
            KC,
            p + f"New partition creation callback for {mk(partitions)}",
            expect("partition_creation_callback", partitions=tuple(str(tp) for tp in partitions)),
        )
