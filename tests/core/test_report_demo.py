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
