"""A tiny CIFAR-10 in the real on-disk format, for tests: the six pickled batches of the "python version"."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np

TRAIN_FILES = tuple(f"data_batch_{index}" for index in range(1, 6))
TEST_FILE = "test_batch"

# Settings both recipes have, small enough for the tiny data set on a CPU.
TINY_OVERRIDES = {"batch_size": 4, "epochs": 2, "eval_batch_size": 3}


def _write_batch(path: Path, batch_label: str, data: np.ndarray, labels: list[int]) -> None:
    content = {
        b"batch_label": batch_label.encode(),
        b"labels": labels,
        b"data": data,
        b"filenames": [f"tiny_{path.name}_{index}.png".encode() for index in range(len(labels))],
    }
    # Protocol 2, as the published files (written by Python 2's cPickle).
    path.write_bytes(pickle.dumps(content, protocol=2))


def write_tiny_cifar10(directory: Path, train_per_batch: int = 4, test_count: int = 8, seed: int = 0) -> Path:
    """Writes data_batch_1..5 and test_batch into `directory` (created if needed) and returns it.

    Images are random uint8 (N x 3072, channel planes); labels run through the 10 classes, each batch
    starting where the previous one stopped.
    """
    directory.mkdir(parents=True, exist_ok=True)
    random = np.random.default_rng(seed)
    label = 0
    batches = [(name, f"training batch {index} of 5", train_per_batch) for index, name in enumerate(TRAIN_FILES, 1)]
    batches.append((TEST_FILE, "testing batch 1 of 1", test_count))
    for name, batch_label, count in batches:
        data = random.integers(0, 256, size=(count, 3072), dtype=np.uint8)
        labels = [(label + index) % 10 for index in range(count)]
        label += count
        _write_batch(directory / name, batch_label, data, labels)
    return directory
