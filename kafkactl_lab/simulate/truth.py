"""The simulator's ground truth against replayed elections: every election, field by field.

A simulation writes every election its controller made, and every failed attempt
(``new_leader`` -1: no leader could be elected), to ``ground-truth-elections.jsonl``; the
replay of the same run's evidence writes ``gold.elections``. ``compare`` matches elections by
partition and leader epoch (an epoch is written by one election only) and failed attempts by
partition and time (repeated attempts share the epoch in force: Kafka retries an offline
partition at every broker change and controller failover), and reports every one missing from
the replay, every replayed one the simulator did not make, and every field that differs:
trigger, previous and new leader, ISR before and after, clean or unclean, controller and its
epoch, the leader epoch before and the partition epoch, for failed attempts the epoch and ISR
in force after, and the time (the replay dates an election by its earliest evidence, which the
simulator writes within ``time_tolerance_ms`` of its record). Pure Python: the caller reads the
tables.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

NO_LEADER = -1

COMPARED_FIELDS = (
    "trigger",
    "prev_leader",
    "new_leader",
    "isr_before",
    "isr_after",
    "unclean",
    "controller_id",
    "controller_epoch",
    "prev_leader_epoch",
    "partition_epoch",
)
"""Fields compared besides the key (topic, partition, leader epoch) and the time; for failed
attempts, matched by time, the leader epoch is compared too."""

GOLD_COLUMNS = ("topic", "partition", "leader_epoch", "elected_at", *COMPARED_FIELDS)
"""The ``gold.elections`` columns ``Election.from_gold`` reads."""

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True, slots=True)
class Election:
    """One election or failed attempt, in ``gold.elections``' terms.

    Attributes:
        topic: the topic.
        partition: the partition.
        leader_epoch: the leader epoch written (failed attempt: written right after it, else in
            force).
        t_ms: when, in ms since the epoch (UTC).
        trigger: ``new_partition``, ``offline``, ``reassign``, ``preferred``, ...
        prev_leader: the leader before (-1: none; a new partition has none).
        new_leader: the leader elected (-1: none could be).
        isr_before: the ISR before (``None`` for a new partition, which has none).
        isr_after: the ISR written (failed attempt: written right after it, else in force).
        unclean: the new leader was not in the ISR before (failed attempt: ``None``).
        controller_id: the controller that elected.
        controller_epoch: its epoch.
        prev_leader_epoch: the leader epoch before (``None`` for a new partition).
        partition_epoch: the znode version written (failed attempt: written right after it,
            else in force).
    """

    topic: str
    partition: int
    leader_epoch: int | None
    t_ms: int | None
    trigger: str
    prev_leader: int | None
    new_leader: int
    isr_before: tuple[int, ...] | None
    isr_after: tuple[int, ...] | None
    unclean: bool | None
    controller_id: int | None
    controller_epoch: int | None
    prev_leader_epoch: int | None
    partition_epoch: int | None

    @property
    def key(self) -> tuple[str, int, int | None]:
        """(topic, partition, leader epoch): one election per epoch of a partition."""
        return (self.topic, self.partition, self.leader_epoch)

    @property
    def failed(self) -> bool:
        """Whether no leader was elected."""
        return self.new_leader == NO_LEADER

    @classmethod
    def from_truth(cls, record: Mapping[str, Any]) -> Election:
        """An election or failed attempt of the ground-truth file (one decoded JSON line).

        A new partition's ISR before is recorded as empty; the replay has none (null), as Kafka
        has no ISR before the first one: both read as ``None``.
        """
        creation = record["trigger"] == "new_partition" and record["previous_leader"] is None
        previous = record["previous_leader"]
        return cls(
            topic=record["topic"],
            partition=int(record["partition"]),
            leader_epoch=record["leader_epoch"],
            t_ms=record["t"],
            trigger=record["trigger"],
            prev_leader=NO_LEADER if previous is None else previous,
            new_leader=record["new_leader"],
            isr_before=None if creation else tuple(record["isr_before"]),
            isr_after=_brokers(record["isr_after"]),
            unclean=record["unclean"],
            controller_id=record["controller"],
            controller_epoch=record["controller_epoch"],
            prev_leader_epoch=record["previous_leader_epoch"],
            partition_epoch=record["zk_version"],
        )

    @classmethod
    def from_gold(cls, row: Mapping[str, Any]) -> Election:
        """An election of ``gold.elections`` (a row as a mapping of its columns).

        ``elected_at`` may be naive (UTC, as Spark and Arrow return it) or aware.
        """
        at = row["elected_at"]
        t_ms = None if at is None else _ms(at)
        creation = row["trigger"] == "new_partition"
        previous = row["prev_leader"]
        return cls(
            topic=row["topic"],
            partition=int(row["partition"]),
            leader_epoch=row["leader_epoch"],
            t_ms=t_ms,
            trigger=row["trigger"],
            prev_leader=NO_LEADER if previous is None and creation else previous,
            new_leader=row["new_leader"],
            isr_before=_brokers(row["isr_before"]),
            isr_after=_brokers(row["isr_after"]),
            unclean=row["unclean"],
            controller_id=row["controller_id"],
            controller_epoch=row["controller_epoch"],
            prev_leader_epoch=row["prev_leader_epoch"],
            partition_epoch=row["partition_epoch"],
        )


def _ms(at: dt.datetime) -> int:
    aware = at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)
    delta = aware - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _brokers(value: Iterable[int] | None) -> tuple[int, ...] | None:
    return None if value is None else tuple(int(b) for b in value)


def read_truth(lines: Iterable[str]) -> Iterator[Election]:
    """The elections of a ground-truth file's lines (blank lines skipped).

    Args:
        lines: the file's lines.

    Yields:
        One election per record.
    """
    for line in lines:
        if line.strip():
            yield Election.from_truth(json.loads(line))


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One disagreement.

    Attributes:
        kind: ``missing`` (in the truth, not replayed), ``extra`` (replayed, not in the
            truth), ``duplicate`` (a key twice on one side) or ``differs``.
        key: (topic, partition, leader epoch).
        fields: for ``differs``: field -> (truth, replayed).
        failed_at_ms: for a failed attempt, its time (the truth's when it has one).
    """

    kind: str
    key: tuple[str, int, int | None]
    fields: tuple[tuple[str, Any, Any], ...] = ()
    failed_at_ms: int | None = None

    def describe(self) -> str:
        """One line for a person."""
        topic, partition, epoch = self.key
        where = f"{topic}-{partition} epoch {epoch}"
        if self.failed_at_ms is not None:
            at = _EPOCH + dt.timedelta(milliseconds=self.failed_at_ms)
            where = f"failed attempt {where} at {at.isoformat(timespec='milliseconds')}"
        if not self.fields:
            return f"{self.kind}: {where}"
        diffs = ", ".join(
            f"{name} {truth!r} != {replayed!r}" for name, truth, replayed in self.fields
        )
        return f"{self.kind}: {where}: {diffs} (truth != replayed)"


