"""The algorithm track's suites as data: each workload's validation target and budget, its held-out variants, and
each ruleset's numbers of studies and trials. One home for them: the runner stops on these targets and budgets,
the site scores a bundle's logs against them, and `import_algoperf` scores AlgoPerf's published logs against the
AlgoPerf version's own (`dawnboard.algorithms.algoperf_versions`).

A workload's name is the one its trial logs sit under in AlgoPerf's layout (the framework suffix dropped).
"""

from __future__ import annotations

from dataclasses import dataclass

from dawnboard.algorithms.scoring import Target
from dawnboard.rules import current_rules

RULESETS = ("external", "self")
SELF_TUNING_RUNTIME_FACTOR = 1.5  # Dawnboard's suites: self-tuning's budget, as a multiple of external tuning's


@dataclass(frozen=True)
class WorkloadRules:
    """One workload of a suite.

    Attributes:
        name: its name in the logs' paths.
        target: the validation metric's column, target value and direction.
        max_runtime_s: the external-tuning budget of timed training, in seconds (self-tuning multiplies it).
        eval_period_s: the least timed training between two evaluations, in seconds.
        base: for a held-out variant, the base workload whose time it gates; None for a base workload.
        source: where the figures come from (a repository, path and commit, or "Dawnboard" for our own suite).
    """

    name: str
    target: Target
    max_runtime_s: float
    eval_period_s: float
    base: str | None = None
    source: str = "Dawnboard"


@dataclass(frozen=True)
class SuiteRules:
    """A suite of workloads under its tuning rules.

    Attributes:
        name: the suite's name on the board ("cpu", "algoperf-0.5", ...).
        workloads: base workloads and held-out variants, in the board's order.
        studies: studies a submission runs (each study a fresh tuning of every workload).
        trials: trials a study under external tuning (self-tuning: one).
        self_tuning_runtime_factor: the self-tuning ruleset's budget as a multiple of external tuning's.
        scored_variants: whether held-out variants gate their base workloads (AlgoPerf v0.5) or are not run.
        source: where the rules come from.
    """

    name: str
    workloads: tuple[WorkloadRules, ...]
    studies: int
    trials: int
    self_tuning_runtime_factor: float
    scored_variants: bool = True
    source: str = "Dawnboard"

    def workload(self, name: str) -> WorkloadRules:
        for workload in self.workloads:
            if workload.name == name:
                return workload
        raise KeyError(f"The {self.name} suite has no workload {name!r}.")

    @property
    def base_workloads(self) -> list[str]:
        return [workload.name for workload in self.workloads if workload.base is None]

    @property
    def variants(self) -> dict[str, str]:
        """Held-out variant -> its base workload."""
        return {workload.name: workload.base for workload in self.workloads if workload.base is not None}

    def variants_of(self, base: str) -> list[str]:
        return [variant for variant, its_base in self.variants.items() if its_base == base]

    def targets(self) -> dict[str, Target]:
        return {workload.name: workload.target for workload in self.workloads}

    def trials_per_study(self, ruleset: str) -> int:
        return 1 if ruleset == "self" else self.trials

    def runtime_factor(self, ruleset: str) -> float:
        return self.self_tuning_runtime_factor if ruleset == "self" else 1.0

    def budget_s(self, name: str, ruleset: str) -> float:
        return self.workload(name).max_runtime_s * self.runtime_factor(ruleset)

    def budgets_s(self, ruleset: str) -> dict[str, float]:
        """Every workload's budget under `ruleset`, by name."""
        return {workload.name: self.budget_s(workload.name, ruleset) for workload in self.workloads}


def _cpu(name: str, metric: str, value: float, runtime_s: float, eval_period_s: float, **kwargs) -> WorkloadRules:
    higher = metric.endswith("accuracy")
    return WorkloadRules(name, Target(f"validation/{metric}", value, higher), runtime_s, eval_period_s, **kwargs)


