"""Leader imbalance over time: Kafka's controller formula, leaders per broker and
``PreferredReplicaImbalanceCount`` by version, computed incrementally from partition timelines.

The controller's auto-rebalance check (``checkAndTriggerAutoLeaderRebalance``, METRICS.md 1.1,
reproduced by ``kafkactl_core.zkcontroller.rebalance.imbalance_groups``) groups the partitions
of topics not queued for deletion by preferred replica ``b``; ``ratio_b = |N_b| / |P_b|`` where
``N_b`` are the partitions with leadership whose leader is not ``b`` (-1 included). Recomputing
that over every partition at every moment costs O(partitions) per moment, so each partition
instead contributes *counters* to brokers (``contributions``), every change of a partition's
state becomes a signed *delta* of those counters (``partition_deltas``), and a running sum per
broker gives the exact counts at every observation time (``imbalance_rows``). Because the counts
are sums of per-partition terms, the result equals the whole-cluster computation at every
moment; the tests check it against ``imbalance_groups`` on generated states. The Spark job runs
``partition_deltas`` per partition and streams the deltas, in time order, through
``imbalance_sweep``, as the pure-Python path does.

Observation times: every moment a partition's contribution changes (``change`` rows, state after
the change) and every auto-rebalance check the controller logged (``check`` rows, state before
any change of the same millisecond: the elections a check triggers come after it). Topics queued
for deletion come from the cluster facts (``deletion_steps``). A reassignment in flight is
inferred from the timeline: an assignment that grows to a strict superset of the previous one
is ``target ++ origin``, its new replicas are the adding ones (the 2.7+ metric needs them).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kafkactl_core.assignment import ReplicaAssignment
from kafkactl_core.model import LeaderAndIsr
from kafkactl_core.replay.facts import ClusterFact, ClusterFactKind
from kafkactl_core.replay.rows import AnomalyRow, TimelineRow
from kafkactl_core.replay.timelines import ClusterTimelines
from kafkactl_core.replay.values import as_int, as_ms, as_str
from kafkactl_core.report.rows import ImbalanceRow
from kafkactl_core.versions import KafkaRelease
from kafkactl_core.zkcontroller.context import has_preferred_leader

__all__ = [
    "COUNTERS",
    "REPORT_ANOMALY_KINDS",
    "Delta",
    "ImbalanceSettings",
    "LoggedRatio",
    "Moment",
    "PartitionView",
    "PricRule",
    "assign_checks",
    "contributions",
    "deleting_at",
    "deletion_steps",
    "derive_row",
    "imbalance_rows",
    "imbalance_sweep",
    "logged_ratio_from_row",
    "not_preferred_from_row",
    "partition_deltas",
    "ratio_anomalies",
]

COUNTERS = (
    "preferred_partitions",
    "led_preferred",
    "not_led",
    "leaders",
    "preferred_imbalance",
    "kraft_candidates",
)
"""The per-broker counters a partition contributes to, in ``Delta.counts`` order."""

_PREFERRED, _LED, _NOT_LED, _LEADERS, _PRIC, _KRAFT = range(len(COUNTERS))
_WIDTH = len(COUNTERS)

REPORT_ANOMALY_KINDS = ("imbalance_ratio_mismatch", "imbalance_ratio_unlogged")
"""Anomaly kinds the report adds (``gold.report_anomalies``):

* ``imbalance_ratio_mismatch``: the controller logged ``Leader imbalance ratio for broker B is
  R`` and the ratio computed from the evidence at that moment differs (or there is none);
* ``imbalance_ratio_unlogged``: a check the controller logged has no line for a broker that,
  by the evidence, was some partition's preferred replica then.
"""


class PricRule(enum.Enum):
    """Which definition of ``PreferredReplicaImbalanceCount`` a cluster's release uses."""

    zk_before_2_7 = "zk_before_2_7"
    """ZooKeeper < 2.7: leadership exists, leader != replicas.head, topic not deleting."""
    zk_2_7 = "zk_2_7"
    """ZooKeeper >= 2.7 (KAFKA-10040): ``!hasPreferredLeader``, the reassignment exception."""
    kraft = "kraft"
    """KRaft: leader != replicas[0] over every partition (offline ones count)."""


