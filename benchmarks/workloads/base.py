"""What a reference recipe gives the training job: its data, model, loss and evaluation, and the algorithm it is
paired with.

Each reference recipe is a workload paired with an algorithm, as AlgoPerf means the words: the workload (a
`Workload` here) fixes the data, the model, the loss and the evaluation; the algorithm, the optimizer and its
schedule, is a module behind AlgoPerf's functions in `benchmarks.algorithms.recipes`, named by the recipe's
`algorithm`, its hyperparameters the recipe's settings (`config`). The job (`benchmarks.runner`) steps the recipe
through that algorithm's `init_optimizer_state` and `update_params`, and owns everything that is measured or that
the board's rules decide: the clock, the epoch and step loop, the order examples are read in, data echoing, mixed
precision, when to evaluate and when to stop, and the files written. So every recipe is timed by the same code.

The data path of one epoch, in order (data echoing may repeat items between stages):

    examples(order)   read (and decode) fresh examples, on the CPU: the "upstream" stage
    collate(list)     stack a list of examples into one batch, on the CPU
    prepare(batch)    move it to the device, augment it (fresh randomness per example), normalise it
    loss(model, b)    the training loss of one prepared batch
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import torch
from torch import nn

Example = Any  # one training example as `examples` yields it
Batch = Any  # what `collate` makes of a list of examples, and `prepare` of that


class DatasetMissing(Exception):
    """The data directory lacks what the recipe reads. The message names the files expected and where the
    public dataset comes from; nothing is ever downloaded."""


@dataclass(frozen=True)
class OnnxSignature:
    """A model's inputs (named, with example tensors, in the order `forward` takes them), its outputs' names, and
    each name's dynamic dimensions, as its ONNX export writes them."""

    inputs: dict[str, torch.Tensor]
    outputs: tuple[str, ...]
    dynamic_axes: dict[str, dict[int, str]]

    @classmethod
    def single_input(cls, example: torch.Tensor) -> OnnxSignature:
        """One input, `input`, and one output, `output`, both dynamic in the batch: an image model's."""
        return cls({"input": example}, ("output",), {"input": {0: "batch"}, "output": {0: "batch"}})


