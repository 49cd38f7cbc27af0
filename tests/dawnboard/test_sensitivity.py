"""Threshold sensitivity: runs' times at shifted thresholds, entries' scores there, and the board's moves."""

from __future__ import annotations

import datetime
from decimal import Decimal

import numpy as np
import pytest

from dawnboard.rules import Aggregate, RunsRule, Scale
from dawnboard.scoring.sensitivity import (
    THRESHOLD_SHIFTS,
    RankedEntry,
    RankMove,
    RunShifts,
    board_sensitivity,
    entry_shifts,
    entry_single_crossing,
    point_of,
    run_shifts,
    shift_key,
    shifted_thresholds,
)

PERCENT_THRESHOLD = Decimal("94.0")
MEDIAN = RunsRule(aggregate=Aggregate.MEDIAN)
OLYMPIC_MEAN = RunsRule(aggregate=Aggregate.OLYMPIC_MEAN, required_runs=5, dropped_each_side=1)


def shifts_of(metric: list[float], hours: list[float] | None = None, **options) -> RunShifts:
    hours = hours if hours is not None else [0.1 * (row + 1) for row in range(len(metric))]
    options.setdefault("threshold", PERCENT_THRESHOLD)
    options.setdefault("scale", Scale.PERCENT)
    return run_shifts(np.array(hours), np.array(metric), **options)


def run(seconds_by_shift: dict[str, float | None], *, single_crossing: bool = False) -> RunShifts:
    return RunShifts(
        seconds={shift_key(delta): seconds_by_shift.get(shift_key(delta)) for delta in THRESHOLD_SHIFTS},
        single_crossing=single_crossing,
    )


def entry(entry_id: int, day: int, seconds: float, shifted: dict[str, float | None], **options) -> RankedEntry:
    return RankedEntry(
        id=entry_id, date=datetime.date(2018, 1, day), seconds=seconds, shifted_seconds=shifted, **options
    )


def same_at_every_shift(seconds: float, changed: dict[str, float | None] | None = None) -> dict[str, float | None]:
    """An entry's seconds at each shift: `seconds`, but at the shifts `changed` names."""
    return {shift_key(delta): seconds for delta in THRESHOLD_SHIFTS} | (changed or {})


# Shifts and their thresholds ------------------------------------------------------------------------------------


def test_shift_keys_are_written_without_padding_zeros():
    assert [shift_key(delta) for delta in THRESHOLD_SHIFTS] == ["-1.0", "-0.5", "+0.5", "+1.0"]


def test_a_point_is_one_hundredth_of_a_fraction_and_one_of_a_percent_or_value():
    assert (point_of(Scale.FRACTION), point_of(Scale.PERCENT), point_of(Scale.VALUE)) == (
        Decimal("0.01"),
        Decimal(1),
        Decimal(1),
    )


def test_a_fraction_threshold_shifted_by_half_a_point_is_exact():
    thresholds = dict(shifted_thresholds(Decimal("0.94"), Scale.FRACTION))

    assert str(thresholds[0.5]) == "0.945"
    assert [str(value) for value in thresholds.values()] == ["0.93", "0.935", "0.945", "0.95"]


def test_a_lower_is_better_threshold_is_stricter_when_lowered():
    thresholds = dict(shifted_thresholds(Decimal("2.0"), Scale.VALUE, higher_is_better=False))

    assert thresholds[1.0] == Decimal("1.0")
    assert thresholds[-1.0] == Decimal("3.0")


# One run --------------------------------------------------------------------------------------------------------


def test_a_run_reaches_each_shifted_threshold_at_its_first_evaluation_there():
    # 93.0 reaches -1 (93); 93.6 reaches -0.5 (93.5); 94.6 reaches +0.5 (94.5); nothing reaches +1 (95).
    shifts = shifts_of([93.0, 93.6, 94.0, 93.9, 94.6])

    assert shifts.seconds == {"-1.0": 360.0, "-0.5": 720.0, "+0.5": 1800.0, "+1.0": None}


def test_a_run_never_reaching_a_shifted_threshold_has_no_time_there():
    shifts = shifts_of([90.0, 94.2, 94.3])

    assert shifts.seconds["+1.0"] is None
    assert shifts.seconds["+0.5"] is None


def test_a_metric_exactly_at_a_shifted_threshold_reaches_it():
    shifts = shifts_of([93.0, 94.5], threshold=PERCENT_THRESHOLD)

    assert shifts.seconds["+0.5"] == 720.0


def test_a_fraction_metric_written_as_the_shifted_threshold_reaches_it():
    shifts = shifts_of([0.93, 0.945], threshold=Decimal("0.94"), scale=Scale.FRACTION)

    assert shifts.seconds["+0.5"] == 720.0


