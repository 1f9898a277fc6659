"""Controller history: who was the active controller, at which epoch, from when to when, and
how each term ended.

Read from the cluster facts the replay's normalizers emit (controller elected/activated lines,
``/controller`` and ``/controller_epoch`` writes, resignations, broker-down facts). A term
begins when a controller is first seen active, or when the same broker is seen again at a higher
epoch (it won a new election). It ends when the controller resigns (refined to
``session_expired`` or ``broker_failed`` when its broker's ZooKeeper session expired or it was
seen failing at that moment), when its broker goes down, or when another controller appears
(``superseded``: no resignation on record). The last term is ``still_active``; its duration runs
to the end of the evidence.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kafkactl_core.replay.facts import ClusterFact, ClusterFactKind
from kafkactl_core.report.offline import BrokerEvents, broker_events
from kafkactl_core.report.rows import ControllerTenure

__all__ = ["controller_history"]

_K = ClusterFactKind
_WINDOW_MS = 5_000


@dataclass
class _Term:
    controller: int | None
    epoch: int | None
    start: int | None
    refs: list[str] = field(default_factory=list)
    end: int | None = None
    ended_by: str = "still_active"


def _refine(term: _Term, events: BrokerEvents, time: int, default: str) -> str:
    if term.controller is None:
        return default
    whats = {e.what for e in events.near(term.controller, time, _WINDOW_MS, _WINDOW_MS)}
    if "session_expired" in whats:
        return "session_expired"
    if "failed" in whats or "fenced" in whats:
        return "broker_failed"
    return default


def _late_resignation(
    terms: list[_Term],
    current: _Term | None,
    controller: int | None,
    time: int | None,
    ref: str,
    events: BrokerEvents,
) -> None:
    """A resignation logged just after the successor appeared: the superseded term resigned."""
    closed = [t for t in terms if t is not current and t.ended_by == "superseded"]
    if not closed or time is None:
        return
    term = closed[-1]
    if controller not in (None, term.controller) or term.end is None:
        return
    if abs(time - term.end) <= _WINDOW_MS:
        term.ended_by = _refine(term, events, term.end, "resigned")
        term.refs.append(ref)


def controller_history(
    cluster: str, facts: Iterable[ClusterFact], until_ms: int | None = None
) -> list[ControllerTenure]:
    """The controller terms of one cluster.

    Args:
        cluster: the cluster.
        facts: its facts (any order; sorted here).
        until_ms: the end of the evidence, for the duration of the last term.

    Returns:
        The terms in time order.
    """
    ordered = sorted(facts, key=ClusterFact.order_key)
    events = broker_events(ordered)
    terms: list[_Term] = []
    current: _Term | None = None

    def close(time: int | None, how: str, ref: str) -> None:
        nonlocal current
        if current is not None:
            current.end = time
            current.ended_by = how
            current.refs.append(ref)
            current = None

    def open_term(controller: int | None, epoch: int | None, time: int | None, ref: str) -> None:
        nonlocal current
        current = _Term(controller, epoch, time, [ref])
        terms.append(current)

    for fact in ordered:
        time = fact.time_ms
        if fact.kind is _K.controller:
            controller = fact.controller_id
            if fact.detail == "resigned":
                if current is not None and controller in (None, current.controller):
                    how = _refine(current, events, time or 0, "resigned")
                    close(time, how, fact.ref)
                else:
                    _late_resignation(terms, current, controller, time, fact.ref, events)
                continue
            if controller is None:
                continue
            if current is not None and current.controller == controller:
                if (
                    fact.epoch is not None
                    and current.epoch is not None
                    and fact.epoch > current.epoch
                ):
                    close(time, "re-elected", fact.ref)
                    open_term(controller, fact.epoch, time, fact.ref)
                elif current.epoch is None:
                    current.epoch = fact.epoch
                continue
            close(time, "superseded", fact.ref)
            open_term(controller, fact.epoch, time, fact.ref)
        elif fact.kind is _K.controller_epoch and fact.epoch is not None:
            controller = fact.controller_id
            if current is None:
                if controller is not None:
                    open_term(controller, fact.epoch, time, fact.ref)
                continue
            if controller not in (None, current.controller):
                close(time, "superseded", fact.ref)
                open_term(controller, fact.epoch, time, fact.ref)
            elif current.epoch is None:
                current.epoch = fact.epoch
            elif fact.epoch > current.epoch and controller is not None:
                close(time, "re-elected", fact.ref)
                open_term(controller, fact.epoch, time, fact.ref)
        elif (
            fact.kind is _K.broker_down
            and current is not None
            and time is not None
            and fact.broker is not None
            and fact.broker == current.controller
        ):
            close(time, _refine(current, events, time, "broker_failed"), fact.ref)
    out: list[ControllerTenure] = []
    for index, term in enumerate(terms):
        successor = terms[index + 1].controller if index + 1 < len(terms) else None
        stop = term.end if term.end is not None else until_ms
        duration = None
        if term.start is not None and stop is not None:
            duration = max(0, stop - term.start) / 1000
        out.append(
            ControllerTenure(
                cluster=cluster,
                controller_id=term.controller,
                controller_epoch=term.epoch,
                active_from_ms=term.start,
                active_to_ms=term.end,
                duration_seconds=duration,
                ended_by=term.ended_by,
                successor_id=successor,
                evidence=tuple(dict.fromkeys(term.refs)),
            )
        )
    return out
