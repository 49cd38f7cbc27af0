"""Plotly figures for the site as plain data: a DataFrame (or plain data) in, a figure dict out. No Django here.

A figure is the dict plotly.js draws (`data` and `layout`); `figure_json` writes it once, as the text a page
embeds in a `<script type="application/json">` element for charts.js to draw with the vendored partial plotly.js
bundle (static/vendor/plotly/). The dicts are built directly: plotly's graph objects validate every value, which
at 60,000 points took seconds. A board's scatter draws one point per few pixels and every Pareto point
(`with_drawn_points`); its record charts draw the records alone. Every number a reader sees, in hover text and on
ticks, is written by `dawnboard.display`, the rules the tables follow: times in h:mm:ss, money and latency to
fixed significant figures. Every axis but a date axis carries explicit ticks: log axes at powers of ten (with 2 and
5 when the data spans less than a decade, so no tick is an unlabelled "2" or "5" that could belong to any decade),
linear ones at round steps. A chart under a heading that names it (the charts page's) has no title of its own;
the others' titles, axis titles and legends are wrapped to a phone's width by static/leaderboard/charts.js.

`layout` holds the shared look, ticks and `figure_json`; `entry` an entry's curve and latency histogram; `board`
the charts page's tradeoffs and records.
"""

from leaderboard.charts.board import (
    LATENCY_AGAINST_COST,
    MERGE_PX,
    SCATTER_CELLS,
    TIME_AGAINST_COST,
    TRADEOFFS,
    Tradeoff,
    record_figure,
    scatter_cells,
    thinning_note,
    tradeoff_figure,
    with_drawn_points,
)
from leaderboard.charts.entry import Curve, curve_figure, latency_histogram_figure
from leaderboard.charts.layout import (
    Figure,
    date_range,
    duration_linear_ticks,
    duration_log_ticks,
    figure_json,
    log_ticks,
    plotly_text,
)

__all__ = [
    "LATENCY_AGAINST_COST",
    "MERGE_PX",
    "SCATTER_CELLS",
    "TIME_AGAINST_COST",
    "TRADEOFFS",
    "Curve",
    "Figure",
    "Tradeoff",
    "curve_figure",
    "date_range",
    "duration_linear_ticks",
    "duration_log_ticks",
    "figure_json",
    "latency_histogram_figure",
    "log_ticks",
    "plotly_text",
    "record_figure",
    "scatter_cells",
    "thinning_note",
    "tradeoff_figure",
    "with_drawn_points",
]
