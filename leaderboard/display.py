"""Numbers for people: the one set of rules the templates and the charts' hover text both follow.

Raw values stay raw in the exports and the API; only what a reader sees passes through here. No Django.
Units are joined to their number with a non-breaking space, so "0.0739 ms" never wraps before "ms".
"""

from __future__ import annotations

import math
from decimal import Decimal

from dawnboard.rules import Scale
from dawnboard.scoring import SECONDS_PER_HOUR

NBSP = "\u00a0"
SECONDS_PER_MINUTE = 60
MONEY_SIGNIFICANT = 4
LATENCY_SIGNIFICANT = 3
NUMBER_SIGNIFICANT = 6  # a plain figure (hours, a cost per hour): enough to redo its arithmetic, no float noise

Number = int | float | Decimal


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def decimals_for(value: float, significant: int) -> int:
    """How many decimals show `significant` figures of `value`; never fewer than the whole part's digits."""
    if value == 0:
        return 0
    magnitude = math.floor(math.log10(abs(value)))
    rounded = round(abs(value), significant - 1 - magnitude)  # 9.9996 at 4 s.f. is 10.00: one decimal fewer
    if rounded and math.floor(math.log10(rounded)) > magnitude:
        magnitude += 1
    return max(0, significant - 1 - magnitude)


def significant(value: Number, figures: int, *, trim: bool = False) -> str:
    """`value` to `figures` significant figures, thousands separated; `trim` drops trailing zeros."""
    value = float(value)
    text = f"{value:,.{decimals_for(value, figures)}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def duration(seconds: Number | None, *, tenths: bool = True) -> str:
    """h:mm:ss, hours past 24 kept ("52:41:33"); under a minute with tenths ("0:00:07.3") unless `tenths` is off
    (an axis tick at a whole second)."""
    if _missing(seconds):
        return ""
    seconds = float(seconds)
    if tenths and seconds < SECONDS_PER_MINUTE and round(seconds, 1) < SECONDS_PER_MINUTE:
        return f"0:00:{seconds:04.1f}"
    hours, rest = divmod(round(seconds), SECONDS_PER_HOUR)
    minutes, whole_seconds = divmod(rest, SECONDS_PER_MINUTE)
    return f"{hours}:{minutes:02d}:{whole_seconds:02d}"


def usd(value: Number | None, *, figures: int = MONEY_SIGNIFICANT) -> str:
    """Dollars to a fixed number of significant figures: "$14.42", "$0.04376", "$1,235"."""
    if _missing(value):
        return ""
    text = significant(value, figures)
    return f"-${text[1:]}" if text.startswith("-") else f"${text}"


def latency_ms(value: Number | None) -> str:
    """Milliseconds to 3 significant figures: "0.0739 ms"."""
    if _missing(value):
        return ""
    return f"{significant(value, LATENCY_SIGNIFICANT)}{NBSP}ms"


def accuracy(value: Number | None, scale: str = Scale.PERCENT) -> str:
    """Quality in the task's scale: percent as "94.12 %", a fraction (F1) as "0.9121"."""
    if _missing(value):
        return ""
    if Scale(scale) is Scale.PERCENT:
        return f"{float(value):.2f}{NBSP}%"
    return f"{float(value):.4f}"


def epoch(value: Number | None) -> str:
    """An epoch as a whole number when it is one ("27", not "27.0"), else to two decimals at most ("3.5")."""
    if _missing(value):
        return ""
    value = float(value)
    return f"{value:.0f}" if value.is_integer() else f"{value:.2f}".rstrip("0")


def count(value: int | None) -> str:
    """A count with thousands separators: "10,000"."""
    return "" if value is None else f"{int(value):,}"


def hours(seconds: Number | None) -> str:
    """Seconds as hours, to six significant figures: enough to check "hours x price = cost" by hand."""
    if _missing(seconds):
        return ""
    return number(float(seconds) / SECONDS_PER_HOUR)


def number(value) -> str:
    """Any figure without float noise (157.5500004 -> "157.55"); exact Decimals unpadded; text unchanged."""
    if _missing(value):
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return str(value)
    if isinstance(value, Decimal):
        normal = value.normalize()
        return f"{normal:,f}"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if isinstance(value, int):
        return f"{value:,}"
    return significant(value, NUMBER_SIGNIFICANT, trim=True)
