"""Log lines of the ZooKeeper-mode controller and brokers, as Kafka 2.8 writes them.

``Renderer28`` turns what the simulator saw happen into the lines Kafka 2.8.2 writes with its
default ``config/log4j.properties``: ``kafka.controller`` at TRACE into ``controller.log``,
``state.change.logger`` at INFO into ``state-change.log`` (the per-replica and Offline/NonExistent
transitions are TRACE there, hence absent), everything else (``kafka.cluster.Partition``,
``kafka.server.KafkaServer``) at INFO into ``server.log``. Every message follows a format string
of ``reference/catalog/log-statements-2.8.2.tsv`` (or, for broker-side lines outside its scope,
``reference/FORMATS.md``), with Scala 2.13 ``toString`` renderings (``scala.py``). Each line
carries an ``Expect`` (the event type or ignored family the grammars must give it, and the
fields that matter) for the tests; the ``Renderer`` base class (``render_base``) holds what
every version shares, ``ControllerLines28`` (``render_controller``) the controller's own lines, and
``render_formats`` each release's templates where releases differ only in wording.

Not every line a real broker prints is reproduced (request/response TRACE lines of the
controller's channel, listener registrations, async error paths); every line that is written
is exact.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import LeaderAndIsr, TopicPartition
from kafkactl_lab.simulate.render_base import (
    KC,
    PARTITION_LOGGER,
    SERVER_LOGGER,
    LaiEntry,
    LaiOutcome,
    RequestInfo,
    expect,
    replica_text,
)
from kafkactl_lab.simulate.render_controller import ControllerLines28
from kafkactl_lab.simulate.scala import (
    any_set,
    java_double,
    mk,
    scala_map,
)


class Renderer28(ControllerLines28):
    """Kafka 2.8.2 (Scala 2.13 build): see the module docstring."""

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
                expect(
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
            expect(
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
                expect("stop_replica_sent", broker=broker, count=len(stops)),
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
            expect("leader_and_isr_received", correlation_id=k, count=o.partitions),
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
                    expect("leader_and_isr_ignored", topic=tp.topic, partition=tp.partition),
                )
            else:
                self.sc(
                    b,
                    "WARN",
                    p
                    + f"Ignoring LeaderAndIsr request from controller {c} with correlation id {k} "
                    f"epoch {e} for partition {tp} since its associated leader epoch {requested} "
                    f"is smaller than the current leader epoch {current}",
                    expect("leader_and_isr_ignored", topic=tp.topic, partition=tp.partition),
                )
        if o.leaders:
            self.sc(
                b,
                "INFO",
                p + f"Stopped fetchers as part of LeaderAndIsr request correlationId {k} from "
                f"controller {c} epoch {e} as part of the become-leader transition for "
                f"{len(o.leaders)} partitions",
                expect("become_transition", role="become-leader", count=len(o.leaders)),
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
                    expect(
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
                    expect(
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
                expect("become_transition", role="become-follower", count=len(o.followers)),
            )
        self.sc(
            b,
            "INFO",
            p + f"Finished LeaderAndIsr request in {o.elapsed_ms}ms correlationId {k} from "
            f"controller {c} for {o.partitions} partitions",
            expect("leader_and_isr_received", correlation_id=k, count=o.partitions),
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
            expect(
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
            expect(
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
            expect("stop_replica_received", correlation_id=correlation_id, count=len(entries)),
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
            expect(
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
            expect(
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
            expect("alter_isr_received", partitions=tuple(str(tp) for tp in parts)),
        )
        for tp, lai in updates:
            self.ctrl(
                c,
                "DEBUG",
                KC,
                p + f"ISR for partition {tp} updated to [{mk(lai.isr)}] and zkVersion updated to "
                f"[{lai.partition_epoch}]",
                expect(
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
            expect("isr_update_committed", topic=tp.topic, partition=tp.partition, isr=lai.isr),
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
            expect("auto_rebalance_check"),
        )
        self.ctrl(
            c,
            "TRACE",
            KC,
            p + "Checking need to trigger auto leader balancing",
            expect("auto_rebalance_check"),
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
            expect("preferred_replica_imbalance", broker=broker),
        )
        self.ctrl(
            c,
            "TRACE",
            KC,
            p + f"Leader imbalance ratio for broker {broker} is {java_double(ratio)}",
            expect("leader_imbalance_ratio", broker=broker, ratio=ratio),
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
                expect(
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
                expect("preferred_election_failed", topic=tp.topic, partition=tp.partition),
            )

    # ------------------------------------------------------------------ controlled shutdown

    def shutdown_requested(self, broker: int) -> None:
        """The broker asks the controller for a controlled shutdown (server.log)."""
        self.srv(
            broker,
            "INFO",
            SERVER_LOGGER,
            f"[KafkaServer id={broker}] Starting controlled shutdown",
            expect("controlled_shutdown", broker=broker, phase="requested"),
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
                expect("controlled_shutdown", phase="succeeded"),
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
            expect("controlled_shutdown", phase="remaining_partitions"),
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
            expect("controlled_shutdown", broker=broker, phase="started"),
        )
        self.ctrl(
            c,
            "DEBUG",
            KC,
            p + f"All shutting down brokers: {mk(shutting)}",
            expect("shutting_down_brokers", brokers=tuple(shutting)),
        )
        self.ctrl(
            c,
            "DEBUG",
            KC,
            p + f"Live brokers: {mk(live)}",
            expect("live_brokers", live_brokers=tuple(live)),
        )

    def all_leaders(
        self, c: int, leaders: Sequence[tuple[TopicPartition, LeaderAndIsr, int]]
    ) -> None:
        """``All leaders = ...``: the whole leadership cache, one line."""
        body = ",".join(f"({tp},{self.lice(lai, ce)})" for tp, lai, ce in leaders)
        self.ctrl(
            c, "TRACE", KC, f"[Controller id={c}] All leaders = {body}", expect("leadership_dump")
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
            expect(
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
            expect(
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
            self.say("epoch_updating", c=c, tp=tp),
            expect(
                "leader_epoch_updated", topic=tp.topic, partition=tp.partition, phase="updating"
            ),
        )

    def epoch_updated(self, c: int, tp: TopicPartition, lai: LeaderAndIsr) -> None:
        """``Updated leader epoch for partition ...`` (2.8.1+: with ``zkVersion=``)."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] Updated leader epoch for partition {tp} to {lai.leader_epoch}, "
            f"zkVersion={lai.partition_epoch}",
            expect(
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
            expect(
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
            expect(
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
            expect("reassignment", topic=tp.topic, partition=tp.partition, phase=phase),
        )

    def reassignment_started(
        self, c: int, tp: TopicPartition, target: Sequence[int], old: Sequence[int]
    ) -> None:
        """A ZooKeeper-triggered reassignment starts (before 2.4; 2.8 logs the 2.4+ lines)."""

    def reassignment_assigned(self, c: int, tp: TopicPartition, replicas: Sequence[int]) -> None:
        """The topic znode holds the reassignment's replica list (logged before 2.4)."""
        self.reassignment_line("reassignment_assigned", c, tp, replicas=mk(replicas))

    def reassignment_line(self, key: str, c: int, tp: TopicPartition, **fields: object) -> None:
        """A reassignment line of the ZooKeeper-driven reassignment, where the release logs it.

        Args:
            key: its template.
            c: the controller.
            tp: the partition.
            **fields: the template's other fields.
        """
        message = self.line(key, c=c, tp=tp, **fields)
        if message is not None:
            expected = expect("reassignment", topic=tp.topic, partition=tp.partition)
            self.ctrl(c, "INFO", KC, message, expected)

    def reassignment_removed(self, c: int, tp: TopicPartition) -> None:
        """The partition leaves ``/admin/reassign_partitions`` (logged before 2.4)."""
        self.reassignment_line("reassignment_removed", c, tp)

    def reassignment_waiting(self, c: int, tp: TopicPartition, target: Sequence[int]) -> None:
        """A reassignment waits for its new replicas to catch up (logged before 2.4)."""
        self.reassignment_line("reassignment_waiting", c, tp, target=mk(target))

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
            expect("unclean_election_enabled"),
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
            expect("topics_changed", topics=tuple(new_topics)),
        )

    def partition_creation(self, c: int, partitions: Sequence[TopicPartition]) -> None:
        """``onNewPartitionCreation``'s line."""
        self.ctrl(
            c,
            "INFO",
            KC,
            f"[Controller id={c}] New partition creation callback for {mk(partitions)}",
            expect("partition_creation_callback", partitions=tuple(str(tp) for tp in partitions)),
        )

    def deletion_requested(self, c: int, topics: Sequence[str]) -> None:
        """``processTopicDeletion``'s lines (no topics: the listener firing after a deletion)."""
        p = f"[Controller id={c}] "
        self.ctrl(
            c,
            "DEBUG",
            KC,
            p + f"Delete topics listener fired for topics {mk(topics)} to be deleted",
            expect("topic_deletion"),
        )
        if topics:
            self.ctrl(
                c,
                "INFO",
                KC,
                p + f"Starting topic deletion for topics {mk(topics)}",
                expect("topic_deletion", topics=tuple(topics)),
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
        p = self.say("deletion_manager", c=c)
        if phase == "handling":
            self.ctrl(
                c,
                "INFO",
                cls,
                p + f"Handling deletion for topics {topic}",
                expect("topic_deletion"),
            )
        elif phase == "started":
            self.ctrl(
                c,
                "INFO",
                cls,
                p + self.say("deletion_started", topic=topic),
                expect("topic_deletion"),
            )
        elif phase == "replicas_done":
            listed = ",".join(replica_text(tp, r) for tp, r in replicas)
            self.ctrl(
                c,
                "DEBUG",
                cls,
                p + f"Deletion successfully completed for replicas {listed}",
                expect("deletion_detail"),
            )
        elif phase == "completed":
            self.ctrl(
                c,
                "INFO",
                cls,
                p + f"Deletion of topic {topic} successfully completed",
                expect("topic_deletion"),
            )
