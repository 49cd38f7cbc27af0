"""A task's evaluation items as the harness answers them, and the task's score of the answers.

Two kinds, by what the model answers (`Workload.inference_answers`):

- `ClassifiedItems` ("classes"): an image, one float32 array of batch 1; the answer is a row of logits, scored
  top-k against the item's label (the task's k: 5 for ImageNet, 1 elsewhere), the quality in percent;
- `SpanItems` ("spans"): a SQuAD question, four int64 arrays of batch 1 (its context's and its own word and
  character ids, as long as they are); the answer is its start and end logits over its context, read as the best
  span of the context (as the recipe's evaluation reads it) and scored by the official v1.1 exact match and F1
  against every gold answer, the quality the F1 as a fraction (the task's scale). Several questions answered in
  one call (offline) are padded to the longest with id 0, which the model masks (its export checks so), and each
  answer is cut back to its own context's length.

An item's label is what its score needs: the class, or the question's position in the dev file.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from benchmarks.workloads.base import Workload
from inference.loadgen import ONE_TENSOR, Batching, Item, Output


@dataclass(frozen=True)
class Score:
    """The task's score of a set of answers: `quality` in the task's scale (what meets the threshold), and the
    figures it comes from (`{"top_k", "correct"}`; `{"exact_match", "f1"}` in percent)."""

    quality: float
    figures: dict[str, Any] = field(default_factory=dict)


def padded_join(items: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
    """Items of several arrays (each of batch 1, of any lengths) as one batch: each array padded with zeros to the
    longest of its kind in every dimension after the batch."""
    joined = []
    for arrays in zip(*items, strict=True):
        shape = np.max([array.shape for array in arrays], axis=0)
        batch = np.zeros((len(arrays), *shape[1:]), dtype=arrays[0].dtype)
        for row, array in enumerate(arrays):
            batch[(row, *(slice(0, size) for size in array.shape[1:]))] = array[0]
        joined.append(batch)
    return tuple(joined)


def context_rows(outputs: tuple[np.ndarray, ...], items: list[tuple[np.ndarray, ...]]) -> list[tuple[np.ndarray, ...]]:
    """Each item's rows of a padded batch's outputs (logits over the context), cut to its own context's length
    (its first array's second dimension)."""
    return [tuple(output[row, : item[0].shape[1]] for output in outputs) for row, item in enumerate(items)]


class EvaluationItems(ABC):
    """The first `count` evaluation items, in the set's order, and how they batch."""

    batching: Batching = ONE_TENSOR
    count: int

    @abstractmethod
    def stream(self) -> Iterator[tuple[Item, Any]]:
        """Each item (as the backend takes it, batch 1) and its label, in order, read as it goes."""

    @abstractmethod
    def read(self, positions: list[int]) -> list[Item]:
        """The items at these positions, in the order given: what LoadGen's sample library loads."""

    @abstractmethod
    def score(self, answers: Sequence[Output], labels: Sequence[Any]) -> Score:
        """The task's score of the answers to the first `len(answers)` items, whose labels are `labels`."""


class ClassifiedItems(EvaluationItems):
    """Images answered by logits over the classes, scored top-k: read from a loaded workload (`of_workload`), or
    held in memory (`in_memory`, for the benches)."""

    def __init__(
        self,
        count: int,
        *,
        stream: Callable[[], Iterator[tuple[np.ndarray, int]]],
        read: Callable[[list[int]], list[np.ndarray]],
        top_k: int,
    ):
        self.count, self._stream, self._read, self.top_k = count, stream, read, top_k

    @classmethod
    def of_workload(cls, workload: Workload, count: int, *, top_k: int) -> ClassifiedItems:
        def stream() -> Iterator[tuple[np.ndarray, int]]:
            for position, (inputs, label) in enumerate(workload.evaluation_batches(1)):
                if position >= count:
                    return
                yield _array(inputs), int(label[0])

        def read(positions: list[int]) -> list[np.ndarray]:
            return [_array(inputs) for inputs, _ in workload.evaluation_items(positions)]

        return cls(count, stream=stream, read=read, top_k=top_k)

    @classmethod
    def in_memory(cls, arrays: Sequence[np.ndarray], labels: Sequence[int], *, top_k: int = 1) -> ClassifiedItems:
        return cls(
            len(arrays),
            stream=lambda: zip(arrays, labels, strict=True),
            read=lambda positions: [arrays[position] for position in positions],
            top_k=top_k,
        )

    def stream(self) -> Iterator[tuple[np.ndarray, int]]:
        return self._stream()

    def read(self, positions: list[int]) -> list[np.ndarray]:
        return self._read(positions)

    def score(self, answers: Sequence[np.ndarray], labels: Sequence[int]) -> Score:
        correct = top_k_hits(np.stack(answers), np.asarray(labels, dtype=np.int64), self.top_k)
        return Score(100.0 * correct / len(answers), {"top_k": self.top_k, "correct": correct})


class SpanItems(EvaluationItems):
    """SQuAD questions of a loaded workload, answered by start and end logits over their context, scored by the
    official v1.1 exact match and F1."""

    batching = Batching(join=padded_join, part=context_rows)

    def __init__(self, workload: Workload, count: int):
        self.workload, self.count = workload, count

    def stream(self) -> Iterator[tuple[tuple[np.ndarray, ...], int]]:
        for inputs, position in self.workload.evaluation_items(range(self.count)):
            yield _arrays(inputs), int(position[0])

    def read(self, positions: list[int]) -> list[tuple[np.ndarray, ...]]:
        return [_arrays(inputs) for inputs, _ in self.workload.evaluation_items(positions)]

    def score(self, answers: Sequence[tuple[np.ndarray, np.ndarray]], labels: Sequence[int]) -> Score:
        texts = {
            int(position): self.workload.answer_text(int(position), torch.from_numpy(start), torch.from_numpy(end))
            for (start, end), position in zip(answers, labels, strict=True)
        }
        scores = self.workload.answer_scores(texts)
        return Score(scores["f1"] / 100.0, scores)


def evaluation_items(workload: Workload, count: int, *, top_k: int) -> EvaluationItems:
    """The loaded workload's first `count` evaluation items, of the kind its model answers."""
    if workload.inference_answers == "spans":
        return SpanItems(workload, count)
    return ClassifiedItems.of_workload(workload, count, top_k=top_k)


def top_k_hits(logits: np.ndarray, labels: np.ndarray, k: int) -> int:
    """How many rows have their label among their k highest logits."""
    k = min(k, logits.shape[1])
    top = np.argpartition(-logits, k - 1, axis=1)[:, :k]
    return int((top == labels[:, None]).any(axis=1).sum())


def _array(inputs: torch.Tensor) -> np.ndarray:
    return np.ascontiguousarray(inputs.numpy(), dtype=np.float32)


def _arrays(inputs: Sequence[torch.Tensor]) -> tuple[np.ndarray, ...]:
    return tuple(np.ascontiguousarray(tensor.numpy(), dtype=np.int64) for tensor in inputs)
