"""`Workload.evaluation_items`: the evaluation items at given positions, each exactly the item `evaluation_batches(1)`
gives at that position. It is what the inference harness's LoadGen sample library loads a few at a time, so an
item read by its position must not differ from the one the timed pass answered in order."""

from __future__ import annotations

import pytest
import torch

from benchmarks.workloads import workload_class
from benchmarks.workloads.base import Workload
from benchmarks.workloads.digits import DigitsCNNWorkload
from tests.benchmarks.tiny_datasets import TINY_DATASETS


def assert_items_match_the_ordered_ones(workload, positions: list[int]) -> None:
    ordered = list(workload.evaluation_batches(1))

    picked = list(workload.evaluation_items(positions))

    assert len(picked) == len(positions)
    for position, (inputs, labels) in zip(positions, picked, strict=True):
        assert torch.equal(inputs, ordered[position][0]) and torch.equal(labels, ordered[position][1])


def test_digits_items_by_position_are_the_ordered_ones():
    workload = DigitsCNNWorkload()
    workload.load()

    assert_items_match_the_ordered_ones(workload, [449, 0, 7, 7, 200])


@pytest.mark.parametrize(("task", "recipe"), [("cifar10", "resnet9"), ("imagenet", "resnet50")])
def test_image_items_by_position_are_the_ordered_ones(tmp_path, task, recipe):
    write, overrides = TINY_DATASETS[(task, recipe)]
    write(tmp_path)
    workload = workload_class(task, recipe)(tmp_path, dict(overrides))
    workload.load()
    size = workload.eval_size

    assert_items_match_the_ordered_ones(workload, [size - 1, 0, size // 2])


def test_the_default_reads_the_set_in_order_and_keeps_those_asked_for():
    workload = DigitsCNNWorkload()
    workload.load()
    # The base class's way, for a recipe that cannot read an item by its position.
    picked = list(Workload.evaluation_items(workload, [3, 1]))

    assert torch.equal(picked[0][0], workload.test_images[3:4]) and torch.equal(picked[1][0], workload.test_images[1:2])