@dataclass(frozen=True, slots=True)
class ImbalanceSettings:
    """What the imbalance computation needs to know about a cluster.

    Attributes:
        percentage: ``leader.imbalance.per.broker.percentage``.
        mode: ``zk`` or ``kraft``.
        release: the Kafka release, ``None`` when unknown (the 2.7+ ZooKeeper rule is used).
    """

    percentage: int = 10
    mode: str = "zk"
    release: KafkaRelease | None = None

    @property
    def threshold(self) -> float:
        """``percentage / 100``, the double the controller compares against."""
        return self.percentage / 100

    @property
    def rule(self) -> PricRule:
        """The ``PreferredReplicaImbalanceCount`` definition of this mode and release."""
        if self.mode == "kraft":
            return PricRule.kraft
        if self.release is not None and not self.release.at_least("2.7"):
            return PricRule.zk_before_2_7
        return PricRule.zk_2_7

    @property
    def kraft(self) -> bool:
        """Whether the cluster runs KRaft controllers."""
        return self.mode == "kraft"


@dataclass(frozen=True, slots=True)
class PartitionView:
    """What one partition looks like at one moment, for the counters.

    Attributes:
        assignment: its replicas in order (``assignment[0]`` is the preferred replica).
        leader: the leader (-1 none); ``None`` when it has no leadership yet (new partition).
        isr: the ISR (empty when unknown).
        adding: replicas a reassignment in flight is adding.
        deleting: its topic is queued for deletion.
    """

    assignment: tuple[int, ...]
    leader: int | None
    isr: tuple[int, ...] = ()
    adding: tuple[int, ...] = ()
    deleting: bool = False


def contributions(view: PartitionView | None, rule: PricRule) -> dict[int, list[int]]:
    """The counters one partition adds to each broker.

    Args:
        view: the partition's state, ``None`` when it does not exist at that moment.
        rule: the ``PreferredReplicaImbalanceCount`` definition.

    Returns:
        Broker -> counter vector (``COUNTERS`` order); brokers it adds nothing to are absent.
    """
    out: dict[int, list[int]] = {}
    if view is None:
        return out

    def add(broker: int, index: int) -> None:
        vector = out.get(broker)
        if vector is None:
            vector = out[broker] = [0] * _WIDTH
        vector[index] += 1

    leader = view.leader
    replicas = view.assignment
    if leader is not None and leader >= 0:
        add(leader, _LEADERS)
    if not replicas:
        return out
    preferred = replicas[0]
    if not view.deleting:
        add(preferred, _PREFERRED)
        if leader is not None:
            add(preferred, _LED if leader == preferred else _NOT_LED)
    if leader is None:
        return out
    if rule is PricRule.kraft:
        if leader != preferred:
            add(preferred, _PRIC)
            add(preferred, _KRAFT)
    elif not view.deleting:
        if rule is PricRule.zk_before_2_7:
            counted = leader != preferred
        else:
            assignment = ReplicaAssignment(replicas, view.adding)
            counted = not has_preferred_leader(assignment, LeaderAndIsr(leader, 0, view.isr))
        if counted:
            add(preferred, _PRIC)
    return out


@dataclass(frozen=True, slots=True)
class Delta:
    """A signed change of one broker's counters at one moment.

    Attributes:
        time_ms: when (UTC ms).
        broker: the broker.
        counts: the change of each counter (``COUNTERS`` order).
    """

    time_ms: int
    broker: int
    counts: tuple[int, ...]


def _adding(intervals: Sequence[TimelineRow]) -> list[tuple[int, ...]]:
    """Per interval, the replicas an in-flight reassignment adds (inferred, see module doc)."""
    origin: tuple[int, ...] | None = None
    out: list[tuple[int, ...]] = []
    for interval in intervals:
        replicas = interval.assignment
        if replicas is None:
            out.append(())
        elif origin is not None and set(replicas) > set(origin):
            out.append(tuple(r for r in replicas if r not in origin))
        else:
            origin = replicas
            out.append(())
    return out


