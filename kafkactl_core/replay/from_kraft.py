"""A KRaft cluster's metadata log, replayed record by record into evidence and cluster facts.

A metadata record says what changed, not what the state became: a ``PartitionChangeRecord``
carries only the fields it sets and its leader epoch is the partition's plus one. So the records
of one cluster are applied in log order to the controller's image (``kraft.ClusterState``, the
same rules ``PartitionRegistration.merge`` and the control managers follow), and each partition
record becomes ``leadership_written`` evidence with the registration before and after it: leader,
leader and partition epochs, ISR, recovery state. The image also turns broker registrations,
fencing, controlled shutdown, configs, topics and the raft leaders of ``LeaderChange`` control
records into cluster facts. Records of a metadata transaction apply at its end and not at all
when it aborts, as the controller's loader does.

``order_entries`` picks what to replay from the files of one cluster: the segments' records by
offset (a record copied by several controllers once), preceded by the newest snapshot their
offsets continue when the log no longer starts at offset 0.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kafkactl_core.kraft import records as kr
from kafkactl_core.kraft.metadata_version import MetadataVersion
from kafkactl_core.kraft.registration import PartitionRegistration
from kafkactl_core.kraft.state import METADATA_VERSION_FEATURE, ClusterState
from kafkactl_core.metadata_log.segments import SNAPSHOT, kind_of
from kafkactl_core.model import LeaderRecoveryState
from kafkactl_core.replay.evidence import Fact, PartitionEvidence, Source
from kafkactl_core.replay.facts import ClusterFact, ClusterFactKind
from kafkactl_core.replay.from_logs import Normalized
from kafkactl_core.replay.settings import CONFIG_KEYS
from kafkactl_core.versions import KafkaRelease

__all__ = [
    "KRAFT_CHANGE_COLUMNS",
    "KRaftMetadataReplay",
    "MetadataEntry",
    "order_entries",
    "running_release",
]

_K = ClusterFactKind
_SOURCE = Source.kraft_metadata
_TOPIC, _BROKER = 2, 4
"""``ConfigResource.Type`` ids of a ConfigRecord's ``resourceType``."""
_FENCE, _UNFENCE = 1, -1
_NEW, _FENCED, _UNFENCED = "new_incarnation", "fenced", "unfenced"
"""The broker facts' ``detail`` (their ``epoch`` is the broker epoch of the registration)."""
"""``BrokerRegistrationFencingChange`` values of a BrokerRegistrationChangeRecord's ``fenced``."""
_TRANSACTION = {"BEGIN_TRANSACTION_RECORD", "END_TRANSACTION_RECORD", "ABORT_TRANSACTION_RECORD"}


@dataclass(frozen=True, slots=True)
class MetadataEntry:
    """One decoded record of a metadata log file.

    Attributes:
        cluster: the cluster.
        file: the file it was read from.
        offset: its offset (a segment's log offset; a snapshot's record index).
        time_ms: its timestamp.
        batch_epoch: its batch's partition leader epoch (the raft epoch it was written in).
        kind: ``metadata`` or ``control``.
        type: the dump tool's name (``PARTITION_CHANGE_RECORD``, ``LeaderChange``).
        data: the decoded JSON object, None when it could not be decoded.
        problem: why it could not be decoded, or None.
        snapshot_end: for a snapshot's record, the snapshot's end offset (else None).
    """

    cluster: str
    file: str
    offset: int
    time_ms: int
    batch_epoch: int
    kind: str
    type: str
    data: Mapping[str, Any] | None
    problem: str | None = None
    snapshot_end: int | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> MetadataEntry:
        """An entry from a ``silver.kraft_changes`` row (``KRAFT_CHANGE_COLUMNS``; ``time`` in
        epoch ms), a snapshot's told apart by its file name."""
        file = str(row.get("file") or "")
        name = file.rsplit("/", 1)[-1]
        kind = kind_of(name)
        text = row.get("data_json")
        return cls(
            str(row.get("cluster") or ""),
            name,
            int(row.get("offset") or 0),
            int(row.get("time") or 0),
            int(row.get("partition_leader_epoch") or 0),
            str(row.get("kind") or ""),
            str(row.get("record_type") or ""),
            None if text is None else json.loads(str(text)),
            None if row.get("problem") is None else str(row.get("problem")),
            kind.base_offset if kind.kind == SNAPSHOT else None,
        )

    @property
    def ref(self) -> str:
        """``file:offset=N`` (``file:record=N`` in a snapshot)."""
        where = "offset" if self.snapshot_end is None else "record"
        return f"{self.file}:{where}={self.offset}"


