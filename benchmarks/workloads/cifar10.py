"""CIFAR-10 reference recipes: train on the 50,000 training images, measure top-1 accuracy (percent) on the
10,000 test images. DAWNBench's threshold is 94%.

- `resnet9`: Myrtle.ai's ResNet-9 (David Page). Its DAWNBench entry reached 94.08% after its 24th and last
  epoch (`davidcpage_resnet9_1v100-ec2_pytorch`).
- `resnet164`: the DAWN team's pre-activation ResNet-164. Its entries first reach 94% at epoch 138 of 181
  (`dawn_resnet164_b_1p100-dawn_pytorch`: 94.19%; 94.65% after the last).

Both read the public "CIFAR-10 python version" batches from `--data-dir` and keep them in memory as
uint8 (about 180 MB); nothing is downloaded.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.networks.resnet9 import ResNet9
from benchmarks.networks.resnet164 import preact_resnet164
from benchmarks.workloads.base import DatasetMissing, Workload
from benchmarks.workloads.common import (
    cutout,
    random_crop_flip,
    top_k_accuracy,
)

DOWNLOAD_PAGE = "https://www.cs.toronto.edu/~kriz/cifar.html"
ARCHIVE_NAME = "cifar-10-python.tar.gz"
NESTED_DIRECTORY = "cifar-10-batches-py"  # what the archive extracts to
TRAIN_FILES = tuple(f"data_batch_{index}" for index in range(1, 6))
TEST_FILE = "test_batch"
EXPECTED_FILES = (*TRAIN_FILES, TEST_FILE)
IMAGE_SHAPE = (3, 32, 32)
NUM_CLASSES = 10

Cifar10Batch = tuple[torch.Tensor, torch.Tensor]  # images (N x 3 x 32 x 32), labels (N, int64)


@dataclass(frozen=True)
class Cifar10Arrays:
    """The whole dataset: uint8 images N x 3 x 32 x 32 and int64 labels, in file order."""

    train_images: torch.Tensor
    train_labels: torch.Tensor
    test_images: torch.Tensor
    test_labels: torch.Tensor


def _fetch_instructions() -> str:
    return (
        f"Download {ARCHIVE_NAME} (the CIFAR-10 python version) from {DOWNLOAD_PAGE}, extract it "
        f"(tar xzf {ARCHIVE_NAME}) and pass the directory with --data-dir. Nothing is downloaded for you."
    )


def _present(directory: Path) -> list[str]:
    return [name for name in EXPECTED_FILES if (directory / name).is_file()]


def find_batches_directory(data_dir: Path | None) -> Path:
    """The directory holding all six batch files: `data_dir` itself or its `cifar-10-batches-py/`.

    Raises:
        DatasetMissing: naming the files missing, the directories looked in and where CIFAR-10 comes from.
    """
    if data_dir is None:
        raise DatasetMissing(
            f"CIFAR-10 needs a data directory holding {', '.join(EXPECTED_FILES)}. {_fetch_instructions()}"
        )
    candidates = (Path(data_dir), Path(data_dir) / NESTED_DIRECTORY)
    for candidate in candidates:
        if len(_present(candidate)) == len(EXPECTED_FILES):
            return candidate
    # Name what is missing from the candidate holding the most (the nested one when neither holds any).
    closest = max(reversed(candidates), key=lambda candidate: len(_present(candidate)))
    missing = [name for name in EXPECTED_FILES if name not in _present(closest)]
    where = closest if closest.is_dir() else f"{closest} (no such directory)"
    raise DatasetMissing(
        f"CIFAR-10 is incomplete: missing {', '.join(missing)} in {where}. Expected {', '.join(EXPECTED_FILES)} "
        f"in {candidates[0]} or in {candidates[1]}. {_fetch_instructions()}"
    )


class _BatchUnpickler(pickle.Unpickler):
    """Unpickles numpy arrays and plain containers, nothing else: a batch file is never trusted to run
    code (the globals a numpy array needs under pickle protocols 2 to 5, from numpy 1 and 2)."""

    ALLOWED = frozenset(
        {
            ("_codecs", "encode"),
            ("numpy", "ndarray"),
            ("numpy", "dtype"),
            ("numpy.core.multiarray", "_reconstruct"),
            ("numpy._core.multiarray", "_reconstruct"),
            ("numpy.core.numeric", "_frombuffer"),
            ("numpy._core.numeric", "_frombuffer"),
        }
    )

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in self.ALLOWED:
            raise pickle.UnpicklingError(f"refuses to load {module}.{name}")
        return super().find_class(module, name)


def _malformed(path: Path, reason: str) -> DatasetMissing:
    return DatasetMissing(
        f"{path} is not a CIFAR-10 python batch: {reason}. Extract {ARCHIVE_NAME} again; it comes from {DOWNLOAD_PAGE}."
    )


def read_batch(path: Path) -> Cifar10Batch:
    """One batch file: a pickled dict with bytes keys, b"data" uint8 N x 3072 (channel planes, row-major)
    and b"labels" N ints in 0..9.

    Raises:
        DatasetMissing: the file is not such a batch (the message names it).
    """
    with path.open("rb") as handle:
        try:
            content = _BatchUnpickler(handle, encoding="bytes").load()
        except Exception as error:  # a damaged pickle fails in many ways; all mean the same to the user
            raise _malformed(path, f"it does not unpickle ({error})") from error
    if not isinstance(content, dict) or b"data" not in content or b"labels" not in content:
        raise _malformed(path, 'it is not a dict with the keys b"data" and b"labels"')
    data, labels = content[b"data"], np.asarray(content[b"labels"])
    pixels = math.prod(IMAGE_SHAPE)
    if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != pixels:
        shape = getattr(data, "shape", type(data).__name__)
        raise _malformed(path, f'b"data" is {shape}, not a uint8 array of N x {pixels}')
    if labels.shape != (data.shape[0],) or not np.issubdtype(labels.dtype, np.integer):
        raise _malformed(path, f'b"labels" does not hold one integer for each of the {data.shape[0]} images')
    if labels.size and (labels.min() < 0 or labels.max() >= NUM_CLASSES):
        raise _malformed(path, f"a label lies outside 0..{NUM_CLASSES - 1}")
    images = torch.from_numpy(data.reshape(-1, *IMAGE_SHAPE).copy())
    return images, torch.from_numpy(labels.astype(np.int64))


def read_cifar10(data_dir: Path | None) -> Cifar10Arrays:
    """The five training batches (in order) and the test batch under `data_dir`."""
    directory = find_batches_directory(data_dir)
    train = [read_batch(directory / name) for name in TRAIN_FILES]
    test_images, test_labels = read_batch(directory / TEST_FILE)
    return Cifar10Arrays(
        train_images=torch.cat([images for images, _ in train]),
        train_labels=torch.cat([labels for _, labels in train]),
        test_images=test_images,
        test_labels=test_labels,
    )


class Cifar10Workload(Workload):
    """What the CIFAR-10 recipes share: the reader, `prepare` and the evaluation.

    `prepare` scales to [0, 1], crops and flips (`crop_padding`, `crop_padding_mode`), normalises with the
    recipe's `mean` and `std`, then cuts out (`cutout` pixels square, 0 for none), so that cut-out pixels
    are the mean as in Page's code. Reflection padding commutes with the normalisation; zero padding is in
    pixel space, as torchvision's `RandomCrop` before `Normalize`.
    """

    task = "cifar10"
    channels_last = True
    inference_input_shape = IMAGE_SHAPE  # one item, as `evaluation_batches` gives it
    mean: ClassVar[tuple[float, float, float]]
    std: ClassVar[tuple[float, float, float]]

    def __init__(self, data_dir: Path | None = None, overrides: Mapping[str, Any] | None = None):
        super().__init__(data_dir, overrides)
        self._data: Cifar10Arrays | None = None
        self._train_labels: list[int] = []

    def check_data(self) -> None:
        find_batches_directory(self.data_dir)

    def load(self) -> None:
        self._data = read_cifar10(self.data_dir)
        self._train_labels = self._data.train_labels.tolist()

    @property
    def data(self) -> Cifar10Arrays:
        if self._data is None:
            raise RuntimeError("call load() before reading CIFAR-10")
        return self._data

    @property
    def train_size(self) -> int:
        return len(self.data.train_labels)

    @property
    def eval_size(self) -> int:
        return len(self.data.test_labels)

    def examples(self, order: Sequence[int]) -> Iterator[tuple[torch.Tensor, int]]:
        images, labels = self.data.train_images, self._train_labels
        for index in order:
            yield images[index], labels[index]

    def collate(self, examples: list[tuple[torch.Tensor, int]]) -> Cifar10Batch:
        images = torch.stack([image for image, _ in examples])
        labels = torch.tensor([label for _, label in examples], dtype=torch.int64)
        return images, labels

    def synthetic_batch(self, size: int, generator: torch.Generator) -> Cifar10Batch:
        images = torch.randint(0, 256, (size, *IMAGE_SHAPE), generator=generator, dtype=torch.uint8)
        return images, torch.randint(0, NUM_CLASSES, (size,), generator=generator)

    def _normalise(self, images: torch.Tensor) -> torch.Tensor:
        """Images scaled to [0, 1] -> less the recipe's mean, over its standard deviation, per channel."""
        mean = torch.tensor(self.mean, device=images.device).view(1, -1, 1, 1)
        std = torch.tensor(self.std, device=images.device).view(1, -1, 1, 1)
        return (images - mean) / std

    def _layout(self, images: torch.Tensor) -> torch.Tensor:
        return images.contiguous(memory_format=torch.channels_last) if self.channels_last else images

    def prepare(self, batch: Cifar10Batch, device: torch.device, generator: torch.Generator) -> Cifar10Batch:
        images, labels = batch
        images = images.to(device, non_blocking=True).float().div_(255)
        images = random_crop_flip(
            images, int(self.config["crop_padding"]), generator, padding_mode=self.config["crop_padding_mode"]
        )
        images = self._normalise(images)
        if int(self.config["cutout"]) > 0:
            images = cutout(images, int(self.config["cutout"]), generator, within_image=True)
        return self._layout(images), labels.to(device, non_blocking=True)

    def evaluation_batches(self, batch_size: int) -> Iterator[Cifar10Batch]:
        images, labels = self.data.test_images, self.data.test_labels
        for start in range(0, len(labels), batch_size):
            yield (
                self._normalise(images[start : start + batch_size].float().div_(255)),
                labels[start : start + batch_size],
            )

    def evaluation_items(self, positions: Sequence[int]) -> Iterator[Cifar10Batch]:
        images, labels = self.data.test_images, self.data.test_labels
        for position in positions:
            yield (
                self._normalise(images[position : position + 1].float().div_(255)),
                labels[position : position + 1],
            )

    def evaluate(self, model: nn.Module, device: torch.device) -> float:
        batches = self.evaluation_batches(int(self.config["eval_batch_size"]))
        return top_k_accuracy(model, batches, device, k=1, channels_last=self.channels_last)


