"""Acceptance on the demo sample (``samples/demo``), without Spark: its logs through the grammar
executor, the normalizers and the replay, then the report.

* Every ``Leader imbalance ratio for broker B is R`` line the controllers logged (counted in the
  raw files) equals the ratio computed from the replayed timelines at that check, exactly.
* The planted unclean election (audit-0, 10:32, out-of-sync replica 4 elected after broker 2
  crashed) appears with the ISR before, the time replica 4 left the ISR (its shrink at 10:30)
  and that exposure, which matches the ground truth of the simulation.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from kafkactl_core.replay import ClusterFact
from kafkactl_core.report import compute_report, election_from_row, timeline_from_row
from tests.golden.cases import DEMO, SETTINGS, _read, replay_demo

RATIO_LINE = re.compile(r"Leader imbalance ratio for broker (\d+) is (\S+)")


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


@pytest.fixture(scope="module")
def demo():
    inputs = replay_demo()
    timeline = [timeline_from_row(r) for r in _read(inputs["timeline"])]
    elections = [election_from_row(r) for r in _read(inputs["elections"])]
    facts = [f for f in (ClusterFact.from_row(r) for r in _read(inputs["facts"])) if f]
    tables = compute_report(
        "demo",
        timeline=timeline,
        elections=elections,
        facts=facts,
        controller_events=_read(inputs["checks"]),
        settings=SETTINGS,
    )
    return tables


def test_every_logged_imbalance_ratio_equals_ours_exactly(demo):
    logged = []
    for path in sorted((DEMO / "logs").glob("*/controller.log")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            found = RATIO_LINE.search(line)
            if found:
                rel = f"samples/demo/logs/{path.parent.name}/controller.log:{number}"
                logged.append((rel, int(found.group(1)), float(found.group(2))))
    assert len(logged) == 236
    checks = {r.evidence: r for r in demo.imbalance if r.observation == "check" and r.evidence}
    assert sorted(checks) == sorted(rel for rel, _, _ in logged)
    for rel, broker, ratio in logged:
        row = checks[rel]
        assert (row.broker, row.logged_ratio) == (broker, ratio)
        assert row.imbalance_ratio == ratio and row.logged_matches is True, rel
    assert [a for a in demo.anomalies if a.kind == "imbalance_ratio_mismatch"] == []
    # Not all zero: the checks after the failures saw 100 % and the reassignment 25 %.
    assert {r.imbalance_ratio for r in checks.values()} == {0.0, 0.25, 1.0}


def test_planted_unclean_election_with_its_exposure(demo):
    (unclean,) = demo.unclean
    assert (unclean.topic, unclean.partition, unclean.trigger) == ("audit", 0, "offline")
    assert (unclean.prev_leader, unclean.new_leader, unclean.isr_before) == (2, 4, (2,))
    assert unclean.new_leader_left_isr_ms == ms("2024-03-05 10:30:00.000")
    assert unclean.elected_at_ms == ms("2024-03-05 10:32:00.001")
    assert unclean.exposure_seconds == pytest.approx(120.001)
    # Ground truth: the ISR write that dropped 4, and the controller's election.
    truth = [json.loads(line) for line in (DEMO / "expected-elections.jsonl").open()]
    (elected,) = [e for e in truth if e["unclean"]]
    shrink = [
        json.loads(line)
        for line in (DEMO / "zookeeper-history.jsonl").open()
        if "audit/partitions/0/state" in line and '\\"isr\\":[2]' in line
    ]
    true_exposure = (elected["t"] - shrink[0]["t"]) / 1000
    assert shrink[0]["t"] == unclean.new_leader_left_isr_ms
    assert unclean.exposure_seconds == pytest.approx(true_exposure, abs=0.05)
    daily = {(d.topic, d.unclean_elections, d.max_exposure_seconds) for d in demo.unclean_daily}
    assert daily == {("audit", 1, unclean.exposure_seconds)}


def test_rebalances_and_controller_history(demo):
    broker3 = next(r for r in demo.daily if r.broker == 3)
    # Broker 3 crashed at 09:10 and led again after the 09:30:05 rebalance.
    assert broker3.seconds_above_threshold == pytest.approx(20 * 60 + 5.007, abs=0.01)
    assert broker3.preferred_elections == 2
    terms = [(t.controller_id, t.controller_epoch, t.ended_by) for t in demo.controllers]
    assert terms == [(1, 1, "resigned"), (3, 2, "still_active")]
    assert demo.controllers[0].active_to_ms == ms("2024-03-05 12:00:00.002")


def _history_stretches() -> list[tuple[str, int, int, int | None]]:
    """Ground truth: the stretches a led partition's ISR (its state znode) lacked a replica of
    its assignment (its topic znode), from every write of the simulated ZooKeeper history."""
    assignment: dict[tuple[str, int], tuple[int, ...]] = {}
    state: dict[tuple[str, int], tuple[int, tuple[int, ...]]] = {}
    started: dict[tuple[str, int], int] = {}
    found: list[tuple[str, int, int, int | None]] = []
    for line in (DEMO / "zookeeper-history.jsonl").open():
        write = json.loads(line)
        for op in write.get("ops") or [write]:
            if op.get("op") not in ("create", "setData") or not op.get("data"):
                continue
            parts, data = op["path"].split("/"), json.loads(op["data"])
            if parts[1:3] == ["brokers", "topics"] and len(parts) == 4:
                for partition, replicas in data["partitions"].items():
                    assignment[(parts[3], int(partition))] = tuple(replicas)
                keys = [k for k in assignment if k[0] == parts[3]]
            elif parts[1:3] == ["brokers", "topics"] and parts[-1] == "state":
                keys = [(parts[3], int(parts[5]))]
                state[keys[0]] = (data["leader"], tuple(data["isr"]))
            else:
                continue
            for key in keys:
                leader, isr = state.get(key, (-1, ()))
                under = leader >= 0 and any(r not in isr for r in assignment.get(key, ()))
                if under and key not in started:
                    started[key] = write["t"]
                elif not under and key in started:
                    found.append((*key, started.pop(key), write["t"]))
    return sorted(found + [(*key, start, None) for key, start in started.items()], key=str)


def test_under_replicated_stretches_are_the_zookeeper_historys(demo):
    """From the logs alone: each stretch the ZooKeeper history shows (follower 4 lagging on
    orders-2, broker 3's crash, audit-0's shrink and broker 2's crash, broker 4's controlled
    shutdown, the controller's session expiry, payments-1's reassignment) is one row, its
    start and end within 5 ms of the writes'."""
    truth = _history_stretches()
    ours = sorted(
        ((r.topic, r.partition, r.under_from_ms, r.under_to_ms) for r in demo.under_replicated),
        key=str,
    )
    assert [r.condition for r in demo.under_replicated] == ["under_replicated"] * len(truth)
    assert len(ours) == len(truth) == 32
    for (topic, partition, start, end), expected in zip(ours, truth, strict=True):
        assert (topic, partition) == expected[:2]
        assert abs(start - expected[2]) <= 5 and end is not None and expected[3] is not None
        assert abs(end - expected[3]) <= 5
    churn = {(r.topic, r.partition, r.broker): (r.shrinks, r.expands) for r in demo.isr_churn}
    assert churn[("orders", 2, 4)] == (2, 2)  # the lagging follower, then the shutdown