def order_entries(entries: Iterable[MetadataEntry]) -> list[MetadataEntry]:
    """The records to replay, in replay order.

    Args:
        entries: the records of one cluster's files (segments and snapshots), in any order.

    Returns:
        Segment records by offset, each offset once. When the segments do not start at offset 0
        (older ones were deleted after a snapshot), the oldest snapshot that ends within them
        comes first (the longest history the files tell) and the segment records before its
        end are dropped; when every snapshot ends before the first segment's record, the newest
        one (the records between are lost). Without segments, the newest snapshot alone.
    """
    segment: dict[int, MetadataEntry] = {}
    snapshots: dict[int, list[MetadataEntry]] = {}
    for entry in entries:
        if entry.snapshot_end is None:
            segment.setdefault(entry.offset, entry)
        else:
            snapshots.setdefault(entry.snapshot_end, []).append(entry)
    offsets = sorted(segment)
    if (offsets and offsets[0] == 0) or not snapshots:
        return [segment[o] for o in offsets]
    within = [end for end in snapshots if offsets and offsets[0] <= end <= offsets[-1] + 1]
    end = min(within) if within else max(snapshots)
    base = sorted(snapshots[end], key=lambda e: e.offset)
    return base + [segment[o] for o in offsets if o >= end]


def running_release(entries: Iterable[MetadataEntry]) -> KafkaRelease | None:
    """The Kafka release a cluster's controllers run, as its metadata log tells it.

    A controller (``RegisterControllerRecord``) or broker (``RegisterBrokerRecord``) registers
    the ``metadata.version`` levels its code supports; the newest one a release supports is the
    newest that release introduced.

    Args:
        entries: the cluster's records.

    Returns:
        The release of the newest level the latest controller registration supports (a broker's
        when no controller registered in the files), None when no registration names one.
    """
    latest: dict[str, int] = {}
    for entry in entries:
        kind = _REGISTRATIONS.get(entry.type)
        if kind is None or entry.data is None:
            continue
        for feature in entry.data.get("features") or ():
            if feature.get("name") == METADATA_VERSION_FEATURE:
                latest[kind] = int(feature["maxSupportedVersion"])
    level = latest.get("controller", latest.get("broker"))
    if level is None:
        return None
    try:
        return MetadataVersion.from_feature_level(level).release
    except ValueError:
        return None


KRAFT_CHANGE_COLUMNS = (
    "cluster",
    "file",
    "offset",
    "time",
    "partition_leader_epoch",
    "kind",
    "record_type",
    "data_json",
    "problem",
)
"""The ``silver.kraft_changes`` columns ``MetadataEntry.from_row`` reads (``time``: the
record's timestamp in epoch ms)."""

_REGISTRATIONS = {"REGISTER_CONTROLLER_RECORD": "controller", "REGISTER_BROKER_RECORD": "broker"}


