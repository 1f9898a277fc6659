"""The truth of a KRaft capture: Kafka's own ``kafka-dump-log --cluster-metadata-decoder``
output over the controller's metadata log, and what it says the controller decided.

The dump prints a line per batch (``baseOffset: ... partitionLeaderEpoch: E ... CreateTime:
T``) and a line per record: a metadata record's ``payload: {"type": ..., "data": ...}`` or a
control record's ``LeaderChange: {...}`` (and the other control types). The partition state
is replayed as Kafka's ``PartitionRegistration.merge`` does, no more: a ``PartitionRecord``
sets it; a ``PartitionChangeRecord`` replaces the fields it carries, and one that carries
``leader`` bumps the leader epoch. A record *sets a new leader* when its leader is a broker
and differs from the partition's leader before (or creates the partition); such an election
is unclean exactly when the record sets the leader recovery state to RECOVERING (1).
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_BATCH = re.compile(r"^baseOffset: (\d+) .*? partitionLeaderEpoch: (-?\d+) .*?CreateTime: (\d+)")
_RECORD = re.compile(r"^\| offset: (\d+) CreateTime: (\d+) .*? (payload|[A-Za-z]+): (\{.*\})$")
_CONTROL = re.compile(r"^\| offset: (\d+) CreateTime: (\d+) .*? controlType: ([A-Z_]+)\(\d+\)$")
"""Up to 3.9 the tool names a control record's type only (``controlType: LEADER_CHANGE(2)``)."""
NO_LEADER_CHANGE = -2
RECOVERING = 1


@dataclass(frozen=True)
class MetadataRecord:
    """One record of the dump: a metadata record (``kind`` ``payload``) or a control one."""

    offset: int
    time_ms: int
    batch_epoch: int
    kind: str
    type: str
    data: dict[str, Any]


@dataclass(frozen=True)
class LeaderChange:
    """A record that set a partition's leader (a broker, or -1), with the state before."""

    record: MetadataRecord
    topic: str
    partition: int
    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    before_leader: int | None
    before_isr: tuple[int, ...]
    recovering: bool
    elr: tuple[int, ...] = ()
    before_elr: tuple[int, ...] = ()

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.topic, self.partition, self.leader_epoch)


@dataclass
class KRaftTruth:
    """What the dumps of one capture hold."""

    records: list[MetadataRecord]
    topics: dict[str, str] = field(default_factory=dict)
    """Topic id -> name."""

    def of_type(self, *types: str) -> list[MetadataRecord]:
        return [r for r in self.records if r.type in types]

    def leader_changes(self) -> list[LeaderChange]:
        """Every record that set a leader (a creation, or a change carrying ``leader``)."""
        state: dict[tuple[str, int], tuple[int, int, tuple[int, ...], tuple[int, ...]]] = {}
        found: list[LeaderChange] = []
        for record in self.of_type("PARTITION_RECORD", "PARTITION_CHANGE_RECORD"):
            data = record.data
            key = (self.topics[data["topicId"]], int(data["partitionId"]))
            before = state.get(key)
            if record.type == "PARTITION_RECORD":
                leader, epoch = int(data["leader"]), int(data["leaderEpoch"])
                isr = tuple(data["isr"])
                elr = tuple(data.get("eligibleLeaderReplicas") or ())
                sets_leader = True
            else:
                assert before is not None, f"change of unknown partition {key}"
                leader, epoch, isr, elr = before
                isr = tuple(data["isr"]) if data.get("isr") is not None else isr
                if data.get("eligibleLeaderReplicas") is not None:
                    elr = tuple(data["eligibleLeaderReplicas"])
                sets_leader = data.get("leader", NO_LEADER_CHANGE) != NO_LEADER_CHANGE
                if sets_leader:
                    leader, epoch = int(data["leader"]), epoch + 1
            state[key] = (leader, epoch, isr, elr)
            if sets_leader:
                found.append(
                    LeaderChange(
                        record,
                        key[0],
                        key[1],
                        leader,
                        epoch,
                        isr,
                        before[0] if before else None,
                        before[2] if before else (),
                        data.get("leaderRecoveryState") == RECOVERING,
                        elr,
                        before[3] if before else (),
                    )
                )
        return found

    def elections(self) -> list[LeaderChange]:
        """The changes that set a new broker as leader (creations included)."""
        return [
            c
            for c in self.leader_changes()
            if c.leader >= 0 and (c.before_leader is None or c.before_leader != c.leader)
        ]

    def offline(self) -> list[LeaderChange]:
        """The changes that took a led partition to no leader (-1)."""
        return [
            c
            for c in self.leader_changes()
            if c.leader < 0 and c.before_leader is not None and c.before_leader >= 0
        ]

    def raft_leaders(self) -> list[tuple[int | None, int]]:
        """(leader id, epoch) of every LeaderChange control record, in log order (the id is
        None where the dump does not print it)."""
        return [
            (int(r.data["leaderId"]) if "leaderId" in r.data else None, r.batch_epoch)
            for r in self.records
            if r.kind == "LeaderChange"
        ]

    def fencings(self) -> list[tuple[int, int]]:
        """(broker, time in ms) of every record that fenced a broker."""
        return [
            (int(r.data["brokerId"]), r.time_ms)
            for r in self.of_type("BROKER_REGISTRATION_CHANGE_RECORD", "FENCE_BROKER_RECORD")
            if r.type == "FENCE_BROKER_RECORD" or r.data.get("fenced") == 1
        ]


def read_kraft_truth(capture: Path) -> KRaftTruth:
    """Parse the dump of every segment of a capture (``truth/dump-<offset>.log.txt``, gzipped
    or not), in offset order.

    The dumps of its snapshots (``dump-<end offset>-<epoch>.checkpoint.txt``) are left out: a
    snapshot restates the state up to its end offset as records numbered from 0, while the
    segments, from offset 0 on, hold every record that made it (a capture's controller keeps
    every segment: the metadata log's retention, 7 days or 100 MiB, deletes none).

    Raises:
        AssertionError: a record line the parser does not know, a record outside a batch, or
            segments that do not start at offset 0.
    """
    records: list[MetadataRecord] = []
    dumps = sorted((capture / "truth").glob("dump-*.log.txt*"))
    assert dumps and dumps[0].name.startswith(f"dump-{0:020d}.log"), dumps[:1]
    for dump in dumps:
        epoch: int | None = None
        raw = dump.read_bytes()
        text = (gzip.decompress(raw) if dump.name.endswith(".gz") else raw).decode("utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            batch = _BATCH.match(line)
            if batch is not None:
                epoch = int(batch.group(2))
                continue
            if not line.startswith("| offset:"):
                continue
            match, control = _RECORD.match(line), _CONTROL.match(line)
            assert epoch is not None and (match or control), f"{dump.name}:{number}: {line[:200]}"
            if control is not None:
                kind, value = "LeaderChange" if control.group(3) == "LEADER_CHANGE" else "", {}
                offset, time_ms = int(control.group(1)), int(control.group(2))
                records.append(MetadataRecord(offset, time_ms, epoch, kind, control.group(3), {}))
                continue
            assert match is not None
            value = json.loads(match.group(4))
            kind = match.group(3)
            records.append(
                MetadataRecord(
                    int(match.group(1)),
                    int(match.group(2)),
                    epoch,
                    kind,
                    value["type"] if kind == "payload" else kind,
                    value["data"] if kind == "payload" else value,
                )
            )
    records.sort(key=lambda r: r.offset)
    truth = KRaftTruth(records)
    for record in truth.of_type("TOPIC_RECORD"):
        truth.topics[record.data["topicId"]] = record.data["name"]
    return truth
