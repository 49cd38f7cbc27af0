"""The figures, checked on the dicts plotly.js draws: the data plotted, the threshold, the Pareto front, and what
a reader sees: hover text and ticks written by `dawnboard.display`, log ticks a reader can place, a date axis
that makes sense for one point, stars the colour of their curve; and the JSON text a page embeds them as."""

import datetime
import json
import math

import numpy as np
import pandas as pd
import pytest

from dawnboard import display
from dawnboard.metrics import INFERENCE_LATENCY, TRAINING_COST, TRAINING_TIME
from leaderboard.analysis import pareto_front, record_progression
from leaderboard.charts import (
    LATENCY_AGAINST_COST,
    MERGE_PX,
    TIME_AGAINST_COST,
    Curve,
    curve_figure,
    date_range,
    duration_log_ticks,
    figure_json,
    latency_histogram_figure,
    log_ticks,
    plotly_text,
    record_figure,
    scatter_cells,
    thinning_note,
    tradeoff_figure,
    with_drawn_points,
)
from leaderboard.charts.layout import money_tick


def traces(figure: dict) -> dict[str, dict]:
    return {trace["name"]: trace for trace in figure["data"]}


def tradeoff(entries: pd.DataFrame, kind=TIME_AGAINST_COST) -> dict:
    """The tradeoff figure of a few entries, every one of them drawn."""
    return tradeoff_figure(with_drawn_points(entries, kind), kind)


def test_curve_figure_plots_the_curve_the_crossing_and_the_threshold():
    curve = Curve(
        name="run", hours=[0.1, 0.2, 0.3], metric=[80.0, 94.2, 95.0], crossing_hours=0.2, crossing_metric=94.2
    )

    figure = curve_figure([curve], threshold=94.0, metric_label="top-1 (%)")

    plotted = {trace["name"]: trace for trace in figure["data"]}
    assert list(plotted["run"]["x"]) == pytest.approx([360.0, 720.0, 1080.0])  # seconds, ticked as h:mm:ss
    assert list(plotted["run"]["y"]) == [80.0, 94.2, 95.0]
    assert list(plotted["run: reached the threshold"]["x"]) == pytest.approx([720.0])
    assert [shape["y0"] for shape in figure["layout"]["shapes"]] == [94.0]


def test_curve_figure_overlays_several_curves():
    curves = [Curve(name=name, hours=[1.0], metric=[90.0]) for name in ("a", "b", "c")]

    names = [trace["name"] for trace in curve_figure(curves, threshold=94.0, metric_label="m")["data"]]

    assert names == ["a", "b", "c"]


def test_time_cost_figure_joins_the_pareto_front_in_time_order():
    entries = pd.DataFrame(
        {
            "time_to_accuracy_seconds": [7200.0, 3600.0, 10800.0],
            "training_cost_usd": [1.0, 5.0, 9.0],
            "label": ["cheap", "fast", "dominated"],
        }
    )

    plotted = traces(tradeoff(entries))

    assert len(plotted["entries"]["x"]) == 3
    assert [text.split("<br>")[0] for text in plotted["Pareto front"]["hovertext"]] == ["fast", "cheap"]
    assert list(plotted["Pareto front"]["x"]) == [3600.0, 7200.0]  # seconds, ticked as h:mm:ss


def test_latency_cost_figure_plots_every_entry_and_the_front():
    entries = pd.DataFrame({"latency_ms": [1.0, 2.0], "inference_cost_usd_per_10k": [2.0, 1.0], "label": ["a", "b"]})

    plotted = traces(tradeoff(entries, LATENCY_AGAINST_COST))

    assert len(plotted["entries"]["x"]) == 2
    assert [text.split("<br>")[0] for text in plotted["Pareto front"]["hovertext"]] == ["a", "b"]


def test_record_figure_steps_through_the_best_value_by_date():
    entries = pd.DataFrame(
        {
            "date": [datetime.date(2018, 1, 1), datetime.date(2018, 6, 1), datetime.date(2019, 1, 1)],
            "value": [100.0, 150.0, 20.0],
            "label": ["first", "slower", "record"],
        }
    )

    progression = record_progression(entries, value="value", date="date")

    plotted = traces(record_figure(progression, metric=TRAINING_TIME))

    # Only the dates the record changed (and the last) are sent: the step line draws the same picture.
    assert list(plotted["best so far"]["y"]) == [100.0, 20.0]
    assert [text.split("<br>")[0] for text in plotted["new record"]["hovertext"]] == ["first", "record"]


