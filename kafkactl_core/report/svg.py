"""A small SVG chart renderer (stdlib only): time-series step charts with reference lines and
stacked bar charts over time, readable on their own and offline.

Every chart carries a title (visible text and the SVG ``<title>``), axis labels with units,
"nice" ticks (1-2-5 steps for values; second/minute/hour/day steps aligned to UTC for time, with
the date under the first tick and at each new day), light grid lines, and a legend naming every
series and reference line. Colours follow the Okabe-Ito palette (distinguishable with common
colour-vision deficiencies); series past the palette get dashed strokes. The output is one
well-formed ``<svg>`` element with no scripts, fonts or external references.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from xml.sax.saxutils import escape, quoteattr

__all__ = [
    "PALETTE",
    "Bars",
    "RefLine",
    "Series",
    "nice_ticks",
    "stacked_bar_chart",
    "time_series_chart",
    "time_ticks",
]

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999")
"""Okabe-Ito colours (yellow left out: unreadable on white)."""

_DASHES = ("", "6 3", "2 2", "8 3 2 3")
_WIDTH, _HEIGHT = 960, 360
_LEFT, _RIGHT, _TOP, _BOTTOM = 72, 190, 48, 64
_FONT = "font-family='DejaVu Sans, Arial, Helvetica, sans-serif'"


@dataclass(frozen=True, slots=True)
class Series:
    """A line over time.

    Attributes:
        name: the legend label.
        points: ``(time_ms, value)`` in time order; ``None`` breaks the line.
        step: draw as a step function (each value holds until the next point).
    """

    name: str
    points: Sequence[tuple[int, float | None]]
    step: bool = True


@dataclass(frozen=True, slots=True)
class RefLine:
    """A horizontal reference line (a threshold).

    Attributes:
        value: where, in the y axis's units.
        label: the legend label.
        color: the stroke colour.
    """

    value: float
    label: str
    color: str = "#C0392B"


@dataclass(frozen=True, slots=True)
class Bars:
    """One stack layer of a stacked bar chart.

    Attributes:
        name: the legend label.
        values: one value per bin.
    """

    name: str
    values: Sequence[float]


def nice_ticks(low: float, high: float, count: int = 5, integer: bool = False) -> list[float]:
    """Round tick values covering ``[low, high]`` in 1-2-2.5-5 steps.

    Args:
        low: the axis minimum.
        high: the axis maximum.
        count: about how many intervals.
        integer: only whole-number ticks (for counts).

    Returns:
        Ascending ticks from ``low`` rounded down to ``high`` rounded up.
    """
    if not math.isfinite(low) or not math.isfinite(high):
        return [0.0, 1.0]
    if high <= low:
        high = low + 1.0
    raw = (high - low) / max(1, count)
    power = 10 ** math.floor(math.log10(raw))
    steps = (1, 2, 5, 10) if integer else (1, 2, 2.5, 5, 10)
    step = next(m * power for m in steps if m * power >= raw)
    if integer:
        step = max(1.0, float(round(step)))
    start = math.floor(low / step + 1e-9) * step
    ticks: list[float] = []
    value = start
    while value < high + step * 0.5 and len(ticks) < 50:
        ticks.append(round(value, 12))
        value += step
    if ticks[-1] < high:
        ticks.append(round(value, 12))
    return ticks


_DAY = 86_400_000
_TIME_STEPS = (
    1_000, 2_000, 5_000, 10_000, 15_000, 30_000,
    60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
    3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000,
    _DAY, 2 * _DAY, 7 * _DAY, 14 * _DAY, 28 * _DAY, 56 * _DAY, 91 * _DAY, 182 * _DAY,
    364 * _DAY, 728 * _DAY, 1820 * _DAY,
)  # fmt: skip


def time_ticks(start_ms: int, end_ms: int, count: int = 8) -> tuple[list[int], int]:
    """UTC-aligned time ticks inside ``[start_ms, end_ms]``.

    Args:
        start_ms: the axis start.
        end_ms: the axis end.
        count: at most this many ticks.

    Returns:
        The tick times and the step between them (ms).
    """
    span = max(1, end_ms - start_ms)
    step = next((s for s in _TIME_STEPS if span / s <= count), None)
    if step is None:
        step = -(-span // count)
    first = -(-start_ms // step) * step
    return list(range(first, end_ms + 1, step)), step


def _time_label(time_ms: int, step: int) -> str:
    moment = datetime.fromtimestamp(time_ms / 1000, tz=UTC)
    if step >= 28 * _DAY:
        return moment.strftime("%Y-%m-%d")
    if step >= _DAY:
        return moment.strftime("%m-%d")
    if step < 60_000:
        return moment.strftime("%H:%M:%S")
    return moment.strftime("%H:%M")


def _number(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:g}"


class _Frame:
    """Pixel mapping of a chart's plot area."""

    def __init__(self, x0: float, x1: float, y0: float, y1: float, width: int, height: int) -> None:
        self.x0, self.x1, self.y0, self.y1 = x0, x1 if x1 > x0 else x0 + 1, y0, y1
        if self.y1 <= self.y0:
            self.y1 = self.y0 + 1
        self.left, self.right = _LEFT, width - _RIGHT
        self.top, self.bottom = _TOP, height - _BOTTOM

    def x(self, value: float) -> float:
        ratio = (value - self.x0) / (self.x1 - self.x0)
        return round(self.left + ratio * (self.right - self.left), 2)

    def y(self, value: float) -> float:
        ratio = (value - self.y0) / (self.y1 - self.y0)
        return round(self.bottom - ratio * (self.bottom - self.top), 2)