def deleting_at(steps: Sequence[tuple[int, bool]], time: int) -> bool:
    """Whether a topic was being deleted at ``time``, by its ``deletion_steps``."""
    flag = False
    for when, value in steps:
        if when > time:
            break
        flag = value
    return flag


def partition_deltas(
    intervals: Iterable[TimelineRow],
    rule: PricRule,
    deletion: Sequence[tuple[int, bool]] = (),
) -> list[Delta]:
    """The counter changes of one partition over its timeline.

    Args:
        intervals: the partition's ``gold.partition_timeline`` intervals (any order); intervals
            without a start time are skipped.
        rule: the ``PreferredReplicaImbalanceCount`` definition.
        deletion: its topic's deletion steps (``deletion_steps``): ``(time, deleting)`` sorted.

    Returns:
        Deltas in time order (brokers ascending within a moment), only non-zero ones.
    """
    ordered = sorted(
        (iv for iv in intervals if iv.valid_from_ms is not None),
        key=lambda iv: (iv.valid_from_ms or 0, iv.valid_to_ms is None, iv.valid_to_ms or 0),
    )
    adding = _adding(ordered)
    events: list[tuple[int, int, int]] = []
    for index, interval in enumerate(ordered):
        events.append((interval.valid_from_ms or 0, 1, index))
        if interval.valid_to_ms is not None:
            events.append((interval.valid_to_ms, 0, index))
    events.extend((when, 2, -1) for when, _ in deletion)
    events.sort()
    active: int | None = None
    current: dict[int, list[int]] = {}
    out: list[Delta] = []
    position = 0
    while position < len(events):
        time = events[position][0]
        while position < len(events) and events[position][0] == time:
            _, kind, index = events[position]
            if kind == 0 and active == index:
                active = None
            elif kind == 1:
                active = index
            position += 1
        view: PartitionView | None = None
        if active is not None:
            interval = ordered[active]
            if interval.state != "NonExistentPartition":
                leader = interval.leader
                view = PartitionView(
                    interval.assignment or (),
                    leader,
                    interval.isr or (),
                    adding[active],
                    deleting_at(deletion, time) or leader == -2,
                )
        new = contributions(view, rule)
        for broker in sorted(set(current) | set(new)):
            before = current.get(broker, [0] * _WIDTH)
            after = new.get(broker, [0] * _WIDTH)
            if before != after:
                out.append(
                    Delta(time, broker, tuple(a - b for a, b in zip(after, before, strict=True)))
                )
        current = new
    return out


def deletion_steps(
    facts: Iterable[ClusterFact], timelines: ClusterTimelines
) -> dict[str, list[tuple[int, bool]]]:
    """When each topic entered and left the deletion queue, as the replay's timelines see it.

    Args:
        facts: the cluster's facts (only topic creation/deletion facts are read).
        timelines: the timelines built from them (``deleting_at`` decides the value).

    Returns:
        Topic -> ``(time, deleting)`` steps, sorted by time, for topics that ever had one.
    """
    kinds = (
        ClusterFactKind.topic_deletion_started,
        ClusterFactKind.topic_deleted,
        ClusterFactKind.topic_created,
    )
    times: dict[str, set[int]] = {}
    for fact in facts:
        if fact.kind in kinds and fact.topic is not None and fact.time_ms is not None:
            times.setdefault(fact.topic, set()).add(fact.time_ms)
    out: dict[str, list[tuple[int, bool]]] = {}
    for topic, moments in times.items():
        steps: list[tuple[int, bool]] = []
        for when in sorted(moments):
            value = timelines.deleting_at(topic, when)
            if not steps or steps[-1][1] != value:
                steps.append((when, value))
        if any(value for _, value in steps):
            out[topic] = steps
    return out