def test_each_brokers_history_is_the_scenarios(demo):
    """Broker 3 crashed at 09:10 and came back 15 min later; broker 2 crashed at 10:32; broker
    4 was stopped cleanly at 11:15 and restarted 2 min later; broker 1's session expired at
    12:00 and it registered again. From the logs, a crash is a deregistration."""
    down = [
        (r.broker, r.state, r.cause, round((r.duration_seconds or 0) / 60))
        for r in demo.brokers
        if r.state != "online"
    ]
    assert down == [
        (1, "offline", "deregistered", 0),
        (2, "offline", "deregistered", 10),
        (3, "offline", "deregistered", 15),
        (4, "controlled_shutdown", "controlled_shutdown", 0),
        (4, "offline", "deregistered after controlled shutdown", 2),
    ]
    starts = {(r.broker, r.state): r.state_from_ms for r in demo.brokers if r.state != "online"}
    assert starts[(3, "offline")] == ms("2024-03-05 09:10:00.000")
    assert starts[(4, "controlled_shutdown")] == ms("2024-03-05 11:15:00.000")
    assert all(r.open_ended for r in demo.brokers if r.state_to_ms is None)
    assert {r.broker for r in demo.brokers if r.open_ended} == {1, 2, 3, 4}


def test_the_planted_reassignment(demo):
    """payments-1 is reassigned from [4,2,3] to [1,2,3] at 12:30; the move completes two
    minutes later, and the leadership goes from 4 to the target's first replica, 1."""
    (move,) = demo.reassignments
    assert (move.topic, move.partition, move.outcome) == ("payments", 1, "completed")
    assert (move.replicas_from, move.replicas_to) == ((4, 2, 3), (1, 2, 3))
    assert (move.adding, move.removing, move.leader_moved) == ((1,), (4,), True)
    assert move.started_ms == ms("2024-03-05 12:30:00.000")
    assert move.duration_seconds == pytest.approx(120, abs=0.1)
