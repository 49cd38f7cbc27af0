"""What the baselines share: the training loss's backward pass on a batch, and the learning-rate schedule (linear
warm-up over a share of the step hint, then cosine decay to zero at the step hint: AlgoPerf's baselines')."""

from __future__ import annotations

import math

import torch

from benchmarks.algorithms import spec


def warmup_cosine(
    optimizer: torch.optim.Optimizer, step_hint: int, warmup_factor: float
) -> torch.optim.lr_scheduler.LambdaLR:
    warmup = max(1, int(warmup_factor * step_hint))

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        progress = min(1.0, (step - warmup) / max(1, step_hint - warmup))
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def backward(workload, model, model_state, batch, rng, *, label_smoothing: float = 0.0):
    """The batch's mean training loss, its gradients accumulated into the model; returns the model state."""
    logits, new_model_state = workload.model_fn(
        params=model,
        augmented_and_preprocessed_input_batch=batch,
        model_state=model_state,
        mode=spec.ForwardPassMode.TRAIN,
        rng=rng,
        update_batch_norm=True,
    )
    losses = workload.loss_fn(
        label_batch=batch["targets"],
        logits_batch=logits,
        mask_batch=batch.get("weights"),
        label_smoothing=label_smoothing,
    )
    (losses["summed"] / losses["n_valid_examples"]).backward()
    return new_model_state
