"""``--fail-on``: the findings that make ``report`` (and ``run``) exit 3, for nightly alerting.

A rule list is comma-separated: ``unclean`` (an unclean election), ``offline>=SECONDS`` (a
partition without a leader that long), ``imbalance>=RATIO`` (a broker's leader imbalance ratio
that high; ``0.2`` or ``20%``) and ``anomaly=SEVERITY`` (an anomaly of that severity or worse:
``error``, ``warning`` or ``info``). Each finding is one line naming what was found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafkactl_core.report.document import ReportData
from kafkactl_core.report.text_tables import fmt_duration, fmt_time

__all__ = ["SEVERITIES", "FailOn", "alert_findings"]

SEVERITIES = ("info", "warning", "error")
"""Anomaly severities, least severe first."""

_THRESHOLD = re.compile(r"(offline|imbalance)\s*>=\s*([0-9]+(?:\.[0-9]*)?)(%?)")
_ANOMALY = re.compile(r"anomaly\s*=\s*([a-z]+)")
_USAGE = "unclean, offline>=SECONDS, imbalance>=RATIO or anomaly=error|warning|info"


@dataclass(frozen=True)
class FailOn:
    """What makes a report a failure (every rule off by default).

    Attributes:
        unclean: an unclean election.
        offline_seconds: a partition offline at least this long.
        imbalance_ratio: a broker's leader imbalance ratio at least this high.
        anomaly_severity: an anomaly at least this severe.
    """

    unclean: bool = False
    offline_seconds: float | None = None
    imbalance_ratio: float | None = None
    anomaly_severity: str | None = None

    @classmethod
    def parse(cls, text: str) -> FailOn:
        """Parse ``--fail-on``: e.g. ``unclean,offline>=300,imbalance>=20%,anomaly=error``.

        Raises:
            ValueError: a rule that is none of those, naming it.
        """
        unclean = False
        thresholds: dict[str, float] = {}
        severity: str | None = None
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            threshold = _THRESHOLD.fullmatch(part)
            anomaly = _ANOMALY.fullmatch(part)
            if part == "unclean":
                unclean = True
            elif threshold is not None:
                name, number, percent = threshold.groups()
                if percent and name == "offline":
                    raise ValueError(f"--fail-on: {part!r}: offline takes seconds, not a percent")
                thresholds[name] = float(number) / (100 if percent else 1)
            elif anomaly is not None and anomaly.group(1) in SEVERITIES:
                severity = anomaly.group(1)
            else:
                raise ValueError(f"--fail-on: {part!r} is not one of {_USAGE}")
        if not (unclean or thresholds or severity):
            raise ValueError(f"--fail-on: no rule given; use {_USAGE}")
        return cls(unclean, thresholds.get("offline"), thresholds.get("imbalance"), severity)


def alert_findings(data: ReportData, rules: FailOn) -> list[str]:
    """The findings of a report's data under ``--fail-on`` rules, one line each.

    Args:
        data: the report's data (already narrowed to its scope).
        rules: what makes the report a failure.

    Returns:
        One line per rule that fired, naming the worst case; empty when none did.
    """
    found: list[str] = []
    if rules.unclean and data.unclean:
        first = min(data.unclean, key=lambda r: r.elected_at_ms or 0)
        found.append(
            f"unclean: {len(data.unclean)} unclean election(s), the first at "
            f"{fmt_time(first.elected_at_ms)} UTC: {first.topic}-{first.partition} leader "
            f"{first.prev_leader} -> {first.new_leader}"
        )
    if rules.offline_seconds is not None and data.offline_longest:
        longest = data.offline_longest[0]
        seconds = longest.duration_seconds
        if seconds is not None and seconds >= rules.offline_seconds:
            found.append(
                f"offline>={rules.offline_seconds:g}: {longest.topic}-{longest.partition} "
                f"without a leader for {fmt_duration(seconds)} from "
                f"{fmt_time(longest.offline_from_ms)} UTC"
                + (" (still offline at the end)" if longest.open_ended else "")
            )
    if rules.imbalance_ratio is not None:
        ratios = [b for b in data.brokers if b.max_ratio is not None]
        worst = max(ratios, key=lambda b: b.max_ratio or 0.0, default=None)
        if worst is not None and (worst.max_ratio or 0.0) >= rules.imbalance_ratio:
            found.append(
                f"imbalance>={rules.imbalance_ratio:g}: broker {worst.broker} reached a leader "
                f"imbalance ratio of {worst.max_ratio:.3f} at "
                f"{fmt_time(worst.max_ratio_at_ms)} UTC"
            )
    if rules.anomaly_severity is not None:
        floor = SEVERITIES.index(rules.anomaly_severity)
        counts = [
            (table, kind, severity, n)
            for table, kind, severity, n in data.anomaly_counts
            if severity in SEVERITIES and SEVERITIES.index(severity) >= floor
        ]
        if counts:
            kinds = ", ".join(f"{kind} ({severity}) {n}" for _, kind, severity, n in counts)
            found.append(
                f"anomaly={rules.anomaly_severity}: {sum(n for *_, n in counts)} anomalies: {kinds}"
            )
    return found
