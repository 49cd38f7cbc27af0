"""AlgoPerf's search spaces: ranges and feasible points drawn as Halton points, fixed points taken in order, and
spaces that cannot be read refused naming the hyperparameter."""

from __future__ import annotations

import math

import pytest

from dawnboard.algorithms.search_space import SearchSpaceError, radical_inverse, search_space

SPACE = {
    "learning_rate": {"min": 1e-4, "max": 1e-2, "scaling": "log"},
    "warmup_factor": {"min": 0.0, "max": 0.2},
    "beta2": {"feasible_points": [0.99, 0.999]},
}


def test_the_radical_inverse_mirrors_the_digits():
    assert [radical_inverse(index, 2) for index in (1, 2, 3, 4)] == [0.5, 0.25, 0.75, 0.125]
    assert [radical_inverse(index, 3) for index in (1, 2, 3)] == pytest.approx([1 / 3, 2 / 3, 1 / 9])


def test_halton_trials_cover_each_range_in_its_scaling_and_each_study_draws_its_own():
    trials = search_space(SPACE).trials(5, seed=0)

    assert len(trials) == 5 and all(set(trial) == set(SPACE) for trial in trials)
    assert all(1e-4 <= t["learning_rate"] <= 1e-2 and 0 <= t["warmup_factor"] <= 0.2 for t in trials)
    assert {t["beta2"] for t in trials} == {0.99, 0.999}
    # The first learning rates are Halton's 1/2, 1/4 and 3/4 of the log range, all moved by the study's shift (mod 1).
    units = [(math.log10(t["learning_rate"]) + 4) / 2 for t in trials]
    assert (units[1] - units[0]) % 1 == pytest.approx(0.75) and (units[2] - units[0]) % 1 == pytest.approx(0.25)
    assert search_space(SPACE).trials(5, seed=0) == trials  # a study's trials follow from its seed
    assert search_space(SPACE).trials(5, seed=1) != trials


def test_a_list_of_fixed_points_is_taken_in_order():
    points = [{"learning_rate": 0.1}, {"learning_rate": 0.01}, {"learning_rate": 0.001}]

    assert search_space(points).trials(2, seed=7) == points[:2]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({}, "an object of hyperparameters or a list"),
        ([], "fixed points"),
        ({"learning_rate": {"min": 1e-2, "max": 1e-4}}, "learning_rate: min and max"),
        ({"learning_rate": {"min": 0, "max": 1, "scaling": "log"}}, "learning_rate: a log range needs min > 0"),
        ({"learning_rate": {"min": 0, "max": 1, "scaling": "cubic"}}, "learning_rate: scaling is linear or log"),
        ({"beta2": {"feasible_points": []}}, "beta2: feasible_points"),
        ({"beta2": 0.999}, "beta2: a range"),
    ],
)
def test_a_space_that_cannot_be_read_is_refused_naming_the_hyperparameter(document, message):
    with pytest.raises(SearchSpaceError, match=message):
        search_space(document)
