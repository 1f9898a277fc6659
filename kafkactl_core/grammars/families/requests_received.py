"""LeaderAndIsr, UpdateMetadata and StopReplica as brokers receive and apply them (state-change).

Per-partition lines (TRACE) are only written by default up to 2.5; 2.6 added INFO summary lines
per request (``Handling LeaderAndIsr request correlationId 3 from controller 1 for 2
partitions``). Besides the receipt of each request: the become-leader / become-follower steps,
the requests a broker ignores, its errors, and the KRaft brokers' lines about applying metadata
deltas. The partition states the requests carry are in ``request_states``.

Each line yields one event. A summary line keeps its counts (``count``, ...) rather than being
expanded into per-partition events: it does not name the partitions.
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, Mode, event
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.families.request_states import (
    LEADER_AND_ISR_STATE_2_4,
    LEADER_AND_ISR_STATE_3_3,
    LEADER_AND_ISR_STATE_FIELDS,
    PARTITION_STATE_0_11,
    PARTITION_STATE_FIELDS,
    PARTITION_STATE_INFO,
    PARTITION_STATE_INFO_FIELDS,
    PARTITION_STATE_UPDATE_METADATA_1_0,
    ROLE,
    UPDATE_METADATA_STATE_2_4,
    UPDATE_METADATA_STATE_FIELDS,
)
from kafkactl_core.grammars.fragments import (
    BROKER_ANY,
    BROKER_IDENT,
    ID,
    INT,
    INTS,
    NUM,
    REST,
    TP,
    TPB,
    TPX,
    escape_literal,
)

_CORRELATION_FROM_CONTROLLER = f" correlation id {NUM} from controller {ID} epoch {NUM}"
"""Three groups (correlation_id, controller_id, controller_epoch): a LeaderAndIsr's sender."""

_UPDATE_METADATA_FROM_CONTROLLER = (
    " in response to UpdateMetadata request sent by"
    f" controller {ID} epoch {NUM} with correlation id {NUM}"
)
"""Three groups (controller_id, controller_epoch, correlation_id): an UpdateMetadata's sender."""

_WITH_LEADER = f"(?: with leader {INT})?"
"""One group (leader): the optional ``with leader 2`` ending of become-transition lines."""


def _kraft_fetchers(name: str, phrase: str, phase: str, role: str) -> GrammarEntry:
    """A KRaft broker's ``<phrase>N partitions`` about its fetchers (ReplicaManager.applyDelta)."""
    return event(
        f"become_transition/kraft_{name}",
        T.BECOME_TRANSITION,
        phrase,
        f"{BROKER_IDENT}{escape_literal(phrase)}{NUM} partitions",
        "origin_broker count",
        since="3.0",
        mode=Mode.KRAFT,
        constants={"phase": phase, "role": role},
    )


