"""LeaderAndIsr, UpdateMetadata and StopReplica as the controller sends them (state-change.log).

Per-partition lines (TRACE) exist in every release but are only written by default up to 2.5;
2.6 added INFO summary lines per request (``Sending LeaderAndIsr request to broker 1 with 1
become-leader and 1 become-follower partitions``). The controller's lines about the brokers'
responses (errors included) are here too; the partition states the requests carry are in
``request_states``.

Each line yields one event. A summary line keeps its counts (``count``, ``become_leader_count``,
...) rather than being expanded into per-partition events: it does not name the partitions.
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, controller_event, event
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.families.request_states import (
    LEADER_AND_ISR_STATE_2_4,
    LEADER_AND_ISR_STATE_3_3,
    LEADER_AND_ISR_STATE_FIELDS,
    PARTITION_STATE_0_11,
    PARTITION_STATE_FIELDS,
    PARTITION_STATE_UPDATE_METADATA_1_0,
    ROLE,
    UPDATE_METADATA_STATE_2_4,
    UPDATE_METADATA_STATE_FIELDS,
)
from kafkactl_core.grammars.fragments import (
    ID,
    INTS,
    LICE,
    LICE_FIELDS,
    NODE_ID,
    NUM,
    SC_IDENT,
    SC_IDENT_OLD,
    TEXT,
    TP,
    TPB,
    coll,
)

ENTRIES: tuple[GrammarEntry, ...] = (
    # --- controller side: LeaderAndIsr ---
    controller_event(
        "leader_and_isr_sent/0.8",
        T.LEADER_AND_ISR_SENT,
        " LeaderAndIsr request (Leader:",
        f"{SC_IDENT_OLD}sending {ROLE} LeaderAndIsr request {LICE}(?: with"
        f" correlationId {NUM})? to broker {ID} for partition {TPB}",
        f"origin_broker controller_epoch role {LICE_FIELDS} correlation_id broker topic partition",
        before="1.0",
    ),
    controller_event(
        "leader_and_isr_sent/partition_state",
        T.LEADER_AND_ISR_SENT,
        " LeaderAndIsr request PartitionState(",
        f"{SC_IDENT}Sending {ROLE} LeaderAndIsr request"
        f" {PARTITION_STATE_0_11} to broker {ID} for partition {TP}",
        f"origin_broker controller_epoch role {PARTITION_STATE_FIELDS} broker topic partition",
        since="1.0",
        before="2.4",
    ),
    controller_event(
        "leader_and_isr_sent/generated_zk_version",
        T.LEADER_AND_ISR_SENT,
        " LeaderAndIsr request LeaderAndIsrPartitionState(",
        f"{SC_IDENT}Sending {ROLE} LeaderAndIsr request"
        rf" {LEADER_AND_ISR_STATE_2_4} to broker {ID} for partition [^ \n]+",
        "origin_broker controller_epoch role "
        + LEADER_AND_ISR_STATE_FIELDS.format(version="zk_version")
        + " broker",
        since="2.4",
        before="3.3",
    ),
    controller_event(
        "leader_and_isr_sent/generated_partition_epoch",
        T.LEADER_AND_ISR_SENT,
        " LeaderAndIsr request LeaderAndIsrPartitionState(",
        f"{SC_IDENT}Sending {ROLE} LeaderAndIsr request"
        rf" {LEADER_AND_ISR_STATE_3_3} to broker {ID} for partition [^ \n]+",
        "origin_broker controller_epoch role "
        + LEADER_AND_ISR_STATE_FIELDS.format(version="partition_epoch")
        + " broker",
        since="3.3",
    ),
    controller_event(
        "leader_and_isr_sent/summary",
        T.LEADER_AND_ISR_SENT,
        "Sending LeaderAndIsr request to broker ",
        f"{SC_IDENT}Sending LeaderAndIsr request to broker {ID} with"
        f" {NUM} become-leader and {NUM} become-follower partitions",
        "origin_broker controller_epoch broker become_leader_count become_follower_count",
        since="2.6",
    ),
    # --- controller side: UpdateMetadata ---
    controller_event(
        "update_metadata_sent/0.8",
        T.UPDATE_METADATA_SENT,
        " sending UpdateMetadata request (Leader:",
        f"{SC_IDENT_OLD}sending UpdateMetadata request {LICE} with"
        f" correlationId {NUM} to broker {ID} for partition {TPB}",
        f"origin_broker controller_epoch {LICE_FIELDS} correlation_id broker topic partition",
        before="0.10",
    ),
    controller_event(
        "update_metadata_sent/0.11",
        T.UPDATE_METADATA_SENT,
        " sending UpdateMetadata request (Leader:",
        f"{SC_IDENT_OLD}sending UpdateMetadata request {LICE}"
        f" to brokers {coll(INTS)} for partition {TP}",
        f"origin_broker controller_epoch {LICE_FIELDS} brokers topic partition",
        since="0.9",
        before="1.0",
    ),
    controller_event(
        "update_metadata_sent/partition_state",
        T.UPDATE_METADATA_SENT,
        "Sending UpdateMetadata request PartitionState(",
        f"{SC_IDENT}Sending UpdateMetadata request {PARTITION_STATE_UPDATE_METADATA_1_0}"
        f" to brokers {coll(INTS)} for partition {TP}",
        f"origin_broker controller_epoch {PARTITION_STATE_FIELDS} brokers topic partition",
        since="1.0",
        before="2.4",
    ),
    controller_event(
        "update_metadata_sent/generated",
        T.UPDATE_METADATA_SENT,
        "Sending UpdateMetadata request UpdateMetadataPartitionState(",
        f"{SC_IDENT}Sending UpdateMetadata request {UPDATE_METADATA_STATE_2_4}"
        rf" to brokers {coll(INTS)} for partition [^ \n]+",
        f"origin_broker controller_epoch {UPDATE_METADATA_STATE_FIELDS} brokers",
        since="2.4",
    ),
    controller_event(
        "update_metadata_sent/summary",
        T.UPDATE_METADATA_SENT,
        "Sending UpdateMetadata request to brokers ",
        f"{SC_IDENT}Sending UpdateMetadata request to brokers {coll(INTS)} for {NUM} partitions",
        "origin_broker controller_epoch brokers count",
        since="2.6",
    ),
    # --- controller side: StopReplica ---
    event(
        "stop_replica_sent/batch",
        T.STOP_REPLICA_SENT,
        "The stop replica request (delete = ",
        rf"The stop replica request \(delete = (true|false)\) sent to broker {ID} is {TEXT}",
        "delete_partitions broker detail",
        before="2.6",
    ),
    controller_event(
        "stop_replica_sent/summary",
        T.STOP_REPLICA_SENT,
        "Sending StopReplica request for ",
        f"{SC_IDENT}Sending StopReplica request for {NUM} replicas to broker {ID}",
        "origin_broker controller_epoch count broker",
        since="2.6",
    ),
    controller_event(
        "stop_replica_sent/summary_delete",
        T.STOP_REPLICA_SENT,
        "Sending StopReplica request (delete = ",
        rf"{SC_IDENT}Sending StopReplica request \(delete ="
        rf" (true|false)\) for {NUM} replicas to broker {ID}",
        "origin_broker controller_epoch delete_partitions count broker",
        since="2.6",
    ),
    controller_event(
        "stop_replica_sent/partition",
        T.STOP_REPLICA_SENT,
        " for partition ",
        f"{SC_IDENT}Sending StopReplica request {TEXT} to broker {ID} for partition {TP}",
        "origin_broker controller_epoch detail broker topic partition",
        since="2.6",
    ),
    controller_event(
        "request_not_sent",
        T.REQUEST_NOT_SENT,
        ", since it is offline.",
        r"\[Channel manager on controller ([0-9]+)\]: Not sending"
        rf" request {TEXT} to broker {ID}, since it is offline\.",
        "origin_broker detail broker",
    ),
    # --- controller side: responses ---
    controller_event(
        "response_received/0.8",
        T.RESPONSE_RECEIVED,
        " received response correlationId ",
        f"{SC_IDENT_OLD}received response correlationId {NUM} for"
        r" a request sent to broker id:([0-9]+),[^\n]*",
        "origin_broker controller_epoch correlation_id broker",
        before="0.10",
    ),
    controller_event(
        "response_received/0.10",
        T.RESPONSE_RECEIVED,
        " received response ",
        f"{SC_IDENT_OLD}received response {TEXT} for a request sent to broker {NODE_ID}",
        "origin_broker controller_epoch detail broker",
        since="0.10",
        before="1.0",
    ),
    controller_event(
        "response_received/1.0",
        T.RESPONSE_RECEIVED,
        "Received response ",
        f"{SC_IDENT}Received response {TEXT} for a request sent to broker {NODE_ID}",
        "origin_broker controller_epoch detail broker",
        since="1.0",
        before="1.1",
    ),
    controller_event(
        "response_received",
        T.RESPONSE_RECEIVED,
        "Received response ",
        f"{SC_IDENT}Received response {TEXT} for request ([A-Z_]+)"
        f" with correlation id {NUM} sent to broker {NODE_ID}",
        "origin_broker controller_epoch detail api correlation_id broker",
        since="1.1",
    ),
    # --- controller side: error responses ---
    controller_event(
        "response_received/error_1.0",
        T.RESPONSE_RECEIVED,
        " response ",
        r"\[Controller id=([0-9]+)\] Received error in"
        f" (LeaderAndIsr|UpdateMetadata) response {TEXT} from broker {ID}",
        "origin_broker api detail broker",
        since="1.0",
        before="2.5",
        constants={"phase": "error"},
    ),
    controller_event(
        "response_received/error",
        T.RESPONSE_RECEIVED,
        " response ",
        r"\[Controller id=([0-9]+)\] Received error ([A-Z_]+) in"
        f" (LeaderAndIsr|UpdateMetadata) response {TEXT} from broker {ID}",
        "origin_broker error api detail broker",
        since="2.5",
        constants={"phase": "error"},
    ),
)
