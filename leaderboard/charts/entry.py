"""The figures of one entry's page (and of a comparison of a few): its training curve, its latency histogram."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from dawnboard.rules import Scale
from dawnboard.scoring import SECONDS_PER_HOUR
from leaderboard import display
from leaderboard.charts.layout import (
    Figure,
    axis,
    colour,
    dashed_line,
    duration_linear_ticks,
    figure_layout,
)


@dataclass(frozen=True)
class Curve:
    """One entry's quality-versus-hours curve and where it first reached the threshold."""

    name: str
    hours: list[float]
    metric: list[float]
    crossing_hours: float | None = None
    crossing_metric: float | None = None


def curve_figure(curves: list[Curve], *, threshold: float, metric_label: str, scale: str | None = None) -> Figure:
    """Quality against training time in h:mm:ss (ticks at a step that suits the longest run), the threshold as
    a dashed line, each crossing a star the colour of its curve.

    Args:
        scale: the task's Scale; by default a threshold of at most 1 means a fraction (F1), else a percent.
    """
    scale = Scale(scale) if scale is not None else (Scale.FRACTION if threshold <= 1 else Scale.PERCENT)
    data = []
    longest = 0.0
    for index, curve in enumerate(curves):
        seconds = [hours * SECONDS_PER_HOUR for hours in curve.hours]
        longest = max([longest, *seconds])
        data.append(
            {
                "type": "scatter",
                "x": seconds,
                "y": list(curve.metric),
                "mode": "lines+markers",
                "name": curve.name,
                "line": {"color": colour(index)},
                "marker": {"color": colour(index)},
                "hovertext": [_time_and_quality(s, m, scale) for s, m in zip(seconds, curve.metric, strict=True)],
                "hoverinfo": "text+name",
            }
        )
        if curve.crossing_hours is not None:
            crossing_seconds = curve.crossing_hours * SECONDS_PER_HOUR
            data.append(
                {
                    "type": "scatter",
                    "x": [crossing_seconds],
                    "y": [curve.crossing_metric],
                    "mode": "markers",
                    # The star takes its curve's colour, so which run crossed where reads at a glance.
                    "marker": {
                        "size": 14,
                        "symbol": "star",
                        "color": colour(index),
                        "line": {"color": "white", "width": 1},
                    },
                    "name": f"{curve.name}: reached the threshold",
                    "hovertext": [_time_and_quality(crossing_seconds, curve.crossing_metric, scale)],
                    "hoverinfo": "text+name",
                }
            )
    line, label = dashed_line(y=threshold, text=f"threshold {display.accuracy(threshold, scale)}")
    layout = figure_layout(
        f"{metric_label} against training time",
        xaxis=axis("training time (h:mm:ss, validation excluded)", **duration_linear_ticks(longest)),
        yaxis=axis(metric_label),
        shapes=[line],
        annotations=[label],
    )
    return {"data": data, "layout": layout}


def _time_and_quality(seconds: float, metric: float | None, scale: Scale) -> str:
    return f"{display.duration(seconds)} · {display.accuracy(metric, scale)}"


def latency_histogram_figure(edges_ms: list[float], counts: list[int], *, percentiles_ms: dict[str, float]) -> Figure:
    """Items per latency bin (bars as wide as their bins), the given percentiles as dashed lines.

    Args:
        edges_ms: the bins' edges in milliseconds, one more than `counts`, ascending.
        counts: items timed in each bin.
        percentiles_ms: e.g. {"p50": 0.05, "p99": 0.09}; None values are skipped.
    """
    bins = list(itertools.pairwise(edges_ms))
    bars = {
        "type": "bar",
        "x": [(low + high) / 2 for low, high in bins],
        "y": list(counts),
        "width": [high - low for low, high in bins],
        "name": "items",
        "marker": {"color": colour(0)},
        "hovertext": [
            f"{display.latency_ms(low)} to {display.latency_ms(high)}: {display.count(items)} items"
            for (low, high), items in zip(bins, counts, strict=True)
        ],
        "hoverinfo": "text",
    }
    lines = [
        dashed_line(x=value, text=f"{name} {display.latency_ms(value)}")
        for name, value in percentiles_ms.items()
        if value is not None
    ]
    layout = figure_layout(
        "Latency per item",
        showlegend=False,
        bargap=0,
        xaxis=axis("latency (ms per item)"),
        yaxis=axis("items"),
        shapes=[shape for shape, _ in lines],
        annotations=[label for _, label in lines],
    )
    return {"data": [bars], "layout": layout}