def test_plotly_text_escapes_markup_in_user_text_and_isolates_it():
    """FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE: a right-to-left override inside stays inside."""
    assert plotly_text("<script>alert(1)</script>") == "\u2068&lt;script&gt;alert(1)&lt;/script&gt;\u2069"
    assert plotly_text("\u202eevil") == "\u2068\u202eevil\u2069"


def test_latency_histogram_figure_steps_across_each_bin_as_wide_as_it_is_and_draws_the_percentiles():
    figure = latency_histogram_figure([0.0, 0.1, 0.3], [5, 2], percentiles_ms={"p50": 0.05, "p90": 0.2, "p99": None})

    outline = figure["data"][0]
    assert outline["line"]["shape"] == "vh"  # up at each bin's left edge to its count, across to its right edge
    assert list(outline["x"]) == pytest.approx([0.0, 0.1, 0.3])
    assert list(outline["y"]) == [0, 5, 2]
    assert figure["layout"]["xaxis"]["range"] == pytest.approx([0.0, 0.3])
    assert [shape["x0"] for shape in figure["layout"]["shapes"]] == [0.05, 0.2]


def test_percentile_labels_stand_one_under_another_on_the_side_with_room():
    figure = latency_histogram_figure([0.0, 0.1, 0.3], [5, 2], percentiles_ms={"p50": 0.05, "p90": 0.2, "p99": 0.29})

    labels = figure["layout"]["annotations"]
    assert len({label["y"] for label in labels}) == 3
    assert [label["xanchor"] for label in labels] == ["left", "right", "right"]


def test_curve_hover_text_and_ticks_follow_the_display_rules():
    curve = Curve(
        name="run", hours=[0.01, 0.0437], metric=[80.0, 94.123], crossing_hours=0.0437, crossing_metric=94.123
    )

    figure = curve_figure([curve], threshold=94.0, metric_label="top-1 (%)")

    plotted = {trace["name"]: trace for trace in figure["data"]}
    assert list(plotted["run"]["hovertext"]) == [
        f"{display.duration(36.0)} · {display.accuracy(80.0)}",
        f"{display.duration(157.32)} · {display.accuracy(94.123)}",
    ]
    assert plotted["run"]["hovertext"][1] == "0:02:37 · 94.12\u00a0%"
    # A run of 2.6 minutes is ticked in h:mm:ss at a round step, never in hours with 0.005 steps.
    axis = figure["layout"]["xaxis"]
    assert axis["ticktext"][:3] == ["0:00:00", "0:00:30", "0:01:00"]
    assert axis["tickvals"][-1] >= 157.32


def test_a_fraction_task_writes_its_quality_as_a_fraction():
    curve = Curve(name="run", hours=[1.0], metric=[0.91213])

    figure = curve_figure([curve], threshold=0.75, metric_label="F1")

    assert figure["data"][0]["hovertext"][0].endswith("· 0.9121")
    assert figure["layout"]["annotations"][0]["text"] == "threshold 0.7500"


def test_each_threshold_star_takes_the_colour_of_its_curve():
    curves = [
        Curve(name=name, hours=[0.1, 0.2], metric=[90.0, 95.0], crossing_hours=0.2, crossing_metric=95.0)
        for name in ("a", "b", "c")
    ]

    plotted = traces(curve_figure(curves, threshold=94.0, metric_label="m"))

    colours = [plotted[name]["line"]["color"] for name in ("a", "b", "c")]
    assert len(set(colours)) == 3
    for name, colour in zip(("a", "b", "c"), colours, strict=True):
        assert plotted[name]["marker"]["color"] == colour
        assert plotted[f"{name}: reached the threshold"]["marker"]["color"] == colour


def test_log_ticks_label_every_power_of_ten_in_range():
    ticks = log_ticks([0.5, 3.0, 700.0], str)

    assert ticks["tickvals"] == pytest.approx([1.0, 10.0, 100.0, 1000.0])
    low, high = ticks["range"]
    assert low <= math.log10(0.5) and high >= math.log10(700.0)


def test_log_ticks_add_two_and_five_when_the_data_spans_under_a_decade():
    ticks = log_ticks([12.0, 40.0], lambda value: f"${value:g}")

    assert ticks["tickvals"] == pytest.approx([10.0, 20.0, 50.0])
    assert ticks["ticktext"] == ["$10", "$20", "$50"]


