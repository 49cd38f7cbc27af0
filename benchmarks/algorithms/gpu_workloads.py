"""The GPU suite's workloads: DAWNBench's three training tasks as AlgoPerf workloads, so an algorithm is timed on
them by the same runner as on the CPU suite.

- `cifar10_resnet9`: Myrtle.ai's ResNet-9 on CIFAR-10; validation (the test batch) top-1 accuracy >= 0.94;
- `imagenet_resnet50`: ResNet-50 v1.5 on ImageNet at 224 px; validation top-5 accuracy >= 0.93;
- `squad_bidaf`: BiDAF on SQuAD v1.1; dev F1 >= 0.75.

Each wraps the reference recipe of `benchmarks.workloads` for its data (the real-format readers of `--data-dir`,
which never download: `DatasetMissing` names what is missing and where it comes from), its augmentation, its
network (`benchmarks.networks`) and its evaluation; the recipe's own optimizer and schedule are not used, the
algorithm brings its own. The targets are the tasks' DAWNBench thresholds and the budgets the GPU suite's
(`dawnboard.algorithms.suites.GPU_SUITE`, one home for both). Batches are drawn epoch after epoch in an order drawn
from the data seed, prepared on the device (the GPU where there is one); the input pipeline runs inside
`data_selection`, on the clock, as in AlgoPerf.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import Any, ClassVar

import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.algorithms import spec
from benchmarks.algorithms.pytorch_utils import pytorch_setup
from benchmarks.workloads.base import Workload as Recipe
from benchmarks.workloads.cifar10 import ResNet9Cifar10
from benchmarks.workloads.imagenet import ResNet50ImageNet
from benchmarks.workloads.squad import BiDAFSquad


class RecipeWorkload(spec.Workload):
    """A reference recipe's data, network and evaluation as an AlgoPerf workload. Building one reads the data.

    Args:
        data_dir: the folder the recipe reads (as `run_reference --data-dir`).
        overrides: recipe settings that shape the data or the network (a test's tiny images, say).
    """

    recipe_class: ClassVar[type[Recipe]]
    metric_scale: ClassVar[float] = 1.0  # the recipe's evaluation over this is the target's scale (percent: 100)
    reads_data_dir: ClassVar[bool] = True
    loss_type = spec.LossType.SOFTMAX_CROSS_ENTROPY

    def __init__(self, data_dir: Path | str | None = None, overrides: Mapping[str, Any] | None = None):
        self.recipe = self.recipe_class(Path(data_dir) if data_dir is not None else None, overrides)
        self.recipe.load()
        self.device = pytorch_setup()[2]
        # The baselines' schedules span the recipe's own length: its epochs at its batch size.
        self.step_hint = self.recipe.epochs * math.ceil(self.recipe.train_size / self.recipe.batch_size)

    @property
    def num_train_examples(self) -> int:
        return self.recipe.train_size

    def init_model_fn(self, rng: spec.RandomState) -> tuple[nn.Module, None]:
        torch.manual_seed(rng)
        model = self.recipe.build_model()
        layout = torch.channels_last if self.recipe.channels_last else torch.preserve_format
        return model.to(self.device, memory_format=layout), None

    def _build_input_queue(self, data_rng, split, data_dir, global_batch_size) -> Iterator[dict[str, Any]]:
        order_generator = torch.Generator().manual_seed(int(data_rng))
        augment_generator = torch.Generator(device=self.device).manual_seed(int(data_rng))

        def examples():
            while True:  # epoch after epoch: a batch larger than the data set wraps around
                yield from self.recipe.examples(
                    torch.randperm(self.recipe.train_size, generator=order_generator).tolist()
                )

        stream = examples()
        while True:
            batch = self.recipe.collate(list(islice(stream, global_batch_size)))
            yield self._as_batch(self.recipe.prepare(batch, self.device, augment_generator))

    def _as_batch(self, prepared: Any) -> dict[str, Any]:
        images, labels = prepared
        return {"inputs": images, "targets": labels}

    def loss_fn(self, label_batch, logits_batch, mask_batch=None, label_smoothing=0.0):
        per_example = F.cross_entropy(logits_batch, label_batch, reduction="none", label_smoothing=label_smoothing)
        return _losses(per_example, mask_batch)

    def evaluate(self, params: nn.Module, model_state) -> dict[str, float]:
        """The validation metric by the recipe's own evaluation, in the target's scale, off the clock."""
        params.eval()
        with torch.no_grad():
            value = self.recipe.evaluate(params, self.device)
        return {f"validation/{self.target_metric_name}": float(value) / self.metric_scale}


def _losses(per_example: torch.Tensor, mask_batch: torch.Tensor | None) -> dict[str, torch.Tensor]:
    if mask_batch is not None:
        per_example = per_example * mask_batch
    valid = mask_batch.sum() if mask_batch is not None else torch.tensor(float(len(per_example)))
    return {"summed": per_example.sum(), "n_valid_examples": valid, "per_example": per_example}


class Cifar10ResNet9Workload(RecipeWorkload):
    """CIFAR-10 (the python batches), Myrtle.ai's ResNet-9 with its crop, flip and cutout: top-1 accuracy on the
    10,000 test images."""

    name = "cifar10_resnet9"
    recipe_class = ResNet9Cifar10
    metric_scale = 100.0


class ImageNetResNet50Workload(RecipeWorkload):
    """ImageNet (train/ and val/ class folders), ResNet-50 v1.5 with random-resized crops and flips: top-5 accuracy
    on the validation images."""

    name = "imagenet_resnet50"
    recipe_class = ResNet50ImageNet
    metric_scale = 100.0


class SquadBiDAFWorkload(RecipeWorkload):
    """SQuAD v1.1 (train-v1.1.json, dev-v1.1.json), BiDAF: the official F1 on the dev questions. A batch's inputs
    are the context's and question's word and character ids; its targets each answer's first and last token."""

    name = "squad_bidaf"
    recipe_class = BiDAFSquad

    def _as_batch(self, prepared: Any) -> dict[str, Any]:
        return {"inputs": tuple(prepared[:4]), "targets": torch.stack([prepared.start, prepared.end], dim=1)}

    def model_fn(self, params, augmented_and_preprocessed_input_batch, model_state, mode, rng, update_batch_norm,
                 dropout_rate=None):  # fmt: skip
        params.train(mode == spec.ForwardPassMode.TRAIN)
        with torch.set_grad_enabled(mode == spec.ForwardPassMode.TRAIN):
            return params(*augmented_and_preprocessed_input_batch["inputs"]), model_state

    def loss_fn(self, label_batch, logits_batch, mask_batch=None, label_smoothing=0.0):
        """The recipe's loss: cross-entropy of the answer's start plus that of its end, each example's."""
        start_logits, end_logits = logits_batch
        per_example = sum(
            F.cross_entropy(logits, label_batch[:, column], reduction="none", label_smoothing=label_smoothing)
            for column, logits in enumerate((start_logits, end_logits))
        )
        return _losses(per_example, mask_batch)


GPU_WORKLOADS: dict[str, type[RecipeWorkload]] = {
    workload.name: workload for workload in (Cifar10ResNet9Workload, ImageNetResNet50Workload, SquadBiDAFWorkload)
}
