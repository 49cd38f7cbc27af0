"""The learning-rate schedule the baselines share: linear warm-up over a share of the step hint, then cosine decay
to zero at the step hint (AlgoPerf's baselines' schedule)."""

from __future__ import annotations

import math

import torch


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