ENTRIES: tuple[GrammarEntry, ...] = (
    # --- broker side: LeaderAndIsr received ---
    event(
        "leader_and_isr_received/0.8",
        T.LEADER_AND_ISR_RECEIVED,
        " received LeaderAndIsr request (LeaderAndIsrInfo:",
        "Broker ([0-9]+) received LeaderAndIsr request"
        f" {PARTITION_STATE_INFO}{_CORRELATION_FROM_CONTROLLER} for partition {TPB}",
        f"origin_broker {PARTITION_STATE_INFO_FIELDS} correlation_id"
        " controller_id controller_epoch topic partition",
        before="0.10",
    ),
    event(
        "leader_and_isr_received/0.11",
        T.LEADER_AND_ISR_RECEIVED,
        " received LeaderAndIsr request PartitionState(",
        "Broker ([0-9]+) received LeaderAndIsr request"
        f" {PARTITION_STATE_0_11}{_CORRELATION_FROM_CONTROLLER} for partition {TPB}",
        f"origin_broker {PARTITION_STATE_FIELDS} correlation_id"
        " controller_id controller_epoch topic partition",
        since="0.9",
        before="1.0",
    ),
    event(
        "leader_and_isr_received/partition_state",
        T.LEADER_AND_ISR_RECEIVED,
        "Received LeaderAndIsr request PartitionState(",
        f"{BROKER_IDENT}Received LeaderAndIsr request"
        f" {PARTITION_STATE_0_11}{_CORRELATION_FROM_CONTROLLER} for partition {TP}",
        f"origin_broker {PARTITION_STATE_FIELDS} correlation_id"
        " controller_id controller_epoch topic partition",
        since="1.0",
        before="2.4",
    ),
    event(
        "leader_and_isr_received/generated_zk_version",
        T.LEADER_AND_ISR_RECEIVED,
        "Received LeaderAndIsr request LeaderAndIsrPartitionState(",
        f"{BROKER_IDENT}Received LeaderAndIsr request"
        f" {LEADER_AND_ISR_STATE_2_4}{_CORRELATION_FROM_CONTROLLER}",
        "origin_broker "
        + LEADER_AND_ISR_STATE_FIELDS.format(version="zk_version")
        + " correlation_id controller_id controller_epoch",
        since="2.4",
        before="3.3",
    ),
    event(
        "leader_and_isr_received/generated_partition_epoch",
        T.LEADER_AND_ISR_RECEIVED,
        "Received LeaderAndIsr request LeaderAndIsrPartitionState(",
        f"{BROKER_IDENT}Received LeaderAndIsr request"
        f" {LEADER_AND_ISR_STATE_3_3}{_CORRELATION_FROM_CONTROLLER}",
        "origin_broker "
        + LEADER_AND_ISR_STATE_FIELDS.format(version="partition_epoch")
        + " correlation_id controller_id controller_epoch",
        since="3.3",
    ),
    event(
        "leader_and_isr_received/summary",
        T.LEADER_AND_ISR_RECEIVED,
        "Handling LeaderAndIsr request correlationId ",
        f"{BROKER_IDENT}Handling LeaderAndIsr request correlationId"
        f" {NUM} from controller {ID} for {NUM} partitions",
        "origin_broker correlation_id controller_id count",
        since="2.6",
        constants={"phase": "start"},
    ),
    event(
        "leader_and_isr_received/finished",
        T.LEADER_AND_ISR_RECEIVED,
        "Finished LeaderAndIsr request in ",
        f"{BROKER_IDENT}Finished LeaderAndIsr request in {NUM}ms"
        f" correlationId {NUM} from controller {ID} for {NUM} partitions",
        "origin_broker elapsed_ms correlation_id controller_id count",
        since="2.7",
        constants={"phase": "finished"},
    ),
    # --- broker side: become-leader / become-follower steps (0.8 - 3.9, TRACE until 2.6) ---
    event(
        "become_transition/start",
        T.BECOME_TRANSITION,
        "andling LeaderAndIsr request correlationId ",
        f"{BROKER_ANY}[Hh]andling LeaderAndIsr request correlationId {NUM} from controller"
        f" {ID} epoch {NUM} starting the {ROLE} transition for partition {TPX}{_WITH_LEADER}",
        "origin_broker correlation_id controller_id controller_epoch role topic partition leader",
        constants={"phase": "start"},
    ),
    event(
        "become_transition/stopped_fetchers",
        T.BECOME_TRANSITION,
        "topped fetchers as part of ",
        f"{BROKER_ANY}[Ss]topped fetchers as part of {ROLE} request from"
        f" controller {ID} epoch {NUM} with correlation id {NUM} for partition"
        rf" {TPX}(?: \(last update controller epoch {NUM}\))?(?: with leader {INT})?",
        "origin_broker role controller_id controller_epoch correlation_id topic partition "
        "state_controller_epoch leader",
        constants={"phase": "stopped_fetchers"},
    ),
    event(
        "become_transition/stopped_fetchers_leaders",
        T.BECOME_TRANSITION,
        "Stopped fetchers as part of LeaderAndIsr request correlationId ",
        f"{BROKER_IDENT}Stopped fetchers as part of LeaderAndIsr request"
        f" correlationId {NUM} from controller {ID} epoch {NUM} as"
        f" part of the become-leader transition for {NUM} partitions",
        "origin_broker correlation_id controller_id controller_epoch count",
        since="2.6",
        constants={"phase": "stopped_fetchers", "role": "become-leader"},
    ),
    event(
        "become_transition/stopped_fetchers_followers",
        T.BECOME_TRANSITION,
        "Stopped fetchers as part of become-follower request from controller ",
        f"{BROKER_IDENT}Stopped fetchers as part of become-follower request from"
        f" controller {ID} epoch {NUM} with correlation id {NUM} for {NUM} partitions",
        "origin_broker controller_id controller_epoch correlation_id count",
        since="2.6",
        constants={"phase": "stopped_fetchers", "role": "become-follower"},
    ),
    event(
        "become_transition/truncated",
        T.BECOME_TRANSITION,
        "runcated logs and checkpointed recovery boundaries for partition ",
        f"{BROKER_ANY}[Tt]runcated logs and checkpointed recovery boundaries"
        f" for partition {TPX} as part of become-follower request with"
        f" correlation id {NUM} from controller {ID} epoch {NUM}{_WITH_LEADER}",
        "origin_broker topic partition correlation_id controller_id controller_epoch leader",
        before="2.6",
        constants={"phase": "truncated", "role": "become-follower"},
    ),
    event(
        "become_transition/started_fetcher",
        T.BECOME_TRANSITION,
        "tarted fetcher to new leader as part of become-follower request from controller ",
        f"{BROKER_ANY}[Ss]tarted fetcher to new leader as part of become-follower request from"
        f" controller {ID} epoch {NUM} with correlation id {NUM} for partition {TPX}{_WITH_LEADER}",
        "origin_broker controller_id controller_epoch correlation_id topic partition leader",
        constants={"phase": "started_fetcher", "role": "become-follower"},
    ),
    event(
        "become_transition/completed",
        T.BECOME_TRANSITION,
        "ompleted LeaderAndIsr request correlationId ",
        f"{BROKER_ANY}[Cc]ompleted LeaderAndIsr request correlationId {NUM} from controller"
        f" {ID} epoch {NUM} for the {ROLE} transition for partition {TPX}{_WITH_LEADER}",
        "origin_broker correlation_id controller_id controller_epoch role topic partition leader",
        constants={"phase": "completed"},
    ),
    # --- broker side: LeaderAndIsr ignored ---
    event(
        "leader_and_isr_ignored/leader_epoch",
        T.LEADER_AND_ISR_IGNORED,
        "gnoring LeaderAndIsr request from controller ",
        f"{BROKER_ANY}[Ii]gnoring LeaderAndIsr request from controller {ID} with correlation"
        f" id {NUM} epoch {NUM} for partition {TPX} since its associated leader epoch"
        f" {INT} (is not higher than|is smaller than) the current leader epoch {INT}",
        "origin_broker controller_id correlation_id controller_epoch topic partition leader_epoch "
        "detail previous_leader_epoch",
    ),
    event(
        "leader_and_isr_ignored/same_leader_epoch",
        T.LEADER_AND_ISR_IGNORED,
        " matches the current leader epoch",
        f"{BROKER_IDENT}Ignoring LeaderAndIsr request from controller {ID}"
        f" with correlation id {NUM} epoch {NUM} for partition {TP} since its"
        f" associated leader epoch {INT} (matches the current leader epoch)",
        "origin_broker controller_id correlation_id controller_epoch topic partition leader_epoch "
        "detail",
        since="2.4",
    ),
    event(
        "leader_and_isr_ignored/not_a_replica",
        T.LEADER_AND_ISR_IGNORED,
        " as itself is not in assigned replica list ",
        f"{BROKER_ANY}[Ii]gnoring LeaderAndIsr request from controller"
        f" {ID} with correlation id {NUM} epoch {NUM} for partition"
        f" {TPX} as (itself is not in assigned replica list) {INTS}",
        "origin_broker controller_id correlation_id controller_epoch topic partition detail "
        "replicas",
    ),
    event(
        "leader_and_isr_ignored/stale_controller_epoch",
        T.LEADER_AND_ISR_IGNORED,
        " is old. Latest known controller epoch is ",
        f"{BROKER_ANY}[Ii]gnoring LeaderAndIsr request from controller"
        f" {ID} with correlation id {NUM} since its controller epoch"
        rf" {NUM} (is old)\. Latest known controller epoch is {NUM}",
        "origin_broker controller_id correlation_id controller_epoch detail state_controller_epoch",
    ),
    # --- broker side: UpdateMetadata received ---
    event(
        "update_metadata_received/0.8",
        T.UPDATE_METADATA_RECEIVED,
        " cached leader info (LeaderAndIsrInfo:",
        f"Broker ([0-9]+) cached leader info {PARTITION_STATE_INFO}"
        f" for partition {TPX}{_UPDATE_METADATA_FROM_CONTROLLER}",
        f"origin_broker {PARTITION_STATE_INFO_FIELDS} topic"
        " partition controller_id controller_epoch correlation_id",
        before="1.0",
        constants={"phase": "cached"},
    ),
    event(
        "update_metadata_received/partition_state",
        T.UPDATE_METADATA_RECEIVED,
        "Cached leader info PartitionState(",
        f"{BROKER_IDENT}Cached leader info {PARTITION_STATE_UPDATE_METADATA_1_0}"
        f" for partition {TP}{_UPDATE_METADATA_FROM_CONTROLLER}",
        f"origin_broker {PARTITION_STATE_FIELDS} topic partition"
        " controller_id controller_epoch correlation_id",
        since="1.0",
        before="2.4",
        constants={"phase": "cached"},
    ),
    event(
        "update_metadata_received/generated",
        T.UPDATE_METADATA_RECEIVED,
        "Cached leader info UpdateMetadataPartitionState(",
        f"{BROKER_IDENT}Cached leader info {UPDATE_METADATA_STATE_2_4}"
        rf" for partition [^ \n]+{_UPDATE_METADATA_FROM_CONTROLLER}",
        f"origin_broker {UPDATE_METADATA_STATE_FIELDS}"
        " controller_id controller_epoch correlation_id",
        since="2.4",
        constants={"phase": "cached"},
    ),
    event(
        "update_metadata_received/deleted",
        T.UPDATE_METADATA_RECEIVED,
        "eleted partition ",
        f"{BROKER_ANY}[Dd]eleted partition {TPX} from metadata cache in response to"
        f" UpdateMetadata request sent by controller {ID} epoch {NUM} with correlation id {NUM}",
        "origin_broker topic partition controller_id controller_epoch correlation_id",
        constants={"phase": "deleted"},
    ),
    event(
        "update_metadata_received/summary",
        T.UPDATE_METADATA_RECEIVED,
        " partitions from metadata cache in response to UpdateMetadata request",
        f"{BROKER_IDENT}Add {NUM} partitions and deleted {NUM} partitions"
        " from metadata cache in response to UpdateMetadata request"
        f" sent by controller {ID} epoch {NUM} with correlation id {NUM}",
        "origin_broker count deleted_count controller_id controller_epoch correlation_id",
        since="2.6",
        constants={"phase": "summary"},
    ),
    # --- broker side: StopReplica received ---
    event(
        "stop_replica_received/handling",
        T.STOP_REPLICA_RECEIVED,
        "andling stop replica (delete=",
        rf"{BROKER_ANY}[Hh]andling stop replica \(delete=(true|false)\) for partition {TPX}",
        "origin_broker delete_partitions topic partition",
        before="2.6",
        constants={"phase": "start"},
    ),
    event(
        "stop_replica_received/finished",
        T.STOP_REPLICA_RECEIVED,
        "inished handling stop replica (delete=",
        f"{BROKER_ANY}[Ff]inished handling stop replica"
        rf" \(delete=(true|false)\) for partition {TPX}",
        "origin_broker delete_partitions topic partition",
        before="2.6",
        constants={"phase": "finished"},
    ),
    event(
        "stop_replica_received/storage_error",
        T.STOP_REPLICA_RECEIVED,
        " due to storage exception",
        rf"{BROKER_ANY}[Ii]gnoring stop replica \(delete=(true|false)\)"
        f" for partition {TPX} due to storage exception",
        "origin_broker delete_partitions topic partition",
        before="2.6",
        constants={"phase": "failed", "error": "storage_exception"},
    ),
    event(
        "stop_replica_received/no_replica",
        T.STOP_REPLICA_RECEIVED,
        " as replica doesn't exist on broker",
        rf"{BROKER_ANY}[Ii]gnoring stop replica \(delete=(true|false)\)"
        f" for partition {TPX} as replica doesn't exist on broker",
        "origin_broker delete_partitions topic partition",
        before="2.6",
        constants={"phase": "skipped"},
    ),
    event(
        "stop_replica_received/summary",
        T.STOP_REPLICA_RECEIVED,
        "Handling StopReplica request correlationId ",
        f"{BROKER_IDENT}Handling StopReplica request correlationId"
        f" {NUM} from controller {ID} for {NUM} partitions",
        "origin_broker correlation_id controller_id count",
        since="2.6",
        constants={"phase": "start"},
    ),
    # --- broker side: errors and skips around LeaderAndIsr / StopReplica ---
    event(
        "leader_and_isr_received/error",
        T.LEADER_AND_ISR_RECEIVED,
        "Error while processing LeaderAndIsr request ",
        f"{BROKER_IDENT}Error while processing LeaderAndIsr request (?:with )?correlationId"
        f" {NUM} received from controller {ID} epoch {NUM}(?: for partition {TP})?{REST}",
        "origin_broker correlation_id controller_id controller_epoch topic partition",
        since="1.0",
        constants={"phase": "error"},
    ),
    event(
        "become_transition/skipped",
        T.BECOME_TRANSITION,
        " state change",
        f"{BROKER_ANY}[Ss]kipped the (become-leader|become-follower|adding-fetcher step of"
        f" the become-follower|update topic ID step of the become-follower) state change{REST}",
        "origin_broker role",
        constants={"phase": "skipped"},
    ),
    event(
        "become_transition/leader_unavailable",
        T.BECOME_TRANSITION,
        " but cannot become follower since the new leader ",
        f"{BROKER_ANY}(?:[Rr]eceived LeaderAndIsrRequest|received LeaderAndIsrRequest){REST}"
        rf" but cannot become follower since the new leader {INT} is unavailable\.?",
        "origin_broker leader",
        constants={"phase": "failed", "role": "become-follower"},
    ),
    event(
        "stop_replica_received/stale_controller_epoch",
        T.STOP_REPLICA_RECEIVED,
        "Latest known controller epoch is ",
        f"{BROKER_ANY}(?:[Rr]eceived stop replica request from an old controller epoch"
        f" {NUM}|Ignoring StopReplica request from controller [0-9]+ with correlation id [0-9]+"
        rf" since its controller epoch [0-9]+ is old)\.? ?Latest known controller epoch is {NUM}",
        "origin_broker controller_epoch state_controller_epoch",
        constants={"phase": "ignored", "error": "stale_controller_epoch"},
    ),
    event(
        "stop_replica_received/stale_leader_epoch",
        T.STOP_REPLICA_RECEIVED,
        "Ignoring StopReplica request (delete=",
        rf"{BROKER_IDENT}Ignoring StopReplica request \(delete=(?:true|false)\) from controller"
        f" {ID} with correlation id {NUM} epoch {NUM} for partition {TP} since its associated"
        f" leader epoch {INT} (?:matches|is smaller than) the current leader epoch{REST}",
        "origin_broker controller_id correlation_id controller_epoch topic partition leader_epoch",
        since="2.6",
        constants={"phase": "ignored"},
    ),
    # --- KRaft brokers' state-change.log (ReplicaManager.applyDelta) ---
    event(
        "become_transition/kraft_transitioning",
        T.BECOME_TRANSITION,
        " partition(s) to local ",
        rf"{BROKER_IDENT}Transitioning {NUM} partition\(s\) to local (leaders|followers)\.",
        "origin_broker count role",
        since="3.0",
        mode=Mode.KRAFT,
        constants={"phase": "start"},
    ),
    _kraft_fetchers(
        "started_fetchers_followers",
        "Started fetchers as part of become-follower for ",
        "started_fetchers",
        "become-follower",
    ),
    _kraft_fetchers(
        "stopped_fetchers_followers",
        "Stopped fetchers as part of become-follower for ",
        "stopped_fetchers",
        "become-follower",
    ),
    _kraft_fetchers(
        "stopped_fetchers_shutdown",
        "Stopped fetchers as part of controlled shutdown for ",
        "stopped_fetchers",
        "controlled-shutdown",
    ),
    event(
        "become_transition/kraft_created",
        T.BECOME_TRANSITION,
        "Creating new partition ",
        f"{BROKER_IDENT}Creating new partition {TP} with topic id ([A-Za-z0-9_-]+){REST}",
        "origin_broker topic partition topic_id",
        since="3.0",
        mode=Mode.KRAFT,
        constants={"phase": "created"},
    ),
    event(
        "stop_replica_received/kraft_deleting",
        T.STOP_REPLICA_RECEIVED,
        " partition(s).",
        rf"{BROKER_IDENT}Deleting {NUM} partition\(s\)\.",
        "origin_broker count",
        since="3.0",
        mode=Mode.KRAFT,
        constants={"phase": "kraft_delete", "delete_partitions": True},
    ),
)