@dataclass(frozen=True, slots=True)
class LoggedRatio:
    """A ``Leader imbalance ratio for broker B is R`` line, placed in its check.

    Attributes:
        time_ms: the line's time (UTC ms).
        controller_id: the controller that wrote it.
        broker: the preferred broker B.
        ratio: R, as the double Java printed.
        evidence: ``file:line``.
        check_ms: when the check it belongs to began (``assign_checks``); the computed state
            is taken just before that moment.
        not_preferred: the partitions the DEBUG line ``Topics not in preferred replica for
            broker B Map(...)`` listed for the same check, when logged.
    """

    time_ms: int
    controller_id: int | None
    broker: int
    ratio: float
    evidence: str
    check_ms: int | None = None
    not_preferred: tuple[str, ...] | None = None


def _evidence(row: Mapping[str, Any]) -> str:
    text = as_str(row.get("evidence"))
    if text is not None:
        return text
    return f"{as_str(row.get('file')) or '?'}:{as_int(row.get('first_line')) or 0}"


def _time(row: Mapping[str, Any]) -> int | None:
    value = row.get("ts")
    if value is None:
        value = row.get("log_time")
    return as_ms(value)


def logged_ratio_from_row(row: Mapping[str, Any]) -> LoggedRatio | None:
    """A ``silver.controller_events`` row of event type ``leader_imbalance_ratio``.

    Args:
        row: the row (``ts`` or ``log_time``, ``controller_id`` or ``origin_broker``,
            ``broker``, ``ratio``, ``evidence`` or ``file`` + ``first_line``).

    Returns:
        The logged ratio, ``None`` when the row lacks a time, a broker or a ratio.
    """
    time = _time(row)
    broker = as_int(row.get("broker"))
    raw = row.get("ratio")
    try:
        ratio = None if raw is None or isinstance(raw, bool) else float(raw)
    except (TypeError, ValueError):
        ratio = None
    if time is None or broker is None or ratio is None or ratio != ratio:
        return None
    controller = as_int(row.get("controller_id"))
    if controller is None:
        controller = as_int(row.get("origin_broker"))
    return LoggedRatio(time, controller, broker, ratio, _evidence(row))


_NOT_PREFERRED = re.compile(r"(?:^|,\s*)\[?([^\s,\[\]]+?)[-,](\d+)\]?\s*->")


def not_preferred_from_row(
    row: Mapping[str, Any],
) -> tuple[int, int | None, int, tuple[str, ...]] | None:
    """A ``preferred_replica_imbalance`` row: ``(time, controller, broker, partitions)``.

    Args:
        row: the ``silver.controller_events`` row (``detail`` holds the map's interior).

    Returns:
        The time, controller, broker and ``topic-partition`` names listed (sorted), ``None``
        when the row names no broker (releases before 1.1) or no time.
    """
    time = _time(row)
    broker = as_int(row.get("broker"))
    if time is None or broker is None:
        return None
    controller = as_int(row.get("controller_id"))
    if controller is None:
        controller = as_int(row.get("origin_broker"))
    detail = as_str(row.get("detail")) or ""
    names = sorted({f"{m.group(1)}-{m.group(2)}" for m in _NOT_PREFERRED.finditer(detail)})
    return time, controller, broker, tuple(names)


