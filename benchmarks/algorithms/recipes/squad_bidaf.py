"""The SQuAD BiDAF recipe's algorithm: Adadelta (rho 0.95, eps 1e-8; Seo et al.'s) or Adam, at a constant learning
rate. Hyperparameters: the recipe's settings (`benchmarks.workloads.squad.BiDAFSquad.defaults`: `optimizer`,
`learning_rate`)."""

from __future__ import annotations

import torch

from benchmarks.algorithms.recipes.common import (
    RecipeTraining,
    data_selection,
    hyperparameters_or_recipe,
    optimizer_state,
    update_params,
)
from benchmarks.workloads.squad import BiDAFSquad


def get_batch_size(workload_name: str) -> int:
    return int(BiDAFSquad.defaults["batch_size"])


def init_optimizer_state(workload: RecipeTraining, model_params, model_state, hyperparameters, rng):
    settings = hyperparameters_or_recipe(workload, hyperparameters)
    learning_rate = float(settings.learning_rate)
    if settings.optimizer == "adam":
        optimizer: torch.optim.Optimizer = torch.optim.Adam(model_params.parameters(), lr=learning_rate)
    else:
        optimizer = torch.optim.Adadelta(model_params.parameters(), lr=learning_rate, rho=0.95, eps=1e-8)
    return optimizer_state(optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0))


__all__ = ["data_selection", "get_batch_size", "init_optimizer_state", "update_params"]
