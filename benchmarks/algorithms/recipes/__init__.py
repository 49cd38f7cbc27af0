"""The reference recipes' optimizers and schedules as algorithms behind AlgoPerf's functions (`spec`).

Each reference recipe (`benchmarks.workloads`) is a workload paired with an algorithm: the recipe names its own
(`Workload.algorithm`), a module here with AlgoPerf's `get_batch_size`, `init_optimizer_state`, `update_params` and
`data_selection`. The reference job (`benchmarks.runner.loop`) builds the optimizer state with
`init_optimizer_state` and takes each training step with `update_params`, on the batches it reads in its own order;
the recipe's settings (`Workload.config`) are the algorithm's hyperparameters. The `workload` those functions take
is a `RecipeTraining`: the recipe, the steps in an epoch of its schedule and the job's precision.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

import torch
from torch import nn

from benchmarks.algorithms import spec
from benchmarks.algorithms.recipes.common import RecipeTraining
from benchmarks.workloads.base import Workload

RECIPE_ALGORITHMS = ("digits_cnn", "cifar10_resnet9", "cifar10_resnet164", "imagenet_resnet50", "squad_bidaf")


def recipe_algorithm(name: str) -> ModuleType:
    """The algorithm module of this name. Raises KeyError for one not here."""
    if name not in RECIPE_ALGORITHMS:
        raise KeyError(name)
    return import_module(f"{__name__}.{name}")


def algorithm_of(recipe: Workload) -> ModuleType:
    """The algorithm the recipe is paired with."""
    return recipe_algorithm(recipe.algorithm)


def recipe_optimizer(
    recipe: Workload, model: nn.Module, steps_per_epoch: int
) -> tuple[torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler | None]:
    """The optimizer and scheduler the recipe's algorithm builds for `model` with the recipe's settings, its schedule
    `steps_per_epoch` steps an epoch: for a test or a bench that steps them by hand."""
    training = RecipeTraining(recipe, steps_per_epoch=steps_per_epoch)
    hyperparameters = spec.hyperparameters_of(recipe.config)
    state = algorithm_of(recipe).init_optimizer_state(training, model, None, hyperparameters, 0)
    return state["optimizer"], state["scheduler"]


__all__ = ["RECIPE_ALGORITHMS", "RecipeTraining", "algorithm_of", "recipe_algorithm", "recipe_optimizer"]