class ResNet9Cifar10(Cifar10Workload):
    """Myrtle.ai's DAWNBench-winning recipe (David Page, "How to train your ResNet"; `dawn.py` of
    https://github.com/davidcpage/cifar10-fast and the entry's JSON).

    - Network: `benchmarks.networks.resnet9.ResNet9`, PyTorch's default initialisation.
    - Batch 512, 24 epochs; SGD, Nesterov momentum 0.9; learning rate piecewise linear per step, 0 at epoch 0
      to `lr_peak` 0.4 at epoch 5 to 0 at epoch 24; weight decay 5e-4.
    - Page's code sums the loss over the batch and gives the optimizer lr / batch_size and
      weight_decay * batch_size (a learning rate per example); so does this recipe, so `loss` is a sum (the
      mean times the batch, which stays right when data parallelism splits the batch over processes).
      The update is the one of a mean loss with lr 0.4 and weight decay 5e-4: SGD's momentum buffer and
      step are linear in the gradient and the decay term, so scaling both by batch_size and the learning
      rate by 1 / batch_size cancels out.
    - Augmentation: reflect-pad 4 and random 32x32 crop, left-right flip, one 8x8 cutout wholly inside the
      image (Page's `Crop`, `FlipLR`, `Cutout(8, 8)`); his mean and standard deviation of CIFAR-10.
    - Label smoothing 0.2, from Page's later "bag of tricks" (`label_smoothing_loss(0.2)`); the entry's own
      `dawn.py` used plain cross-entropy: `label_smoothing=0.0` reproduces it.
    - Torch's SGD applies the learning rate after the momentum buffer, Page's `Nesterov` before; with this
      slowly changing schedule the two differ little.
    """

    recipe = "resnet9"
    algorithm = "cifar10_resnet9"
    mean = (0.4914, 0.4822, 0.4465)
    std = (0.2471, 0.2435, 0.2616)
    defaults = {
        "batch_size": 512,
        "epochs": 24,
        "lr_peak": 0.4,  # per mean loss; the optimizer gets lr_peak / batch_size with the summed loss
        "warmup_epochs": 5,
        "momentum": 0.9,
        "nesterov": True,
        "weight_decay": 5e-4,  # per mean loss; the optimizer gets weight_decay * batch_size
        "label_smoothing": 0.2,
        "crop_padding": 4,
        "crop_padding_mode": "reflect",
        "cutout": 8,
        "eval_batch_size": 512,
    }

    def build_model(self) -> nn.Module:
        return ResNet9(num_classes=NUM_CLASSES)

    def loss(self, model: nn.Module, batch: Cifar10Batch) -> torch.Tensor:
        images, labels = batch
        logits = model(images)
        # The mean times the recipe's (global) batch: Page's summed loss on one process, and still his update
        # under data parallelism, where each process has a share of the batch and gradients are averaged.
        mean = F.cross_entropy(logits, labels, label_smoothing=float(self.config["label_smoothing"]))
        return mean * self.batch_size


