"""A tiny ImageNet in ImageNet's layout, real JPEG files of varied sizes, and settings that make a step fast."""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image

WNIDS = ("n01440764", "n01443537", "n01484850", "n01491361", "n01494475", "n01496331", "n01498041", "n01514668")
SIZES = ((40, 30), (30, 50), (64, 48), (36, 36))  # width x height: landscape, portrait, larger, square

# ResNet-50 takes 32 x 32 crops (its stride is 32), so one training step on the CPU is a fraction of a second.
TINY_OVERRIDES = {
    "batch_size": 4,
    "image_size": 32,
    "upstream_size": 40,
    "eval_resize": 36,
    "eval_batch_size": 4,
    "workers": 0,
    "examples_per_fetch": 3,
}


def random_image(width: int, height: int, rng: random.Random, mode: str = "RGB") -> Image.Image:
    channels = len(Image.new(mode, (1, 1)).getbands())
    return Image.frombytes(mode, (width, height), rng.randbytes(width * height * channels))


def write_tiny_imagenet(directory: Path, classes: int = 3, per_class: int = 2, val_per_class: int = 1) -> Path:
    """`directory` holding train/<wnid>/*.JPEG and val/<wnid>/*.JPEG, random images of varied sizes."""
    rng = random.Random(0)
    for split, count in (("train", per_class), ("val", val_per_class)):
        for wnid in WNIDS[:classes]:
            folder = directory / split / wnid
            folder.mkdir(parents=True, exist_ok=True)
            for number in range(count):
                width, height = SIZES[number % len(SIZES)]
                name = f"{wnid}_{number}.JPEG" if split == "train" else f"ILSVRC2012_val_{wnid[1:]}{number}.JPEG"
                random_image(width, height, rng).save(folder / name, quality=90)
    return directory
