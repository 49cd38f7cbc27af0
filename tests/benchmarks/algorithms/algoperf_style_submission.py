# ruff: noqa: UP006, UP035, UP045  (AlgoPerf's submissions use typing's Dict, List, Optional: kept as written there)
"""A submission written as AlgoPerf's PyTorch submissions are (its module layout, imports, names and signatures,
`train_state` and `prepare_for_eval` of API v0.6 included), with only its `algoperf` imports pointing here:

    from algoperf import spec                        ->  from benchmarks.algorithms import spec
    from algoperf.pytorch_utils import pytorch_setup ->  from benchmarks.algorithms.pytorch_utils import pytorch_setup
    from absl import logging                         ->  import logging
"""

import logging
from typing import Any, Dict, Iterator, List, Optional, Tuple

import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR

from benchmarks.algorithms import spec
from benchmarks.algorithms.pytorch_utils import pytorch_setup

USE_PYTORCH_DDP = pytorch_setup()[0]


def init_optimizer_state(
    workload: spec.Workload,
    model_params: spec.ParameterContainer,
    model_state: spec.ModelAuxiliaryState,
    hyperparameters: spec.Hyperparameters,
    rng: spec.RandomState,
) -> spec.OptimizerState:
    del model_state
    del rng
    optimizer_state = {
        "optimizer": torch.optim.AdamW(
            model_params.parameters(),
            lr=hyperparameters.learning_rate,
            betas=(1.0 - hyperparameters.one_minus_beta1, hyperparameters.beta2),
            eps=1e-8,
            weight_decay=hyperparameters.weight_decay,
        ),
    }
    warmup_steps = int(hyperparameters.warmup_factor * workload.step_hint)
    warmup = LinearLR(optimizer_state["optimizer"], start_factor=1e-10, end_factor=1.0, total_iters=warmup_steps)
    cosine_decay = CosineAnnealingLR(optimizer_state["optimizer"], T_max=max(workload.step_hint - warmup_steps, 1))
    optimizer_state["scheduler"] = SequentialLR(
        optimizer_state["optimizer"], schedulers=[warmup, cosine_decay], milestones=[warmup_steps]
    )
    return optimizer_state


def update_params(
    workload: spec.Workload,
    current_param_container: spec.ParameterContainer,
    current_params_types: spec.ParameterType,
    model_state: spec.ModelAuxiliaryState,
    hyperparameters: spec.Hyperparameters,
    batch: Dict[str, spec.Tensor],
    loss_type: spec.LossType,
    optimizer_state: spec.OptimizerState,
    eval_results: List[Tuple[int, float]],
    global_step: int,
    rng: spec.RandomState,
    train_state: Optional[Dict[str, Any]] = None,
) -> spec.UpdateReturn:
    del current_params_types
    del loss_type
    del train_state
    del eval_results
    current_model = current_param_container
    current_model.train()
    optimizer_state["optimizer"].zero_grad()
    logits_batch, new_model_state = workload.model_fn(
        params=current_model,
        augmented_and_preprocessed_input_batch=batch,
        model_state=model_state,
        mode=spec.ForwardPassMode.TRAIN,
        rng=rng,
        update_batch_norm=True,
    )
    label_smoothing = hyperparameters.label_smoothing if hasattr(hyperparameters, "label_smoothing") else 0.0
    loss_dict = workload.loss_fn(
        label_batch=batch["targets"],
        logits_batch=logits_batch,
        mask_batch=batch.get("weights"),
        label_smoothing=label_smoothing,
    )
    loss = loss_dict["summed"] / loss_dict["n_valid_examples"]
    loss.backward()
    optimizer_state["optimizer"].step()
    optimizer_state["scheduler"].step()
    if global_step % 1000 == 0:
        logging.info("%d) loss = %0.3f", global_step, loss.item())
    return (optimizer_state, current_param_container, new_model_state)


def prepare_for_eval(
    workload: spec.Workload,
    current_param_container: spec.ParameterContainer,
    current_params_types: spec.ParameterType,
    model_state: spec.ModelAuxiliaryState,
    hyperparameters: spec.Hyperparameters,
    loss_type: spec.LossType,
    optimizer_state: spec.OptimizerState,
    eval_results: List[Tuple[int, float]],
    global_step: int,
    rng: spec.RandomState,
):
    return (optimizer_state, current_param_container, model_state)


def get_batch_size(workload_name):
    if workload_name in ("breast_cancer_mlp", "diabetes_mlp"):
        return 32
    return 64


def data_selection(
    workload: spec.Workload,
    input_queue: Iterator[Dict[str, spec.Tensor]],
    optimizer_state: spec.OptimizerState,
    current_param_container: spec.ParameterContainer,
    model_state: spec.ModelAuxiliaryState,
    hyperparameters: spec.Hyperparameters,
    global_step: int,
    rng: spec.RandomState,
) -> Dict[str, spec.Tensor]:
    del workload, optimizer_state, current_param_container, model_state, hyperparameters, global_step, rng
    return next(input_queue)
