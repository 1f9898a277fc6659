"""Simulator and replay together, without Spark: a simulated cluster's logs, parsed and replayed by
the pure-Python path (``kafkactl_core.replay.local``), agree with the simulator's ground truth on
every election, and Kafka's rules agree with every decision (failed elections included).

* A script of the cases that once disagreed: an election right after a reassignment ended
  (a controlled shutdown two seconds later, a broker crash two seconds later) is the shutdown's
  or the failure's, not the reassignment's; a controlled shutdown that cannot move a leader (its
  ISR is the leader alone) is a failed controlled-shutdown election at each of the broker's
  tries, not a failed offline one (which, with unclean elections enabled, would have elected a
  replica outside the ISR).
* An offline partition retried at every broker change and controller failover: one failed
  attempt per try, each with what was in ZooKeeper before it and what was written after it.
* A busy random mix of 2.8 (crashes, controlled shutdowns, rolling restarts, controller fail-overs,
  ISR churn, reassignments, topic creation and deletion, unclean elections).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from kafkactl_lab.simulate import TRUTH_FILE, SimulationSettings, load_script, simulate
from kafkactl_lab.simulate.truth import GOLD_COLUMNS, Election, compare, read_truth
from tests.core.replay_evidence import before_and_after
from tests.core.simulated import SHORT_SCRIPTED_RUN, replay_simulation

SCRIPT = {
    "settings": {
        **SHORT_SCRIPTED_RUN,
        "auto_rebalance": False,
        "unclean_broker_default": True,
    },
    "steps": [
        {"at": 10, "op": "create_topic", "topic": "moved", "assignment": {"0": [1, 2, 3]}},
        {"at": 10, "op": "create_topic", "topic": "other", "assignment": {"0": [2, 3, 4]}},
        {"at": 10, "op": "create_topic", "topic": "solo", "assignment": {"0": [3, 4]}},
        # leader 1 stays in the target: the reassignment bumps the epoch, elects nobody
        {"at": 60, "op": "reassign", "topic": "moved", "partition": 0, "replicas": [1, 2, 4]},
        {"at": 60, "op": "complete_reassignment", "topic": "moved", "partition": 0},
        {"at": 62, "op": "stop_broker", "broker": 1, "restart_after_s": 60},
        {"at": 200, "op": "reassign", "topic": "other", "partition": 0, "replicas": [2, 3, 1]},
        {"at": 200, "op": "complete_reassignment", "topic": "other", "partition": 0},
        {"at": 202, "op": "crash_broker", "broker": 2, "restart_after_s": 60},
        {"at": 400, "op": "shrink_isr", "topic": "solo", "partition": 0, "replica": 4},
        {"at": 410, "op": "stop_broker", "broker": 3, "restart_after_s": 60},
    ],
}
RETRIED = {
    "settings": {"brokers": 4, "topics": 0, "hours": 0.3, "seed": 3, "auto_rebalance": False},
    "steps": [
        {"at": 10, "op": "create_topic", "topic": "lonely", "assignment": {"0": [2, 3, 4]}},
        {"at": 60, "op": "shrink_isr", "topic": "lonely", "partition": 0, "replica": 3},
        {"at": 61, "op": "shrink_isr", "topic": "lonely", "partition": 0, "replica": 4},
        {"at": 100, "op": "crash_broker", "broker": 2, "restart_after_s": 800},
        {"at": 200, "op": "crash_broker", "broker": 3, "restart_after_s": 30},
        {"at": 400, "op": "crash_broker", "broker": 4, "restart_after_s": 30},
        {"at": 600, "op": "expire_controller_session", "successor": 3},
    ],
}
"""Leader 2 alone in the ISR crashes (unclean elections disabled); brokers 3 and 4 crash and
come back; controller 1's session expires (3 takes over, 1 re-registers); 2 comes back."""
BUSY = {
    "crash_broker": 2.0,
    "stop_broker": 2.0,
    "rolling_restart": 0.5,
    "shrink_isr_per_1000_partitions": 200.0,
    "expire_controller_session": 1.0,
    "reassign": 6.0,
    "create_topic": 2.0,
    "delete_topic": 1.0,
    "isolate_leader": 2.0,
}


def replayed(out: Path):
    return replay_simulation(out).output