def test_a_single_value_still_gets_labelled_ticks_around_it():
    ticks = log_ticks([3.0], str)

    assert len(ticks["tickvals"]) >= 3
    assert min(ticks["tickvals"]) < 3.0 < max(ticks["tickvals"])


def test_time_ticks_on_a_log_axis_are_round_durations_in_h_mm_ss():
    ticks = duration_log_ticks([200.0, 10_000.0, 90_000.0])

    assert ticks["tickvals"] == [600, 3600, 36000]
    assert ticks["ticktext"] == ["0:10:00", "1:00:00", "10:00:00"]


def test_time_cost_figure_hover_text_uses_the_tables_formats():
    entries = pd.DataFrame(
        {"time_to_accuracy_seconds": [9000.0, 2700.0], "training_cost_usd": [14.4245778144, 31.0], "label": ["a", "b"]}
    )

    figure = tradeoff(entries)

    hover = list(traces_of(figure)["entries"]["hovertext"])
    assert hover == ["a<br>2:30:00 · $14.42", "b<br>0:45:00 · $31.00"]
    assert list(traces_of(figure)["entries"]["x"]) == pytest.approx([9000.0, 2700.0])
    assert figure["layout"]["xaxis"]["type"] == "log" and figure["layout"]["xaxis"]["tickmode"] == "array"
    assert all(text.startswith("$") for text in figure["layout"]["yaxis"]["ticktext"])


def test_latency_cost_figure_writes_latency_in_ms_to_three_figures():
    entries = pd.DataFrame({"latency_ms": [0.07393], "inference_cost_usd_per_10k": [0.004376389], "label": ["a"]})

    figure = tradeoff(entries, LATENCY_AGAINST_COST)

    assert traces_of(figure)["entries"]["hovertext"][0] == "a<br>0.0739\u00a0ms · $0.004376"


def test_a_record_chart_of_one_point_pads_its_dates_by_a_month():
    entries = pd.DataFrame({"date": [datetime.date(2020, 3, 17)], "value": [14.42], "label": ["only"]})

    figure = record_figure(record_progression(entries, value="value", date="date"), metric=TRAINING_COST)

    assert figure["layout"]["xaxis"]["range"] == ["2020-02-16", "2020-04-16"]
    assert traces_of(figure)["new record"]["hovertext"][0] == "only<br>2020-03-17 · $14.42"


def test_a_date_range_over_years_is_padded_by_a_little_of_its_span():
    first, last = datetime.date(2018, 1, 1), datetime.date(2020, 1, 1)

    low, high = date_range([first, last])

    assert "2017-12-01" < low < "2018-01-01" and "2020-01-01" < high < "2020-02-01"


def test_record_latency_chart_writes_milliseconds():
    entries = pd.DataFrame({"date": [datetime.date(2020, 1, 1)], "value": [0.0739321], "label": ["x"]})

    figure = record_figure(record_progression(entries, value="value", date="date"), metric=INFERENCE_LATENCY)

    assert traces(figure)["new record"]["hovertext"][0] == "x<br>2020-01-01 · 0.0739\u00a0ms"
    assert figure["layout"]["yaxis"]["title"]["text"] == "latency (ms per item)"


def test_histogram_hover_and_percentile_labels_use_milliseconds_to_three_figures():
    figure = latency_histogram_figure([0.05, 0.07393, 0.1], [3, 1200], percentiles_ms={"p50": 0.0739321})

    outline = figure["data"][0]
    assert outline["x"][2] == 0.1  # the point at a bin's right edge holds the bin
    assert outline["hovertext"][2] == "0.0739\u00a0ms to 0.100\u00a0ms: 1,200 items"
    assert figure["layout"]["annotations"][0]["text"] == "p50 0.0739\u00a0ms"


def traces_of(figure: dict) -> dict[str, dict]:
    return {trace["name"]: trace for trace in figure["data"]}


def test_figure_json_escapes_markup_as_json_script_does_and_reads_back_the_same():
    figure = {"data": [{"hovertext": ["</script><!-- a & b >"], "x": [0.004376]}], "layout": {"title": {"text": "t"}}}

    text = figure_json(figure)

    assert "<" not in text and ">" not in text and "&" not in text
    assert "\\u003C/script\\u003E" in text
    assert json.loads(text) == figure