class KRaftMetadataReplay:
    """Replays one cluster's metadata records (in ``order_entries`` order) into evidence."""

    def __init__(self, cluster: str) -> None:
        """An empty image.

        Args:
            cluster: the cluster.
        """
        self.cluster = cluster
        # Applying records does not depend on the release or the metadata version (a log's
        # bootstrap FeatureLevelRecord sets the latter): the oldest KRaft MV until it does.
        self.state = ClusterState(MetadataVersion.parse("3.0-IV1"))
        self._pending: list[MetadataEntry] | None = None
        self._begin: MetadataEntry | None = None
        self._next_offset = 0

    def feed(self, entries: Iterable[MetadataEntry]) -> Normalized:
        """Apply records in order.

        Args:
            entries: the next records.

        Returns:
            The evidence and facts they give (a transaction's once it ends).
        """
        out = Normalized([], [])
        for entry in entries:
            self._check_offset(entry, out)
            if entry.type in _TRANSACTION:
                self._transaction(entry, out)
            elif self._pending is not None:
                self._pending.append(entry)
            else:
                self._apply(entry, out)
        return out

    def finish(self) -> Normalized:
        """The end of the input: a transaction still open never applied."""
        out = Normalized([], [])
        begin = self._begin
        if self._pending is not None and begin is not None:
            detail = f"metadata transaction never ended: {len(self._pending)} records not applied"
            out.facts.append(
                self._fact(begin.time_ms, begin.ref, begin.offset, _K.note, detail=detail)
            )
        self._pending = self._begin = None
        return out

    def _check_offset(self, entry: MetadataEntry, out: Normalized) -> None:
        """Every offset of the log once: a snapshot stands for the records before its end, a
        segment record must follow the one before it (a hole is a segment file or a batch that
        did not reach the replay, and the changes in it with it)."""
        if entry.snapshot_end is not None:
            self._next_offset = entry.snapshot_end
            return
        if entry.offset > self._next_offset:
            detail = (
                f"metadata log offsets {self._next_offset} to {entry.offset - 1} are missing (a "
                "segment file absent, or a batch unreadable): the changes they held are not "
                "replayed"
            )
            out.facts.append(
                self._fact(
                    entry.time_ms, entry.ref, entry.offset, _K.records_missing, detail=detail
                )
            )
        self._next_offset = entry.offset + 1

    def _transaction(self, entry: MetadataEntry, out: Normalized) -> None:
        pending, self._pending = self._pending, None
        if entry.type == "BEGIN_TRANSACTION_RECORD":
            self._pending, self._begin = [], entry
            if pending:
                note = f"a transaction began before the one of {pending[0].ref} ended"
                out.facts.append(
                    self._fact(entry.time_ms, entry.ref, entry.offset, _K.note, detail=note)
                )
            return
        if pending is None:
            return
        if entry.type == "ABORT_TRANSACTION_RECORD":
            if pending:
                note = f"aborted metadata transaction: {len(pending)} records not applied"
                out.facts.append(
                    self._fact(entry.time_ms, entry.ref, entry.offset, _K.note, detail=note)
                )
            return
        for held in pending:
            self._apply(held, out)

    # -- one record -----------------------------------------------------------------------

    def _fact(
        self, time: int | None, ref: str, seq: int, kind: ClusterFactKind, **values: Any
    ) -> ClusterFact:
        return ClusterFact(self.cluster, time, _SOURCE, kind, ref, seq, **values)

    def _apply(self, entry: MetadataEntry, out: Normalized) -> None:
        data = entry.data
        if data is None:
            detail = f"undecoded {entry.type} record: {entry.problem}"
            out.facts.append(
                self._fact(entry.time_ms, entry.ref, entry.offset, _K.note, detail=detail)
            )
            return
        if entry.kind == "control":
            if entry.type == "LeaderChange" and data.get("leaderId") is not None:
                out.facts.append(
                    self._fact(
                        entry.time_ms,
                        entry.ref,
                        entry.offset,
                        _K.controller,
                        controller_id=int(data["leaderId"]),
                        epoch=entry.batch_epoch,
                    )
                )
            return
        try:
            record = kr.record_from_json(entry.type, data)
        except ValueError:
            return  # a type the replay does not model (NoOp, producer ids, ACLs, quotas, ...)
        if isinstance(record, kr.PartitionRecord | kr.PartitionChangeRecord):
            self._partition(entry, record, out)
            return
        if isinstance(record, kr.ClearElrRecord):
            # each partition it empties is a change of its own, as Kafka merges it
            changes = self.state.clear_elr_changes(record)
            if isinstance(changes, str):
                out.facts.append(
                    self._fact(entry.time_ms, entry.ref, entry.offset, _K.note, detail=changes)
                )
                return
            for change in changes:
                self._partition(entry, change, out)
            return
        if isinstance(record, kr.RemoveTopicRecord):
            self._topic_removed(entry, record.topic_id, out)
        facts = self._cluster_facts(entry, record)
        reason = self.state.replay(record)
        if reason is not None:
            facts = [self._fact(entry.time_ms, entry.ref, entry.offset, _K.note, detail=reason)]
        out.facts.extend(facts)

    def _cluster_facts(self, entry: MetadataEntry, record: kr.MetadataRecord) -> list[ClusterFact]:
        def fact(kind: ClusterFactKind, **values: Any) -> ClusterFact:
            return self._fact(entry.time_ms, entry.ref, entry.offset, kind, **values)

        if isinstance(record, kr.TopicRecord):
            return [fact(_K.topic_created, topic=record.name, value=record.topic_id)]
        if isinstance(record, kr.ConfigRecord):
            return self._config(record, fact)
        if isinstance(record, kr.RegisterBrokerRecord):
            kind, how = (_K.broker_down, _NEW) if record.fenced else (_K.broker_up, "registered")
            return [fact(kind, broker=record.broker_id, epoch=record.broker_epoch, detail=how)]
        if isinstance(record, kr.UnregisterBrokerRecord):
            return [
                fact(
                    _K.broker_down,
                    broker=record.broker_id,
                    epoch=record.broker_epoch,
                    detail="unregistered",
                )
            ]
        if isinstance(record, kr.FenceBrokerRecord):
            return [
                fact(_K.broker_down, broker=record.broker_id, epoch=record.epoch, detail=_FENCED)
            ]
        if isinstance(record, kr.UnfenceBrokerRecord):
            return [
                fact(_K.broker_up, broker=record.broker_id, epoch=record.epoch, detail=_UNFENCED)
            ]
        if isinstance(record, kr.BrokerRegistrationChangeRecord):
            found = []
            broker, epoch = record.broker_id, record.broker_epoch
            if record.fenced == _FENCE:
                found.append(fact(_K.broker_down, broker=broker, epoch=epoch, detail=_FENCED))
            elif record.fenced == _UNFENCE:
                found.append(fact(_K.broker_up, broker=broker, epoch=epoch, detail=_UNFENCED))
            if record.in_controlled_shutdown == 1:
                detail = "kraft_controlled_shutdown"
                found.append(fact(_K.shutting_down_add, broker=record.broker_id, detail=detail))
            return found
        return []

    def _config(self, record: kr.ConfigRecord, fact: Any) -> list[ClusterFact]:
        if record.name not in CONFIG_KEYS:
            return []
        if record.resource_type == _TOPIC:
            scope, name = "topic", record.resource_name
        elif record.resource_type == _BROKER:
            scope = "broker" if record.resource_name else "broker_default"
            name = record.resource_name or "<default>"
        else:
            return []
        return [fact(_K.config, scope=scope, name=name, key=record.name, value=record.value)]

    def _topic_removed(self, entry: MetadataEntry, topic_id: str, out: Normalized) -> None:
        topic = self.state.topic_by_id(topic_id)
        if topic is None:
            return
        out.facts.append(
            self._fact(
                entry.time_ms,
                entry.ref,
                entry.offset,
                _K.topic_deleted,
                topic=topic.name,
                value=topic_id,
            )
        )
        for number in topic.partitions:
            emit = _Emitter(self.cluster, topic.name, number, entry, out.evidence)
            emit(Fact.deletion, detail="kraft_remove_topic")

    def _partition(
        self,
        entry: MetadataEntry,
        record: kr.PartitionRecord | kr.PartitionChangeRecord,
        out: Normalized,
    ) -> None:
        topic = self.state.topic_by_id(record.topic_id)
        before = None if topic is None else topic.partitions.get(record.partition_id)
        reason = self.state.replay(record)
        if reason is not None or topic is None:
            detail = reason or f"no topic with id {record.topic_id}"
            out.facts.append(
                self._fact(entry.time_ms, entry.ref, entry.offset, _K.note, detail=detail)
            )
            return
        after = topic.partitions[record.partition_id]
        emit = _Emitter(self.cluster, topic.name, record.partition_id, entry, out.evidence)
        if isinstance(record, kr.PartitionRecord):
            _created(emit, after, entry)
        else:
            assert before is not None  # replay refuses a change of an unknown partition
            _changed(emit, record, before, after)


