"""Pareto fronts, record progressions and the thinning of a scatter to a grid: plain pandas and numpy, no
database."""

import datetime

import numpy as np
import pandas as pd

from leaderboard.analysis import (
    grid_cells,
    one_point_per_cell,
    pareto_front,
    pareto_mask,
    record_progression,
    record_setters,
    record_steps,
)


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


def brute_force_front(x: list[float], y: list[float]) -> list[bool]:
    """On the front: no other point is at least as good on both and better on one; of twins, the first."""
    return [
        not any(
            (x[j] <= x[i] and y[j] <= y[i] and (x[j] < x[i] or y[j] < y[i]))
            or (x[j] == x[i] and y[j] == y[i] and j < i)
            for j in range(len(x))
            if j != i
        )
        for i in range(len(x))
    ]


def test_pareto_mask_agrees_with_comparing_every_pair():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 20, 300).astype(float)  # few distinct values: ties on either axis, and twins
    y = rng.integers(0, 20, 300).astype(float)

    assert pareto_mask(x, y).tolist() == brute_force_front(x.tolist(), y.tolist())


def test_pareto_mask_leaves_out_a_point_missing_a_value():
    assert pareto_mask(np.array([np.nan, 2.0, 1.0]), np.array([0.0, 1.0, np.nan])).tolist() == [False, True, False]


def test_record_steps_keep_the_records_and_the_last_row():
    entries = pd.DataFrame(
        {"value": [50.0, 40.0, 80.0, 90.0], "date": [datetime.date(2018, 1, d) for d in (1, 2, 3, 4)]}
    )

    steps = record_steps(record_progression(entries, value="value", date="date"))

    assert steps["value"].tolist() == [50.0, 40.0, 90.0]
    assert steps["is_record"].tolist() == [True, True, False]


def test_record_setters_are_the_records_of_the_progression_of_the_board_in_its_order():
    """A board in id order with many entries a day and tied values: the progression, sorted by date then value
    (stable, so the earlier row wins a tie), marks the same rows."""
    rng = np.random.default_rng(7)
    days = rng.integers(0, 300, 5000).astype("datetime64[D]")
    values = rng.integers(1, 4000, 5000).astype(float)
    order = np.lexsort((values, days))
    board = pd.DataFrame({"value": values[order], "date": days[order], "position": order})

    progression = record_progression(board, value="value", date="date")

    expected = progression.loc[progression["is_record"], "position"].tolist()
    assert record_setters(days, values).tolist() == expected
    assert len(expected) >= 3


def test_record_setters_of_one_day_take_its_lowest_value_and_the_first_of_a_tie():
    days = np.array(["2018-01-02", "2018-01-01", "2018-01-02", "2018-01-02"], dtype="datetime64[D]")

    assert record_setters(days, np.array([3.0, 5.0, 2.0, 2.0])).tolist() == [1, 2]
    assert record_setters(days[:0], np.array([])).tolist() == []


GRID = {"x_range": (0.0, 10.0), "y_range": (0.0, 10.0), "cells": (10, 10)}


def test_grid_cells_number_the_cells_and_put_points_outside_in_the_edge_cells():
    cells = grid_cells(np.array([0.5, 9.5, 0.5, -3.0, 42.0]), np.array([0.5, 0.5, 9.5, 0.5, 42.0]), **GRID)

    assert cells.tolist() == [0, 90, 9, 0, 99]


def test_one_point_per_cell_draws_the_point_nearest_each_cells_centre():
    x = np.array([0.1, 0.45, 0.9, 5.5])
    y = np.array([0.1, 0.55, 0.9, 5.5])

    assert one_point_per_cell(x, y, **GRID).tolist() == [False, True, False, True]


def test_one_point_per_cell_always_draws_the_kept_points_and_nothing_else_in_their_cells():
    x = np.array([0.1, 0.5, 0.9, 0.2])
    y = np.array([0.1, 0.5, 0.9, 0.3])
    keep = np.array([True, False, False, True])

    assert one_point_per_cell(x, y, **GRID, keep=keep).tolist() == [True, False, False, True]


def test_one_point_per_cell_breaks_ties_by_input_order():
    x = np.array([0.5, 0.5, 0.5])
    y = np.array([0.5, 0.5, 0.5])

    assert one_point_per_cell(x, y, **GRID).tolist() == [True, False, False]


def test_one_point_per_cell_of_nothing_draws_nothing():
    assert one_point_per_cell(np.array([]), np.array([]), **GRID).tolist() == []
