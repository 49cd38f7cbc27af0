"""One trial of an algorithm on a workload, on AlgoPerf's clock (with its loophole closed).

Untimed: building the model and the input pipeline, and every evaluation. Timed (the trial's accumulated
submission time): `init_optimizer_state` (AlgoPerf leaves it off the clock; a submission could then do its work
there), and every `data_selection`, `update_params` and `prepare_for_eval`. The loop, as AlgoPerf's:

    until the target is reached, the algorithm raises TrainingCompleteError, or the budget is spent:
        select a batch and update (timed)
        once at least the workload's evaluation period of timed work has passed since the last evaluation
        (or at the end): prepare_for_eval (timed), then evaluate (untimed) and log the row

Each evaluation is a row of the trial's log (`dawnboard.algorithms.trial_log`, AlgoPerf's `eval_measurements.csv`
layout), and the target is judged by `dawnboard.algorithms.scoring.Target.reached`, the comparison the scorer uses,
so the time the runner stops at is the time the scorer reads back from the log.
"""

from __future__ import annotations

import importlib.util
import inspect
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from benchmarks.algorithms import spec
from benchmarks.algorithms.baselines import BASELINES, baseline
from benchmarks.algorithms.workloads import InMemoryWorkload
from dawnboard.algorithms.scoring import Target, within_budget
from dawnboard.algorithms.trial_log import STEP, TIME, write_trial_log

REQUIRED_FUNCTIONS = ("get_batch_size", "init_optimizer_state", "update_params", "data_selection")


@dataclass(frozen=True)
class TrialResult:
    workload: str
    hyperparameters: dict[str, Any] | None  # None under self-tuning
    evaluations: list[dict[str, float]]  # the log's rows, in order
    time_to_target_s: float | None
    steps: int
    stopped: str  # "target", "budget" or "training complete"
    budget_s: float
    machine: dict[str, Any] | None = None  # the machine that ran it, where a worker elsewhere did

    @property
    def log(self) -> bytes:
        return write_trial_log(self.evaluations)


def workload_target(workload: spec.Workload) -> Target:
    return Target(
        f"validation/{workload.target_metric_name}", workload.validation_target_value, workload.higher_is_better
    )


def algorithm_module(named: str) -> ModuleType:
    """A shipped baseline by its name, or a user's submission module by its file's path (the user's own code,
    run on the user's machine: Dawnboard's site never runs submitted code). Raises ValueError for neither, and for a
    module without AlgoPerf's functions."""
    if named in BASELINES:
        module = baseline(named)
    elif named.endswith(".py") and Path(named).is_file():
        loader = importlib.util.spec_from_file_location(f"submission_{Path(named).stem}", named)
        module = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(module)
    else:
        raise ValueError(f"{named!r} is neither a shipped baseline ({', '.join(BASELINES)}) nor a .py file.")
    check_algorithm(module)
    return module


def check_algorithm(algorithm: ModuleType) -> None:
    """Raise ValueError naming the AlgoPerf functions the module lacks."""
    missing = [name for name in REQUIRED_FUNCTIONS if not callable(getattr(algorithm, name, None))]
    if missing:
        raise ValueError(f"{algorithm.__name__} lacks AlgoPerf's {', '.join(missing)}.")


def run_trial(
    workload: InMemoryWorkload,
    algorithm: ModuleType,
    hyperparameters: Mapping[str, Any] | None,
    *,
    seed: int,
    budget_factor: float = 1.0,
    progress: Callable[[float, float], None] | None = None,
    threads: int | None = None,
) -> TrialResult:
    """Run one trial. `hyperparameters`: the trial's point of the search space, or None under self-tuning (the
    algorithm then gets None, as AlgoPerf's self-tuning submissions do); `budget_factor` scales the workload's
    maximum runtime (1.5 under self-tuning); `progress` gets (timed seconds, budget) after each step."""
    check_algorithm(algorithm)
    threads_before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        return _run_trial(
            workload, algorithm, hyperparameters, seed=seed, budget_factor=budget_factor, progress=progress
        )
    finally:
        torch.set_num_threads(threads_before)


def _run_trial(workload, algorithm, hyperparameters, *, seed, budget_factor, progress) -> TrialResult:
    target, budget = workload_target(workload), workload.max_allowed_runtime_sec * budget_factor
    point = spec.hyperparameters_of(hyperparameters) if hyperparameters is not None else None
    model, model_state = workload.init_model_fn(seed)
    params_types = spec.parameter_types(model)
    input_queue = workload._build_input_queue(seed, "train", None, int(algorithm.get_batch_size(workload.name)))
    takes_train_state = "train_state" in inspect.signature(algorithm.update_params).parameters
    prepare = getattr(algorithm, "prepare_for_eval", None)

    clock = _Clock()
    optimizer_state = clock.timed(algorithm.init_optimizer_state, workload, model, model_state, point, seed)
    evaluations: list[dict[str, float]] = []
    eval_results: list[tuple[int, dict[str, float]]] = []
    step, last_eval, stopped, reached_at = 0, 0.0, "", None
    while not stopped:
        rng = seed * 1_000_003 + step
        complete = False
        try:
            batch = clock.timed(
                algorithm.data_selection, workload, input_queue, optimizer_state, model, model_state, point, step, rng
            )
            extra = {"train_state": {"accumulated_submission_time": clock.seconds}} if takes_train_state else {}
            optimizer_state, model, model_state = clock.timed(
                algorithm.update_params, workload, model, params_types, model_state, point, batch, workload.loss_type,
                optimizer_state, eval_results, step, rng, **extra,
            )  # fmt: skip
            step += 1
        except spec.TrainingCompleteError:
            complete = True
        if progress is not None:
            progress(clock.seconds, budget)
        out_of_time = clock.seconds >= budget
        if not (complete or out_of_time or clock.seconds - last_eval >= workload.eval_period_time_sec):
            continue
        if prepare is not None:
            optimizer_state, model, model_state = clock.timed(
                prepare, workload, model, params_types, model_state, point, workload.loss_type, optimizer_state,
                eval_results, step, rng,
            )  # fmt: skip
        metrics = workload.evaluate(model, model_state)  # off the clock
        last_eval = clock.seconds
        evaluations.append({TIME: clock.seconds, STEP: step, **metrics})
        eval_results.append((step, metrics))
        if target.reached(metrics.get(target.metric, float("nan"))) and within_budget(clock.seconds, budget):
            stopped, reached_at = "target", clock.seconds
        elif complete:
            stopped = "training complete"
        elif out_of_time:
            stopped = "budget"
    chosen = dict(hyperparameters) if hyperparameters is not None else None
    return TrialResult(workload.name, chosen, evaluations, reached_at, step, stopped, budget)


class _Clock:
    """The trial's accumulated submission time: only the calls made through `timed` count."""

    def __init__(self):
        self.seconds = 0.0

    def timed(self, function, *args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started