def as_election(row) -> Election:
    values = {name: getattr(row, name) for name in GOLD_COLUMNS if name != "elected_at"}
    values["elected_at"] = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=row.elected_at_ms)
    return Election.from_gold(values)


def check(out: Path):
    output = replayed(out)
    with open(out / TRUTH_FILE, encoding="utf-8") as truth:
        result = compare(read_truth(truth), (as_election(r) for r in output.elections))
    assert [m.describe() for m in result.mismatches] == []
    assert result.ok
    disagreeing = [r for r in output.elections if r.agrees is not True]
    assert disagreeing == []
    return output, result


def test_elections_after_a_reassignment_and_a_stuck_controlled_shutdown(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    simulate(SimulationSettings(), tmp_path / "out", load_script(script))
    output, result = check(tmp_path / "out")
    moved = [r for r in output.elections if r.topic == "moved" and r.prev_leader == 1]
    assert [(r.trigger, r.new_leader) for r in moved][:1] == [("controlled_shutdown", 2)]
    other = [r for r in output.elections if r.topic == "other" and r.prev_leader == 2]
    assert [(r.trigger, r.new_leader) for r in other][:1] == [("offline", 3)]
    # the broker asks 3 times (controlled.shutdown.max.retries), 5 s apart: 3 failed attempts
    stuck = [r for r in output.elections if r.new_leader == -1]
    assert [
        (r.topic, r.trigger, r.prev_leader, r.leader_epoch, r.expected_leader) for r in stuck
    ] == [("solo", "controlled_shutdown", 3, 0, -1)] * 3
    assert [r.elected_at_ms - stuck[0].elected_at_ms for r in stuck] == [0, 5011, 10020]
    # the broker then stopped without moving it: offline, and unclean (4 had left the ISR)
    assert [(r.trigger, r.new_leader, r.unclean) for r in output.elections if r.topic == "solo"][
        -1
    ] == ("offline", 4, True)
    assert result.failed_truth == result.failed_replayed == result.failed_matched == 3
    assert result.truth == len(output.elections) - 3


def test_an_offline_partition_is_retried_at_every_broker_change_and_failover(
    tmp_path: Path,
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(RETRIED))
    simulate(SimulationSettings(), tmp_path / "out", load_script(script))
    output, result = check(tmp_path / "out")
    assert result.failed_truth == result.failed_replayed == result.failed_matched == 7
    *failed, back = [r for r in output.elections if r.prev_leader is not None]
    start = failed[0].elected_at_ms
    assert [((r.elected_at_ms - start) // 1000, *before_and_after(r)) for r in failed] == [
        # onBrokerFailure(2): the attempt, then OfflineReplica writes leader -1 (epoch 1)
        (0, 1, 2, 0, (2,), 1, (2,), 3),
        # 3 crashes and restarts, then 4: onBrokerFailure, onBrokerStartup; nothing written
        (100, 1, -1, 1, (2,), 1, (2,), 3),
        (130, 1, -1, 1, (2,), 1, (2,), 3),
        (300, 1, -1, 1, (2,), 1, (2,), 3),
        (330, 1, -1, 1, (2,), 1, (2,), 3),
        # failover to 3: OfflineReplica for 2 rewrites leader -1 (epoch 2) before the attempt
        (500, 2, -1, 2, (2,), 2, (2,), 4),
        # 1 re-registers: onBrokerStartup
        (506, 2, -1, 2, (2,), 2, (2,), 4),
    ]
    assert {(r.trigger, r.new_leader, r.expected_leader) for r in failed} == {("offline", -1, -1)}
    assert (back.prev_leader, back.new_leader, back.leader_epoch, back.unclean) == (-1, 2, 3, False)


def test_a_busy_random_mix_agrees_on_every_election(tmp_path: Path) -> None:
    settings = SimulationSettings(
        kafka_version="2.8",
        brokers=5,
        topics=4,
        partitions_per_topic=30,
        hours=2,
        seed=23,
        unclean_topic_fraction=0.5,
        unclean_broker_default=True,
        rates=BUSY,
    )
    stats = simulate(settings, tmp_path / "out").stats
    _, result = check(tmp_path / "out")
    assert result.truth == stats.elections
    done = stats.operations
    for kind in ("crash_broker", "stop_broker", "expire_controller_session", "reassign"):
        assert done.get(kind, 0) > 0, (kind, done)
    assert {"offline", "controlled_shutdown", "preferred", "reassign"} <= set(result.triggers)
