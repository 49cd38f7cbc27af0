"""Plotly figures for the site: a DataFrame (or plain data) in, a Figure out. No Django here.

The templates embed `figure.to_json()`; charts.js draws them with the vendored partial plotly.js bundle
(static/vendor/plotly/). Every number a reader sees, in hover text and on ticks, is written by
`leaderboard.display`, the rules the tables follow: times in h:mm:ss, money and latency to fixed significant
figures. Log axes carry explicit ticks (powers of ten, with 2 and 5 when the data spans less than a decade),
so no tick is an unlabelled "2" or "5" that could belong to any decade.
"""

from __future__ import annotations

import datetime
import html
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from dawnboard.metrics import INFERENCE_LATENCY, TRAINING_COST, TRAINING_TIME, LeaderboardMetric
from dawnboard.rules import Scale
from dawnboard.scoring import SECONDS_PER_HOUR
from leaderboard import display
from leaderboard.analysis import pareto_front

COLOURS = ["#3b6fb6", "#d1495b", "#9a6b00", "#00798c", "#4f8a3c", "#8d6a9f", "#2e4057", "#c47c35"]
AXIS = {
    "gridcolor": "#e6e6e6",
    "zerolinecolor": "#cccccc",
    "linecolor": "#999999",
    "showline": True,
    "automargin": True,  # long tick labels push the margin instead of covering the axis title
}
LAYOUT = {
    # No named template: plotly_white alone costs ~20 ms per figure and 7 KB of JSON; these few keys are the look.
    "template": "none",
    "colorway": COLOURS,
    "font": {"family": "system-ui, sans-serif", "size": 13},
    "xaxis": AXIS,
    "yaxis": AXIS,
    "margin": {"l": 60, "r": 20, "t": 50, "b": 50},
    "height": 420,
    # Under the whole figure (container coordinates), so it pushes the margin rather than covering the x title.
    "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0},
    "hoverlabel": {"namelength": -1},
}
# Durations for time ticks: seconds, minutes, hours, days; each a label in h:mm:ss.
DURATION_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
DURATION_LADDER = [1, 10, 60, 600, 3600, 36000, 360000]  # log axes: one tick a decade, in units people use
DURATION_LADDER_FINE = [2, 5, 20, 30, 120, 300, 1200, 1800, 7200, 18000, 86400, 172800]
MOST_LINEAR_TICKS = 7
ONE_POINT_DATE_PADDING = datetime.timedelta(days=30)


def plotly_text(text: str) -> str:
    """Plotly renders a few HTML tags in labels; escaping makes user text show as the text it is."""
    return html.escape(text, quote=False)


def _layout(title: str, **overrides) -> dict:
    return {**LAYOUT, "title": {"text": title, "x": 0, "xanchor": "left", "automargin": True}, **overrides}


def colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


def _finite(values: Sequence[float]) -> list[float]:
    return [float(value) for value in values if value is not None and math.isfinite(float(value)) and value > 0]


def _log_range(finite: list[float]) -> tuple[float, float]:
    """The shown range of a log axis over positive values: a factor of 1.5 either side keeps the outermost
    points off the frame; a range narrower than a decade is widened to one around its middle."""
    low, high = min(finite) / 1.5, max(finite) * 1.5
    if high / low < 10:
        middle = math.sqrt(low * high)
        low, high = middle / math.sqrt(10), middle * math.sqrt(10)
    return low, high


def log_ticks(values: Sequence[float], label: Callable[[float], str]) -> dict:
    """Tick values and their text for a log axis over `values`: every power of ten in range, and 2 and 5
    (then every digit) times a power of ten while fewer than three ticks would show. Includes the range."""
    finite = _finite(values)
    if not finite:
        return {}
    low, high = _log_range(finite)
    ticks: list[float] = []
    for multipliers in ((1,), (1, 2, 5), (1, 2, 3, 4, 5, 6, 7, 8, 9)):
        ticks = [
            multiplier * 10.0**power
            for power in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1)
            for multiplier in multipliers
            if low <= multiplier * 10.0**power <= high
        ]
        if len(ticks) >= 3:
            break
    return {
        "tickmode": "array",
        "tickvals": ticks,
        "ticktext": [label(tick) for tick in ticks],
        "range": [math.log10(low), math.log10(high)],
    }


