"""The DAWNBench paper's studies on the algorithm track's runner (Coleman et al., "DAWNBench: An End-to-End Deep
Learning Benchmark and Competition", 2017): one setting varied over a few values, every other fixed, each value
trained N times (seeds 0..N-1) to the workload's target on the runner's clock.

- `batch_size` (the paper's Figure 1: minibatch size against epochs to accuracy, throughput and time to accuracy):
  the algorithm's own point (its self-tuning hyperparameters, unchanged across sizes, so the study shows what a
  size costs an unretuned schedule) at each batch size;
- `algorithm` (its Figure 2: the optimizer's choice): each baseline (or a submission module) at its own batch size
  and point.

Each run records its time to target (timed seconds, None when the budget ran out first), the epochs and steps it
took, and its training throughput: examples a second of timed training (the algorithm's work, evaluation never
counted).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from types import ModuleType, SimpleNamespace
from typing import Any

from benchmarks.algorithms.runner import algorithm_module, run_trial, workload_target
from benchmarks.algorithms.workloads import build_workload, workload_class
from dawnboard.algorithms.suites import SUITES
from dawnboard.algorithms.trial_log import TIME

SETTINGS = ("batch_size", "algorithm")
# A DAWNBench task's slug -> its workload on the algorithm track.
TASK_WORKLOADS = {"digits": "digits_cnn", "cifar10": "cifar10_resnet9", "imagenet": "imagenet_resnet50",
                  "squad": "squad_bidaf"}  # fmt: skip


class StudyError(ValueError):
    """A study that cannot run as asked; `code` is stable (`invalid_workload`, `invalid_setting`,
    `invalid_algorithm`)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class StudyPlan:
    """What a study runs: the workload, the setting varied and its values, the algorithm (of a batch-size study) and
    the runs a value."""

    workload: str
    setting: str
    values: tuple[Any, ...]
    runs: int
    algorithm: str = "adamw"


@dataclass(frozen=True)
class StudyRun:
    value: Any
    seed: int
    reached: bool
    time_to_target_s: float | None
    epochs_to_target: float | None
    steps: int
    batch_size: int
    timed_seconds: float
    throughput_examples_per_s: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def study_workload(task: str) -> str:
    """The workload a study trains: a suite's workload by name, or a DAWNBench task by its slug."""
    name = TASK_WORKLOADS.get(task, task)
    known = [workload for suite in SUITES.values() for workload in suite.base_workloads]
    if name not in known:
        raise StudyError(
            "invalid_workload", f"{task!r} is no workload ({', '.join(known)}) nor task ({', '.join(TASK_WORKLOADS)})."
        )
    return name


def study_plan(*, task: str, vary: str, runs: int, algorithm: str = "adamw") -> StudyPlan:
    """The plan of `--vary SETTING=V1,V2,...`, every part checked before anything runs.

    Raises:
        StudyError: an unknown task, an unknown setting, a value of the wrong kind, twice or missing, fewer than
            one run, or an algorithm that is neither a baseline nor a module with AlgoPerf's functions.
    """
    workload = study_workload(task)
    setting, _, listed = vary.partition("=")
    setting = setting.strip()
    if setting not in SETTINGS:
        raise StudyError("invalid_setting", f"--vary {setting or vary!r}: the settings a study varies are "
                         f"{', '.join(SETTINGS)}, as SETTING=V1,V2,...")  # fmt: skip
    texts = [text.strip() for text in listed.split(",") if text.strip()]
    if len(texts) < 2 or len(set(texts)) != len(texts):
        raise StudyError("invalid_setting", f"--vary {setting}: give at least two values, each once ({listed!r}).")
    if runs < 1:
        raise StudyError("invalid_setting", f"--runs is at least 1 (got {runs}).")
    if setting == "batch_size":
        if not all(text.isdigit() and int(text) >= 1 for text in texts):
            raise StudyError("invalid_setting", f"--vary batch_size: each value a whole number of at least 1 "
                             f"({listed!r}).")  # fmt: skip
        values: tuple[Any, ...] = tuple(int(text) for text in texts)
        _algorithm(algorithm)
    else:
        values = tuple(texts)
        for named in values:
            _algorithm(named)
    return StudyPlan(workload, setting, values, runs, algorithm if setting == "batch_size" else "")


def _algorithm(named: str) -> ModuleType:
    try:
        return algorithm_module(named)
    except ValueError as error:
        raise StudyError("invalid_algorithm", str(error)) from None


def run_study(
    plan: StudyPlan,
    *,
    data_dir: str | None = None,
    threads: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[StudyRun]:
    """Every run of the plan, value after value, seed after seed; `progress` gets each run's label before it runs."""
    workload = build_workload(plan.workload, data_dir)
    runs = []
    for value in plan.values:
        algorithm = _algorithm(plan.algorithm if plan.setting == "batch_size" else value)
        if plan.setting == "batch_size":
            algorithm = _with_batch_size(algorithm, value)
        batch_size = int(algorithm.get_batch_size(workload.name))
        for seed in range(plan.runs):
            if progress is not None:
                progress(f"{plan.setting}={value} seed {seed}")
            trial = run_trial(workload, algorithm, None, seed=seed, threads=threads)
            runs.append(_study_run(value, seed, trial, batch_size, workload.num_train_examples))
    return runs


def _with_batch_size(algorithm: ModuleType, batch_size: int) -> SimpleNamespace:
    """The algorithm's functions with its batch size replaced."""
    functions = {name: getattr(algorithm, name) for name in dir(algorithm) if not name.startswith("__")}
    return SimpleNamespace(**{**functions, "__name__": algorithm.__name__, "get_batch_size": lambda name: batch_size})


def _study_run(value: Any, seed: int, trial, batch_size: int, train_examples: int) -> StudyRun:
    timed = float(trial.evaluations[-1][TIME]) if trial.evaluations else 0.0
    reached = trial.time_to_target_s is not None
    examples = trial.steps * batch_size
    return StudyRun(
        value=value,
        seed=seed,
        reached=reached,
        time_to_target_s=trial.time_to_target_s,
        epochs_to_target=examples / train_examples if reached else None,
        steps=trial.steps,
        batch_size=batch_size,
        timed_seconds=timed,
        throughput_examples_per_s=examples / timed if timed > 0 else 0.0,
    )


def study_target(plan: StudyPlan) -> dict[str, Any]:
    """The workload's target as the study records it."""
    target = workload_target(workload_class(plan.workload))
    return {"metric": target.metric, "value": target.value, "higher_is_better": target.higher_is_better}
