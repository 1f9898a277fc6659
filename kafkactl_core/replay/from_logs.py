"""Normalize one ``silver.controller_events`` row into partition evidence and cluster facts.

The row is a plain ``Mapping[str, Any]``: the ``EVENT_FIELDS`` columns plus ``event_type``,
``grammar``, ``ts`` (UTC), ``level``, ``logger``, ``file``, ``first_line`` and ``cluster``
(numpy/pandas scalars and arrays are accepted). ``normalize_controller_event`` returns both
kinds of output; an event naming several partitions (``partitions``) yields one evidence per
partition. Columns read: ``cluster ts file first_line logger event_type`` and the event fields
``topic partition partitions topics deleted_topics leader previous_leader leader_epoch
previous_leader_epoch isr previous_isr zk_version partition_epoch state_controller_epoch
leader_recovery_state replicas adding_replicas removing_replicas from_state to_state replica
broker brokers added_brokers deleted_brokers bounced_brokers live_brokers controller_id
controller_epoch origin_broker election_type trigger strategy phase count high_watermark
end_offset start_offset detail``.

Lists: the grammars render an absent list and an empty one alike (``fields.py``), so an empty
ISR is read as "not given" except where the line always renders the ISR with a leader epoch
(then an empty ISR is real, as in 0.8-1.0 after the last replica left). Nothing raises: a
partition name that does not parse becomes a ``note`` fact (an ``unusable_evidence`` anomaly).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from kafkactl_core.model import TopicPartition
from kafkactl_core.replay.evidence import Fact, PartitionEvidence, Source
from kafkactl_core.replay.facts import ClusterFact, ClusterFactKind
from kafkactl_core.replay.settings import CONFIG_KEYS, UNCLEAN_KEY
from kafkactl_core.replay.values import as_int, as_ints, as_ms, as_str, as_strs

__all__ = [
    "LOG_COLUMNS",
    "LOG_EVENT_TYPES",
    "Normalized",
    "evidence_from_controller_event",
    "facts_from_controller_event",
    "normalize_controller_event",
    "source_of",
]

LOG_COLUMNS = (
    "cluster",
    "ts",
    "file",
    "first_line",
    "logger",
    "event_type",
    "topic",
    "topic_id",
    "partition",
    "partitions",
    "topics",
    "deleted_topics",
    "leader",
    "previous_leader",
    "leader_epoch",
    "previous_leader_epoch",
    "isr",
    "previous_isr",
    "zk_version",
    "partition_epoch",
    "state_controller_epoch",
    "leader_recovery_state",
    "replicas",
    "adding_replicas",
    "removing_replicas",
    "from_state",
    "to_state",
    "replica",
    "broker",
    "broker_epoch",
    "brokers",
    "added_brokers",
    "deleted_brokers",
    "bounced_brokers",
    "live_brokers",
    "controller_id",
    "controller_epoch",
    "origin_broker",
    "election_type",
    "trigger",
    "strategy",
    "phase",
    "count",
    "high_watermark",
    "end_offset",
    "start_offset",
    "detail",
)
"""The ``silver.controller_events`` columns the normalizer reads."""

_F = Fact
_K = ClusterFactKind


class Normalized(NamedTuple):
    """What one silver row becomes."""

    evidence: list[PartitionEvidence]
    facts: list[ClusterFact]


def source_of(logger: str | None, file: str | None, event_type: str | None = None) -> Source:
    """Which log a record came from, by logger, then event type, then file name.

    Args:
        logger: the record's logger (``state.change.logger``, ``kafka.controller.*``, ...).
        file: the file it was read from.
        event_type: the event type (KRaft events come from KRaft controllers).

    Returns:
        The source kind.
    """
    name = logger or ""
    if name == "state.change.logger":
        return Source.state_change_log
    if event_type is not None and event_type.startswith("kraft_"):
        return Source.kraft_log
    if name.startswith(("org.apache.kafka.controller", "org.apache.kafka.metadata")):
        return Source.kraft_log
    if name.startswith("kafka.controller"):
        return Source.controller_log
    base = (file or "").rsplit("/", 1)[-1]
    if "state-change" in base:
        return Source.state_change_log
    if "controller" in base:
        return Source.controller_log
    return Source.server_log


@functools.lru_cache(maxsize=1 << 16)
def _parse_tp(text: str) -> TopicPartition | None:
    body = text.strip()
    if body.startswith("[Topic=") and ",Partition=" in body:
        topic, _, rest = body[len("[Topic=") :].partition(",Partition=")
        number = rest.split(",", 1)[0].rstrip("]")
        return TopicPartition(topic, int(number)) if number.lstrip("-").isdigit() else None
    try:
        return TopicPartition.parse(body)
    except ValueError:
        return None


_STRATEGY_TRIGGERS = (
    ("ControlledShutdown", "controlled_shutdown"),
    ("Reassign", "reassign"),
    ("Preferred", "preferred"),
    ("Offline", "offline"),
)


def _strategy_trigger(strategy: str | None) -> str | None:
    if not strategy:
        return None
    for marker, trigger in _STRATEGY_TRIGGERS:
        if marker in strategy:
            if trigger == "offline" and "(true)" in strategy:
                return "admin_unclean"  # OfflinePartitionLeaderElectionStrategy(allowUnclean)
            return trigger
    return None


class _Ctx:
    """One row being normalized: identity, time, ref and output lists."""

    __slots__ = ("cluster", "evidence", "facts", "ref", "row", "seq", "source", "time")

    def __init__(self, row: Mapping[str, Any]) -> None:
        self.row = row
        self.cluster = as_str(row.get("cluster")) or ""
        self.time = as_ms(row.get("ts"))
        file = as_str(row.get("file")) or ""
        line = as_int(row.get("first_line")) or 0
        self.seq = line
        self.ref = f"{file}:{line}"
        self.source = source_of(as_str(row.get("logger")), file, as_str(row.get("event_type")))
        self.evidence: list[PartitionEvidence] = []
        self.facts: list[ClusterFact] = []

    def num(self, name: str) -> int | None:
        return as_int(self.row.get(name))

    def text(self, name: str) -> str | None:
        return as_str(self.row.get(name))

    def ints(self, name: str) -> tuple[int, ...] | None:
        """A list column; empty means "not given"."""
        value = as_ints(self.row.get(name))
        return value if value else None

    def ints_kept(self, name: str) -> tuple[int, ...] | None:
        """A list column whose empty value is real (the line always renders it)."""
        return as_ints(self.row.get(name))

    def partitions(self) -> list[TopicPartition]:
        topic = self.text("topic")
        partition = self.num("partition")
        if topic is not None and partition is not None:
            return [TopicPartition(topic, partition)]
        out: list[TopicPartition] = []
        for text in as_strs(self.row.get("partitions")) or ():
            tp = _parse_tp(text)
            if tp is None:
                self.note(f"unparsable partition {text[:80]!r}")
            else:
                out.append(tp)
        return out

    def note(self, detail: str) -> None:
        self.facts.append(
            ClusterFact(
                self.cluster, self.time, self.source, _K.note, self.ref, self.seq, detail=detail
            )
        )

    def fact(self, kind: ClusterFactKind, **values: Any) -> None:
        self.facts.append(
            ClusterFact(self.cluster, self.time, self.source, kind, self.ref, self.seq, **values)
        )

    def controller(self) -> tuple[int | None, int | None]:
        epoch = self.num("controller_epoch")
        if epoch is None:
            epoch = self.num("state_controller_epoch")
        return self.num("controller_id"), epoch

    def emit(self, fact: Fact, tps: list[TopicPartition] | None = None, **values: Any) -> None:
        controller_id, controller_epoch = self.controller()
        values.setdefault("controller_id", controller_id)
        values.setdefault("controller_epoch", controller_epoch)
        for tp in self.partitions() if tps is None else tps:
            self.evidence.append(
                PartitionEvidence(
                    self.cluster,
                    tp.topic,
                    tp.partition,
                    self.time,
                    self.source,
                    fact,
                    self.ref,
                    self.seq,
                    **values,
                )
            )

    def leadership(self, *, keep_empty_isr: bool) -> dict[str, Any]:
        epoch = self.num("partition_epoch")
        if epoch is None:
            epoch = self.num("zk_version")
        recovery = self.text("leader_recovery_state")
        return {
            "leader": self.num("leader"),
            "leader_epoch": self.num("leader_epoch"),
            "partition_epoch": epoch,
            "isr": self.ints_kept("isr") if keep_empty_isr else self.ints("isr"),
            "recovering": None if recovery is None else recovery == "RECOVERING",
        }


Handler = Callable[[_Ctx], None]


def _partition_state_change(c: _Ctx) -> None:
    values = c.leadership(keep_empty_isr=c.num("leader_epoch") is not None)
    c.emit(
        _F.partition_transition,
        from_state=c.text("from_state"),
        to_state=c.text("to_state"),
        replicas=c.ints("replicas"),
        **values,
    )


def _partition_state_change_failed(c: _Ctx) -> None:
    fact = _F.election_failed if c.text("to_state") == "OnlinePartition" else _F.transition_failed
    c.emit(
        fact,
        from_state=c.text("from_state"),
        to_state=c.text("to_state"),
        live_brokers=c.ints_kept("live_brokers") if fact is _F.election_failed else None,
        replicas=c.ints("replicas"),
    )


def _leader_election_started(c: _Ctx) -> None:
    c.emit(
        _F.election_started, trigger=_strategy_trigger(c.text("strategy")), detail=c.text("phase")
    )


def _leader_elected(c: _Ctx) -> None:
    # "elected leader L for Offline partition" ends every election up to 1.0, whatever the
    # selector (PartitionStateMachine.electLeaderForPartition): it names no trigger.
    c.emit(_F.leader_claimed, leader=c.num("leader"))


def _leader_selected(c: _Ctx) -> None:
    trigger = c.text("trigger")
    if c.num("leader_epoch") is not None:
        c.emit(
            _F.leadership_written,
            trigger=trigger,
            previous_leader=c.num("previous_leader"),
            **c.leadership(keep_empty_isr=True),
        )
    else:
        c.emit(
            _F.leader_claimed,
            leader=c.num("leader"),
            previous_leader=c.num("previous_leader"),
            trigger=trigger,
            detail=c.text("phase"),
        )


def _no_live_isr(c: _Ctx) -> None:
    c.emit(_F.no_live_isr, live_brokers=c.ints_kept("live_brokers") or ())


def _unclean_warning(c: _Ctx) -> None:
    c.emit(
        _F.unclean_warning,
        leader=c.num("leader"),
        live_brokers=c.ints_kept("live_brokers"),
        trigger="offline",
    )


def _last_isr_retained(c: _Ctx) -> None:
    c.emit(_F.isr_retained, replica=c.num("replica"))


def _leader_and_isr_initialized(c: _Ctx) -> None:
    c.emit(_F.leadership_written, trigger="new_partition", **c.leadership(keep_empty_isr=False))


def _replica_state_change(c: _Ctx) -> None:
    c.emit(
        _F.replica_transition,
        replica=c.num("replica"),
        from_state=c.text("from_state"),
        to_state=c.text("to_state"),
    )


def _replica_state_change_failed(c: _Ctx) -> None:
    c.emit(
        _F.transition_failed,
        replica=c.num("replica"),
        from_state=c.text("from_state"),
        to_state=c.text("to_state"),
    )


def _replica_removed_from_isr(c: _Ctx) -> None:
    c.emit(
        _F.leadership_written,
        replica=c.num("replica"),
        detail="isr_removal",
        **c.leadership(keep_empty_isr=True),
    )


def _alter_isr_applied(c: _Ctx) -> None:
    values = c.leadership(keep_empty_isr=False)
    if values["leader_epoch"] is None:
        # 2.7+ "ISR for partition t-0 updated to [..] and zkVersion updated to [n]": the
        # controller wrote a leader's AlterIsr; the leader and its epoch are unchanged.
        c.emit(
            _F.isr_changed,
            isr=values["isr"],
            partition_epoch=values["partition_epoch"],
            detail="alter_isr",
        )
        return
    c.emit(_F.leadership_written, detail="alter_isr", **values)


def _isr_changed(c: _Ctx) -> None:
    origin = c.num("origin_broker")
    leader = c.num("leader")
    epoch = c.num("partition_epoch")
    if epoch is None:
        epoch = c.num("zk_version")
    c.emit(
        _F.isr_changed,
        leader=leader if leader is not None else origin,
        isr=c.ints("isr"),
        previous_isr=c.ints("previous_isr"),
        partition_epoch=epoch,
        high_watermark=c.num("high_watermark"),
        end_offset=c.num("end_offset"),
        broker=origin,
        detail=c.text("detail"),
    )


def _preferred_election_started(c: _Ctx) -> None:
    kind = c.text("election_type")
    trigger = "admin_unclean" if kind == "UNCLEAN" else "preferred"
    c.emit(_F.election_started, trigger=trigger, detail=c.text("trigger"))


def _preferred_election_completed(c: _Ctx) -> None:
    c.emit(_F.leader_claimed, leader=c.num("leader"), trigger="preferred")


def _preferred_election_failed(c: _Ctx) -> None:
    c.emit(
        _F.transition_failed,
        leader=c.num("leader"),
        trigger="preferred",
        detail=c.text("error") or "preferred election failed",
    )


_PREFERRED_MAP = re.compile(r"(\[[^\]]+\]|[^\s,()\[\]]+) -> \w+\(([-\d, ]*)\)")


def _preferred_replica_imbalance(c: _Ctx) -> None:
    # "Topics not in preferred replica for broker 1 Map(t-0 -> Vector(1, 0), ...)": the
    # controller's own assignment of every partition not led by its preferred replica.
    detail = c.text("detail")
    if not detail:
        return
    for name, replicas in _PREFERRED_MAP.findall(detail):
        tp = _parse_tp(name)
        assignment = _int_list(replicas)
        if tp is None or not assignment:
            c.note(f"unreadable preferred-replica entry {name[:60]!r}")
            continue
        c.emit(_F.assignment, [tp], replicas=assignment, detail="imbalance_dump")


def _reassignment(c: _Ctx) -> None:
    c.emit(
        _F.reassignment,
        replicas=c.ints("replicas"),
        adding_replicas=c.ints("adding_replicas"),
        removing_replicas=c.ints("removing_replicas"),
        detail=c.text("phase"),
        **c.leadership(keep_empty_isr=False),
    )


def _leader_epoch_updated(c: _Ctx) -> None:
    if c.text("phase") != "updated":
        return
    epoch = c.num("partition_epoch")
    c.emit(
        _F.leadership_written,
        leader_epoch=c.num("leader_epoch"),
        partition_epoch=c.num("zk_version") if epoch is None else epoch,
        detail="epoch_bump",
    )


def _topic_deletion(c: _Ctx) -> None:
    phase = c.text("phase")
    named = as_strs(c.row.get("partitions"))
    if (c.text("topic") is not None and c.num("partition") is not None) or named:
        c.emit(_F.deletion, detail=phase)
        return
    topics = list(as_strs(c.row.get("topics")) or ())
    topic = c.text("topic")
    if topic is not None:
        topics.append(topic)
    kind = {
        "requested": _K.topic_deletion_started,
        "started": _K.topic_deletion_started,
        "completed": _K.topic_deleted,
    }.get(phase or "")
    if kind is not None:
        for name in topics:
            c.fact(kind, topic=name, detail=phase)


def _topics_changed(c: _Ctx) -> None:
    for name in as_strs(c.row.get("topics")) or ():
        c.fact(_K.topic_created, topic=name)
    for name in as_strs(c.row.get("deleted_topics")) or ():
        c.fact(_K.topic_deleted, topic=name)


def _new_partitions(c: _Ctx) -> None:
    c.emit(_F.new_partition, trigger="new_partition")


def _observed(c: _Ctx) -> None:
    if c.text("topic") is None or c.num("partition") is None or c.text("phase") == "deleted":
        return  # 2.6+ request summaries name no partition
    values = c.leadership(keep_empty_isr=c.num("leader_epoch") is not None)
    c.emit(
        _F.leadership_observed,
        replicas=c.ints("replicas"),
        adding_replicas=c.ints("adding_replicas"),
        removing_replicas=c.ints("removing_replicas"),
        broker=c.num("origin_broker"),
        detail=c.text("event_type"),
        **values,
    )


def _partition_leader_started(c: _Ctx) -> None:
    origin = c.num("origin_broker")
    leader = c.num("leader")
    epoch = c.num("partition_epoch")
    c.emit(
        _F.leader_started,
        leader=leader if leader is not None else origin,
        leader_epoch=c.num("leader_epoch"),
        previous_leader=c.num("previous_leader"),
        previous_leader_epoch=c.num("previous_leader_epoch"),
        partition_epoch=epoch,
        isr=c.ints("isr"),
        start_offset=c.num("start_offset"),
        high_watermark=c.num("high_watermark"),
        broker=origin,
    )


def _partition_follower_started(c: _Ctx) -> None:
    c.emit(
        _F.leadership_observed,
        leader=c.num("leader"),
        leader_epoch=c.num("leader_epoch"),
        previous_leader=c.num("previous_leader"),
        previous_leader_epoch=c.num("previous_leader_epoch"),
        partition_epoch=c.num("partition_epoch"),
        broker=c.num("origin_broker"),
        detail="follower_started",
    )


def _partition_recovered(c: _Ctx) -> None:
    c.emit(_F.recovered, leader=c.num("leader"), recovering=False)


_REGISTRATION = re.compile(r"(\w+)=(\[[^\]]*\]|[^,)\s]+)")
_DIFF_REPLICAS = re.compile(r"(?:^|, )replicas: \[([^\]]*)\] -> \[([^\]]*)\]")


def _int_list(text: str) -> tuple[int, ...] | None:
    body = text.strip().strip("[]").strip()
    if not body:
        return ()
    parts = [part.strip() for part in body.split(",")]
    if not all(part.lstrip("-").isdigit() for part in parts):
        return None
    return tuple(int(part) for part in parts)


def _kraft_partition_change(c: _Ctx) -> None:
    phase = c.text("phase")
    detail = c.text("detail") or ""
    if phase == "created":
        fields = dict(_REGISTRATION.findall(detail))
        leader = as_int(fields.get("leader"))
        c.emit(
            _F.leadership_written,
            leader=leader,
            leader_epoch=as_int(fields.get("leaderEpoch")),
            partition_epoch=as_int(fields.get("partitionEpoch")),
            isr=_int_list(fields.get("isr", "")) or None,
            replicas=_int_list(fields.get("replicas", "")) or None,
            trigger="new_partition",
            recovering=fields.get("leaderRecoveryState") == "RECOVERING",
        )
        return
    if phase in ("replayed", "assignment_changed"):
        fields = dict(_REGISTRATION.findall(detail))
        topic = c.text("topic")
        partition = as_int(fields.get("partitionId"))
        if topic is None or partition is None:
            c.note(f"KRaft partition change without a partition: {detail[:80]!r}")
            return
        tps = [TopicPartition(topic, partition)]
        replicas = _int_list(fields.get("replicas", "null"))
        if replicas:
            # a reassignment's replicas, adding and removing sets: its target is known
            c.emit(
                _F.assignment,
                tps,
                replicas=replicas,
                adding_replicas=_int_list(fields.get("addingReplicas", "null")),
                removing_replicas=_int_list(fields.get("removingReplicas", "null")),
                detail="kraft_record",
            )
        leader = as_int(fields.get("leader"))
        if leader is not None and leader != -2:
            c.emit(_F.leader_claimed, tps, leader=leader)
        return
    previous_isr, isr = c.ints("previous_isr"), c.ints("isr")
    values = c.leadership(keep_empty_isr=False)
    values["isr"] = isr
    unclean = c.text("election_type") == "UNCLEAN"
    moved = _DIFF_REPLICAS.search(detail)
    new_replicas = _int_list(moved.group(2)) if moved else None
    if values["leader_epoch"] is None:
        # Neither leader nor leader epoch in the diff: an ISR (or assignment) change only.
        if new_replicas:
            c.emit(_F.assignment, replicas=new_replicas, detail="kraft_change")
        if isr is not None:
            c.emit(
                _F.isr_changed,
                previous_isr=previous_isr,
                isr=isr,
                partition_epoch=values["partition_epoch"],
                detail="kraft_change",
            )
        return
    c.emit(
        _F.leadership_written,
        previous_isr=previous_isr,
        previous_leader=c.num("previous_leader"),
        previous_leader_epoch=c.num("previous_leader_epoch"),
        replicas=new_replicas or None,
        detail="kraft_change",
        **values,
    )
    if unclean:
        c.emit(_F.unclean_warning, leader=c.num("leader"), trigger="kraft_unclean")


def _kraft_unclean_election(c: _Ctx) -> None:
    if c.text("topic") is None:
        return  # "using an unclean election" names the topic id only; the diff line follows
    phase = c.text("phase")
    if phase == "failed":
        c.emit(_F.election_failed, to_state="OnlinePartition", detail=c.text("error"))
    else:
        c.emit(_F.election_started, trigger="offline", detail="kraft_unclean_" + (phase or ""))


# --- cluster facts ------------------------------------------------------------------------


def _broker_change(c: _Ctx) -> None:
    for broker in c.ints("deleted_brokers") or ():
        c.fact(_K.broker_down, broker=broker, detail="deleted")
    for broker in c.ints("bounced_brokers") or ():
        c.fact(_K.broker_down, broker=broker, detail="bounced")
        c.fact(_K.broker_up, broker=broker, detail="bounced")
    for broker in c.ints("added_brokers") or ():
        c.fact(_K.broker_up, broker=broker, detail="added")
    live = c.ints_kept("live_brokers")
    if live is not None and c.text("phase") is None:
        c.fact(_K.registered_set, brokers=live)


def _broker_startup(c: _Ctx) -> None:
    for broker in c.ints("brokers") or ():
        c.fact(_K.broker_up, broker=broker, detail="startup")


def _broker_failure(c: _Ctx) -> None:
    for broker in c.ints("brokers") or ():
        c.fact(_K.broker_down, broker=broker, detail="failure")


def _live_brokers(c: _Ctx) -> None:
    live = c.ints_kept("live_brokers")
    if live is not None:
        c.fact(_K.live_set, brokers=live, detail=c.text("phase"))


def _shutting_down_brokers(c: _Ctx) -> None:
    brokers = c.ints_kept("brokers") or ()
    if c.text("phase") == "removed":
        c.fact(_K.shutting_down_remove, brokers=brokers)
    else:
        c.fact(_K.shutting_down_set, brokers=brokers, detail=c.text("phase"))


def _controlled_shutdown(c: _Ctx) -> None:
    if c.text("phase") == "started" and c.num("broker") is not None:
        c.fact(_K.shutting_down_add, broker=c.num("broker"), detail="controlled_shutdown")


def _controller_elected(c: _Ctx) -> None:
    c.fact(_K.controller, controller_id=c.num("controller_id"), epoch=c.num("controller_epoch"))


def _controller_epoch(c: _Ctx) -> None:
    epoch = c.num("controller_epoch")
    if epoch is not None:
        c.fact(_K.controller_epoch, controller_id=c.num("controller_id"), epoch=epoch)


def _controller_resigned(c: _Ctx) -> None:
    c.fact(_K.controller, controller_id=c.num("controller_id"), detail="resigned")


def _kraft_controller(c: _Ctx) -> None:
    c.fact(_K.controller, controller_id=c.num("controller_id"), epoch=c.num("controller_epoch"))


def _kraft_leader_changed(c: _Ctx) -> None:
    leader = c.num("leader")
    if leader is not None:
        c.fact(_K.controller, controller_id=leader, epoch=c.num("controller_epoch"))


def _kraft_fenced(c: _Ctx) -> None:
    c.fact(_K.broker_down, broker=c.num("broker"), epoch=c.num("broker_epoch"), detail="fenced")


def _kraft_unfenced(c: _Ctx) -> None:
    c.fact(_K.broker_up, broker=c.num("broker"), epoch=c.num("broker_epoch"), detail="unfenced")


def _kraft_registered(c: _Ctx) -> None:
    if c.text("phase") == "registering":
        epoch = c.num("broker_epoch")
        c.fact(_K.broker_down, broker=c.num("broker"), epoch=epoch, detail="new_incarnation")


_FLAG = re.compile(r"(fenced|inControlledShutdown)=(-?\d+)")


def _kraft_registration_changed(c: _Ctx) -> None:
    broker = c.num("broker")
    epoch = c.num("broker_epoch")
    phase = c.text("phase")
    if phase == "unregistered":
        c.fact(_K.broker_down, broker=broker, epoch=epoch, detail="unregistered")
        return
    if phase is not None:
        return
    flags = dict(_FLAG.findall(c.text("detail") or ""))
    fenced = flags.get("fenced")
    if fenced == "1":
        c.fact(_K.broker_down, broker=broker, epoch=epoch, detail="fenced")
    elif fenced == "-1":
        c.fact(_K.broker_up, broker=broker, epoch=epoch, detail="unfenced")
    if flags.get("inControlledShutdown") == "1":
        c.fact(_K.shutting_down_add, broker=broker, detail="kraft_controlled_shutdown")


def _kraft_controlled_shutdown(c: _Ctx) -> None:
    if c.text("phase") == "granted":
        c.fact(_K.shutting_down_add, broker=c.num("broker"), detail="kraft_controlled_shutdown")


def _kraft_partitions_changing(c: _Ctx) -> None:
    c.fact(_K.kraft_context, broker=c.num("broker"), detail=c.text("detail"))


def _kraft_periodic_task(c: _Ctx) -> None:
    count = c.num("count")
    if count:
        c.fact(_K.kraft_context, detail=c.text("detail"))


def _unclean_enabled(c: _Ctx) -> None:
    topic = c.text("topic")
    if topic is None:
        c.fact(_K.config, scope="broker_default", name="<default>", key=UNCLEAN_KEY, value="true")
    else:
        c.fact(_K.config, scope="topic", name=topic, key=UNCLEAN_KEY, value="true")


def _kraft_config(c: _Ctx) -> None:
    key, _, value = (c.text("detail") or "").partition(" to ")
    if key not in CONFIG_KEYS:
        return
    phase = c.text("phase")
    broker = c.num("broker")
    scope, name = {
        "topic": ("topic", c.text("topic")),
        "broker": ("broker", None if broker is None else str(broker)),
    }.get(phase or "", ("broker_default", "<default>"))
    # a ConfigRecord without a value removes the config (logged as "to null")
    c.fact(_K.config, scope=scope, name=name, key=key, value=None if value == "null" else value)


def _kraft_topic_created(c: _Ctx) -> None:
    c.fact(_K.topic_created, topic=c.text("topic"), value=c.text("topic_id"))


def _kraft_topic_deleted(c: _Ctx) -> None:
    c.fact(_K.topic_deleted, topic=c.text("topic"), value=c.text("topic_id"))


def _replicas_marked_offline(c: _Ctx) -> None:
    names = ",".join(as_strs(c.row.get("partitions")) or ())
    c.fact(_K.log_dir_failure, broker=c.num("broker"), brokers=c.ints("brokers"), detail=names)


_HANDLERS: dict[str, Handler] = {
    "partition_state_change": _partition_state_change,
    "partition_state_change_failed": _partition_state_change_failed,
    "leader_election_started": _leader_election_started,
    "leader_elected": _leader_elected,
    "leader_selected": _leader_selected,
    "offline_partition_no_live_isr": _no_live_isr,
    "unclean_leader_election": _unclean_warning,
    "last_isr_retained": _last_isr_retained,
    "leader_and_isr_initialized": _leader_and_isr_initialized,
    "replica_state_change": _replica_state_change,
    "replica_state_change_failed": _replica_state_change_failed,
    "replica_removed_from_isr": _replica_removed_from_isr,
    "alter_isr_applied": _alter_isr_applied,
    "isr_shrink": _isr_changed,
    "isr_expand": _isr_changed,
    "isr_update_committed": _isr_changed,
    "preferred_election_started": _preferred_election_started,
    "preferred_replica_imbalance": _preferred_replica_imbalance,
    "preferred_election_completed": _preferred_election_completed,
    "preferred_election_failed": _preferred_election_failed,
    "reassignment": _reassignment,
    "leader_epoch_updated": _leader_epoch_updated,
    "topic_deletion": _topic_deletion,
    "topics_changed": _topics_changed,
    "topic_creation_callback": _new_partitions,
    "partition_creation_callback": _new_partitions,
    "leader_and_isr_sent": _observed,
    "leader_and_isr_received": _observed,
    "update_metadata_sent": _observed,
    "update_metadata_received": _observed,
    "partition_leader_started": _partition_leader_started,
    "partition_follower_started": _partition_follower_started,
    "partition_recovered": _partition_recovered,
    "kraft_partition_change": _kraft_partition_change,
    "kraft_unclean_election": _kraft_unclean_election,
    "broker_change": _broker_change,
    "broker_startup_callback": _broker_startup,
    "broker_failure_callback": _broker_failure,
    "live_brokers": _live_brokers,
    "shutting_down_brokers": _shutting_down_brokers,
    "controlled_shutdown": _controlled_shutdown,
    "controller_elected": _controller_elected,
    "controller_epoch_incremented": _controller_epoch,
    "controller_ready": _controller_epoch,
    "controller_resigned": _controller_resigned,
    "kraft_controller_activated": _kraft_controller,
    "kraft_leader_changed": _kraft_leader_changed,
    "kraft_leadership_renounced": _controller_resigned,
    "kraft_broker_fenced": _kraft_fenced,
    "kraft_broker_unfenced": _kraft_unfenced,
    "kraft_broker_registered": _kraft_registered,
    "kraft_broker_registration_changed": _kraft_registration_changed,
    "kraft_controlled_shutdown": _kraft_controlled_shutdown,
    "kraft_partitions_changing": _kraft_partitions_changing,
    "kraft_periodic_task": _kraft_periodic_task,
    "unclean_election_enabled": _unclean_enabled,
    "kraft_topic_created": _kraft_topic_created,
    "kraft_topic_deleted": _kraft_topic_deleted,
    "kraft_config_replayed": _kraft_config,
    "replicas_marked_offline": _replicas_marked_offline,
}
"""Event types the replay uses; the others (requests summaries, rebalance ratios, raft and
thread lifecycle, ...) carry nothing about elections and normalize to nothing."""

LOG_EVENT_TYPES: frozenset[str] = frozenset(_HANDLERS)
"""The ``event_type`` values ``normalize_controller_event`` reads; a row of any other type
normalizes to nothing, so a caller may leave it out unread."""


def normalize_controller_event(row: Mapping[str, Any]) -> Normalized:
    """Partition evidence and cluster facts of one ``silver.controller_events`` row.

    Args:
        row: column -> value (``LOG_COLUMNS`` are read; others are ignored).

    Returns:
        The evidence (one per partition the event names) and the cluster facts. An event type
        the replay does not use gives two empty lists. Never raises on bad values.
    """
    ctx = _Ctx(row)
    handler = _HANDLERS.get(ctx.text("event_type") or "")
    if handler is not None:
        try:
            handler(ctx)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            ctx.evidence.clear()
            ctx.facts.clear()
            ctx.note(f"{ctx.text('event_type')}: {type(exc).__name__}: {exc}")
    return Normalized(ctx.evidence, ctx.facts)


def evidence_from_controller_event(row: Mapping[str, Any]) -> list[PartitionEvidence]:
    """The partition evidence of one ``silver.controller_events`` row (see the module doc).

    Args:
        row: column -> value.

    Returns:
        One record per partition the event names (possibly none).
    """
    return normalize_controller_event(row).evidence


def facts_from_controller_event(row: Mapping[str, Any]) -> list[ClusterFact]:
    """The cluster facts of one ``silver.controller_events`` row (see the module doc).

    Args:
        row: column -> value.

    Returns:
        The facts (possibly none), including ``note`` facts for unusable values.
    """
    return normalize_controller_event(row).facts
