"""ImageNet (ILSVRC2012) with ResNet-50 v1.5: the reference recipe of the board's imagenet task.

What it measures: the time to train ResNet-50 to the DAWNBench threshold, 93% top-5 accuracy on the
50,000 validation images, at 224 x 224 (shorter side resized to 256, centre crop).

The recipe is the standard large-batch one (Goyal et al., 2017, "Accurate, Large Minibatch SGD: Training
ImageNet in 1 Hour"): SGD with momentum 0.9 and weight decay 1e-4 (not on batch-norm scales and shifts),
a learning rate of 0.1 per 256 examples reached by a linear warmup over 5 epochs, divided by 10 at epochs
30, 60 and 80, 90 epochs; zero-initialised last batch-norm scale in each residual block. Label smoothing
0.1 (Szegedy et al., 2016) is added, as NVIDIA's and torchvision's references do. Augmentation is the
usual Inception-style random-resized-crop (area 8%-100%, aspect ratio 3/4-4/3) and horizontal flip. Those
references report about 76.5-77% top-1 and 93-93.5% top-5 at the end of the 90 epochs, so this recipe
crosses the threshold only in its last phase, after the decay at epoch 80.

The data path, and where each stage runs:

    examples   (upstream, CPU workers) decode a JPEG with PIL, convert to RGB, resize its shorter side to
               `upstream_size` and cut out the centre square: uint8, 3 x 288 x 288. This is the expensive
               stage that data echoing repeats after.
    collate    stack.
    prepare    (on the device) random-resized-crop to `image_size` by bilinear interpolation, random flip,
               normalise with ImageNet's channel means and deviations, channels_last.

Cropping to a fixed square upstream is what lets whole batches of examples go to the device and be
augmented there. It departs from the usual recipe in two ways: the random crops are taken from the centre
square rather than the whole image (ImageNet's images are mostly 4:3, so a ~12% strip at each side of a
landscape image is never seen), and from a 288-pixel version of it rather than the full resolution (the
images average about 400 x 350, so little detail is lost, and a 288 square leaves room for the larger
crops to be downscaled, not upscaled, to 224).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image
from torch import nn
from torch.utils.data import DataLoader, Dataset

from benchmarks.networks.resnet50 import ResNet50
from benchmarks.workloads.base import DatasetMissing, Workload
from benchmarks.workloads.common import top_k_accuracy

IMAGE_SUFFIXES = frozenset({".jpeg", ".jpg", ".png"})  # compared lower-cased
MEAN_RGB = (0.485, 0.456, 0.406)  # ImageNet's channel statistics, on the 0-1 scale
STD_RGB = (0.229, 0.224, 0.225)
TOP_K = 5  # DAWNBench scores ImageNet by top-5 accuracy

LAYOUT = (
    "The imagenet task reads ILSVRC2012 laid out as <data-dir>/train/<wnid>/*.JPEG and "
    "<data-dir>/val/<wnid>/*.JPEG, the 50,000 validation images sorted into their class folders (as the usual "
    "valprep.sh script does). Download ILSVRC2012 from https://image-net.org/download.php (after registering) "
    "and pass its folder with --data-dir; nothing is downloaded for you."
)


def dataset_missing(problem: str) -> DatasetMissing:
    """The error for a data directory that is not the layout above: the problem, then how to fix it."""
    return DatasetMissing(f"{problem}. {LAYOUT}")


@dataclass(frozen=True)
class ImageIndex:
    """The images of one split, found but not read.

    Attributes:
        root: the split's folder.
        files: each image's path under `root` ("<wnid>/<file>"), as bytes in one numpy array: no Python
            object per file, so the job's forked data workers share the 1.28M paths without copying them.
        labels: each image's class, an index into the sorted train class folders.
    """

    root: str
    files: np.ndarray
    labels: np.ndarray

    def __len__(self) -> int:
        return len(self.files)

    def path(self, position: int) -> str:
        return os.path.join(self.root, os.fsdecode(self.files[position]))


def class_folders(split_dir: Path) -> list[str]:
    """The names of the class folders of a split, sorted."""
    return sorted(entry.name for entry in os.scandir(split_dir) if entry.is_dir() and not entry.name.startswith("."))


def index_split(split_dir: Path, classes: Sequence[str]) -> ImageIndex:
    """Every image (by suffix, any case) in the folders of these classes, in class then file-name order.
    A class without a folder here has no images in this split."""
    files: list[bytes] = []
    labels: list[int] = []
    for label, wnid in enumerate(classes):
        folder = split_dir / wnid
        if not folder.is_dir():
            continue
        names = sorted(
            entry.name
            for entry in os.scandir(folder)
            if entry.is_file()
            and not entry.name.startswith(".")
            and os.path.splitext(entry.name)[1].lower() in IMAGE_SUFFIXES
        )
        files.extend(os.fsencode(os.path.join(wnid, name)) for name in names)
        labels.extend([label] * len(names))
    return ImageIndex(
        root=str(split_dir),
        files=np.array(files, dtype=np.bytes_) if files else np.zeros(0, dtype="S1"),
        labels=np.array(labels, dtype=np.int64),
    )


def decode_center_square(path: str, resize: int, crop: int, draft: bool = False) -> torch.Tensor:
    """The image at `path` in RGB, its shorter side resized to `resize` and its centre `crop` x `crop`
    square cut out (`crop` <= `resize`): uint8, 3 x crop x crop.

    One PIL resize does both, from the region of the source that becomes the square. With `draft`, a JPEG
    is decoded at 1/2, 1/4 or 1/8 scale where that still leaves each side at least `resize` (libjpeg's DCT
    scaling: several times faster on large images, and a good low-pass filter before the resize).
    """
    with Image.open(path) as image:
        if draft:
            image.draft("RGB", (resize, resize))
        rgb = image.convert("RGB")
    width, height = rgb.size
    side = crop * min(width, height) / resize
    left, top = (width - side) / 2, (height - side) / 2
    square = rgb.resize((crop, crop), Image.Resampling.BILINEAR, box=(left, top, left + side, top + side))
    # numpy's transposing copy: with workers=0 this runs in the job's process, where torch's threaded copy
    # of so small a tensor can cost more than the decoding on a busy machine.
    return torch.from_numpy(np.asarray(square).transpose(2, 0, 1).copy())


class DecodedChunks(Dataset):
    """Decodes a chunk of examples per call, given a list of positions: one round trip to a data worker
    carries many images, and the chunk comes back as one tensor."""

    def __init__(self, index: ImageIndex, resize: int, crop: int, draft: bool):
        self.index = index
        self.resize = resize
        self.crop = crop
        self.draft = draft

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, positions: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        images = [decode_center_square(self.index.path(p), self.resize, self.crop, self.draft) for p in positions]
        return torch.stack(images), torch.from_numpy(self.index.labels[positions])


def random_resized_crop(
    images: torch.Tensor,
    size: int,
    generator: torch.Generator,
    scale: Sequence[float] = (0.08, 1.0),
    ratio: Sequence[float] = (3 / 4, 4 / 3),
    flip: bool = True,
    attempts: int = 10,
) -> torch.Tensor:
    """Each image's random-resized-crop to `size` x `size`, flipped left-right with probability 1/2 when
    `flip`, vectorised over a float batch N x C x H x W on its own device.

    The crop is chosen as torchvision's `RandomResizedCrop` chooses it (Szegedy et al.'s Inception
    augmentation): up to `attempts` draws of an area (a uniform fraction in `scale` of the image) and an
    aspect ratio (log-uniform in `ratio`); the first that fits is placed uniformly at random; when none
    fits, the largest centred crop with the ratio clamped into `ratio`. It is resampled by bilinear
    interpolation (one `grid_sample`, with the flip folded into the sampling grid), without torchvision's
    antialiasing: from the 288-pixel upstream square to 224 pixels no crop shrinks by more than 1.3x, too
    little for aliasing to matter. Every random number comes from `generator`, a fixed count per call.
    """
    n, channels, height, width = images.shape
    device = images.device
    draw = partial(torch.rand, device=device, generator=generator)  # uniform in [0, 1)
    area = height * width * (scale[0] + (scale[1] - scale[0]) * draw((n, attempts)))
    log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
    aspect = torch.exp(log_ratio[0] + (log_ratio[1] - log_ratio[0]) * draw((n, attempts)))
    crop_width = torch.round(torch.sqrt(area * aspect))
    crop_height = torch.round(torch.sqrt(area / aspect))
    fits = (crop_width > 0) & (crop_width <= width) & (crop_height > 0) & (crop_height <= height)
    first = fits.float().argmax(dim=1, keepdim=True)  # the first attempt that fits (argmax returns the first)
    found = fits.any(dim=1)

    in_ratio = width / height
    if in_ratio < min(ratio):
        fallback_width, fallback_height = width, round(width / min(ratio))
    elif in_ratio > max(ratio):
        fallback_width, fallback_height = round(height * max(ratio)), height
    else:
        fallback_width, fallback_height = width, height
    crop_width = torch.where(found, crop_width.gather(1, first).squeeze(1), float(fallback_width))
    crop_height = torch.where(found, crop_height.gather(1, first).squeeze(1), float(fallback_height))

    random_left = torch.floor(draw(n) * (width - crop_width + 1))
    random_top = torch.floor(draw(n) * (height - crop_height + 1))
    left = torch.where(found, random_left, float((width - fallback_width) // 2))
    top = torch.where(found, random_top, float((height - fallback_height) // 2))
    flipped = draw(n) < 0.5
    sign = torch.where(flipped, -1.0, 1.0) if flip else torch.ones(n, device=device)

    # Output coordinates in [-1, 1] map onto the crop's edges (align_corners=False): centre plus half-width.
    theta = torch.zeros((n, 2, 3), device=device, dtype=images.dtype)
    theta[:, 0, 0] = sign * crop_width / width
    theta[:, 0, 2] = (2 * left + crop_width) / width - 1
    theta[:, 1, 1] = crop_height / height
    theta[:, 1, 2] = (2 * top + crop_height) / height - 1
    grid = F.affine_grid(theta, [n, channels, size, size], align_corners=False)
    return F.grid_sample(images, grid, mode="bilinear", padding_mode="border", align_corners=False)


def normalize(images: torch.Tensor) -> torch.Tensor:
    """Float images on the 0-255 scale, less ImageNet's channel means, over its channel deviations."""
    mean = torch.tensor(MEAN_RGB, device=images.device, dtype=images.dtype).view(1, 3, 1, 1) * 255
    std = torch.tensor(STD_RGB, device=images.device, dtype=images.dtype).view(1, 3, 1, 1) * 255
    return (images - mean) / std


