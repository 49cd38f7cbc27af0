"""AlgoPerf's submission API for PyTorch, by its own names (mlcommons/algorithmic-efficiency `algoperf/spec.py`), so
that an AlgoPerf PyTorch submission runs here with only its imports changed.

A submission module defines:

    get_batch_size(workload_name) -> int
    init_optimizer_state(workload, model_params, model_state, hyperparameters, rng) -> optimizer_state
    update_params(workload, current_param_container, current_params_types, model_state, hyperparameters, batch,
                  loss_type, optimizer_state, eval_results, global_step, rng[, train_state])
        -> (optimizer_state, current_param_container, model_state); may raise TrainingCompleteError
    data_selection(workload, input_queue, optimizer_state, current_param_container, model_state, hyperparameters,
                   global_step, rng) -> batch
    prepare_for_eval(workload, current_param_container, current_params_types, model_state, hyperparameters,
                     loss_type, optimizer_state, eval_results, global_step, rng)   (optional)
        -> (optimizer_state, current_param_container, model_state)

In PyTorch the parameter container is the model itself (a `torch.nn.Module`); a batch is a dict of tensors
(`inputs`, `targets`, and `weights` where some examples are padding); `rng` is an integer seed a function may use.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections import namedtuple
from collections.abc import Iterator, Mapping
from typing import Any

import torch

from dawnboard.algorithms.suites import workload_rules


class LossType(enum.Enum):
    SOFTMAX_CROSS_ENTROPY = 0
    SIGMOID_CROSS_ENTROPY = 1
    MEAN_SQUARED_ERROR = 2
    CTC_LOSS = 3
    MEAN_ABSOLUTE_ERROR = 4


class ForwardPassMode(enum.Enum):
    TRAIN = 0
    EVAL = 1


class ParameterType(enum.Enum):
    WEIGHT = 0
    BIAS = 1
    CONV_WEIGHT = 2
    BATCH_NORM_SCALE = 3
    BATCH_NORM_BIAS = 4
    LAYER_NORM_SCALE = 5
    LAYER_NORM_BIAS = 6
    EMBEDDING = 7


class TrainingCompleteError(Exception):
    """Raised by `update_params` when the algorithm is done: the trial ends there, its last evaluation taken."""


Tensor = torch.Tensor
ParameterContainer = torch.nn.Module
ModelAuxiliaryState = Any  # what a model keeps beside its parameters (none here: batch-norm statistics live in it)
OptimizerState = Any
RandomState = int
Hyperparameters = Any  # a namedtuple of the trial's point in the search space
UpdateReturn = tuple[OptimizerState, ParameterContainer, ModelAuxiliaryState]


def hyperparameters_of(point: Mapping[str, Any]) -> Hyperparameters:
    """A point of a search space as the namedtuple AlgoPerf hands submissions (`hyperparameters.learning_rate`)."""
    return namedtuple("Hyperparameters", sorted(point))(**{name: point[name] for name in sorted(point)})


class Workload(ABC):
    """What an AlgoPerf submission may use of a workload: its name, its model and loss, its parameters' shapes and
    types, the step budget hint, its target and its clock's limits.

    A subclass that sets `name` takes its target and its clock's limits from its suite's rules
    (`dawnboard.algorithms.suites`), which the site scores its logs by: one home for them."""

    name: str
    target_metric_name: str  # e.g. "accuracy": the trial log's column is validation/<target_metric_name>
    validation_target_value: float
    higher_is_better: bool = True
    max_allowed_runtime_sec: float
    eval_period_time_sec: float
    step_hint: int  # steps a baseline's schedule is sized to (AlgoPerf's step_hint)
    loss_type: LossType

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            rules = workload_rules(cls.name)
            cls.target_metric_name = rules.target.metric.removeprefix("validation/")
            cls.validation_target_value = rules.target.value
            cls.higher_is_better = rules.target.higher_is_better
            cls.max_allowed_runtime_sec = rules.max_runtime_s
            cls.eval_period_time_sec = rules.eval_period_s

    @abstractmethod
    def init_model_fn(self, rng: RandomState) -> tuple[ParameterContainer, ModelAuxiliaryState]:
        """A freshly initialised model (seeded by `rng`) and its auxiliary state."""

    def model_fn(
        self,
        params: ParameterContainer,
        augmented_and_preprocessed_input_batch: dict[str, Tensor],
        model_state: ModelAuxiliaryState,
        mode: ForwardPassMode,
        rng: RandomState,
        update_batch_norm: bool,
        dropout_rate: float | None = None,
    ) -> tuple[Tensor, ModelAuxiliaryState]:
        """The model's outputs for the batch, in train or eval mode (no gradient in eval), and the state."""
        params.train(mode == ForwardPassMode.TRAIN)
        with torch.set_grad_enabled(mode == ForwardPassMode.TRAIN):
            return params(augmented_and_preprocessed_input_batch["inputs"]), model_state

    @abstractmethod
    def loss_fn(
        self,
        label_batch: Tensor,
        logits_batch: Tensor,
        mask_batch: Tensor | None = None,
        label_smoothing: float = 0.0,
    ) -> dict[str, Tensor]:
        """{"summed": the summed loss, "n_valid_examples": how many examples count, "per_example": each one's}."""

    @property
    def param_shapes(self) -> dict[str, torch.Size]:
        return {name: parameter.shape for name, parameter in self._fresh_model().named_parameters()}

    @property
    def model_params_types(self) -> dict[str, ParameterType]:
        return parameter_types(self._fresh_model())

    def _fresh_model(self) -> ParameterContainer:
        """A model to read shapes from, built without moving the caller's random state."""
        with torch.random.fork_rng():
            return self.init_model_fn(0)[0]

    def is_output_params(self, param_key: str) -> bool:
        return False

    @abstractmethod
    def _build_input_queue(
        self, data_rng: RandomState, split: str, data_dir: str | None, global_batch_size: int
    ) -> Iterator[dict[str, Tensor]]:
        """Training batches of `global_batch_size`, shuffled by `data_rng`, endlessly."""


def parameter_types(model: ParameterContainer) -> dict[str, ParameterType]:
    """Each parameter's kind, by the module that holds it (AlgoPerf's convention): a norm's scale and bias, an
    embedding, a convolution's kernel, or any other weight (rank 2 and up) and bias."""
    kinds: dict[str, ParameterType] = {}
    for module_name, module in model.named_modules():
        for name, parameter in module.named_parameters(recurse=False):
            full = f"{module_name}.{name}" if module_name else name
            kinds[full] = _parameter_type(module, name, parameter.dim())
    return kinds


def _parameter_type(module: torch.nn.Module, name: str, rank: int) -> ParameterType:
    scale = name == "weight"
    if isinstance(module, torch.nn.LayerNorm):
        return ParameterType.LAYER_NORM_SCALE if scale else ParameterType.LAYER_NORM_BIAS
    if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
        return ParameterType.BATCH_NORM_SCALE if scale else ParameterType.BATCH_NORM_BIAS
    if isinstance(module, torch.nn.Embedding):
        return ParameterType.EMBEDDING
    if rank <= 1:
        return ParameterType.BIAS
    return ParameterType.CONV_WEIGHT if isinstance(module, torch.nn.modules.conv._ConvNd) else ParameterType.WEIGHT
