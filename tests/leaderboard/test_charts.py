"""The figures, checked on their `to_dict()`: the data plotted, the threshold, the Pareto front."""

import datetime

import pandas as pd
import pytest

from leaderboard.analysis import record_progression
from leaderboard.charts import (
    LATENCY_AGAINST_COST,
    TIME_AGAINST_COST,
    Curve,
    curve_figure,
    latency_histogram_figure,
    plotly_text,
    record_figure,
    tradeoff_figure,
)


def traces(figure) -> dict[str, dict]:
    return {trace["name"]: trace for trace in figure.to_dict()["data"]}


def test_curve_figure_plots_the_curve_the_crossing_and_the_threshold():
    curve = Curve(
        name="run", hours=[0.1, 0.2, 0.3], metric=[80.0, 94.2, 95.0], crossing_hours=0.2, crossing_metric=94.2
    )

    figure = curve_figure([curve], threshold=94.0, metric_label="top-1 (%)").to_dict()

    plotted = {trace["name"]: trace for trace in figure["data"]}
    assert list(plotted["run"]["x"]) == [0.1, 0.2, 0.3]
    assert list(plotted["run"]["y"]) == [80.0, 94.2, 95.0]
    assert list(plotted["run: reached the threshold"]["x"]) == [0.2]
    assert [shape["y0"] for shape in figure["layout"]["shapes"]] == [94.0]


def test_curve_figure_overlays_several_curves():
    curves = [Curve(name=name, hours=[1.0], metric=[90.0]) for name in ("a", "b", "c")]

    names = [trace["name"] for trace in curve_figure(curves, threshold=94.0, metric_label="m").to_dict()["data"]]

    assert names == ["a", "b", "c"]


def test_time_cost_figure_joins_the_pareto_front_in_time_order():
    entries = pd.DataFrame(
        {"hours": [2.0, 1.0, 3.0], "cost_usd": [1.0, 5.0, 9.0], "label": ["cheap", "fast", "dominated"]}
    )

    plotted = traces(tradeoff_figure(entries, TIME_AGAINST_COST))

    assert len(plotted["entries"]["x"]) == 3
    assert list(plotted["Pareto front"]["text"]) == ["fast", "cheap"]
    assert list(plotted["Pareto front"]["x"]) == [1.0, 2.0]


def test_latency_cost_figure_plots_every_entry_and_the_front():
    entries = pd.DataFrame({"latency_ms": [1.0, 2.0], "cost_usd_per_10k": [2.0, 1.0], "label": ["a", "b"]})

    plotted = traces(tradeoff_figure(entries, LATENCY_AGAINST_COST))

    assert list(plotted["Pareto front"]["text"]) == ["a", "b"]


def test_record_figure_steps_through_the_best_value_by_date():
    entries = pd.DataFrame(
        {
            "date": [datetime.date(2018, 1, 1), datetime.date(2018, 6, 1), datetime.date(2019, 1, 1)],
            "value": [100.0, 150.0, 20.0],
            "label": ["first", "slower", "record"],
        }
    )

    progression = record_progression(entries, value="value", date="date")

    plotted = traces(record_figure(progression, value_label="Training time (seconds)"))

    assert list(plotted["best so far"]["y"]) == [100.0, 100.0, 20.0]
    assert list(plotted["new record"]["text"]) == ["first", "record"]


def test_plotly_text_escapes_markup_in_user_text():
    assert plotly_text("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;"


def test_latency_histogram_figure_draws_each_bin_as_wide_as_it_is_and_the_percentiles():
    figure = latency_histogram_figure(
        [0.0, 0.1, 0.3], [5, 2], percentiles_ms={"p50": 0.05, "p90": 0.2, "p99": None}
    ).to_dict()

    bars = figure["data"][0]
    assert list(bars["x"]) == pytest.approx([0.05, 0.2])
    assert list(bars["width"]) == pytest.approx([0.1, 0.2])
    assert list(bars["y"]) == [5, 2]
    assert [shape["x0"] for shape in figure["layout"]["shapes"]] == [0.05, 0.2]