def test_seconds_are_the_logs_hours_as_written_times_3600():
    # 1.1 * 3600 is 3960.0000000000005 in floats; validation reckons from the decimal "1.1": 3960.0.
    shifts = shifts_of([93.0], hours=[1.1])

    assert shifts.seconds["-1.0"] == 3960.0


def test_a_crossing_followed_by_an_evaluation_below_the_threshold_is_a_single_crossing():
    assert shifts_of([93.0, 94.2, 93.9, 94.5]).single_crossing is True


def test_a_crossing_followed_by_an_evaluation_that_stays_above_is_not_a_single_crossing():
    assert shifts_of([93.0, 94.2, 94.0]).single_crossing is False


def test_a_crossing_at_the_last_evaluation_is_not_a_single_crossing():
    assert shifts_of([93.0, 93.5, 94.2]).single_crossing is False


def test_a_run_never_reaching_the_threshold_is_not_a_single_crossing():
    assert shifts_of([93.0, 93.9, 93.0]).single_crossing is False


def test_a_lower_is_better_run_reaches_a_shifted_threshold_at_or_below_it():
    # Threshold 2.0: -1 is 3.0 (row 0), -0.5 is 2.5 (row 1), +0.5 is 1.5 (row 3, exactly), +1 is 1.0 (never).
    shifts = shifts_of([3.0, 2.4, 1.9, 1.5, 1.2], threshold=Decimal("2.0"), scale=Scale.VALUE, higher_is_better=False)

    assert shifts.seconds == {"-1.0": 360.0, "-0.5": 720.0, "+0.5": 1440.0, "+1.0": None}
    assert shifts.single_crossing is False


def test_a_lower_is_better_crossing_followed_by_a_higher_value_is_a_single_crossing():
    shifts = shifts_of([2.5, 1.9, 2.1], threshold=Decimal("2.0"), scale=Scale.VALUE, higher_is_better=False)

    assert shifts.single_crossing is True


def test_a_log_whose_columns_differ_in_length_is_refused():
    with pytest.raises(ValueError):
        run_shifts(np.array([0.1, 0.2]), np.array([94.0]), PERCENT_THRESHOLD, Scale.PERCENT)


# One entry ------------------------------------------------------------------------------------------------------


def test_an_entrys_median_counts_a_run_never_reaching_a_shift_as_failed():
    runs = [run({"+1.0": 100.0, "+0.5": 100.0}), run({"+1.0": 200.0}), run({})]

    scores = entry_shifts(runs, MEDIAN)

    assert scores["+1.0"] == 200.0  # the median of 100, 200 and a failure
    assert scores["+0.5"] is None  # the median of 100 and two failures is a failure


def test_an_entrys_olympic_mean_drops_a_failed_run_from_its_slow_end():
    # Five runs at +1: 100, 110, 120, 130 and a failure; drop the fastest (100) and the failure: (110+120+130)/3.
    runs = [run({"+1.0": seconds}) for seconds in (130.0, 100.0, 120.0, 110.0)] + [run({})]

    assert entry_shifts(runs, OLYMPIC_MEAN)["+1.0"] == 120.0


def test_an_entrys_olympic_mean_with_more_failures_than_dropped_has_no_score():
    runs = [run({"+1.0": seconds}) for seconds in (100.0, 110.0, 120.0)] + [run({}), run({})]

    assert entry_shifts(runs, OLYMPIC_MEAN)["+1.0"] is None


def test_an_entry_with_one_single_crossing_run_is_flagged():
    assert entry_single_crossing([run({}), run({}, single_crossing=True)]) is True
    assert entry_single_crossing([run({}), run({})]) is False


# A board --------------------------------------------------------------------------------------------------------


def swapping_board() -> list[RankedEntry]:
    """Officially 1, 2, 3, 4. At +0.5, 3 passes 2; at +1, 2 never gets there."""
    return [
        entry(4, 4, 400.0, same_at_every_shift(400.0, {"+0.5": 500.0, "+1.0": 600.0})),
        entry(2, 2, 200.0, same_at_every_shift(200.0, {"+0.5": 350.0, "+1.0": None})),
        entry(1, 1, 100.0, same_at_every_shift(100.0, {"+0.5": 150.0, "+1.0": 200.0})),
        entry(3, 3, 300.0, same_at_every_shift(300.0, {"+0.5": 320.0, "+1.0": 400.0})),
    ]


def shift_at(sensitivity, delta: float):
    return next(shift for shift in sensitivity.shifts if shift.delta == delta)


def test_a_swap_of_two_entries_gives_one_discordant_pair():
    # 4 entries, 6 pairs, only (2, 3) discordant: tau = (5 - 1) / 6.
    shift = shift_at(board_sensitivity(swapping_board(), PERCENT_THRESHOLD, Scale.PERCENT), 0.5)

    assert shift.kendall_tau == pytest.approx(4 / 6)


