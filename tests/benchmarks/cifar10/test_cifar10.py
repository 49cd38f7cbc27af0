"""The CIFAR-10 recipes: the batch reader, augmentation, the networks, the schedules and real training steps,
all on a tiny data set in the real format."""

from __future__ import annotations

import copy
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.algorithms.recipes import recipe_optimizer
from benchmarks.networks.resnet9 import ResNet9
from benchmarks.networks.resnet164 import preact_resnet164
from benchmarks.workloads import workload_class
from benchmarks.workloads.base import DatasetMissing
from benchmarks.workloads.cifar10 import (
    EXPECTED_FILES,
    ResNet9Cifar10,
    ResNet164Cifar10,
    read_cifar10,
)
from benchmarks.workloads.common import cutout, random_crop_flip
from tests.benchmarks.cifar10.fixtures import TINY_OVERRIDES, write_tiny_cifar10

RECIPES = [ResNet9Cifar10, ResNet164Cifar10]


@pytest.fixture
def tiny_dir(tmp_path: Path) -> Path:
    return write_tiny_cifar10(tmp_path / "cifar")


def _unpickled(path: Path) -> dict:
    with path.open("rb") as handle:
        return pickle.load(handle, encoding="bytes")


def _loaded(recipe: type, data_dir: Path, **overrides) -> ResNet9Cifar10 | ResNet164Cifar10:
    workload = recipe(data_dir, {**TINY_OVERRIDES, **overrides})
    workload.load()
    return workload


# The reader


def test_reads_every_batch_in_file_order(tiny_dir: Path):
    data = read_cifar10(tiny_dir)

    assert data.train_images.shape == (20, 3, 32, 32) and data.train_images.dtype == torch.uint8
    assert data.test_images.shape == (8, 3, 32, 32)
    batches = [_unpickled(tiny_dir / f"data_batch_{index}") for index in range(1, 6)]
    expected_images = np.concatenate([batch[b"data"] for batch in batches]).reshape(20, 3, 32, 32)
    assert np.array_equal(data.train_images.numpy(), expected_images)
    assert data.train_labels.tolist() == [label for batch in batches for label in batch[b"labels"]]
    assert data.test_labels.tolist() == _unpickled(tiny_dir / "test_batch")[b"labels"]


def test_image_rows_are_red_green_blue_planes(tiny_dir: Path):
    raw = _unpickled(tiny_dir / "data_batch_1")[b"data"][0]

    image = read_cifar10(tiny_dir).train_images[0]

    assert image[0, 0, 1] == raw[1]  # red, row 0, column 1
    assert image[1, 2, 0] == raw[1024 + 2 * 32]  # green, row 2, column 0
    assert image[2, 31, 31] == raw[3071]


def test_reads_the_extracted_archive_layout(tmp_path: Path):
    write_tiny_cifar10(tmp_path / "cifar-10-batches-py")

    assert read_cifar10(tmp_path).train_images.shape == (20, 3, 32, 32)


def test_missing_directory_names_every_file_and_where_cifar10_comes_from(tmp_path: Path):
    with pytest.raises(DatasetMissing) as raised:
        read_cifar10(tmp_path / "nowhere")

    message = str(raised.value)
    for name in EXPECTED_FILES:
        assert name in message
    assert str(tmp_path / "nowhere") in message
    assert "https://www.cs.toronto.edu/~kriz/cifar.html" in message
    assert "cifar-10-python.tar.gz" in message
    assert "--data-dir" in message


def test_no_data_directory_raises_dataset_missing():
    with pytest.raises(DatasetMissing, match="--data-dir"):
        ResNet9Cifar10(None).load()


def test_missing_test_batch_is_named(tiny_dir: Path):
    (tiny_dir / "test_batch").unlink()

    with pytest.raises(DatasetMissing) as raised:
        read_cifar10(tiny_dir)

    assert f"missing test_batch in {tiny_dir}." in str(raised.value)
    assert "https://www.cs.toronto.edu/~kriz/cifar.html" in str(raised.value)


def test_missing_file_is_reported_in_the_nested_directory_holding_the_rest(tmp_path: Path):
    nested = write_tiny_cifar10(tmp_path / "cifar-10-batches-py")
    (nested / "data_batch_4").unlink()

    with pytest.raises(DatasetMissing, match=f"missing data_batch_4 in {nested}\\."):
        read_cifar10(tmp_path)


