"""Plotly figures for the site: a DataFrame (or plain data) in, a Figure out. No Django here.

The templates embed `figure.to_json()`; plotly.js itself is served from the plotly package as a
static file, so no page fetches anything from outside.
"""

from __future__ import annotations

import html
import itertools
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from leaderboard.analysis import pareto_front

AXIS = {"gridcolor": "#e6e6e6", "zerolinecolor": "#cccccc", "linecolor": "#999999", "showline": True}
LAYOUT = {
    # No named template: plotly_white alone costs ~20 ms per figure and 7 KB of JSON; these few keys are the look.
    "template": "none",
    "colorway": ["#3b6fb6", "#d1495b", "#edae49", "#00798c", "#66a182", "#8d6a9f", "#2e4057", "#c47c35"],
    "font": {"family": "system-ui, sans-serif", "size": 13},
    "xaxis": AXIS,
    "yaxis": AXIS,
    "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
    "height": 420,
    "legend": {"orientation": "h", "y": -0.2},
}


def plotly_text(text: str) -> str:
    """Plotly renders a few HTML tags in labels; escaping makes user text show as the text it is."""
    return html.escape(text, quote=False)


@dataclass(frozen=True)
class Curve:
    """One entry's quality-versus-hours curve and where it first reached the threshold."""

    name: str
    hours: list[float]
    metric: list[float]
    crossing_hours: float | None = None
    crossing_metric: float | None = None


def curve_figure(curves: list[Curve], *, threshold: float, metric_label: str) -> go.Figure:
    """Quality against wall-clock hours, the threshold as a dashed line, each crossing marked."""
    figure = go.Figure(layout={**LAYOUT, "title": f"{metric_label} against training time"})
    for curve in curves:
        figure.add_trace(go.Scatter(x=curve.hours, y=curve.metric, mode="lines+markers", name=curve.name))
        if curve.crossing_hours is not None:
            figure.add_trace(
                go.Scatter(
                    x=[curve.crossing_hours],
                    y=[curve.crossing_metric],
                    mode="markers",
                    marker={"size": 12, "symbol": "star"},
                    name=f"{curve.name}: reached the threshold",
                )
            )
    figure.add_hline(y=threshold, line_dash="dash", annotation_text=f"threshold {threshold:g}")
    figure.update_xaxes(title="hours (validation excluded)")
    figure.update_yaxes(title=metric_label)
    return figure


@dataclass(frozen=True)
class Tradeoff:
    """Two costs to plot against each other, lower better on both: the frame's columns and their titles."""

    title: str
    x: str
    x_title: str
    y: str
    y_title: str


TIME_AGAINST_COST = Tradeoff(
    "Training time against training cost", "hours", "training time (hours)", "cost_usd", "training cost (USD)"
)
LATENCY_AGAINST_COST = Tradeoff(
    "Inference latency against inference cost",
    "latency_ms",
    "latency (ms per item)",
    "cost_usd_per_10k",
    "cost (USD per 10,000 items)",
)


def tradeoff_figure(frame: pd.DataFrame, tradeoff: Tradeoff) -> go.Figure:
    """One point per entry (log axes, hover text from `label`), the Pareto front joined up in x order."""
    figure = go.Figure(layout={**LAYOUT, "title": tradeoff.title})
    front = frame[pareto_front(frame, x=tradeoff.x, y=tradeoff.y)].sort_values(tradeoff.x)
    for points, mode, name in ((frame, "markers", "entries"), (front, "lines+markers", "Pareto front")):
        figure.add_trace(
            go.Scatter(
                x=points[tradeoff.x].tolist(),
                y=points[tradeoff.y].tolist(),
                mode=mode,
                text=points["label"].tolist(),
                name=name,
            )
        )
    figure.update_xaxes(title=tradeoff.x_title, type="log")
    figure.update_yaxes(title=tradeoff.y_title, type="log")
    return figure


def record_figure(progression: pd.DataFrame, *, value_label: str) -> go.Figure:
    """The best value by date (a step line) and the entries that set each record.

    Args:
        progression: `analysis.record_progression` of entries with `date`, `value` and `label` columns.
    """
    records = progression[progression["is_record"]]
    figure = go.Figure(layout={**LAYOUT, "title": f"Record {value_label.lower()} over time"})
    figure.add_trace(
        go.Scatter(
            x=progression["date"].tolist(),
            y=progression["best"].tolist(),
            mode="lines",
            line_shape="hv",
            name="best so far",
        )
    )
    figure.add_trace(
        go.Scatter(
            x=records["date"].tolist(),
            y=records["value"].tolist(),
            mode="markers",
            text=records["label"].tolist(),
            name="new record",
        )
    )
    figure.update_xaxes(title="entry date")
    figure.update_yaxes(title=value_label, type="log")
    return figure


def latency_histogram_figure(
    edges_ms: list[float], counts: list[int], *, percentiles_ms: dict[str, float]
) -> go.Figure:
    """Items per latency bin (bars as wide as their bins), the given percentiles as dashed lines.

    Args:
        edges_ms: the bins' edges in milliseconds, one more than `counts`, ascending.
        counts: items timed in each bin.
        percentiles_ms: e.g. {"p50": 0.05, "p99": 0.09}; None values are skipped.
    """
    figure = go.Figure(layout={**LAYOUT, "title": "Latency per item", "showlegend": False, "bargap": 0})
    figure.add_trace(
        go.Bar(
            x=[(low + high) / 2 for low, high in itertools.pairwise(edges_ms)],
            y=list(counts),
            width=[high - low for low, high in itertools.pairwise(edges_ms)],
            name="items",
        )
    )
    for name, value in percentiles_ms.items():
        if value is not None:
            figure.add_vline(x=value, line_dash="dash", annotation_text=f"{name} {value:.3g} ms")
    figure.update_xaxes(title="latency (ms per item)")
    figure.update_yaxes(title="items")
    return figure
