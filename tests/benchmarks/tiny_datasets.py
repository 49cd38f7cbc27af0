"""Every recipe's tiny dataset in its exact on-disk format, with the settings that make one epoch of it quick: what
the tests run each recipe through the job on, and what the GPU check (bench/gpu_check.py) runs on CUDA."""

from __future__ import annotations

from tests.benchmarks.cifar10 import fixtures as cifar10
from tests.benchmarks.imagenet import fixtures as imagenet
from tests.benchmarks.squad import fixtures as squad

# (task, recipe) -> (a writer of the dataset into a folder, the recipe settings for it)
TINY_DATASETS = {
    ("cifar10", "resnet9"): (cifar10.write_tiny_cifar10, cifar10.TINY_OVERRIDES),
    ("cifar10", "resnet164"): (cifar10.write_tiny_cifar10, cifar10.TINY_OVERRIDES),
    ("imagenet", "resnet50"): (imagenet.write_tiny_imagenet, imagenet.TINY_OVERRIDES),
    ("squad", "bidaf"): (squad.write_tiny_squad, squad.TINY_OVERRIDES),
}
