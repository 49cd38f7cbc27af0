"""The figures of one entry's page (and of a comparison of a few): its training curve, its latency histogram."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from dawnboard import display
from dawnboard.rules import Scale
from dawnboard.scoring import SECONDS_PER_HOUR
from leaderboard.charts.layout import (
    Figure,
    axis,
    colour,
    dashed_line,
    duration_linear_ticks,
    figure_layout,
    linear_ticks,
    number_tick,
)

STAR_PX = 14
# Room under the threshold for its label, as a share of the quality axis (the label sits below the line), and
# over the highest point.
ROOM_UNDER_THRESHOLD = 0.18
ROOM_OVER_QUALITY = 0.05
# The percentiles' labels, one under another down from the top of the histogram, and the room left above the
# tallest bin for them.
PERCENTILE_LABEL_STEP = 0.08


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
    for index, curve in enumerate(curves):
        seconds = [hours * SECONDS_PER_HOUR for hours in curve.hours]
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
                        "size": STAR_PX,
                        "symbol": "star",
                        "color": colour(index),
                        "line": {"color": "white", "width": 1},
                    },
                    "name": f"{curve.name}: reached the threshold",
                    "hovertext": [_time_and_quality(crossing_seconds, curve.crossing_metric, scale)],
                    "hoverinfo": "text+name",
                }
            )
    seconds = [x for trace in data for x in trace["x"]] or [0.0]
    quality = _quality_ticks([y for trace in data for y in trace["y"]], threshold, scale)
    line, label = dashed_line(y=threshold, text=f"threshold {display.accuracy(threshold, scale)}")
    layout = figure_layout(
        f"{metric_label} against training time",
        xaxis=axis("training time (h:mm:ss, validation excluded)", **duration_linear_ticks(max(seconds))),
        yaxis=axis(metric_label, **quality),
        shapes=[line],
        annotations=[{**label, **_threshold_label_place(data, threshold=threshold, quality_range=quality["range"])}],
    )
    return {"data": data, "layout": layout}


def _quality_ticks(values: list[float | None], threshold: float, scale: Scale) -> dict:
    """The quality axis from the lowest point to the highest, with room under the threshold for its label,
    ticked at round values written as the task states its threshold ("90 %", "0.75")."""
    shown = [float(value) for value in values if value is not None] + [float(threshold)]
    low, high = min(shown), max(shown)
    span = (high - low) or abs(high) or 1.0
    high += ROOM_OVER_QUALITY * span
    # The lowest value that leaves ROOM_UNDER_THRESHOLD of the axis under the threshold.
    low = min(low, (threshold - ROOM_UNDER_THRESHOLD * high) / (1 - ROOM_UNDER_THRESHOLD))
    return linear_ticks(low, high, lambda tick: display.threshold(tick, scale))


def _threshold_label_place(traces: list[dict], *, threshold: float, quality_range: list[float]) -> dict:
    """Where the threshold's label goes: under the line, where no star can reach (a star sits on or above the
    line, never lower than half its size), at the end of the line farther from anything drawn there (the stars,
    and the points just under the line, which a curve runs through before its crossing)."""
    seconds = [x for trace in traces for x in trace["x"]] or [0.0]
    first, last = min(seconds), max(seconds)
    span = (last - first) or 1.0
    under = threshold - ROOM_UNDER_THRESHOLD * (quality_range[1] - quality_range[0])
    near = [
        (x - first) / span
        for trace in traces
        for x, y in zip(trace["x"], trace["y"], strict=True)
        if y is not None and (trace["mode"] == "markers" or under <= y < threshold)
    ]
    from_left, from_right = min(near, default=1.0), min((1 - place for place in near), default=1.0)
    end = 1 if from_right >= from_left else 0
    return {"x": end, "xanchor": "right" if end else "left", "yanchor": "top", "yshift": -(STAR_PX / 2 + 2)}


def _time_and_quality(seconds: float, metric: float | None, scale: Scale) -> str:
    return f"{display.duration(seconds)} · {display.accuracy(metric, scale)}"


def latency_histogram_figure(edges_ms: list[float], counts: list[int], *, percentiles_ms: dict[str, float]) -> Figure:
    """Items per latency bin, drawn as a filled outline (a scatter's steps: the one trace the site's plotly
    bundle holds), the given percentiles as dashed lines labelled one under another.

    Args:
        edges_ms: the bins' edges in milliseconds, one more than `counts`, ascending.
        counts: items timed in each bin.
        percentiles_ms: e.g. {"p50": 0.05, "p99": 0.09}; None values are skipped.
    """
    bins = list(itertools.pairwise(edges_ms))
    labels = [
        f"{display.latency_ms(low)} to {display.latency_ms(high)}: {display.count(items)} items"
        for (low, high), items in zip(bins, counts, strict=True)
    ]
    outline = {
        "type": "scatter",
        # From 0 at the first edge, up at each edge to the bin's count and across to its right edge, where the
        # point holds that bin: the y values are the counts, after the 0 the outline starts from.
        "x": list(edges_ms),
        "y": [0, *counts],
        "mode": "lines",
        "line": {"color": colour(0), "shape": "vh", "width": 1},
        "fill": "tozeroy",
        "name": "items",
        "hovertext": labels[:1] + labels,
        "hoverinfo": "text",
    }
    shown = {name: value for name, value in percentiles_ms.items() if value is not None}
    low, high = (edges_ms[0], edges_ms[-1]) if edges_ms else (0.0, 1.0)
    lines = [dashed_line(x=value, text=f"{name} {display.latency_ms(value)}") for name, value in shown.items()]
    annotations = [
        {**label, **_percentile_label_place(value, index, low=low, high=high)}
        for index, ((_, label), value) in enumerate(zip(lines, shown.values(), strict=True))
    ]
    tallest = max(counts, default=0) or 1
    layout = figure_layout(
        "Latency per item",
        showlegend=False,
        xaxis=axis("latency (ms per item)", **linear_ticks(low, high, number_tick)),
        yaxis=axis(
            "items",
            **linear_ticks(0, tallest * (1 + PERCENTILE_LABEL_STEP * (len(shown) + 1)), display.count, smallest_step=1),
        ),
        shapes=[shape for shape, _ in lines],
        annotations=annotations,
    )
    return {"data": [outline], "layout": layout}


def _percentile_label_place(value: float, index: int, *, low: float, high: float) -> dict:
    """A percentile's label one line under the one before it, beside its line on the side with more room."""
    right_half = value > (low + high) / 2
    return {
        "y": 1 - index * PERCENTILE_LABEL_STEP,
        "xanchor": "right" if right_half else "left",
        "xshift": -3 if right_half else 3,
    }
