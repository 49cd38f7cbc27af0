"""Made-up evaluation items of a reference model, of batch 1, as the inference harness takes them: for the benches
that drive a model through LoadGen without its dataset (`bench/throughput.py`, `bench/gpu_check.py`)."""

from __future__ import annotations

import numpy as np
import torch

from benchmarks.workloads.base import Workload
from inference.items import SpanItems
from inference.loadgen import ONE_TENSOR, Batching, Item, SampleLibrary

# SQuAD v1.1 dev questions' typical lengths: most contexts hold 100 to 180 tokens, most questions 8 to 14.
SQUAD_CONTEXT_TOKENS, SQUAD_QUESTION_TOKENS = (100, 180), (8, 14)


def made_up_items(workload: Workload, count: int, generator: torch.Generator) -> tuple[list[Item], Batching]:
    """`count` items of the workload's model and how they batch: random images of its input shape, or SQuAD
    questions of random lengths, their word and character ids drawn from the workload's vocabularies (set by
    `shape_from` or by hand beforehand)."""
    if workload.inference_answers != "spans":
        shape = workload.inference_input_shape
        return [torch.randn((1, *shape), generator=generator).numpy() for _ in range(count)], ONE_TENSOR
    words, chars, width = len(workload.words) + 2, len(workload.chars) + 2, int(workload.config["max_word_chars"])

    def ids(high: int, length: int, *shape: int) -> np.ndarray:
        return torch.randint(2, high, (1, length, *shape), generator=generator).numpy()

    def length(bounds: tuple[int, int]) -> int:
        return int(torch.randint(bounds[0], bounds[1] + 1, (1,), generator=generator))

    items = []
    for _ in range(count):
        context, question = length(SQUAD_CONTEXT_TOKENS), length(SQUAD_QUESTION_TOKENS)
        items.append(
            (ids(words, context), ids(chars, context, width), ids(words, question), ids(chars, question, width))
        )
    return items, SpanItems.batching


def held_library(items: list[Item], batching: Batching) -> SampleLibrary:
    """A sample library of these items, every one resident."""
    return SampleLibrary(
        len(items), lambda positions: [items[p] for p in positions], resident=len(items), batching=batching
    )
