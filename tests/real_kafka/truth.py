"""The truth of a real-cluster capture: ZooKeeper's own ``TxnLogToolkit`` dump, parsed with
``kafkactl_core.zk.textdump``, and what it says the controller decided.

Every committed write of ``/brokers/topics/<t>/partitions/<p>/state`` (a create or a setData,
alone or in a multi that did not fail) is a ``StateWrite``. A write *sets a new leader* when
its leader is a broker (not -1) and differs from the partition's previous write (or there was
none: the partition's creation). Such an election is unclean exactly when the new leader is not
in the ISR of the write before. A write of leader -1 over a live leader takes the partition
offline, unless the topic's deletion began before it (``/admin/delete_topics/<topic>``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from kafkactl_core.zk.jute import CreateTxn, MultiTxn, SetDataTxn, UnknownTxn
from kafkactl_core.zk.textdump import parse_txnlog_dump

STATE_PATH = re.compile(r"^/brokers/topics/([^/]+)/partitions/([0-9]+)/state$")
REGISTRATION_PATH = re.compile(r"^/brokers/ids/([0-9]+)$")
LOSSY_REGISTRATION = re.compile(rb"create:.{4}/brokers/ids/([0-9]+)[^0-9/]", re.DOTALL)
"""A registration in a multi the dump prints lossily (its ACL and data bytes as text)."""
TOPIC_PATH = re.compile(r"^/brokers/topics/([^/]+)$")
DELETE_MARK = re.compile(r"^/admin/delete_topics/([^/]+)$")


@dataclass(frozen=True)
class StateWrite:
    """One committed write of a partition's state znode."""

    zxid: int
    time_ms: int
    topic: str
    partition: int
    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    controller_epoch: int


@dataclass(frozen=True)
class TruthElection:
    """A write that set a new leader, with the write before it."""

    write: StateWrite
    before: StateWrite | None

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.write.topic, self.write.partition, self.write.leader_epoch)

    @property
    def unclean(self) -> bool:
        return self.before is not None and self.write.leader not in self.before.isr


@dataclass(frozen=True)
class Truth:
    """What the dumps of one capture hold."""

    writes: list[StateWrite]
    lossy_state_zxids: list[int]
    dump_issues: list[str]
    deletion_marked: dict[str, int] = field(default_factory=dict)
    """Topic -> zxid of its ``/admin/delete_topics/<topic>`` create (a deletion begins)."""
    registrations: list[tuple[int, int, int]] = field(default_factory=list)
    """(broker, zxid: its broker epoch, time ms) of every ``/brokers/ids/<id>`` create."""
    topic_writes: list[tuple[int, int, str, dict[int, tuple[int, ...]], bool]] = field(
        default_factory=list
    )
    """(zxid, time ms, topic, partition -> replicas, a reassignment is in flight) of every
    write of ``/brokers/topics/<topic>``."""

    def reassignments(self) -> list[tuple[str, int, tuple[int, ...], tuple[int, ...], int, int]]:
        """(topic, partition, replicas before, after, started ms, finished ms) of every finished
        change of a partition's replicas: the topic znode's replicas leave one value (with the
        replicas being added, while in flight) and settle on another."""
        settled: dict[tuple[str, int], tuple[int, ...]] = {}
        started: dict[tuple[str, int], int] = {}
        found = []
        for _, time_ms, topic, partitions, moving in self.topic_writes:
            for partition, replicas in partitions.items():
                key = (topic, partition)
                before = settled.get(key)
                if before is not None and replicas != before and key not in started:
                    started[key] = time_ms
                if not moving and key in started and before is not None:
                    if replicas != before:
                        found.append((topic, partition, before, replicas, started[key], time_ms))
                    del started[key]
                if not moving:
                    settled[key] = replicas
        return found

    def isr_churn(self) -> dict[tuple[str, int, int], tuple[int, int]]:
        """``(topic, partition, broker) -> (shrinks, expands)`` over the state writes: how often
        each replica left and joined its partition's ISR (a topic's deletion ends the chain)."""
        last: dict[tuple[str, int], tuple[int, ...]] = {}
        counts: dict[tuple[str, int, int], tuple[int, int]] = {}
        for write in self.writes:
            key = (write.topic, write.partition)
            deleting = self.deletion_marked.get(write.topic)
            if deleting is not None and write.zxid > deleting:
                last.pop(key, None)
                continue
            before = last.get(key)
            last[key] = write.isr
            if before is None:
                continue
            for broker in {*before, *write.isr}:
                shrinks, expands = counts.get((*key, broker), (0, 0))
                if broker not in write.isr:
                    counts[(*key, broker)] = (shrinks + 1, expands)
                elif broker not in before:
                    counts[(*key, broker)] = (shrinks, expands + 1)
        return counts

    def elections(self) -> list[TruthElection]:
        """Every write that set a new leader, in zxid order."""
        last: dict[tuple[str, int], StateWrite] = {}
        found = []
        for write in self.writes:
            before = last.get((write.topic, write.partition))
            if write.leader >= 0 and (before is None or before.leader != write.leader):
                found.append(TruthElection(write, before))
            last[(write.topic, write.partition)] = write
        return found

    def offline_writes(self) -> list[StateWrite]:
        """Writes of leader -1 over a partition that had a leader, its topic not being deleted
        (a deletion writes leader -1 first: no election failed)."""
        last: dict[tuple[str, int], StateWrite] = {}
        found = []
        for write in self.writes:
            before = last.get((write.topic, write.partition))
            deleting = self.deletion_marked.get(write.topic)
            if deleting is not None and write.zxid > deleting:
                continue
            if write.leader < 0 and before is not None and before.leader >= 0:
                found.append(write)
            last[(write.topic, write.partition)] = write
        return found


