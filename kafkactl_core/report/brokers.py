"""Each broker's history: online, in controlled shutdown, offline (``gold.broker_timeline``).

The states are the replay's own view of the cluster (``ClusterTimelines.liveness_changes``:
registrations, broker-down events, ZooKeeper sessions, KRaft fencing, controlled shutdowns), so
the table says what the elections were judged against. An offline stretch takes its cause from
the broker-down event at its start (``report.offline.broker_events``).
"""

from __future__ import annotations

from kafkactl_core.replay.timelines import ClusterTimelines, LivenessView
from kafkactl_core.report.offline import BrokerEvents
from kafkactl_core.report.rows import BrokerInterval

__all__ = ["BROKER_STATES", "broker_timeline"]

BROKER_STATES = ("online", "controlled_shutdown", "offline")
"""``BrokerInterval.state`` values."""

_REGISTERED_FENCED = "new_incarnation"
"""A KRaft broker's registration: it stays fenced until it has caught up."""

_EVENT_WINDOW_MS = 5_000
"""How far from a stretch's start the broker-down event that caused it may be logged."""


def _state(view: LivenessView, broker: int) -> str | None:
    if broker in view.live:
        return "online"
    if broker in view.shutting_down:
        return "controlled_shutdown"
    return "offline" if view.is_known(broker) else None


def _offline_cause(events: BrokerEvents, broker: int, time: int, previous: str | None) -> str:
    near = [
        e
        for e in events.near(broker, time, _EVENT_WINDOW_MS, _EVENT_WINDOW_MS)
        if e.what != "controlled_shutdown"
    ]
    if not near:
        cause = "deregistered" if previous is not None else "not registered"
    else:
        cause = min(near, key=lambda e: abs(e.time_ms - time)).what
    if cause == _REGISTERED_FENCED:
        cause = "registering" if previous is None else "re-registered"
    return f"{cause} after controlled shutdown" if previous == "controlled_shutdown" else cause


def broker_timeline(
    cluster: str, timelines: ClusterTimelines, events: BrokerEvents, until_ms: int | None
) -> list[BrokerInterval]:
    """The stretches of each broker's state.

    Args:
        cluster: the cluster.
        timelines: its timelines (their liveness changes).
        events: its broker events, for the causes.
        until_ms: the end of the evidence, for the duration of open stretches.

    Returns:
        One row per stretch, ordered by broker and start.
    """
    changes = timelines.liveness_changes()
    brokers: set[int] = set()
    for _, view, _ in changes:
        brokers |= view.registered | view.known
    out: list[BrokerInterval] = []
    for broker in sorted(brokers):
        current: BrokerInterval | None = None
        for time, view, ref in changes:
            state = _state(view, broker)
            if current is not None and state == current.state:
                continue
            previous = None if current is None else current.state
            if current is not None:
                _close(current, time, ref)
                out.append(current)
            current = None
            if state is not None:
                cause = {"online": "registered", "controlled_shutdown": "controlled_shutdown"}.get(
                    state
                ) or _offline_cause(events, broker, time, previous)
                if cause == "not registered":
                    continue  # before its first registration: not started yet, not down
                epoch = timelines.broker_epoch_at(broker, time)
                current = BrokerInterval(
                    cluster, broker, state, time, None, None, True, cause, epoch, (ref,)
                )
        if current is not None:
            if until_ms is not None:
                current.duration_seconds = max(0, until_ms - current.state_from_ms) / 1000
            out.append(current)
    return out


def _close(interval: BrokerInterval, time: int, ref: str) -> None:
    interval.state_to_ms = time
    interval.duration_seconds = max(0, time - interval.state_from_ms) / 1000
    interval.open_ended = False
    interval.evidence = (*interval.evidence, ref)
