"""A submission's logs in AlgoPerf's layout: found by path (framework suffix dropped), their gaps refused in a bundle
and warned of in AlgoPerf's published results, broken logs refused naming the path, and the times checked by hand."""

from __future__ import annotations

import math

import pytest

from dawnboard.algorithms.results import read_results
from dawnboard.algorithms.scoring import Target
from dawnboard.algorithms.trial_log import write_trial_log
from dawnboard.errors import RejectedInput

TARGET = {"mnist": Target("validation/accuracy", 0.9), "wmt": Target("validation/bleu", 30.0)}


def log(*points: tuple[float, float], metric: str = "validation/accuracy") -> bytes:
    rows = [{"accumulated_submission_time": t, "global_step": 10 * i, metric: v} for i, (t, v) in enumerate(points)]
    return write_trial_log(rows)


def layout(trials: dict[tuple[int, str, int], bytes | None], submission: str = "nadamw") -> dict[str, bytes]:
    files = {}
    for (study, workload, trial), data in trials.items():
        folder = f"{submission}/study_{study}/{workload}/trial_{trial}"
        files[folder] = b""  # the folder itself, as an archive lists it
        if data is not None:
            files[f"{folder}/eval_measurements.csv"] = data
    return files


def test_times_are_the_median_over_studies_of_the_fastest_trial_and_the_framework_suffix_is_dropped():
    files = layout(
        {
            (0, "mnist_jax", 0): log((10, 0.5), (20, 0.95)),
            (0, "mnist_jax", 1): log((5, 0.92)),
            (1, "mnist_jax", 0): log((30, 0.91)),
            (1, "mnist_jax", 1): log((40, 0.5)),
            (2, "mnist_jax", 0): log((50, 0.2)),
            (2, "mnist_jax", 1): log((60, 0.3)),
            (0, "wmt_jax", 0): log((100, 31.0), metric="validation/bleu"),
            (0, "wmt_jax", 1): log((90, 29.0), metric="validation/bleu"),
            (1, "wmt_jax", 0): log((80, 30.0), metric="validation/bleu"),
            (1, "wmt_jax", 1): log((70, 10.0), metric="validation/bleu"),
            (2, "wmt_jax", 0): log((60, 35.0), metric="validation/bleu"),
            (2, "wmt_jax", 1): log((50, 36.0), metric="validation/bleu"),
        }
    )

    read = read_results(files, workloads=["mnist", "wmt"], studies=3, trials=2, strict=True)

    assert read.warnings == [] and list(read.submissions) == ["nadamw"]
    # mnist: studies 5, 30 and never -> median 30; wmt: studies 100, 80 and 50 -> median 80.
    assert read.submissions["nadamw"].times(TARGET, studies=3) == {"mnist": 30.0, "wmt": 80.0}


def test_gaps_are_warnings_on_published_results_and_count_as_never_reached():
    files = layout(
        {
            (0, "mnist_pytorch", 0): log((10, 0.95)),
            (0, "mnist_pytorch", 1): None,  # crashed before writing its log
            (1, "mnist_pytorch", 0): log((20, 0.95)),  # a study of one trial
        }
    )

    read = read_results(files, workloads=["mnist", "wmt"], studies=3, trials=2, strict=False)

    codes = [issue.code for issue in read.warnings]
    assert codes == ["missing_trial_log", "missing_trial", "missing_study", "missing_workload"]
    assert "nadamw/study_0/mnist/trial_1" in read.warnings[0].message
    times = read.submissions["nadamw"].times(TARGET, studies=3)
    assert times == {"mnist": 20.0, "wmt": math.inf}  # studies 10, 20 and a missing one: median 20


def test_the_same_gaps_refuse_a_bundle():
    files = layout({(0, "mnist", 0): log((10, 0.95))})

    with pytest.raises(RejectedInput) as refused:
        read_results(files, workloads=["mnist"], studies=2, trials=2, strict=True)

    assert [issue.code for issue in refused.value.issues] == ["missing_trial", "missing_study"]


def test_a_broken_log_is_refused_naming_its_path_whatever_the_strictness():
    files = layout({(0, "mnist", 0): b"accumulated_submission_time,global_step\n5,1\n4,2\n"})

    with pytest.raises(RejectedInput) as refused:
        read_results(files, workloads=["mnist"], studies=1, trials=1, strict=False)

    (issue,) = refused.value.issues
    assert issue.code == "submission_time_decreasing"
    assert issue.message.startswith("nadamw/study_0/mnist/trial_0/eval_measurements.csv, line 3")


def test_other_files_are_ignored_and_several_submissions_are_read_apart():
    files = layout({(0, "mnist", 0): log((10, 0.95))}) | layout({(0, "mnist", 0): log((12, 0.95))}, "adamw")
    files |= {"results.json": b"{}", "nadamw/study_0/mnist/trial_0/hyperparameters.json": b"{}"}

    read = read_results(files, workloads=["mnist"], studies=1, trials=1, strict=True)

    assert {name: logs.times(TARGET, studies=1)["mnist"] for name, logs in read.submissions.items()} == {
        "adamw": 12.0,
        "nadamw": 10.0,
    }