def random_board(count: int, *, seed: int) -> pd.DataFrame:
    """`count` training entries spread as DAWNBench's are (log-normal times, nine hourly prices), dated over
    seven years; seeded, so a failure can be replayed."""
    rng = np.random.default_rng(seed)
    seconds = np.exp(rng.normal(8, 1.5, count))
    usd_per_hour = rng.choice([0.73, 0.9, 1.6, 3.06, 3.67, 6.5, 24.48, 27.2, 32.0], count)
    ids = np.arange(1, count + 1)
    return pd.DataFrame(
        {
            "id": ids,
            "time_to_accuracy_seconds": seconds,
            "training_cost_usd": seconds / 3600 * usd_per_hour * np.exp(rng.normal(0, 0.1, count)),
            "date": np.datetime64("2017-10-01") + rng.integers(0, 2600, count).astype("timedelta64[D]"),
            "label": [f"entry {entry_id}" for entry_id in ids],
        }
    )


def hover_labels(trace: dict) -> list[str]:
    return [text.split("<br>")[0] for text in trace["hovertext"]]


def test_a_thinned_scatter_draws_every_pareto_point_and_far_fewer_points():
    board = random_board(50_000, seed=12)
    front = board[pareto_front(board, x=TIME_AGAINST_COST.x, y=TIME_AGAINST_COST.y)]

    plotted = traces(tradeoff(board))

    assert set(front["label"]) <= set(hover_labels(plotted["entries"]))
    in_time_order = front.sort_values(TIME_AGAINST_COST.x)["label"].tolist()
    assert hover_labels(plotted["Pareto front"]) == in_time_order
    assert len(plotted["entries"]["x"]) < len(board) / 10


def test_a_thinned_scatter_draws_one_point_per_occupied_cell_besides_the_pareto_points():
    marked = with_drawn_points(random_board(50_000, seed=13), TIME_AGAINST_COST)
    cells = scatter_cells(marked, TIME_AGAINST_COST)
    drawn, on_front = marked["drawn"].to_numpy(), marked["on_front"].to_numpy()

    others = cells[drawn & ~on_front]

    assert len(set(others)) == len(others)  # no two drawn non-Pareto points share a cell
    assert not set(others) & set(cells[on_front])  # nor one with a Pareto point
    assert set(cells[drawn]) == set(cells)  # and no occupied cell is left empty


def test_the_points_drawn_do_not_depend_on_the_order_of_the_entries():
    board = random_board(20_000, seed=14)
    shuffled = board.sample(frac=1, random_state=1)

    first = with_drawn_points(board, TIME_AGAINST_COST)
    second = with_drawn_points(shuffled, TIME_AGAINST_COST)

    assert set(first.loc[first["drawn"], "id"]) == set(second.loc[second["drawn"], "id"])


def test_a_record_chart_of_50000_entries_draws_every_record_and_only_them():
    board = random_board(50_000, seed=15).assign(value=lambda frame: frame["training_cost_usd"])
    progression = record_progression(board, value="value", date="date")
    records = progression[progression["is_record"]]

    plotted = traces(record_figure(progression, metric=TRAINING_COST))

    assert hover_labels(plotted["new record"]) == records["label"].tolist()
    assert len(plotted["best so far"]["x"]) <= len(records) + 1  # and the last date, to carry the line there
    assert len(records) < 100


def test_the_thinning_note_says_how_many_entries_are_drawn_of_how_many():
    assert thinning_note(drawn=2431, entries=60000) == (
        f"2,431 of 60,000 entries drawn: entries that would overlap within one {MERGE_PX} px square are drawn as "
        "one, and every Pareto point is drawn."
    )
    assert thinning_note(drawn=12, entries=12) == "Every entry is drawn."


def numeric_axes(figure: dict) -> dict[str, dict]:
    """The figure's axes that show numbers (a date axis shows dates, in plotly's own words)."""
    layout = figure["layout"]
    return {name: layout[name] for name in ("xaxis", "yaxis") if layout[name].get("type") != "date"}


def every_figure() -> dict[str, dict]:
    curve = Curve(
        name="run", hours=[0.01, 0.02, 0.03], metric=[80.0, 92.5, 94.2], crossing_hours=0.03, crossing_metric=94.2
    )
    entries = pd.DataFrame(
        {
            "time_to_accuracy_seconds": [9000.0, 2700.0],
            "training_cost_usd": [14.42, 31.0],
            "latency_ms": [0.07393, 0.2],
            "inference_cost_usd_per_10k": [0.004376, 0.01],
            "label": ["a", "b"],
            "date": [datetime.date(2018, 1, 1), datetime.date(2019, 1, 1)],
            "value": [14.42, 9.0],
        }
    )
    return {
        "curve": curve_figure([curve], threshold=94.0, metric_label="top-1 (%)"),
        "histogram": latency_histogram_figure([0.0, 0.05, 0.1, 0.4], [10, 3200, 1], percentiles_ms={"p50": 0.06}),
        "time-cost": tradeoff(entries),
        "latency-cost": tradeoff(entries, LATENCY_AGAINST_COST),
        "record": record_figure(record_progression(entries, value="value", date="date"), metric=TRAINING_COST),
    }