def assign_checks(
    ratios: Iterable[LoggedRatio],
    check_starts: Iterable[tuple[int, int | None]] = (),
    not_preferred: Iterable[tuple[int, int | None, int, tuple[str, ...]]] = (),
    gap_ms: int = 30_000,
) -> list[LoggedRatio]:
    """Place each logged ratio in the check it belongs to.

    A check begins with ``Checking need to trigger auto leader balancing`` (``check_starts``:
    time and controller); a ratio line belongs to the last start of the same controller at or
    before it. Lines with no start before them form checks of their own: consecutive lines of
    one controller less than ``gap_ms`` apart, a repeated broker beginning a new check.

    Args:
        ratios: the logged ratios.
        check_starts: ``(time, controller)`` of the check-start lines.
        not_preferred: ``not_preferred_from_row`` results, attached to the ratio of the same
            controller, broker and check.
        gap_ms: the gap that separates two start-less checks.

    Returns:
        The ratios with ``check_ms`` (and ``not_preferred``) set, ordered by check and broker.
    """
    starts: dict[int | None, list[int]] = {}
    for time, controller in check_starts:
        starts.setdefault(controller, []).append(time)
    for times in starts.values():
        times.sort()
    by_controller: dict[int | None, list[LoggedRatio]] = {}
    for ratio in ratios:
        by_controller.setdefault(ratio.controller_id, []).append(ratio)
    dumps: dict[tuple[int | None, int, int], tuple[str, ...]] = {}
    dump_list = sorted(not_preferred, key=lambda d: d[0])
    out: list[LoggedRatio] = []
    for controller, items in by_controller.items():
        items.sort(key=lambda r: (r.time_ms, r.evidence))
        known = starts.get(controller, [])
        group_start: int | None = None
        group_brokers: set[int] = set()
        last_time: int | None = None
        for item in items:
            start = _last_at_or_before(known, item.time_ms)
            if start is None:
                if (
                    group_start is None
                    or last_time is None
                    or item.time_ms - last_time >= gap_ms
                    or item.broker in group_brokers
                ):
                    group_start, group_brokers = item.time_ms, set()
                start = group_start
            elif start != group_start:
                group_start, group_brokers = start, set()
            group_brokers.add(item.broker)
            last_time = item.time_ms
            out.append(
                LoggedRatio(item.time_ms, controller, item.broker, item.ratio, item.evidence, start)
            )
        for time, dump_controller, broker, names in dump_list:
            if dump_controller != controller:
                continue
            start = _last_at_or_before(known, time)
            if start is None:
                start = _group_of(out, controller, broker, time, gap_ms)
            if start is not None:
                dumps.setdefault((controller, broker, start), names)
    result = [
        LoggedRatio(
            r.time_ms,
            r.controller_id,
            r.broker,
            r.ratio,
            r.evidence,
            r.check_ms,
            dumps.get((r.controller_id, r.broker, r.check_ms or 0)),
        )
        for r in out
    ]
    result.sort(key=lambda r: (r.check_ms or 0, r.broker, r.time_ms))
    return result


def _last_at_or_before(times: Sequence[int], time: int) -> int | None:
    low, high = 0, len(times)
    while low < high:
        mid = (low + high) // 2
        if times[mid] <= time:
            low = mid + 1
        else:
            high = mid
    return times[low - 1] if low else None


def _group_of(
    placed: Sequence[LoggedRatio], controller: int | None, broker: int, time: int, gap_ms: int
) -> int | None:
    """The check of the ratio line of ``broker`` closest after a start-less dump line."""
    best: LoggedRatio | None = None
    for ratio in placed:
        if ratio.controller_id != controller or ratio.broker != broker:
            continue
        if time <= ratio.time_ms < time + gap_ms and (best is None or ratio.time_ms < best.time_ms):
            best = ratio
    return None if best is None else best.check_ms


