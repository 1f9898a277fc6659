"""Render ``ReportData``: a self-contained HTML page (inline SVG charts, inline CSS, no scripts
or external references), a Markdown summary, CSV highlights and the console summary.

Everything is deterministic: the same data gives byte-identical files (no generation time is
written), so a report regenerates idempotently and golden files can pin it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from datetime import datetime
from html import escape
from typing import Any

from kafkactl_core.report.document import ReportData
from kafkactl_core.report.svg import Bars, RefLine, Series, stacked_bar_chart, time_series_chart
from kafkactl_core.report.text_tables import (
    anomaly_table,
    broker_table,
    churn_table,
    controller_table,
    daily_table,
    downtime_table,
    election_totals,
    fmt_duration,
    fmt_time,
    ints,
    moves_table,
    offline_table,
    opt,
    pct,
    ratio_label,
    rebalance_table,
    replication_note,
    topics_table,
    unclean_table,
    under_replicated_table,
)

__all__ = [
    "console_summary",
    "csv_files",
    "render_html",
    "render_markdown",
    "report_files",
]


# --------------------------------------------------------------------------------- charts


def _time_range(data: ReportData) -> tuple[int, int] | None:
    if data.evidence_from_ms is None or data.evidence_to_ms is None:
        return None
    return data.evidence_from_ms, max(data.evidence_to_ms, data.evidence_from_ms + 1)


def charts(data: ReportData) -> list[tuple[str, str]]:
    """The report's charts as ``(id, svg)``.

    Args:
        data: the report's data.

    Returns:
        Imbalance per broker with the threshold, leaders per broker, elections per bin by
        trigger, and partitions without a leader over time.
    """
    span = _time_range(data)
    ratio_series = [
        Series(f"broker {b}", [(p.time_ms, p.ratio) for p in points])
        for b, points in sorted(data.points.items())
    ]
    imbalance = time_series_chart(
        "Leader imbalance ratio per broker",
        ratio_series,
        y_label="not-led preferred partitions (% of the broker's)",
        y_format=ratio_label,
        y_max=max(1.0, data.threshold),
        ref_lines=[RefLine(data.threshold, f"threshold {data.threshold_percentage} %")],
        time_range=span,
        ident="imbalance",
        description="Kafka's per-broker imbalance ratio over time: partitions whose preferred "
        "replica is the broker but which another broker (or nobody) leads, over the partitions "
        "whose preferred replica it is. Above the dashed line "
        "(leader.imbalance.per.broker.percentage) the controller's auto-rebalance moves "
        "leadership back.",
    )
    leader_series = [
        Series(f"broker {b}", [(p.time_ms, float(p.leaders)) for p in points])
        for b, points in sorted(data.points.items())
    ]
    leaders = time_series_chart(
        "Partitions led per broker",
        leader_series,
        y_label="partitions led (count)",
        time_range=span,
        integer=True,
        ident="leaders",
        description="How many partitions each broker led over time.",
    )
    width = data.election_bin_ms
    bins = sorted({start for start, _, _ in data.election_counts})
    if bins:
        bins = list(range(bins[0], bins[-1] + width, width))
    layers_names = sorted({layer for _, layer, _ in data.election_counts})
    cells = {(s, layer): n for s, layer, n in data.election_counts}
    layers = [Bars(name, [float(cells.get((s, name), 0)) for s in bins]) for name in layers_names]
    unit = "hour" if width == 3_600_000 else "day"
    elections = stacked_bar_chart(
        f"Leader elections per {unit}, by trigger",
        bins,
        width,
        layers,
        y_label=f"elections per {unit} (count)",
        ident="elections",
        description=f"Leader elections the replay found, counted per {unit} (UTC) and stacked "
        "by trigger; failed and unclean elections are layers of their own.",
    )
    offline_points: list[tuple[int, float | None]] = [(t, float(n)) for t, n in data.offline]
    if span is not None:
        offline_points = [(span[0], 0.0), *[p for p in offline_points if p[0] >= span[0]]]
    offline = time_series_chart(
        "Partitions without a leader",
        [Series("offline partitions", offline_points)],
        y_label="partitions without a leader (count)",
        y_max=1.0,
        time_range=span,
        integer=True,
        ident="offline",
        description="How many partitions had no leader (leader -1) at each moment.",
    )
    return [
        ("imbalance", imbalance),
        ("leaders", leaders),
        ("elections", elections),
        ("offline", offline),
    ]


# --------------------------------------------------------------------------------- HTML

_CSS = """
body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;margin:24px auto;max-width:1000px;
color:#222;line-height:1.45;padding:0 16px}
h1{font-size:24px;margin-bottom:4px}h2{font-size:19px;margin-top:36px;border-bottom:1px solid #ddd;
padding-bottom:4px}.meta{color:#555;margin-top:0}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:18px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:10px 14px;min-width:140px;background:#fafafa}
.card .n{font-size:22px;font-weight:bold}.card .l{font-size:12px;color:#555}
.card.alert{border-color:#d55e00;background:#fff4ec}
table.data{border-collapse:collapse;width:100%;font-size:13px;margin:8px 0 16px}
table.data caption{text-align:left;font-weight:bold;padding:4px 0}
table.data th,table.data td{border:1px solid #ddd;padding:4px 6px;text-align:left;
vertical-align:top}
table.data th{background:#f0f0f0}table.data tr:nth-child(even) td{background:#fbfbfb}
figure{margin:12px 0}svg.chart{max-width:100%;height:auto;border:1px solid #eee}
.note{font-size:13px;color:#444}.empty{color:#777;font-style:italic}
"""


def _html_table(
    caption: str, table: tuple[list[str], list[list[str]]], ident: str, empty: str
) -> str:
    headers, rows = table
    if not rows:
        return f"<p class='empty' id='{ident}'>{escape(empty)}</p>"
    head = "".join(f"<th scope='col'>{escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return (
        f"<table class='data' id='{ident}'><caption>{escape(caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _mode_text(data: ReportData) -> str:
    version = data.kafka_version or "release unknown"
    mode = "KRaft" if data.mode == "kraft" else "ZooKeeper"
    return f"Kafka {version} ({mode} controller)"


def _cards(data: ReportData) -> list[tuple[str, str, bool]]:
    worst_exposure = max((r.exposure_seconds or 0.0 for r in data.unclean), default=None)
    longest = data.offline_longest[0].duration_seconds if data.offline_longest else None
    skewed = [b for b in data.brokers if b.seconds_above_threshold > 0]
    anomalies = sum(n for _, _, _, n in data.anomaly_counts)
    changes = max(0, len(data.controllers) - 1)
    return [
        (str(len(data.unclean)), "unclean elections", bool(data.unclean)),
        (fmt_duration(worst_exposure) if data.unclean else "-", "longest exposure", False),
        (str(data.offline_count), "offline intervals", data.offline_count > 0),
        (fmt_duration(longest) if longest is not None else "-", "longest offline", False),
        (str(len(skewed)), "brokers above threshold at some point", bool(skewed)),
        (str(len(data.rebalances)), "auto-rebalances over threshold", False),
        (str(changes), "controller changes", False),
        (str(anomalies), "anomalies", anomalies > 0),
    ]


def render_html(data: ReportData) -> str:
    """The self-contained HTML report.

    Args:
        data: the report's data.

    Returns:
        The page (UTF-8 text, inline CSS and SVG, no scripts, no external references).
    """
    title = f"kafkactl-audit report: cluster {data.cluster}"
    span = _span(data)
    parts = [
        "<!DOCTYPE html>",
        "<html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>Controller audit: cluster {escape(data.cluster)}</h1>",
        f"<p class='meta'>Evidence from {escape(span)} · {escape(_mode_text(data))} · "
        f"imbalance threshold {data.threshold_percentage} %</p></header>",
        "<section id='summary'><h2>At a glance</h2><div class='cards'>",
    ]
    for number, label, alert in _cards(data):
        css = "card alert" if alert else "card"
        parts.append(
            f"<div class='{css}'><div class='n'>{escape(number)}</div>"
            f"<div class='l'>{escape(label)}</div></div>"
        )
    parts.append("</div></section>")
    svg = dict(charts(data))
    parts += [
        "<section id='unclean'><h2>Unclean elections</h2>",
        "<p class='note'>An out-of-sync replica became leader. Exposure is the time between "
        "the moment it last left the ISR and the election: writes acknowledged in that window "
        "may be lost.</p>",
        _html_table(
            "Every unclean election", unclean_table(data), "unclean-table", "No unclean election."
        ),
        "</section>",
        "<section id='imbalance'><h2>Leader imbalance</h2>",
        f"<figure>{svg['imbalance']}</figure>",
        f"<p class='note'>Logged auto-rebalance checks compared: {data.checks.compared} ratio "
        f"line(s) in {data.checks.checks} check(s); {data.checks.matched} equal to the computed "
        f"ratio, {data.checks.mismatched} different (each difference is an anomaly).</p>",
        _html_table(
            "Brokers, most skewed first", broker_table(data), "broker-table", "No broker data."
        ),
        f"<figure>{svg['leaders']}</figure>",
        _html_table(
            "Auto-rebalance checks that found a broker over the threshold",
            rebalance_table(data),
            "rebalance-table",
            "No logged check found a broker over the threshold.",
        ),
        _html_table(
            "Days with a broker above the threshold, a rebalance or a mismatch (every day: "
            "leader_imbalance_daily.csv)",
            daily_table(data),
            "daily-table",
            "No broker went above the threshold.",
        ),
        "</section>",
        "<section id='elections'><h2>Elections</h2>",
        f"<figure>{svg['elections']}</figure>",
        _html_table(
            "Elections by trigger", election_totals(data), "election-table", "No election."
        ),
        "</section>",
        "<section id='offline'><h2>Partitions without a leader</h2>",
        f"<figure>{svg['offline']}</figure>",
        f"<p class='note'>{data.offline_count} offline interval(s), "
        f"{fmt_duration(data.offline_seconds)} in all, {data.offline_open} still open at the "
        "end of the evidence.</p>",
        _html_table(
            "Longest offline intervals",
            offline_table(data),
            "offline-table",
            "No partition was without a leader.",
        ),
        "</section>",
        "<section id='replication'><h2>Under-replicated partitions</h2>",
        f"<p class='note'>{escape(replication_note(data))}</p>",
        _html_table(
            "Longest under-replicated stretches",
            under_replicated_table(data),
            "under-replicated-table",
            "No partition was under-replicated.",
        ),
        _html_table(
            "Most ISR shrinks and expands (per day, partition and replica)",
            churn_table(data),
            "churn-table",
            "No ISR shrink or expand.",
        ),
        "</section>",
        "<section id='downtime'><h2>Brokers out of service</h2>",
        _html_table(
            "Controlled shutdowns and offline stretches",
            downtime_table(data),
            "downtime-table",
            "No broker went out of service.",
        ),
        "</section>",
        "<section id='reassignments'><h2>Reassignments</h2>",
        _html_table("Replica moves", moves_table(data), "moves-table", "No reassignment."),
        "</section>",
        "<section id='topics'><h2>Topics created and deleted</h2>",
        _html_table(
            "Topic creations and deletions",
            topics_table(data),
            "topics-table",
            "No topic created or deleted.",
        ),
        "</section>",
        "<section id='controllers'><h2>Controller history</h2>",
        _html_table(
            "Controller terms", controller_table(data), "controller-table", "No controller seen."
        ),
        "</section>",
        "<section id='anomalies'><h2>Anomalies</h2>",
        _html_table(
            "Anomalies by kind", anomaly_table(data), "anomaly-table", "No anomaly recorded."
        ),
    ]
    if data.report_anomalies:
        parts.append("<ul class='note'>")
        parts += [
            f"<li>{escape(fmt_time(a.observed_at_ms))} {escape(a.kind)}: {escape(a.detail)}</li>"
            for a in data.report_anomalies
        ]
        parts.append("</ul>")
    parts += [
        "</section>",
        "<footer class='note'><h2>How the numbers are computed</h2><p>Imbalance ratio: Kafka's "
        "ZooKeeper controller formula (<code>checkAndTriggerAutoLeaderRebalance</code>): of the "
        "partitions whose first assigned replica is the broker (topics queued for deletion "
        "excluded), the share led by another broker or by nobody; the controller acts when it is "
        "strictly above the threshold. PreferredReplicaImbalanceCount follows the definition of "
        f"the cluster's release ({escape(data.preferred_imbalance_rule)}). Query the tables with "
        "<code>kafkactl-audit sql</code> (views <code>gold_leader_imbalance</code>, "
        "<code>gold_unclean_elections</code>, <code>gold_offline_intervals</code>, "
        "<code>gold_controller_history</code>, ...).</p></footer>",
        "</body></html>",
        "",
    ]
    return "\n".join(parts)


# --------------------------------------------------------------------------------- Markdown


def _md_table(table: tuple[list[str], list[list[str]]], empty: str, limit: int = 20) -> str:
    headers, rows = table
    if not rows:
        return f"_{empty}_\n"
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows[:limit]:
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
    if len(rows) > limit:
        lines.append(f"\n_{len(rows) - limit} more rows in the CSV files and the tables._")
    return "\n".join(lines) + "\n"


def render_markdown(data: ReportData) -> str:
    """The Markdown summary.

    Args:
        data: the report's data.

    Returns:
        The text.
    """
    span = _span(data)
    cards = "\n".join(f"- **{number}** {label}" for number, label, _ in _cards(data))
    sections = [
        f"# Controller audit: cluster {data.cluster}\n",
        f"Evidence from {span} · {_mode_text(data)} · imbalance threshold "
        f"{data.threshold_percentage} %\n",
        "## At a glance\n",
        cards + "\n",
        "## Unclean elections\n",
        _md_table(unclean_table(data), "No unclean election."),
        "## Leader imbalance\n",
        f"Logged checks compared: {data.checks.compared} ratio line(s) in {data.checks.checks} "
        f"check(s), {data.checks.matched} equal, {data.checks.mismatched} different.\n",
        _md_table(broker_table(data), "No broker data."),
        "### Auto-rebalance checks over the threshold\n",
        _md_table(rebalance_table(data), "None."),
        "## Elections by trigger\n",
        _md_table(election_totals(data), "No election."),
        "## Longest offline intervals\n",
        f"{data.offline_count} offline interval(s), {fmt_duration(data.offline_seconds)} in all, "
        f"{data.offline_open} still open.\n",
        _md_table(offline_table(data), "No partition was without a leader."),
        "## Under-replicated partitions\n",
        replication_note(data) + "\n",
        _md_table(under_replicated_table(data), "No partition was under-replicated."),
        "### Most ISR shrinks and expands\n",
        _md_table(churn_table(data), "No ISR shrink or expand."),
        "## Brokers out of service\n",
        _md_table(downtime_table(data), "No broker went out of service.", limit=50),
        "## Reassignments\n",
        _md_table(moves_table(data), "No reassignment.", limit=50),
        "## Topics created and deleted\n",
        _md_table(topics_table(data), "No topic created or deleted.", limit=50),
        "## Controller history\n",
        _md_table(controller_table(data), "No controller seen."),
        "## Anomalies\n",
        _md_table(anomaly_table(data), "No anomaly recorded."),
    ]
    return "\n".join(sections)


# --------------------------------------------------------------------------------- CSV


def _csv(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow(["" if v is None else v for v in row])
    return buffer.getvalue()


def _records(
    items: Sequence[Any], to_row: Callable[[Any], dict[str, Any]], columns: Sequence[str]
) -> list[list[Any]]:
    out = []
    for item in items:
        row = to_row(item)
        values = []
        for name in columns:
            value = row[name]
            if isinstance(value, datetime):
                value = value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
            elif isinstance(value, list):
                value = " ".join(str(v) for v in value)
            elif hasattr(value, "isoformat"):
                value = value.isoformat()
            values.append(value)
        out.append(values)
    return out


def csv_files(data: ReportData) -> dict[str, str]:
    """The CSV highlights: file name -> content.

    Args:
        data: the report's data.

    Returns:
        ``unclean_elections.csv``, ``unclean_elections_daily.csv``,
        ``offline_intervals_longest.csv``, ``controller_history.csv``,
        ``leader_imbalance_daily.csv``, ``brokers.csv``, ``rebalances.csv``,
        ``anomalies_by_kind.csv``.
    """
    unclean_cols = [
        "elected_at",
        "topic",
        "partition",
        "prev_leader",
        "new_leader",
        "leader_epoch",
        "isr_before",
        "new_leader_left_isr_at",
        "exposure_seconds",
        "exposure_source",
        "offline_seconds",
        "unclean_setting",
        "unclean_setting_source",
        "high_watermark",
        "new_leader_start_offset",
        "offsets_at_risk",
        "trigger",
        "controller_id",
    ]
    daily_unclean_cols = [
        "day",
        "topic",
        "unclean_elections",
        "partitions",
        "max_exposure_seconds",
        "total_exposure_seconds",
        "unknown_exposure",
        "offsets_at_risk",
        "setting_sources",
    ]
    offline_cols = [
        "topic",
        "partition",
        "offline_from",
        "offline_to",
        "duration_seconds",
        "open_ended",
        "prev_leader",
        "next_leader",
        "cause",
        "ended_by",
    ]
    controller_cols = [
        "controller_id",
        "controller_epoch",
        "active_from",
        "active_to",
        "duration_seconds",
        "ended_by",
        "successor_id",
    ]
    daily_cols = [
        "day",
        "broker",
        "max_ratio",
        "max_ratio_at",
        "seconds_above_threshold",
        "observed_seconds",
        "checks_logged",
        "checks_over_threshold",
        "check_mismatches",
        "preferred_elections",
        "leaders_min",
        "leaders_max",
        "threshold",
    ]
    brokers = [
        [
            s.broker,
            s.seconds_above_threshold,
            s.max_ratio,
            fmt_time(s.max_ratio_at_ms),
            fmt_time(s.above_since_ms) if s.above_since_ms is not None else "",
            s.last_ratio,
            s.last_leaders,
            s.leader_share,
            s.preferred_elections,
        ]
        for s in data.brokers
    ]
    rebalance_rows = [
        [
            fmt_time(r.check_ms),
            r.controller_id,
            r.broker,
            r.logged_ratio,
            r.computed_ratio,
            r.preferred_elections,
        ]
        for r in data.rebalances
    ]
    return {
        "unclean_elections.csv": _csv(
            unclean_cols, _records(data.unclean, lambda r: r.to_row(), unclean_cols)
        ),
        "unclean_elections_daily.csv": _csv(
            daily_unclean_cols,
            _records(data.unclean_daily, lambda r: r.to_row(), daily_unclean_cols),
        ),
        "offline_intervals_longest.csv": _csv(
            offline_cols, _records(data.offline_longest, lambda r: r.to_row(), offline_cols)
        ),
        "controller_history.csv": _csv(
            controller_cols, _records(data.controllers, lambda r: r.to_row(), controller_cols)
        ),
        "leader_imbalance_daily.csv": _csv(
            daily_cols, _records(data.daily, lambda r: r.to_row(), daily_cols)
        ),
        "brokers.csv": _csv(
            [
                "broker",
                "seconds_above_threshold",
                "max_ratio",
                "max_ratio_at",
                "above_threshold_since",
                "ratio_at_end",
                "leaders_at_end",
                "leader_share_at_end",
                "preferred_elections",
            ],
            brokers,
        ),
        "rebalances.csv": _csv(
            [
                "check_at",
                "controller_id",
                "broker",
                "logged_ratio",
                "computed_ratio",
                "preferred_elections_within_60s",
            ],
            rebalance_rows,
        ),
        "anomalies_by_kind.csv": _csv(
            ["table", "kind", "severity", "rows"], [list(item) for item in data.anomaly_counts]
        ),
    }


def report_files(data: ReportData) -> dict[str, str]:
    """Every file of a report directory: ``report.html``, ``summary.md`` and the CSVs.

    Args:
        data: the report's data.

    Returns:
        File name -> content.
    """
    return {
        "report.html": render_html(data),
        "summary.md": render_markdown(data),
        **csv_files(data),
    }


# --------------------------------------------------------------------------------- console


def _span(data: ReportData) -> str:
    span = f"{fmt_time(data.evidence_from_ms)} to {fmt_time(data.evidence_to_ms)} UTC"
    return span if data.scope == "everything" else f"{span} (scope: {data.scope})"


def console_summary(data: ReportData, location: str | None = None) -> str:
    """What a person wants in two minutes, for the end of ``kafkactl-audit report``.

    Args:
        data: the report's data.
        location: where the report files were written.

    Returns:
        A few lines of plain text.
    """
    lines = [
        f"Cluster {data.cluster}: {_mode_text(data)}, evidence {_span(data)}",
    ]
    if data.unclean:
        lines.append(f"  Unclean elections: {len(data.unclean)}")
        for r in sorted(data.unclean, key=lambda r: -(r.exposure_seconds or 0.0))[:5]:
            lines.append(
                f"    {fmt_time(r.elected_at_ms)}  {r.topic}-{r.partition}  leader "
                f"{opt(r.prev_leader)} -> {r.new_leader}, ISR before {ints(r.isr_before)}, "
                f"exposure {fmt_duration(r.exposure_seconds)}"
                + (f", {r.offsets_at_risk} offsets at risk" if r.offsets_at_risk else "")
            )
    else:
        lines.append("  Unclean elections: none")
    if data.offline_longest:
        lines.append(
            f"  Partitions without a leader: {data.offline_count} interval(s), "
            f"{data.offline_open} still open; longest:"
        )
        for gap in data.offline_longest[:3]:
            lines.append(
                f"    {gap.topic}-{gap.partition}  {fmt_duration(gap.duration_seconds)} from "
                f"{fmt_time(gap.offline_from_ms)} ({gap.cause})"
            )
    else:
        lines.append("  Partitions without a leader: none")
    skewed = [b for b in data.brokers if b.seconds_above_threshold > 0][:3]
    if skewed:
        lines.append(f"  Most skewed brokers (ratio above {data.threshold_percentage} %):")
        for s in skewed:
            when = (
                f"above since {fmt_time(s.above_since_ms)}"
                if s.above_since_ms is not None
                else f"last {fmt_time(s.last_above_from_ms)} -> {fmt_time(s.last_above_to_ms)}"
            )
            lines.append(
                f"    broker {s.broker}: {fmt_duration(s.seconds_above_threshold)} above, max "
                f"{pct(s.max_ratio)}, {when}"
            )
    else:
        lines.append(f"  No broker's imbalance ratio went above {data.threshold_percentage} %")
    moved = sum(r.preferred_elections for r in data.rebalances)
    lines.append(
        f"  Auto-rebalances: {len(data.rebalances)} check(s) over the threshold, {moved} "
        f"preferred election(s) after them; logged ratios {data.checks.matched}/"
        f"{data.checks.compared} equal to ours"
    )
    lines.append(f"  Controller terms: {len(data.controllers)}")
    total = sum(n for _, _, _, n in data.anomaly_counts)
    kinds = ", ".join(f"{k} {n}" for _, k, _, n in data.anomaly_counts[:6])
    lines.append(f"  Anomalies: {total}" + (f" ({kinds})" if kinds else ""))
    if location:
        lines.append(f"  Report: {location}")
    return "\n".join(lines)
