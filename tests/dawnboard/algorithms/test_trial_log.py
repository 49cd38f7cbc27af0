"""A trial's evaluation log: written and read back, AlgoPerf's own layout read, and every broken log refused with a
code naming the line."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dawnboard.algorithms.trial_log import read_trial_log, write_trial_log
from dawnboard.errors import RejectedInput

# The first rows of a real AlgoPerf log (mlcommons/algorithmic-efficiency, scoring/test_data/experiment_dir/study_0/
# mnist_jax/trial_0/eval_measurements.csv, commit 764af759), cut to a few columns of its header.
ALGOPERF = (
    b"accumulated_eval_time,accumulated_submission_time,global_step,preemption_count,validation/accuracy,"
    b"validation/loss\n"
    b"3.8028581142425537,10.639662742614746,1,0,0.0911000072956085,2.4753551483154297\n"
    b"3.8363890647888175,10.64648413658142,2,0,0.0949000045657157,2.4468352794647217\n"
)


def refused(data: bytes) -> list[tuple[str, int | None]]:
    with pytest.raises(RejectedInput) as error:
        read_trial_log(data, file_name="trial_0/eval_measurements.csv")
    return [(issue.code, issue.line) for issue in error.value.issues]


def test_a_log_written_is_read_back_with_every_column_and_empty_cells_as_nan():
    rows = [
        {"accumulated_submission_time": 1.5, "global_step": 10, "validation/accuracy": 0.25, "train/loss": 2.0},
        {"accumulated_submission_time": 3.25, "global_step": 20, "validation/accuracy": 0.5},  # no train/loss
    ]

    log = read_trial_log(write_trial_log(rows))

    assert list(log.columns) == ["accumulated_submission_time", "global_step", "validation/accuracy", "train/loss"]
    assert log.times.tolist() == [1.5, 3.25] and log.steps.tolist() == [10, 20]
    assert log.metric("validation/accuracy").tolist() == [0.25, 0.5]
    assert log.metric("train/loss")[0] == 2.0 and math.isnan(log.metric("train/loss")[1])
    assert np.isnan(log.metric("validation/ssim")).all() and len(log) == 2


def test_algoperf_s_own_log_is_read_as_it_is():
    log = read_trial_log(ALGOPERF)

    assert log.times.tolist() == [10.639662742614746, 10.64648413658142]
    assert log.metric("validation/accuracy")[1] == pytest.approx(0.0949000045657157)
    assert log.columns["preemption_count"].tolist() == [0, 0]


def test_pandas_index_column_is_skipped():
    log = read_trial_log(b",accumulated_submission_time,global_step,validation/accuracy\n0,1.0,1,0.5\n1,2.0,2,0.6\n")

    assert log.times.tolist() == [1.0, 2.0] and "" not in log.columns


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", [("empty_log", None)]),
        (b"accumulated_submission_time,global_step\n", [("empty_log", None)]),
        (b"global_step,validation/accuracy\n1,0.5\n", [("missing_column", None)]),
        (b"accumulated_submission_time,global_step,global_step\n1,1,1\n", [("duplicate_column", None)]),
        (b"accumulated_submission_time,global_step,validation/accuracy\n1,1,0.5\n2,2\n", [("wrong_cell_count", 3)]),
        (b"accumulated_submission_time,global_step\n1,1\nsoon,2\n", [("non_numeric_cell", 3)]),
        (b"accumulated_submission_time,global_step\n1,1\ninf,2\n", [("non_finite_cell", 3)]),
        (b"accumulated_submission_time,global_step\n1,1\n,2\n", [("non_finite_cell", 3)]),
        (b"accumulated_submission_time,global_step\n5,1\n4,2\n", [("submission_time_decreasing", 3)]),
        (b"accumulated_submission_time,global_step\n1,10\n2,9\n", [("step_decreasing", 3)]),
        (b"\xff\xfeaccumulated", [("not_utf8", None)]),
    ],
    ids=[
        "empty",
        "header only",
        "no time column",
        "a column twice",
        "a row cut short",
        "a word for a time",
        "an infinite time",
        "an empty time",
        "time runs backwards",
        "steps run backwards",
        "not utf-8",
    ],
)
def test_a_broken_log_is_refused_with_a_code_naming_the_line(data, expected):
    assert refused(data) == expected
