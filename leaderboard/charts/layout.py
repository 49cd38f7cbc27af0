"""The look every figure shares, its ticks and date ranges, and the one way a figure is written into a page."""

from __future__ import annotations

import datetime
import html
import json
import math
from collections.abc import Callable, Sequence
from decimal import Decimal

import numpy as np
import pandas as pd

from dawnboard import display

Figure = dict  # what plotly.js draws: {"data": [trace, ...], "layout": {...}}

COLOURS = ["#3b6fb6", "#d1495b", "#9a6b00", "#00798c", "#4f8a3c", "#8d6a9f", "#2e4057", "#c47c35"]
# Sizes in px, set rather than left to plotly's defaults: charts.js measures text in them to wrap it on a phone.
FONT_PX = 13
TITLE_FONT_PX = 16
AXIS = {
    "gridcolor": "#e6e6e6",
    "zerolinecolor": "#cccccc",
    "linecolor": "#999999",
    "showline": True,
    "automargin": True,  # long tick labels push the margin instead of covering the axis title
}
# No template: plotly.py's plotly_white once cost ~20 ms per figure and 7 KB of JSON; these few keys are the look.
LAYOUT = {
    "colorway": COLOURS,
    "font": {"family": "system-ui, sans-serif", "size": FONT_PX},
    "xaxis": AXIS,
    "yaxis": AXIS,
    "margin": {"l": 60, "r": 20, "t": 50, "b": 50},
    "height": 420,
    # Under the whole figure (container coordinates), so it pushes the margin rather than covering the x title;
    # on a phone charts.js wraps its entries and makes the figure taller by as much.
    "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0},
    "hoverlabel": {"namelength": -1},
}
UNTITLED_TOP_MARGIN_PX = 20
TITLE_PAD_PX = 10
LABEL_BACKGROUND = "rgba(255, 255, 255, 0.85)"  # a dashed line's label stays legible over what it crosses
# Durations for time ticks: seconds, minutes, hours, days; each a label in h:mm:ss.
DURATION_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
DURATION_LADDER = [1, 10, 60, 600, 3600, 36000, 360000]  # log axes: one tick a decade, in units people use
DURATION_LADDER_FINE = [2, 5, 20, 30, 120, 300, 1200, 1800, 7200, 18000, 86400, 172800]
MOST_LINEAR_TICKS = 7
ONE_POINT_DATE_PADDING = datetime.timedelta(days=30)
# What Django's `json_script` escapes, so that no "</script>" or "<!--" in user text ends the element early.
SCRIPT_ESCAPES = (("<", "\\u003C"), (">", "\\u003E"), ("&", "\\u0026"))


def figure_json(figure: Figure) -> str:
    """The figure as JSON text for a `<script type="application/json">` element, written once and escaped as
    Django's `json_script` escapes, so a page embeds it as it is (no inline script code: the CSP stays strict)."""
    text = json.dumps(figure, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_json_value)
    for character, escaped in SCRIPT_ESCAPES:  # str.replace: str.translate took 50 ms over a 600 KB page
        text = text.replace(character, escaped)
    return text