class _Emitter:
    __slots__ = ("cluster", "entry", "out", "partition", "topic")

    def __init__(
        self,
        cluster: str,
        topic: str,
        partition: int,
        entry: MetadataEntry,
        out: list[PartitionEvidence],
    ) -> None:
        self.cluster, self.topic, self.partition = cluster, topic, partition
        self.entry, self.out = entry, out

    def __call__(self, fact: Fact, **values: Any) -> None:
        e = self.entry
        self.out.append(
            PartitionEvidence(
                self.cluster,
                self.topic,
                self.partition,
                e.time_ms,
                _SOURCE,
                fact,
                e.ref,
                e.offset,
                **values,
            )
        )


def _recovering(reg: PartitionRegistration) -> bool:
    return reg.leader_recovery_state is LeaderRecoveryState.RECOVERING


def _assignment(emit: _Emitter, reg: PartitionRegistration, detail: str) -> None:
    emit(
        Fact.assignment,
        replicas=reg.replicas,
        adding_replicas=reg.adding_replicas,
        removing_replicas=reg.removing_replicas,
        detail=detail,
    )


def _leadership(emit: _Emitter, reg: PartitionRegistration, detail: str, **before: Any) -> None:
    emit(
        Fact.leadership_written,
        leader=reg.leader,
        leader_epoch=reg.leader_epoch,
        partition_epoch=reg.partition_epoch,
        isr=reg.isr,
        elr=reg.elr,
        recovering=_recovering(reg),
        detail=detail,
        **before,
    )