def duration_log_ticks(seconds: Sequence[float]) -> dict:
    """Log-axis ticks for durations at 1 s, 10 s, 1 min, 10 min, 1 h, 10 h..., labelled h:mm:ss."""
    finite = _finite(seconds)
    if not finite:
        return {}
    low, high = _log_range(finite)
    ticks = [tick for tick in DURATION_LADDER if low <= tick <= high]
    if len(ticks) < 3:
        ticks = sorted(tick for tick in DURATION_LADDER + DURATION_LADDER_FINE if low <= tick <= high)
    return {
        "tickmode": "array",
        "tickvals": ticks,
        "ticktext": [display.duration(tick, tenths=False) for tick in ticks],
        "range": [math.log10(low), math.log10(high)],
    }


def duration_linear_ticks(longest_seconds: float) -> dict:
    """Ticks from 0 to past `longest_seconds` at a round step (10 s, 5 min, 1 h...), labelled h:mm:ss."""
    longest_seconds = max(float(longest_seconds), 1.0)
    step = next(
        (step for step in DURATION_STEPS if longest_seconds / step <= MOST_LINEAR_TICKS),
        math.ceil(longest_seconds / MOST_LINEAR_TICKS / 86400) * 86400,
    )
    ticks = [step * index for index in range(math.floor(longest_seconds / step) + 2)]
    return {
        "tickmode": "array",
        "tickvals": ticks,
        "ticktext": [display.duration(tick, tenths=False) for tick in ticks],
    }


def _money_tick(value: float) -> str:
    return f"${display.significant(value, 3, trim=True)}"


def _number_tick(value: float) -> str:
    return display.significant(value, 3, trim=True)


@dataclass(frozen=True)
class Curve:
    """One entry's quality-versus-hours curve and where it first reached the threshold."""

    name: str
    hours: list[float]
    metric: list[float]
    crossing_hours: float | None = None
    crossing_metric: float | None = None


def curve_figure(curves: list[Curve], *, threshold: float, metric_label: str, scale: str | None = None) -> go.Figure:
    """Quality against training time in h:mm:ss (ticks at a step that suits the longest run), the threshold as
    a dashed line, each crossing a star the colour of its curve.

    Args:
        scale: the task's Scale; by default a threshold of at most 1 means a fraction (F1), else a percent.
    """
    scale = Scale(scale) if scale is not None else (Scale.FRACTION if threshold <= 1 else Scale.PERCENT)
    figure = go.Figure(layout=_layout(f"{metric_label} against training time"))
    longest = 0.0
    for index, curve in enumerate(curves):
        seconds = [hours * SECONDS_PER_HOUR for hours in curve.hours]
        longest = max([longest, *seconds])
        figure.add_trace(
            go.Scatter(
                x=seconds,
                y=curve.metric,
                mode="lines+markers",
                name=curve.name,
                line={"color": colour(index)},
                marker={"color": colour(index)},
                hovertext=[_time_and_quality(s, m, scale) for s, m in zip(seconds, curve.metric, strict=True)],
                hoverinfo="text+name",
            )
        )
        if curve.crossing_hours is not None:
            crossing_seconds = curve.crossing_hours * SECONDS_PER_HOUR
            figure.add_trace(
                go.Scatter(
                    x=[crossing_seconds],
                    y=[curve.crossing_metric],
                    mode="markers",
                    # The star takes its curve's colour, so which run crossed where reads at a glance.
                    marker={
                        "size": 14,
                        "symbol": "star",
                        "color": colour(index),
                        "line": {"color": "white", "width": 1},
                    },
                    name=f"{curve.name}: reached the threshold",
                    hovertext=[_time_and_quality(crossing_seconds, curve.crossing_metric, scale)],
                    hoverinfo="text+name",
                )
            )
    figure.add_hline(y=threshold, line_dash="dash", annotation_text=f"threshold {display.accuracy(threshold, scale)}")
    figure.update_xaxes(title="training time (h:mm:ss, validation excluded)", **duration_linear_ticks(longest))
    figure.update_yaxes(title=metric_label)
    return figure


