"""Template filters for leaderboard values, all following `dawnboard.display`'s rules for people."""

from __future__ import annotations

import json

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from dawnboard import display
from dawnboard.links import is_web_link
from dawnboard.verification import Verification

register = template.Library()

# Unicode's explicit directional formatting characters (the Bidi_Control property): embeddings, overrides,
# isolates and marks. One in an entry's text would reorder the page around it, were it not isolated.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_WITHOUT_BIDI_CONTROLS = {ord(character): None for character in BIDI_CONTROLS}
_BIDI_CONTROLS_AS_JSON_ESCAPES = {ord(character): f"\\u{ord(character):04x}" for character in BIDI_CONTROLS}


@register.filter
def user_text(value) -> SafeString | str:
    """Text someone else wrote (an entry's author, model, hardware...), escaped and isolated in `<bdi>`: its
    direction is its own, and a right-to-left override in it cannot reorder the page around it."""
    if value is None or value == "":
        return ""
    return format_html("<bdi>{}</bdi>", value)


@register.filter
def bidi_free(value) -> str:
    """Someone else's text without directional controls, where no element can isolate it: the page's title,
    an attribute. Escaped by the template as usual."""
    return "" if value is None else str(value).translate(_WITHOUT_BIDI_CONTROLS)


@register.filter
def web_link(url) -> str:
    """The link if it is an absolute http(s) one, else "": an entry's link never becomes a script."""
    return url if url and is_web_link(str(url)) else ""


@register.filter
def hms(seconds) -> str:
    """Seconds as h:mm:ss, the way DAWNBench showed training times (under a minute with tenths)."""
    return display.duration(seconds)


@register.filter
def timed(seconds) -> str:
    """A trial's timed seconds (the algorithm track): "0.0406 s" under a minute, else h:mm:ss."""
    return display.timed_seconds(seconds)


@register.filter
def percent_of_one(value) -> str:
    """A fraction as a percentage, two significant figures (a coefficient of variation)."""
    return display.share(value)


@register.filter
def usd(value) -> str:
    """Dollars to four significant figures."""
    return display.usd(value)


@register.filter
def latency(value) -> str:
    """Milliseconds to three significant figures, "ms" joined to the number."""
    return display.latency_ms(value)


@register.filter
def accuracy(value, scale: str = "percent") -> str:
    """Quality in the task's scale: `{{ entry.accuracy|accuracy:version.scale }}`."""
    return display.accuracy(value, scale)


@register.filter
def epoch(value) -> str:
    """An epoch as a whole number when it is one."""
    return display.epoch(value)


@register.filter
def count(value) -> str:
    """A count with thousands separators."""
    return display.count(value)


@register.filter
def metric_value(value, metric_slug: str) -> str:
    """A board value in its unit: h:mm:ss for time, dollars for costs, ms for latency."""
    return display.board_value(value, metric_slug)


@register.filter
def hours(seconds) -> str:
    """Seconds as hours, to six significant figures (for the cost arithmetic)."""
    return display.hours(seconds)


@register.filter
def plain(value) -> str:
    """Any figure without float noise (157.5500004 as 157.55), with thousands separators; text unchanged."""
    return display.number(value)


@register.filter
def figure(value, kind: str) -> str:
    """A figure of a row whose kind the row names: `{{ value|figure:row.kind }}` (see display.FIGURE_KINDS)."""
    return display.figure(value, kind)


@register.filter
def threshold(value, scale: str = "percent") -> str:
    """A task's threshold as the task states it: `{{ version.threshold|threshold:version.scale }}` is "94 %"."""
    return display.threshold(value, scale)


@register.filter
def as_json(value) -> str:
    """A JSON value pretty-printed as JSON (not as Python's repr); a directional control in a string is written
    as its escape (the same JSON), so that it cannot turn the text around it."""
    return json.dumps(value, indent=2, ensure_ascii=False).translate(_BIDI_CONTROLS_AS_JSON_ESCAPES)


@register.filter
def verification_description(level: str) -> str:
    """What a verification level means (dawnboard.verification), for a badge's title."""
    try:
        return Verification(level).description
    except ValueError:
        return ""


@register.filter
def get_item(mapping, key):
    """`mapping[key]`, or "" where it has none (a template cannot index a dict by a variable)."""
    return mapping.get(key, "") if hasattr(mapping, "get") else ""
