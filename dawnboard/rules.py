"""The benchmark's tasks and their versions, as data: the one source the database, the importer, the
benches and the tests are built from.

A threshold belongs to a task *version*, never to the task, so an entry is judged by exactly one
number: the one of the `version` it names.

Sources: the DAWNBench v1 rules (https://dawn.cs.stanford.edu/benchmark/v1/) and the entry format
documented in the README of https://github.com/stanford-futuredata/dawn-bench-entries: CIFAR10 94 %
top-1 test accuracy, ImageNet 93 % top-5 validation accuracy, SQuAD v1.1 dev F1 0.75 (DAWNBench's
pages also printed 0.73; here the version fixes one number).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum


class Track(StrEnum):
    """What an entry measures: a training run to the threshold, or inference one item at a time."""

    TRAIN = "train"
    INFERENCE = "inference"

    @property
    def label(self) -> str:
        return {Track.TRAIN: "Training", Track.INFERENCE: "Inference"}[self]


class Scale(StrEnum):
    """How a quality metric is written: accuracy in percent, F1 as a fraction."""

    PERCENT = "percent"
    FRACTION = "fraction"

    @property
    def upper_bound(self) -> float:
        return 100.0 if self is Scale.PERCENT else 1.0

    @property
    def label(self) -> str:
        return f"{self.value.capitalize()} (0-{self.upper_bound:g})"


TRACKS = tuple(Track)  # `"train" in TRACKS` holds; `in Track` refuses a plain string before Python 3.12
PERCENT, FRACTION = Scale.PERCENT, Scale.FRACTION
EPOCH, HOURS = "epoch", "hours"  # the two columns every training log has, beside the task's metric
RULES_SOURCE = "https://dawn.cs.stanford.edu/benchmark/v1/"
# Dawnboard's own task; the threshold and why it was chosen are in the README ("The digits task").
DIGITS_SOURCE = (
    "https://scikit-learn.org/stable/datasets/toy_dataset.html#optical-recognition-of-handwritten-digits-dataset"
)


@dataclass(frozen=True)
class TaskRules:
    """The rules of one task version, as validation needs them.

    Attributes:
        task_slug: e.g. "cifar10".
        version: the DAWNBench version string an entry names in its `version` field, e.g. "v1.0".
        metric_label: human name of the quality metric, for messages.
        log_column: the training log column holding the metric.
        inference_fields: JSON fields of an inference entry holding the metric, preferred first.
        threshold: the quality to reach, in the metric's scale.
        scale: PERCENT (0-100) or FRACTION (0-1).
        source: where the threshold was published.
        documented_log_columns: every column the task's documented log format names (in its order);
            a log with these, in any order, raises no warning about its columns.
        documented_fields: entry fields the task's DAWNBench entries carry beside the common ones (ImageNet's
            `usedBlacklist`: whether the blacklisted validation images were left out); an entry with them
            raises no `unknown_fields` warning.
    """

    task_slug: str
    version: str
    metric_label: str
    log_column: str
    inference_fields: tuple[str, ...]
    threshold: Decimal
    scale: Scale
    source: str = RULES_SOURCE
    documented_log_columns: tuple[str, ...] = ()
    documented_fields: tuple[str, ...] = ()

    @property
    def upper_bound(self) -> float:
        return Scale(self.scale).upper_bound

    @property
    def required_log_columns(self) -> tuple[str, str, str]:
        """The columns time to accuracy is read from; a log without one of them is refused."""
        return (EPOCH, HOURS, self.log_column)


@dataclass(frozen=True)
class TaskDefinition:
    """A task and its versions; `dawnbench_folder` is its folder in the dawn-bench-entries tree, and
    `in_dawnbench_archive` whether that public archive has entries of it (Dawnboard's own task has none)."""

    slug: str
    name: str
    description: str
    dawnbench_folder: str
    versions: tuple[TaskRules, ...]
    current_version: str
    in_dawnbench_archive: bool = True


TASKS: tuple[TaskDefinition, ...] = (
    TaskDefinition(
        slug="cifar10",
        name="CIFAR10 image classification",
        description="Train to 94% top-1 accuracy on the CIFAR10 test set; infer one image at a time.",
        dawnbench_folder="CIFAR10",
        current_version="v1.0",
        versions=(
            TaskRules(
                task_slug="cifar10",
                version="v1.0",
                metric_label="CIFAR10 test top-1 accuracy (%)",
                log_column="top1Accuracy",
                inference_fields=("top1Accuracy", "accuracy"),
                threshold=Decimal("94.0"),
                scale=PERCENT,
                documented_log_columns=(EPOCH, HOURS, "top1Accuracy"),
            ),
        ),
    ),
    TaskDefinition(
        slug="imagenet",
        name="ImageNet image classification",
        description="Train to 93% top-5 accuracy on the ImageNet validation set; infer one image at a time.",
        dawnbench_folder="ImageNet",
        current_version="v1.0",
        versions=(
            TaskRules(
                task_slug="imagenet",
                version="v1.0",
                metric_label="ImageNet validation top-5 accuracy (%)",
                log_column="top5Accuracy",
                inference_fields=("top5Accuracy",),
                threshold=Decimal("93.0"),
                scale=PERCENT,
                documented_log_columns=(EPOCH, HOURS, "top1Accuracy", "top5Accuracy"),
                documented_fields=("usedBlacklist",),
            ),
        ),
    ),
    TaskDefinition(
        slug="squad",
        name="SQuAD question answering",
        description="Train to an F1 score of 0.75 on the SQuAD v1.1 dev set; answer one question at a time.",
        dawnbench_folder="SQuAD",
        current_version="v1.0",
        versions=(
            TaskRules(
                task_slug="squad",
                version="v1.0",
                metric_label="SQuAD v1.1 dev F1 (fraction)",
                log_column="f1Score",
                inference_fields=("f1Score",),
                threshold=Decimal("0.75"),
                scale=FRACTION,
                documented_log_columns=(EPOCH, HOURS, "f1Score"),
            ),
        ),
    ),
)

DIGITS = TaskDefinition(
    slug="digits",
    name="Digits (8x8) image classification",
    description=(
        "The bundled task: train to 98% top-1 accuracy on a fixed 25% stratified test split of scikit-learn's "
        "8x8 handwritten digits. It needs no download and reaches the threshold in seconds on a laptop CPU."
    ),
    dawnbench_folder="Digits",
    current_version="v1.0",
    in_dawnbench_archive=False,
    versions=(
        TaskRules(
            task_slug="digits",
            version="v1.0",
            metric_label="Digits test top-1 accuracy (%)",
            log_column="top1Accuracy",
            inference_fields=("top1Accuracy", "accuracy"),
            threshold=Decimal("98.0"),
            scale=PERCENT,
            source=DIGITS_SOURCE,
            documented_log_columns=(EPOCH, HOURS, "top1Accuracy"),
        ),
    ),
)

TASKS = (*TASKS, DIGITS)

RulesCatalog = Mapping[str, Mapping[str, TaskRules]]


def rules_catalog(tasks: Iterable[TaskDefinition] = TASKS) -> dict[str, dict[str, TaskRules]]:
    """Task slug -> the `version` an entry names -> the rules it is judged by."""
    return {task.slug: {rules.version: rules for rules in task.versions} for task in tasks}


def task_named(slug: str, tasks: Iterable[TaskDefinition] = TASKS) -> TaskDefinition:
    """The task of this slug; KeyError when there is none."""
    for task in tasks:
        if task.slug == slug:
            return task
    raise KeyError(slug)


def current_rules(slug: str) -> TaskRules:
    """The rules of the task's current version."""
    task = task_named(slug)
    return rules_catalog([task])[slug][task.current_version]
