"""The ImageNet ResNet-50 recipe's algorithm (Goyal et al.'s): SGD with momentum, the learning rate scaled with the
batch (per 256 images), weight decay on all but the batch norms' scales and shifts (`norm_weight_decay` for those);
the learning rate ramps up linearly over the warm-up epochs and is multiplied by the decay factor at each decay
epoch (`learning_rate_factor`). Hyperparameters: the recipe's settings
(`benchmarks.workloads.imagenet.ResNet50ImageNet.defaults`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import torch
from torch import nn

from benchmarks.algorithms.recipes.common import (
    RecipeTraining,
    data_selection,
    hyperparameters_or_recipe,
    optimizer_state,
    update_params,
)
from benchmarks.workloads.common import piecewise_constant, piecewise_linear
from benchmarks.workloads.imagenet import ResNet50ImageNet


def get_batch_size(workload_name: str) -> int:
    return int(ResNet50ImageNet.defaults["batch_size"])


def learning_rate_factor(
    step: int, steps_per_epoch: int, warmup_epochs: float, decay_epochs: Sequence[float], decay_factor: float
) -> float:
    """The learning rate at `step` (counted from 0) as a fraction of the peak: a linear ramp reaching the
    peak at the last step of the warmup (so step 0 already moves), then `decay_factor` once for each of
    `decay_epochs` reached.

    Goyal et al. ramp from 0.1 to 0.1 * batch_size / 256, which at batch size 256 is no warmup at all;
    like NVIDIA's and MLPerf's references, this ramps from near zero whatever the batch size.
    """
    warmup = piecewise_linear(step + 1, (0, warmup_epochs * steps_per_epoch), (0.0, 1.0))
    decays = [decay_factor**count for count in range(len(decay_epochs) + 1)]
    return warmup * piecewise_constant(step / steps_per_epoch, decay_epochs, decays)


def init_optimizer_state(workload: RecipeTraining, model_params, model_state, hyperparameters, rng):
    settings = hyperparameters_or_recipe(workload, hyperparameters)
    norm_parameters = [
        parameter
        for module in model_params.modules()
        if isinstance(module, nn.modules.batchnorm._BatchNorm)
        for parameter in module.parameters(recurse=False)
    ]
    norm_ids = {id(parameter) for parameter in norm_parameters}
    other_parameters = [parameter for parameter in model_params.parameters() if id(parameter) not in norm_ids]
    optimizer = torch.optim.SGD(
        [
            {"params": other_parameters, "weight_decay": float(settings.weight_decay)},
            {"params": norm_parameters, "weight_decay": float(settings.norm_weight_decay)},
        ],
        lr=float(settings.learning_rate_per_256) * int(settings.batch_size) / 256,
        momentum=float(settings.momentum),
        nesterov=bool(settings.nesterov),
    )
    schedule = partial(
        learning_rate_factor,
        steps_per_epoch=workload.steps_per_epoch,
        warmup_epochs=float(settings.warmup_epochs),
        decay_epochs=tuple(settings.decay_epochs),
        decay_factor=float(settings.decay_factor),
    )
    return optimizer_state(optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, schedule))


__all__ = ["data_selection", "get_batch_size", "init_optimizer_state", "update_params"]
