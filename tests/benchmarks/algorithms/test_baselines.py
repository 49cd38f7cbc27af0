"""The shipped baselines: each an AlgoPerf-style module with a search space that reads, each reaching quick targets
under self-tuning; schedule-free AdamW evaluated at its averaged iterate and trained at its interpolation."""

from __future__ import annotations

import pytest
import torch

from benchmarks.algorithms.baselines import BASELINES, baseline, search_space
from benchmarks.algorithms.runner import run_trial
from benchmarks.algorithms.workloads import WORKLOADS
from tests.benchmarks.algorithms.test_workloads import step_by_step


@pytest.mark.parametrize("name", BASELINES)
def test_each_baseline_reads_its_search_space_and_reaches_quick_targets_under_self_tuning(name):
    trials = search_space(name).trials(3, seed=0)
    assert len(trials) == 3 and all(trial["learning_rate"] > 0 for trial in trials)

    for workload in ("breast_cancer_mlp", "digits_cnn"):
        trial = run_trial(step_by_step(WORKLOADS[workload]()), baseline(name), None, seed=0, budget_factor=1.5)
        assert trial.stopped == "target", (name, workload)


def test_schedule_free_adamw_is_evaluated_at_x_and_trained_at_y():
    workload = WORKLOADS["breast_cancer_mlp"]()
    algorithm = baseline("schedule_free_adamw")
    model, state = workload.init_model_fn(0)
    optimizer = algorithm.init_optimizer_state(workload, model, state, None, 0)
    queue = workload._build_input_queue(0, "train", None, 32)
    for step in range(5):
        batch = algorithm.data_selection(workload, queue, optimizer, model, state, None, step, 0)
        optimizer, model, state = algorithm.update_params(
            workload, model, {}, state, None, batch, workload.loss_type, optimizer, [], step, 0
        )
    beta1 = 1.0 - optimizer["hyperparameters"].one_minus_beta1
    first = next(model.parameters())
    assert torch.allclose(first, torch.lerp(optimizer["z"][0], optimizer["x"][0], beta1))  # y while training

    optimizer, model, state = algorithm.prepare_for_eval(
        workload, model, {}, state, None, workload.loss_type, optimizer, [], 5, 0
    )
    assert torch.equal(next(model.parameters()), optimizer["x"][0]) and not torch.equal(
        optimizer["x"][0], optimizer["z"][0]
    )

    batch = algorithm.data_selection(workload, queue, optimizer, model, state, None, 5, 0)
    optimizer, model, state = algorithm.update_params(
        workload, model, {}, state, None, batch, workload.loss_type, optimizer, [], 5, 0
    )
    assert not optimizer["holds_x"]
    assert torch.allclose(next(model.parameters()), torch.lerp(optimizer["z"][0], optimizer["x"][0], beta1))
