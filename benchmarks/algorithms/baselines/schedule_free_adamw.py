"""Schedule-free AdamW (Defazio et al., "The Road Less Scheduled", 2024; first in AlgoPerf's 2024 self-tuning
track): no decay schedule to tune, only a warm-up. Written here from the paper's update:

    gradients are taken at y_t = (1 - beta1) z_t + beta1 x_t
    v_t     = beta2 v_{t-1} + (1 - beta2) g_t^2                   (Adam's second moment, bias-corrected)
    z_{t+1} = z_t - lr_t (g_t / (sqrt(v_t) + eps) + wd y_t)       (lr_t warmed up linearly)
    x_{t+1} = (1 - c_{t+1}) x_t + c_{t+1} z_{t+1},  c_{t+1} = lr_t^2 / sum of lr_i^2 so far

The model holds y while training and x while it is evaluated: `prepare_for_eval` swaps x in, and the next
`update_params` puts y back (AlgoPerf's API v0.6 added `prepare_for_eval` for methods like this one).
"""

from __future__ import annotations

import torch

from benchmarks.algorithms import spec
from benchmarks.algorithms.baselines.adamw import data_selection, get_batch_size
from benchmarks.algorithms.baselines.common import backward

__all__ = ["data_selection", "get_batch_size", "init_optimizer_state", "prepare_for_eval", "update_params"]

SELF_TUNING = {
    "learning_rate": 2e-3,
    "one_minus_beta1": 0.1,
    "beta2": 0.999,
    "warmup_factor": 0.05,
    "weight_decay": 0.01,
}


def init_optimizer_state(workload, model_params, model_state, hyperparameters, rng):
    hyperparameters = hyperparameters or spec.hyperparameters_of(SELF_TUNING)
    parameters = [parameter for parameter in model_params.parameters() if parameter.requires_grad]
    return {
        "hyperparameters": hyperparameters,
        "parameters": parameters,
        "z": [parameter.detach().clone() for parameter in parameters],
        "x": [parameter.detach().clone() for parameter in parameters],
        "v": [torch.zeros_like(parameter) for parameter in parameters],
        "step": 0,
        "lr_squares": 0.0,
        "holds_x": False,
        "warmup_steps": max(1, int(hyperparameters.warmup_factor * workload.step_hint)),
    }


def _set(parameters, values) -> None:
    with torch.no_grad():
        for parameter, value in zip(parameters, values, strict=True):
            parameter.copy_(value)


def _y(state) -> list[torch.Tensor]:
    beta1 = 1.0 - state["hyperparameters"].one_minus_beta1
    return [torch.lerp(z, x, beta1) for z, x in zip(state["z"], state["x"], strict=True)]


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
    state = optimizer_state
    point = state["hyperparameters"]
    if state["holds_x"]:  # evaluated at x: train at y again
        _set(state["parameters"], _y(state))
        state["holds_x"] = False
    for parameter in state["parameters"]:
        parameter.grad = None
    new_model_state = backward(workload, current_param_container, model_state, batch, rng)
    state["step"] += 1
    step, beta2 = state["step"], point.beta2
    lr = point.learning_rate * min(1.0, step / state["warmup_steps"])
    state["lr_squares"] += lr**2
    mix = lr**2 / state["lr_squares"]
    correction = (1.0 - beta2**step) ** 0.5
    with torch.no_grad():
        for parameter, z, x, v in zip(state["parameters"], state["z"], state["x"], state["v"], strict=True):
            if parameter.grad is None:
                continue
            v.mul_(beta2).addcmul_(parameter.grad, parameter.grad, value=1.0 - beta2)
            direction = parameter.grad / (v.sqrt() / correction + 1e-8) + point.weight_decay * parameter
            z.sub_(direction, alpha=lr)
            x.lerp_(z, mix)
            parameter.copy_(torch.lerp(z, x, 1.0 - point.one_minus_beta1))
    return state, current_param_container, new_model_state


def prepare_for_eval(
    workload,
    current_param_container,
    current_params_types,
    model_state,
    hyperparameters,
    loss_type,
    optimizer_state,
    eval_results,
    global_step,
    rng,
):
    """Put x, the averaged iterate, in the model for the evaluation."""
    _set(optimizer_state["parameters"], optimizer_state["x"])
    optimizer_state["holds_x"] = True
    return optimizer_state, current_param_container, model_state
