"""``report --format json``: the end-of-run summary as one JSON document for machines.

It holds what the console summary (``render.console_summary``) says, with every number in
full: the evidence range and scope, the unclean elections, the offline intervals, the
under-replicated stretches, the brokers out of service, the reassignments, the topics created
and deleted, the brokers' leader imbalance, the automatic rebalances, the controller terms,
the anomaly counts, where the report files are and the ``--fail-on`` findings. Times are ISO
8601 UTC strings.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from kafkactl_core.report.document import ReportData

__all__ = ["json_summary"]


def _iso(time_ms: int | None) -> str | None:
    if time_ms is None:
        return None
    return datetime.fromtimestamp(time_ms / 1000, UTC).isoformat(timespec="milliseconds")


def json_summary(
    data: ReportData, location: str | None = None, findings: list[str] | None = None
) -> str:
    """The summary of a report as a JSON document (one line).

    Args:
        data: the report's data (narrowed to its scope).
        location: where the report files were written.
        findings: the ``--fail-on`` findings (``None``: no rules were given).

    Returns:
        The JSON text.
    """
    document: dict[str, Any] = {
        "cluster": data.cluster,
        "mode": data.mode,
        "kafka_version": data.kafka_version,
        "scope": data.scope,
        "evidence_from": _iso(data.evidence_from_ms),
        "evidence_to": _iso(data.evidence_to_ms),
        "unclean_elections": [
            {
                "topic": r.topic,
                "partition": r.partition,
                "elected_at": _iso(r.elected_at_ms),
                "trigger": r.trigger,
                "prev_leader": r.prev_leader,
                "new_leader": r.new_leader,
                "isr_before": list(r.isr_before or ()),
                "unclean_setting_source": r.unclean_setting_source,
                "exposure_seconds": r.exposure_seconds,
                "offsets_at_risk": r.offsets_at_risk,
            }
            for r in sorted(data.unclean, key=lambda r: (r.elected_at_ms or 0, r.topic))
        ],
        "offline": {
            "intervals": data.offline_count,
            "still_open": data.offline_open,
            "seconds": data.offline_seconds,
            "longest": [
                {
                    "topic": o.topic,
                    "partition": o.partition,
                    "offline_from": _iso(o.offline_from_ms),
                    "offline_to": _iso(o.offline_to_ms),
                    "duration_seconds": o.duration_seconds,
                    "cause": o.cause,
                }
                for o in data.offline_longest
            ],
        },
        "imbalance": {
            "threshold_percentage": data.threshold_percentage,
            "brokers": [
                {
                    "broker": b.broker,
                    "max_ratio": b.max_ratio,
                    "max_ratio_at": _iso(b.max_ratio_at_ms),
                    "seconds_above_threshold": b.seconds_above_threshold,
                    "last_ratio": b.last_ratio,
                    "last_leaders": b.last_leaders,
                }
                for b in data.brokers
            ],
            "checks_over_threshold": len(data.rebalances),
            "logged_ratios_compared": data.checks.compared,
            "logged_ratios_equal": data.checks.matched,
        },
        "replication": {
            "under_replicated": data.replication.under_replicated,
            "under_min_isr": data.replication.under_min_isr,
        },
        "broker_downtime": [
            {
                "broker": b.broker,
                "state": b.state,
                "from": _iso(b.state_from_ms),
                "to": _iso(b.state_to_ms),
                "duration_seconds": b.duration_seconds,
                "cause": b.cause,
            }
            for b in data.broker_downtime
        ],
        "reassignments": [
            {
                "topic": r.topic,
                "partition": r.partition,
                "started": _iso(r.started_ms),
                "finished": _iso(r.finished_ms),
                "replicas_from": list(r.replicas_from),
                "replicas_to": list(r.replicas_to),
                "leader_moved": r.leader_moved,
                "outcome": r.outcome,
            }
            for r in data.moves
        ],
        "topics": [
            {
                "topic": t.topic,
                "created": _iso(t.created_ms),
                "partitions": t.partitions,
                "replication_factor": t.replication_factor,
                "deletion_requested": _iso(t.deletion_requested_ms),
                "deleted": _iso(t.deleted_ms),
                "state": t.state,
                "stuck_reason": t.stuck_reason,
            }
            for t in data.topics
        ],
        "controller_terms": len(data.controllers),
        "anomalies": [
            {"table": table, "kind": kind, "severity": severity, "count": n}
            for table, kind, severity, n in data.anomaly_counts
        ],
        "report": location,
        "findings": findings,
    }
    return json.dumps(document, sort_keys=False)
