"""AdamW with linear warm-up and cosine decay: an AlgoPerf-style submission (the functions and signatures of
AlgoPerf's PyTorch API, `benchmarks.algorithms.spec`)."""

from __future__ import annotations

import torch

from benchmarks.algorithms import spec
from benchmarks.algorithms.baselines.common import backward, warmup_cosine

BATCH_SIZES = {
    "breast_cancer_mlp": 32,
    "diabetes_mlp": 32,
    "madelon_mlp": 128,
    "friedman_mlp": 128,
    "pydoc_transformer": 32,
}


def get_batch_size(workload_name: str) -> int:
    return BATCH_SIZES.get(workload_name, 64)


# Under self-tuning (no hyperparameters given): a point of the search space that does well across the CPU suite.
SELF_TUNING = {
    "learning_rate": 1e-3,
    "one_minus_beta1": 0.1,
    "beta2": 0.999,
    "warmup_factor": 0.05,
    "weight_decay": 0.01,
    "label_smoothing": 0.0,
}


def init_optimizer_state(workload, model_params, model_state, hyperparameters, rng):
    hyperparameters = hyperparameters or spec.hyperparameters_of(SELF_TUNING)
    optimizer = torch.optim.AdamW(
        model_params.parameters(),
        lr=hyperparameters.learning_rate,
        betas=(1.0 - hyperparameters.one_minus_beta1, hyperparameters.beta2),
        eps=1e-8,
        weight_decay=hyperparameters.weight_decay,
    )
    return {
        "optimizer": optimizer,
        "scheduler": warmup_cosine(optimizer, workload.step_hint, hyperparameters.warmup_factor),
    }


def update_params(
    workload,
    current_param_container,
    current_params_types,
    model_state,
    hyperparameters,
    batch,
    loss_type,
    optimizer_state,
    eval_results,
    global_step,
    rng,
):
    optimizer_state["optimizer"].zero_grad()
    label_smoothing = getattr(hyperparameters, "label_smoothing", 0.0)  # None (self-tuning): 0
    new_model_state = backward(
        workload, current_param_container, model_state, batch, rng, label_smoothing=label_smoothing
    )
    optimizer_state["optimizer"].step()
    optimizer_state["scheduler"].step()
    return optimizer_state, current_param_container, new_model_state


def data_selection(
    workload, input_queue, optimizer_state, current_param_container, model_state, hyperparameters, global_step, rng
):
    return next(input_queue)
