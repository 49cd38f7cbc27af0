"""The figures of a whole board (the charts page): tradeoff scatters thinned to what a reader can tell apart,
with their Pareto fronts, and record progressions drawn from the records alone."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dawnboard import display
from dawnboard.metrics import INFERENCE_COST, INFERENCE_LATENCY, TRAINING_COST, TRAINING_TIME, LeaderboardMetric
from leaderboard.analysis import grid_cells, one_point_per_cell, pareto_front, record_steps
from leaderboard.charts.layout import (
    Figure,
    axis,
    colour,
    date_range,
    day,
    duration_log_ticks,
    figure_layout,
    finite_positive,
    log_range,
    log_ticks,
    money_tick,
    number_tick,
)

# A scatter draws one point per square of MERGE_PX pixels, a marker's width (markers are MARKER_PX across): two
# markers whose centres share a square overlap, or nearly touch, and a reader sees one mark; and a lattice of
# markers as wide as its spacing still fills a dense region solid, as every point did. The grid is laid over
# the plot area of a chart in a window 1,280 px wide (measured in chromium); on a wider page its squares are a
# little wider, on a phone narrower. A square of 5 px sent 60 % more points (568 KB against 358 KB for the
# page at 100,000 entries a task) for the same picture.
PLOT_AREA_PX = (1180, 290)
MARKER_PX = 7
MERGE_PX = MARKER_PX
SCATTER_CELLS = (PLOT_AREA_PX[0] // MERGE_PX, PLOT_AREA_PX[1] // MERGE_PX)
PLOTTED_SIGNIFICANT = 4  # a position to 4 figures is within a tenth of a pixel; the hover text has the value


@dataclass(frozen=True)
class Tradeoff:
    """Two costs to plot against each other, lower better on both: the frame's columns, axis titles and formats.

    `x_is_duration` marks a time in seconds: its log axis is ticked at round durations in h:mm:ss. The chart has
    no title of its own: the charts page's heading names it.
    """

    slug: str
    x: str
    x_title: str
    y: str
    y_title: str
    x_format: Callable[[float], str]
    y_format: Callable[[float], str]
    x_is_duration: bool = False


TIME_AGAINST_COST = Tradeoff(
    "time-cost",
    TRAINING_TIME.field,
    "training time (h:mm:ss)",
    TRAINING_COST.field,
    "training cost (USD)",
    x_format=display.duration,
    y_format=display.usd,
    x_is_duration=True,
)
LATENCY_AGAINST_COST = Tradeoff(
    "latency-cost",
    INFERENCE_LATENCY.field,
    "latency (ms per item)",
    INFERENCE_COST.field,
    "cost (USD per 10,000 items)",
    x_format=display.latency_ms,
    y_format=display.usd,
)
TRADEOFFS = (TIME_AGAINST_COST, LATENCY_AGAINST_COST)


def with_drawn_points(frame: pd.DataFrame, tradeoff: Tradeoff) -> pd.DataFrame:
    """The frame with `on_front` (the Pareto front) and `drawn` (the points its chart draws) columns.

    The chart draws every Pareto point, and of the others one per cell of a grid of MERGE_PX pixels over its
    log axes (`analysis.one_point_per_cell`): a reader cannot tell apart, nor hover separately, two points
    drawn in the same few pixels. 60,000 entries become a few thousand points, the picture unchanged.

    Args:
        frame: one row per entry with the tradeoff's `x` and `y` columns, both present.
    """
    on_front = pareto_front(frame, x=tradeoff.x, y=tradeoff.y).to_numpy(dtype=bool)
    drawn = one_point_per_cell(**_scatter_grid(frame, tradeoff), keep=on_front)
    return frame.assign(on_front=on_front, drawn=drawn)


def scatter_cells(frame: pd.DataFrame, tradeoff: Tradeoff) -> np.ndarray:
    """Each entry's square of the grid `with_drawn_points` lays over the chart (`analysis.grid_cells`)."""
    return grid_cells(**_scatter_grid(frame, tradeoff))


def _scatter_grid(frame: pd.DataFrame, tradeoff: Tradeoff) -> dict:
    """The entries in the chart's coordinates (log10 of the values, as on plotly's log axes), the axes' ranges
    in them, and the grid's columns and rows."""
    x = frame[tradeoff.x].to_numpy(dtype=float)
    y = frame[tradeoff.y].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero (no log) counts in an edge cell; plotly skips it
        return {
            "x": np.log10(x),
            "y": np.log10(y),
            "x_range": _log10_range(x),
            "y_range": _log10_range(y),
            "cells": SCATTER_CELLS,
        }


def _log10_range(values: np.ndarray) -> tuple[float, float]:
    """The shown range of a log axis over `values`, in the log10 units plotly's log axes take."""
    finite = finite_positive(values)
    if not finite.size:
        return (0.0, 1.0)
    low, high = log_range(finite)
    return math.log10(low), math.log10(high)


def thinning_note(*, drawn: int, entries: int) -> str:
    """What a reader needs to know of a thinned scatter: how many entries it draws, of how many, and why."""
    if drawn >= entries:
        return "Every entry is drawn."
    return (
        f"{display.count(drawn)} of {display.count(entries)} entries drawn: entries that would overlap within one "
        f"{MERGE_PX} px square are drawn as one, and every Pareto point is drawn."
    )