def derive_row(
    cluster: str,
    observed_at_ms: int,
    observation: str,
    broker: int,
    counts: Sequence[int],
    totals: Sequence[int],
    settings: ImbalanceSettings,
    logged: LoggedRatio | None = None,
) -> ImbalanceRow:
    """One ``gold.leader_imbalance`` row from a broker's counters at one moment.

    The ratio is the controller's ``topicsNotInPreferredReplica.size.toDouble /
    topicPartitionsForBroker.size`` (an IEEE double, compared exactly with the logged one), and
    the trigger test the strict ``>`` of ``checkAndTriggerAutoLeaderRebalance``.

    A check row is dated by the broker's own ratio line (``logged.time_ms``), its counts being
    the state at the check's start, ``observed_at_ms``, which it keeps as
    ``check_started_at_ms``: the controller computes every broker's ratio from one state (a
    preferred election its loop triggers for one broker moves only partitions of that broker's
    group).

    Args:
        cluster: the cluster.
        observed_at_ms: the moment (a check's start for a check row).
        observation: ``change`` or ``check``.
        broker: the broker.
        counts: its counters (``COUNTERS`` order).
        totals: the cluster's sums of ``leaders``, ``preferred_imbalance`` and
            ``kraft_candidates`` at that moment.
        settings: the cluster's settings.
        logged: the logged ratio for this broker at this check, if any.

    Returns:
        The row.
    """
    preferred, led, not_led, leaders, pric, kraft = (int(c) for c in counts)
    leaders_total, pric_total, kraft_total = (int(t) for t in totals)
    ratio = not_led / preferred if preferred else None
    would_trigger = None
    if ratio is not None and not settings.kraft:
        would_trigger = ratio > settings.threshold
    logged_ratio = None if logged is None else logged.ratio
    check = observation == "check"
    return ImbalanceRow(
        cluster=cluster,
        observed_at_ms=logged.time_ms if check and logged is not None else observed_at_ms,
        observation=observation,
        broker=broker,
        preferred_partitions=preferred,
        led_preferred=led,
        not_led=not_led,
        imbalance_ratio=ratio,
        threshold=settings.threshold,
        would_trigger=would_trigger,
        leaders=leaders,
        leaders_total=leaders_total,
        leader_share=leaders / leaders_total if leaders_total else None,
        preferred_imbalance=pric,
        preferred_imbalance_total=pric_total,
        preferred_imbalance_rule=settings.rule.value,
        kraft_candidates=kraft if settings.kraft else None,
        kraft_candidates_total=kraft_total if settings.kraft else None,
        logged_ratio=logged_ratio,
        logged_matches=None if logged_ratio is None else logged_ratio == ratio,
        controller_id=None if logged is None else logged.controller_id,
        evidence=None if logged is None else logged.evidence,
        check_started_at_ms=observed_at_ms if check else None,
    )


@dataclass
class _Running:
    counters: dict[int, list[int]] = field(default_factory=dict)
    totals: list[int] = field(default_factory=lambda: [0, 0, 0])

    def apply(self, broker: int, change: Sequence[int]) -> None:
        vector = self.counters.setdefault(broker, [0] * _WIDTH)
        for index, value in enumerate(change):
            vector[index] += value
        self.totals[0] += change[_LEADERS]
        self.totals[1] += change[_PRIC]
        self.totals[2] += change[_KRAFT]

    def present(self, broker: int) -> bool:
        vector = self.counters.get(broker)
        return vector is not None and (vector[_PREFERRED] > 0 or vector[_LEADERS] > 0)


Moment = tuple[int, Mapping[int, Sequence[int]] | None, Mapping[int, LoggedRatio] | None]
"""One observation moment of ``imbalance_sweep``: its time (UTC ms), the summed counter changes
of each broker whose counters changed then, and the logged ratios of the check that started
then, by broker."""


def imbalance_sweep(
    cluster: str, moments: Iterable[Moment], settings: ImbalanceSettings
) -> Iterator[ImbalanceRow]:
    """Every broker's imbalance at every observation moment, as the moments come.

    At each moment a partition's contribution changed, one ``change`` row per broker that has
    preferred partitions or leaders then, or whose counters changed then; at each logged check,
    one ``check`` row per such broker and per broker the check logged, with the state before
    that millisecond's changes.

    Args:
        cluster: the cluster.
        moments: the moments in increasing time, each time once.
        settings: the cluster's settings.

    Yields:
        Rows in time order, ``check`` before ``change`` at the same millisecond, then broker.
    """
    running = _Running()
    zero = [0] * _WIDTH
    for time, changes, check in moments:
        if check is not None:
            brokers = {b for b in running.counters if running.present(b)} | set(check)
            for broker in sorted(brokers):
                counts = running.counters.get(broker, zero)
                yield derive_row(
                    cluster,
                    time,
                    "check",
                    broker,
                    counts,
                    running.totals,
                    settings,
                    check.get(broker),
                )
        if changes is not None:
            for broker, change in changes.items():
                running.apply(broker, change)
            brokers = {b for b in running.counters if running.present(b)} | set(changes)
            for broker in sorted(brokers):
                counts = running.counters.get(broker, zero)
                yield derive_row(cluster, time, "change", broker, counts, running.totals, settings)