class ResNet50ImageNet(Workload):
    """ResNet-50 v1.5 on ImageNet, 90 epochs of SGD with warmup and step decay (module docstring)."""

    task = "imagenet"
    recipe = "resnet50"
    algorithm = "imagenet_resnet50"
    channels_last = True
    model_needs_data = True  # the class count is the number of class folders found
    defaults: Mapping[str, Any] = {
        "batch_size": 256,
        "epochs": 90,
        "learning_rate_per_256": 0.1,  # the peak rate is this times batch_size / 256 (Goyal et al.)
        "momentum": 0.9,
        "nesterov": False,
        "weight_decay": 1e-4,
        "norm_weight_decay": 0.0,  # on batch-norm scales and shifts (Goyal et al. decay them not at all)
        "warmup_epochs": 5,
        "decay_epochs": (30, 60, 80),
        "decay_factor": 0.1,
        "label_smoothing": 0.1,
        "image_size": 224,  # the side of the training crops and of the evaluated centre crops
        "crop_scale": (0.08, 1.0),  # the random crop's area, as a fraction of the upstream square
        "crop_ratio": (3 / 4, 4 / 3),  # the random crop's width over its height
        "upstream_size": 288,  # the side of the centre square that the upstream stage decodes to
        "eval_resize": 256,  # validation images: shorter side to this, then the centre `image_size` square
        "eval_batch_size": 256,
        "workers": min(8, os.cpu_count() or 1),  # decoding processes; 0 decodes in the job's own process
        "examples_per_fetch": 32,  # images a worker decodes per request
    }

    def __init__(self, data_dir: Path | None = None, overrides: Mapping[str, Any] | None = None):
        super().__init__(data_dir, overrides)
        if self.config["image_size"] > self.config["eval_resize"]:
            raise ValueError("imagenet/resnet50: image_size must be at most eval_resize (a centre crop of it).")
        self.classes: tuple[str, ...] = ()
        self._train: ImageIndex | None = None
        self._val: ImageIndex | None = None

    def check_data(self) -> None:
        self._split_dirs()

    def _split_dirs(self) -> tuple[Path, Path]:
        """The train/ and val/ folders under the data directory."""
        if self.data_dir is None:
            raise dataset_missing("No data directory was given")
        if not self.data_dir.is_dir():
            raise dataset_missing(f"The data directory {self.data_dir} does not exist")
        train_dir, val_dir = self.data_dir / "train", self.data_dir / "val"
        for split_dir in (train_dir, val_dir):
            if not split_dir.is_dir():
                raise dataset_missing(f"The folder {split_dir} is missing")
        return train_dir, val_dir

    def load(self) -> None:
        train_dir, val_dir = self._split_dirs()
        classes = class_folders(train_dir)
        if not classes:
            raise dataset_missing(f"{train_dir} has no class folders")
        unknown = sorted(set(class_folders(val_dir)) - set(classes))
        if unknown:
            named = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
            raise dataset_missing(f"{val_dir} has class folders that {train_dir} lacks: {named}")
        train, val = index_split(train_dir, classes), index_split(val_dir, classes)
        for split_dir, index in ((train_dir, train), (val_dir, val)):
            if len(index) == 0:
                raise dataset_missing(f"{split_dir} has no images (.JPEG, .jpeg, .jpg or .png) in its class folders")
        self.classes, self._train, self._val = tuple(classes), train, val

    @property
    def train_size(self) -> int:
        return len(self._loaded(self._train))

    @property
    def val_size(self) -> int:
        return len(self._loaded(self._val))

    @property
    def eval_size(self) -> int:
        return self.val_size

    def examples(self, order: Sequence[int]) -> Iterator[tuple[torch.Tensor, int]]:
        """(image, label) per index of `order`: the image uint8, 3 x upstream_size x upstream_size.

        Each call starts its own data workers, so the job calls it once per epoch (or per long stretch).
        """
        size = int(self.config["upstream_size"])
        dataset = DecodedChunks(self._loaded(self._train), resize=size, crop=size, draft=True)
        positions = np.asarray(order, dtype=np.int64)
        per_fetch = int(self.config["examples_per_fetch"])
        chunks = [positions[start : start + per_fetch].tolist() for start in range(0, len(positions), per_fetch)]
        for images, labels in self._loader(dataset, chunks):
            if self.config["workers"]:
                # A chunk from a worker lives in shared memory with an open file descriptor for as long as
                # any view of it does; a copy lets data echoing keep examples without running out of them.
                images = images.clone()
            yield from zip(images.unbind(0), labels.tolist(), strict=True)

    def collate(self, examples: list[tuple[torch.Tensor, int]]) -> tuple[torch.Tensor, torch.Tensor]:
        images = torch.stack([image for image, _ in examples])
        labels = torch.tensor([label for _, label in examples], dtype=torch.int64)
        return images, labels

    def prepare(
        self, batch: tuple[torch.Tensor, torch.Tensor], device: torch.device, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor]:
        images, labels = batch
        images = random_resized_crop(
            images.to(device, non_blocking=True).float(),
            int(self.config["image_size"]),
            generator,
            scale=self.config["crop_scale"],
            ratio=self.config["crop_ratio"],
        )
        images = normalize(images).contiguous(memory_format=torch.channels_last)
        return images, labels.to(device, non_blocking=True)

    def shape_from(self, state_dict: Mapping[str, torch.Tensor]) -> None:
        """The class count from the final layer's weights (the names stand in until `load` reads the real ones)."""
        if not self.classes:
            self.classes = tuple(f"class{index}" for index in range(state_dict["fc.weight"].shape[0]))

    def build_model(self) -> nn.Module:
        if not self.classes:
            raise RuntimeError("imagenet/resnet50: load() the data before building the model (it counts the classes).")
        return ResNet50(num_classes=len(self.classes))

    def loss(self, model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        images, labels = batch
        return F.cross_entropy(model(images), labels, label_smoothing=float(self.config["label_smoothing"]))

    @property
    def inference_input_shape(self) -> tuple[int, int, int]:
        """One item, as `evaluation_batches` gives it."""
        return (3, int(self.config["image_size"]), int(self.config["image_size"]))

    def evaluation_batches(self, batch_size: int) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """The validation images, shorter side to `eval_resize`, centre crop, normalised."""
        val = self._loaded(self._val)
        dataset = DecodedChunks(
            val, resize=int(self.config["eval_resize"]), crop=int(self.config["image_size"]), draft=False
        )
        chunks = [list(range(start, min(start + batch_size, len(val)))) for start in range(0, len(val), batch_size)]
        for images, labels in self._loader(dataset, chunks):
            yield normalize(images.float()), labels

    def evaluation_items(self, positions: Sequence[int]) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """The validation images at `positions` alone, decoded as `evaluation_batches` decodes them."""
        dataset = DecodedChunks(
            self._loaded(self._val),
            resize=int(self.config["eval_resize"]),
            crop=int(self.config["image_size"]),
            draft=False,
        )
        chunk = int(self.config["eval_batch_size"])
        chunks = [list(positions[start : start + chunk]) for start in range(0, len(positions), chunk)]
        for images, labels in self._loader(dataset, chunks):
            normalised = normalize(images.float())
            for row in range(len(labels)):
                yield normalised[row : row + 1], labels[row : row + 1]

    @torch.no_grad()
    def evaluate(self, model: nn.Module, device: torch.device) -> float:
        """Top-5 accuracy in percent on the validation images."""
        batches = self.evaluation_batches(int(self.config["eval_batch_size"]))
        return top_k_accuracy(model, batches, device, k=TOP_K, channels_last=True)

    def _loader(self, dataset: DecodedChunks, chunks: list[list[int]]) -> DataLoader:
        # batch_size=None: each item the sampler yields is a whole chunk, which the dataset decodes at once.
        return DataLoader(dataset, batch_size=None, sampler=chunks, num_workers=int(self.config["workers"]))

    @staticmethod
    def _loaded(index: ImageIndex | None) -> ImageIndex:
        if index is None:
            raise RuntimeError("imagenet/resnet50: call load() first.")
        return index