def _time_and_quality(seconds: float, metric: float | None, scale: Scale) -> str:
    return f"{display.duration(seconds)} · {display.accuracy(metric, scale)}"


@dataclass(frozen=True)
class Tradeoff:
    """Two costs to plot against each other, lower better on both: the frame's columns, titles and formats.

    `x_in_hours` marks a time column in hours: it is plotted in seconds with h:mm:ss ticks, as the tables show it.
    """

    title: str
    x: str
    x_title: str
    y: str
    y_title: str
    x_format: Callable[[float], str]
    y_format: Callable[[float], str]
    x_in_hours: bool = False


TIME_AGAINST_COST = Tradeoff(
    "Training time against training cost",
    "hours",
    "training time (h:mm:ss)",
    "cost_usd",
    "training cost (USD)",
    x_format=display.duration,
    y_format=display.usd,
    x_in_hours=True,
)
LATENCY_AGAINST_COST = Tradeoff(
    "Inference latency against inference cost",
    "latency_ms",
    "latency (ms per item)",
    "cost_usd_per_10k",
    "cost (USD per 10,000 items)",
    x_format=display.latency_ms,
    y_format=display.usd,
)


def tradeoff_figure(frame: pd.DataFrame, tradeoff: Tradeoff) -> go.Figure:
    """One point per entry (log axes, hover text from `label` and the formatted values), the Pareto front
    joined up in x order."""
    figure = go.Figure(layout=_layout(tradeoff.title))
    front = frame[pareto_front(frame, x=tradeoff.x, y=tradeoff.y)].sort_values(tradeoff.x)
    factor = SECONDS_PER_HOUR if tradeoff.x_in_hours else 1
    for index, (points, mode, name) in enumerate(
        ((frame, "markers", "entries"), (front, "lines+markers", "Pareto front"))
    ):
        xs = [float(value) * factor for value in points[tradeoff.x]]
        ys = [float(value) for value in points[tradeoff.y]]
        figure.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode=mode,
                name=name,
                line={"color": colour(index)},
                marker={"color": colour(index), "size": 7 if index == 0 else 9},
                hovertext=[
                    f"{label}<br>{tradeoff.x_format(x)} · {tradeoff.y_format(y)}"
                    for label, x, y in zip(points["label"], xs, ys, strict=True)
                ],
                hoverinfo="text",
            )
        )
    all_x = [float(value) * factor for value in frame[tradeoff.x]]
    x_ticks = duration_log_ticks(all_x) if tradeoff.x_in_hours else log_ticks(all_x, _number_tick)
    figure.update_xaxes(title=tradeoff.x_title, type="log", **x_ticks)
    figure.update_yaxes(title=tradeoff.y_title, type="log", **log_ticks(frame[tradeoff.y].tolist(), _money_tick))
    return figure


RECORD_AXES: dict[str, tuple[str, Callable[[float], str]]] = {
    TRAINING_TIME.slug: ("training time (h:mm:ss)", display.duration),
    TRAINING_COST.slug: ("training cost (USD)", display.usd),
    INFERENCE_LATENCY.slug: ("latency (ms per item)", display.latency_ms),
}
INFERENCE_COST_AXIS = ("cost (USD per 10,000 items)", display.usd)