def _open(title: str, description: str, width: int, height: int, ident: str) -> list[str]:
    return [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' role='img' aria-labelledby='{ident}-title {ident}-desc' "
        f"class='chart' {_FONT}>",
        f"<title id='{ident}-title'>{escape(title)}</title>",
        f"<desc id='{ident}-desc'>{escape(description)}</desc>",
        f"<rect x='0' y='0' width='{width}' height='{height}' fill='#ffffff'/>",
        f"<text x='{width / 2}' y='24' text-anchor='middle' font-size='16' font-weight='bold' "
        f"fill='#222222' class='chart-title'>{escape(title)}</text>",
    ]


def _axes(
    frame: _Frame,
    y_ticks: Sequence[float],
    y_format: Callable[[float], str],
    x_label: str,
    y_label: str,
    width: int,
    height: int,
) -> list[str]:
    parts = ["<g class='y-axis' font-size='11' fill='#333333'>"]
    for tick in y_ticks:
        y = frame.y(tick)
        parts.append(
            f"<line x1='{frame.left}' y1='{y}' x2='{frame.right}' y2='{y}' stroke='#e3e3e3'/>"
        )
        parts.append(
            f"<text x='{frame.left - 8}' y='{y + 4}' text-anchor='end'>{escape(y_format(tick))}"
            "</text>"
        )
    parts.append("</g>")
    parts.append(
        f"<line x1='{frame.left}' y1='{frame.bottom}' x2='{frame.right}' y2='{frame.bottom}' "
        "stroke='#555555' class='x-axis-line'/>"
    )
    parts.append(
        f"<line x1='{frame.left}' y1='{frame.top}' x2='{frame.left}' y2='{frame.bottom}' "
        "stroke='#555555' class='y-axis-line'/>"
    )
    middle = (frame.top + frame.bottom) / 2
    parts.append(
        f"<text x='16' y='{middle}' transform='rotate(-90 16 {middle})' text-anchor='middle' "
        f"font-size='12' fill='#222222' class='y-label'>{escape(y_label)}</text>"
    )
    parts.append(
        f"<text x='{(frame.left + frame.right) / 2}' y='{height - 10}' text-anchor='middle' "
        f"font-size='12' fill='#222222' class='x-label'>{escape(x_label)}</text>"
    )
    return parts


def _time_axis(frame: _Frame, start: int, end: int) -> list[str]:
    ticks, step = time_ticks(start, end)
    parts = ["<g class='x-axis' font-size='11' fill='#333333'>"]
    last_day = ""
    for tick in ticks:
        x = frame.x(tick)
        parts.append(
            f"<line x1='{x}' y1='{frame.top}' x2='{x}' y2='{frame.bottom}' stroke='#f0f0f0'/>"
        )
        parts.append(
            f"<line x1='{x}' y1='{frame.bottom}' x2='{x}' y2='{frame.bottom + 5}' "
            "stroke='#555555'/>"
        )
        parts.append(
            f"<text x='{x}' y='{frame.bottom + 18}' text-anchor='middle'>"
            f"{escape(_time_label(tick, step))}</text>"
        )
        day = datetime.fromtimestamp(tick / 1000, tz=UTC).strftime("%Y-%m-%d")
        if step >= _DAY:
            day = day[:4]
        if day != last_day and step < 28 * _DAY:
            parts.append(
                f"<text x='{x}' y='{frame.bottom + 31}' text-anchor='middle' fill='#666666'>"
                f"{day}</text>"
            )
            last_day = day
    parts.append("</g>")
    return parts


