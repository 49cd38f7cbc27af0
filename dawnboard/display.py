"""Numbers for people: the one set of rules the templates and the charts' hover text both follow.

Raw values stay raw in the exports and the API; only what a reader sees passes through here. No Django.
Units are joined to their number with a non-breaking space, so "0.0739 ms" never wraps before "ms".
"""

from __future__ import annotations

import math
from decimal import Decimal

from dawnboard.metrics import INFERENCE_LATENCY, TRAINING_TIME
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


def timed_seconds(seconds: Number | None) -> str:
    """A trial's timed seconds: under a minute to three significant figures ("0.0406 s", "30.3 s": the algorithm
    track's small workloads are reached in fractions of a second), else h:mm:ss as `duration`."""
    if _missing(seconds):
        return ""
    if float(seconds) < SECONDS_PER_MINUTE:
        return f"{significant(seconds, 3)} s"
    return duration(seconds)


SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")
SMALLEST_PLAIN_USD = 1e-5  # below it (a cost per item), a dollar figure is written times a power of ten


def usd(value: Number | None, *, figures: int = MONEY_SIGNIFICANT) -> str:
    """Dollars to a fixed number of significant figures: "$14.42", "$0.04376", "$1,235"; below a thousandth of a
    cent, times a power of ten rather than after a row of zeros: 1.596e-9 as "$1.596 \u00d7 10\u207b\u2079"."""
    if _missing(value):
        return ""
    value = float(value)
    if value and abs(value) < SMALLEST_PLAIN_USD:
        return f"{'-' if value < 0 else ''}${_times_power_of_ten(abs(value), figures)}"
    text = significant(value, figures)
    return f"-${text[1:]}" if text.startswith("-") else f"${text}"


def _times_power_of_ten(value: float, figures: int) -> str:
    """A positive `value` as "1.596 \u00d7 10\u207b\u2079", the mantissa to `figures` significant figures."""
    mantissa, exponent = f"{value:.{figures - 1}e}".split("e")
    return f"{mantissa}{NBSP}\u00d7{NBSP}10{str(int(exponent)).translate(SUPERSCRIPT)}"


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


def share(value: Number | None) -> str:
    """A fraction as a percentage to two significant figures: a coefficient of variation, 0.26 -> "26 %"."""
    if _missing(value):
        return "n/a"
    return f"{significant(100 * float(value), 2)}{NBSP}%"


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


def threshold(value: Number, scale: str = Scale.PERCENT) -> str:
    """A task's threshold as the task states it: "98 %", "94 %", "0.75" (no padding zeros, whatever the
    stored precision)."""
    text = f"{Decimal(str(value)).normalize():f}"
    return f"{text}{NBSP}%" if Scale(scale) is Scale.PERCENT else text


# How a figure of each kind is written, for tables whose rows hold figures of several kinds: an accuracy is
# written in its scale, named by the scale ("percent", "fraction").
FIGURE_KINDS = {
    "time": duration,
    "usd": usd,
    "ms": latency_ms,
    "epoch": epoch,
    "count": count,
    "plain": number,
    **{scale.value: (lambda value, scale=scale: accuracy(value, scale)) for scale in Scale},
}


def figure(value, kind: str) -> str:
    """A number written as a figure of `kind` (a FIGURE_KINDS key); anything else (a note such as "not claimed")
    as it is."""
    if _missing(value):
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return str(value)
    return FIGURE_KINDS[kind](value)


def board_value(value: Number | None, metric_slug: str) -> str:
    """A board's value in its metric's unit: h:mm:ss for training time, ms for latency, dollars for the costs."""
    if metric_slug == TRAINING_TIME.slug:
        return duration(value)
    if metric_slug == INFERENCE_LATENCY.slug:
        return latency_ms(value)
    return usd(value)