@dataclass(slots=True)
class Comparison:
    """The result of ``compare``.

    Attributes:
        truth: elections in the ground truth (failed attempts apart).
        replayed: successful elections replayed.
        failed_truth: failed attempts in the ground truth.
        failed_replayed: failed attempts replayed.
        matched: elections equal in every compared field and within the time tolerance.
        failed_matched: failed attempts paired in time and equal in every compared field.
        max_time_diff_ms: largest |replayed time - truth time| over the matched keys and
            paired attempts.
        counts: mismatches per kind.
        mismatches: the first ``keep`` mismatches, in key order.
        triggers: truth elections per trigger.
        unclean: unclean elections in the ground truth.
    """

    truth: int = 0
    replayed: int = 0
    failed_truth: int = 0
    failed_replayed: int = 0
    matched: int = 0
    failed_matched: int = 0
    max_time_diff_ms: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    mismatches: list[Mismatch] = field(default_factory=list)
    triggers: dict[str, int] = field(default_factory=dict)
    unclean: int = 0

    @property
    def total_mismatches(self) -> int:
        """All mismatches, of every kind."""
        return sum(self.counts.values())

    @property
    def ok(self) -> bool:
        """No mismatch at all and at least one election compared."""
        return self.total_mismatches == 0 and self.truth > 0