def _legend(entries: Sequence[tuple[str, str, str, str]], width: int) -> list[str]:
    """Legend rows ``(label, colour, dash, kind)`` with kind ``line`` or ``box``."""
    x = width - _RIGHT + 16
    parts = ["<g class='legend' font-size='12' fill='#222222'>"]
    y = _TOP + 8 - 18
    for label, color, dash, kind in entries[:18]:
        y += 18
        if kind == "box":
            parts.append(
                f"<rect x='{x}' y='{y - 9}' width='14' height='10' fill='{color}' "
                "stroke='#333333' stroke-width='0.5'/>"
            )
        else:
            dashed = f" stroke-dasharray='{dash}'" if dash else ""
            parts.append(
                f"<line x1='{x}' y1='{y - 4}' x2='{x + 18}' y2='{y - 4}' stroke='{color}' "
                f"stroke-width='2.5'{dashed}/>"
            )
        lines = _wrap(label, 22)
        if len(lines) == 1:
            parts.append(f"<text x='{x + 24}' y='{y}'>{escape(label)}</text>")
        else:
            spans = "".join(
                f"<tspan x='{x + 24}' dy='{0 if i == 0 else 14}'>{escape(line)}</tspan>"
                for i, line in enumerate(lines)
            )
            parts.append(f"<text x='{x + 24}' y='{y}'>{spans}</text>")
            y += 14 * (len(lines) - 1)
    if len(entries) > 18:
        parts.append(f"<text x='{x}' y='{y + 18}'>+{len(entries) - 18} more</text>")
    parts.append("</g>")
    return parts