# Dawnboard's CPU suite: real data that ships with installed packages (scikit-learn's datasets, OpenML's madelon
# as scikit-learn's make_classification, Friedman #1, Python's own documentation), each target one a tuned
# baseline reaches in well under a minute on two cores; budgets about three times a good trial's need.
CPU_SUITE = SuiteRules(
    name="cpu",
    workloads=(
        _cpu("digits_cnn", "accuracy", 0.985, 20.0, 0.5),
        _cpu("breast_cancer_mlp", "accuracy", 0.958, 5.0, 0.02),  # 137 of the 143 validation rows
        _cpu("diabetes_mlp", "mean_squared_error", 0.53, 5.0, 0.02),  # of the standardised target's variance
        _cpu("madelon_mlp", "accuracy", 0.92, 10.0, 0.5),
        _cpu("friedman_mlp", "mean_squared_error", 0.05, 10.0, 0.1),  # the noise alone leaves about 0.04
        _cpu("pydoc_transformer", "loss", 1.65, 40.0, 2.0),
        _cpu("madelon_mlp_tanh", "accuracy", 0.94, 10.0, 0.5, base="madelon_mlp"),
        _cpu("madelon_mlp_layernorm", "accuracy", 0.93, 10.0, 0.5, base="madelon_mlp"),
        _cpu("friedman_mlp_wide", "mean_squared_error", 0.05, 10.0, 0.1, base="friedman_mlp"),
    ),
    studies=3,
    trials=5,
    self_tuning_runtime_factor=SELF_TUNING_RUNTIME_FACTOR,
)


def _dawnbench(name: str, task_slug: str, metric: str, runtime_s: float, eval_period_s: float) -> WorkloadRules:
    """A workload whose target is its DAWNBench task's threshold (`dawnboard.rules`), as a fraction."""
    rules = current_rules(task_slug)
    value = float(rules.threshold) / rules.upper_bound
    target = Target(f"validation/{metric}", value, rules.higher_is_better)
    return WorkloadRules(name, target, runtime_s, eval_period_s, source=rules.source)


# Dawnboard's GPU suite: DAWNBench's training tasks (benchmarks.algorithms.gpu_workloads), each reached with a
# baseline's generic schedule rather than the record's tuned one, so the budgets leave room over the records:
# - cifar10_resnet9: 300 s, about 4x the DAWNBench record of this network and data on one V100 (74 s,
#   davidcpage_resnet9_1v100-ec2_pytorch); an evaluation (10,000 images, a second or two) every 10 s of training,
#   about every third epoch of the record;
# - imagenet_resnet50: 66,159 s, AlgoPerf v0.6's budget of its imagenet_resnet workload on its 8 x V100 reference
#   system (mlcommons/algorithmic-efficiency@2c90454, algoperf/workloads/imagenet_resnet/workload.py): a budget
#   for a multi-GPU machine, to be measured against one GPU with the first full runs; an evaluation every 510 s, as
#   AlgoPerf's;
# - squad_bidaf: 36,000 s (10 hours), Dawnboard's own allowance (not a published budget): BiDAF's recipe reaches
#   0.75 F1 within its 12 epochs, which its authors report as most of a day on one GPU of 2016; an evaluation
#   (10,570 dev questions) every 1,200 s.
GPU_SUITE = SuiteRules(
    name="gpu",
    workloads=(
        _dawnbench("cifar10_resnet9", "cifar10", "accuracy", 300.0, 10.0),
        _dawnbench("imagenet_resnet50", "imagenet", "top5_accuracy", 66_159.0, 510.0),
        _dawnbench("squad_bidaf", "squad", "f1", 36_000.0, 1_200.0),
    ),
    studies=3,
    trials=5,
    self_tuning_runtime_factor=SELF_TUNING_RUNTIME_FACTOR,
    scored_variants=False,
)

SUITES: dict[str, SuiteRules] = {CPU_SUITE.name: CPU_SUITE, GPU_SUITE.name: GPU_SUITE}


def workload_rules(name: str) -> WorkloadRules:
    """A workload of any of Dawnboard's suites by its name."""
    for suite in SUITES.values():
        if name in {workload.name for workload in suite.workloads}:
            return suite.workload(name)
    raise KeyError(f"No suite has a workload {name!r}.")
