"""The report: leader imbalance, unclean elections, offline intervals and controller history
computed from the replay's gold rows, and the human-readable report (HTML with inline SVG
charts, Markdown, CSV, console summary).

Modules: ``rows`` (the report tables' records, gold-row adapters), ``imbalance`` (Kafka's
controller formula and PreferredReplicaImbalanceCount over time, logged-check comparison),
``daily`` (daily rollup), ``unclean`` (exposure, rollups), ``offline`` (offline intervals and
broker events), ``controllers`` (controller terms), ``document`` (what the report shows),
``svg`` (charts), ``render`` (HTML, Markdown, CSV, console) and ``build`` (everything in pure
Python for small inputs). Pure Python: stdlib and the rest of the core only.
"""

from __future__ import annotations

from kafkactl_core.report.build import (
    CHECK_EVENT_TYPES,
    ReportTables,
    compute_report,
    evidence_range,
    logged_checks,
    report_data,
)
from kafkactl_core.report.controllers import controller_history
from kafkactl_core.report.daily import day_of, imbalance_daily, preferred_elections_by_day
from kafkactl_core.report.document import ReportData, build_report_data
from kafkactl_core.report.imbalance import (
    COUNTERS,
    REPORT_ANOMALY_KINDS,
    Delta,
    ImbalanceSettings,
    LoggedRatio,
    PartitionView,
    PricRule,
    assign_checks,
    contributions,
    deletion_steps,
    imbalance_rows,
    imbalance_sweep,
    logged_ratio_from_row,
    not_preferred_from_row,
    partition_deltas,
    ratio_anomalies,
)
from kafkactl_core.report.offline import BrokerEvents, broker_events, offline_intervals
from kafkactl_core.report.render import console_summary, render_html, render_markdown, report_files
from kafkactl_core.report.rows import (
    ControllerTenure,
    ImbalanceDailyRow,
    ImbalanceRow,
    OfflineInterval,
    UncleanDailyRow,
    UncleanRow,
    anomaly_from_row,
    election_from_row,
    timeline_from_row,
)
from kafkactl_core.report.unclean import unclean_daily, unclean_rows

__all__ = [
    "CHECK_EVENT_TYPES",
    "COUNTERS",
    "REPORT_ANOMALY_KINDS",
    "BrokerEvents",
    "ControllerTenure",
    "Delta",
    "ImbalanceDailyRow",
    "ImbalanceRow",
    "ImbalanceSettings",
    "LoggedRatio",
    "OfflineInterval",
    "PartitionView",
    "PricRule",
    "ReportData",
    "ReportTables",
    "UncleanDailyRow",
    "UncleanRow",
    "anomaly_from_row",
    "assign_checks",
    "broker_events",
    "build_report_data",
    "compute_report",
    "console_summary",
    "contributions",
    "controller_history",
    "day_of",
    "deletion_steps",
    "election_from_row",
    "evidence_range",
    "imbalance_daily",
    "imbalance_rows",
    "imbalance_sweep",
    "logged_checks",
    "logged_ratio_from_row",
    "not_preferred_from_row",
    "offline_intervals",
    "partition_deltas",
    "preferred_elections_by_day",
    "ratio_anomalies",
    "render_html",
    "render_markdown",
    "report_data",
    "report_files",
    "timeline_from_row",
    "unclean_daily",
    "unclean_rows",
]
