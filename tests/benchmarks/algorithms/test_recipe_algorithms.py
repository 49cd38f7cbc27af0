"""The reference recipes' algorithms: each recipe names one, with AlgoPerf's functions, that steps it."""

from __future__ import annotations

import pytest
import torch

from benchmarks.algorithms import spec
from benchmarks.algorithms.recipes import (
    RECIPE_ALGORITHMS,
    RecipeTraining,
    algorithm_of,
    recipe_algorithm,
    recipe_optimizer,
)
from benchmarks.workloads import IMPLEMENTATIONS, workload_class
from benchmarks.workloads.digits import DigitsCNNWorkload

ALGOPERF_FUNCTIONS = ("get_batch_size", "init_optimizer_state", "update_params", "data_selection")


@pytest.mark.parametrize("recipe", sorted(IMPLEMENTATIONS))
def test_every_recipe_is_paired_with_an_algorithm_with_algoperf_s_functions(recipe):
    algorithm = algorithm_of(workload_class(*recipe)(None))

    assert all(callable(getattr(algorithm, name, None)) for name in ALGOPERF_FUNCTIONS)
    assert algorithm.get_batch_size(f"{recipe[0]}_{recipe[1]}") == workload_class(*recipe).defaults["batch_size"]


def test_every_recipe_algorithm_is_some_recipe_s():
    assert sorted(workload_class(*recipe).algorithm for recipe in IMPLEMENTATIONS) == sorted(RECIPE_ALGORITHMS)


def test_an_unknown_algorithm_is_refused():
    with pytest.raises(KeyError):
        recipe_algorithm("adamw")


def test_update_params_takes_one_step_of_the_recipe_s_loss_and_schedule():
    recipe = DigitsCNNWorkload(None, {"warmup_epochs": 1, "epochs": 2})
    recipe.load()
    torch.manual_seed(0)
    model = recipe.build_model()
    training = RecipeTraining(recipe, steps_per_epoch=4)
    algorithm = algorithm_of(recipe)
    hyperparameters = spec.hyperparameters_of(recipe.config)
    state = algorithm.init_optimizer_state(training, model, None, hyperparameters, 0)
    batch = recipe.collate(list(range(8)))
    before = [parameter.detach().clone() for parameter in model.parameters()]

    state, returned, _ = algorithm.update_params(
        training, model, None, None, hyperparameters, batch, None, state, [], 0, 0
    )

    assert returned is model
    assert training.last_loss is not None and not training.last_loss.requires_grad
    assert any(not torch.equal(old, new) for old, new in zip(before, model.parameters(), strict=True))
    assert state["optimizer"].param_groups[0]["lr"] == pytest.approx(0.05 * (0.1 + 0.9 / 4))


def test_recipe_optimizer_gives_what_the_algorithm_builds_with_the_recipe_s_settings():
    optimizer, scheduler = recipe_optimizer(DigitsCNNWorkload(None), torch.nn.Linear(2, 2), steps_per_epoch=10)

    assert optimizer.param_groups[0]["nesterov"] is True
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.005)  # a tenth of the peak at step 0
    assert scheduler is not None
