"""What-if: the same elections under changed settings.

``evaluate_what_if`` takes the actual elections (``ElectionRow`` of the ``actual`` replay) and a
scenario's settings (``settings.with_what_if``, e.g. ``unclean.leader.election.enable=false``)
and re-runs Kafka's rules (``rules.expected_leader``) on what the controller saw at each
election: the same trigger, ISR before, assignment and live brokers, but the scenario's unclean
setting, release and IBP. An election the scenario's rules cannot make leaves the partition
offline until a member of the ISR before comes back live (the cluster's liveness timeline); the
row says when that was and for how long the partition would have stayed offline. Actual
elections of that partition during the scenario's offline period did not happen either.

Histories diverge after a changed election; later elections are evaluated on the actual
evidence (an approximation the rows state in ``detail``). Rows are emitted only for elections
whose outcome changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kafkactl_core.replay.rows import ElectionRow, WhatIfRow
from kafkactl_core.replay.rules import ElectionInputs, expected_leader
from kafkactl_core.replay.settings import ReplaySettings
from kafkactl_core.replay.timelines import ClusterTimelines, LivenessView

__all__ = ["evaluate_what_if"]


def _liveness(row: ElectionRow, timelines: ClusterTimelines) -> LivenessView:
    view = timelines.liveness_at(row.elected_at_ms)
    if row.live_brokers is None:
        return view
    live = frozenset(row.live_brokers)
    known = live | frozenset(row.assignment or ()) | view.known
    return LivenessView(live | view.shutting_down, view.shutting_down, known, view.complete)


def _changed(
    row: ElectionRow,
    timelines: ClusterTimelines,
    scenario: ReplaySettings,
) -> WhatIfRow | None:
    time = row.elected_at_ms
    trigger = row.trigger
    if trigger == "preferred" and scenario.auto_rebalance_enable is False:
        return _row(
            row,
            scenario,
            row.prev_leader,
            "auto.leader.rebalance.enable=false: no automatic preferred election "
            "(an admin-requested one would still happen)",
        )
    if trigger == "admin_unclean":
        setting = True
    else:
        setting, _ = timelines.unclean_setting(row.topic, time, scenario, row.controller_id)
    expectation = expected_leader(
        ElectionInputs(
            trigger,
            row.partition,
            row.prev_leader,
            None,
            row.isr_before,
            row.assignment,
            None,
            _liveness(row, timelines),
            setting,
            scenario.mode == "kraft" or "kraft_" in row.source,
        ),
        scenario,
    )
    leader = expectation.leader
    if leader is None or leader == row.new_leader:
        return None
    if leader >= 0:
        detail = f"{expectation.reason} elects {leader} instead of {row.new_leader}"
        return _row(row, scenario, leader, detail, happens=True)
    candidates = [r for r in (row.assignment or ()) if r in (row.isr_before or ())]
    back = timelines.next_live(candidates, time)
    if back is None:
        detail = (
            f"{expectation.reason}: no eligible leader, and no ISR member "
            f"{list(candidates)} came back within the evidence"
        )
        return _row(row, scenario, -1, detail, offline_from=time)
    until, broker = back
    detail = f"{expectation.reason}: no eligible leader until ISR member {broker} came back"
    return _row(
        row, scenario, -1, detail, offline_from=time, offline_until=until, leader_then=broker
    )


def _row(
    row: ElectionRow,
    scenario: ReplaySettings,
    leader: int | None,
    detail: str,
    *,
    happens: bool = False,
    offline_from: int | None = None,
    offline_until: int | None = None,
    leader_then: int | None = None,
) -> WhatIfRow:
    seconds = None
    if offline_from is not None and offline_until is not None:
        seconds = max(0, offline_until - offline_from) / 1000.0
    return WhatIfRow(
        cluster=row.cluster,
        topic=row.topic,
        partition=row.partition,
        scenario=scenario.scenario,
        elected_at_ms=row.elected_at_ms,
        trigger=row.trigger,
        actual_new_leader=row.new_leader,
        actual_unclean=row.unclean,
        scenario_new_leader=leader,
        would_happen=happens,
        offline_from_ms=offline_from,
        offline_until_ms=offline_until,
        offline_seconds=seconds,
        scenario_leader_then=leader_then,
        detail=detail,
        evidence=row.evidence,
    )


def evaluate_what_if(
    elections: Iterable[ElectionRow],
    timelines: ClusterTimelines | Mapping[str, ClusterTimelines],
    scenario: ReplaySettings | Mapping[str, ReplaySettings],
) -> list[WhatIfRow]:
    """The actual elections whose outcome a scenario changes.

    Args:
        elections: rows of the actual replay (any order; failed elections included).
        timelines: cluster -> timelines (liveness to find when the partition could recover), or
            one cluster's timelines.
        scenario: the scenario's settings (``with_what_if``), or cluster -> settings.

    Returns:
        One row per changed election, ordered by cluster, topic, partition and time.
    """
    by_partition: dict[tuple[str, str, int], list[ElectionRow]] = {}
    for row in elections:
        by_partition.setdefault((row.cluster, row.topic, row.partition), []).append(row)
    out: list[WhatIfRow] = []
    for key in sorted(by_partition):
        cluster = key[0]
        settings = scenario if isinstance(scenario, ReplaySettings) else scenario.get(cluster)
        if settings is None:
            continue
        if isinstance(timelines, ClusterTimelines):
            cluster_timelines = timelines
        else:
            cluster_timelines = timelines.get(cluster) or ClusterTimelines(cluster)
        rows = sorted(by_partition[key], key=lambda r: (r.elected_at_ms or 0, r.leader_epoch or 0))
        offline_until: int | None = None
        offline_open = False
        for row in rows:
            time = row.elected_at_ms or 0
            if offline_open and (offline_until is None or time < offline_until):
                detail = "the partition is still offline under the scenario"
                out.append(_row(row, settings, -1, detail))
                continue
            offline_open = False
            changed = _changed(row, cluster_timelines, settings)
            if changed is None:
                continue
            out.append(changed)
            if changed.scenario_new_leader == -1 and not row.failed:
                offline_open = True
                offline_until = changed.offline_until_ms
    return out
