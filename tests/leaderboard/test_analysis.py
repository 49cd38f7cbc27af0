"""Pareto fronts and record progressions: plain pandas, no database."""

import datetime

import pandas as pd

from leaderboard.analysis import pareto_front, record_progression


def frame(points):
    return pd.DataFrame(points, columns=["name", "x", "y"]).set_index("name")


def test_pareto_front_keeps_only_undominated_points():
    points = frame([("fast-dear", 1, 10), ("slow-cheap", 10, 1), ("dominated", 5, 11), ("middle", 3, 3)])

    assert list(points.index[pareto_front(points, x="x", y="y")]) == ["fast-dear", "slow-cheap", "middle"]


def test_pareto_front_drops_a_point_tied_on_one_axis_and_worse_on_the_other():
    points = frame([("a", 1, 5), ("b", 1, 7), ("c", 2, 5)])

    assert list(points.index[pareto_front(points, x="x", y="y")]) == ["a"]


def test_pareto_front_marks_identical_points_once():
    points = frame([("first", 2, 2), ("twin", 2, 2)])

    assert pareto_front(points, x="x", y="y").tolist() == [True, False]


def test_pareto_front_of_nothing_is_empty():
    assert pareto_front(frame([]), x="x", y="y").empty


def test_record_progression_marks_each_new_best_by_date():
    entries = pd.DataFrame(
        {
            "value": [50.0, 80.0, 40.0, 40.0, 10.0],
            "date": [datetime.date(2018, 1, d) for d in (1, 2, 3, 4, 5)],
        }
    )

    progression = record_progression(entries, value="value", date="date")

    assert progression["is_record"].tolist() == [True, False, True, False, True]
    assert progression["best"].tolist() == [50.0, 50.0, 40.0, 40.0, 10.0]


def test_record_progression_sorts_by_date_whatever_the_input_order():
    entries = pd.DataFrame({"value": [10.0, 50.0], "date": [datetime.date(2019, 1, 1), datetime.date(2018, 1, 1)]})

    progression = record_progression(entries, value="value", date="date")

    assert progression["value"].tolist() == [50.0, 10.0]
    assert progression["is_record"].tolist() == [True, True]
