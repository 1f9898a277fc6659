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

    def replication_stretches(self) -> list[tuple[str, str, int, int, int | None]]:
        """``(condition, topic, partition, start ms, end ms or None)`` of every stretch a led
        partition's ISR was smaller than its replicas (``under_replicated``) or than the
        ``min.insync.replicas`` of its ConfigRecords (topic, else the cluster's broker default,
        else 1; capped at the replicas) (``under_min_isr``), the records replayed in log
        order; a topic's removal ends its stretches."""
        configs: dict[tuple[int, str], int] = {}
        state: dict[tuple[str, int], tuple[int, tuple[int, ...], tuple[int, ...]]] = {}
        started: dict[tuple[str, str, int], int] = {}
        found: list[tuple[str, str, int, int, int | None]] = []
        for record in self.records:
            data = record.data
            if record.type == "CONFIG_RECORD" and data.get("name") == "min.insync.replicas":
                key = (int(data["resourceType"]), str(data["resourceName"]))
                if data.get("value") is None:
                    configs.pop(key, None)
                else:
                    configs[key] = int(data["value"])
                continue
            if record.type == "REMOVE_TOPIC_RECORD":
                removed = self.topics[data["topicId"]]
                for key3 in [k for k in started if k[1] == removed]:
                    found.append((*key3, started.pop(key3), record.time_ms))
                continue
            if record.type not in ("PARTITION_RECORD", "PARTITION_CHANGE_RECORD"):
                continue
            topic, partition = self.topics[data["topicId"]], int(data["partitionId"])
            leader, isr, replicas = state.get((topic, partition), (-1, (), ()))
            if data.get("leader", NO_LEADER_CHANGE) != NO_LEADER_CHANGE:
                leader = int(data["leader"])
            isr = tuple(data["isr"]) if data.get("isr") is not None else isr
            replicas = tuple(data["replicas"]) if data.get("replicas") is not None else replicas
            state[(topic, partition)] = (leader, isr, replicas)
            min_isr = configs.get((2, topic), configs.get((4, ""), 1))
            holds = {
                "under_replicated": leader >= 0 and any(r not in isr for r in replicas),
                "under_min_isr": leader >= 0 and len(isr) < min(min_isr, len(replicas)),
            }
            for condition, now in holds.items():
                key3 = (condition, topic, partition)
                if now and key3 not in started:
                    started[key3] = record.time_ms
                elif not now and key3 in started:
                    found.append((*key3, started.pop(key3), record.time_ms))
        found += [(*key3, start, None) for key3, start in started.items()]
        return sorted(found, key=lambda f: (f[3], f[1], f[2], f[0]))

    def reassignments(
        self,
    ) -> list[tuple[str, int, int, int | None, tuple[int, ...], tuple[int, ...]]]:
        """``(topic, partition, start ms, end ms or None, replicas before, replicas after)`` of
        every reassignment: from the record that set adding or removing replicas to the one that
        cleared them (the replicas it writes are the target)."""
        replicas: dict[tuple[str, int], tuple[int, ...]] = {}
        moving: dict[tuple[str, int], tuple[int, tuple[int, ...]]] = {}
        found: list[tuple[str, int, int, int | None, tuple[int, ...], tuple[int, ...]]] = []
        for record in self.of_type("PARTITION_RECORD", "PARTITION_CHANGE_RECORD"):
            data = record.data
            key = (self.topics[data["topicId"]], int(data["partitionId"]))
            before = replicas.get(key)
            if data.get("replicas") is not None:
                replicas[key] = tuple(data["replicas"])
            if record.type == "PARTITION_RECORD" or data.get("replicas") is None:
                continue
            pending = bool(data.get("addingReplicas") or data.get("removingReplicas"))
            if pending and key not in moving and before is not None:
                moving[key] = (record.time_ms, before)
            elif not pending and key in moving:
                start, origin = moving.pop(key)
                found.append((*key, start, record.time_ms, origin, replicas[key]))
        found += [
            (*key, start, None, origin, replicas[key]) for key, (start, origin) in moving.items()
        ]
        return sorted(found, key=lambda f: (f[2], f[0], f[1]))

    def isr_churn(self) -> dict[tuple[str, int, int], tuple[int, int]]:
        """``(topic, partition, broker) -> (shrinks, expands)``: how often each replica left
        and joined its partition's ISR over the records that set the ISR (a topic's removal
        ends its partitions' chains)."""
        isrs: dict[tuple[str, int], tuple[int, ...]] = {}
        counts: dict[tuple[str, int, int], tuple[int, int]] = {}
        for record in self.records:
            data = record.data
            if record.type == "REMOVE_TOPIC_RECORD":
                removed = self.topics[data["topicId"]]
                isrs = {k: v for k, v in isrs.items() if k[0] != removed}
                continue
            if record.type not in ("PARTITION_RECORD", "PARTITION_CHANGE_RECORD"):
                continue
            if data.get("isr") is None:
                continue
            key = (self.topics[data["topicId"]], int(data["partitionId"]))
            isr = tuple(int(b) for b in data["isr"])
            before = isrs.get(key)
            isrs[key] = isr
            if before is None:
                continue
            for broker in {*before, *isr}:
                shrinks, expands = counts.get((*key, broker), (0, 0))
                if broker in before and broker not in isr:
                    counts[(*key, broker)] = (shrinks + 1, expands)
                elif broker in isr and broker not in before:
                    counts[(*key, broker)] = (shrinks, expands + 1)
        return counts

    def assignments(self) -> dict[tuple[str, int], list[tuple[int, ...]]]:
        """``(topic, partition) -> `` the replicas each record set, in log order, repeats
        dropped."""
        found: dict[tuple[str, int], list[tuple[int, ...]]] = {}
        for record in self.of_type("PARTITION_RECORD", "PARTITION_CHANGE_RECORD"):
            if record.data.get("replicas") is None:
                continue
            key = (self.topics[record.data["topicId"]], int(record.data["partitionId"]))
            replicas = tuple(int(b) for b in record.data["replicas"])
            seen = found.setdefault(key, [])
            if not seen or seen[-1] != replicas:
                seen.append(replicas)
        return found

    def raft_leaders(self) -> list[tuple[int | None, int]]:
        """(leader id, epoch) of every LeaderChange control record, in log order (the id is
        None where the dump does not print it)."""
        return [
            (int(r.data["leaderId"]) if "leaderId" in r.data else None, r.batch_epoch)
            for r in self.records
            if r.kind == "LeaderChange"
        ]

    def registrations(self) -> list[tuple[int, int]]:
        """(broker, time in ms) of every broker registration (a broker registers fenced)."""
        return [(broker, time) for broker, time, _ in self.registration_epochs()]

    def registration_epochs(self) -> list[tuple[int, int, int]]:
        """(broker, time in ms, broker epoch) of every broker registration."""
        return [
            (int(r.data["brokerId"]), r.time_ms, int(r.data["brokerEpoch"]))
            for r in self.of_type("REGISTER_BROKER_RECORD")
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
