"""The demo sample's logs (``samples/demo/logs``) through the pure-Python replay, against what
was planted (``samples/demo/README.md``, ``expected-elections.jsonl``).

Nothing inconsistent is planted in the demo: its logs are what Kafka 2.8.2 writes with its
shipped log4j configuration (``state.change.logger`` at INFO). So the replay must report no
anomaly, except the one the logs alone cannot avoid: the topic-level
``unclean.leader.election.enable=true`` of ``audit`` is in ZooKeeper only, so from the logs the
release default (false) applies and the rules disagree with the planted unclean election of
``audit-0``. ``tests/e2e/test_demo_replay.py`` checks the same through Spark, with ZooKeeper
(where that disagreement disappears).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.golden.cases import DEMO, _read, replay_demo


@pytest.fixture(scope="module")
def replayed() -> dict[str, list[dict[str, Any]]]:
    return {name: _read(text) for name, text in replay_demo().items()}


def test_elections_are_the_planted_ones(replayed):
    truth = [json.loads(line) for line in (DEMO / "expected-elections.jsonl").open()]
    assert len(truth) == 31
    expected = sorted(
        (e["topic"], e["partition"], e["leader_epoch"], e["trigger"], e["new_leader"], e["unclean"])
        for e in truth
    )
    found = sorted(
        (r["topic"], r["partition"], r["leader_epoch"], r["trigger"], r["new_leader"], r["unclean"])
        for r in replayed["elections"]
    )
    assert found == expected


def test_no_anomaly_but_the_unclean_setting_the_logs_do_not_show(replayed):
    anomalies = [
        (a["kind"], a["topic"], a["partition"], a["leader_epoch"], a["expected"], a["observed"])
        for a in replayed["anomalies"]
    ]
    assert anomalies == [("decision_disagreement", "audit", 0, 1, "-1", "4")]


def test_the_rules_agree_with_every_election_but_the_unclean_one(replayed):
    disagreeing = [r for r in replayed["elections"] if r["agrees"] is not True]
    assert [(r["topic"], r["partition"], r["leader_epoch"]) for r in disagreeing] == [
        ("audit", 0, 1)
    ]
    (row,) = disagreeing
    assert (row["isr_before"], row["new_leader"], row["unclean"]) == ([2], 4, True)
    assert (row["unclean_setting"], row["unclean_setting_source"]) == (False, "version_default")
