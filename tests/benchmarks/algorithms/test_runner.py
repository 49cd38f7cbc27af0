"""One trial on AlgoPerf's clock: the target judged as the scorer judges it, evaluation off the clock and
init_optimizer_state on it, the three ways a trial ends, and an AlgoPerf-style submission running with only its
imports changed."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from benchmarks.algorithms import spec
from benchmarks.algorithms.baselines import baseline
from benchmarks.algorithms.runner import algorithm_module, run_trial, workload_target
from benchmarks.algorithms.workloads import VARIANTS, WORKLOADS
from dawnboard.algorithms.scoring import time_to_target
from dawnboard.algorithms.trial_log import read_trial_log

POINT = {
    "learning_rate": 1e-3,
    "one_minus_beta1": 0.1,
    "beta2": 0.999,
    "warmup_factor": 0.05,
    "weight_decay": 0.1,
    "label_smoothing": 0.0,
}
SUBMISSION = Path(__file__).with_name("algoperf_style_submission.py")


@pytest.fixture(scope="module")
def tabular():
    return WORKLOADS["breast_cancer_mlp"]()


def test_a_trial_stops_at_the_target_and_its_log_gives_the_scorer_the_same_time(tabular):
    trial = run_trial(tabular, baseline("adamw"), POINT, seed=0)

    assert trial.stopped == "target" and trial.time_to_target_s is not None
    log = read_trial_log(trial.log)
    assert time_to_target(log, workload_target(tabular)) == trial.time_to_target_s == log.times[-1]
    assert log.steps[-1] == trial.steps and {"train/loss", "validation/loss"} <= set(log.columns)


def test_evaluation_is_off_the_clock_and_init_optimizer_state_is_on_it(tabular, monkeypatch):
    evaluate = tabular.evaluate

    def slow_evaluation(*args):
        time.sleep(0.05)
        return evaluate(*args)

    monkeypatch.setattr(tabular, "evaluate", slow_evaluation)
    adamw = baseline("adamw")

    def slow_init(*args):
        time.sleep(0.3)
        return adamw.init_optimizer_state(*args)

    algorithm = SimpleNamespace(**{name: getattr(adamw, name) for name in dir(adamw) if not name.startswith("_")})
    algorithm.__name__, algorithm.init_optimizer_state = "slow_init", slow_init
    started = time.perf_counter()

    trial = run_trial(tabular, algorithm, POINT, seed=0, budget_factor=0.2)

    wall = time.perf_counter() - started
    times = [row["accumulated_submission_time"] for row in trial.evaluations]
    assert times[0] >= 0.3  # the optimizer's set-up is timed
    assert len(times) >= 3 and times[-1] < wall - 0.05 * len(times) + 0.01  # the evaluations' sleeps are not


def test_a_trial_ends_at_the_budget_or_when_the_algorithm_says_it_is_done(tabular, monkeypatch):
    out_of_time = run_trial(
        WORKLOADS["diabetes_mlp"](),
        baseline("sgd_nesterov"),
        POINT | {"learning_rate": 1e-4},
        seed=0,
        budget_factor=0.02,
    )
    assert out_of_time.stopped == "budget" and out_of_time.time_to_target_s is None
    assert out_of_time.evaluations[-1]["accumulated_submission_time"] >= out_of_time.budget_s

    adamw = baseline("adamw")

    def update_three_times(*args, **kwargs):
        if args[9] >= 3:  # global_step
            raise spec.TrainingCompleteError
        return adamw.update_params(*args, **kwargs)

    algorithm = SimpleNamespace(**{name: getattr(adamw, name) for name in dir(adamw) if not name.startswith("_")})
    algorithm.__name__, algorithm.update_params = "three_steps", update_three_times
    # No evaluation falls due by the clock within three steps, however slow a busy machine makes them: the one
    # evaluation is the one a completed training takes.
    monkeypatch.setattr(tabular, "eval_period_time_sec", 1e9)
    done = run_trial(tabular, algorithm, POINT | {"learning_rate": 1e-6}, seed=0)
    assert (done.stopped, done.steps, len(done.evaluations)) == ("training complete", 3, 1)


def test_an_algoperf_style_submission_runs_with_only_its_imports_changed(tabular):
    submission = algorithm_module(str(SUBMISSION))

    trial = run_trial(tabular, submission, POINT, seed=0)

    assert trial.stopped == "target"


def test_a_module_without_algoperf_s_functions_or_a_name_that_is_neither_is_refused(tmp_path):
    empty = tmp_path / "empty.py"
    empty.write_text("def get_batch_size(name):\n    return 8\n")

    with pytest.raises(ValueError, match="lacks AlgoPerf's init_optimizer_state, update_params, data_selection"):
        algorithm_module(str(empty))
    with pytest.raises(ValueError, match="neither a shipped baseline"):
        algorithm_module("lion")


def test_parameter_types_follow_algoperf_s_convention_and_reading_them_moves_no_random_state():
    workload = WORKLOADS["madelon_mlp"]()
    torch.manual_seed(5)
    expected = torch.rand(1)
    torch.manual_seed(5)

    types = workload.model_params_types

    assert torch.equal(torch.rand(1), expected)
    assert types["0.weight"] is spec.ParameterType.WEIGHT and types["0.bias"] is spec.ParameterType.BIAS
    assert set(types) == set(workload.param_shapes)
    normed = spec.parameter_types(VARIANTS["madelon_mlp_layernorm"]().build_model())
    assert (normed["1.weight"], normed["1.bias"]) == (
        spec.ParameterType.LAYER_NORM_SCALE,
        spec.ParameterType.LAYER_NORM_BIAS,
    )
    digits = WORKLOADS["digits_cnn"]().model_params_types
    assert spec.ParameterType.CONV_WEIGHT in digits.values() and spec.ParameterType.BATCH_NORM_SCALE in digits.values()
