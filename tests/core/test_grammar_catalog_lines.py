"""Entries the reference logs do not exercise, checked on lines rendered by hand from the format
strings of catalog/*.tsv, FORMATS.md and KRAFT.md; and a check that every entry is exercised by
the reference files or by this table.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kafkactl_core.grammars import (
    assemble_records,
    grammar_entries,
    match_message,
    parse_record,
    resolve_layout,
)

_ID = "kW3aGe1cQ1yN8vQ0bYj3Pw"
_LAIPS_3_3 = (
    "LeaderAndIsrPartitionState(topicName='orders', partitionIndex=0, controllerEpoch=7, "
    "leader=1, leaderEpoch=0, isr=[1, 2, 3], partitionEpoch=4, replicas=[1, 2, 3], "
    "addingReplicas=[], removingReplicas=[], isNew=true, leaderRecoveryState=0)"
)

# (message, entry, a subset of the converted fields)
LINES: list[tuple[str, str, dict[str, object]]] = [
    ("[Controller id=1] Controller moved to another broker when processing BrokerChange.",
     "controller_moved/while_processing", {"detail": "BrokerChange", "phase": "while_processing"}),
    ("[Controller id=1] Controller has already moved when trying to trigger controller movement",
     "controller_moved/already_moved", {"origin_broker": 1}),
    ("[Controller id=2] A controller has been elected but just resigned, this will result in "
     "another round of election", "controller_moved/elected_then_resigned", {"origin_broker": 2}),
    ("[Controller id=1] Error while electing or becoming controller on broker 1",
     "controller_election_failed/plain", {"broker": 1}),
    ("[Controller id=1] Error while electing or becoming controller on broker 1. Trigger "
     "controller movement immediately", "controller_election_failed/trigger_movement",
     {"broker": 1}),
    ("[Controller id=1] Error processing event TopicChange", "controller_error/processing_event",
     {"origin_broker": 1, "detail": "TopicChange"}),
    ("[controller-event-thread]: Error processing event TopicChange",
     "controller_error/processing_event", {"origin_broker": None, "detail": "TopicChange"}),
    ("[ControllerEventThread controllerId=1] Uncaught error processing event Startup",
     "controller_error/processing_event", {"detail": "Startup"}),
    ("[Channel manager on controller 1]: Error while removing broker by the controller",
     "controller_error/removing_broker", {"detail": "removing_broker"}),
    ("Haven't been able to send leader and isr requests, current state of the map is Map(). "
     "Exception message: java.lang.IllegalStateException", "controller_error/send_requests",
     {"detail": "leader and isr"}),
    ("[controller-event-thread]: Error while invoking listener for processed event TopicChange",
     "controller_error/listener", {"detail": "TopicChange"}),
    ("[Controller id=1] Error while incrementing controller epoch",
     "controller_error/incrementing_epoch", {"detail": "incrementing_epoch"}),
    ("[PartitionStateMachine controllerId=1] Error while moving some partitions to "
     "OnlinePartition state", "controller_error/state_machine",
     {"detail": "partitions", "to_state": "OnlinePartition"}),
    ("[Partition state machine on Controller 1]: Error while moving some partitions to the "
     "online state", "controller_error/state_machine", {"to_state": "online"}),
    ("[PartitionStateMachine controllerId=1] Controller moved to another broker when moving some "
     "partitions to OnlinePartition state", "controller_moved/state_machine",
     {"detail": "moving some partitions to OnlinePartition state"}),
    ("[Controller id=1] Invalid topic and partition JSON in ZK. ZK notification node: "
     "isr_change_0000000001, JSON: {}", "controller_error/invalid_isr_notification",
     {"origin_broker": 1}),
    ("[ReplicaStateMachine controllerId=1] Adding replica (3) that is not part of the assignment "
     "ReplicaAssignment(replicas=1,2, addingReplicas=, removingReplicas=)",
     "controller_error/replica_not_in_assignment", {"replica": 3}),
    ("[Controller id=1] Forcing the controller to resign", "controller_error/forced_resign",
     {"detail": "forced_resign"}),
    ("[Controller id=1] Received controlled shutdown request from an old broker epoch 10 for "
     "broker 2. Current broker epoch is 12.", "controlled_shutdown/stale_broker_epoch",
     {"broker": 2, "broker_epoch": 10, "phase": "stale_broker_epoch"}),
    ("[KafkaServer id=2] Retrying controlled shutdown after the previous attempt failed...",
     "controlled_shutdown/broker_retrying", {"broker": 2, "phase": "retrying"}),
    ("[KafkaServer id=2] Remaining partitions to move: orders-0,audit-0",
     "controlled_shutdown/broker_remaining", {"detail": "orders-0,audit-0"}),
    ("[KafkaServer id=2] Error during controlled shutdown, possibly because leader movement took "
     "longer than the configured controller.socket.timeout.ms and/or request.timeout.ms: "
     "Connection to 1 was disconnected", "controlled_shutdown/broker_error", {"phase": "failed"}),
    ("[KafkaServer id=2] Proceeding to do an unclean shutdown as all the controlled shutdown "
     "attempts failed", "controlled_shutdown/broker_unclean", {"phase": "gave_up"}),
    ("[Kafka Server 2], Error code from controller: 15", "controlled_shutdown/broker_error_code",
     {"broker": 2, "error": "15"}),
    ("[Controller id=1] Ignoring registration of new brokers due to incompatibilities with "
     "finalized features: 4,5", "broker_change/incompatible_features",
     {"detail": "new", "brokers": (4, 5)}),
    ("[Controller id=1] Handling log directory failure for brokers 2",
     "replicas_marked_offline/log_dir_failure", {"brokers": (2,)}),
    ("Controller 1 epoch 7 encountered error during state change of partition [orders,0] from "
     "New to Online, assigned replicas are [1,2], live brokers are [Set(3)]. No assigned replica "
     "is alive.", "partition_state_change_failed/0.11_no_live_replica",
     {"replicas": (1, 2), "live_brokers": (3,), "to_state": "OnlinePartition"}),
    ("[Controller id=1 epoch=7] Initiated state change for partition orders-0 from "
     "OfflinePartition to OnlinePartition failed", "partition_state_change_failed/1.0",
     {"topic": "orders", "from_state": "OfflinePartition"}),
    ("[Controller id=1 epoch=7] Changed partition orders-0 from OfflinePartition to "
     "OnlinePartition with state LeaderAndIsr(leader=3, leaderEpoch=2, isr=List(3), "
     "leaderRecoveryState=RECOVERING, zkVersion=5)",
     "partition_state_change/leader_and_isr_3.2",
     {"leader": 3, "isr": (3,), "leader_recovery_state": "RECOVERING", "zk_version": 5}),
    ("[Controller id=1 epoch=7] Changed partition orders-0 from OfflinePartition to "
     "OnlinePartition with state LeaderAndIsr(leader=3, leaderEpoch=2, isr=List(3), "
     "leaderRecoveryState=RECOVERING, partitionEpoch=5)",
     "partition_state_change/leader_and_isr_3.3", {"partition_epoch": 5, "zk_version": None}),
    ("[Controller id=1 epoch=5] Controller 1 epoch 5 failed to change state for partition t-0 "
     "from OfflinePartition to OnlinePartition", "partition_state_change_failed/1.1",
     {"controller_id": 1, "controller_epoch": 5, "topic": "t", "partition": 0}),
    ("[Controller 1]: Retaining last ISR 2 of partition [orders,0] since unclean leader election "
     "is disabled", "last_isr_retained/bracket", {"replica": 2, "topic": "orders"}),
    ("[Controller id=1] Retaining last ISR 2 of partition orders-0 since unclean leader election "
     "is disabled", "last_isr_retained", {"replica": 2, "partition": 0}),
    ("[Controller id=1] Unclean leader election has been enabled by default",
     "unclean_election_enabled/default", {"origin_broker": 1}),
    ("[Controller id=1] Unclean leader election has been enabled for topic orders",
     "unclean_election_enabled/topic", {"topic": "orders"}),
    ("[PartitionStateMachine controllerId=1] Retrying leader election with strategy "
     "OfflinePartitionLeaderElectionStrategy(false) for partitions List(orders-0)",
     "leader_election_started/retry",
     {"strategy": "OfflinePartitionLeaderElectionStrategy(false)", "partitions": ("orders-0",)}),
    ("Controller 1 epoch 7 initiated state change of replica 2 for partition [orders,0] from "
     "OnlineReplica to NewReplica failed", "replica_state_change_failed/0.11", {"replica": 2}),
    ("[Controller id=1 epoch=7] Initiated state change of replica 2 for partition orders-0 from "
     "OnlineReplica to NewReplica failed", "replica_state_change_failed/1.0", {"replica": 2}),
    ("[Controller id=1 epoch=7] Controller 1 epoch 7 initiated state change of replica 2 for "
     "partition orders-0 from OnlineReplica to NewReplica failed",
     "replica_state_change_failed/1.1", {"to_state": "NewReplica"}),
    ("[Controller id=1] Mark replicas orders-0,audit-0 on broker 2 as offline",
     "replicas_marked_offline", {"partitions": ("orders-0", "audit-0"), "broker": 2}),
    ("[ReplicaStateMachine controllerId=1] Controller failed to remove replica 2 from ISR of "
     "partition orders-0. Attempted to write state LeaderAndIsr(leader=1, leaderEpoch=3, "
     "isr=List(1), zkVersion=5), but failed with bad ZK version. This will be retried.",
     "alter_isr_failed/remove_replica", {"replica": 2, "topic": "orders"}),
    ("[Controller id=1] ISR for partition orders-0 updated to LeaderAndIsr(leader=1, "
     "leaderEpoch=0, isr=List(1, 2), leaderRecoveryState=RECOVERED, partitionEpoch=1).",
     "alter_isr_applied/leader_and_isr_3.3", {"isr": (1, 2), "partition_epoch": 1}),
    ("[Controller id=1] Failed to update ISR to LeaderAndIsr(leader=1, leaderEpoch=0, "
     "isr=List(1), zkVersion=3) for partition orders-0, bad ZK version.",
     "alter_isr_failed/with_state", {"topic": "orders", "partition": 0}),
    ("[Controller id=1] Failed to update ISR for partition orders-0, bad ZK version",
     "alter_isr_failed/3.0", {"topic": "orders"}),
    ("[Controller id=1] Ignoring AlterIsr due to unknown broker 4",
     "alter_isr_rejected/unknown_broker", {"broker": 4, "detail": "AlterIsr"}),
    ("[Controller id=1] Ignoring AlterPartition due to stale broker epoch 12 and local broker "
     "epoch Some(15) for broker 2", "alter_isr_rejected/stale_broker_epoch",
     {"broker_epoch": 12, "broker": 2, "detail": "AlterPartition"}),
    ("[Controller id=1] Rejecting AlterPartition from node 2 for orders-0 because leader is "
     "recovering and ISR is greater than 1: LeaderAndIsr(leader=2)", "alter_isr_rejected/rejected",
     {"broker": 2,
      "error": "leader is recovering and ISR is greater than 1: LeaderAndIsr(leader=2)"}),
    ("[Controller id=1] Error when processing AlterIsr for partitions: List(orders-0)",
     "alter_isr_failed/processing", {"api": "AlterIsr", "detail": "List(orders-0)"}),
    ("Partition [orders,0] on broker 1: Shrinking ISR for partition [orders,0] from 1,2 to 1",
     "isr_shrink/0.8", {"previous_isr": (1, 2), "isr": (1,), "leader": 1}),
    ("Partition [orders,0] on broker 1: Shrinking ISR from 1,2 to 1", "isr_shrink/0.8",
     {"isr": (1,)}),
    ("[Partition orders-0 broker=1] Shrinking ISR from 1,2 to 1", "isr_shrink/1.0",
     {"previous_isr": (1, 2), "isr": (1,)}),
    ("[Controller 1]: Partition [orders,1] failed to complete preferred replica leader "
     "election. Leader is 3", "preferred_election_failed/bracket", {"leader": 3}),
    ("[Controller id=1] Partition orders-1 failed to complete preferred replica leader election. "
     "Leader is 3", "preferred_election_failed/1.0", {"leader": 3}),
    ("[Controller id=1] Error completing preferred replica leader election for partitions "
     "orders-1,audit-0", "preferred_election_failed/error_partitions",
     {"partitions": ("orders-1", "audit-0"), "phase": "error"}),
    ("[Controller id=1] Error completing replica leader election (PREFERRED) for partition "
     "orders-1 because controller has moved to another broker.",
     "preferred_election_failed/error_election_type",
     {"election_type": "PREFERRED", "error": "controller has moved to another broker"}),
    ("[Controller 1]: 1/2 replicas have caught up with the leader for partition [audit,0] being "
     "reassigned.Replica(s) 1 still need to catch up",
     "reassignment/partially_caught_up/bracket", {"count": 1, "replicas": (1,)}),
    ("[Controller id=1] 1/2 replicas have caught up with the leader for partition audit-0 being "
     "reassigned. Replica(s) 1 still need to catch up", "reassignment/partially_caught_up",
     {"count": 1}),
    ("[Controller 1]: Leader 2 for partition [audit,0] being reassigned, is already in the new "
     "list of replicas 1,2 but is dead", "reassignment/leader_dead_in_new_replicas/bracket",
     {"leader": 2}),
    ("[Controller id=1] Leader 2 for partition audit-0 being reassigned, is already in the new "
     "list of replicas 1,2 but is dead", "reassignment/leader_dead_in_new_replicas",
     {"replicas": (1, 2)}),
    ("[Controller 1]: Leader 2 for partition [audit,0] being reassigned, is not in the new list "
     "of replicas 1,3. Re-electing leader", "reassignment/leader_not_in_new_replicas/bracket",
     {"leader": 2}),
    ("[Controller id=1] Leader 2 for partition audit-0 being reassigned, is not in the new list "
     "of replicas 1,3. Re-electing leader", "reassignment/leader_not_in_new_replicas",
     {"replicas": (1, 3)}),
    ("[Controller id=1] Removing partition audit-0 from the list of reassigned partitions in "
     "zookeeper", "reassignment/completed_1.1", {"phase": "completed"}),
    ("[Controller id=1] Skipping reassignment of audit-0 since the topic is currently being "
     "deleted", "reassignment/skipped_topic_deletion", {"topic": "audit"}),
    ("[Controller 1]: Skipping reassignment of partition [audit,0] since it is currently being "
     "deleted", "reassignment/skipped_topic_deletion_1.0/bracket", {"topic": "audit"}),
    ("[Controller id=1] Skipping reassignment of partition audit-0 since it is currently being "
     "deleted", "reassignment/skipped_topic_deletion_1.0", {"partition": 0}),
    ("[Controller 1]: Error completing reassignment of partition [audit,0]",
     "reassignment/failed_completing/bracket", {"phase": "failed"}),
    ("[Controller id=1] Error completing reassignment of partition audit-0",
     "reassignment/failed_completing", {"phase": "failed"}),
    ("[Controller 1]: Error handling reassignment of partition [audit,0] to replicas 1,3 as it "
     "was never created", "reassignment/never_created/bracket", {"replicas": (1, 3)}),
    ("[Controller id=1] Error handling reassignment of partition audit-0 to replicas 1,3 as it "
     "was never created", "reassignment/never_created", {"replicas": (1, 3)}),
    ("[Controller id=1] Ignoring request to reassign partition audit-9 that doesn't exist.",
     "reassignment/nonexistent_partition", {"partition": 9}),
    ("[Controller id=1] Partition audit-0 to be reassigned is already assigned to replicas 1,3. "
     "Ignoring request for partition reassignment.", "reassignment/already_assigned",
     {"replicas": (1, 3)}),
    ("[Controller id=1] Failed completing reassignment of partition audit-0 because controller "
     "has moved to another broker", "reassignment/controller_moved",
     {"error": "controller_moved"}),
    ("[Controller id=1] Failed reassignment through zk with the following errors: "
     "Map(audit-0 -> ApiError(INVALID_REPLICA_ASSIGNMENT))", "reassignment/failed_through_zk",
     {"detail": "Map(audit-0 -> ApiError(INVALID_REPLICA_ASSIGNMENT))"}),
    ("[Topic Deletion Manager 1], Halted deletion of topics orders", "topic_deletion/halted",
     {"topics": ("orders",), "phase": "halted"}),
    ("[Topic Deletion Manager 1], Retrying delete topic for topic orders since replicas "
     "[Topic=orders,Partition=0,Replica=2] were not successfully deleted",
     "topic_deletion/retrying", {"topic": "orders"}),
    ("[Topic Deletion Manager 1] Retrying deletion of topics orders,audit since replicas "
     "[Topic=orders,Partition=0,Replica=2] were not successfully deleted",
     "topic_deletion/retrying_2.5", {"topics": ("orders", "audit")}),
    ("[Topic Deletion Manager 1], Not retrying deletion of topic orders at this time since it is "
     "marked ineligible for deletion", "topic_deletion/ineligible", {"topic": "orders"}),
    ("[Controller id=1] Ignoring request to delete non-existing topics foo,bar",
     "topic_deletion/nonexistent_topics", {"topics": ("foo", "bar")}),
    ("[Topic Deletion Manager 1] Removing Set(orders) since delete topic is disabled",
     "topic_deletion/disabled", {"detail": "Set(orders)"}),
    ("[Controller id=1] Some replicas [Topic=orders,Partition=0,Replica=2] for topics scheduled "
     "for deletion orders are on the newly restarted brokers 2. Signaling restart of topic "
     "deletion for these topics", "topic_deletion/restart_signaled",
     {"topics": ("orders",), "brokers": (2,)}),
    ("[Controller id=1] Skipping adding partitions 3,4 for topic orders since it is currently "
     "being deleted", "partitions_added/skipped", {"detail": "3,4", "topic": "orders"}),
    ("[Controller id=1 epoch=7] Sending become-leader LeaderAndIsr request " + _LAIPS_3_3
     + " to broker 1 for partition orders-0", "leader_and_isr_sent/generated_partition_epoch",
     {"partition_epoch": 4, "isr": (1, 2, 3), "broker": 1}),
    ("[Controller id=1 epoch=7] Sending StopReplica request (delete = true) for 2 replicas to "
     "broker 3", "stop_replica_sent/summary_delete",
     {"delete_partitions": True, "count": 2, "broker": 3}),
    ("[Controller id=1 epoch=7] Sending StopReplica request StopReplicaPartitionState("
     "partitionIndex=0, leaderEpoch=-2, deletePartition=true) to broker 2 for partition orders-0",
     "stop_replica_sent/partition", {"broker": 2, "topic": "orders"}),
    ("[Controller id=1 epoch=7] Received response {error_code=0} for a request sent to broker "
     "kafka-2:9092 (id: 2 rack: null)", "response_received/1.0",
     {"detail": "{error_code=0}", "broker": 2}),
    ("[Broker id=1] Received LeaderAndIsr request " + _LAIPS_3_3
     + " correlation id 2 from controller 1 epoch 7",
     "leader_and_isr_received/generated_partition_epoch",
     {"partition_epoch": 4, "correlation_id": 2, "controller_id": 1}),
    ("[Broker id=1] Ignoring LeaderAndIsr request from controller 1 with correlation id 5 epoch 7 "
     "for partition orders-0 since its associated leader epoch 3 matches the current leader "
     "epoch", "leader_and_isr_ignored/same_leader_epoch", {"leader_epoch": 3}),
    ("[Broker id=4] Ignoring LeaderAndIsr request from controller 1 with correlation id 5 epoch 7 "
     "for partition orders-0 as itself is not in assigned replica list 1,2,3",
     "leader_and_isr_ignored/not_a_replica", {"replicas": (1, 2, 3)}),
    ("[Broker id=1] Ignoring LeaderAndIsr request from controller 2 with correlation id 5 since "
     "its controller epoch 6 is old. Latest known controller epoch is 7",
     "leader_and_isr_ignored/stale_controller_epoch",
     {"controller_epoch": 6, "state_controller_epoch": 7}),
    ("[Broker id=1] Ignoring stop replica (delete=true) for partition orders-0 as replica doesn't "
     "exist on broker", "stop_replica_received/no_replica", {"phase": "skipped"}),
    ("[Controller id=1] Received error in LeaderAndIsr response {error_code=0} from broker 2",
     "response_received/error_1.0", {"api": "LeaderAndIsr", "broker": 2}),
    ("[Controller id=1] Received error KAFKA_STORAGE_ERROR in LeaderAndIsr response "
     "LeaderAndIsrResponseData(errorCode=0) from broker 2", "response_received/error",
     {"error": "KAFKA_STORAGE_ERROR", "broker": 2}),
    ("[Broker id=1] Error while processing LeaderAndIsr request correlationId 5 received from "
     "controller 1 epoch 7 for partition orders-0", "leader_and_isr_received/error",
     {"correlation_id": 5, "topic": "orders"}),
    ("[Broker id=1] Skipped the become-leader state change after marking its partition as leader "
     "with correlation id 5 from controller 1 epoch 7 for partition orders-0 (last update "
     "controller epoch 7) since it is already the leader for the partition.",
     "become_transition/skipped", {"role": "become-leader", "phase": "skipped"}),
    ("[Broker id=1] Received LeaderAndIsrRequest with correlation id 5 from controller 1 epoch 7 "
     "for partition orders-0 (last update controller epoch 7) but cannot become follower since "
     "the new leader 4 is unavailable.", "become_transition/leader_unavailable", {"leader": 4}),
    ("[Broker id=1] Received stop replica request from an old controller epoch 6. Latest known "
     "controller epoch is 7", "stop_replica_received/stale_controller_epoch",
     {"controller_epoch": 6, "state_controller_epoch": 7}),
    ("[Broker id=1] Transitioning 3 partition(s) to local leaders.",
     "become_transition/kraft_transitioning", {"count": 3, "role": "leaders"}),
    ("[Broker id=1] Started fetchers as part of become-follower for 2 partitions",
     "become_transition/kraft_started_fetchers_followers", {"count": 2}),
    ("[Broker id=1] Stopped fetchers as part of become-follower for 2 partitions",
     "become_transition/kraft_stopped_fetchers_followers", {"phase": "stopped_fetchers"}),
    ("[Broker id=1] Stopped fetchers as part of controlled shutdown for 4 partitions",
     "become_transition/kraft_stopped_fetchers_shutdown", {"role": "controlled-shutdown"}),
    (f"[Broker id=1] Creating new partition orders-0 with topic id {_ID}.",
     "become_transition/kraft_created", {"topic_id": _ID}),
    ("[Broker id=1] Deleting 2 partition(s).", "stop_replica_received/kraft_deleting",
     {"count": 2}),
    ("[Broker id=3] The topic partition audit-0 was marked as RECOVERING. Marking the topic "
     "partition as RECOVERED.", "partition_recovered",
     {"leader": 3, "leader_recovery_state": "RECOVERED"}),
    ("[QuorumController id=3000] Fencing broker 2 because its session has timed out.",
     "kraft_broker_fenced", {"broker": 2, "broker_epoch": None}),
    ("[QuorumController id=3000] UNCLEAN partition change for foo-0 with topic ID "
     "FbrrdcfiR-KC2CPSTHaJrg: isr: [3] -> [2], leader: -1 -> 2, leaderRecoveryState: RECOVERED "
     "-> RECOVERING, leaderEpoch: 100 -> 101, partitionEpoch: 200 -> 201",
     "kraft_partition_change/unclean",
     {"topic_id": "FbrrdcfiR-KC2CPSTHaJrg", "previous_isr": (3,), "isr": (2,),
      "previous_leader": -1, "leader": 2, "leader_recovery_state": "RECOVERING",
      "previous_leader_epoch": 100, "leader_epoch": 101, "partition_epoch": 201,
      "election_type": "UNCLEAN",
      "detail": "isr: [3] -> [2], leader: -1 -> 2, leaderRecoveryState: RECOVERED -> "
      "RECOVERING, leaderEpoch: 100 -> 101, partitionEpoch: 200 -> 201"}),
    ("[QuorumController id=3000] partition change for foo-0 with topic ID X1: isr: [1, 2] -> "
     "[1], partitionEpoch: 5 -> 6", "kraft_partition_change/clean",
     {"previous_isr": (1, 2), "isr": (1,), "partition_epoch": 6, "leader": None}),
    ("Setting new leader for topicId FbrrdcfiR-KC2CPSTHaJrg, partition 0 to 2 using an unclean "
     "election", "kraft_unclean_election/building", {"partition": 0, "leader": 2}),
    ("[QuorumController id=3000] Triggering unclean leader election for offline partition foo-0.",
     "kraft_unclean_election/triggered", {"topic": "foo", "phase": "triggered"}),
    ("[QuorumController id=3000] Cannot trigger unclean leader election for offline partition "
     "foo-0: ELIGIBLE_LEADERS_NOT_AVAILABLE", "kraft_unclean_election/failed",
     {"error": "ELIGIBLE_LEADERS_NOT_AVAILABLE"}),
    ("[QuorumController id=3000] maybeBalancePartitionLeaders: generated 1 records in 85 "
     "microseconds. Rescheduling immediately.", "kraft_periodic_task/method",
     {"detail": "maybeBalancePartitionLeaders", "count": 1, "duration_us": 85}),
    ("[QuorumController id=3000] Replayed TopicRecord for topic foo with topic ID "
     "FbrrdcfiR-KC2CPSTHaJrg.", "kraft_topic_created", {"topic": "foo"}),
    ("[QuorumController id=3000] Replayed RemoveTopicRecord for topic foo with ID "
     "FbrrdcfiR-KC2CPSTHaJrg.", "kraft_topic_deleted", {"topic_id": "FbrrdcfiR-KC2CPSTHaJrg"}),
    ("[QuorumController id=3000] Replayed initial RegisterBrokerRecord for broker 2: "
     "RegisterBrokerRecord(brokerId=2, isMigratingZkBroker=false, incarnationId=x, "
     "brokerEpoch=57, endPoints=[], fenced=true)", "kraft_broker_registered/replayed_initial",
     {"broker": 2, "broker_epoch": 57}),
    ("[QuorumController id=3000] Replayed PartitionRecord for new partition foo-0 with topic ID "
     "Tg8kbDuMQKSOe2_QsgVwhQ and PartitionRegistration(replicas=[1, 2], isr=[1, 2], leader=1).",
     "kraft_partition_change/created", {"topic": "foo", "phase": "created"}),
    ("Setting new leader for topicId ZH5-tNBoTUq4dhafyv3TSg, partition 0 to 2 using an unclean "
     "election. Previous partition: PartitionRegistration(replicas=[3, 2], isr=[], leader=-1, "
     "leaderEpoch=1, partitionEpoch=2), change record: PartitionChangeRecord(partitionId=0, "
     "leader=-2)", "kraft_unclean_election/building", {"partition": 0, "leader": 2}),
    ("[QuorumController id=101] Replayed AbortTransactionRecord(reason='Controller failover') "
     "at offset 64. Reverted to offset 41.", "kraft_replay_detail/transaction_abort", {}),
    ("[QuorumController id=101] Replayed ConfigRecord for ConfigResource(type=TOPIC, "
     "name='risky') which set configuration unclean.leader.election.enable to true",
     "kraft_config_replayed/topic",
     {"topic": "risky", "phase": "topic", "detail": "unclean.leader.election.enable to true"}),
    ("[QuorumController id=101] Replayed ConfigRecord for ConfigResource(type=BROKER, name='2') "
     "which set configuration unclean.leader.election.enable to null",
     "kraft_config_replayed/broker", {"broker": 2, "phase": "broker"}),
    ("[QuorumController id=101] Replayed ConfigRecord for ConfigResource(type=BROKER, name='') "
     "which set configuration min.insync.replicas to 1",
     "kraft_config_replayed/broker_default",
     {"phase": "broker_default", "detail": "min.insync.replicas to 1"}),
    ("[QuorumController id=3000] Created partition foo-0 with topic ID Tg8kbDuMQKSOe2_QsgVwhQ and "
     "PartitionControlInfo(replicas=[1, 2], isr=[1, 2], removingReplicas=null, "
     "addingReplicas=null, leader=1, leaderEpoch=0, partitionEpoch=0).",
     "kraft_partition_change/created_before_3.6", {"topic": "foo", "phase": "created"}),
    ("[QuorumController id=3000] Replayed partition assignment change "
     "PartitionChangeRecord(partitionId=0, isr=[1]) for topic foo",
     "kraft_partition_change/assignment_changed", {"topic": "foo"}),
    ("[QuorumController id=3000] Replayed partition change PartitionChangeRecord(partitionId=0, "
     "isr=[1]) for topic foo", "kraft_partition_change/replayed", {"phase": "replayed"}),
    ("[QuorumController id=3000] Replayed UnregisterBrokerRecord(brokerId=2, brokerEpoch=57)",
     "kraft_broker_registration_changed/unregistered", {"broker": 2, "broker_epoch": 57}),
    ("[QuorumController id=3000] Directories [abc] in broker 2 marked offline, remaining "
     "directories: [def]", "kraft_broker_registration_changed/directories_offline",
     {"broker": 2, "detail": "[abc]"}),
    ("[QuorumController id=3000] foo-0 has overlapping ISR=[1, 2] and ELR=[2]",
     "controller_error/overlapping_isr_elr", {"isr": (1, 2)}),
    ("[Controller id=1] starting the token expiry check scheduler",
     "failover_step/starting_the_token_expiry_check_scheduler", {}),
    ("[Controller id=1] De-registering logDirEventNotificationListener",
     "failover_step/De-registering_logDirEventNotificationListener", {}),
    ("[Topic Deletion Manager 1] Dead Replicas ([Topic=orders,Partition=0,Replica=2]) found for "
     "topic orders", "deletion_detail/dead_replicas", {}),
    ("[Topic Deletion Manager 1], Deletion for replicas 2 for partition orders-0 of topic orders "
     "in progress", "deletion_detail/in_progress", {}),
    ("[Replica state machine on controller 1]: Are all replicas for topic orders deleted Map()",
     "deletion_detail/all_replicas_deleted", {}),
    ("[Controller id=1] Restoring the partition replica assignment for topic orders",
     "deletion_detail/restoring_assignment", {}),
    ("[Controller id=1] Ignoring partition change during topic deletion as no new partitions are "
     "added", "deletion_detail/no_new_partitions", {}),
    ("[Controller 1]: Updated path /brokers/topics/orders with {} for replica assignment",
     "deletion_detail/zk_assignment_path", {}),
    ("[Controller id=1] Updated broker metadata: BrokerInfo(a) -> BrokerInfo(b)",
     "broker_metadata/updated_metadata", {}),
    ("[Controller id=1] Updated broker: BrokerInfo(a)", "broker_metadata/updated", {}),
    ("[Controller id=1] Broker info update callback for 2", "broker_metadata/info_update_callback",
     {}),
    ("[Controller id=1] Updating FeatureZNode at path: /feature with contents: "
     "FeatureZNode(2,Enabled,Map())", "feature_znode/updating", {}),
    ("Leader not yet assigned for partition orders-0. Skip sending UpdateMetadataRequest.",
     "controller_context/leader_not_assigned", {}),
    # 1.x-2.x as LogManager wrote it (TopicPartition's t-p, the whole config, a final dot)
    ("Created log for partition orders-0 in /data/kafka with properties {compression.type -> "
     "producer, unclean.leader.election.enable -> false}.", "config/log_created_dotted",
     {"topic": "orders", "partition": 0,
      "detail": "compression.type -> producer, unclean.leader.election.enable -> false"}),
]  # fmt: skip


@pytest.mark.parametrize(("message", "grammar", "fields"), LINES, ids=[g for _, g, _ in LINES])
def test_rendered_line(message: str, grammar: str, fields: dict[str, object]) -> None:
    assert [e.name for e in grammar_entries() if e.regex.fullmatch(message)] == [grammar]
    result = match_message(message)  # through the literal pre-filter
    assert result is not None and result.entry.name == grammar
    assert result.failed_field is None, result.failure
    assert {key: result.values.get(key) for key in fields} == fields


def _reference_dir() -> Path:
    override = os.environ.get("KAFKACTL_REFERENCE")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2].parent / "shared/reference"


def test_every_entry_is_exercised_by_the_reference_files_or_this_table() -> None:
    reference = _reference_dir()
    files = [
        *sorted((reference / "examples").glob("*.log.*")),
        *sorted((reference / "real-logs").glob("*.log")),
    ]
    if not files:
        pytest.skip(f"reference logs not found under {reference} (set KAFKACTL_REFERENCE)")
    # the real-cluster captures of tests/fixtures/real-kafka (kafkactl_lab.real_cluster)
    captures = Path(__file__).resolve().parents[1] / "fixtures" / "real-kafka"
    files += sorted(p for p in captures.glob("*/brokers/*/*.log*") if not p.name.endswith(".gz"))
    layout = resolve_layout("kafka")
    exercised = {grammar for _, grammar, _ in LINES}
    for path in files:
        with path.open("rb") as handle:
            for record in assemble_records(handle, layout):
                grammar = getattr(parse_record(record), "grammar", None)
                if grammar is not None:
                    exercised.add(grammar)
    assert [e.name for e in grammar_entries() if e.name not in exercised] == []
