"""The DAWNBench paper's studies on the runner: a plan checked before anything runs, each refusal with its code, and
every run of every value recorded with its time, epochs, steps and throughput."""

from __future__ import annotations

import pytest

from benchmarks.algorithms.study import StudyError, run_study, study_plan, study_workload


@pytest.mark.parametrize(
    ("task", "vary", "runs", "code"),
    [
        ("mnist", "batch_size=32,64", 1, "invalid_workload"),
        ("digits", "learning_rate=0.1,0.2", 1, "invalid_setting"),
        ("digits", "batch_size", 1, "invalid_setting"),
        ("digits", "batch_size=32", 1, "invalid_setting"),
        ("digits", "batch_size=32,32", 1, "invalid_setting"),
        ("digits", "batch_size=32,0", 1, "invalid_setting"),
        ("digits", "batch_size=32,big", 1, "invalid_setting"),
        ("digits", "batch_size=32,64", 0, "invalid_setting"),
        ("digits", "algorithm=adamw,rmsprop", 1, "invalid_algorithm"),
    ],
)
def test_a_plan_that_cannot_run_is_refused_with_its_code(task, vary, runs, code):
    with pytest.raises(StudyError) as refused:
        study_plan(task=task, vary=vary, runs=runs)
    assert refused.value.code == code


def test_a_task_slug_names_its_workload():
    assert [study_workload(task) for task in ("digits", "cifar10", "madelon_mlp")] == [
        "digits_cnn", "cifar10_resnet9", "madelon_mlp",
    ]  # fmt: skip


def test_a_batch_size_study_records_every_run_of_every_value():
    plan = study_plan(task="breast_cancer_mlp", vary="batch_size=16,64", runs=2)
    runs = run_study(plan)

    expected = [(16, 0, 16), (16, 1, 16), (64, 0, 64), (64, 1, 64)]
    assert [(run.value, run.seed, run.batch_size) for run in runs] == expected
    for run in runs:
        assert run.reached and run.time_to_target_s > 0 and run.steps > 0 and run.throughput_examples_per_s > 0
        assert run.epochs_to_target == pytest.approx(run.steps * run.batch_size / 426)  # the training rows


def test_an_algorithm_study_runs_each_algorithm_at_its_own_batch_size():
    plan = study_plan(task="breast_cancer_mlp", vary="algorithm=adamw,sgd_nesterov", runs=1)
    runs = run_study(plan)

    assert plan.algorithm == "" and [run.value for run in runs] == ["adamw", "sgd_nesterov"]
    assert all(run.batch_size == 32 for run in runs)  # both baselines' size for this workload
