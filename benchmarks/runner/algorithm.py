"""A recipe's algorithm as the reference job runs it: AlgoPerf's `init_optimizer_state` once, off or on the clock
as the job decides, then `update_params` on each batch the job has read and prepared.

The algorithm is the one the recipe is paired with (`benchmarks.algorithms.recipes`), its hyperparameters the
recipe's settings. What AlgoPerf's functions take as the workload is a `RecipeTraining`: the recipe, the steps in an
epoch of its schedule, and the job's precision around the loss.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import torch
from torch import nn

from benchmarks.algorithms import spec
from benchmarks.algorithms.recipes import RecipeTraining, algorithm_of
from benchmarks.workloads.base import Workload


@dataclass(frozen=True)
class Algorithm:
    """The algorithm a recipe is paired with, as the job runs it: its module (AlgoPerf's functions), its
    hyperparameters (the recipe's settings) and the seed it is handed as `rng`."""

    module: ModuleType
    hyperparameters: spec.Hyperparameters
    rng: spec.RandomState

    @classmethod
    def of(cls, workload: Workload, seed: int = 0) -> Algorithm:
        return cls(algorithm_of(workload), spec.hyperparameters_of(workload.config), seed)

    def start(self, workload: Workload, model: nn.Module, *, steps_per_epoch: int, autocast) -> AlgorithmSteps:
        """The optimizer state for `model`, from the algorithm's `init_optimizer_state`, ready to step."""
        training = RecipeTraining(workload, steps_per_epoch=steps_per_epoch, mixed_precision=autocast)
        state = self.module.init_optimizer_state(
            workload=training,
            model_params=model,
            model_state=None,
            hyperparameters=self.hyperparameters,
            rng=self.rng,
        )
        return AlgorithmSteps(self, training, state)


@dataclass
class AlgorithmSteps:
    """An algorithm's optimizer state over one run's training steps."""

    algorithm: Algorithm
    training: RecipeTraining
    state: spec.OptimizerState
    global_step: int = 0

    def update(self, trained: nn.Module, prepared: Any) -> torch.Tensor:
        """One training step on a prepared batch by the algorithm's `update_params`; returns its loss, detached.

        The model state is None (a torch model keeps its own buffers); the parameter types, the loss type and the
        evaluations are not handed over: no recipe's algorithm reads them, and working them out would be timed."""
        self.state, _, _ = self.algorithm.module.update_params(
            workload=self.training,
            current_param_container=trained,
            current_params_types=None,
            model_state=None,
            hyperparameters=self.algorithm.hyperparameters,
            batch=prepared,
            loss_type=None,
            optimizer_state=self.state,
            eval_results=[],
            global_step=self.global_step,
            rng=self.algorithm.rng,
        )
        self.global_step += 1
        return self.training.last_loss