def _created(emit: _Emitter, reg: PartitionRegistration, entry: MetadataEntry) -> None:
    _assignment(emit, reg, "kraft_record")
    # A snapshot holds every partition as it was when the snapshot was taken, not when it was
    # created: its registrations are the state to start from, never an election.
    trigger = "new_partition" if entry.snapshot_end is None else None
    _leadership(emit, reg, "kraft_record", trigger=trigger)


def _changed(
    emit: _Emitter,
    record: kr.PartitionChangeRecord,
    before: PartitionRegistration,
    after: PartitionRegistration,
) -> None:
    if (
        record.replicas is not None
        or record.adding_replicas is not None
        or record.removing_replicas is not None
    ):
        _assignment(emit, after, "kraft_change")
    if record.changes_leader():
        _leadership(
            emit,
            after,
            "kraft_change",
            previous_leader=before.leader,
            previous_leader_epoch=before.leader_epoch,
            previous_isr=before.isr,
            previous_elr=before.elr,
            previous_last_known_elr=before.last_known_elr,
        )
        return
    if record.isr is not None:
        emit(
            Fact.isr_changed,
            previous_isr=before.isr,
            isr=after.isr,
            partition_epoch=after.partition_epoch,
            detail="kraft_change",
        )
    if _recovering(before) and not _recovering(after):
        emit(
            Fact.recovered,
            leader=after.leader,
            leader_epoch=after.leader_epoch,
            detail="kraft_change",
        )