def _wrap(text: str, width: int) -> list[str]:
    """Split a legend label into lines of about ``width`` characters, at spaces."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    return lines


def _style(index: int) -> tuple[str, str]:
    return PALETTE[index % len(PALETTE)], _DASHES[(index // len(PALETTE)) % len(_DASHES)]


def _no_data(frame: _Frame) -> str:
    return (
        f"<text x='{(frame.left + frame.right) / 2}' y='{(frame.top + frame.bottom) / 2}' "
        "text-anchor='middle' font-size='14' fill='#888888' class='no-data'>"
        "no data in the evidence</text>"
    )


def _path(frame: _Frame, points: Sequence[tuple[int, float | None]], step: bool, end: int) -> str:
    commands: list[str] = []
    pen = False
    for index, (time, value) in enumerate(points):
        if value is None:
            pen = False
            continue
        x, y = frame.x(time), frame.y(value)
        if not pen:
            commands.append(f"M{x} {y}")
            pen = True
        elif step:
            commands.append(f"V{y}")
        else:
            commands.append(f"L{x} {y}")
        stop = points[index + 1][0] if index + 1 < len(points) else end
        if step:
            commands.append(f"H{frame.x(max(time, stop))}")
    return " ".join(commands)


def time_series_chart(
    title: str,
    series: Sequence[Series],
    *,
    y_label: str,
    x_label: str = "time (UTC)",
    y_format: Callable[[float], str] = _number,
    y_max: float | None = None,
    ref_lines: Sequence[RefLine] = (),
    time_range: tuple[int, int] | None = None,
    ident: str = "chart",
    description: str = "",
    integer: bool = False,
    width: int = _WIDTH,
    height: int = _HEIGHT,
) -> str:
    """A line (step) chart over time.

    Args:
        title: the chart's title.
        series: the lines.
        y_label: the y axis label, with its unit.
        x_label: the x axis label.
        y_format: how tick values are written (e.g. as percentages).
        y_max: the top of the y axis at least this (the data may raise it).
        ref_lines: horizontal reference lines, drawn dashed and named in the legend.
        time_range: the x axis span (ms); default the points' span. A step line's last value
            holds to its end.
        ident: a prefix for element ids, unique within the page.
        description: the SVG ``<desc>`` (what the chart shows, for screen readers).
        integer: the values are counts: whole-number ticks only.
        width: pixels.
        height: pixels.

    Returns:
        The ``<svg>`` element.
    """
    times = [t for s in series for t, _ in s.points]
    values = [v for s in series for _, v in s.points if v is not None]
    values.extend(line.value for line in ref_lines)
    start, end = (
        time_range if time_range is not None else (min(times, default=0), max(times, default=1))
    )
    if end <= start:
        end = start + 60_000
    top = max([*values, y_max or 0.0, 0.0]) or 1.0
    y_ticks = nice_ticks(0.0, top, integer=integer)
    frame = _Frame(start, end, 0.0, y_ticks[-1], width, height)
    parts = _open(title, description or title, width, height, ident)
    parts += _axes(frame, y_ticks, y_format, x_label, y_label, width, height)
    parts += _time_axis(frame, start, end)
    legend: list[tuple[str, str, str, str]] = []
    parts.append("<g class='series' fill='none' stroke-width='2'>")
    for index, line in enumerate(series):
        color, dash = _style(index)
        dashed = f" stroke-dasharray='{dash}'" if dash else ""
        path = _path(frame, line.points, line.step, end)
        if path:
            parts.append(
                f"<path d='{path}' stroke='{color}'{dashed} class='series-line' "
                f"data-series={quoteattr(line.name)}/>"
            )
        legend.append((line.name, color, dash, "line"))
    parts.append("</g>")
    for ref in ref_lines:
        y = frame.y(ref.value)
        parts.append(
            f"<line x1='{frame.left}' y1='{y}' x2='{frame.right}' y2='{y}' stroke='{ref.color}' "
            f"stroke-width='1.5' stroke-dasharray='7 4' class='ref-line' "
            f"data-value='{ref.value}'/>"
        )
        legend.append((ref.label, ref.color, "7 4", "line"))
    if not values or not times:
        parts.append(_no_data(frame))
    parts += _legend(legend, width)
    parts.append("</svg>")
    return "\n".join(parts)


def stacked_bar_chart(
    title: str,
    bins: Sequence[int],
    bin_ms: int,
    layers: Sequence[Bars],
    *,
    y_label: str,
    x_label: str = "time (UTC)",
    ident: str = "bars",
    description: str = "",
    width: int = _WIDTH,
    height: int = _HEIGHT,
) -> str:
    """A stacked bar chart over time bins (e.g. elections per hour by trigger).

    Args:
        title: the chart's title.
        bins: each bin's start time (ms), ascending.
        bin_ms: the bins' width (ms).
        layers: the stack layers, bottom first, one value per bin each.
        y_label: the y axis label, with its unit.
        x_label: the x axis label.
        ident: a prefix for element ids, unique within the page.
        description: the SVG ``<desc>``.
        width: pixels.
        height: pixels.

    Returns:
        The ``<svg>`` element.
    """
    start = bins[0] if bins else 0
    end = bins[-1] + bin_ms if bins else 3_600_000
    totals = [sum(layer.values[i] for layer in layers) for i in range(len(bins))]
    y_ticks = nice_ticks(0.0, max(totals, default=0.0) or 1.0, integer=True)
    frame = _Frame(start, end, 0.0, y_ticks[-1], width, height)
    parts = _open(title, description or title, width, height, ident)
    parts += _axes(frame, y_ticks, _number, x_label, y_label, width, height)
    parts += _time_axis(frame, start, end)
    legend: list[tuple[str, str, str, str]] = []
    parts.append("<g class='bars' stroke='#ffffff' stroke-width='0.5'>")
    base = [0.0] * len(bins)
    for index, layer in enumerate(layers):
        color, _ = _style(index)
        for position, begin in enumerate(bins):
            value = layer.values[position]
            if not value:
                continue
            x0, x1 = frame.x(begin), frame.x(begin + bin_ms)
            y_top = frame.y(base[position] + value)
            y_bottom = frame.y(base[position])
            parts.append(
                f"<rect x='{x0}' y='{y_top}' width='{max(0.5, round(x1 - x0 - 1, 2))}' "
                f"height='{round(y_bottom - y_top, 2)}' fill='{color}' class='bar' "
                f"data-series={quoteattr(layer.name)}><title>"
                f"{escape(layer.name)}: {_number(value)}</title></rect>"
            )
            base[position] += value
        legend.append((layer.name, color, "", "box"))
    parts.append("</g>")
    if not any(totals):
        parts.append(_no_data(frame))
    parts += _legend(legend, width)
    parts.append("</svg>")
    return "\n".join(parts)
