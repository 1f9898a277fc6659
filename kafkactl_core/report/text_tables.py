"""The report's tables as text: a header and rows of cells per section, shared by the HTML
page, the Markdown summary and the console (``render``), and the time and number formats they
use.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from kafkactl_core.report.document import ReportData
from kafkactl_core.report.rows import ImbalanceDailyRow

__all__ = [
    "anomaly_table",
    "broker_table",
    "churn_table",
    "controller_table",
    "daily_table",
    "downtime_table",
    "election_totals",
    "fmt_duration",
    "fmt_time",
    "ints",
    "moves_table",
    "offline_table",
    "opt",
    "pct",
    "ratio_label",
    "rebalance_table",
    "replication_note",
    "topics_table",
    "unclean_table",
    "under_replicated_table",
]

_DAILY_ROWS = 100
"""At most this many broker-days in the HTML and Markdown tables (all are in the CSV)."""


def fmt_time(ms: int | None) -> str:
    """``2024-03-05 10:32:00.001`` (UTC), ``-`` when unknown."""
    if ms is None:
        return "-"
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}"


def fmt_duration(seconds: float | None) -> str:
    """A duration for people: ``3 ms``, ``2.5 s``, ``20 min 5 s``, ``1 h 5 min``, ``2 d 3 h``.

    Args:
        seconds: the duration, ``None`` when unknown.

    Returns:
        The text (``-`` when unknown).
    """
    if seconds is None:
        return "-"
    if seconds < 1:
        return f"{round(seconds * 1000)} ms"
    if seconds < 60:
        return f"{seconds:.3f}".rstrip("0").rstrip(".") + " s"
    if seconds < 3600:
        minutes, rest = divmod(seconds, 60)
        tail = f"{rest:.1f}".rstrip("0").rstrip(".")
        return f"{int(minutes)} min" + ("" if tail == "0" else f" {tail} s")
    if seconds < 86_400:
        hours, rest = divmod(seconds, 3600)
        return f"{int(hours)} h {int(rest // 60)} min"
    days, rest = divmod(seconds, 86_400)
    return f"{int(days)} d {int(rest // 3600)} h"


def pct(ratio: float | None) -> str:
    if ratio is None:
        return "-"
    return f"{ratio * 100:.1f}".rstrip("0").rstrip(".") + " %"


def ints(values: Sequence[int] | None) -> str:
    return "-" if values is None else "[" + ", ".join(str(v) for v in values) + "]"


def opt(value: object) -> str:
    return "-" if value is None else str(value)


def ratio_label(value: float) -> str:
    return f"{value * 100:g} %"


def unclean_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    headers = [
        "elected at (UTC)",
        "partition",
        "leader",
        "ISR before",
        "new leader left ISR",
        "exposure",
        "offline before",
        "setting (source)",
        "offsets at risk",
        "trigger",
    ]
    rows = [
        [
            fmt_time(r.elected_at_ms),
            f"{r.topic}-{r.partition}",
            f"{opt(r.prev_leader)} → {r.new_leader}",
            ints(r.isr_before),
            fmt_time(r.new_leader_left_isr_ms),
            fmt_duration(r.exposure_seconds),
            fmt_duration(r.offline_seconds),
            f"{opt(r.unclean_setting).lower()} ({r.unclean_setting_source or 'unknown'})",
            opt(r.offsets_at_risk),
            r.trigger,
        ]
        for r in data.unclean
    ]
    return headers, rows


def broker_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    headers = [
        "broker",
        "time above threshold",
        "max ratio",
        "max reached at",
        "above threshold",
        "ratio at end",
        "leaders at end",
        "leader share",
        "preferred elections to it",
    ]
    rows = []
    for s in data.brokers:
        if s.above_since_ms is not None:
            stretch = f"since {fmt_time(s.above_since_ms)}"
        elif s.last_above_from_ms is not None:
            stretch = f"{fmt_time(s.last_above_from_ms)} → {fmt_time(s.last_above_to_ms)}"
        else:
            stretch = "never"
        rows.append(
            [
                str(s.broker),
                fmt_duration(s.seconds_above_threshold),
                pct(s.max_ratio),
                fmt_time(s.max_ratio_at_ms),
                stretch,
                pct(s.last_ratio),
                str(s.last_leaders),
                pct(s.leader_share),
                str(s.preferred_elections),
            ]
        )
    return headers, rows


def rebalance_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    headers = [
        "check at (UTC)",
        "controller",
        "broker",
        "logged ratio",
        "computed ratio",
        "preferred elections within 60 s",
    ]
    rows = [
        [
            fmt_time(r.check_ms),
            opt(r.controller_id),
            str(r.broker),
            pct(r.logged_ratio),
            pct(r.computed_ratio),
            str(r.preferred_elections),
        ]
        for r in data.rebalances
    ]
    return headers, rows


def offline_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    headers = [
        "partition",
        "offline from (UTC)",
        "to",
        "duration",
        "lost leader",
        "cause",
        "ended by",
        "next leader",
    ]
    rows = [
        [
            f"{r.topic}-{r.partition}",
            fmt_time(r.offline_from_ms),
            "still offline" if r.open_ended else fmt_time(r.offline_to_ms),
            fmt_duration(r.duration_seconds),
            opt(r.prev_leader),
            r.cause,
            r.ended_by,
            opt(r.next_leader),
        ]
        for r in data.offline_longest
    ]
    return headers, rows


def under_replicated_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    headers = ["partition", "condition", "from (UTC)", "to", "duration", "replicas", "out of sync"]
    rows = [
        [
            f"{r.topic}-{r.partition}",
            r.condition + (f" ({r.min_insync_replicas})" if r.condition == "under_min_isr" else ""),
            fmt_time(r.under_from_ms),
            "still under" if r.open_ended else fmt_time(r.under_to_ms),
            fmt_duration(r.duration_seconds),
            ints(r.replicas),
            ints(r.out_of_sync),
        ]
        for r in data.replication.longest
    ]
    return headers, rows


def churn_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    headers = ["day", "partition", "replica", "shrinks", "expands"]
    rows = [
        [
            r.day.isoformat(),
            f"{r.topic}-{r.partition}",
            str(r.broker),
            str(r.shrinks),
            str(r.expands),
        ]
        for r in data.replication.churn
    ]
    return headers, rows


def replication_note(data: ReportData) -> str:
    counts = data.replication
    return (
        f"{counts.under_replicated} under-replicated stretch(es) (ISR smaller than the "
        f"replicas), {counts.under_min_isr} under min.insync.replicas, while a leader held."
    )


def downtime_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    headers = ["broker", "state", "from (UTC)", "to", "duration", "cause"]
    rows = [
        [
            str(r.broker),
            r.state,
            fmt_time(r.state_from_ms),
            "still" if r.open_ended else fmt_time(r.state_to_ms),
            fmt_duration(r.duration_seconds),
            r.cause,
        ]
        for r in data.broker_downtime
    ]
    return headers, rows


def moves_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    headers = [
        "partition",
        "started (UTC)",
        "finished",
        "duration",
        "from",
        "to",
        "leader",
        "outcome",
    ]
    rows = [
        [
            f"{r.topic}-{r.partition}",
            fmt_time(r.started_ms),
            "-" if r.finished_ms is None else fmt_time(r.finished_ms),
            fmt_duration(r.duration_seconds),
            ints(r.replicas_from),
            ints(r.replicas_to),
            f"{opt(r.leader_before)} -> {opt(r.leader_after)}",
            r.outcome,
        ]
        for r in data.moves
    ]
    return headers, rows


def topics_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    """The topics created or deleted: when, their shape, their deletion and its state."""
    headers = [
        "topic",
        "created (UTC)",
        "partitions x replicas",
        "deletion requested",
        "deleted",
        "state",
    ]
    rows = [
        [
            t.topic,
            "before the evidence" if t.created_ms is None else fmt_time(t.created_ms),
            f"{opt(t.partitions)} x {opt(t.replication_factor)}",
            fmt_time(t.deletion_requested_ms),
            fmt_time(t.deleted_ms),
            t.state + ("" if t.stuck_reason is None else f": {t.stuck_reason}"),
        ]
        for t in data.topics
    ]
    return headers, rows


def controller_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    headers = ["controller", "epoch", "from (UTC)", "to (UTC)", "duration", "ended by", "successor"]
    rows = [
        [
            opt(c.controller_id),
            opt(c.controller_epoch),
            fmt_time(c.active_from_ms),
            "still active" if c.active_to_ms is None else fmt_time(c.active_to_ms),
            fmt_duration(c.duration_seconds),
            c.ended_by.replace("_", " "),
            opt(c.successor_id),
        ]
        for c in data.controllers
    ]
    return headers, rows


def election_totals(data: ReportData) -> tuple[list[str], list[list[str]]]:
    totals: dict[str, int] = {}
    for _, layer, count in data.election_counts:
        totals[layer] = totals.get(layer, 0) + count
    rows = [[layer, str(n)] for layer, n in sorted(totals.items(), key=lambda i: (-i[1], i[0]))]
    return ["trigger", "elections"], rows


def anomaly_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    rows = [[f"gold.{t}", k, s, str(n)] for t, k, s, n in data.anomaly_counts]
    return ["table", "kind", "severity", "rows"], rows


def _notable(data: ReportData) -> list[ImbalanceDailyRow]:
    """Broker-days worth a look: above the threshold, rebalanced, or a logged mismatch."""
    return [
        d
        for d in data.daily
        if d.seconds_above_threshold > 0
        or d.checks_over_threshold
        or d.preferred_elections
        or d.check_mismatches
    ][:_DAILY_ROWS]


def daily_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    headers = [
        "day",
        "broker",
        "max ratio",
        "time above threshold",
        "checks logged",
        "checks over threshold",
        "preferred elections",
        "leaders (min-max)",
    ]
    rows = [
        [
            d.day.isoformat(),
            str(d.broker),
            pct(d.max_ratio),
            fmt_duration(d.seconds_above_threshold),
            str(d.checks_logged),
            str(d.checks_over_threshold),
            str(d.preferred_elections),
            f"{opt(d.leaders_min)}-{opt(d.leaders_max)}",
        ]
        for d in _notable(data)
    ]
    return headers, rows
