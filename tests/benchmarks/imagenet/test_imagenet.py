"""The ImageNet reference recipe: indexing, decoding, augmentation, the model, the schedule, and real steps
on a tiny ImageNet of JPEG files."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from PIL import Image
from torch import nn

from benchmarks.algorithms.recipes import recipe_optimizer
from benchmarks.networks.resnet50 import Bottleneck, ResNet50
from benchmarks.workloads.base import DatasetMissing
from benchmarks.workloads.imagenet import ResNet50ImageNet, decode_center_square, random_resized_crop
from tests.benchmarks.imagenet.fixtures import TINY_OVERRIDES, WNIDS, random_image, write_tiny_imagenet

CPU = torch.device("cpu")


def tiny_workload(data_dir: Path, **overrides) -> ResNet50ImageNet:
    workload = ResNet50ImageNet(data_dir, {**TINY_OVERRIDES, **overrides})
    workload.load()
    return workload


def seeded(seed: int) -> torch.Generator:
    return torch.Generator(device=CPU).manual_seed(seed)


# Indexing


def test_indexes_the_sorted_train_classes_and_every_image(tmp_path):
    write_tiny_imagenet(tmp_path, classes=3, per_class=2, val_per_class=1)
    workload = tiny_workload(tmp_path)
    assert workload.classes == WNIDS[:3]
    assert (workload.train_size, workload.val_size) == (6, 3)


def test_indexes_image_suffixes_in_any_case_and_nothing_else(tmp_path):
    write_tiny_imagenet(tmp_path, classes=1, per_class=1)
    folder = tmp_path / "train" / WNIDS[0]
    rng = random.Random(0)
    for name in ("a.jpg", "b.JPG", "c.jpeg", "d.png", "e.PNG"):
        random_image(8, 8, rng).save(folder / name, format="PNG" if name.lower().endswith("png") else "JPEG")
    (folder / "notes.txt").write_text("not an image")
    (folder / ".f.JPEG").write_text("an editor's or macOS's leftover")
    (tmp_path / "train" / "LOC_synset_mapping.txt").write_text("n01440764 tench")
    workload = tiny_workload(tmp_path)
    assert workload.classes == (WNIDS[0],)
    assert workload.train_size == 6


def test_no_data_directory_says_where_imagenet_comes_from(tmp_path):
    with pytest.raises(DatasetMissing) as error:
        ResNet50ImageNet(tmp_path / "nowhere", TINY_OVERRIDES).load()
    assert "nowhere" in str(error.value)
    assert "https://image-net.org/download.php" in str(error.value)
    assert "--data-dir" in str(error.value)


@pytest.mark.parametrize("split", ["train", "val"])
def test_a_missing_split_folder_is_named_with_the_source(tmp_path, split):
    write_tiny_imagenet(tmp_path)
    for path in sorted((tmp_path / split).rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    (tmp_path / split).rmdir()
    with pytest.raises(DatasetMissing) as error:
        tiny_workload(tmp_path)
    assert str(tmp_path / split) in str(error.value)
    assert "ILSVRC2012" in str(error.value)
    assert "https://image-net.org/download.php" in str(error.value)


def test_train_folders_without_images_are_refused(tmp_path):
    write_tiny_imagenet(tmp_path)
    for image in (tmp_path / "train").rglob("*.JPEG"):
        image.unlink()
    with pytest.raises(DatasetMissing, match="has no images") as error:
        tiny_workload(tmp_path)
    assert str(tmp_path / "train") in str(error.value)


def test_a_val_class_unknown_to_train_is_refused_by_name(tmp_path):
    write_tiny_imagenet(tmp_path, classes=2)
    (tmp_path / "val" / "n09999999").mkdir()
    with pytest.raises(DatasetMissing, match="n09999999"):
        tiny_workload(tmp_path)


def test_an_evaluation_crop_larger_than_its_resize_is_refused():
    with pytest.raises(ValueError, match="eval_resize"):
        ResNet50ImageNet(None, {"image_size": 300})


# Decoding (the upstream stage and evaluation)


def test_examples_follow_the_order_through_workers_as_uint8_squares(tmp_path):
    write_tiny_imagenet(tmp_path, classes=3, per_class=2)
    gray = Image.frombytes("L", (50, 20), random.Random(1).randbytes(50 * 20))
    gray.save(tmp_path / "train" / WNIDS[2] / "n01484850_gray.png")  # sorts last: position 6, label 2
    workload = tiny_workload(tmp_path, workers=2, examples_per_fetch=2)
    order = [6, 0, 3, 3, 5, 1, 4, 2]

    examples = list(workload.examples(order))

    assert [label for _, label in examples] == [2, 0, 1, 1, 2, 0, 2, 1]
    for image, _ in examples:
        assert image.dtype == torch.uint8
        assert image.shape == (3, 40, 40)
    assert torch.equal(examples[2][0], examples[3][0])  # the same file decodes the same
    assert not torch.equal(examples[1][0], examples[5][0])
    gray_image = examples[0][0]
    assert torch.equal(gray_image[0], gray_image[1]) and torch.equal(gray_image[1], gray_image[2])


@pytest.mark.parametrize("size", [(80, 40), (40, 80)])
def test_upstream_keeps_the_centre_square(tmp_path, size):
    width, height = size
    image = Image.new("RGB", size, (0, 0, 0))
    side = min(width, height)
    image.paste((255, 255, 255), ((width - side) // 2, (height - side) // 2, (width + side) // 2, (height + side) // 2))
    image.save(tmp_path / "wide.png")

    square = decode_center_square(str(tmp_path / "wide.png"), resize=20, crop=20)

    assert square.shape == (3, 20, 20)
    assert square[:, 1:-1, 1:-1].min() >= 250  # the border pixels' filter may reach past the square


def test_evaluation_resizes_the_shorter_side_then_crops_the_centre(tmp_path):
    image = Image.new("RGB", (160, 80), (0, 0, 0))
    image.paste((255, 255, 255), (60, 20, 100, 60))  # the centre 40 x 40 of the image
    image.save(tmp_path / "wide.png")

    crop = decode_center_square(str(tmp_path / "wide.png"), resize=40, crop=20)  # halved, then centre 20 x 20

    assert crop.shape == (3, 20, 20)
    assert crop[:, 1:-1, 1:-1].min() >= 250


# Augmentation on the device


def test_random_resized_crop_has_the_asked_size_within_the_source_range():
    images = torch.rand(6, 3, 40, 40, generator=seeded(0)) * 100 + 50

    crops = random_resized_crop(images, 32, seeded(1))

    assert crops.shape == (6, 3, 32, 32)
    assert crops.min() >= 50 - 1e-3 and crops.max() <= 150 + 1e-3


def test_random_resized_crops_lie_inside_the_image_with_the_asked_area_and_aspect_ratio():
    # Channel 0 holds each pixel's column and channel 1 its row, so a crop's pixels step by its width and
    # height over the output size, evenly unless the crop ran past the image's edge (where values clamp).
    images = torch.zeros(64, 3, 40, 40)
    images[:, 0] = torch.arange(40.0)[None, :]
    images[:, 1] = torch.arange(40.0)[:, None]

    crops = random_resized_crop(images, 16, seeded(3), scale=(0.5, 1.0), ratio=(1 / 3, 3.0))

    steps_x = crops[:, 0, :, 1:] - crops[:, 0, :, :-1]
    steps_y = crops[:, 1, 1:, :] - crops[:, 1, :-1, :]
    widths = steps_x.abs().mean(dim=(1, 2)) * 16
    heights = steps_y.mean(dim=(1, 2)) * 16
    assert torch.allclose(steps_x.abs(), widths[:, None, None] / 16, atol=1e-4)
    assert torch.allclose(steps_y, heights[:, None, None] / 16, atol=1e-4)
    assert torch.allclose(widths, widths.round(), atol=1e-3) and torch.allclose(heights, heights.round(), atol=1e-3)
    assert widths.max() <= 40 and heights.max() <= 40
    assert (widths * heights >= 0.5 * 1600 - 45).all()  # less the rounding of each side
    assert (widths / heights >= 1 / 3 - 0.05).all() and (widths / heights <= 3 + 0.05).all()
    assert len(set(zip(widths.round().tolist(), heights.round().tolist(), strict=True))) > 32


def test_random_resized_crop_is_deterministic_for_a_seeded_generator():
    images = torch.rand(4, 3, 40, 40, generator=seeded(0))
    assert torch.equal(random_resized_crop(images, 32, seeded(7)), random_resized_crop(images, 32, seeded(7)))
    assert not torch.equal(random_resized_crop(images, 32, seeded(7)), random_resized_crop(images, 32, seeded(8)))


def test_random_resized_crop_differs_between_examples():
    images = torch.rand(1, 3, 40, 40, generator=seeded(0)).expand(8, -1, -1, -1)
    crops = random_resized_crop(images, 32, seeded(1))
    for first in range(8):
        for second in range(first + 1, 8):
            assert not torch.allclose(crops[first], crops[second])


def test_random_resized_crop_cuts_whole_pixels_at_random_offsets():
    images = torch.rand(8, 3, 40, 40, generator=seeded(0))
    # A quarter of the area at ratio 1 is a 20 x 20 crop, which at size 20 is copied without resampling.
    crops = random_resized_crop(images, 20, seeded(1), scale=(0.25, 0.25), ratio=(1.0, 1.0))
    offsets = set()
    for image, crop in zip(images, crops, strict=True):
        matches = [
            (top, left)
            for top in range(21)
            for left in range(21)
            for window in [image[:, top : top + 20, left : left + 20]]
            if torch.allclose(crop, window, atol=1e-5) or torch.allclose(crop, window.flip(2), atol=1e-5)
        ]
        assert len(matches) == 1
        offsets.add(matches[0])
    assert len(offsets) > 1


def test_random_resized_crop_falls_back_to_the_whole_image_and_flips_half():
    images = torch.rand(16, 3, 40, 40, generator=seeded(0))
    resized = F.interpolate(images, size=32, mode="bilinear", align_corners=False)
    # No area of 2-3x the image fits, so every crop falls back to the centred largest one: all of it.
    crops = random_resized_crop(images, 32, seeded(1), scale=(2.0, 3.0))
    same = [torch.allclose(crop, whole, atol=1e-4) for crop, whole in zip(crops, resized, strict=True)]
    mirrored = [torch.allclose(crop, whole.flip(2), atol=1e-4) for crop, whole in zip(crops, resized, strict=True)]
    assert all(a or b for a, b in zip(same, mirrored, strict=True))
    assert 0 < sum(mirrored) < 16
    unflipped = random_resized_crop(images, 32, seeded(1), scale=(2.0, 3.0), flip=False)
    assert torch.allclose(unflipped, resized, atol=1e-4)


def test_prepare_gives_normalised_channels_last_crops_and_the_labels(tmp_path):
    workload = tiny_workload(write_tiny_imagenet(tmp_path))
    batch = workload.collate(list(workload.examples([0, 2, 4, 5])))

    images, labels = workload.prepare(batch, CPU, seeded(0))

    assert images.shape == (4, 3, 32, 32) and images.dtype == torch.float32
    assert images.is_contiguous(memory_format=torch.channels_last)
    assert labels.tolist() == [0, 1, 2, 2]
    assert images.min() >= -2.2 and images.max() <= 2.7  # (0 - mean) / std and (1 - mean) / std
    assert abs(float(images.mean())) < 1.0  # random pixels average 0.5, about 0.2 deviations above the mean


# The model


def test_resnet50_has_the_parameters_of_torchvisions():
    parameters = sum(parameter.numel() for parameter in ResNet50().parameters())
    assert parameters == 25_557_032
    assert math.isclose(parameters, 25.56e6, rel_tol=0.01)


def test_resnet50_downsamples_in_the_3x3_convolution_and_starts_branches_at_zero():
    model = ResNet50(num_classes=10)
    first_blocks = [stage[0] for stage in model.stages]
    assert [block.conv2.stride for block in first_blocks] == [(1, 1), (2, 2), (2, 2), (2, 2)]
    assert all(block.conv1.stride == (1, 1) for block in first_blocks)
    blocks = [module for module in model.modules() if isinstance(module, Bottleneck)]
    assert len(blocks) == 16
    assert all(torch.count_nonzero(block.bn3.weight) == 0 for block in blocks)
    assert model(torch.zeros(2, 3, 64, 64)).shape == (2, 10)


def test_the_model_has_one_output_per_class_found(tmp_path):
    workload = tiny_workload(write_tiny_imagenet(tmp_path, classes=3))
    assert workload.build_model().fc.out_features == 3


# Training and evaluation on the tiny ImageNet


def test_two_training_steps_change_the_parameters_with_a_finite_loss(tmp_path):
    workload = tiny_workload(write_tiny_imagenet(tmp_path, classes=3, per_class=3))
    torch.manual_seed(0)
    model = workload.build_model().to(memory_format=torch.channels_last)
    model.train()
    optimizer, scheduler = recipe_optimizer(workload, model, steps_per_epoch=2)
    before = {name: parameter.detach().clone() for name, parameter in model.named_parameters()}
    examples = list(workload.examples([8, 1, 4, 0, 6, 2, 3, 5]))
    generator = seeded(0)

    for step in range(2):
        batch = workload.prepare(workload.collate(examples[4 * step : 4 * step + 4]), CPU, generator)
        loss = workload.loss(model, batch)
        assert torch.isfinite(loss)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()

    after = dict(model.named_parameters())
    for name in ("stem.0.weight", "stages.3.2.conv1.weight", "fc.weight", "fc.bias"):
        assert not torch.equal(before[name], after[name]), name
    assert all(torch.isfinite(parameter).all() for parameter in model.parameters())


class FixedRanking(nn.Module):
    """Ranks the classes by their index, whatever the image: top-5 of 7 is classes 2-6."""

    def __init__(self, classes: int):
        super().__init__()
        self.classes = classes
        self.shapes: list[tuple[int, ...]] = []

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        self.shapes.append(tuple(images.shape))
        return torch.arange(self.classes, dtype=torch.float32).expand(images.shape[0], -1)


def test_evaluate_gives_top5_accuracy_in_percent(tmp_path):
    workload = tiny_workload(write_tiny_imagenet(tmp_path, classes=7, per_class=1, val_per_class=2), workers=2)
    model = FixedRanking(7)

    accuracy = workload.evaluate(model, CPU)

    assert accuracy == pytest.approx(100 * 5 / 7)
    assert sorted(model.shapes) == [(2, 3, 32, 32)] + [(4, 3, 32, 32)] * 3  # 14 images in batches of 4


def test_evaluate_resnet50_gives_a_percentage(tmp_path):
    workload = tiny_workload(write_tiny_imagenet(tmp_path, classes=7, per_class=1, val_per_class=1))
    model = workload.build_model().to(memory_format=torch.channels_last).eval()
    with torch.no_grad():
        accuracy = workload.evaluate(model, CPU)
    assert isinstance(accuracy, float)
    assert 0.0 <= accuracy <= 100.0


# The optimizer and schedule


def learning_rates(workload: ResNet50ImageNet, steps_per_epoch: int, steps: int) -> list[float]:
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4))
    optimizer, scheduler = recipe_optimizer(workload, model, steps_per_epoch)
    rates = []
    for _ in range(steps):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return rates


def test_learning_rate_scales_with_the_batch_warms_up_for_five_epochs_and_steps_down():
    rates = learning_rates(ResNet50ImageNet(None, {"batch_size": 512}), steps_per_epoch=10, steps=901)
    peak = 0.1 * 512 / 256
    assert rates[0] == pytest.approx(peak / 50)  # 5 epochs of 10 steps, reaching the peak at the 50th
    assert rates[24] == pytest.approx(peak / 2)
    assert rates[49] == pytest.approx(peak)
    assert rates[50] == rates[299] == pytest.approx(peak)
    assert rates[300] == pytest.approx(peak * 0.1)  # epoch 30
    assert rates[599] == pytest.approx(peak * 0.1)
    assert rates[600] == pytest.approx(peak * 0.01)  # epoch 60
    assert rates[800] == rates[900] == pytest.approx(peak * 0.001)  # epoch 80 to the end


def test_batch_norm_scales_and_shifts_are_not_decayed():
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.LazyLinear(2))
    model(torch.zeros(1, 3, 5, 5))
    optimizer, _ = recipe_optimizer(ResNet50ImageNet(None), model, steps_per_epoch=1)
    decay = {
        group["weight_decay"]: {id(parameter) for parameter in group["params"]} for group in optimizer.param_groups
    }
    assert decay[0.0] == {id(model[1].weight), id(model[1].bias)}
    assert decay[1e-4] == {id(model[0].weight), id(model[0].bias), id(model[3].weight), id(model[3].bias)}
    assert optimizer.defaults["momentum"] == 0.9 and optimizer.defaults["nesterov"] is False