def _state_write(zxid: int, time_ms: int, path: str, data: bytes | None) -> StateWrite | None:
    match = STATE_PATH.match(path)
    if match is None or data is None:
        return None
    value = json.loads(data)
    return StateWrite(
        zxid,
        time_ms,
        match.group(1),
        int(match.group(2)),
        int(value["leader"]),
        int(value["leader_epoch"]),
        tuple(int(b) for b in value["isr"]),
        int(value["controller_epoch"]),
    )


def read_truth(capture: Path) -> Truth:
    """Parse every ``truth/*txnlog*`` dump of a capture."""
    writes: list[StateWrite] = []
    lossy: list[int] = []
    issues: list[str] = []
    deletions: dict[str, int] = {}
    registrations: list[tuple[int, int, int]] = []
    topics: list[tuple[int, int, str, dict[int, tuple[int, ...]], bool]] = []
    for dump in sorted((capture / "truth").glob("*txnlog*")):
        with dump.open(encoding="utf-8", newline="\n") as text:
            parsed = parse_txnlog_dump(text, dump.name)
        issues += [f"{i.file}:{i.offset}: {i.detail}" for i in parsed.summary.issues]
        for entry in parsed.entries:
            record = entry.record
            if isinstance(record, UnknownTxn):
                for found in LOSSY_REGISTRATION.finditer(record.raw):
                    registrations.append((int(found.group(1)), entry.zxid, entry.time))
            if isinstance(record, MultiTxn):
                if record.failed:
                    continue
                records = [sub.record for sub in record.txns]
            else:
                records = [record]
            for item in records:
                mark = DELETE_MARK.match(item.path) if isinstance(item, CreateTxn) else None
                if mark is not None:
                    deletions.setdefault(mark.group(1), entry.zxid)
                path = getattr(item, "path", "")
                registered = REGISTRATION_PATH.match(path) if isinstance(item, CreateTxn) else None
                if registered is not None:
                    registrations.append((int(registered.group(1)), entry.zxid, entry.time))
                topic = TOPIC_PATH.match(path)
                if topic is not None and isinstance(item, CreateTxn | SetDataTxn) and item.data:
                    value = json.loads(item.data)
                    replicas = {
                        int(p): tuple(int(b) for b in r) for p, r in value["partitions"].items()
                    }
                    moving = bool(value.get("adding_replicas") or value.get("removing_replicas"))
                    topics.append((entry.zxid, entry.time, topic.group(1), replicas, moving))
                if isinstance(item, CreateTxn | SetDataTxn):
                    write = _state_write(entry.zxid, entry.time, item.path, item.data)
                    if write is not None:
                        writes.append(write)
                        if entry.zxid in parsed.lossy:
                            lossy.append(entry.zxid)
    writes.sort(key=lambda w: w.zxid)
    return Truth(writes, lossy, issues, deletions, registrations, topics)