@pytest.mark.parametrize("name", ["curve", "histogram", "time-cost", "latency-cost", "record"])
def test_every_axis_that_shows_numbers_carries_its_own_tick_text(name):
    """Plotly left to itself writes "0.05", "2k" or "92": every numeric axis has ticks written by `display`."""
    axes = numeric_axes(every_figure()[name])

    assert axes
    for axis in axes.values():
        assert axis["tickmode"] == "array"
        assert len(axis["ticktext"]) == len(axis["tickvals"]) >= 2


def test_curve_quality_ticks_are_written_in_the_tasks_scale():
    percent = curve_figure([Curve(name="run", hours=[0.1, 0.2], metric=[80.0, 95.0])], threshold=94.0, metric_label="m")
    fraction = curve_figure([Curve(name="run", hours=[0.1], metric=[0.5])], threshold=0.75, metric_label="F1")

    percent_axis, fraction_axis = percent["layout"]["yaxis"], fraction["layout"]["yaxis"]
    assert percent_axis["ticktext"] == [display.threshold(tick, "percent") for tick in percent_axis["tickvals"]]
    assert "90\u00a0%" in percent_axis["ticktext"]
    assert fraction_axis["ticktext"] == [display.threshold(tick, "fraction") for tick in fraction_axis["tickvals"]]


def test_histogram_ticks_write_milliseconds_and_counts_as_the_tables_do():
    figure = latency_histogram_figure([0.0, 0.05, 0.1, 0.4], [10, 3200, 1], percentiles_ms={"p50": 0.06})

    x_axis, y_axis = figure["layout"]["xaxis"], figure["layout"]["yaxis"]
    assert x_axis["ticktext"] == [display.significant(tick, 3, trim=True) for tick in x_axis["tickvals"]]
    assert y_axis["ticktext"] == [display.count(tick) for tick in y_axis["tickvals"]]
    assert "2,000" in y_axis["ticktext"]


def test_money_ticks_are_written_as_display_writes_money():
    ticks = log_ticks([2e-7, 8e-7], money_tick)

    assert ticks["ticktext"] == [display.usd(tick, figures=1) for tick in ticks["tickvals"]]
    assert "$5\u00a0\u00d7\u00a010\u207b\u2077" in ticks["ticktext"]


def test_the_histogram_is_drawn_by_the_one_trace_the_site_bundles():
    """static/vendor/plotly holds plotly's scatter trace alone: a bar trace would not be drawn."""
    figures = every_figure()

    assert {trace["type"] for figure in figures.values() for trace in figure["data"]} == {"scatter"}


def threshold_label(curve: Curve) -> dict:
    return curve_figure([curve], threshold=94.0, metric_label="m")["layout"]["annotations"][0]


def test_the_threshold_label_sits_under_the_line_away_from_a_late_crossing():
    late = Curve(
        name="r", hours=[0.1, 0.2, 0.3, 0.4], metric=[70.0, 80.0, 90.0, 94.1], crossing_hours=0.4, crossing_metric=94.1
    )

    label = threshold_label(late)

    assert (label["x"], label["xanchor"], label["yanchor"]) == (0, "left", "top")
    assert label["yshift"] < -7  # below the line by more than half a star


def test_the_threshold_label_sits_at_the_far_end_from_an_early_crossing():
    early = Curve(
        name="r", hours=[0.1, 0.2, 0.3, 0.4], metric=[80.0, 94.5, 95.0, 95.2], crossing_hours=0.2, crossing_metric=94.5
    )

    label = threshold_label(early)

    assert (label["x"], label["xanchor"], label["yanchor"]) == (1, "right", "top")


def test_the_quality_axis_leaves_room_under_the_threshold_for_its_label():
    curve = Curve(name="r", hours=[0.1, 0.2], metric=[94.2, 95.0], crossing_hours=0.1, crossing_metric=94.2)

    low, high = curve_figure([curve], threshold=94.0, metric_label="m")["layout"]["yaxis"]["range"]

    assert (94.0 - low) / (high - low) > 0.15
