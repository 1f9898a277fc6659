"""Simulator, replay and report together, without Spark: on a clean simulated cluster the report
finds nothing to warn about. The simulated controller logs every auto-rebalance ratio as Kafka
computes it, so a ``gold.report_anomalies`` row is our defect, not the cluster's.

The script deletes a topic while the auto-rebalance check runs every minute: Kafka leaves a
topic queued for deletion out of the check at once (``topicsToBeDeleted``) and its partitions
are gone for good once the deletion completes; the deletion's TRACE-level transitions are absent
from the logs, so only the topic's "successfully completed" line says so. The leader -1 the
deletion writes is not an outage either: Kafka's ``OfflinePartitionsCount`` leaves the topic out.
"""

from __future__ import annotations

import json
from pathlib import Path

from kafkactl_core.report.build import ReportTables, compute_report
from kafkactl_core.report.imbalance import ImbalanceSettings
from kafkactl_core.report.offline import offline_intervals
from kafkactl_lab.simulate import SimulationSettings, load_script, simulate
from tests.core.simulated import SHORT_SCRIPTED_RUN, replay_simulation

DELETED_AT_S = 300
SCRIPT = {
    "settings": {
        **SHORT_SCRIPTED_RUN,
        "auto_rebalance": True,
        "auto_rebalance_interval_s": 60,
    },
    "steps": [
        {
            "at": 10,
            "op": "create_topic",
            "topic": "gone",
            "assignment": {"0": [1, 2], "1": [2, 3], "2": [3, 4], "3": [4, 1]},
        },
        {"at": 10, "op": "create_topic", "topic": "kept", "assignment": {"0": [1, 3], "1": [2, 4]}},
        {"at": 100, "op": "crash_broker", "broker": 1, "restart_after_s": 30},
        {"at": DELETED_AT_S, "op": "delete_topic", "topic": "gone"},
    ],
}


def reported(tmp_path: Path) -> tuple[ReportTables, int, list]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    out = tmp_path / "sim"
    simulate(SimulationSettings(), out, load_script(script))
    replayed = replay_simulation(out)
    tables = compute_report(
        "sim",
        timeline=replayed.output.timeline,
        elections=replayed.output.elections,
        facts=replayed.facts,
        controller_events=replayed.rows,
        settings=ImbalanceSettings(10, "zk", replayed.release),
    )
    deleted = min(f.time_ms for f in replayed.facts if f.kind.name == "topic_deletion_started")
    return tables, deleted, replayed.output.timeline


def test_checks_after_a_topic_deletion_agree_with_every_logged_ratio(tmp_path: Path) -> None:
    tables, deleted, timeline = reported(tmp_path)
    assert tables.anomalies == []
    after = [r for r in tables.imbalance if r.observation == "check" and r.observed_at_ms > deleted]
    assert len({r.check_started_at_ms for r in after}) >= 5
    assert after and all(r.logged_matches is True for r in after if r.logged_ratio is not None)
    # the deleted topic's partitions left the computation: every broker prefers one partition
    # of "kept" at most
    assert max(r.preferred_partitions for r in after) == 1
    # the leader -1 the deletion writes is no outage (not in Kafka's OfflinePartitionsCount);
    # without the deletion steps it would be one, ended by the topic's removal
    assert [i for i in tables.offline if i.offline_from_ms >= deleted] == []
    unfiltered = [i for i in offline_intervals(timeline) if i.offline_from_ms >= deleted]
    assert {(i.topic, i.ended_by) for i in unfiltered} == {("gone", "topic deleted")}
