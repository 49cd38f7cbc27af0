"""The figures of a study page (the DAWNBench paper's Figures 1 and 2 on the algorithm track): time to target,
epochs to target and training throughput against the value of the setting varied, every run a marker (the
spread) and the medians joined by a line. Plain data in (the study's runs as dicts), figure dicts out."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from leaderboard.charts.layout import Figure, axis, colour, figure_layout


@dataclass(frozen=True)
class StudyMeasure:
    """A per-run measure a study page plots: its key in a run, its axis title and its chart's label."""

    key: str
    title: str
    label: str


STUDY_MEASURES = (
    StudyMeasure("time_to_target_s", "Time to target (s of timed training)", "Time to target"),
    StudyMeasure("epochs_to_target", "Epochs to target", "Epochs to target"),
    StudyMeasure("throughput_examples_per_s", "Training throughput (examples/s)", "Training throughput"),
)


def study_figure(setting: str, values: Sequence[Any], runs: Sequence[dict[str, Any]], measure: StudyMeasure) -> Figure:
    """One measure against the setting's values, on a category axis in the order run: each run a marker (hover:
    its seed and value), each value's median a line. A run that never reached the target has no time or epochs
    and is left out of those two (the page's table lists it)."""
    labels = [str(value) for value in values]
    points = [(str(run["value"]), run[measure.key], run["seed"]) for run in runs if run.get(measure.key) is not None]
    medians = []
    for label in labels:
        own = [value for at, value, _ in points if at == label]
        medians.append(statistics.median(own) if own else None)
    traces = [
        {
            "type": "scatter",
            "mode": "markers",
            "name": "each run",
            "x": [at for at, _, _ in points],
            "y": [value for _, value, _ in points],
            "text": [f"seed {seed}" for _, _, seed in points],
            "hovertemplate": f"{setting} %{{x}}, %{{text}}: %{{y:.4g}}<extra></extra>",
            "marker": {"color": colour(0), "size": 8, "opacity": 0.7},
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "median",
            "x": labels,
            "y": medians,
            "connectgaps": False,
            "hovertemplate": f"{setting} %{{x}}, median: %{{y:.4g}}<extra></extra>",
            "line": {"color": colour(1)},
            "marker": {"color": colour(1), "symbol": "diamond", "size": 9},
        },
    ]
    layout = figure_layout(
        None,
        xaxis=axis(setting, type="category", categoryorder="array", categoryarray=labels),
        yaxis=axis(measure.title, rangemode="tozero"),
        height=320,
    )
    return {"data": traces, "layout": layout}
