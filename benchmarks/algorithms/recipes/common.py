"""What the reference recipes' algorithms share: the recipe as they see it in the reference job (AlgoPerf's
`workload` argument), and AlgoPerf's `update_params` and `data_selection` for an optimizer stepped with a
scheduler once per training step."""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager
from typing import Any

import torch
from torch import nn

from benchmarks.algorithms import spec
from benchmarks.workloads.base import Batch, Workload


class RecipeTraining:
    """A reference recipe as its algorithm sees it: the `workload` that AlgoPerf's functions take.

    Args:
        recipe: the recipe (`benchmarks.workloads`), whose `config` holds the algorithm's hyperparameters too.
        steps_per_epoch: training steps in one epoch of the recipe's schedule (the job counts them: echoing and
            data parallelism change them).
        mixed_precision: the job's precision context, entered around each forward pass and loss.
    """

    def __init__(
        self,
        recipe: Workload,
        *,
        steps_per_epoch: int,
        mixed_precision: AbstractContextManager[Any] | None = None,
    ):
        self.recipe = recipe
        self.steps_per_epoch = steps_per_epoch
        self.mixed_precision = mixed_precision if mixed_precision is not None else contextlib.nullcontext()
        self.last_loss: torch.Tensor | None = None  # the latest training loss, detached, for the job's curve

    @property
    def step_hint(self) -> int:
        """The steps the recipe's schedule spans (AlgoPerf's `step_hint`)."""
        return self.recipe.epochs * self.steps_per_epoch

    def loss(self, model: nn.Module, batch: Batch) -> torch.Tensor:
        """The recipe's training loss of one prepared batch, under the job's precision; kept as `last_loss`."""
        with self.mixed_precision:
            loss = self.recipe.loss(model, batch)
        self.last_loss = loss.detach()
        return loss


def hyperparameters_or_recipe(workload: RecipeTraining, hyperparameters: spec.Hyperparameters | None):
    """The hyperparameters given, or (given none) the recipe's own settings."""
    return hyperparameters if hyperparameters is not None else spec.hyperparameters_of(workload.recipe.config)


def optimizer_state(
    optimizer: torch.optim.Optimizer, scheduler: torch.optim.lr_scheduler.LRScheduler | None
) -> dict[str, Any]:
    return {"optimizer": optimizer, "scheduler": scheduler}


def update_params(
    workload: RecipeTraining,
    current_param_container: nn.Module,
    current_params_types,
    model_state,
    hyperparameters,
    batch: Batch,
    loss_type,
    optimizer_state: dict[str, Any],
    eval_results,
    global_step: int,
    rng: spec.RandomState,
) -> spec.UpdateReturn:
    """One step: the recipe's loss, backward, the optimizer's step, then the scheduler's (once per step)."""
    loss = workload.loss(current_param_container, batch)
    optimizer_state["optimizer"].zero_grad(set_to_none=True)
    loss.backward()
    optimizer_state["optimizer"].step()
    if optimizer_state["scheduler"] is not None:
        optimizer_state["scheduler"].step()
    return optimizer_state, current_param_container, model_state


def data_selection(
    workload, input_queue, optimizer_state, current_param_container, model_state, hyperparameters, global_step, rng
):
    """The next batch, in the order given: a recipe trains on what the job reads, in the job's order."""
    return next(input_queue)
