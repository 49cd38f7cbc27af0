"""The one number formatter for people: h:mm:ss, money and latency to fixed significant figures, accuracy in
the task's scale, whole epochs, counts with separators; and the template filters that follow it."""

import math
import re
from decimal import Decimal
from pathlib import Path

import pytest

from leaderboard import display
from leaderboard.templatetags import board

NBSP = "\u00a0"
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0:00:00.0"),
        (7.3, "0:00:07.3"),
        (7.26, "0:00:07.3"),
        (59.94, "0:00:59.9"),
        (59.96, "0:01:00"),  # tenths would read 60.0: the next minute instead
        (60, "0:01:00"),
        (157.5500004, "0:02:38"),
        (3599.6, "1:00:00"),
        (52 * 3600 + 41 * 60 + 33, "52:41:33"),  # hours past a day stay hours
        (None, ""),
        (math.nan, ""),
    ],
)
def test_duration_is_h_mm_ss_with_tenths_under_a_minute(seconds, text):
    assert display.duration(seconds) == text


def test_duration_ticks_can_leave_the_tenths_off():
    assert display.duration(10, tenths=False) == "0:00:10"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (14.4245778144, "$14.42"),
        (0.04376389, "$0.04376"),
        (1.0, "$1.000"),
        (9.99996, "$10.00"),  # rounding up a digit keeps four figures, not five
        (1234.4, "$1,234"),
        (52679.2, "$52,679"),  # never rounds away whole dollars
        (Decimal("3.14159"), "$3.142"),
        (None, ""),
    ],
)
def test_money_has_four_significant_figures(value, text):
    assert display.usd(value) == text


def test_money_figures_can_be_chosen_per_column():
    assert display.usd(14.4245778144, figures=3) == "$14.4"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.07393, f"0.0739{NBSP}ms"),
        (0.0739321, f"0.0739{NBSP}ms"),
        (12.345, f"12.3{NBSP}ms"),
        (999.6, f"1,000{NBSP}ms"),
        (1234.5, f"1,234{NBSP}ms"),
        (None, ""),
    ],
)
def test_latency_is_milliseconds_to_three_figures_joined_to_its_unit(value, text):
    assert display.latency_ms(value) == text


@pytest.mark.parametrize(
    ("value", "scale", "text"),
    [
        (94.1234, "percent", f"94.12{NBSP}%"),
        (94.0, "percent", f"94.00{NBSP}%"),
        (0.912134, "fraction", "0.9121"),
        (0.75, "fraction", "0.7500"),
        (None, "percent", ""),
    ],
)
def test_accuracy_is_written_in_the_tasks_scale(value, scale, text):
    assert display.accuracy(value, scale) == text


def test_an_unknown_scale_is_refused():
    with pytest.raises(ValueError):
        display.accuracy(0.5, "permille")


@pytest.mark.parametrize(("value", "text"), [(27.0, "27"), (27, "27"), (3.5, "3.5"), (3.25, "3.25"), (None, "")])
def test_epochs_are_whole_numbers_when_whole(value, text):
    assert display.epoch(value) == text


@pytest.mark.parametrize(("value", "text"), [(0, "0"), (999, "999"), (10000, "10,000"), (1234567, "1,234,567")])
def test_counts_have_thousands_separators(value, text):
    assert display.count(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (157.5500004, "157.55"),
        (878398.1920000003, "878,398"),
        (27.0, "27"),
        (0.04376389, "0.0437639"),
        (Decimal("1.20"), "1.2"),
        (Decimal("1200"), "1,200"),
        (12345, "12,345"),
        ("not claimed: read off the log", "not claimed: read off the log"),
        (True, "True"),
        (None, ""),
    ],
)
def test_a_plain_number_loses_its_float_noise(value, text):
    assert display.number(value) == text


def test_hours_are_six_significant_figures_of_the_seconds():
    assert display.hours(9450) == "2.625"
    assert display.hours(1000) == "0.277778"


@pytest.mark.parametrize(
    ("value", "figures", "text"),
    [(0.0, 3, "0"), (-14.42457, 4, "-14.42"), (0.000123456, 3, "0.000123"), (99.96, 3, "100")],
)
def test_significant_figures(value, figures, text):
    assert display.significant(value, figures) == text


def test_the_template_filters_follow_the_formatter():
    assert board.hms(157.5500004) == display.duration(157.5500004)
    assert board.usd(14.4245778144) == "$14.42"
    assert board.metric_value(0.07393, "inference-latency") == f"0.0739{NBSP}ms"
    assert board.metric_value(14.4245778144, "training-cost") == "$14.42"
    assert board.metric_value(189_693.0, "training-time") == "52:41:33"
    assert board.metric_value(0.004376389, "inference-cost") == "$0.004376"
    assert board.plain(878398.1920000003) == "878,398"
    assert board.hours(9450) == "2.625"
    assert board.latency(0.07393) == f"0.0739{NBSP}ms"
    assert board.accuracy(0.912134, "fraction") == "0.9121"
    assert board.epoch(27.0) == "27"
    assert board.count(10000) == "10,000"


def test_the_formatter_imports_no_django():
    source = Path(display.__file__).read_text()
    assert not re.search(r"^\s*(from|import) django", source, re.MULTILINE)


def test_no_template_loads_a_script_without_defer():
    scripts = [
        (path.relative_to(TEMPLATES), tag)
        for path in TEMPLATES.rglob("*.html")
        for tag in re.findall(r"<script\b[^>]*\bsrc=[^>]*>", path.read_text())
    ]
    plotly = [tag for _, tag in scripts if "plotly" in tag]

    assert plotly, "no template loads plotly: the test would pass for nothing"
    assert [
        (str(path), tag) for path, tag in scripts if "plotly" in tag or "charts.js" in tag if " defer" not in tag
    ] == []
