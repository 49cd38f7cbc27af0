"""The reference recipes, as data: which task each trains, and which public seed entries it reproduces.

The recipes themselves (data, model, schedule) live in `benchmarks/`; this catalog is what the board
needs without torch: an entry page says "reproduce this: `.venv/bin/python manage.py run_reference cifar10
--recipe resnet9 --data-dir DIR`", and a reference run is linked to the seed entry it reproduces. Seed entries
are named by their DAWNBench file stem in https://github.com/stanford-futuredata/dawn-bench-entries, as the
board stores them.
"""

from __future__ import annotations

from dataclasses import dataclass

from dawnboard.archives import DAWNBENCH_FILL_COMMAND, dawnbench_archive, mlperf_archive, mlperf_fill_command
from dawnboard.rules import MLPERF_VERSION_PREFIX, TaskDefinition


@dataclass(frozen=True)
class RecipeSpec:
    """A reference recipe.

    Attributes:
        task_slug: the task it trains.
        name: what `--recipe` takes.
        model: the entry's `model` field.
        summary: one line for pages and `--help`.
        reproduces: the seed entries it reproduces, the one a run is linked to first.
        needs_data_dir: whether it reads a dataset from `--data-dir` (digits ships with scikit-learn).
    """

    task_slug: str
    name: str
    model: str
    summary: str
    reproduces: tuple[str, ...] = ()
    needs_data_dir: bool = True

    @property
    def command(self) -> str:
        """The command that trains it, from the project's root; DIR stands for the dataset's folder."""
        data = " --data-dir DIR" if self.needs_data_dir else ""
        return f".venv/bin/python manage.py run_reference {self.task_slug} --recipe {self.name}{data}"


RECIPES: tuple[RecipeSpec, ...] = (
    RecipeSpec(
        task_slug="digits",
        name="cnn",
        model="Small CNN (3 conv layers)",
        summary="A three-layer CNN on scikit-learn's 8x8 digits; reaches the threshold in seconds on a CPU.",
        needs_data_dir=False,
    ),
    RecipeSpec(
        task_slug="cifar10",
        name="resnet9",
        model="ResNet-9",
        summary=(
            "Myrtle.ai's DAWNBench-winning ResNet-9: one-cycle schedule, label smoothing, "
            "crop, flip and cutout augmentation, 24 epochs."
        ),
        reproduces=(
            "davidcpage_resnet9_1v100-ec2_pytorch",
            "ajay_resnet9_1v100_pytorch",
            "ajay_resnet9_4v100_pytorch",
            "apple_resnet9_8v100_pytorch",
        ),
    ),
    RecipeSpec(
        task_slug="cifar10",
        name="resnet164",
        model="ResNet 164 (with bottleneck)",
        summary="The DAWN team's reference: pre-activation ResNet-164 with bottlenecks, SGD with step decay.",
        reproduces=(
            "dawn_resnet164_b_1p100-dawn_pytorch",
            "dawn_resnet164_b_1k80-gc_pytorch",
            "dawn_resnet164_b_1k80-ec2_pytorch",
            "dawn_resnet164_b_16vCPUs-gc_pytorch",
            "dawn_resnet164_b_1p100-dawn_tensorflow",
            "dawn_resnet164_b_1k80-gc_tensorflow",
            "dawn_resnet164_b_1k80-ec2_tensorflow",
            "dawn_resnet164_b_16vCPUs-gc_tensorflow",
        ),
    ),
    RecipeSpec(
        task_slug="imagenet",
        name="resnet50",
        model="ResNet-50",
        summary=(
            "ResNet-50 v1.5 with the standard large-batch recipe (Goyal et al.: linear warmup, "
            "step decay, 90 epochs), random-resized-crop and flip."
        ),
        reproduces=("google_resnet50_tpu_tensorflow18", "google_resnet50_tpu_tensorflow17"),
    ),
    RecipeSpec(
        task_slug="squad",
        name="bidaf",
        model="BiDAF",
        summary=(
            "The DAWN team's reference reader: BiDAF (Seo et al.), character and word embeddings, "
            "bidirectional attention flow, span start and end."
        ),
        reproduces=(
            "dawn_bidaf_1p100-dawn_tensorflow",
            "dawn_bidaf_1k80-gc_tensorflow",
            "dawn_bidaf_1k80-ec2_tensorflow",
            "dawn_bidaf_16vCPUs-gc_tensorflow",
        ),
    ),
)


def recipes_of(task_slug: str) -> tuple[RecipeSpec, ...]:
    return tuple(recipe for recipe in RECIPES if recipe.task_slug == task_slug)


def recipe_named(task_slug: str, name: str | None = None) -> RecipeSpec:
    """The task's recipe of this name, or its first when no name is given; KeyError when there is none."""
    for recipe in recipes_of(task_slug):
        if name is None or recipe.name == name:
            return recipe
    raise KeyError(f"{task_slug}/{name}" if name else task_slug)


def recipes_reproducing(task_slug: str, source_name: str) -> tuple[RecipeSpec, ...]:
    """The recipes that reproduce this seed entry (by its DAWNBench file stem)."""
    return tuple(recipe for recipe in recipes_of(task_slug) if source_name in recipe.reproduces)


@dataclass(frozen=True)
class FillCommand:
    """A command that puts entries on a task's board, what its DIR is (empty: it takes none) and what it downloads
    (empty: nothing)."""

    command: str
    directory: str = ""
    downloads: str = ""


def fill_commands(task: TaskDefinition) -> list[FillCommand]:
    """The commands that put a task's first entries on its board: downloading and importing the public DAWNBench
    archive (for its tasks) and the latest MLPerf Training round's results (for a task an MLPerf benchmark is a
    version of), and training each of its reference recipes and submitting the run."""
    commands = []
    if task.in_dawnbench_archive:
        commands.append(FillCommand(DAWNBENCH_FILL_COMMAND, downloads=dawnbench_archive().web_url))
    mlperf_versions = [rules.version for rules in task.versions if rules.benchmark]
    if mlperf_versions:
        round_name = mlperf_versions[-1].removeprefix(MLPERF_VERSION_PREFIX)  # versions follow the rounds' order
        commands.append(FillCommand(mlperf_fill_command(round_name), downloads=mlperf_archive(round_name).web_url))
    for recipe in recipes_of(task.slug):
        directory = "the task's dataset" if recipe.needs_data_dir else ""
        commands.append(FillCommand(f"{recipe.command} --submit", directory))
    return commands
