"""Broker membership and controlled shutdown, controller side (controller.log) and broker side.

Broker-change lines gained ``bounced brokers:`` in 2.2 (FORMATS.md 4.2). Empty broker lists
render as the empty string (``Newly added brokers: , deleted brokers: 2``), which the ``int_list``
conversion turns into an empty list. ``Removed ... from list of shutting down brokers.`` prints a
Scala ``ArrayBuffer(2)`` up to 2.0 and a bare ``2`` from 2.1. The broker side of a controlled
shutdown is logged by ``kafka.server.KafkaServer`` in server.log (``[Kafka Server 1], `` up to
0.11, ``[KafkaServer id=1] `` from 1.0).
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, controller_event, event
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.fragments import CTRL_IDENT as CI
from kafkactl_core.grammars.fragments import (
    ID,
    INT,
    INTS,
    NUM,
    REST,
    SERVER_IDENT,
    TEXT,
    coll,
    escape_literal,
)

ENTRIES: tuple[GrammarEntry, ...] = (
    controller_event(
        "broker_change/no_bounced",
        T.BROKER_CHANGE,
        "Newly added brokers: ",
        f"{CI}Newly added brokers: {INTS}, deleted brokers: {INTS}, all live brokers: {INTS}",
        "origin_broker added_brokers deleted_brokers live_brokers",
        before="2.2",
    ),
    controller_event(
        "broker_change/bounced",
        T.BROKER_CHANGE,
        "Newly added brokers: ",
        f"{CI}Newly added brokers: {INTS}, deleted brokers: {INTS},"
        f" bounced brokers: {INTS}, all live brokers: {INTS}",
        "origin_broker added_brokers deleted_brokers bounced_brokers live_brokers",
        since="2.2",
    ),
    controller_event(
        "broker_startup_callback",
        T.BROKER_STARTUP_CALLBACK,
        "New broker startup callback for ",
        f"{CI}New broker startup callback for {INTS}",
        "origin_broker brokers",
    ),
    controller_event(
        "broker_failure_callback",
        T.BROKER_FAILURE_CALLBACK,
        "Broker failure callback for ",
        f"{CI}Broker failure callback for {INTS}",
        "origin_broker brokers",
    ),
    controller_event(
        "live_brokers/context",
        T.LIVE_BROKERS,
        "Currently active brokers in the cluster: ",
        f"{CI}Currently active brokers in the cluster: {coll(INTS)}",
        "origin_broker live_brokers",
        constants={"phase": "context"},
    ),
    controller_event(
        "live_brokers/controlled_shutdown",
        T.LIVE_BROKERS,
        "Live brokers: ",
        f"{CI}Live brokers: {INTS}",
        "origin_broker live_brokers",
        constants={"phase": "controlled_shutdown"},
    ),
    controller_event(
        "shutting_down_brokers/context",
        T.SHUTTING_DOWN_BROKERS,
        "Currently shutting brokers in the cluster: ",
        f"{CI}Currently shutting brokers in the cluster: {coll(INTS)}",
        "origin_broker brokers",
        constants={"phase": "context"},
    ),
    controller_event(
        "shutting_down_brokers/controlled_shutdown",
        T.SHUTTING_DOWN_BROKERS,
        "All shutting down brokers: ",
        f"{CI}All shutting down brokers: {INTS}",
        "origin_broker brokers",
        constants={"phase": "controlled_shutdown"},
    ),
    controller_event(
        "shutting_down_brokers/removed_collection",
        T.SHUTTING_DOWN_BROKERS,
        " from list of shutting down brokers.",
        rf"{CI}Removed {coll(INTS)} from list of shutting down brokers\.",
        "origin_broker brokers",
        before="2.1",
        constants={"phase": "removed"},
    ),
    controller_event(
        "shutting_down_brokers/removed",
        T.SHUTTING_DOWN_BROKERS,
        " from list of shutting down brokers.",
        rf"{CI}Removed {INTS} from list of shutting down brokers\.",
        "origin_broker brokers",
        since="2.1",
        constants={"phase": "removed"},
    ),
    controller_event(
        "controlled_shutdown/controller_started",
        T.CONTROLLED_SHUTDOWN,
        "Shutting down broker ",
        f"{CI}Shutting down broker {ID}",
        "origin_broker broker",
        constants={"phase": "started"},
    ),
    controller_event(
        "controlled_shutdown/stale_broker_epoch",
        T.CONTROLLED_SHUTDOWN,
        "Received controlled shutdown request from an old broker epoch ",
        f"{CI}Received controlled shutdown request from an old broker epoch"
        rf" {INT} for broker {ID}\. Current broker epoch is -?[0-9]+\.",
        "origin_broker broker_epoch broker",
        since="2.2",
        constants={"phase": "stale_broker_epoch"},
    ),
    event(
        "controlled_shutdown/broker_requested",
        T.CONTROLLED_SHUTDOWN,
        "Starting controlled shutdown",
        f"{SERVER_IDENT}Starting controlled shutdown",
        "origin_broker",
        constants={"phase": "requested"},
        copies="broker=origin_broker",
    ),
    event(
        "controlled_shutdown/broker_succeeded",
        T.CONTROLLED_SHUTDOWN,
        "Controlled shutdown succeeded",
        f"{SERVER_IDENT}Controlled shutdown succeeded",
        "origin_broker",
        constants={"phase": "succeeded"},
        copies="broker=origin_broker",
    ),
    event(
        "controlled_shutdown/broker_retrying",
        T.CONTROLLED_SHUTDOWN,
        "Retrying controlled shutdown",
        f"{SERVER_IDENT}Retrying controlled shutdown{REST}",
        "origin_broker",
        constants={"phase": "retrying"},
        copies="broker=origin_broker",
    ),
    event(
        "controlled_shutdown/broker_remaining",
        T.CONTROLLED_SHUTDOWN,
        "Remaining partitions to move: ",
        f"{SERVER_IDENT}Remaining partitions to move: {TEXT}",
        "origin_broker detail",
        constants={"phase": "remaining_partitions"},
        copies="broker=origin_broker",
    ),
    event(
        "controlled_shutdown/broker_error",
        T.CONTROLLED_SHUTDOWN,
        "Error during controlled shutdown",
        f"{SERVER_IDENT}Error during controlled shutdown{TEXT}",
        "origin_broker error",
        constants={"phase": "failed"},
        copies="broker=origin_broker",
    ),
    event(
        "controlled_shutdown/broker_unclean",
        T.CONTROLLED_SHUTDOWN,
        "Proceeding to do an unclean shutdown",
        SERVER_IDENT + escape_literal("Proceeding to do an unclean shutdown") + REST,
        "origin_broker",
        constants={"phase": "gave_up"},
        copies="broker=origin_broker",
    ),
    event(
        "controlled_shutdown/broker_error_code",
        T.CONTROLLED_SHUTDOWN,
        "Error code from controller: ",
        f"{SERVER_IDENT}Error code from controller: {NUM}",
        "origin_broker error",
        constants={"phase": "failed"},
        copies="broker=origin_broker",
    ),
    controller_event(
        "broker_change/incompatible_features",
        T.BROKER_CHANGE,
        " due to incompatibilities with finalized features: ",
        f"{CI}Ignoring registration of (new|bounced) brokers due"
        f" to incompatibilities with finalized features: {INTS}",
        "origin_broker detail brokers",
        since="2.5",
        constants={"phase": "ignored_incompatible_features"},
    ),
    controller_event(
        "replicas_marked_offline/log_dir_failure",
        T.REPLICAS_MARKED_OFFLINE,
        "Handling log directory failure for brokers ",
        f"{CI}Handling log directory failure for brokers {INTS}",
        "origin_broker brokers",
        since="2.1",
        constants={"phase": "log_dir_failure"},
    ),
)
