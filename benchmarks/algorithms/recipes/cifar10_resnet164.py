"""The CIFAR-10 ResNet-164 recipe's algorithm (the DAWN team's reference): SGD with momentum and weight decay; the
learning rate per epoch is the warm-up rate for the warm-up epochs, then the peak, multiplied by the decay factor at
each decay epoch (`ResNet164Cifar10.lr_boundaries_epochs`). Hyperparameters: the recipe's settings
(`benchmarks.workloads.cifar10.ResNet164Cifar10.defaults`)."""

from __future__ import annotations

import torch

from benchmarks.algorithms.recipes.common import (
    RecipeTraining,
    data_selection,
    hyperparameters_or_recipe,
    optimizer_state,
    update_params,
)
from benchmarks.workloads.cifar10 import ResNet164Cifar10
from benchmarks.workloads.common import piecewise_constant


def get_batch_size(workload_name: str) -> int:
    return int(ResNet164Cifar10.defaults["batch_size"])


def init_optimizer_state(workload: RecipeTraining, model_params, model_state, hyperparameters, rng):
    settings = hyperparameters_or_recipe(workload, hyperparameters)
    lr = float(settings.lr)
    optimizer = torch.optim.SGD(
        model_params.parameters(),
        lr=lr,
        momentum=float(settings.momentum),
        weight_decay=float(settings.weight_decay),
    )
    boundaries = workload.recipe.lr_boundaries_epochs()
    decay = float(settings.lr_decay_factor)
    factors = [float(settings.warmup_lr) / lr] + [decay**count for count in range(len(boundaries))]
    steps_per_epoch = workload.steps_per_epoch
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: piecewise_constant(step // steps_per_epoch, boundaries, factors)
    )
    return optimizer_state(optimizer, scheduler)


__all__ = ["data_selection", "get_batch_size", "init_optimizer_state", "update_params"]