def compare(
    truth: Iterable[Election],
    replayed: Iterable[Election],
    *,
    time_tolerance_ms: int = 1000,
    keep: int = 50,
) -> Comparison:
    """Match the ground truth with the replayed elections, every field of every election.

    Elections match by key (topic, partition, leader epoch). Failed attempts of a partition
    match in time order: each truth attempt with the first replayed one not yet matched within
    ``time_tolerance_ms`` of it; a replayed attempt passed over is extra.

    Args:
        truth: the simulator's elections and failed attempts.
        replayed: the replay's (``scenario = 'actual'``), failed ones included.
        time_tolerance_ms: largest time difference still counted as the same moment.
        keep: how many mismatches to keep (all are counted).

    Returns:
        The comparison.
    """
    result = Comparison()

    def record(mismatch: Mismatch) -> None:
        result.counts[mismatch.kind] = result.counts.get(mismatch.kind, 0) + 1
        if len(result.mismatches) < keep:
            result.mismatches.append(mismatch)

    def differences(want: Election, got: Election, fields: tuple[str, ...]) -> list[Any]:
        diffs = [
            (name, getattr(want, name), getattr(got, name))
            for name in fields
            if getattr(want, name) != getattr(got, name)
        ]
        if want.t_ms is not None and got.t_ms is not None:
            gap = abs(got.t_ms - want.t_ms)
            result.max_time_diff_ms = max(result.max_time_diff_ms, gap)
            if gap > time_tolerance_ms:
                diffs.append(("t_ms", want.t_ms, got.t_ms))
        elif want.t_ms != got.t_ms:
            diffs.append(("t_ms", want.t_ms, got.t_ms))
        return diffs

    expected: dict[tuple[str, int, int | None], Election] = {}
    failed: dict[tuple[str, int], tuple[list[Election], list[Election]]] = {}
    for election in truth:
        if election.failed:
            result.failed_truth += 1
            failed.setdefault((election.topic, election.partition), ([], []))[0].append(election)
            continue
        result.truth += 1
        result.triggers[election.trigger] = result.triggers.get(election.trigger, 0) + 1
        result.unclean += bool(election.unclean)
        if election.key in expected:
            record(Mismatch("duplicate", election.key, (("side", "truth", "truth"),)))
        expected[election.key] = election
    seen: set[tuple[str, int, int | None]] = set()
    found: list[Mismatch] = []
    for election in replayed:
        if election.failed:
            result.failed_replayed += 1
            failed.setdefault((election.topic, election.partition), ([], []))[1].append(election)
            continue
        result.replayed += 1
        if election.key in seen:
            found.append(Mismatch("duplicate", election.key, (("side", "replayed", "replayed"),)))
            continue
        seen.add(election.key)
        want = expected.get(election.key)
        if want is None:
            found.append(Mismatch("extra", election.key))
            continue
        diffs = differences(want, election, COMPARED_FIELDS)
        if diffs:
            found.append(Mismatch("differs", election.key, tuple(diffs)))
        else:
            result.matched += 1
    found.extend(Mismatch("missing", key) for key in expected.keys() - seen)
    for wanted, got in failed.values():
        pairs, missing, extra = _pair_in_time(wanted, got, time_tolerance_ms)
        for kind, unmatched in (("missing", missing), ("extra", extra)):
            found.extend(Mismatch(kind, e.key, failed_at_ms=e.t_ms) for e in unmatched)
        for want, attempt in pairs:
            diffs = differences(want, attempt, ("leader_epoch", *COMPARED_FIELDS))
            if diffs:
                found.append(Mismatch("differs", want.key, tuple(diffs), want.t_ms))
            else:
                result.failed_matched += 1
    for mismatch in sorted(
        found,
        key=lambda m: (m.key[0], m.key[1], m.key[2] or 0, m.failed_at_ms or 0, m.kind),
    ):
        record(mismatch)
    return result


def _pair_in_time(
    truth: list[Election], replayed: list[Election], tolerance_ms: int
) -> tuple[list[tuple[Election, Election]], list[Election], list[Election]]:
    """One partition's failed attempts, truth and replayed, paired in time order.

    Returns:
        The (truth, replayed) pairs, the truth attempts left unpaired (missing) and the
        replayed ones left unpaired (extra).
    """
    truth = sorted(truth, key=lambda e: e.t_ms or 0)
    replayed = sorted(replayed, key=lambda e: e.t_ms or 0)
    pairs: list[tuple[Election, Election]] = []
    missing: list[Election] = []
    extra: list[Election] = []
    i = 0
    for want in truth:
        at = want.t_ms or 0
        while i < len(replayed) and (replayed[i].t_ms or 0) < at - tolerance_ms:
            extra.append(replayed[i])
            i += 1
        if i < len(replayed) and abs((replayed[i].t_ms or 0) - at) <= tolerance_ms:
            pairs.append((want, replayed[i]))
            i += 1
        else:
            missing.append(want)
    extra.extend(replayed[i:])
    return pairs, missing, extra
