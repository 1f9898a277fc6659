"""LeaderAndIsr, UpdateMetadata and StopReplica between controller and brokers (state-change.log).

Per-partition lines (TRACE) exist in every release but are only written by default up to 2.5;
2.6 added INFO summary lines per request (``Sending LeaderAndIsr request to broker 1 with 1
become-leader and 1 become-follower partitions``, ``Handling LeaderAndIsr request correlationId 3
from controller 1 for 2 partitions``). The partition state a request carries renders as
``(Leader:1,ISR:1,2,...)`` up to 0.11 (controller side), ``PartitionState(controllerEpoch=7, ...)``
0.11 - 2.3 and the generated ``LeaderAndIsrPartitionState(topicName='orders', ...)`` /
``UpdateMetadataPartitionState(...)`` from 2.4 (FORMATS.md 3.3, 4.10).

Each line yields one event. A summary line keeps its counts (``count``, ``become_leader_count``,
...) rather than being expanded into per-partition events: it does not name the partitions.
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, Mode, event
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.fragments import (
    BROKER_ANY,
    BROKER_IDENT,
    ID,
    INT,
    INTS,
    LICE,
    LICE_FIELDS,
    NUM,
    REST,
    SC_IDENT,
    TEXT,
    TOPIC,
    TP,
    TPB,
    TPX,
    coll,
)

_C = "controller_id=origin_broker"
_OLD = r"Controller ([0-9]+) epoch ([0-9]+) "
_ROLE = "(become-leader|become-follower)"
_BOOL = "(?:true|false)"

_PS_0_11 = (
    r"PartitionState\(controllerEpoch="
    + NUM
    + ", leader="
    + INT
    + ", leaderEpoch="
    + INT
    + ", isr="
    + INTS
    + ", zkVersion="
    + INT
    + ", replicas="
    + INTS
    + "(?:, isNew="
    + _BOOL
    + r")?\)"
)
_PS_FIELDS = "state_controller_epoch leader leader_epoch isr zk_version replicas"

_PS_UM_1_0 = (
    r"PartitionState\(controllerEpoch="
    + NUM
    + ", leader="
    + INT
    + ", leaderEpoch="
    + INT
    + r", isr=\["
    + INTS
    + r"\], zkVersion="
    + INT
    + r", replicas=\["
    + INTS
    + r"\], offlineReplicas=\[[0-9, -]*\]\)"
)

_LAIPS_HEAD = (
    r"LeaderAndIsrPartitionState\(topicName='"
    + TOPIC
    + "', partitionIndex="
    + NUM
    + ", controllerEpoch="
    + NUM
    + ", leader="
    + INT
    + ", leaderEpoch="
    + INT
    + r", isr=\["
    + INTS
    + r"\], "
)
_LAIPS_TAIL = (
    r", replicas=\["
    + INTS
    + r"\], addingReplicas=\["
    + INTS
    + r"\], removingReplicas=\["
    + INTS
    + r"\], isNew="
    + _BOOL
)
_LAIPS_2_4 = _LAIPS_HEAD + "zkVersion=" + INT + _LAIPS_TAIL + r"\)"
_LAIPS_3_3 = (
    _LAIPS_HEAD + "partitionEpoch=" + INT + _LAIPS_TAIL + r", leaderRecoveryState=-?[0-9]+\)"
)
_LAIPS_FIELDS = (
    "topic partition state_controller_epoch leader leader_epoch isr {version} replicas "
    "adding_replicas removing_replicas"
)

_UMPS_2_4 = (
    r"UpdateMetadataPartitionState\(topicName='"
    + TOPIC
    + "', partitionIndex="
    + NUM
    + ", controllerEpoch="
    + NUM
    + ", leader="
    + INT
    + ", leaderEpoch="
    + INT
    + r", isr=\["
    + INTS
    + r"\], zkVersion="
    + INT
    + r", replicas=\["
    + INTS
    + r"\], offlineReplicas=\[[0-9, -]*\]\)"
)
_UMPS_FIELDS = "topic partition state_controller_epoch leader leader_epoch isr zk_version replicas"

_OLD_PSI = (
    r"\(LeaderAndIsrInfo:" + LICE + r",ReplicationFactor:[0-9]+\),AllReplicas:" + INTS + r"\)"
)
"""0.8 - 0.11 ``PartitionStateInfo`` (parentheses unbalanced in Kafka's own toString)."""
_OLD_PSI_FIELDS = LICE_FIELDS + " replicas"

_NODE_ID = r"[^\n]*? \(id: ([0-9]+) rack: [^)\n]*\)"

ENTRIES: tuple[GrammarEntry, ...] = (
    # --- controller side: LeaderAndIsr ---
    event(
        "leader_and_isr_sent/0.8",
        T.LEADER_AND_ISR_SENT,
        " LeaderAndIsr request (Leader:",
        _OLD
        + "sending "
        + _ROLE
        + " LeaderAndIsr request "
        + LICE
        + "(?: with correlationId "
        + NUM
        + ")? to broker "
        + ID
        + " for partition "
        + TPB,
        "origin_broker controller_epoch role " + LICE_FIELDS + " correlation_id broker topic "
        "partition",
        before="1.0",
        copies=_C,
    ),
    event(
        "leader_and_isr_sent/partition_state",
        T.LEADER_AND_ISR_SENT,
        " LeaderAndIsr request PartitionState(",
        SC_IDENT
        + "Sending "
        + _ROLE
        + " LeaderAndIsr request "
        + _PS_0_11
        + " to broker "
        + ID
        + " for partition "
        + TP,
        "origin_broker controller_epoch role " + _PS_FIELDS + " broker topic partition",
        since="1.0",
        before="2.4",
        copies=_C,
    ),
    event(
        "leader_and_isr_sent/generated_zk_version",
        T.LEADER_AND_ISR_SENT,
        " LeaderAndIsr request LeaderAndIsrPartitionState(",
        SC_IDENT
        + "Sending "
        + _ROLE
        + " LeaderAndIsr request "
        + _LAIPS_2_4
        + " to broker "
        + ID
        + " for partition [^ \\n]+",
        "origin_broker controller_epoch role "
        + _LAIPS_FIELDS.format(version="zk_version")
        + " broker",
        since="2.4",
        before="3.3",
        copies=_C,
    ),
    event(
        "leader_and_isr_sent/generated_partition_epoch",
        T.LEADER_AND_ISR_SENT,
        " LeaderAndIsr request LeaderAndIsrPartitionState(",
        SC_IDENT
        + "Sending "
        + _ROLE
        + " LeaderAndIsr request "
        + _LAIPS_3_3
        + " to broker "
        + ID
        + " for partition [^ \\n]+",
        "origin_broker controller_epoch role "
        + _LAIPS_FIELDS.format(version="partition_epoch")
        + " broker",
        since="3.3",
        copies=_C,
    ),
    event(
        "leader_and_isr_sent/summary",
        T.LEADER_AND_ISR_SENT,
        "Sending LeaderAndIsr request to broker ",
        SC_IDENT
        + "Sending LeaderAndIsr request to broker "
        + ID
        + " with "
        + NUM
        + " become-leader and "
        + NUM
        + " become-follower partitions",
        "origin_broker controller_epoch broker become_leader_count become_follower_count",
        since="2.6",
        copies=_C,
    ),
    # --- controller side: UpdateMetadata ---
    event(
        "update_metadata_sent/0.8",
        T.UPDATE_METADATA_SENT,
        " sending UpdateMetadata request (Leader:",
        _OLD
        + "sending UpdateMetadata request "
        + LICE
        + " with correlationId "
        + NUM
        + " to broker "
        + ID
        + " for partition "
        + TPB,
        "origin_broker controller_epoch " + LICE_FIELDS + " correlation_id broker topic partition",
        before="0.10",
        copies=_C,
    ),
    event(
        "update_metadata_sent/0.11",
        T.UPDATE_METADATA_SENT,
        " sending UpdateMetadata request (Leader:",
        _OLD
        + "sending UpdateMetadata request "
        + LICE
        + " to brokers "
        + coll(INTS)
        + " for partition "
        + TP,
        "origin_broker controller_epoch " + LICE_FIELDS + " brokers topic partition",
        since="0.9",
        before="1.0",
        copies=_C,
    ),
    event(
        "update_metadata_sent/partition_state",
        T.UPDATE_METADATA_SENT,
        "Sending UpdateMetadata request PartitionState(",
        SC_IDENT
        + "Sending UpdateMetadata request "
        + _PS_UM_1_0
        + " to brokers "
        + coll(INTS)
        + " for partition "
        + TP,
        "origin_broker controller_epoch " + _PS_FIELDS + " brokers topic partition",
        since="1.0",
        before="2.4",
        copies=_C,
    ),
    event(
        "update_metadata_sent/generated",
        T.UPDATE_METADATA_SENT,
        "Sending UpdateMetadata request UpdateMetadataPartitionState(",
        SC_IDENT
        + "Sending UpdateMetadata request "
        + _UMPS_2_4
        + " to brokers "
        + coll(INTS)
        + " for partition [^ \\n]+",
        "origin_broker controller_epoch " + _UMPS_FIELDS + " brokers",
        since="2.4",
        copies=_C,
    ),
    event(
        "update_metadata_sent/summary",
        T.UPDATE_METADATA_SENT,
        "Sending UpdateMetadata request to brokers ",
        SC_IDENT
        + "Sending UpdateMetadata request to brokers "
        + coll(INTS)
        + " for "
        + NUM
        + " partitions",
        "origin_broker controller_epoch brokers count",
        since="2.6",
        copies=_C,
    ),
    # --- controller side: StopReplica ---
    event(
        "stop_replica_sent/batch",
        T.STOP_REPLICA_SENT,
        "The stop replica request (delete = ",
        r"The stop replica request \(delete = (true|false)\) sent to broker " + ID + " is " + TEXT,
        "delete_partitions broker detail",
        before="2.6",
    ),
    event(
        "stop_replica_sent/summary",
        T.STOP_REPLICA_SENT,
        "Sending StopReplica request for ",
        SC_IDENT + "Sending StopReplica request for " + NUM + " replicas to broker " + ID,
        "origin_broker controller_epoch count broker",
        since="2.6",
        copies=_C,
    ),
    event(
        "stop_replica_sent/summary_delete",
        T.STOP_REPLICA_SENT,
        "Sending StopReplica request (delete = ",
        SC_IDENT
        + r"Sending StopReplica request \(delete = (true|false)\) for "
        + NUM
        + " replicas to broker "
        + ID,
        "origin_broker controller_epoch delete_partitions count broker",
        since="2.6",
        copies=_C,
    ),
    event(
        "stop_replica_sent/partition",
        T.STOP_REPLICA_SENT,
        " for partition ",
        SC_IDENT
        + "Sending StopReplica request "
        + TEXT
        + " to broker "
        + ID
        + " for partition "
        + TP,
        "origin_broker controller_epoch detail broker topic partition",
        since="2.6",
        copies=_C,
    ),
    event(
        "request_not_sent",
        T.REQUEST_NOT_SENT,
        ", since it is offline.",
        r"\[Channel manager on controller ([0-9]+)\]: Not sending request "
        + TEXT
        + " to broker "
        + ID
        + r", since it is offline\.",
        "origin_broker detail broker",
        copies=_C,
    ),
    # --- controller side: responses ---
    event(
        "response_received/0.8",
        T.RESPONSE_RECEIVED,
        " received response correlationId ",
        _OLD
        + "received response correlationId "
        + NUM
        + " for a request sent to broker id:([0-9]+),[^\\n]*",
        "origin_broker controller_epoch correlation_id broker",
        before="0.10",
        copies=_C,
    ),
    event(
        "response_received/0.10",
        T.RESPONSE_RECEIVED,
        " received response ",
        _OLD + "received response " + TEXT + " for a request sent to broker " + _NODE_ID,
        "origin_broker controller_epoch detail broker",
        since="0.10",
        before="1.0",
        copies=_C,
    ),
    event(
        "response_received/1.0",
        T.RESPONSE_RECEIVED,
        "Received response ",
        SC_IDENT + "Received response " + TEXT + " for a request sent to broker " + _NODE_ID,
        "origin_broker controller_epoch detail broker",
        since="1.0",
        before="1.1",
        copies=_C,
    ),
    event(
        "response_received",
        T.RESPONSE_RECEIVED,
        "Received response ",
        SC_IDENT
        + "Received response "
        + TEXT
        + " for request ([A-Z_]+) with correlation id "
        + NUM
        + " sent to broker "
        + _NODE_ID,
        "origin_broker controller_epoch detail api correlation_id broker",
        since="1.1",
        copies=_C,
    ),
    # --- broker side: LeaderAndIsr received ---
    event(
        "leader_and_isr_received/0.8",
        T.LEADER_AND_ISR_RECEIVED,
        " received LeaderAndIsr request (LeaderAndIsrInfo:",
        r"Broker ([0-9]+) received LeaderAndIsr request "
        + _OLD_PSI
        + " correlation id "
        + NUM
        + " from controller "
        + ID
        + " epoch "
        + NUM
        + " for partition "
        + TPB,
        "origin_broker " + _OLD_PSI_FIELDS + " correlation_id controller_id controller_epoch "
        "topic partition",
        before="0.10",
    ),
    event(
        "leader_and_isr_received/0.11",
        T.LEADER_AND_ISR_RECEIVED,
        " received LeaderAndIsr request PartitionState(",
        r"Broker ([0-9]+) received LeaderAndIsr request "
        + _PS_0_11
        + " correlation id "
        + NUM
        + " from controller "
        + ID
        + " epoch "
        + NUM
        + " for partition "
        + TPB,
        "origin_broker " + _PS_FIELDS + " correlation_id controller_id controller_epoch topic "
        "partition",
        since="0.9",
        before="1.0",
    ),
    event(
        "leader_and_isr_received/partition_state",
        T.LEADER_AND_ISR_RECEIVED,
        "Received LeaderAndIsr request PartitionState(",
        BROKER_IDENT
        + "Received LeaderAndIsr request "
        + _PS_0_11
        + " correlation id "
        + NUM
        + " from controller "
        + ID
        + " epoch "
        + NUM
        + " for partition "
        + TP,
        "origin_broker " + _PS_FIELDS + " correlation_id controller_id controller_epoch topic "
        "partition",
        since="1.0",
        before="2.4",
    ),
    event(
        "leader_and_isr_received/generated_zk_version",
        T.LEADER_AND_ISR_RECEIVED,
        "Received LeaderAndIsr request LeaderAndIsrPartitionState(",
        BROKER_IDENT
        + "Received LeaderAndIsr request "
        + _LAIPS_2_4
        + " correlation id "
        + NUM
        + " from controller "
        + ID
        + " epoch "
        + NUM,
        "origin_broker "
        + _LAIPS_FIELDS.format(version="zk_version")
        + " correlation_id controller_id controller_epoch",
        since="2.4",
        before="3.3",
    ),
    event(
        "leader_and_isr_received/generated_partition_epoch",
        T.LEADER_AND_ISR_RECEIVED,
        "Received LeaderAndIsr request LeaderAndIsrPartitionState(",
        BROKER_IDENT
        + "Received LeaderAndIsr request "
        + _LAIPS_3_3
        + " correlation id "
        + NUM
        + " from controller "
        + ID
        + " epoch "
        + NUM,
        "origin_broker "
        + _LAIPS_FIELDS.format(version="partition_epoch")
        + " correlation_id controller_id controller_epoch",
        since="3.3",
    ),
    event(
        "leader_and_isr_received/summary",
        T.LEADER_AND_ISR_RECEIVED,
        "Handling LeaderAndIsr request correlationId ",
        BROKER_IDENT
        + "Handling LeaderAndIsr request correlationId "
        + NUM
        + " from controller "
        + ID
        + " for "
        + NUM
        + " partitions",
        "origin_broker correlation_id controller_id count",
        since="2.6",
        constants={"phase": "start"},
    ),
    event(
        "leader_and_isr_received/finished",
        T.LEADER_AND_ISR_RECEIVED,
        "Finished LeaderAndIsr request in ",
        BROKER_IDENT
        + "Finished LeaderAndIsr request in "
        + NUM
        + "ms correlationId "
        + NUM
        + " from controller "
        + ID
        + " for "
        + NUM
        + " partitions",
        "origin_broker elapsed_ms correlation_id controller_id count",
        since="2.7",
        constants={"phase": "finished"},
    ),
    # --- broker side: become-leader / become-follower steps (0.8 - 3.9, TRACE until 2.6) ---
    event(
        "become_transition/start",
        T.BECOME_TRANSITION,
        "andling LeaderAndIsr request correlationId ",
        BROKER_ANY
        + "[Hh]andling LeaderAndIsr request correlationId "
        + NUM
        + " from controller "
        + ID
        + " epoch "
        + NUM
        + " starting the "
        + _ROLE
        + " transition for partition "
        + TPX
        + "(?: with leader "
        + INT
        + ")?",
        "origin_broker correlation_id controller_id controller_epoch role topic partition leader",
        constants={"phase": "start"},
    ),
    event(
        "become_transition/stopped_fetchers",
        T.BECOME_TRANSITION,
        "topped fetchers as part of ",
        BROKER_ANY
        + "[Ss]topped fetchers as part of "
        + _ROLE
        + " request from controller "
        + ID
        + " epoch "
        + NUM
        + " with correlation id "
        + NUM
        + " for partition "
        + TPX
        + r"(?: \(last update controller epoch "
        + NUM
        + r"\))?(?: with leader "
        + INT
        + ")?",
        "origin_broker role controller_id controller_epoch correlation_id topic partition "
        "state_controller_epoch leader",
        constants={"phase": "stopped_fetchers"},
    ),
    event(
        "become_transition/stopped_fetchers_leaders",
        T.BECOME_TRANSITION,
        "Stopped fetchers as part of LeaderAndIsr request correlationId ",
        BROKER_IDENT
        + "Stopped fetchers as part of LeaderAndIsr request correlationId "
        + NUM
        + " from controller "
        + ID
        + " epoch "
        + NUM
        + " as part of the become-leader transition "
        "for " + NUM + " partitions",
        "origin_broker correlation_id controller_id controller_epoch count",
        since="2.6",
        constants={"phase": "stopped_fetchers", "role": "become-leader"},
    ),
    event(
        "become_transition/stopped_fetchers_followers",
        T.BECOME_TRANSITION,
        "Stopped fetchers as part of become-follower request from controller ",
        BROKER_IDENT
        + "Stopped fetchers as part of become-follower request from controller "
        + ID
        + " epoch "
        + NUM
        + " with correlation id "
        + NUM
        + " for "
        + NUM
        + " partitions",
        "origin_broker controller_id controller_epoch correlation_id count",
        since="2.6",
        constants={"phase": "stopped_fetchers", "role": "become-follower"},
    ),
    event(
        "become_transition/truncated",
        T.BECOME_TRANSITION,
        "runcated logs and checkpointed recovery boundaries for partition ",
        BROKER_ANY
        + "[Tt]runcated logs and checkpointed recovery boundaries for partition "
        + TPX
        + " as part of become-follower request with correlation id "
        + NUM
        + " from controller "
        + ID
        + " epoch "
        + NUM
        + "(?: with leader "
        + INT
        + ")?",
        "origin_broker topic partition correlation_id controller_id controller_epoch leader",
        before="2.6",
        constants={"phase": "truncated", "role": "become-follower"},
    ),
    event(
        "become_transition/started_fetcher",
        T.BECOME_TRANSITION,
        "tarted fetcher to new leader as part of become-follower request from controller ",
        BROKER_ANY + "[Ss]tarted fetcher to new leader as part of become-follower request from "
        "controller "
        + ID
        + " epoch "
        + NUM
        + " with correlation id "
        + NUM
        + " for partition "
        + TPX
        + "(?: with leader "
        + INT
        + ")?",
        "origin_broker controller_id controller_epoch correlation_id topic partition leader",
        constants={"phase": "started_fetcher", "role": "become-follower"},
    ),
    event(
        "become_transition/completed",
        T.BECOME_TRANSITION,
        "ompleted LeaderAndIsr request correlationId ",
        BROKER_ANY
        + "[Cc]ompleted LeaderAndIsr request correlationId "
        + NUM
        + " from controller "
        + ID
        + " epoch "
        + NUM
        + " for the "
        + _ROLE
        + " transition for partition "
        + TPX
        + "(?: with leader "
        + INT
        + ")?",
        "origin_broker correlation_id controller_id controller_epoch role topic partition leader",
        constants={"phase": "completed"},
    ),
    # --- broker side: LeaderAndIsr ignored ---
    event(
        "leader_and_isr_ignored/leader_epoch",
        T.LEADER_AND_ISR_IGNORED,
        "gnoring LeaderAndIsr request from controller ",
        BROKER_ANY
        + "[Ii]gnoring LeaderAndIsr request from controller "
        + ID
        + " with correlation id "
        + NUM
        + " epoch "
        + NUM
        + " for partition "
        + TPX
        + " since its associated leader epoch "
        + INT
        + " (is not higher than|is smaller than) the current leader epoch "
        + INT,
        "origin_broker controller_id correlation_id controller_epoch topic partition leader_epoch "
        "detail previous_leader_epoch",
    ),
    event(
        "leader_and_isr_ignored/same_leader_epoch",
        T.LEADER_AND_ISR_IGNORED,
        " matches the current leader epoch",
        BROKER_IDENT
        + "Ignoring LeaderAndIsr request from controller "
        + ID
        + " with correlation id "
        + NUM
        + " epoch "
        + NUM
        + " for partition "
        + TP
        + " since its associated leader epoch "
        + INT
        + " (matches the current leader epoch)",
        "origin_broker controller_id correlation_id controller_epoch topic partition leader_epoch "
        "detail",
        since="2.4",
    ),
    event(
        "leader_and_isr_ignored/not_a_replica",
        T.LEADER_AND_ISR_IGNORED,
        " as itself is not in assigned replica list ",
        BROKER_ANY
        + "[Ii]gnoring LeaderAndIsr request from controller "
        + ID
        + " with correlation id "
        + NUM
        + " epoch "
        + NUM
        + " for partition "
        + TPX
        + " as (itself is not in assigned replica list) "
        + INTS,
        "origin_broker controller_id correlation_id controller_epoch topic partition detail "
        "replicas",
    ),
    event(
        "leader_and_isr_ignored/stale_controller_epoch",
        T.LEADER_AND_ISR_IGNORED,
        " is old. Latest known controller epoch is ",
        BROKER_ANY
        + "[Ii]gnoring LeaderAndIsr request from controller "
        + ID
        + " with correlation id "
        + NUM
        + " since its controller epoch "
        + NUM
        + r" (is old)\. Latest known controller epoch is "
        + NUM,
        "origin_broker controller_id correlation_id controller_epoch detail state_controller_epoch",
    ),
    # --- broker side: UpdateMetadata received ---
    event(
        "update_metadata_received/0.8",
        T.UPDATE_METADATA_RECEIVED,
        " cached leader info (LeaderAndIsrInfo:",
        r"Broker ([0-9]+) cached leader info "
        + _OLD_PSI
        + " for partition "
        + TPX
        + " in response to UpdateMetadata request sent by controller "
        + ID
        + " epoch "
        + NUM
        + " with correlation id "
        + NUM,
        "origin_broker " + _OLD_PSI_FIELDS + " topic partition controller_id controller_epoch "
        "correlation_id",
        before="1.0",
        constants={"phase": "cached"},
    ),
    event(
        "update_metadata_received/partition_state",
        T.UPDATE_METADATA_RECEIVED,
        "Cached leader info PartitionState(",
        BROKER_IDENT
        + "Cached leader info "
        + _PS_UM_1_0
        + " for partition "
        + TP
        + " in response to UpdateMetadata request sent by controller "
        + ID
        + " epoch "
        + NUM
        + " with correlation id "
        + NUM,
        "origin_broker " + _PS_FIELDS + " topic partition controller_id controller_epoch "
        "correlation_id",
        since="1.0",
        before="2.4",
        constants={"phase": "cached"},
    ),
    event(
        "update_metadata_received/generated",
        T.UPDATE_METADATA_RECEIVED,
        "Cached leader info UpdateMetadataPartitionState(",
        BROKER_IDENT
        + "Cached leader info "
        + _UMPS_2_4
        + " for partition [^ \\n]+"
        + " in response to UpdateMetadata request sent by controller "
        + ID
        + " epoch "
        + NUM
        + " with correlation id "
        + NUM,
        "origin_broker " + _UMPS_FIELDS + " controller_id controller_epoch correlation_id",
        since="2.4",
        constants={"phase": "cached"},
    ),
    event(
        "update_metadata_received/deleted",
        T.UPDATE_METADATA_RECEIVED,
        "eleted partition ",
        BROKER_ANY + "[Dd]eleted partition " + TPX + " from metadata cache in response to "
        "UpdateMetadata request sent by controller "
        + ID
        + " epoch "
        + NUM
        + " with correlation id "
        + NUM,
        "origin_broker topic partition controller_id controller_epoch correlation_id",
        constants={"phase": "deleted"},
    ),
    event(
        "update_metadata_received/summary",
        T.UPDATE_METADATA_RECEIVED,
        " partitions from metadata cache in response to UpdateMetadata request",
        BROKER_IDENT + "Add " + NUM + " partitions and deleted " + NUM + " partitions from "
        "metadata cache in response to UpdateMetadata request sent by controller "
        + ID
        + " epoch "
        + NUM
        + " with correlation id "
        + NUM,
        "origin_broker count deleted_count controller_id controller_epoch correlation_id",
        since="2.6",
        constants={"phase": "summary"},
    ),
    # --- broker side: StopReplica received ---
    event(
        "stop_replica_received/handling",
        T.STOP_REPLICA_RECEIVED,
        "andling stop replica (delete=",
        BROKER_ANY + r"[Hh]andling stop replica \(delete=(true|false)\) for partition " + TPX,
        "origin_broker delete_partitions topic partition",
        before="2.6",
        constants={"phase": "start"},
    ),
    event(
        "stop_replica_received/finished",
        T.STOP_REPLICA_RECEIVED,
        "inished handling stop replica (delete=",
        BROKER_ANY
        + r"[Ff]inished handling stop replica \(delete=(true|false)\) for partition "
        + TPX,
        "origin_broker delete_partitions topic partition",
        before="2.6",
        constants={"phase": "finished"},
    ),
    event(
        "stop_replica_received/storage_error",
        T.STOP_REPLICA_RECEIVED,
        " due to storage exception",
        BROKER_ANY
        + r"[Ii]gnoring stop replica \(delete=(true|false)\) for partition "
        + TPX
        + " due to storage exception",
        "origin_broker delete_partitions topic partition",
        before="2.6",
        constants={"phase": "failed", "error": "storage_exception"},
    ),
    event(
        "stop_replica_received/no_replica",
        T.STOP_REPLICA_RECEIVED,
        " as replica doesn't exist on broker",
        BROKER_ANY
        + r"[Ii]gnoring stop replica \(delete=(true|false)\) for partition "
        + TPX
        + " as replica doesn't exist on broker",
        "origin_broker delete_partitions topic partition",
        before="2.6",
        constants={"phase": "skipped"},
    ),
    event(
        "stop_replica_received/summary",
        T.STOP_REPLICA_RECEIVED,
        "Handling StopReplica request correlationId ",
        BROKER_IDENT
        + "Handling StopReplica request correlationId "
        + NUM
        + " from controller "
        + ID
        + " for "
        + NUM
        + " partitions",
        "origin_broker correlation_id controller_id count",
        since="2.6",
        constants={"phase": "start"},
    ),
    # --- controller side: error responses ---
    event(
        "response_received/error_1.0",
        T.RESPONSE_RECEIVED,
        " response ",
        r"\[Controller id=([0-9]+)\] Received error in (LeaderAndIsr|UpdateMetadata) response "
        + TEXT
        + " from broker "
        + ID,
        "origin_broker api detail broker",
        since="1.0",
        before="2.5",
        constants={"phase": "error"},
        copies=_C,
    ),
    event(
        "response_received/error",
        T.RESPONSE_RECEIVED,
        " response ",
        r"\[Controller id=([0-9]+)\] Received error ([A-Z_]+) in (LeaderAndIsr|UpdateMetadata) "
        "response " + TEXT + " from broker " + ID,
        "origin_broker error api detail broker",
        since="2.5",
        constants={"phase": "error"},
        copies=_C,
    ),
    # --- broker side: errors and skips around LeaderAndIsr / StopReplica ---
    event(
        "leader_and_isr_received/error",
        T.LEADER_AND_ISR_RECEIVED,
        "Error while processing LeaderAndIsr request ",
        BROKER_IDENT
        + "Error while processing LeaderAndIsr request (?:with )?correlationId "
        + NUM
        + " received from controller "
        + ID
        + " epoch "
        + NUM
        + "(?: for partition "
        + TP
        + ")?"
        + REST,
        "origin_broker correlation_id controller_id controller_epoch topic partition",
        since="1.0",
        constants={"phase": "error"},
    ),
    event(
        "become_transition/skipped",
        T.BECOME_TRANSITION,
        " state change",
        BROKER_ANY + "[Ss]kipped the (become-leader|become-follower|adding-fetcher step of the "
        "become-follower|update topic ID step of the become-follower) state change" + REST,
        "origin_broker role",
        constants={"phase": "skipped"},
    ),
    event(
        "become_transition/leader_unavailable",
        T.BECOME_TRANSITION,
        " but cannot become follower since the new leader ",
        BROKER_ANY
        + "(?:[Rr]eceived LeaderAndIsrRequest|received LeaderAndIsrRequest)"
        + REST
        + " but cannot become follower since the new leader "
        + INT
        + r" is unavailable\.?",
        "origin_broker leader",
        constants={"phase": "failed", "role": "become-follower"},
    ),
    event(
        "stop_replica_received/stale_controller_epoch",
        T.STOP_REPLICA_RECEIVED,
        "Latest known controller epoch is ",
        BROKER_ANY
        + "(?:[Rr]eceived stop replica request from an old controller epoch "
        + NUM
        + "|Ignoring StopReplica request from controller "
        + "[0-9]+ with correlation id [0-9]+ "
        "since its controller epoch [0-9]+ is old)"
        + r"\.? ?Latest known controller epoch is "
        + NUM,
        "origin_broker controller_epoch state_controller_epoch",
        constants={"phase": "ignored", "error": "stale_controller_epoch"},
    ),
    # --- KRaft brokers' state-change.log (ReplicaManager.applyDelta) ---
    event(
        "become_transition/kraft_transitioning",
        T.BECOME_TRANSITION,
        " partition(s) to local ",
        BROKER_IDENT + "Transitioning " + NUM + r" partition\(s\) to local (leaders|followers)\.",
        "origin_broker count role",
        since="3.0",
        mode=Mode.KRAFT,
        constants={"phase": "start"},
    ),
    event(
        "become_transition/kraft_started_fetchers_followers",
        T.BECOME_TRANSITION,
        "Started fetchers as part of become-follower for ",
        BROKER_IDENT + "Started fetchers as part of become-follower for " + NUM + " partitions",
        "origin_broker count",
        since="3.0",
        mode=Mode.KRAFT,
        constants={"phase": "started_fetchers", "role": "become-follower"},
    ),
    event(
        "become_transition/kraft_stopped_fetchers_followers",
        T.BECOME_TRANSITION,
        "Stopped fetchers as part of become-follower for ",
        BROKER_IDENT + "Stopped fetchers as part of become-follower for " + NUM + " partitions",
        "origin_broker count",
        since="3.0",
        mode=Mode.KRAFT,
        constants={"phase": "stopped_fetchers", "role": "become-follower"},
    ),
    event(
        "become_transition/kraft_stopped_fetchers_shutdown",
        T.BECOME_TRANSITION,
        "Stopped fetchers as part of controlled shutdown for ",
        BROKER_IDENT + "Stopped fetchers as part of controlled shutdown for " + NUM + " partitions",
        "origin_broker count",
        since="3.0",
        mode=Mode.KRAFT,
        constants={"phase": "stopped_fetchers", "role": "controlled-shutdown"},
    ),
    event(
        "become_transition/kraft_created",
        T.BECOME_TRANSITION,
        "Creating new partition ",
        BROKER_IDENT + "Creating new partition " + TP + " with topic id ([A-Za-z0-9_-]+)" + REST,
        "origin_broker topic partition topic_id",
        since="3.0",
        mode=Mode.KRAFT,
        constants={"phase": "created"},
    ),
    event(
        "stop_replica_received/kraft_deleting",
        T.STOP_REPLICA_RECEIVED,
        " partition(s).",
        BROKER_IDENT + "Deleting " + NUM + r" partition\(s\)\.",
        "origin_broker count",
        since="3.0",
        mode=Mode.KRAFT,
        constants={"phase": "kraft_delete", "delete_partitions": True},
    ),
)
