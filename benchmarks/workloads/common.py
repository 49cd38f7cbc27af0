"""Pieces several recipes share: schedules, image augmentation on a batch, top-k accuracy."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import pairwise

import torch


def piecewise_linear(step: float, knots: Sequence[float], values: Sequence[float]) -> float:
    """The value at `step` of the line through (knots[i], values[i]); flat beyond the ends."""
    if step <= knots[0]:
        return float(values[0])
    for (x0, y0), (x1, y1) in pairwise(zip(knots, values, strict=True)):
        if step <= x1:
            return float(y0 + (y1 - y0) * (step - x0) / (x1 - x0))
    return float(values[-1])


def piecewise_constant(step: float, boundaries: Sequence[float], values: Sequence[float]) -> float:
    """values[0] before boundaries[0], values[i] from boundaries[i - 1] on: a step schedule.

    `values` has one more item than `boundaries`, which ascend.
    """
    return float(values[bisect_right(boundaries, step)])


def random_crop(
    images: torch.Tensor, padding: int, generator: torch.Generator, *, padding_mode: str = "reflect"
) -> torch.Tensor:
    """Each image padded by `padding`, cropped back to its size at a random offset: moved by up to `padding`
    pixels each way, vectorised over a batch.

    `padding_mode` is "reflect" (Page's ResNet-9) or "constant" (zeros, as torchvision's `RandomCrop`).
    """
    if padding == 0:
        return images
    n, _, height, width = images.shape
    padded = torch.nn.functional.pad(images, (padding,) * 4, mode=padding_mode)
    dy = torch.randint(0, 2 * padding + 1, (n,), device=images.device, generator=generator)
    dx = torch.randint(0, 2 * padding + 1, (n,), device=images.device, generator=generator)
    rows = (dy[:, None] + torch.arange(height, device=images.device)[None, :])[:, None, :, None]
    cols = (dx[:, None] + torch.arange(width, device=images.device)[None, :])[:, None, None, :]
    batch = torch.arange(n, device=images.device)[:, None, None, None]
    channel = torch.arange(images.shape[1], device=images.device)[None, :, None, None]
    return padded[batch, channel, rows, cols]


def random_crop_flip(
    images: torch.Tensor, padding: int, generator: torch.Generator, *, padding_mode: str = "reflect"
) -> torch.Tensor:
    """`random_crop`, then each image flipped left-right with probability 1/2: the standard CIFAR
    augmentation."""
    cropped = random_crop(images, padding, generator, padding_mode=padding_mode)
    flip = torch.rand(images.shape[0], device=images.device, generator=generator) < 0.5
    return torch.where(flip[:, None, None, None], cropped.flip(3), cropped)


def cutout(images: torch.Tensor, size: int, generator: torch.Generator, *, within_image: bool = False) -> torch.Tensor:
    """Each image with one `size` x `size` square set to zero.

    By default the square is centred anywhere and clipped at the edges (DeVries & Taylor); with
    `within_image` it lies wholly inside the image, as in Page's ResNet-9 (`Cutout(8, 8)` in cifar10-fast).
    """
    n, _, height, width = images.shape
    if within_image:
        top = torch.randint(0, height - size + 1, (n,), device=images.device, generator=generator)
        left = torch.randint(0, width - size + 1, (n,), device=images.device, generator=generator)
    else:
        top = torch.randint(0, height, (n,), device=images.device, generator=generator) - size // 2
        left = torch.randint(0, width, (n,), device=images.device, generator=generator) - size // 2
    ys = torch.arange(height, device=images.device)[None, :]
    xs = torch.arange(width, device=images.device)[None, :]
    inside_y = (ys >= top[:, None]) & (ys < top[:, None] + size)
    inside_x = (xs >= left[:, None]) & (xs < left[:, None] + size)
    mask = inside_y[:, :, None] & inside_x[:, None, :]
    return images.masked_fill(mask[:, None, :, :], 0.0)


def top_k_accuracy(
    model: torch.nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    device: torch.device,
    k: int,
    *,
    channels_last: bool = False,
) -> float:
    """Percent of the examples whose label is among the model's k highest logits."""
    correct = total = 0
    for inputs, labels in batches:
        inputs = inputs.to(device)
        if channels_last:
            inputs = inputs.contiguous(memory_format=torch.channels_last)
        correct += top_k_correct(model(inputs), labels.to(device), k)
        total += len(labels)
    return 100.0 * correct / total


def top_k_correct(logits: torch.Tensor, targets: torch.Tensor, k: int) -> int:
    """How many rows have their target among the k highest logits."""
    top = logits.topk(min(k, logits.shape[1]), dim=1).indices
    return int((top == targets[:, None]).any(dim=1).sum())
