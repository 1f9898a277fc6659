"""The SVG charts: well-formed XML with a title, axis labels, legend and sane ticks; the threshold
line drawn where it belongs; step lines that hold until the next point; stacked bars; and the
self-contained HTML page around them (no script, no external reference).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from kafkactl_core.report.document import BrokerPoint, ReportData
from kafkactl_core.report.render import charts, render_html
from kafkactl_core.report.svg import (
    Bars,
    RefLine,
    Series,
    nice_ticks,
    stacked_bar_chart,
    time_series_chart,
    time_ticks,
)
from kafkactl_core.report.text_tables import fmt_duration, fmt_time

NS = {"s": "http://www.w3.org/2000/svg"}
T0 = 1_709_625_600_000  # 2024-03-05 08:00 UTC
HOUR = 3_600_000


def texts(root):
    return ["".join(e.itertext()) for e in root.iter("{http://www.w3.org/2000/svg}text")]


def ratio_chart():
    return time_series_chart(
        "Leader imbalance ratio per broker",
        [
            Series("broker 1", [(T0, 0.0), (T0 + HOUR, 0.5), (T0 + 2 * HOUR, 0.0)]),
            Series("broker 2", [(T0, 1.0), (T0 + HOUR, None), (T0 + 2 * HOUR, 0.25)]),
        ],
        y_label="not-led preferred partitions (%)",
        y_format=lambda v: f"{v * 100:g} %",
        y_max=1.0,
        ref_lines=[RefLine(0.1, "threshold 10 % (leader.imbalance.per.broker.percentage)")],
        time_range=(T0, T0 + 5 * HOUR),
    )


def test_time_series_chart_has_title_axes_legend_and_threshold():
    root = ET.fromstring(ratio_chart())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.find("s:title", NS).text == "Leader imbalance ratio per broker"
    words = texts(root)
    assert "Leader imbalance ratio per broker" in words
    assert "time (UTC)" in words and "not-led preferred partitions (%)" in words
    assert {"broker 1", "broker 2"} <= set(words)
    assert any(w.startswith("threshold 10 %") for w in words)
    percents = [w for w in words if w.endswith(" %") and w[0].isdigit()]
    assert percents == ["0 %", "20 %", "40 %", "60 %", "80 %", "100 %"]
    hours = [w for w in words if len(w) == 5 and w[2] == ":"]
    assert hours == ["08:00", "09:00", "10:00", "11:00", "12:00", "13:00"]
    assert "2024-03-05" in words
    # The threshold line is horizontal at 10 % of the plot height above the x axis.
    (ref,) = [e for e in root.iter() if e.get("class") == "ref-line"]
    axis = next(e for e in root.iter() if e.get("class") == "x-axis-line")
    top = float(next(e for e in root.iter() if e.get("class") == "y-axis-line").get("y1"))
    bottom = float(axis.get("y1"))
    assert ref.get("y1") == ref.get("y2") and ref.get("data-value") == "0.1"
    assert abs(float(ref.get("y1")) - (bottom - 0.1 * (bottom - top))) < 0.01
    assert ref.get("stroke-dasharray")
    paths = [e for e in root.iter() if e.get("class") == "series-line"]
    assert [p.get("data-series") for p in paths] == ["broker 1", "broker 2"]
    # broker 2's None breaks its line: two subpaths.
    assert paths[1].get("d").count("M") == 2
    # A step line holds its last value to the end of the time range.
    right = float(axis.get("x2"))
    assert paths[0].get("d").endswith(f"H{right}") or paths[0].get("d").endswith(f"H{right:.1f}")


def test_empty_chart_says_so_and_stays_well_formed():
    root = ET.fromstring(time_series_chart("Nothing", [], y_label="count"))
    assert "no data in the evidence" in texts(root)


def test_stacked_bars_stack_and_name_their_layers():
    svg = stacked_bar_chart(
        "Leader elections per hour, by trigger",
        [T0, T0 + HOUR, T0 + 2 * HOUR],
        HOUR,
        [Bars("offline", [2, 0, 1]), Bars("preferred", [1, 3, 0])],
        y_label="elections per hour (count)",
    )
    root = ET.fromstring(svg)
    bars = [e for e in root.iter() if e.get("class") == "bar"]
    assert len(bars) == 4  # zero cells are not drawn
    first_bin = [b for b in bars if b.get("x") == bars[0].get("x")]
    lower, upper = sorted(first_bin, key=lambda b: -float(b.get("y")))
    assert lower.get("data-series") == "offline" and upper.get("data-series") == "preferred"
    assert abs(float(upper.get("y")) + float(upper.get("height")) - float(lower.get("y"))) < 0.05
    words = texts(root)
    assert {"offline", "preferred", "elections per hour (count)"} <= set(words)
    assert [w for w in words if w.isdigit()] == ["0", "1", "2", "3"]  # whole-number ticks


def test_nice_and_time_ticks():
    assert nice_ticks(0, 1) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(0, 7, integer=True) == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert nice_ticks(0, 0.3, integer=True) == [0.0, 1.0]
    assert nice_ticks(0, 1234) == [0.0, 250.0, 500.0, 750.0, 1000.0, 1250.0]
    ticks, step = time_ticks(T0 + 1, T0 + 5 * HOUR)
    assert step == HOUR and ticks[0] == T0 + HOUR and ticks[-1] == T0 + 5 * HOUR
    ticks, step = time_ticks(T0, T0 + 90_000)
    assert step == 15_000 and all(t % 15_000 == 0 for t in ticks)
    ticks, step = time_ticks(T0, T0 + 30 * 86_400_000)
    assert step == 7 * 86_400_000 and len(ticks) <= 8
    for years in (1, 3, 40):  # mixed clocks or long archives: still a handful of ticks
        ticks, step = time_ticks(T0, T0 + years * 365 * 86_400_000)
        assert 2 <= len(ticks) <= 8, years


def test_formats():
    assert fmt_time(T0 + 1) == "2024-03-05 08:00:00.001" and fmt_time(None) == "-"
    assert [fmt_duration(s) for s in (0.003, 2.5, 120.001, 1205.007, 3900, 200_000)] == [
        "3 ms", "2.5 s", "2 min", "20 min 5 s", "1 h 5 min", "2 d 7 h",
    ]  # fmt: skip


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.refs.append(value)


def demo_data():
    points = {
        1: [BrokerPoint(T0, 1, 0.0, False, 3, 6), BrokerPoint(T0 + HOUR, 1, 1.0, True, 0, 4)],
        2: [BrokerPoint(T0, 2, 0.0, False, 3, 6)],
    }
    return ReportData(
        cluster="demo",
        kafka_version="2.8",
        preferred_imbalance_rule="zk_2_7",
        evidence_from_ms=T0,
        evidence_to_ms=T0 + 3 * HOUR,
        points=points,
        election_counts=[(T0, "new_partition", 6), (T0 + HOUR, "offline", 2)],
        offline=[(T0 + HOUR, 1), (T0 + HOUR + 5_000, 0)],
    )


def test_html_page_is_self_contained_with_four_charts():
    page = render_html(demo_data())
    parser = _Collect()
    parser.feed(page)
    assert parser.tags.count("svg") == 4 and "script" not in parser.tags
    assert parser.refs == []
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "<title>kafkactl-audit report: cluster demo</title>" in page
    for section in ("summary", "unclean", "imbalance", "elections", "offline", "controllers"):
        assert f"<section id='{section}'>" in page
    assert "No unclean election." in page
    for ident, svg in charts(demo_data()):
        root = ET.fromstring(svg)
        assert root.find("s:title", NS).text and texts(root), ident