class ResNet164Cifar10(Cifar10Workload):
    """The DAWN team's reference (https://github.com/stanford-futuredata/dawn-bench-models,
    pytorch/CIFAR10: `benchmark/cifar10/train.py`, its README's commands, and the DAWNBench logs).

    - Network: `benchmarks.networks.resnet164.preact_resnet164` (`--arch preact164`), the reference's
      initialisation.
    - Batch 128 (`-b 128`); SGD, momentum 0.9, weight decay 5e-4: the reference's `--weight-decay` default,
      which its commands leave alone (He et al. used 1e-4; `weight_decay=1e-4` gives theirs).
    - Learning rate per epoch: 0.01 for `warmup_epochs` 1, then 0.1, divided by 10 at 50% and 75% of the
      181 epochs (from epoch 91 and 136, counting from 0). The README runs 5 + 90 + 45 + 45 epochs at 0.01,
      0.1, 0.01 and 0.001; the entries' logs have 181 epochs with the drops after epochs 91 and 136, so
      one warm-up epoch, as He et al. for ResNet-110 and 164.
    - Augmentation: zero-pad 4 and random 32x32 crop, left-right flip (torchvision's `RandomCrop(32,
      padding=4)`, `RandomHorizontalFlip`), no cutout; the reference's MEAN and STD; plain cross-entropy,
      mean over the batch.
    """

    recipe = "resnet164"
    algorithm = "cifar10_resnet164"
    mean = (0.4914, 0.4822, 0.4465)
    std = (0.2023, 0.1994, 0.2010)
    defaults = {
        "batch_size": 128,
        "epochs": 181,
        "lr": 0.1,
        "warmup_lr": 0.01,
        "warmup_epochs": 1,
        "lr_decay_at": (0.5, 0.75),  # fractions of `epochs`, rounded up to whole epochs
        "lr_decay_factor": 0.1,
        "momentum": 0.9,
        "weight_decay": 5e-4,
        "crop_padding": 4,
        "crop_padding_mode": "constant",
        "cutout": 0,
        "eval_batch_size": 500,
    }

    def build_model(self) -> nn.Module:
        return preact_resnet164(num_classes=NUM_CLASSES)

    def lr_boundaries_epochs(self) -> list[int]:
        """The epochs (from 0) where the learning rate changes: end of warm-up, then each decay."""
        decays = [math.ceil(float(fraction) * self.epochs) for fraction in self.config["lr_decay_at"]]
        return [int(self.config["warmup_epochs"]), *decays]

    def loss(self, model: nn.Module, batch: Cifar10Batch) -> torch.Tensor:
        images, labels = batch
        return F.cross_entropy(model(images), labels)
