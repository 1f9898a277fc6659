"""Cluster timelines: broker liveness, controlled shutdown, controller epochs, configs,
assignments and topic deletion over time, built once from cluster facts and queried by time.

Small enough to broadcast: one entry per change (not per event). Every query bisects a sorted
list of change times, so a lookup costs O(log n). Liveness follows SEMANTICS.md §0: a broker is
*live* when it is registered (ZooKeeper ephemeral, controller's broker set, KRaft unfenced) and
not in controlled shutdown. Facts from logs and from ZooKeeper are folded into one history in
time order (both describe the same registrations; clocks differ by milliseconds).

The unclean setting in force for a topic follows the precedence of ``LogConfig.fromProps``
(SEMANTICS.md §3): topic config > broker config (dynamic, the controller's own or the cluster
default) > the configured static default (``ReplaySettings.broker_unclean_enable``) > the
release's default; a what-if forces it above all. ``min.insync.replicas`` follows the same
precedence (``ReplaySettings.broker_min_isr``, then Kafka's default, 1).
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from kafkactl_core.replay.evidence import KRAFT_SOURCES
from kafkactl_core.replay.facts import STATIC_SCOPE, ClusterFact, ClusterFactKind
from kafkactl_core.replay.rows import AnomalyRow
from kafkactl_core.replay.settings import MIN_ISR_KEY, UNCLEAN_KEY, ReplaySettings
from kafkactl_core.zkcontroller.cluster import parse_bool_config

__all__ = ["ClusterTimelines", "LivenessView", "build_timelines"]

_K = ClusterFactKind
_FAR_PAST = -(1 << 62)
_RESTATED_AFTER_MS = 5_000
"""A live topic's creation logged this long after it was first seen is a restatement."""
_T = TypeVar("_T")


def _parse_min_isr(value: str | None) -> int | None:
    """``min.insync.replicas`` as Kafka's ``ConfigDef`` takes it: an INT of at least 1."""
    try:
        parsed = int(value.strip()) if value is not None else None
    except ValueError:
        return None
    return parsed if parsed is not None and parsed >= 1 else None


@dataclass(frozen=True, slots=True)
class LivenessView:
    """Who was live at one moment.

    Attributes:
        registered: registered brokers (live or shutting down).
        shutting_down: brokers in controlled shutdown.
        known: brokers whose status some fact gave (all brokers when ``complete``).
        complete: a complete broker set was seen: brokers outside ``registered`` are down.
        live: registered and not shutting down (``liveBrokerIds``), derived.
    """

    registered: frozenset[int]
    shutting_down: frozenset[int]
    known: frozenset[int]
    complete: bool
    live: frozenset[int] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "live", self.registered - self.shutting_down)

    def is_known(self, broker: int) -> bool:
        """Whether the broker's status is known."""
        return self.complete or broker in self.known


_UNKNOWN = LivenessView(frozenset(), frozenset(), frozenset(), False)


class _Series:
    """Values over time: ``value_at(t)`` is the last value set at or before ``t``."""

    __slots__ = ("times", "values")

    def __init__(self) -> None:
        self.times: list[int] = []
        self.values: list[object] = []

    def set(self, time: int, value: object) -> None:
        if self.times and self.times[-1] == time:
            self.values[-1] = value
        else:
            self.times.append(time)
            self.values.append(value)

    def index_at(self, time: int) -> int:
        return bisect.bisect_right(self.times, time) - 1

    def value_at(self, time: int) -> object:
        index = self.index_at(time)
        return self.values[index] if index >= 0 else None


