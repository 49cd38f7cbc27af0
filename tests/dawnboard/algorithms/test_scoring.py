"""AlgoPerf's scoring rules, checked by hand: times to target, studies, workloads, performance profiles, the
benchmark score, and the speedups over a reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dawnboard.algorithms.scoring import (
    PROFILE_POINTS,
    Target,
    held_out_gated,
    performance_profiles,
    speedups,
    study_time,
    time_to_target,
    workload_time,
)
from dawnboard.algorithms.trial_log import TrialLog

INF = math.inf
STEP = 3 / (PROFILE_POINTS - 1)  # the spacing of tau over [1, 4]


def log(times, metric, name="validation/accuracy") -> TrialLog:
    return TrialLog(
        {
            "accumulated_submission_time": np.asarray(times, dtype=float),
            "global_step": np.arange(len(times), dtype=float),
            name: np.asarray(metric, dtype=float),
        }
    )


def test_a_target_is_reached_at_or_above_it_or_at_or_below_it_for_a_metric_to_minimise():
    accuracy, loss = Target("validation/accuracy", 0.9), Target("validation/loss", 0.3, higher_is_better=False)

    assert time_to_target(log([1, 2, 3], [0.8, 0.9, 0.95]), accuracy) == 2.0  # exactly at the target counts
    assert time_to_target(log([1, 2, 3], [0.5, 0.3, 0.2], "validation/loss"), loss) == 2.0
    assert time_to_target(log([1, 2, 3], [0.8, math.nan, 0.89]), accuracy) is None  # NaN reaches nothing
    assert time_to_target(log([1, 2], [0.95, 0.95], "train/accuracy"), accuracy) is None  # no such column


def test_a_study_takes_its_fastest_trial_and_a_workload_the_median_of_its_studies():
    assert study_time([30.0, None, 12.0, 40.0]) == 12.0  # the minimum over times, whichever trial it is
    assert study_time([None, None, None]) == INF  # a study where every trial fails
    assert workload_time([12.0, INF, 20.0]) == 20.0  # the failed study counts, as infinitely slow
    assert workload_time([12.0, INF, INF]) == INF
    assert workload_time([]) == INF


def test_the_profile_and_score_of_two_submissions_each_fastest_on_one_workload():
    profiles = performance_profiles({"a": {"w1": 10, "w2": 20}, "b": {"w1": 20, "w2": 10}}, ["w1", "w2"])

    assert profiles.ratios == {"a": {"w1": 1.0, "w2": 2.0}, "b": {"w1": 2.0, "w2": 1.0}}
    # rho is 1/2 on [1, 2) and 1 from 2 (a grid point: 1 + 33 steps): the area is 1/2 + 2, plus the trapezoid's
    # share of the step at 2 (a quarter of one spacing), over 3.
    expected = (0.5 + 2.0 + 0.25 * STEP) / 3
    assert profiles.score("a") == pytest.approx(expected) == profiles.score("b")
    assert profiles.rho["a"][0] == 0.5 and profiles.rho["a"][-1] == 1.0


def test_fastest_everywhere_scores_one_and_more_than_four_times_slower_counts_as_never():
    profiles = performance_profiles({"fast": {"w1": 1, "w2": 5}, "slow": {"w1": 4.5, "w2": 20}}, ["w1", "w2"])

    assert profiles.score("fast") == pytest.approx(1.0)
    assert profiles.ratios["slow"] == {"w1": INF, "w2": 4.0}  # 4.5x is cut; exactly 4x stays
    # rho is 0 until tau = 4, the last grid point, where it is 1/2: the trapezoid's last half-step.
    assert profiles.score("slow") == pytest.approx(0.5 * 0.5 * STEP / 3)


def test_a_missing_workload_counts_as_never_reached_over_the_fixed_number_of_workloads():
    profiles = performance_profiles({"a": {"w1": 10}, "b": {"w1": 10, "w2": 10, "w3": 10}}, ["w1", "w2", "w3"])

    assert profiles.ratios["a"] == {"w1": 1.0, "w2": INF, "w3": INF}
    assert profiles.score("a") == pytest.approx(1 / 3) and profiles.score("b") == pytest.approx(1.0)


def test_ties_are_all_fastest_and_a_workload_no_one_reached_counts_against_everyone():
    profiles = performance_profiles({"a": {"w1": 7, "w2": INF}, "b": {"w1": 7, "w2": INF}}, ["w1", "w2"])

    assert profiles.ratios["a"] == profiles.ratios["b"] == {"w1": 1.0, "w2": INF}
    assert profiles.score("a") == pytest.approx(0.5) == profiles.score("b")


def test_speedups_over_the_reference_and_their_geometric_mean():
    workloads = ["w1", "w2", "w3"]
    reference = {"w1": 100.0, "w2": 50.0, "w3": INF}  # the reference never reached w3: left out of the mean

    both = speedups({"w1": 50.0, "w2": 100.0, "w3": 10.0}, reference, workloads)
    assert both.per_workload == {"w1": 2.0, "w2": 0.5, "w3": None}
    assert both.geometric_mean == pytest.approx(1.0)

    missed = speedups({"w1": 50.0, "w2": INF}, reference, workloads)  # missed a workload the reference reached
    assert missed.per_workload["w2"] is None and missed.geometric_mean is None


def test_a_base_workload_counts_only_where_its_held_out_variant_was_reached_too():
    times = {"w1": 10.0, "w1_tanh": INF, "w2": 20.0, "w2_wide": 30.0, "w3": 5.0}

    gated = held_out_gated(times, {"w1_tanh": "w1", "w2_wide": "w2"})

    assert gated == {"w1": INF, "w2": 20.0, "w3": 5.0}  # the variants are not scored themselves


def test_a_variant_more_than_four_times_slower_than_the_fastest_on_it_gates_its_base():
    """AlgoPerf v0.5's order: the 4x cut applies to the variants' columns too, then a variant cut gates its base.
    Hand-checked: on `w1_tanh` b takes 50 s against a's 10 s (r = 5 > 4), so b's w1 (r = 1.1 alone) becomes
    infinite; b's w2 is its fastest. a: w1 r=1, w2 r=2 -> rho(tau) = 1/2 below 2, 1 from 2 on; b: w2 only -> 1/2."""
    times = {
        "a": {"w1": 10.0, "w1_tanh": 10.0, "w2": 20.0},
        "b": {"w1": 11.0, "w1_tanh": 50.0, "w2": 10.0},
    }

    profiles = performance_profiles(times, ["w1", "w2"], variants={"w1_tanh": "w1"})

    assert profiles.ratios["b"] == {"w1": INF, "w2": 1.0}
    assert profiles.ratios["a"] == {"w1": 1.0, "w2": 2.0}
    assert profiles.score("b") == pytest.approx(0.5)
    # a: 1/2 over [1, 2), 1 over [2, 4]; on 100 points the trapezoid sees the step between two of them
    taus = profiles.taus
    step = int(np.searchsorted(taus, 2.0))
    expected = np.trapezoid(np.where(taus >= 2.0, 1.0, 0.5), taus) / 3
    assert profiles.score("a") == pytest.approx(expected) and step > 0


def test_a_variant_counts_as_never_reached_where_its_base_never_was():
    """Step one of the order: a base never reached makes its variant infinite, so the variant's fastest time (the
    denominator of every other submission's ratio on it) is taken only among submissions that reached the base."""
    times = {"a": {"w1": INF, "w1_tanh": 1.0}, "b": {"w1": 10.0, "w1_tanh": 10.0}}

    profiles = performance_profiles(times, ["w1"], variants={"w1_tanh": "w1"})

    assert profiles.ratios == {"a": {"w1": INF}, "b": {"w1": 1.0}}  # b's variant, 10x a's 1 s, is no longer cut