class Workload(ABC):
    """One recipe of one task. Subclasses set the class attributes and implement the methods.

    `config` is the recipe's hyperparameters (`defaults`, with any `overrides` a test or a flag gives), its
    algorithm's included; the run record keeps it whole. Every workload has at least `batch_size` and `epochs`
    (the length of its schedule; `--max-epochs` may stop a run earlier but never squeezes the schedule).
    """

    task: ClassVar[str]
    recipe: ClassVar[str]
    # The algorithm paired with the recipe: a module of `benchmarks.algorithms.recipes`, by name.
    algorithm: ClassVar[str]
    defaults: ClassVar[Mapping[str, Any]]
    channels_last: ClassVar[bool] = False  # convert the model (and `prepare` its images) to channels_last
    # `build_model` reads what `load` found (ImageNet's class count, SQuAD's vocabulary): the model is then
    # built on the clock, after the data is read, and the recipe is not warmed up before the clock starts.
    model_needs_data: ClassVar[bool] = False
    # What the model answers an evaluation item with, as the inference harness scores it (`inference.items`):
    # "classes", logits over the classes (top-k against the item's label); "spans", a reader's start and end
    # logits over its context (`answer_text`, `answer_scores`).
    inference_answers: ClassVar[str] = "classes"

    def __init__(self, data_dir: Path | None = None, overrides: Mapping[str, Any] | None = None):
        unknown = sorted(set(overrides or {}) - set(self.defaults))
        if unknown:
            raise ValueError(f"{self.task}/{self.recipe} has no setting {', '.join(unknown)}.")
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.config: dict[str, Any] = {**self.defaults, **(overrides or {})}

    @property
    def batch_size(self) -> int:
        return int(self.config["batch_size"])

    @property
    def epochs(self) -> int:
        return int(self.config["epochs"])

    def check_data(self) -> None:
        """Raise DatasetMissing, naming what is missing, when the files `load` reads are not there: a look at the
        directory only, which the job takes before its warm-up, so a missing dataset fails at once. Default:
        nothing to look for (the data ships with a package)."""
        return

    @abstractmethod
    def load(self) -> None:
        """Read or index the data under `data_dir`. Raises DatasetMissing naming what is missing."""

    @property
    @abstractmethod
    def train_size(self) -> int:
        """How many training examples one epoch reads."""

    @abstractmethod
    def examples(self, order: Sequence[int]) -> Iterator[Example]:
        """The training examples of these indices, in this order, read fresh (the upstream stage)."""

    @abstractmethod
    def collate(self, examples: list[Example]) -> Batch:
        """One batch of these examples, on the CPU."""

    def synthetic_batch(self, size: int, generator: torch.Generator) -> Batch | None:
        """`size` made-up examples collated as `collate` makes real ones, on the CPU, drawn with `generator`:
        what the job warms up on before the clock starts (its effect is then discarded). Callable before
        `load`. None (the default): the recipe is not warmed up.
        """
        return None

    @abstractmethod
    def prepare(self, batch: Batch, device: torch.device, generator: torch.Generator) -> Batch:
        """The batch on `device`, augmented with `generator` (which lives on `device`) and normalised."""

    @abstractmethod
    def build_model(self) -> nn.Module:
        """A freshly initialised model, on the CPU (seeded by the job before the call)."""

    @abstractmethod
    def loss(self, model: nn.Module, batch: Batch) -> torch.Tensor:
        """The training loss of one prepared batch (the recipe's algorithm runs backward and the optimizer)."""

    def evaluation_batches(self, batch_size: int) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """The evaluation set in its fixed order, preprocessed exactly as `evaluate` sees it, on the CPU, in
        batches of `batch_size` (1 for the inference harness): (inputs, labels). Call after `load`.

        Raises NotImplementedError for a recipe whose items are not single tensors (SQuAD's are four).
        """
        raise NotImplementedError(f"{self.task}/{self.recipe} has no one-tensor evaluation items.")

    def onnx_signature(self, batch: int, generator: torch.Generator) -> OnnxSignature | None:
        """The model's inputs and outputs as its ONNX export names them, with made-up inputs of `batch` items (the
        export traces them and checks torch and onnxruntime agree on them) and the dimensions that vary: by
        default one input of `inference_input_shape`, `input`, and one output, `output`, both dynamic in the batch.
        None for a recipe with neither."""
        shape = getattr(self, "inference_input_shape", None)
        if shape is None:
            return None
        return OnnxSignature.single_input(torch.randn((batch, *shape), generator=generator))

    def shape_from(self, state_dict: Mapping[str, torch.Tensor]) -> None:
        """For a recipe whose model is shaped by its data (`model_needs_data`): take that shape from a trained
        model's weights instead, so that `build_model` rebuilds it without the data (the inference harness
        exports a checkpoint). Does nothing for the others."""
        return None

    def input_encoding(self) -> dict[str, Any] | None:
        """What turns the data into the model's inputs when that is read from the data itself (SQuAD's
        vocabularies: their sizes and a digest), after `load`: a model trained with one encoding answers nonsense,
        or fails, on inputs of another. Kept in the run record (`data_summary`) and in the ONNX export, and
        compared by the inference harness. None (the default): the inputs do not depend on the data read."""
        return None

    def evaluation_items(self, positions: Sequence[int]) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """The evaluation items at `positions` (of `evaluation_batches(1)`'s order), in the order given, each a batch
        of one preprocessed exactly as there: what the inference harness's query sample library loads when
        LoadGen asks for them, a few at a time (an ImageNet validation set is not held in memory whole).

        This default reads the whole set in order and keeps those asked for; a recipe that can read an item by
        its position reads only those.
        """
        wanted = set(positions)
        found = {}
        for position, item in enumerate(self.evaluation_batches(1)):
            if position in wanted:
                found[position] = item
                if len(found) == len(wanted):
                    break
        for position in positions:
            yield found[position]

    @property
    def eval_size(self) -> int | None:
        """How many examples `evaluate` judges (MLPerf's `eval_samples`); None where the recipe does not say."""
        return None

    def data_summary(self) -> dict[str, Any]:
        """Facts about the data as loaded (examples left out, sizes found, the input encoding where there is one),
        kept in the run record."""
        encoding = self.input_encoding()
        return {"train_size": self.train_size, **({"input_encoding": encoding} if encoding is not None else {})}

    @abstractmethod
    def evaluate(self, model: nn.Module, device: torch.device) -> float:
        """Quality on the task's evaluation set, in the task's scale (accuracy in percent, F1 as a fraction).

        Called in eval mode under `torch.no_grad()`; the job's clock is paused meanwhile.
        """
