"""SGD with Nesterov momentum, linear warm-up and cosine decay: an AlgoPerf-style submission."""

from __future__ import annotations

import torch

from benchmarks.algorithms import spec
from benchmarks.algorithms.baselines.adamw import data_selection, get_batch_size, update_params
from benchmarks.algorithms.baselines.common import warmup_cosine

__all__ = ["data_selection", "get_batch_size", "init_optimizer_state", "update_params"]


SELF_TUNING = {"learning_rate": 0.05, "one_minus_beta1": 0.1, "warmup_factor": 0.05, "weight_decay": 1e-4}


def init_optimizer_state(workload, model_params, model_state, hyperparameters, rng):
    hyperparameters = hyperparameters or spec.hyperparameters_of(SELF_TUNING)
    optimizer = torch.optim.SGD(
        model_params.parameters(),
        lr=hyperparameters.learning_rate,
        momentum=1.0 - hyperparameters.one_minus_beta1,
        nesterov=True,
        weight_decay=hyperparameters.weight_decay,
    )
    return {
        "optimizer": optimizer,
        "scheduler": warmup_cosine(optimizer, workload.step_hint, hyperparameters.warmup_factor),
    }
