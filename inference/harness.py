"""DAWNBench's inference rule, measured: every item of the task's evaluation set goes through the model alone
(batch size 1), in the evaluation set's fixed order. Each item's latency is `time.perf_counter_ns` around the
backend call alone: reading and preprocessing the item happen before, outside the timing. The first `warmup`
items are timed but left out of the statistics (allocators, caches, thread pools settle); every item counts
for accuracy, which must meet the task's threshold over the same pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import torch

from inference.domain.latency import LatencySummary

PREPROCESSING = (
    "each item read and preprocessed (decoded, resized, normalised, as the recipe's evaluation does) before "
    "its timing starts; the timing covers the backend call alone, which returns the logits"
)


@dataclass(frozen=True)
class Measurement:
    latency: LatencySummary
    items: int  # answered, warm-up included
    warmup: int
    correct: int
    top_k: int

    @property
    def accuracy(self) -> float:
        """Percent of all items answered correctly (top-k)."""
        return 100.0 * self.correct / self.items


def measure(
    run: Callable[[np.ndarray], np.ndarray],
    items: Iterable[tuple[torch.Tensor, torch.Tensor]],
    *,
    top_k: int,
    warmup: int,
    limit: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Measurement:
    """Answer each (input of batch 1, label) item with `run`, timing the call alone.

    Between two calls the loop only reads the next item and keeps the logits: the accuracy is scored after
    the pass, so no scoring work sits between the calls that are timed.
    """
    latencies_ns: list[int] = []
    outputs: list[np.ndarray] = []
    labels: list[int] = []
    for inputs, label in items:
        if limit is not None and len(outputs) >= limit:
            break
        batch = np.ascontiguousarray(inputs.numpy(), dtype=np.float32)
        started = time.perf_counter_ns()
        logits = run(batch)
        latencies_ns.append(time.perf_counter_ns() - started)
        outputs.append(logits)
        labels.append(int(label[0]))
        if progress is not None:
            progress(len(outputs))
    answered = len(outputs)
    if answered <= warmup:
        raise ValueError(f"Only {answered} items were answered: more than the {warmup} warm-up items are needed.")
    return Measurement(
        latency=LatencySummary.of(latencies_ns[warmup:]),
        items=answered,
        warmup=warmup,
        correct=top_k_hits(np.concatenate(outputs), np.asarray(labels), top_k),
        top_k=top_k,
    )


def top_k_hits(logits: np.ndarray, labels: np.ndarray, k: int) -> int:
    """How many rows have their label among their k highest logits."""
    k = min(k, logits.shape[1])
    top = np.argpartition(-logits, k - 1, axis=1)[:, :k]
    return int((top == labels[:, None]).any(axis=1).sum())
