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
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum

from dawnboard.rounds import TRAINING_ROUNDS, RoundBenchmark, TrainingRound


class Track(StrEnum):
    """What an entry measures: a training run to the threshold, or inference one item at a time."""

    TRAIN = "train"
    INFERENCE = "inference"

    @property
    def label(self) -> str:
        return {Track.TRAIN: "Training", Track.INFERENCE: "Inference"}[self]


class Scale(StrEnum):
    """How a quality metric is written: accuracy in percent, F1 as a fraction, a loss or perplexity as a value."""

    PERCENT = "percent"
    FRACTION = "fraction"
    VALUE = "value"

    @property
    def upper_bound(self) -> float:
        return {Scale.PERCENT: 100.0, Scale.FRACTION: 1.0}.get(self, float("inf"))

    @property
    def label(self) -> str:
        if self is Scale.VALUE:
            return "Value (a loss, a perplexity, a score)"
        return f"{self.value.capitalize()} (0-{self.upper_bound:g})"


class Aggregate(StrEnum):
    """How a task version scores an entry's several runs."""

    MEDIAN = "median"
    OLYMPIC_MEAN = "olympic_mean"


class LogFormat(StrEnum):
    """The format a task version's training logs are written in."""

    DAWNBENCH = "dawnbench"  # an entry JSON and a TSV log per run (DAWNBench v1.0)
    MLLOG = "mllog"  # MLPerf Training's `:::MLLOG` lines, one file per run


@dataclass(frozen=True)
class RunsRule:
    """How many runs an entry of a task version holds and how they make one score.

    Attributes:
        aggregate: MEDIAN (DAWNBench here: one run scores itself) or OLYMPIC_MEAN (MLPerf Training).
        required_runs: the exact number of runs an entry must hold (an MLPerf round's), or None: any number
            from `min_runs`.
        min_runs: the fewest runs an entry may hold.
        dropped_each_side: the olympic mean drops this many of the fastest and of the slowest runs (a failed
            run is one of the slowest); more failed runs than this leaves no score.
        source: where the rule was published.
    """

    aggregate: Aggregate = Aggregate.MEDIAN
    required_runs: int | None = None
    min_runs: int = 1
    dropped_each_side: int = 0
    source: str = ""

    def run_count_error(self, runs: int) -> str | None:
        """Why `runs` runs cannot make an entry under this rule, or None."""
        if self.required_runs is not None and runs != self.required_runs:
            return f"{self.required_runs} runs are required; {runs} were sent"
        if runs < self.min_runs:
            return f"at least {self.min_runs} run(s) are required; {runs} were sent"
        return None


# DAWNBench ranked one run per entry; Dawnboard takes one or more and ranks their median (one run: that run), so
# that an entry of several runs reports its spread rather than its luckiest seed.
DAWNBENCH_RUNS = RunsRule(
    aggregate=Aggregate.MEDIAN, min_runs=1, source="Dawnboard (docs/submitting/several-runs-and-mlperf.md)"
)


TRACKS = tuple(Track)  # `"train" in TRACKS` holds; `in Track` refuses a plain string before Python 3.12
PERCENT, FRACTION = Scale.PERCENT, Scale.FRACTION
EPOCH, HOURS = "epoch", "hours"  # the two columns every training log has, beside the task's metric
RULES_SOURCE = "https://dawn.cs.stanford.edu/benchmark/v1/"
# Dawnboard's own task; the threshold and why it was chosen are in docs/submitting/formats.md ("The digits task").
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
        runs: how many runs an entry holds and how they are scored.
        log_format: the format its logs are written in.
        higher_is_better: whether the quality target is a floor (accuracy) or a ceiling (a loss, a perplexity).
        benchmark: an MLPerf round's benchmark name, for its logs' `submission_benchmark`.
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
    runs: RunsRule = DAWNBENCH_RUNS
    log_format: LogFormat = LogFormat.DAWNBENCH
    higher_is_better: bool = True
    benchmark: str = ""  # an MLPerf round's benchmark name (e.g. "resnet"); empty for DAWNBench versions

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

# MLPerf Training: every round a task version of its benchmark's task (built from `dawnboard.rounds`); ResNet-50 on
# ImageNet is a version of the ImageNet task, every other benchmark a task of its own, named as MLPerf names it.
MLPERF_TASK_OF_BENCHMARK = {"resnet": "imagenet"}
MLPERF_VERSION_PREFIX = "mlperf-"


def mlperf_version(round_name: str) -> str:
    """The task version of an MLPerf Training round: "v4.0" -> "mlperf-v4.0" (DAWNBench's own "v1.0" stays apart)."""
    return f"{MLPERF_VERSION_PREFIX}{round_name}"


def mlperf_task_slug(benchmark: str) -> str:
    return MLPERF_TASK_OF_BENCHMARK.get(benchmark, benchmark)


def _mlperf_rules(training_round: TrainingRound, benchmark: RoundBenchmark) -> TaskRules:
    target = benchmark.targets[0]
    fraction = target.higher_is_better and target.bound <= 1
    what = f"{target.metric}[{target.sub_metric}]" if target.sub_metric else target.metric
    return TaskRules(
        task_slug=mlperf_task_slug(benchmark.name),
        version=mlperf_version(training_round.round),
        metric_label=f"MLPerf Training {training_round.round} {benchmark.name}: {what}",
        log_column=target.metric,
        inference_fields=(),
        threshold=target.bound,
        scale=Scale.FRACTION if fraction else Scale.VALUE,
        source=target.source or training_round.source,
        runs=RunsRule(
            aggregate=Aggregate.OLYMPIC_MEAN,
            required_runs=benchmark.required_runs,
            min_runs=benchmark.required_runs,
            dropped_each_side=benchmark.dropped_each_side,
            source=training_round.source,
        ),
        log_format=LogFormat.MLLOG,
        higher_is_better=target.higher_is_better,
        benchmark=benchmark.name,
    )


def _with_mlperf_rounds(tasks: tuple[TaskDefinition, ...]) -> tuple[TaskDefinition, ...]:
    """The tasks with every MLPerf round's version added: to an existing task (ResNet-50 to ImageNet), or as a task
    of its own whose current version is its latest round."""
    versions: dict[str, list[TaskRules]] = {}
    for training_round in TRAINING_ROUNDS:
        for benchmark in training_round.benchmarks:
            rules = _mlperf_rules(training_round, benchmark)
            versions.setdefault(rules.task_slug, []).append(rules)
    known = {task.slug: task for task in tasks}
    extended = [replace(task, versions=(*task.versions, *versions.get(task.slug, ()))) for task in tasks]
    for slug, rounds in versions.items():
        if slug in known:
            continue
        extended.append(
            TaskDefinition(
                slug=slug,
                name=f"MLPerf Training {rounds[0].benchmark}",
                description=(
                    f"MLPerf Training's {rounds[0].benchmark} benchmark: time to train to the round's quality target, "
                    "scored by the olympic mean of the round's required runs, as MLCommons' result summarizer does."
                ),
                dawnbench_folder="",
                versions=tuple(rounds),
                current_version=rounds[-1].version,
                in_dawnbench_archive=False,
            )
        )
    return tuple(extended)


TASKS = _with_mlperf_rounds(TASKS)

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