def imbalance_rows(
    cluster: str,
    deltas: Iterable[Delta],
    settings: ImbalanceSettings,
    logged: Iterable[LoggedRatio] = (),
) -> list[ImbalanceRow]:
    """Every broker's imbalance at every observation time (``imbalance_sweep``).

    Args:
        cluster: the cluster.
        deltas: every partition's deltas (``partition_deltas``), any order.
        settings: the cluster's settings.
        logged: logged ratios placed in their checks (``assign_checks``); of two for one broker
            in one check, the first.

    Returns:
        Rows ordered by time, ``check`` before ``change`` at the same millisecond, then broker.
    """
    by_time: dict[int, dict[int, list[int]]] = {}
    for delta in deltas:
        slot = by_time.setdefault(delta.time_ms, {})
        vector = slot.get(delta.broker)
        if vector is None:
            slot[delta.broker] = list(delta.counts)
        else:
            for index, value in enumerate(delta.counts):
                vector[index] += value
    checks: dict[int, dict[int, LoggedRatio]] = {}
    for item in logged:
        start = item.time_ms if item.check_ms is None else item.check_ms
        checks.setdefault(start, {}).setdefault(item.broker, item)
    moments = (
        (time, by_time.get(time), checks.get(time)) for time in sorted(set(by_time) | set(checks))
    )
    return list(imbalance_sweep(cluster, moments, settings))


def _fmt(ratio: float | None) -> str:
    return "none (no partition has this preferred replica)" if ratio is None else repr(ratio)


def ratio_anomalies(
    rows: Iterable[ImbalanceRow], logged: Iterable[LoggedRatio] = ()
) -> list[AnomalyRow]:
    """Every difference between the logged ratios and the computed ones, as anomalies.

    Args:
        rows: ``check`` rows (other rows are ignored).
        logged: the logged ratios (for the ``Topics not in preferred replica`` listing).

    Returns:
        One ``imbalance_ratio_mismatch`` per check row whose logged ratio differs from the
        computed one, one ``imbalance_ratio_unlogged`` per check row of a broker with preferred
        partitions the check did not log.
    """
    listing = {
        (item.check_ms, item.broker): item.not_preferred for item in logged if item.not_preferred
    }
    out: list[AnomalyRow] = []
    for row in rows:
        if row.observation != "check":
            continue
        counts = f"{row.not_led} of {row.preferred_partitions} partitions preferred to broker "
        counts += f"{row.broker} not led by it"
        if row.logged_ratio is not None and row.logged_matches is False:
            names = listing.get((row.check_started_at_ms, row.broker))
            detail = (
                f"controller {row.controller_id} logged leader imbalance ratio "
                f"{row.logged_ratio!r} for broker {row.broker}; the evidence gives "
                f"{_fmt(row.imbalance_ratio)} ({counts})"
            )
            if names:
                detail += "; the controller listed as not led by their preferred replica: "
                detail += ", ".join(names)
            out.append(
                AnomalyRow.of_cluster(
                    row.cluster,
                    row.observed_at_ms,
                    "imbalance_ratio_mismatch",
                    "warning",
                    detail,
                    expected=_fmt(row.imbalance_ratio),
                    observed=repr(row.logged_ratio),
                    evidence=(row.evidence,) if row.evidence else (),
                    source="controller_log",
                )
            )
        elif row.logged_ratio is None and row.preferred_partitions > 0:
            out.append(
                AnomalyRow.of_cluster(
                    row.cluster,
                    row.observed_at_ms,
                    "imbalance_ratio_unlogged",
                    "warning",
                    f"the auto-rebalance check logged no ratio for broker {row.broker}, which "
                    f"the evidence makes the preferred replica of {row.preferred_partitions} "
                    f"partition(s) ({counts})",
                    expected=_fmt(row.imbalance_ratio),
                    source="controller_log",
                )
            )
    return out
