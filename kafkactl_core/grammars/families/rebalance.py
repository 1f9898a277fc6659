"""Preferred replica elections and the controller's automatic leader rebalance (controller.log).

The auto-rebalance check logs, per broker, the partitions not led by their preferred replica
(DEBUG) and the leader imbalance ratio (TRACE, ``Leader imbalance ratio for broker 2 is 0.5``);
0.10 wrote these in lower case (``leader imbalance ratio ...``). 1.1 added the broker to
``Topics not in preferred replica for broker 2 Map(...)``. Elections start with ``Starting
preferred replica leader election for partitions ...`` up to 2.3 and ``Starting replica leader
election (PREFERRED) for partitions ... triggered by AutoTriggered`` from 2.4. The per-broker map
is kept verbatim in ``detail`` (its interior, e.g. ``orders-1 -> List(2, 3, 1)``).
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, controller_event, ignored
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.events import IgnoredFamily as F
from kafkactl_core.grammars.fragments import (
    CTRL_IDENT,
    CTRL_IDENT_SKIP,
    FLOAT,
    ID,
    INT,
    REST,
    TEXT,
    TP,
    TPB,
    TPS,
    TPS_BRACKET_NONEMPTY,
    TPS_NONEMPTY,
    escape_literal,
)

_MAP = r"(?:Map|HashMap|ListMap|TreeMap)\(([^\n]*)\)"

ENTRIES: tuple[GrammarEntry, ...] = (
    controller_event(
        "auto_rebalance_check/0.10",
        T.AUTO_REBALANCE_CHECK,
        "checking need to trigger partition rebalance",
        f"{CTRL_IDENT}checking need to trigger partition rebalance",
        "origin_broker",
        before="0.11",
        constants={"phase": "check"},
    ),
    controller_event(
        "auto_rebalance_check",
        T.AUTO_REBALANCE_CHECK,
        "Checking need to trigger auto leader balancing",
        f"{CTRL_IDENT}Checking need to trigger auto leader balancing",
        "origin_broker",
        since="0.11",
        constants={"phase": "check"},
    ),
    controller_event(
        "auto_rebalance_check/processing",
        T.AUTO_REBALANCE_CHECK,
        "Processing automatic preferred replica leader election",
        f"{CTRL_IDENT}Processing automatic preferred replica leader election",
        "origin_broker",
        since="2.3",
        constants={"phase": "processing"},
    ),
    controller_event(
        "preferred_replica_imbalance/0.10",
        T.PREFERRED_REPLICA_IMBALANCE,
        "topics not in preferred replica ",
        f"{CTRL_IDENT}topics not in preferred replica {_MAP}",
        "origin_broker detail",
        before="0.11",
    ),
    controller_event(
        "preferred_replica_imbalance/0.11",
        T.PREFERRED_REPLICA_IMBALANCE,
        "Topics not in preferred replica ",
        f"{CTRL_IDENT}Topics not in preferred replica {_MAP}",
        "origin_broker detail",
        since="0.11",
        before="1.1",
    ),
    controller_event(
        "preferred_replica_imbalance",
        T.PREFERRED_REPLICA_IMBALANCE,
        "Topics not in preferred replica for broker ",
        f"{CTRL_IDENT}Topics not in preferred replica for broker {ID} {_MAP}",
        "origin_broker broker detail",
        since="1.1",
    ),
    controller_event(
        "leader_imbalance_ratio/0.10",
        T.LEADER_IMBALANCE_RATIO,
        "leader imbalance ratio for broker ",
        f"{CTRL_IDENT}leader imbalance ratio for broker {ID} is {FLOAT}",
        "origin_broker broker ratio",
        before="0.11",
    ),
    controller_event(
        "leader_imbalance_ratio",
        T.LEADER_IMBALANCE_RATIO,
        "Leader imbalance ratio for broker ",
        f"{CTRL_IDENT}Leader imbalance ratio for broker {ID} is {FLOAT}",
        "origin_broker broker ratio",
        since="0.11",
    ),
    controller_event(
        "preferred_election_started/none",
        T.PREFERRED_ELECTION_STARTED,
        "Starting preferred replica leader election for partitions ",
        f"{CTRL_IDENT}Starting preferred replica leader election for partitions ",
        "origin_broker",
        before="2.4",
        constants={"election_type": "PREFERRED"},
    ),
    controller_event(
        "preferred_election_started/bracket",
        T.PREFERRED_ELECTION_STARTED,
        "Starting preferred replica leader election for partitions ",
        f"{CTRL_IDENT}Starting preferred replica leader"
        f" election for partitions {TPS_BRACKET_NONEMPTY}",
        "origin_broker partitions",
        before="1.0",
        constants={"election_type": "PREFERRED"},
    ),
    controller_event(
        "preferred_election_started/1.0",
        T.PREFERRED_ELECTION_STARTED,
        "Starting preferred replica leader election for partitions ",
        f"{CTRL_IDENT}Starting preferred replica leader election for partitions {TPS_NONEMPTY}",
        "origin_broker partitions",
        since="1.0",
        before="2.4",
        constants={"election_type": "PREFERRED"},
    ),
    controller_event(
        "preferred_election_started",
        T.PREFERRED_ELECTION_STARTED,
        "Starting replica leader election (",
        rf"{CTRL_IDENT}Starting replica leader election \(([A-Z]+)\)"
        f" for partitions {TPS} triggered by ([A-Za-z]+)",
        "origin_broker election_type partitions trigger",
        since="2.4",
    ),
    controller_event(
        "preferred_election_completed/bracket",
        T.PREFERRED_ELECTION_COMPLETED,
        " completed preferred replica leader election. New leader is ",
        f"{CTRL_IDENT}Partition {TPB} completed preferred"
        rf" replica leader election\. New leader is {INT}",
        "origin_broker topic partition leader",
        before="1.0",
    ),
    controller_event(
        "preferred_election_completed",
        T.PREFERRED_ELECTION_COMPLETED,
        " completed preferred replica leader election. New leader is ",
        f"{CTRL_IDENT}Partition {TP} completed preferred"
        rf" replica leader election\. New leader is {INT}",
        "origin_broker topic partition leader",
        since="1.0",
    ),
    controller_event(
        "preferred_election_failed/bracket",
        T.PREFERRED_ELECTION_FAILED,
        " failed to complete preferred replica leader election. Leader is ",
        f"{CTRL_IDENT}Partition {TPB} failed to complete"
        rf" preferred replica leader election\. Leader is {INT}",
        "origin_broker topic partition leader",
        before="1.0",
    ),
    controller_event(
        "preferred_election_failed/1.0",
        T.PREFERRED_ELECTION_FAILED,
        " failed to complete preferred replica leader election. Leader is ",
        f"{CTRL_IDENT}Partition {TP} failed to complete"
        rf" preferred replica leader election\. Leader is {INT}",
        "origin_broker topic partition leader",
        since="1.0",
        before="2.0",
    ),
    controller_event(
        "preferred_election_failed/error_partitions",
        T.PREFERRED_ELECTION_FAILED,
        "Error completing preferred replica leader election for partitions ",
        f"{CTRL_IDENT}Error completing preferred replica leader election for partitions {TEXT}",
        "origin_broker partitions",
        before="2.4",
        constants={"phase": "error", "election_type": "PREFERRED"},
    ),
    controller_event(
        "preferred_election_failed/error_partition",
        T.PREFERRED_ELECTION_FAILED,
        "Error completing preferred replica leader election for partition ",
        f"{CTRL_IDENT}Error completing preferred replica leader election for partition {TP}",
        "origin_broker topic partition",
        since="2.1",
        before="2.4",
        constants={"phase": "error", "election_type": "PREFERRED"},
    ),
    controller_event(
        "preferred_election_failed/error_election_type",
        T.PREFERRED_ELECTION_FAILED,
        "Error completing replica leader election (",
        rf"{CTRL_IDENT}Error completing replica leader election \(([A-Z]+)\) for"
        rf" partition {TP}(?: because (controller has moved to another broker)\.)?",
        "origin_broker election_type topic partition error",
        since="2.4",
        constants={"phase": "error"},
    ),
    controller_event(
        "preferred_election_failed",
        T.PREFERRED_ELECTION_FAILED,
        " failed to complete preferred replica leader election to ",
        f"{CTRL_IDENT}Partition {TP} failed to complete preferred"
        rf" replica leader election to {INT}\. Leader is still {INT}",
        "origin_broker topic partition replica leader",
        since="2.0",
    ),
)

_CONTEXT: tuple[tuple[str, str, str | None, str | None], ...] = (
    ("preferred_by_broker", "Preferred replicas by broker ", "0.11", "2.5"),
    ("preferred_by_broker/0.10", "preferred replicas by broker ", None, "0.11"),
    ("undergoing", "Partitions undergoing preferred replica election: ", None, None),
    ("completed", "Partitions that completed preferred replica election: ", None, None),
    (
        "skipped",
        "Skipping preferred replica election for partitions due to topic deletion: ",
        None,
        None,
    ),
    ("resuming", "Resuming preferred replica election for partitions: ", None, None),
    # ElectLeaders (KIP-460): the admin request's per-partition results, while it waits
    (
        "admin_waiting",
        "Waiting for any successful result for election type ",
        "2.4",
        None,
    ),
)

IGNORED: tuple[GrammarEntry, ...] = tuple(
    ignored(
        f"preferred_election_context/{name}",
        F.PREFERRED_ELECTION_CONTEXT,
        phrase,
        CTRL_IDENT_SKIP + escape_literal(phrase) + REST,
        since,
        before,
    )
    for name, phrase, since, before in _CONTEXT
)
