"""NAdamW (Nesterov-accelerated Adam with decoupled weight decay), linear warm-up and cosine decay: AlgoPerf's
strongest external-tuning baseline, as an AlgoPerf-style submission."""

from __future__ import annotations

import torch

from benchmarks.algorithms import spec
from benchmarks.algorithms.baselines.adamw import data_selection, get_batch_size, update_params
from benchmarks.algorithms.baselines.common import warmup_cosine

__all__ = ["data_selection", "get_batch_size", "init_optimizer_state", "update_params"]

SELF_TUNING = {
    "learning_rate": 2e-3,
    "one_minus_beta1": 0.1,
    "beta2": 0.999,
    "warmup_factor": 0.05,
    "weight_decay": 0.01,
}


def init_optimizer_state(workload, model_params, model_state, hyperparameters, rng):
    hyperparameters = hyperparameters or spec.hyperparameters_of(SELF_TUNING)
    optimizer = torch.optim.NAdam(
        model_params.parameters(),
        lr=hyperparameters.learning_rate,
        betas=(1.0 - hyperparameters.one_minus_beta1, hyperparameters.beta2),
        eps=1e-8,
        weight_decay=hyperparameters.weight_decay,
        decoupled_weight_decay=True,
    )
    return {
        "optimizer": optimizer,
        "scheduler": warmup_cosine(optimizer, workload.step_hint, hyperparameters.warmup_factor),
    }
