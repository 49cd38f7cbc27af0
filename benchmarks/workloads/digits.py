"""The bundled task: scikit-learn's 8x8 handwritten digits (1,797 images of 10 classes, a copy of the UCI
"Optical Recognition of Handwritten Digits" test set), which ship inside scikit-learn, so the job needs
no download and runs anywhere.

The train/test split is fixed (stratified, 25 % test, `random_state=0`) and never depends on the run's
seed, so every run is judged on the same 450 test images; the seed moves only the initialisation, the
order of examples and the augmentation.

Both are read as files, without importing scikit-learn (3 s of every run's start, for its statistics stack):
the images from the CSV that `sklearn.datasets.load_digits` reads, the split from data/digits_split.json, the
indices `sklearn.model_selection.train_test_split` gives (tests/benchmarks/test_digits.py checks both against
scikit-learn's own functions).
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.networks.digits_cnn import DigitsCNN
from benchmarks.workloads.base import Workload
from benchmarks.workloads.common import random_crop, top_k_accuracy

TEST_FRACTION = 0.25
SPLIT_SEED = 0
SPLIT_FILE = Path(__file__).resolve().parent / "data" / "digits_split.json"
PIXEL_MAX = 16.0  # the digits' pixels are counts 0..16
IMAGE_SHAPE = (1, 8, 8)
NUM_CLASSES = 10


def digits_csv() -> Path:
    """scikit-learn's copy of the digits, found without importing scikit-learn."""
    spec = importlib.util.find_spec("sklearn")
    if spec is None or spec.origin is None:
        raise RuntimeError("scikit-learn is not installed: the digits task reads the copy of the digits it ships")
    return Path(spec.origin).parent / "datasets" / "data" / "digits.csv.gz"


def read_digits() -> tuple[np.ndarray, np.ndarray]:
    """(images float64 N x 8 x 8 of pixel counts, labels int): what `load_digits()` gives as images and target."""
    with gzip.open(digits_csv(), "rt") as csv:
        data = np.loadtxt(csv, delimiter=",")
    return data[:, :-1].reshape(-1, 8, 8), data[:, -1].astype(int)


def digits_split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(train images, train labels, test images, test labels): images float32 N x 1 x 8 x 8 in [0, 1]."""
    pixels, labels = read_digits()
    images = (pixels / PIXEL_MAX).astype(np.float32)[:, None, :, :]
    split = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))
    train, test = np.asarray(split["train"]), np.asarray(split["test"])
    return images[train], labels[train].astype(np.int64), images[test], labels[test].astype(np.int64)


class DigitsCNNWorkload(Workload):
    task = "digits"
    recipe = "cnn"
    algorithm = "digits_cnn"
    channels_last = False  # 8x8 images: the layout makes no difference at this size
    inference_input_shape = IMAGE_SHAPE  # one item, as `evaluation_batches` gives it
    defaults = {
        "batch_size": 64,
        "epochs": 30,
        "width": 32,
        "lr_peak": 0.05,
        "warmup_epochs": 3,
        "momentum": 0.9,
        "weight_decay": 5e-4,
        "label_smoothing": 0.1,
        "max_shift": 1,  # pixels an image may move in each direction
        "eval_batch_size": 512,
    }

    def load(self) -> None:
        train_x, train_y, test_x, test_y = digits_split()
        self.train_images, self.train_labels = torch.from_numpy(train_x), torch.from_numpy(train_y)
        self.test_images, self.test_labels = torch.from_numpy(test_x), torch.from_numpy(test_y)

    @property
    def train_size(self) -> int:
        return len(self.train_labels)

    @property
    def eval_size(self) -> int:
        return len(self.test_labels)

    def examples(self, order: Sequence[int]) -> Iterator[int]:
        """The images are in memory: an example is its index, and reading it is the gather in `collate`."""
        return iter(order)

    def collate(self, examples: list[int]):
        indices = torch.tensor(examples)
        return self.train_images[indices], self.train_labels[indices]

    def synthetic_batch(self, size, generator):
        images = torch.rand((size, *IMAGE_SHAPE), generator=generator)
        return images, torch.randint(0, NUM_CLASSES, (size,), generator=generator)

    def prepare(self, batch, device, generator):
        images, labels = (tensor.to(device, non_blocking=True) for tensor in batch)
        # Moved by up to `max_shift` pixels, the border filled with zeros; never flipped (a flipped 2 is no digit).
        return random_crop(images, self.config["max_shift"], generator, padding_mode="constant"), labels

    def build_model(self) -> nn.Module:
        return DigitsCNN(width=self.config["width"], num_classes=NUM_CLASSES)

    def loss(self, model, batch):
        images, labels = batch
        return F.cross_entropy(model(images), labels, label_smoothing=self.config["label_smoothing"])

    def evaluation_batches(self, batch_size: int):
        for start in range(0, len(self.test_labels), batch_size):
            yield self.test_images[start : start + batch_size], self.test_labels[start : start + batch_size]

    def evaluation_items(self, positions):
        for position in positions:
            yield self.test_images[position : position + 1], self.test_labels[position : position + 1]

    def evaluate(self, model, device) -> float:
        return top_k_accuracy(model, self.evaluation_batches(self.config["eval_batch_size"]), device, k=1)
