"""The CIFAR-10 ResNet-9 recipe's algorithm (Page's): SGD with Nesterov momentum on the summed loss, so the learning
rate is divided by the batch and the weight decay multiplied by it; the learning rate rises linearly from 0 to its
peak over the warm-up epochs and falls linearly to 0 at the last epoch, per step. Hyperparameters: the recipe's
settings (`benchmarks.workloads.cifar10.ResNet9Cifar10.defaults`)."""

from __future__ import annotations

import torch

from benchmarks.algorithms.recipes.common import (
    RecipeTraining,
    data_selection,
    hyperparameters_or_recipe,
    optimizer_state,
    update_params,
)
from benchmarks.workloads.cifar10 import ResNet9Cifar10
from benchmarks.workloads.common import piecewise_linear


def get_batch_size(workload_name: str) -> int:
    return int(ResNet9Cifar10.defaults["batch_size"])


def init_optimizer_state(workload: RecipeTraining, model_params, model_state, hyperparameters, rng):
    settings = hyperparameters_or_recipe(workload, hyperparameters)
    batch_size = int(settings.batch_size)
    optimizer = torch.optim.SGD(
        model_params.parameters(),
        lr=float(settings.lr_peak) / batch_size,
        momentum=float(settings.momentum),
        nesterov=bool(settings.nesterov),
        weight_decay=float(settings.weight_decay) * batch_size,
    )
    steps_per_epoch = workload.steps_per_epoch
    knots = (0.0, float(settings.warmup_epochs), float(int(settings.epochs)))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: piecewise_linear(step / steps_per_epoch, knots, (0.0, 1.0, 0.0))
    )
    return optimizer_state(optimizer, scheduler)


__all__ = ["data_selection", "get_batch_size", "init_optimizer_state", "update_params"]
