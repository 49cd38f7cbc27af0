"""Plotly figures for the site: a DataFrame (or plain data) in, a Figure out. No Django here.

The templates embed `figure.to_json()`; plotly.js itself is served from the plotly package as a
static file, so no page fetches anything from outside.
"""

from __future__ import annotations

import html
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


def time_cost_figure(frame: pd.DataFrame) -> go.Figure:
    """Training time against training cost, one point per entry, the Pareto front joined up.

    Args:
        frame: columns `hours`, `cost_usd`, `label`.
    """
    figure = go.Figure(layout={**LAYOUT, "title": "Training time against training cost"})
    figure.add_trace(
        go.Scatter(
            x=frame["hours"].tolist(),
            y=frame["cost_usd"].tolist(),
            mode="markers",
            text=frame["label"].tolist(),
            name="entries",
        )
    )
    front = frame[pareto_front(frame, x="hours", y="cost_usd")].sort_values("hours")
    figure.add_trace(
        go.Scatter(
            x=front["hours"].tolist(),
            y=front["cost_usd"].tolist(),
            mode="lines+markers",
            text=front["label"].tolist(),
            name="Pareto front",
        )
    )
    figure.update_xaxes(title="training time (hours)", type="log")
    figure.update_yaxes(title="training cost (USD)", type="log")
    return figure


def latency_cost_figure(frame: pd.DataFrame) -> go.Figure:
    """Inference latency against inference cost, with the Pareto front.

    Args:
        frame: columns `latency_ms`, `cost_usd_per_10k`, `label`.
    """
    figure = go.Figure(layout={**LAYOUT, "title": "Inference latency against inference cost"})
    figure.add_trace(
        go.Scatter(
            x=frame["latency_ms"].tolist(),
            y=frame["cost_usd_per_10k"].tolist(),
            mode="markers",
            text=frame["label"].tolist(),
            name="entries",
        )
    )
    front = frame[pareto_front(frame, x="latency_ms", y="cost_usd_per_10k")].sort_values("latency_ms")
    figure.add_trace(
        go.Scatter(
            x=front["latency_ms"].tolist(),
            y=front["cost_usd_per_10k"].tolist(),
            mode="lines+markers",
            text=front["label"].tolist(),
            name="Pareto front",
        )
    )
    figure.update_xaxes(title="latency (ms per item)", type="log")
    figure.update_yaxes(title="cost (USD per 10,000 items)", type="log")
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
