"""An algorithm over a suite under a tuning ruleset, beside a reference baseline run the same way on the same
machine in the same call, written as a results bundle and scored by the rules package.

- external tuning: S studies of N trials each, the trials the study's quasi-random points of the search space
  (`dawnboard.algorithms.search_space`; study k draws with seed k); a study's time is its fastest trial's;
- self-tuning: no hyperparameters (the algorithm gets None), one trial per study, the budget x 1.5;
- held-out variants (AlgoPerf v0.5, on request): one sampled by seed for each base workload that has some, run with
  the same trials; a base workload whose variant no study reached scores as never reached.

The bundle, in AlgoPerf's layout: `<out>/<algorithm>/study_<k>/<workload>/trial_<j>/eval_measurements.csv` (and
`hyperparameters.json` beside it), for the algorithm and for the reference, and `results.json`, the `--json`
document of `run_algorithm`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks.algorithms.runner import TrialResult, run_trial
from benchmarks.algorithms.workloads import build_workload, workload_class
from dawnboard.algorithms.scoring import held_out_gated, performance_profiles, speedups, study_time, workload_time
from dawnboard.algorithms.search_space import SearchSpace
from dawnboard.algorithms.suites import SELF_TUNING_RUNTIME_FACTOR
from dawnboard.algorithms.suites import SUITES as SUITE_RULES

SUITES = {name: tuple(rules.base_workloads) for name, rules in SUITE_RULES.items()}


@dataclass(frozen=True)
class Tuning:
    ruleset: str  # "external" or "self"
    trials: int = 5
    studies: int = 3

    def points(self, space: SearchSpace | None, study: int) -> list[dict[str, Any] | None]:
        if self.ruleset == "self":
            return [None]
        return space.trials(self.trials, seed=study)

    @property
    def budget_factor(self) -> float:
        return SELF_TUNING_RUNTIME_FACTOR if self.ruleset == "self" else 1.0


@dataclass(frozen=True)
class Contender:
    """An algorithm as the suite runs it: its name in the bundle, its module, its search space (external tuning),
    and how a worker elsewhere finds it: a shipped baseline's name, or the module's source text."""

    name: str
    module: ModuleType
    space: SearchSpace | None
    baseline: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class TrialSpec:
    """One trial to run: everything a worker needs besides the algorithm."""

    workload: str
    study: int
    index: int
    point: dict[str, Any] | None
    seed: int
    budget_factor: float

    def label(self, contender: str) -> str:
        return f"{contender} {self.workload} study {self.study} trial {self.index}"


# Runs a contender's trials, here or elsewhere, and gives their results in the order of the specs.
Executor = Callable[[Contender, list[TrialSpec]], list[TrialResult]]


def trial_specs(contender: Contender, workloads: Sequence[str], tuning: Tuning) -> list[TrialSpec]:
    """Every trial of every study of every workload: study k's trials are the search space's points for seed k."""
    return [
        TrialSpec(name, study, index, point, 1000 * study + index, tuning.budget_factor)
        for name in workloads
        for study in range(tuning.studies)
        for index, point in enumerate(tuning.points(contender.space, study))
    ]


def local_executor(
    *,
    threads: int | None = None,
    progress: Callable[[str], Callable[[float, float], None]] | None = None,
    data_dir: str | None = None,
) -> Executor:
    """Trials one after another in this process; `progress(label)` gives each trial's step callback (timed seconds,
    budget), off the clock; `data_dir` is what the GPU suite's workloads read."""

    def execute(contender: Contender, specs: list[TrialSpec]) -> list[TrialResult]:
        results, workload = [], None
        for spec in specs:
            if workload is None or workload.name != spec.workload:
                workload = build_workload(spec.workload, data_dir)
            label = spec.label(contender.name)
            results.append(
                run_trial(
                    workload, contender.module, spec.point, seed=spec.seed, budget_factor=spec.budget_factor,
                    threads=threads, progress=progress(label) if progress is not None else None,
                )
            )  # fmt: skip
        return results

    return execute


def run_contender(
    contender: Contender, workloads: Sequence[str], tuning: Tuning, out_dir: Path, *, execute: Executor
) -> dict[str, list[list[TrialResult]]]:
    """Every trial, run by `execute`, its log (and the machine that ran it, where known) written into the bundle:
    workload -> studies -> trials."""
    specs = trial_specs(contender, workloads, tuning)
    results: dict[str, list[list[TrialResult]]] = {name: [[] for _ in range(tuning.studies)] for name in workloads}
    for spec, trial in zip(specs, execute(contender, specs), strict=True):
        folder = out_dir / contender.name / f"study_{spec.study}" / spec.workload / f"trial_{spec.index}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "eval_measurements.csv").write_bytes(trial.log)
        (folder / "hyperparameters.json").write_text(json.dumps(spec.point, indent=2) + "\n")
        if trial.machine is not None:
            (folder / "machine.json").write_text(json.dumps(trial.machine, indent=2) + "\n")
        results[spec.workload][spec.study].append(trial)
    return results


def workload_times(results: dict[str, list[list[TrialResult]]]) -> dict[str, float]:
    """Each workload's time: the median over studies of the fastest trial's time to target."""
    return {
        name: workload_time([study_time([trial.time_to_target_s for trial in trials]) for trials in studies])
        for name, studies in results.items()
    }


def suite_document(
    *,
    suite: str,
    tuning: Tuning,
    algorithm: str,
    reference: str,
    results: dict[str, list[list[TrialResult]]],
    reference_results: dict[str, list[list[TrialResult]]],
    bundle_path: Path,
    held_out: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The `run_algorithm --json` document: the score of the algorithm's profile against the reference's, the
    geometric-mean speedup over the reference, and each workload's time, studies and trials (held-out variants
    among them, by their own names). The score and the speedups count the base workloads, each gated by its
    held-out variant (`held_out`: variant -> base)."""
    workloads = list(results)
    held_out = held_out or {}
    times, reference_times = workload_times(results), workload_times(reference_results)
    gated, reference_gated = held_out_gated(times, held_out), held_out_gated(reference_times, held_out)
    bases = [name for name in workloads if name not in held_out]
    profiles = performance_profiles(
        {algorithm: times, f"reference:{reference}": reference_times}, bases, variants=held_out
    )
    return {
        "suite": suite,
        "ruleset": tuning.ruleset,
        "algorithm": algorithm,
        "reference": reference,
        "score": profiles.score(algorithm),
        "geomean_speedup_vs_reference": speedups(gated, reference_gated, bases).geometric_mean,
        "workloads": {
            name: {
                "target": workload_class(name).validation_target_value,
                "time_to_target_s": _seconds(times[name]),
                "studies": [
                    {
                        "time_to_target_s": _seconds(study_time([trial.time_to_target_s for trial in trials])),
                        "trials": [
                            {
                                "hyperparameters": trial.hyperparameters,
                                "time_to_target_s": trial.time_to_target_s,
                                "evals": len(trial.evaluations),
                            }
                            for trial in trials
                        ],
                    }
                    for trials in results[name]
                ],
            }
            for name in workloads
        },
        "bundle_path": str(bundle_path),
        "submission": None,
    }


def _seconds(value: float) -> float | None:
    return value if math.isfinite(value) else None