def _json_value(value):
    """What json.dumps cannot write by itself: numpy numbers and arrays, dates, decimals."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def plotly_text(text: str) -> str:
    """User text in a chart label, one field at a time: escaped, since plotly renders a few HTML tags, so that
    it shows as the text it is; and isolated (Unicode's FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE, what
    `<bdi>` is to HTML, for SVG text), so that a right-to-left override in it cannot reorder the label around it."""
    return f"\u2068{html.escape(text, quote=False)}\u2069"


def figure_layout(title: str | None, **overrides) -> dict:
    """The shared look with `overrides`; no title where the page's own heading names the chart, since a title
    said twice is read twice (and a heading wraps on a phone, as SVG text does not)."""
    if title is None:
        return {**LAYOUT, "margin": {**LAYOUT["margin"], "t": UNTITLED_TOP_MARGIN_PX}, **overrides}
    # Hung from the top of the figure in the top margin, so that the lines charts.js wraps it into on a phone
    # run down (it makes the margin taller by as much); plotly's automargin would move a title of several lines up.
    heading = {
        "text": title,
        "font": {"size": TITLE_FONT_PX},
        "x": 0,
        "xanchor": "left",
        "y": 1,
        "yref": "container",
        "yanchor": "top",
        "pad": {"t": TITLE_PAD_PX},
    }
    return {**LAYOUT, "title": heading, **overrides}


def axis(title: str, **settings) -> dict:
    return {**AXIS, "title": {"text": title, "font": {"size": FONT_PX}}, **settings}


def colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


def finite_positive(values: Sequence[float]) -> np.ndarray:
    """The values a log axis can show: positive and finite (None and NaN left out)."""
    array = np.asarray(values, dtype=float)
    with np.errstate(invalid="ignore"):
        return array[np.isfinite(array) & (array > 0)]


def log_range(finite: np.ndarray) -> tuple[float, float]:
    """The shown range of a log axis over positive values: a factor of 1.5 either side keeps the outermost
    points off the frame; a range narrower than a decade is widened to one around its middle."""
    low, high = float(finite.min()) / 1.5, float(finite.max()) * 1.5
    if high / low < 10:
        middle = math.sqrt(low * high)
        low, high = middle / math.sqrt(10), middle * math.sqrt(10)
    return low, high


def log_ticks(values: Sequence[float], label: Callable[[float], str]) -> dict:
    """Tick values and their text for a log axis over `values`: every power of ten in range, and 2 and 5
    (then every digit) times a power of ten while fewer than three ticks would show. Includes the range."""
    finite = finite_positive(values)
    if not finite.size:
        return {}
    low, high = log_range(finite)
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
    finite = finite_positive(seconds)
    if not finite.size:
        return {}
    low, high = log_range(finite)
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


def linear_ticks(low: float, high: float, label: Callable[[float], str], *, smallest_step: float = 0.0) -> dict:
    """Ticks from `low` to `high` (the axis's range) at a round step, 1, 2 or 5 times a power of ten, at most
    MOST_LINEAR_TICKS of them, labelled by `label`; `smallest_step` 1 keeps a count's ticks whole."""
    if not high > low:
        low, high = low - 0.5, low + 0.5
    rough = (high - low) / MOST_LINEAR_TICKS
    power = 10.0 ** math.floor(math.log10(rough))
    step = max(next(step for step in (power, 2 * power, 5 * power, 10 * power) if step >= rough), smallest_step)
    first = math.ceil(low / step - 1e-9)
    ticks = [round(index * step, 12) for index in range(first, math.floor(high / step + 1e-9) + 1)]
    return {"tickmode": "array", "tickvals": ticks, "ticktext": [label(tick) for tick in ticks], "range": [low, high]}


def money_tick(value: float) -> str:
    """A log tick (a digit times a power of ten) as the tables write money, to that one significant figure."""
    return display.usd(value, figures=1)


def number_tick(value: float) -> str:
    return display.significant(value, 3, trim=True)


def dashed_line(*, x: float | None = None, y: float | None = None, text: str) -> tuple[dict, dict]:
    """A dashed line across the plot at `x` or at `y`, and its label at the line's end (plotly's add_vline and
    add_hline, as data); the caller may move the label (its `x`, `y`, anchors and shifts)."""
    if y is not None:
        shape = {"x0": 0, "x1": 1, "xref": "x domain", "y0": y, "y1": y, "yref": "y"}
        label = {"x": 1, "xanchor": "right", "xref": "x domain", "y": y, "yanchor": "bottom", "yref": "y"}
    else:
        shape = {"x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"}
        label = {"x": x, "xanchor": "left", "xref": "x", "y": 1, "yanchor": "top", "yref": "y domain"}
    label = {"showarrow": False, "text": text, "bgcolor": LABEL_BACKGROUND, **label}
    return {"type": "line", "line": {"dash": "dash"}, **shape}, label


def day(value) -> str:
    return pd.Timestamp(value).strftime("%Y-%m-%d")


def date_range(dates: Sequence) -> list[str] | None:
    """An x range around the dates: a month either side when they span under two months (a single date
    otherwise gets an axis of milliseconds around midnight), else 3 % of the span."""
    stamps = pd.to_datetime(pd.Series(list(dates), dtype=object), errors="coerce").dropna()
    if stamps.empty:
        return None
    first, last = stamps.min(), stamps.max()
    span = last - first
    padding = ONE_POINT_DATE_PADDING if span < 2 * ONE_POINT_DATE_PADDING else span * 0.03
    return [(first - padding).strftime("%Y-%m-%d"), (last + padding).strftime("%Y-%m-%d")]