def test_the_swapped_entries_are_the_largest_moves_the_higher_ranked_first():
    shift = shift_at(board_sensitivity(swapping_board(), PERCENT_THRESHOLD, Scale.PERCENT), 0.5)

    assert shift.largest_moves == (
        RankMove(entry=2, official_rank=2, shifted_rank=3, move=-1),
        RankMove(entry=3, official_rank=3, shifted_rank=2, move=1),
    )


def test_an_unchanged_order_has_tau_one_and_no_moves():
    shift = shift_at(board_sensitivity(swapping_board(), PERCENT_THRESHOLD, Scale.PERCENT), -1.0)

    assert shift.kendall_tau == 1.0
    assert shift.largest_moves == ()


def test_an_entry_never_reaching_a_shift_drops_out_of_its_board():
    # At +1 entry 2 is gone: 1, 3, 4 keep their order (tau 1). Ranked among the entries at both thresholds, no
    # entry moves: the gap entry 2 leaves is counted in `dropped`, not as moves of the entries below it.
    shift = shift_at(board_sensitivity(swapping_board(), PERCENT_THRESHOLD, Scale.PERCENT), 1.0)

    assert (shift.entries_ranked, shift.dropped, shift.kendall_tau) == (3, 1, 1.0)
    assert shift.largest_moves == ()


def test_equal_seconds_are_ranked_by_date_then_id():
    # Officially all 100 s: id 3 (1 Jan) first, then ids 1 and 2 (both 2 Jan) by id. At +0.5, 1 and 2 (150 s each,
    # 2 Jan, so by id) pass 3 (200 s): 3 goes 1->3 (-2), 1 goes 2->1 (+1), 2 goes 3->2 (+1). Pairs (3,1) and (3,2)
    # are discordant, (1,2) concordant: tau = (1 - 2) / 3.
    board = [
        entry(2, 2, 100.0, same_at_every_shift(100.0, {"+0.5": 150.0})),
        entry(1, 2, 100.0, same_at_every_shift(100.0, {"+0.5": 150.0})),
        entry(3, 1, 100.0, same_at_every_shift(100.0, {"+0.5": 200.0})),
    ]

    shift = shift_at(board_sensitivity(board, PERCENT_THRESHOLD, Scale.PERCENT), 0.5)

    assert [(move.entry, move.official_rank, move.shifted_rank) for move in shift.largest_moves] == [
        (3, 1, 3),
        (1, 2, 1),
        (2, 3, 2),
    ]
    assert shift.kendall_tau == pytest.approx(-1 / 3)


def test_only_the_moves_asked_for_are_shown():
    shift = shift_at(board_sensitivity(swapping_board(), PERCENT_THRESHOLD, Scale.PERCENT, moves_shown=1), 0.5)

    assert [move.entry for move in shift.largest_moves] == [2]


def test_a_shift_reached_by_fewer_than_two_entries_has_no_tau():
    board = [
        entry(1, 1, 100.0, same_at_every_shift(100.0, {"+1.0": None})),
        entry(2, 2, 200.0, same_at_every_shift(200.0)),
    ]

    shift = shift_at(board_sensitivity(board, PERCENT_THRESHOLD, Scale.PERCENT), 1.0)

    assert (shift.kendall_tau, shift.entries_ranked) == (None, 1)


def test_single_crossings_are_listed_in_official_order():
    board = swapping_board()
    board[0] = entry(4, 4, 400.0, same_at_every_shift(400.0), single_crossing=True)
    board[2] = entry(1, 1, 100.0, same_at_every_shift(100.0), single_crossing=True)

    assert board_sensitivity(board, PERCENT_THRESHOLD, Scale.PERCENT).single_crossings == (1, 4)


def test_each_shift_reports_its_exact_threshold():
    sensitivity = board_sensitivity(swapping_board(), Decimal("0.94"), Scale.FRACTION)

    assert [(shift.delta, shift.threshold) for shift in sensitivity.shifts] == [
        (-1.0, Decimal("0.93")),
        (-0.5, Decimal("0.935")),
        (0.5, Decimal("0.945")),
        (1.0, Decimal("0.95")),
    ]


def test_the_document_holds_the_apis_fields():
    document = board_sensitivity(swapping_board(), PERCENT_THRESHOLD, Scale.PERCENT).as_dict()

    assert document["threshold"] == 94.0
    assert document["single_crossings"] == []
    assert document["shifts"][2] == {
        "delta": 0.5,
        "threshold": 94.5,
        "kendall_tau": pytest.approx(4 / 6),
        "entries_ranked": 4,
        "largest_moves": [
            {"entry": 2, "official_rank": 2, "shifted_rank": 3, "move": -1},
            {"entry": 3, "official_rank": 3, "shifted_rank": 2, "move": 1},
        ],
        "dropped": 0,
    }
