"""The curve kept for charts: a short log whole, a long one thinned to its envelope, the crossing always kept."""

from __future__ import annotations

import numpy as np

from dawnboard.curve import MAX_CURVE_POINTS, curve_point_indices


def test_a_short_log_keeps_every_row_in_file_order(submit, training_log):
    result = submit(log=training_log())

    assert [(point.epoch, point.hours, point.metric, point.line) for point in result.runs[0].curve] == [
        (0, 0.01, 60.5, 2),
        (1, 0.02, 85.25, 3),
        (2, 0.03, 93.5, 4),
        (3, 0.04, 94.25, 5),
        (4, 0.05, 94.75, 6),
    ]


def test_a_log_of_max_curve_points_rows_is_kept_whole():
    metric = np.linspace(10.0, 95.0, MAX_CURVE_POINTS)

    assert list(curve_point_indices(metric, keep=None)) == list(range(MAX_CURVE_POINTS))


def long_noisy_log(rows: int, crossing_row: int) -> tuple[bytes, np.ndarray]:
    """A log whose accuracy wanders below 94 until `crossing_row`, hits exactly 94 there, then wanders above."""
    rng = np.random.default_rng(7)
    metric = np.round(rng.uniform(40.0, 93.5, rows), 2)
    metric[crossing_row] = 94.0
    metric[crossing_row + 1 :] = np.round(rng.uniform(94.1, 96.0, rows - crossing_row - 1), 2)
    hours = np.arange(1, rows + 1) / 1000
    lines = ["epoch\thours\ttop1Accuracy"] + [
        f"{i}\t{hour!r}\t{value!r}" for i, (hour, value) in enumerate(zip(hours.tolist(), metric.tolist(), strict=True))
    ]
    return ("\n".join(lines) + "\n").encode(), metric


def test_a_long_log_is_thinned_keeping_first_last_and_crossing_in_order(submit):
    rows, crossing_row = 100_000, 61_234
    log, metric = long_noisy_log(rows, crossing_row)

    result = submit(log=log)

    assert result.accepted
    assert result.runs[0].log_row_count == rows
    lines = [point.line for point in result.runs[0].curve]
    assert len(lines) <= MAX_CURVE_POINTS + 3
    assert lines == sorted(set(lines))
    assert lines[0] == 2
    assert lines[-1] == rows + 1
    assert result.results.time_to_accuracy_line == crossing_row + 2
    assert crossing_row + 2 in lines
    assert max(point.metric for point in result.runs[0].curve) == metric.max()
    assert min(point.metric for point in result.runs[0].curve) == metric.min()


def test_thinned_curve_points_match_their_log_rows(submit):
    log, metric = long_noisy_log(10_000, 5_000)

    result = submit(log=log)

    for point in result.runs[0].curve:
        row = point.line - 2
        assert point.epoch == row
        assert point.metric == metric[row]
        assert point.hours == (row + 1) / 1000


def test_curve_point_indices_keep_the_given_row_of_a_long_series():
    metric = np.full(50_000, 50.0)
    metric[123] = 10.0

    indices = curve_point_indices(metric, keep=31_337)

    assert {0, 123, 31_337, 49_999} <= set(indices.tolist())
    assert len(indices) <= MAX_CURVE_POINTS
