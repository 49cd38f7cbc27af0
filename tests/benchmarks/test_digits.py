"""The digits task's data, read as files: the same images, labels and split as scikit-learn's own functions."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from benchmarks.workloads.digits import PIXEL_MAX, SPLIT_SEED, TEST_FRACTION, digits_split, read_digits


def test_the_images_and_labels_are_load_digits_own():
    images, labels = read_digits()
    digits = load_digits()

    assert np.array_equal(images, digits.images) and np.array_equal(labels, digits.target)


def test_the_split_is_train_test_split_s_stratified_split_in_its_order():
    digits = load_digits()
    images = (digits.images / PIXEL_MAX).astype(np.float32)[:, None, :, :]
    expected = train_test_split(
        images, digits.target, test_size=TEST_FRACTION, stratify=digits.target, random_state=SPLIT_SEED
    )
    train_x, test_x, train_y, test_y = expected

    got = digits_split()

    assert [array.shape for array in got] == [(1347, 1, 8, 8), (1347,), (450, 1, 8, 8), (450,)]
    for ours, theirs in zip(got, (train_x, train_y, test_x, test_y), strict=True):
        assert np.array_equal(ours, theirs)
