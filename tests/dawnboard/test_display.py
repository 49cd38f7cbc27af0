"""The one number formatter for people: h:mm:ss, money and latency to fixed significant figures, accuracy in
the task's scale, whole epochs, counts with separators; and the template filters that follow it."""

import math
import re
from decimal import Decimal
from pathlib import Path

import pytest

from dawnboard import display

NBSP = "\u00a0"


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
    ("seconds", "text"),
    [(0.040575, "0.0406 s"), (0.5, "0.500 s"), (30.32, "30.3 s"), (59.99, "60.0 s"), (4523.0, "1:15:23"), (None, "")],
)
def test_a_trial_s_timed_seconds_keep_three_figures_under_a_minute(seconds, text):
    assert display.timed_seconds(seconds) == text


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
        (Decimal("0.0000159565724116162"), "$0.00001596"),  # a digits cost per 10,000 items, every digit stored
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


def test_the_formatter_imports_no_django():
    source = Path(display.__file__).read_text()
    assert not re.search(r"^\s*(from|import) django", source, re.MULTILINE)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.59565724116162e-09, f"$1.596{NBSP}\u00d7{NBSP}10\u207b\u2079"),  # a cost per item
        (2.4460776946225e-06, f"$2.446{NBSP}\u00d7{NBSP}10\u207b\u2076"),
        (9.99996e-06, f"$1.000{NBSP}\u00d7{NBSP}10\u207b\u2075"),
        (1e-05, "$0.00001000"),
        (-3e-12, f"-$3.000{NBSP}\u00d7{NBSP}10\u207b\u00b9\u00b2"),
        (0, "$0"),
    ],
)
def test_money_below_a_thousandth_of_a_cent_is_written_times_a_power_of_ten(value, text):
    assert display.usd(value) == text


@pytest.mark.parametrize(
    ("value", "scale", "text"),
    [
        (Decimal("98.0000"), "percent", f"98{NBSP}%"),  # as the database stores it, to 4 places
        (Decimal("94.0"), "percent", f"94{NBSP}%"),
        (Decimal("0.7500"), "fraction", "0.75"),
        (93.5, "percent", f"93.5{NBSP}%"),
    ],
)
def test_a_threshold_is_written_as_the_task_states_it(value, scale, text):
    assert display.threshold(value, scale) == text


@pytest.mark.parametrize(
    ("value", "kind", "text"),
    [
        (340.63, "time", "0:05:41"),
        (Decimal("0.28953673751354200000"), "usd", "$0.2895"),
        (0.0574, "ms", f"0.0574{NBSP}ms"),
        (94.3, "percent", f"94.30{NBSP}%"),
        (0.81234, "fraction", "0.8123"),
        (Decimal("3.060000"), "plain", "3.06"),
        ("not claimed", "usd", "not claimed"),
        (None, "usd", ""),
    ],
)
def test_a_figure_is_written_by_its_kind(value, kind, text):
    assert display.figure(value, kind) == text


@pytest.mark.parametrize(
    ("value", "metric", "text"),
    [
        (189_693.0, "training-time", "52:41:33"),
        (14.4245778144, "training-cost", "$14.42"),
        (0.07393, "inference-latency", f"0.0739{NBSP}ms"),
        (1.59565724116162e-05, "inference-cost", "$0.00001596"),
    ],
)
def test_a_board_value_is_written_in_its_metrics_unit(value, metric, text):
    assert display.board_value(value, metric) == text