def tradeoff_figure(frame: pd.DataFrame, tradeoff: Tradeoff) -> Figure:
    """The drawn entries (log axes, hover text from `label` and the formatted values) and the Pareto front
    joined up in x order; the axes span every entry.

    Args:
        frame: `with_drawn_points` of the entries, with a `label` (escaped) on every drawn row.
    """
    drawn = frame[frame["drawn"].to_numpy(dtype=bool)]
    front = frame[frame["on_front"].to_numpy(dtype=bool)].sort_values(tradeoff.x, kind="stable")
    data = [
        _tradeoff_trace(points, tradeoff, index=index, mode=mode, name=name)
        for index, (points, mode, name) in enumerate(
            ((drawn, "markers", "entries"), (front, "lines+markers", "Pareto front"))
        )
    ]
    x_values = frame[tradeoff.x].to_numpy(dtype=float)
    x_ticks = duration_log_ticks(x_values) if tradeoff.x_is_duration else log_ticks(x_values, number_tick)
    y_ticks = log_ticks(frame[tradeoff.y].to_numpy(dtype=float), money_tick)
    layout = figure_layout(
        None,
        xaxis=axis(tradeoff.x_title, type="log", **x_ticks),
        yaxis=axis(tradeoff.y_title, type="log", **y_ticks),
    )
    return {"data": data, "layout": layout}


def _tradeoff_trace(points: pd.DataFrame, tradeoff: Tradeoff, *, index: int, mode: str, name: str) -> dict:
    xs = points[tradeoff.x].to_numpy(dtype=float).tolist()
    ys = points[tradeoff.y].to_numpy(dtype=float).tolist()
    return {
        "type": "scatter",
        "x": _plotted(xs),
        "y": _plotted(ys),
        "mode": mode,
        "name": name,
        "line": {"color": colour(index)},
        "marker": {"color": colour(index), "size": MARKER_PX if index == 0 else 9},
        "hovertext": [
            f"{label}<br>{tradeoff.x_format(x)} · {tradeoff.y_format(y)}"
            for label, x, y in zip(points["label"].tolist(), xs, ys, strict=True)
        ],
        "hoverinfo": "text",
    }


def _plotted(values: list[float]) -> list[float]:
    """Positions to PLOTTED_SIGNIFICANT figures: "0.004376" instead of "0.004376389000000001" in the page."""
    return [float(f"{value:.{PLOTTED_SIGNIFICANT}g}") for value in values]


RECORD_AXES: dict[str, tuple[str, Callable[[float], str]]] = {
    TRAINING_TIME.slug: ("training time (h:mm:ss)", display.duration),
    TRAINING_COST.slug: ("training cost (USD)", display.usd),
    INFERENCE_LATENCY.slug: ("latency (ms per item)", display.latency_ms),
}
INFERENCE_COST_AXIS = ("cost (USD per 10,000 items)", display.usd)


def record_figure(progression: pd.DataFrame, *, metric: LeaderboardMetric) -> Figure:
    """The best value by date (a step line) and the entries that set each record; untitled, as the charts page's
    heading names it.

    Only the record-setting rows are drawn, with the last row to carry the step line to the latest date: a
    board of 60,000 entries sends a few dozen points, the same picture.

    Args:
        progression: `analysis.record_progression` of entries with `date`, `value` and `label` columns, or its
            `analysis.record_steps` (only the rows drawn need a label).
        metric: the board ranked: it decides the axis title, its ticks and the hover text's format.
    """
    steps = record_steps(progression)
    records = steps[steps["is_record"].to_numpy(dtype=bool)]
    y_title, value_format = RECORD_AXES.get(metric.slug, INFERENCE_COST_AXIS)
    step_dates = [day(date) for date in steps["date"]]
    record_dates = [day(date) for date in records["date"]]
    bests = steps["best"].astype(float).tolist()
    values = records["value"].astype(float).tolist()
    data = [
        {
            "type": "scatter",
            "x": step_dates,
            "y": bests,
            "mode": "lines",
            "line": {"color": colour(0), "shape": "hv"},
            "name": "best so far",
            "hovertext": [f"{date} · {value_format(best)}" for date, best in zip(step_dates, bests, strict=True)],
            "hoverinfo": "text+name",
        },
        {
            "type": "scatter",
            "x": record_dates,
            "y": values,
            "mode": "markers",
            "name": "new record",
            "marker": {"color": colour(1), "size": 9},
            "hovertext": [
                f"{label}<br>{date} · {value_format(value)}"
                for label, date, value in zip(records["label"].tolist(), record_dates, values, strict=True)
            ],
            "hoverinfo": "text",
        },
    ]
    # The y axis spans the records drawn (the best line takes the same values), not entries never drawn.
    ticks = duration_log_ticks(values) if metric.slug == TRAINING_TIME.slug else None
    if ticks is None:
        ticks = log_ticks(values, number_tick if metric.slug == INFERENCE_LATENCY.slug else money_tick)
    layout = figure_layout(
        None,  # the charts page's heading, "Record ... over time", names it
        xaxis=axis("entry date", type="date", range=date_range(steps["date"].tolist())),
        yaxis=axis(y_title, type="log", **ticks),
    )
    return {"data": data, "layout": layout}
