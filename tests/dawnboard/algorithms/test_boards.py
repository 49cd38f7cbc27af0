from __future__ import annotations

import pytest

from dawnboard.algorithms.boards import ScoredResult, score_board
from dawnboard.algorithms.scoring import Target
from dawnboard.algorithms.suites import SuiteRules, WorkloadRules

SUITE = SuiteRules(
    name="tiny",
    workloads=(
        WorkloadRules("w1", Target("validation/accuracy", 0.9), 100.0, 1.0),
        WorkloadRules("w2", Target("validation/accuracy", 0.9), 100.0, 1.0),
    ),
    studies=1,
    trials=1,
    self_tuning_runtime_factor=1.5,
)


def test_bundles_from_different_machines_are_compared_as_multiples_of_their_own_reference():
    # a ran on a machine ten times slower than b's, and is twice as fast as its reference on both workloads; b is
    # as fast as its reference: in seconds b wins everywhere, as multiples of their references a does
    slow_machine = ScoredResult("a", {"w1": 50.0, "w2": 50.0}, {"w1": 100.0, "w2": 100.0})
    fast_machine = ScoredResult("b", {"w1": 10.0, "w2": 10.0}, {"w1": 10.0, "w2": 10.0})

    board = score_board([slow_machine, fast_machine], SUITE, "external")

    assert board.normalised
    assert board.ratios == {"a": {"w1": 1.0, "w2": 1.0}, "b": {"w1": 2.0, "w2": 2.0}}
    assert board.order() == ["a", "b"]
    assert board.scores["a"] == pytest.approx(1.0)


def test_a_workload_its_reference_never_reached_is_scaled_by_the_budget():
    reached_alone = ScoredResult("a", {"w1": 25.0, "w2": 10.0}, {"w1": None, "w2": 10.0})  # 25 / 100 s budget
    other = ScoredResult("b", {"w1": 50.0, "w2": 10.0}, {"w1": 100.0, "w2": 10.0})  # 50 / 100 s

    board = score_board([reached_alone, other], SUITE, "external")

    assert board.ratios["a"]["w1"] == 1.0 and board.ratios["b"]["w1"] == 2.0


def test_results_of_one_reference_system_are_compared_in_seconds():
    board = score_board(
        [ScoredResult("x", {"w1": 10.0, "w2": None}), ScoredResult("y", {"w1": 30.0, "w2": 10.0})], SUITE, "external"
    )

    assert not board.normalised
    assert board.ratios == {"x": {"w1": 1.0, "w2": float("inf")}, "y": {"w1": 3.0, "w2": 1.0}}


def test_an_empty_board_has_no_profile():
    assert score_board([], SUITE, "external") is None
