"""The reference recipes, by task and name. `dawnboard.recipes` lists them as data (for the board); this
registry finds the code of each, imported only when asked for, so listing recipes never loads a model."""

from __future__ import annotations

from importlib import import_module

from benchmarks.workloads.base import Workload

IMPLEMENTATIONS: dict[tuple[str, str], str] = {
    ("digits", "cnn"): "benchmarks.workloads.digits:DigitsCNNWorkload",
    ("cifar10", "resnet9"): "benchmarks.workloads.cifar10:ResNet9Cifar10",
    ("cifar10", "resnet164"): "benchmarks.workloads.cifar10:ResNet164Cifar10",
    ("imagenet", "resnet50"): "benchmarks.workloads.imagenet:ResNet50ImageNet",
    ("squad", "bidaf"): "benchmarks.workloads.squad:BiDAFSquad",
}


def workload_class(task_slug: str, recipe: str) -> type[Workload]:
    """The Workload subclass of this recipe; KeyError when there is none."""
    module_name, class_name = IMPLEMENTATIONS[(task_slug, recipe)].split(":")
    return getattr(import_module(module_name), class_name)
