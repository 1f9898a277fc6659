"""ZooKeeper-mode controller election, epoch, failover, resignation and movement (controller.log).

Wording by release (FORMATS.md 4.1): up to 0.11 the KafkaController prefix is ``[Controller 1]: ``
and several lines name the broker in their text (``Broker 1 starting become controller state
transition``); 1.0 moved to ``[Controller id=1] ``; 1.1 rewrote the failover steps; 2.1 folded
the epoch into the election line. Older releases (0.8 - 0.10) log from ZooKeeper listener
classes (``[SessionExpirationListener on 0], ``), which ``CTRL_IDENT`` accepts.
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, controller_event, event, ignored
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.events import IgnoredFamily as F
from kafkactl_core.grammars.fragments import CTRL_IDENT as CI
from kafkactl_core.grammars.fragments import (
    CTRL_IDENT_SKIP,
    ID,
    NUM,
    REST,
    TEXT,
    escape_literal,
    ident_phrase,
)


def _phrase_event(
    name: str,
    event_type: T,
    phrase: str,
    *,
    by_controller: bool = False,
    since: str | None = None,
    before: str | None = None,
    **constants: str,
) -> GrammarEntry:
    """Declare an event entry for a fixed ``phrase`` after the writer's prefix.

    Args:
        name: unique entry name (``family/variant``).
        event_type: what recognised records become.
        phrase: the whole message after the prefix, also the pre-filter literal.
        by_controller: whether the writer is the controller (``controller_event``).
        since: first release with the wording (inclusive), ``None`` = open.
        before: first release without it (exclusive), ``None`` = open.
        **constants: fixed field values of every event (``phase``, ``detail``).

    Returns:
        The entry; it captures ``origin_broker`` only.
    """
    declare = controller_event if by_controller else event
    return declare(
        name,
        event_type,
        phrase,
        ident_phrase(phrase),
        "origin_broker",
        since=since,
        before=before,
        constants=constants,
    )


ENTRIES: tuple[GrammarEntry, ...] = (
    event(
        "controller_elected/plain",
        T.CONTROLLER_ELECTED,
        " successfully elected as the controller",
        f"{CI}{ID} successfully elected as the controller",
        "origin_broker controller_id",
        before="2.1",
    ),
    event(
        "controller_elected/with_epoch",
        T.CONTROLLER_ELECTED,
        " successfully elected as the controller. Epoch incremented to ",
        rf"{CI}{ID} successfully elected as the controller\. Epoch"
        f" incremented to {NUM} and epoch zk version is now (-?[0-9]+)",
        "origin_broker controller_id controller_epoch controller_epoch_zk_version",
        since="2.1",
    ),
    event(
        "controller_epoch_incremented/0.8",
        T.CONTROLLER_EPOCH_INCREMENTED,
        " incremented epoch to ",
        f"{CI}Controller {ID} incremented epoch to {NUM}",
        "origin_broker controller_id controller_epoch",
        before="1.0",
    ),
    controller_event(
        "controller_epoch_incremented/1.0",
        T.CONTROLLER_EPOCH_INCREMENTED,
        "Incremented epoch to ",
        f"{CI}Incremented epoch to {NUM}",
        "origin_broker controller_epoch",
        since="1.0",
        before="1.1",
    ),
    controller_event(
        "controller_epoch_incremented/1.1",
        T.CONTROLLER_EPOCH_INCREMENTED,
        "Epoch incremented to ",
        f"{CI}Epoch incremented to {NUM}",
        "origin_broker controller_epoch",
        since="1.1",
        before="2.1",
    ),
    event(
        "controller_epoch_initialized",
        T.CONTROLLER_EPOCH_INITIALIZED,
        "Initialized controller epoch to ",
        f"{CI}Initialized controller epoch to {NUM} and zk version (-?[0-9]+)",
        "origin_broker controller_epoch controller_epoch_zk_version",
        before="2.1",
    ),
    event(
        "controller_failover_started/0.8",
        T.CONTROLLER_FAILOVER_STARTED,
        " starting become controller state transition",
        f"{CI}Broker {ID} starting become controller state transition",
        "origin_broker controller_id",
        before="1.0",
    ),
    _phrase_event(
        "controller_failover_started/1.0",
        T.CONTROLLER_FAILOVER_STARTED,
        "Starting become controller state transition",
        since="1.0",
        before="1.1",
        by_controller=True,
    ),
    event(
        "controller_ready/0.8",
        T.CONTROLLER_READY,
        " is ready to serve as the new controller with epoch ",
        f"{CI}Broker {ID} is ready to serve as the new controller with epoch {NUM}",
        "origin_broker controller_id controller_epoch",
        before="1.0",
    ),
    controller_event(
        "controller_ready/1.0",
        T.CONTROLLER_READY,
        "Ready to serve as the new controller with epoch ",
        f"{CI}Ready to serve as the new controller with epoch {NUM}",
        "origin_broker controller_epoch",
        since="1.0",
    ),
    event(
        "controller_resigning/0.8",
        T.CONTROLLER_RESIGNING,
        "Controller resigning, broker id ",
        f"{CI}Controller resigning, broker id {ID}",
        "origin_broker controller_id",
        before="1.0",
    ),
    _phrase_event(
        "controller_resigning/1.0",
        T.CONTROLLER_RESIGNING,
        "Resigning",
        since="1.0",
        by_controller=True,
    ),
    _phrase_event(
        "controller_resigning/zk_expired",
        T.CONTROLLER_RESIGNING,
        "ZK expired; shut down all controller components and try to re-elect",
        before="1.0",
        by_controller=True,
        detail="zk_session_expired",
    ),
    event(
        "controller_resigned/0.8",
        T.CONTROLLER_RESIGNED,
        " resigned as the controller",
        f"{CI}Broker {ID} resigned as the controller",
        "origin_broker controller_id",
        before="1.0",
    ),
    _phrase_event(
        "controller_resigned/1.0",
        T.CONTROLLER_RESIGNED,
        "Resigned",
        since="1.0",
        by_controller=True,
    ),
    event(
        "controller_moved/already_elected",
        T.CONTROLLER_MOVED,
        " has been elected as the controller, so stopping the election process.",
        rf"{CI}Broker {ID} has been elected as the controller, so stopping the election process\.",
        "origin_broker controller_id",
        constants={"phase": "already_elected"},
    ),
    event(
        "controller_moved/lost_election",
        T.CONTROLLER_MOVED,
        " was elected as controller instead of broker ",
        f"{CI}Broker {ID} was elected as controller instead of broker {ID}",
        "origin_broker controller_id broker",
        constants={"phase": "lost_election"},
    ),
    event(
        "controller_moved/while_processing",
        T.CONTROLLER_MOVED,
        "Controller moved to another broker when processing ",
        rf"{CI}Controller moved to another broker when processing {TEXT}\.",
        "origin_broker detail",
        since="2.1",
        constants={"phase": "while_processing"},
    ),
    _phrase_event(
        "controller_moved/already_moved",
        T.CONTROLLER_MOVED,
        "Controller has already moved when trying to trigger controller movement",
        since="2.1",
        phase="already_moved",
    ),
    event(
        "controller_moved/elected_then_resigned",
        T.CONTROLLER_MOVED,
        "A controller has been elected but just resigned",
        ident_phrase(
            "A controller has been elected but just resigned, this will result in another "
            "round of election"
        ),
        "origin_broker",
        constants={"phase": "elected_then_resigned"},
    ),
    event(
        "controller_election_failed/plain",
        T.CONTROLLER_ELECTION_FAILED,
        "Error while electing or becoming controller on broker ",
        f"{CI}Error while electing or becoming controller on broker {ID}",
        "origin_broker broker",
        before="2.1",
    ),
    event(
        "controller_election_failed/trigger_movement",
        T.CONTROLLER_ELECTION_FAILED,
        "Error while electing or becoming controller on broker ",
        f"{CI}Error while electing or becoming controller on"
        rf" broker {ID}\. Trigger controller movement immediately",
        "origin_broker broker",
        since="2.1",
    ),
    _phrase_event(
        "controller_startup/start",
        T.CONTROLLER_STARTUP,
        "Controller starting up",
        before="0.11",
        by_controller=True,
        phase="start",
    ),
    _phrase_event(
        "controller_startup/complete",
        T.CONTROLLER_STARTUP,
        "Controller startup complete",
        before="0.11",
        by_controller=True,
        phase="complete",
    ),
    _phrase_event(
        "controller_shutdown",
        T.CONTROLLER_SHUTDOWN,
        "Controller shutdown complete",
        before="0.11",
        by_controller=True,
    ),
    event(
        "controller_error/processing_event",
        T.CONTROLLER_ERROR,
        "rror processing event ",
        rf"(?:{CI}|\[controller-event-thread\]: )?(?:Uncaught e|E)rror processing event {TEXT}",
        "origin_broker detail",
    ),
    _phrase_event(
        "controller_error/broker_changes",
        T.CONTROLLER_ERROR,
        "Error while handling broker changes",
        before="1.1",
        detail="broker_change",
    ),
    _phrase_event(
        "controller_error/removing_broker",
        T.CONTROLLER_ERROR,
        "Error while removing broker by the controller",
        detail="removing_broker",
    ),
    event(
        "controller_error/send_requests",
        T.CONTROLLER_ERROR,
        "Haven't been able to send ",
        f"(?:{CI})?Haven't been able to send (leader and"
        f" isr|metadata update|stop replica) requests{REST}",
        "origin_broker detail",
    ),
    event(
        "controller_error/listener",
        T.CONTROLLER_ERROR,
        "Error while invoking listener for processed event ",
        rf"(?:{CI}|\[controller-event-thread\]: )?Error"
        f" while invoking listener for processed event {TEXT}",
        "origin_broker detail",
        before="2.1",
    ),
    _phrase_event(
        "controller_error/incrementing_epoch",
        T.CONTROLLER_ERROR,
        "Error while incrementing controller epoch",
        before="2.1",
        detail="incrementing_epoch",
    ),
    event(
        "controller_error/state_machine",
        T.CONTROLLER_ERROR,
        "Error while moving some ",
        f"{CI}Error while moving some (partitions|replicas) to (?:the )?([A-Za-z]+) state",
        "origin_broker detail to_state",
    ),
    event(
        "controller_moved/state_machine",
        T.CONTROLLER_MOVED,
        "Controller moved to another broker when ",
        f"{CI}Controller moved to another broker when (moving some (?:partitions|replicas)"
        " to [A-Za-z]+ state|trying to create the topic partition state znode)",
        "origin_broker detail",
        since="2.1",
        constants={"phase": "while_processing"},
    ),
    event(
        "controller_error/invalid_isr_notification",
        T.CONTROLLER_ERROR,
        "Invalid topic and partition JSON",
        f"{CI}Invalid topic and partition JSON{TEXT}",
        "origin_broker detail",
        before="1.1",
    ),
    event(
        "controller_error/replica_not_in_assignment",
        T.CONTROLLER_ERROR,
        " that is not part of the assignment ",
        rf"{CI}Adding replica \((-?[0-9]+)\) that is not part of the assignment {TEXT}",
        "origin_broker replica detail",
        since="2.5",
    ),
    _phrase_event(
        "controller_error/forced_resign",
        T.CONTROLLER_ERROR,
        "Forcing the controller to resign",
        detail="forced_resign",
    ),
)

_FAILOVER_STEPS: tuple[tuple[str, str | None, str | None], ...] = (
    ("Registering handlers", "1.1", None),
    ("Deleting log dir event notifications", "1.1", None),
    ("Deleting isr change notifications", "1.1", None),
    ("Initializing controller context", "1.1", None),
    ("Fetching topic deletions in progress", "1.1", None),
    ("Initializing topic deletion manager", "1.1", None),
    ("Sending update metadata request", "1.1", None),
    ("Reading controller epoch from ZooKeeper", "1.1", "2.1"),
    ("Incrementing controller epoch in ZooKeeper", "1.1", "2.1"),
    ("Starting the controller scheduler", "1.0", None),
    ("starting the controller scheduler", None, "1.0"),
    ("starting the partition rebalance scheduler", None, "0.11"),
    ("starting the token expiry check scheduler", "1.1", None),
    ("Registering IsrChangeNotificationListener", None, "1.1"),
    ("De-registering IsrChangeNotificationListener", None, "1.1"),
    ("Registering logDirEventNotificationListener", "1.0", "1.1"),
    ("De-registering logDirEventNotificationListener", "1.0", "1.1"),
)

_PRODUCER_ID_BLOCK: tuple[tuple[str, str], ...] = (
    ("none_yet", "There is no producerId block yet (Zk path version "),
    ("read", "Read current producerId block "),
    ("acquired", "Acquired new producerId block "),
)
"""3.0+ (KIP-730): the controller allocates producer id blocks in ``/latest_producer_id_block``
for ``AllocateProducerIds`` requests and logs it under its own logger (before, each broker's
``ProducerIdManager`` did, in server.log)."""

IGNORED: tuple[GrammarEntry, ...] = (
    *(
        ignored(
            "failover_step/" + phrase.replace(" ", "_"),
            F.CONTROLLER_FAILOVER_STEP,
            phrase,
            f"(?:{CTRL_IDENT_SKIP})?{escape_literal(phrase)}",
            since,
            before,
        )
        for phrase, since, before in _FAILOVER_STEPS
    ),
    *(
        ignored(
            f"producer_id_block/{name}",
            F.PRODUCER_ID_BLOCK,
            phrase,
            CTRL_IDENT_SKIP + escape_literal(phrase) + REST,
            "3.0",
        )
        for name, phrase in _PRODUCER_ID_BLOCK
    ),
)