def record_figure(progression: pd.DataFrame, *, metric: LeaderboardMetric) -> go.Figure:
    """The best value by date (a step line) and the entries that set each record.

    Args:
        progression: `analysis.record_progression` of entries with `date`, `value` and `label` columns.
        metric: the board ranked: it decides the axis title, its ticks and the hover text's format.
    """
    records = progression[progression["is_record"]]
    # The step line needs only the dates the record changed and the last one: a board of 10,000 entries
    # then sends a few dozen points, not 10,000.
    is_last = [position == len(progression) - 1 for position in range(len(progression))]
    steps = progression[progression["is_record"].to_numpy() | is_last]
    y_title, value_format = RECORD_AXES.get(metric.slug, INFERENCE_COST_AXIS)
    figure = go.Figure(layout=_layout(f"Record {metric.label.lower()} over time"))
    figure.add_trace(
        go.Scatter(
            x=steps["date"].tolist(),
            y=steps["best"].tolist(),
            mode="lines",
            line_shape="hv",
            line={"color": colour(0)},
            name="best so far",
            hovertext=[
                f"{_date(date)} · {value_format(best)}" for date, best in zip(steps["date"], steps["best"], strict=True)
            ],
            hoverinfo="text+name",
        )
    )
    figure.add_trace(
        go.Scatter(
            x=records["date"].tolist(),
            y=records["value"].tolist(),
            mode="markers",
            name="new record",
            marker={"color": colour(1), "size": 9},
            hovertext=[
                f"{label}<br>{_date(date)} · {value_format(value)}"
                for label, date, value in zip(records["label"], records["date"], records["value"], strict=True)
            ],
            hoverinfo="text",
        )
    )
    figure.update_xaxes(title="entry date", type="date", range=date_range(progression["date"].tolist()))
    values = progression["value"].tolist()
    ticks = duration_log_ticks(values) if metric.slug == TRAINING_TIME.slug else None
    if ticks is None:
        ticks = log_ticks(values, _number_tick if metric.slug == INFERENCE_LATENCY.slug else _money_tick)
    figure.update_yaxes(title=y_title, type="log", **ticks)
    return figure


def _date(value) -> str:
    return pd.Timestamp(value).strftime("%Y-%m-%d")


def date_range(dates: Sequence) -> list[str] | None:
    """An x range around the dates: a month either side when they span under two months (a single date
    otherwise gets an axis of milliseconds around midnight), else 3 % of the span."""
    stamps = [pd.Timestamp(date) for date in dates if date is not None and not pd.isna(date)]
    if not stamps:
        return None
    first, last = min(stamps), max(stamps)
    span = last - first
    padding = ONE_POINT_DATE_PADDING if span < 2 * ONE_POINT_DATE_PADDING else span * 0.03
    return [(first - padding).strftime("%Y-%m-%d"), (last + padding).strftime("%Y-%m-%d")]


def latency_histogram_figure(
    edges_ms: list[float], counts: list[int], *, percentiles_ms: dict[str, float]
) -> go.Figure:
    """Items per latency bin (bars as wide as their bins), the given percentiles as dashed lines.

    Args:
        edges_ms: the bins' edges in milliseconds, one more than `counts`, ascending.
        counts: items timed in each bin.
        percentiles_ms: e.g. {"p50": 0.05, "p99": 0.09}; None values are skipped.
    """
    figure = go.Figure(layout=_layout("Latency per item", showlegend=False, bargap=0))
    bins = list(itertools.pairwise(edges_ms))
    figure.add_trace(
        go.Bar(
            x=[(low + high) / 2 for low, high in bins],
            y=list(counts),
            width=[high - low for low, high in bins],
            name="items",
            marker={"color": colour(0)},
            hovertext=[
                f"{display.latency_ms(low)} to {display.latency_ms(high)}: {display.count(items)} items"
                for (low, high), items in zip(bins, counts, strict=True)
            ],
            hoverinfo="text",
        )
    )
    for name, value in percentiles_ms.items():
        if value is not None:
            figure.add_vline(x=value, line_dash="dash", annotation_text=f"{name} {display.latency_ms(value)}")
    figure.update_xaxes(title="latency (ms per item)")
    figure.update_yaxes(title="items")
    return figure
