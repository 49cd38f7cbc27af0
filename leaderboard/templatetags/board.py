"""Template filters for leaderboard values: durations as h:mm:ss, money, and a metric's value."""

from __future__ import annotations

import json
from decimal import Decimal

from django import template

from dawnboard.links import is_web_link
from dawnboard.metrics import INFERENCE_LATENCY, TRAINING_TIME
from dawnboard.scoring import SECONDS_PER_HOUR, hours_of

SECONDS_PER_MINUTE = 60
register = template.Library()


@register.filter
def web_link(url) -> str:
    """The link if it is an absolute http(s) one, else "": an entry's link never becomes a script."""
    return url if url and is_web_link(str(url)) else ""


@register.filter
def hms(seconds) -> str:
    """Seconds as h:mm:ss, the way DAWNBench showed training times (under a minute: h:mm:ss.ss)."""
    if seconds is None:
        return ""
    seconds = float(seconds)
    if seconds < SECONDS_PER_MINUTE:
        return f"0:00:{seconds:05.2f}"
    hours, rest = divmod(round(seconds), SECONDS_PER_HOUR)
    minutes, whole_seconds = divmod(rest, SECONDS_PER_MINUTE)
    return f"{hours}:{minutes:02d}:{whole_seconds:02d}"


@register.filter
def usd(value) -> str:
    """Dollars with enough digits for the small figures of inference costs."""
    if value is None:
        return ""
    value = float(value)
    return f"${value:,.2f}" if value >= 1 else f"${value:.4g}"


@register.filter
def metric_value(value, metric_slug: str) -> str:
    """A board value in its unit: h:mm:ss for time, dollars for costs, ms for latency."""
    if value is None:
        return ""
    if metric_slug == TRAINING_TIME.slug:
        return hms(value)
    if metric_slug == INFERENCE_LATENCY.slug:
        return f"{float(value):.4g} ms"
    return usd(value)


@register.filter
def hours(seconds) -> str:
    return "" if seconds is None else f"{hours_of(float(seconds)):.6g}"


@register.filter
def plain(value) -> str:
    """A number exactly as stored: the shortest form of a float that reads back the same; Decimals unpadded."""
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return f"{value.normalize():f}" if value == value.to_integral() else f"{value.normalize()}"
    if isinstance(value, float):
        return repr(value)
    return str(value)


@register.filter
def as_json(value) -> str:
    """A JSON value pretty-printed as JSON (not as Python's repr)."""
    return json.dumps(value, indent=2, ensure_ascii=False)