@pytest.mark.parametrize(
    "content",
    [
        b"this is not a pickle",
        pickle.dumps([1, 2, 3], protocol=2),
        pickle.dumps({b"data": np.zeros((4, 100), np.uint8), b"labels": [0, 1, 2, 3]}, protocol=2),
        pickle.dumps({b"data": np.zeros((4, 3072), np.float32), b"labels": [0, 1, 2, 3]}, protocol=2),
        pickle.dumps({b"data": np.zeros((4, 3072), np.uint8), b"labels": [0, 1]}, protocol=2),
        pickle.dumps({b"data": np.zeros((4, 3072), np.uint8), b"labels": [0, 1, 2, 10]}, protocol=2),
    ],
    ids=["not-a-pickle", "not-a-dict", "wrong-shape", "not-uint8", "labels-short", "label-out-of-range"],
)
def test_refuses_a_malformed_batch_naming_it(tiny_dir: Path, content: bytes):
    (tiny_dir / "data_batch_3").write_bytes(content)

    with pytest.raises(DatasetMissing, match="data_batch_3 is not a CIFAR-10 python batch"):
        read_cifar10(tiny_dir)


def test_refuses_a_truncated_batch(tiny_dir: Path):
    path = tiny_dir / "test_batch"
    path.write_bytes(path.read_bytes()[:1000])

    with pytest.raises(DatasetMissing, match="test_batch is not a CIFAR-10 python batch"):
        read_cifar10(tiny_dir)


class _RunsCode:
    def __reduce__(self):
        return (os.getcwd, ())


def test_never_runs_code_a_batch_file_names(tiny_dir: Path):
    (tiny_dir / "data_batch_1").write_bytes(pickle.dumps({b"data": _RunsCode(), b"labels": []}))

    with pytest.raises(DatasetMissing, match="refuses to load"):
        read_cifar10(tiny_dir)


def test_reads_batches_pickled_by_numpy_1(tiny_dir: Path):
    # The published files name numpy 1's module; numpy 2 pickles name numpy._core.
    path = tiny_dir / "data_batch_2"
    content = path.read_bytes().replace(b"cnumpy._core.multiarray\n", b"cnumpy.core.multiarray\n")
    assert b"cnumpy.core.multiarray\n_reconstruct\n" in content
    path.write_bytes(content)

    images = read_cifar10(tiny_dir).train_images[4:8]

    assert np.array_equal(images.numpy().reshape(4, 3072), _unpickled(path)[b"data"])


def test_reads_batches_pickled_with_the_newest_protocol(tiny_dir: Path):
    for name in EXPECTED_FILES:
        path = tiny_dir / name
        path.write_bytes(pickle.dumps(_unpickled(path), protocol=pickle.HIGHEST_PROTOCOL))

    assert read_cifar10(tiny_dir).train_images.shape == (20, 3, 32, 32)


# Examples, batches and augmentation


def test_examples_follow_the_order_given(tiny_dir: Path):
    workload = _loaded(ResNet9Cifar10, tiny_dir)

    examples = list(workload.examples([7, 0, 19]))
    images, labels = workload.collate(examples)

    assert workload.train_size == 20
    assert [label for _, label in examples] == [7, 0, 9]
    assert torch.equal(images, workload.data.train_images[[7, 0, 19]])
    assert labels.tolist() == [7, 0, 9] and labels.dtype == torch.int64


@pytest.mark.parametrize("recipe", RECIPES)
def test_prepare_gives_normalised_channels_last_float_batches(tiny_dir: Path, recipe: type):
    workload = _loaded(recipe, tiny_dir)
    batch = workload.collate(list(workload.examples(range(20))))

    images, labels = workload.prepare(batch, torch.device("cpu"), torch.Generator().manual_seed(0))

    assert images.shape == (20, 3, 32, 32) and images.dtype == torch.float32
    assert images.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(labels, batch[1])
    # Normalised: within a few standard deviations of 0, far from the raw 0..255.
    assert images.abs().max() < 3


@pytest.mark.parametrize("recipe", RECIPES)
def test_augmentation_is_deterministic_for_a_seed_and_fresh_per_example(tiny_dir: Path, recipe: type):
    workload = _loaded(recipe, tiny_dir)
    image, label = next(workload.examples([0]))
    batch = workload.collate([(image, label)] * 16)
    device = torch.device("cpu")

    first, _ = workload.prepare(batch, device, torch.Generator().manual_seed(1))
    again, _ = workload.prepare(batch, device, torch.Generator().manual_seed(1))
    other, _ = workload.prepare(batch, device, torch.Generator().manual_seed(2))

    assert torch.equal(first, again)
    assert not torch.equal(first, other)
    assert len({tuple(view.flatten().tolist()) for view in first}) > 8