class ClusterTimelines:
    """Time-indexed cluster state of one cluster (build with ``build_timelines``)."""

    def __init__(self, cluster: str = "") -> None:
        """An empty timeline (nothing known) for ``cluster``.

        Args:
            cluster: the cluster name.
        """
        self.cluster = cluster
        self._liveness = _Series()
        self._liveness_refs = _Series()
        self._down: dict[int, list[int]] = {}
        self._controller = _Series()
        self._config: dict[tuple[str, str, str], _Series] = {}
        self._assignments: dict[str, _Series] = {}
        self._deleting: dict[str, _Series] = {}
        self._deletions: dict[str, list[int]] = {}
        self._completed: dict[str, list[ClusterFact]] = {}
        self._removed_ids: set[str] = set()
        self._created_ids: dict[str, int] = {}
        self._restated: dict[str, list[int]] = {}
        self._topic_facts: list[ClusterFact] = []
        self._broker_epochs: dict[int, _Series] = {}
        self._kraft = _Series()
        self._anomalies: list[AnomalyRow] = []
        self.kraft_since: int | None = None
        """When the first fact from a KRaft controller (log or metadata record) was written: the
        cluster runs in KRaft mode from then on, for partitions whose own evidence is a broker's
        log only too."""

    # ------------------------------------------------------------------ building

    @classmethod
    def from_facts(cls, cluster: str, facts: Iterable[ClusterFact]) -> ClusterTimelines:
        """Build one cluster's timelines from its facts (any order; sorted here).

        Args:
            cluster: the cluster name.
            facts: its facts.

        Returns:
            The timelines.
        """
        timelines = cls(cluster)
        timelines._apply(sorted(facts, key=ClusterFact.order_key))
        return timelines

    def _apply(self, facts: list[ClusterFact]) -> None:
        registered: set[int] = set()
        shutting: set[int] = set()
        known: set[int] = set()
        complete = False
        sessions: dict[int, int] = {}
        broker_session: dict[int, int] = {}
        controller: int | None = None
        epoch: int | None = None
        last_time = _FAR_PAST
        for fact in facts:
            time = fact.time_ms if fact.time_ms is not None else last_time
            last_time = max(last_time, time)
            kind = fact.kind
            if self.kraft_since is None and fact.source in KRAFT_SOURCES:
                self.kraft_since = time
            before = (frozenset(registered), frozenset(shutting), complete, len(known))
            broker = fact.broker
            if kind in (_K.broker_up, _K.broker_down) and broker is not None and fact.epoch:
                self._broker_epochs.setdefault(broker, _Series()).set(time, fact.epoch)
            if kind is _K.registered_set and fact.brokers is not None:
                self._mark_down(registered - set(fact.brokers), time)
                registered = set(fact.brokers)
                shutting &= registered
                complete = True
            elif kind is _K.live_set and fact.brokers is not None:
                self._mark_down(registered - set(fact.brokers) - shutting, time)
                registered = set(fact.brokers) | shutting
                complete = True
            elif kind is _K.broker_up and broker is not None:
                registered.add(broker)
                known.add(broker)
            elif kind is _K.broker_down and broker is not None:
                if broker in registered or not complete:
                    self._mark_down({broker}, time)
                registered.discard(broker)
                shutting.discard(broker)
                known.add(broker)
            elif kind is _K.shutting_down_set and fact.brokers is not None:
                shutting = set(fact.brokers)
                registered |= shutting
                known |= shutting
            elif kind is _K.shutting_down_add and broker is not None:
                shutting.add(broker)
                registered.add(broker)
                known.add(broker)
            elif kind is _K.shutting_down_remove:
                shutting -= set(fact.brokers or ())
            elif kind is _K.session_registered and broker is not None and fact.session:
                sessions[fact.session] = broker
                broker_session[broker] = fact.session
            elif kind is _K.session_closed and fact.session is not None:
                owner = sessions.pop(fact.session, None)
                if owner is not None and broker_session.get(owner) == fact.session:
                    self._mark_down({owner}, time)
                    registered.discard(owner)
                    shutting.discard(owner)
                    known.add(owner)
            elif kind is _K.controller:
                if fact.detail == "resigned":
                    if fact.controller_id is None or fact.controller_id == controller:
                        controller = None
                else:
                    if fact.controller_id != controller:
                        epoch = None
                    controller = fact.controller_id
                    if fact.epoch is not None:
                        epoch = self._check_epoch(epoch, fact.epoch, fact)
                self._controller.set(time, (controller, epoch))
            elif kind is _K.controller_epoch and fact.epoch is not None:
                epoch = self._check_epoch(epoch, fact.epoch, fact)
                if fact.controller_id is not None:
                    controller = fact.controller_id
                self._controller.set(time, (controller, epoch))
            elif kind is _K.config and fact.key is not None and fact.scope is not None:
                series = self._config.setdefault((fact.scope, fact.name or "", fact.key), _Series())
                series.set(time, fact.value)
            elif kind is _K.topic_assignment and fact.topic is not None:
                self._assignment_fact(fact, time)
            elif kind in (_K.topic_deletion_started, _K.topic_deleted, _K.topic_created):
                if fact.topic is not None and not self._restates(fact, time):
                    self._topic_facts.append(fact)
                    flag = kind is _K.topic_deletion_started
                    self._deleting.setdefault(fact.topic, _Series()).set(time, flag)
                    if kind is not _K.topic_created:
                        self._deletions.setdefault(fact.topic, []).append(time)
                    if kind is _K.topic_deleted:
                        self._completed.setdefault(fact.topic, []).append(fact)
            elif kind is _K.kraft_context:
                self._kraft.set(time, (fact.detail, fact.broker))
            elif kind is _K.note:
                self._note(fact, fact.detail or "unusable record")
            elif kind is _K.records_missing:
                self._note(fact, fact.detail or "records missing", "log_gap", "warning")
            if (frozenset(registered), frozenset(shutting), complete, len(known)) != before:
                view = LivenessView(
                    frozenset(registered), frozenset(shutting), frozenset(known), complete
                )
                self._liveness.set(time, view)
                self._liveness_refs.set(time, fact.ref)

    def _restates(self, fact: ClusterFact, time: int) -> bool:
        """Whether a KRaft topic fact restates history: a controller that restarts (or
        catches up) replays its whole log and logs each record again. A topic ID is never
        reused, so the creation or removal of a removed topic is a restatement, and so is the
        creation of a live topic logged more than ``_RESTATED_AFTER_MS`` after it was created
        (each controller logs a real creation within moments of the others)."""
        topic_id = fact.value
        if topic_id is None or fact.kind is _K.topic_deletion_started:
            return False
        created = self._created_ids.setdefault(topic_id, time)
        restated = topic_id in self._removed_ids or (
            fact.kind is _K.topic_created and time - created > _RESTATED_AFTER_MS
        )
        if restated:
            if fact.kind is _K.topic_created and fact.topic is not None:
                self._restated.setdefault(fact.topic, []).append(time)
            return True
        if fact.kind is _K.topic_deleted:
            self._removed_ids.add(topic_id)
        return False

    def _mark_down(self, brokers: set[int], time: int) -> None:
        for broker in brokers:
            self._down.setdefault(broker, []).append(time)

    def _check_epoch(self, current: int | None, new: int, fact: ClusterFact) -> int:
        if current is not None and new < current:
            self._anomalies.append(
                AnomalyRow.of_cluster(
                    self.cluster,
                    fact.time_ms,
                    "controller_epoch_regression",
                    "warning",
                    f"controller epoch went from {current} back to {new}",
                    expected=f">= {current}",
                    observed=str(new),
                    evidence=(fact.ref,),
                    source=fact.source.name,
                )
            )
        return new

    def _note(
        self,
        fact: ClusterFact,
        detail: str,
        kind: str = "unusable_evidence",
        severity: str = "info",
    ) -> None:
        self._anomalies.append(
            AnomalyRow.of_cluster(
                self.cluster,
                fact.time_ms,
                kind,
                severity,
                detail,
                evidence=(fact.ref,),
                source=fact.source.name,
            )
        )

    def _assignment_fact(self, fact: ClusterFact, time: int) -> None:
        topic = fact.topic or ""
        try:
            body = json.loads(fact.detail or "{}")
            partitions = {
                int(p): tuple(int(r) for r in replicas)
                for p, replicas in body.get("partitions", {}).items()
            }
        except (ValueError, TypeError, AttributeError):
            self._note(fact, f"topic {fact.topic}: unreadable assignment")
            return
        self._assignments.setdefault(topic, _Series()).set(time, partitions)

    # ------------------------------------------------------------------ queries

    def liveness_at(self, time: int | None) -> LivenessView:
        """Who was registered, shutting down and live at ``time`` (after its facts).

        Args:
            time: UTC ms; ``None`` gives "nothing known".

        Returns:
            The view (``complete`` False and nothing known before the first fact).
        """
        if time is None:
            return _UNKNOWN
        value = self._liveness.value_at(time)
        return value if isinstance(value, LivenessView) else _UNKNOWN

    def liveness_changes(self) -> list[tuple[int, LivenessView, str]]:
        """Every change of who was registered, shutting down and live, in time order.

        Returns:
            ``(time, view after it, the fact's line or record)``.
        """
        return [
            (time, view, str(ref))
            for time, view, ref in zip(
                self._liveness.times, self._liveness.values, self._liveness_refs.values, strict=True
            )
            if isinstance(view, LivenessView)
        ]

    def broker_epoch_at(self, broker: int, time: int | None) -> int | None:
        """The broker epoch of ``broker``'s latest registration at ``time`` (after its facts),
        ``None`` when no evidence gave one."""
        series = self._broker_epochs.get(broker)
        if series is None or time is None:
            return None
        value = series.value_at(time)
        return value if isinstance(value, int) else None

    def controller_at(self, time: int | None) -> tuple[int | None, int | None]:
        """The active controller and its epoch at ``time`` (``None`` when unknown)."""
        if time is None:
            return None, None
        value = self._controller.value_at(time)
        if isinstance(value, tuple):
            return value[0], value[1]
        return None, None

    def config_at(self, scope: str, name: str, key: str, time: int | None) -> str | None:
        """The value of ``key`` for a config entity at ``time`` (``None``: not set).

        Args:
            scope: ``topic``, ``broker`` or ``broker_default``.
            name: the topic, the broker id as text, or ``<default>``.
            key: the config key.
            time: UTC ms.

        Returns:
            The configured text, ``None`` when unset at that time.
        """
        series = self._config.get((scope, name, key))
        if series is None or time is None:
            return None
        value = series.value_at(time)
        return value if isinstance(value, str) else None

    def unclean_setting(
        self, topic: str, time: int | None, settings: ReplaySettings, controller_id: int | None
    ) -> tuple[bool, str]:
        """``unclean.leader.election.enable`` in force for ``topic`` at ``time``, and from where.

        Args:
            topic: the topic.
            time: UTC ms.
            settings: the replay settings (what-if, configured default, release).
            controller_id: the controller whose broker config applies, when known.

        Returns:
            ``(value, source)`` with source ``what_if``, ``topic_config``, ``broker_config``,
            ``static_broker_config`` (the controller's ``KafkaConfig values`` block),
            ``configured_default`` or ``version_default``. A value that is not a boolean is
            skipped (Kafka would have rejected it).
        """
        if settings.forced_unclean is not None:
            return settings.forced_unclean, "what_if"
        found = self._configured(topic, time, controller_id, UNCLEAN_KEY, parse_bool_config)
        if found is not None:
            return found
        if settings.broker_unclean_enable is not None:
            return settings.broker_unclean_enable, "configured_default"
        return settings.profile.unclean_default, "version_default"

    def min_isr_setting(
        self, topic: str, time: int | None, default: int | None, controller_id: int | None
    ) -> tuple[int, str]:
        """``min.insync.replicas`` in force for ``topic`` at ``time``, and from where.

        The precedence is the unclean setting's (``unclean_setting``). The value is the
        configured one, before KRaft caps it at the replication factor
        (``getTopicEffectiveMinIsr``).

        Args:
            topic: the topic.
            time: UTC ms.
            default: the configured default (``ReplaySettings.broker_min_isr``), if any.
            controller_id: the controller whose broker config applies, when known.

        Returns:
            ``(value, source)`` with source ``topic_config``, ``broker_config``,
            ``static_broker_config``, ``configured_default`` or ``version_default`` (Kafka's
            default, 1). A value that is not a positive integer is skipped (Kafka would have
            rejected it).
        """
        found = self._configured(topic, time, controller_id, MIN_ISR_KEY, _parse_min_isr)
        if found is not None:
            return found
        if default is not None:
            return default, "configured_default"
        return 1, "version_default"

    def _configured(
        self,
        topic: str,
        time: int | None,
        controller_id: int | None,
        key: str,
        parse: Callable[[str | None], _T | None],
    ) -> tuple[_T, str] | None:
        if not self._config:
            return None
        candidates = [("topic", topic, "topic_config")]
        if controller_id is not None:
            candidates.append(("broker", str(controller_id), "broker_config"))
        candidates.append(("broker_default", "<default>", "broker_config"))
        if controller_id is not None:
            # the controller's own static config, as its KafkaConfig block printed it
            candidates.append((STATIC_SCOPE, str(controller_id), "static_broker_config"))
        for scope, name, label in candidates:
            value = parse(self.config_at(scope, name, key, time))
            if value is not None:
                return value, label
        return None

    def assignment_at(self, topic: str, partition: int, time: int | None) -> tuple[int, ...] | None:
        """The partition's replicas from the topic's assignment at ``time`` (``None`` unknown)."""
        series = self._assignments.get(topic)
        if series is None or time is None:
            return None
        value = series.value_at(time)
        if isinstance(value, dict):
            replicas = value.get(partition)
            return replicas if isinstance(replicas, tuple) else None
        return None

    def deleting_at(self, topic: str, time: int | None) -> bool:
        """Whether ``topic`` was queued for deletion at ``time``."""
        series = self._deleting.get(topic)
        return bool(series is not None and time is not None and series.value_at(time))

    def restated_creation(self, topic: str, time: int | None, window_ms: int) -> bool:
        """Whether ``topic``'s creation was restated (``_restates``) up to ``window_ms`` before
        ``time``: its partitions' creation and change lines then restate old states too."""
        times = self._restated.get(topic)
        if not times or time is None:
            return False
        return any(at <= time <= at + window_ms for at in times)

    def topic_facts(self) -> tuple[ClusterFact, ...]:
        """The topics' creation, deletion-request and deletion facts in time order, without
        the ones a restarted KRaft controller restated (``_restates``)."""
        return tuple(self._topic_facts)

    def completed_deletions(self, topic: str) -> tuple[ClusterFact, ...]:
        """The facts saying ``topic``'s deletion completed (its partitions are gone), in time
        order."""
        return tuple(self._completed.get(topic, ()))

    def deleted_between(self, topic: str, start: int | None, end: int | None) -> bool:
        """Whether ``topic``'s deletion was started or completed in ``(start, end]``.

        Args:
            topic: the topic.
            start: UTC ms (``None``: since the beginning).
            end: UTC ms.

        Returns:
            True when a deletion fact falls in the interval.
        """
        times = self._deletions.get(topic)
        if not times or end is None:
            return False
        low = bisect.bisect_right(times, start) if start is not None else 0
        return low < len(times) and times[low] <= end

    def kraft_context_near(self, time: int | None, window_ms: int) -> str | None:
        """The KRaft change context (``handleBrokerFenced``, ...) closest to ``time``.

        Args:
            time: UTC ms.
            window_ms: how far before or after to look.

        Returns:
            The context text, ``None`` when none is that close.
        """
        series = self._kraft
        if time is None or not series.times:
            return None
        index = bisect.bisect_left(series.times, time)
        best: tuple[int, str] | None = None
        for candidate in (index - 1, index):
            if 0 <= candidate < len(series.times):
                distance = abs(series.times[candidate] - time)
                value = series.values[candidate]
                closer = best is None or distance < best[0]
                if distance <= window_ms and isinstance(value, tuple) and value[0] and closer:
                    best = (distance, str(value[0]))
        return None if best is None else best[1]

    def went_down_within(self, broker: int, time: int | None, window_ms: int) -> bool:
        """Whether ``broker`` deregistered (or was fenced) in ``(time, time + window]``."""
        downs = self._down.get(broker)
        if not downs or time is None:
            return False
        index = bisect.bisect_right(downs, time)
        return index < len(downs) and downs[index] <= time + window_ms

    def next_live(self, brokers: Iterable[int], after: int | None) -> tuple[int, int] | None:
        """The first moment at or after ``after`` when one of ``brokers`` is live.

        Args:
            brokers: candidate brokers.
            after: UTC ms.

        Returns:
            ``(time, broker)`` (the first live one in ``brokers`` order), ``None`` when none
            is live again within the facts.
        """
        wanted = tuple(brokers)
        if after is None or not wanted:
            return None
        series = self._liveness
        index = max(series.index_at(after), 0)
        for position in range(index, len(series.times)):
            view = series.values[position]
            if not isinstance(view, LivenessView):
                continue
            live = view.live
            for broker in wanted:
                if broker in live:
                    return max(series.times[position], after), broker
        return None

    def anomalies(self) -> list[AnomalyRow]:
        """Cluster-level anomalies found while building (unusable records, epoch regressions)."""
        return list(self._anomalies)


def build_timelines(facts: Iterable[ClusterFact]) -> dict[str, ClusterTimelines]:
    """Build every cluster's timelines from its facts (any order; sorted here).

    Args:
        facts: cluster facts of one or more clusters.

    Returns:
        Cluster name -> timelines.
    """
    by_cluster: dict[str, list[ClusterFact]] = {}
    for fact in facts:
        by_cluster.setdefault(fact.cluster, []).append(fact)
    out: dict[str, ClusterTimelines] = {}
    for cluster, items in by_cluster.items():
        out[cluster] = ClusterTimelines.from_facts(cluster, items)
    return out
