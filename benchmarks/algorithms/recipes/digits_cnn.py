"""The digits CNN recipe's algorithm: SGD with Nesterov momentum and weight decay; the learning rate rises linearly
from a tenth of its peak to the peak over the warm-up epochs, then falls linearly to zero at the last epoch, per
step. Hyperparameters: the recipe's settings (`benchmarks.workloads.digits.DigitsCNNWorkload.defaults`)."""

from __future__ import annotations

import torch

from benchmarks.algorithms.recipes.common import (
    RecipeTraining,
    data_selection,
    hyperparameters_or_recipe,
    optimizer_state,
    update_params,
)
from benchmarks.workloads.common import piecewise_linear
from benchmarks.workloads.digits import DigitsCNNWorkload


def get_batch_size(workload_name: str) -> int:
    return int(DigitsCNNWorkload.defaults["batch_size"])


def init_optimizer_state(workload: RecipeTraining, model_params, model_state, hyperparameters, rng):
    settings = hyperparameters_or_recipe(workload, hyperparameters)
    optimizer = torch.optim.SGD(
        model_params.parameters(),
        lr=1.0,  # the scheduler's factor is the learning rate itself
        momentum=settings.momentum,
        nesterov=True,
        weight_decay=settings.weight_decay,
    )
    steps_per_epoch = workload.steps_per_epoch
    knots = (0, settings.warmup_epochs * steps_per_epoch, int(settings.epochs) * steps_per_epoch)
    values = (settings.lr_peak / 10, settings.lr_peak, 0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: piecewise_linear(step, knots, values))
    return optimizer_state(optimizer, schedule)


__all__ = ["data_selection", "get_batch_size", "init_optimizer_state", "update_params"]