def test_constant_padding_brings_in_zeros_and_reflection_never_does():
    ones = torch.ones(32, 3, 32, 32)

    reflected = random_crop_flip(ones, 4, torch.Generator().manual_seed(0))
    zero_padded = random_crop_flip(ones, 4, torch.Generator().manual_seed(0), padding_mode="constant")

    assert torch.equal(reflected, ones)
    assert (zero_padded == 0).any() and zero_padded.shape == ones.shape


def test_crop_without_padding_only_flips():
    images = torch.arange(4 * 3 * 8 * 8, dtype=torch.float32).reshape(4, 3, 8, 8)

    out = random_crop_flip(images, 0, torch.Generator().manual_seed(0))

    for original, augmented in zip(images, out, strict=True):
        assert torch.equal(augmented, original) or torch.equal(augmented, original.flip(2))


def test_cutout_within_the_image_zeroes_a_whole_square():
    ones = torch.ones(64, 3, 32, 32)

    inside = cutout(ones, 8, torch.Generator().manual_seed(0), within_image=True)
    clipped = cutout(ones, 8, torch.Generator().manual_seed(0))

    assert ((inside == 0).sum(dim=(2, 3)) == 64).all()
    assert ((clipped == 0).sum(dim=(2, 3)) <= 64).all()
    assert ((clipped == 0).sum(dim=(2, 3)) < 64).any()


# Networks


def _parameters(model: nn.Module) -> int:
    return sum(parameter.numel() for parameter in model.parameters())


def test_resnet9_has_page_s_parameter_count():
    # conv+BN layers 64, 128, 2 x 128, 256, 512, 2 x 512 and the 512 x 10 linear layer, counted by hand.
    assert _parameters(ResNet9()) == 6_573_120


def test_resnet164_has_the_bottleneck_parameter_count():
    # He et al. give 1.7M; counted by hand: stem, 3 x 18 bottlenecks with projections, final BN, classifier.
    assert _parameters(preact_resnet164()) == 1_703_258


def test_resnet164_is_164_layers_deep():
    convolutions = [
        name
        for name, module in preact_resnet164().named_modules()
        if isinstance(module, nn.Conv2d) and not name.endswith("projection")
    ]

    assert len(convolutions) + 1 == 164  # the first convolution, 3 x 18 x 3 in the blocks, the classifier


@pytest.mark.parametrize(("network", "classes"), [(ResNet9, 10), (preact_resnet164, 10)])
def test_networks_give_one_logit_per_class(network, classes: int):
    model = network().eval().to(memory_format=torch.channels_last)
    with torch.no_grad():
        logits = model(torch.randn(2, 3, 32, 32).contiguous(memory_format=torch.channels_last))

    assert logits.shape == (2, classes)


# Schedules


def _learning_rates(workload, steps_per_epoch: int, steps: int) -> tuple[list[float], torch.optim.Optimizer]:
    optimizer, scheduler = recipe_optimizer(workload, nn.Linear(2, 2), steps_per_epoch)
    rates = []
    for _ in range(steps):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return rates, optimizer


def test_resnet9_learning_rate_is_page_s_one_cycle_per_example():
    rates, optimizer = _learning_rates(ResNet9Cifar10(), steps_per_epoch=10, steps=241)

    assert rates[0] == 0
    assert rates[25] == pytest.approx(0.2 / 512)  # half way up
    assert rates[50] == pytest.approx(0.4 / 512)  # the peak, at epoch 5
    assert rates[145] == pytest.approx(0.2 / 512)  # half way down
    assert rates[240] == 0  # epoch 24
    assert optimizer.param_groups[0]["weight_decay"] == pytest.approx(5e-4 * 512)
    assert optimizer.param_groups[0]["nesterov"] is True


def test_resnet9_per_example_update_equals_the_mean_loss_update(tiny_dir: Path):
    workload = _loaded(ResNet9Cifar10, tiny_dir)  # batch_size 4
    order = range(workload.batch_size)
    batch = workload.prepare(workload.collate(list(workload.examples(order))), torch.device("cpu"), None)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(3072, 10))
    reference = copy.deepcopy(model)
    optimizer, scheduler = recipe_optimizer(workload, model, steps_per_epoch=1)
    mean_sgd = torch.optim.SGD(reference.parameters(), lr=0.0, momentum=0.9, nesterov=True, weight_decay=5e-4)

    def mean_loss(net: nn.Module, batch) -> torch.Tensor:
        return F.cross_entropy(net(batch[0]), batch[1], label_smoothing=0.2)

    for step in range(4):  # epochs 0 to 3 of the warm-up: lr 0, 0.08, 0.16, 0.24
        mean_sgd.param_groups[0]["lr"] = 0.4 * step / 5
        for net, opt, loss in ((model, optimizer, workload.loss), (reference, mean_sgd, mean_loss)):
            opt.zero_grad()
            loss(net, batch).backward()
            opt.step()
        scheduler.step()

    for ours, theirs in zip(model.parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-6)


def test_resnet164_learning_rate_steps_as_the_dawn_logs():
    workload = ResNet164Cifar10()

    rates, optimizer = _learning_rates(workload, steps_per_epoch=10, steps=1810)

    assert workload.lr_boundaries_epochs() == [1, 91, 136]
    assert rates[0] == rates[9] == pytest.approx(0.01)
    assert rates[10] == rates[909] == pytest.approx(0.1)
    assert rates[910] == rates[1359] == pytest.approx(0.01)
    assert rates[1360] == rates[1809] == pytest.approx(0.001)
    assert optimizer.param_groups[0]["momentum"] == 0.9


def test_unknown_setting_is_refused():
    with pytest.raises(ValueError, match="learning_rate"):
        ResNet9Cifar10(overrides={"learning_rate": 0.1})


def test_registry_finds_both_recipes():
    assert workload_class("cifar10", "resnet9") is ResNet9Cifar10
    assert workload_class("cifar10", "resnet164") is ResNet164Cifar10


# Training and evaluation


@pytest.mark.parametrize("recipe", RECIPES)
def test_two_training_steps_change_the_weights(tiny_dir: Path, recipe: type):
    torch.manual_seed(0)
    workload = _loaded(recipe, tiny_dir)
    device = torch.device("cpu")
    model = workload.build_model().to(memory_format=torch.channels_last)
    optimizer, scheduler = recipe_optimizer(workload, model, steps_per_epoch=5)
    generator = torch.Generator().manual_seed(0)
    before = [parameter.detach().clone() for parameter in model.parameters()]
    model.train()

    for order in ([0, 1, 2, 3], [4, 5, 6, 7]):  # ResNet-9's rate is 0 at step 0
        batch = workload.prepare(workload.collate(list(workload.examples(order))), device, generator)
        loss = workload.loss(model, batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        scheduler.step()
        assert torch.isfinite(loss)

    changed = [not torch.equal(old, new) for old, new in zip(before, model.parameters(), strict=True)]
    assert all(changed)


@pytest.mark.parametrize("recipe", RECIPES)
def test_evaluate_gives_a_percentage(tiny_dir: Path, recipe: type):
    torch.manual_seed(0)
    workload = _loaded(recipe, tiny_dir, eval_batch_size=8)  # one batch: one shape for the CPU kernels to plan
    model = workload.build_model().to(memory_format=torch.channels_last).eval()

    with torch.no_grad():
        accuracy = workload.evaluate(model, torch.device("cpu"))

    assert isinstance(accuracy, float) and 0 <= accuracy <= 100


class _AlwaysClass(nn.Module):
    def __init__(self, label: int):
        super().__init__()
        self.label = label
        self.seen: list[torch.Tensor] = []

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        self.seen.append(images)
        logits = torch.zeros(len(images), 10)
        logits[:, self.label] = 1
        return logits


def test_evaluate_counts_every_test_image_in_batches(tiny_dir: Path):
    workload = _loaded(ResNet9Cifar10, tiny_dir, eval_batch_size=3)
    model = _AlwaysClass(label=3)

    accuracy = workload.evaluate(model, torch.device("cpu"))

    assert accuracy == pytest.approx(100 * 1 / 8)  # test labels are 0..7: one 3
    assert [len(images) for images in model.seen] == [3, 3, 2]
    assert all(images.is_contiguous(memory_format=torch.channels_last) for images in model.seen)


def test_evaluate_does_not_augment(tiny_dir: Path):
    workload = _loaded(ResNet9Cifar10, tiny_dir)
    model = _AlwaysClass(label=0)

    workload.evaluate(model, torch.device("cpu"))
    workload.evaluate(model, torch.device("cpu"))

    half = len(model.seen) // 2
    assert all(torch.equal(a, b) for a, b in zip(model.seen[:half], model.seen[half:], strict=True))
