"""Results bundles and AlgoPerf trees built in code: each trial a log whose target metric crosses the target at a
chosen time (None: never), so a test knows every time to target by construction."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from dawnboard.algorithms.suites import SuiteRules
from dawnboard.algorithms.trial_log import STEP, TIME, write_trial_log

Crossing = Callable[[str, int, int], float | None]  # (workload, study, trial) -> seconds to target, None: never


def trial_log(suite: SuiteRules, workload: str, reached_at: float | None, *, evaluations: int = 4) -> bytes:
    """Evaluations every `period` seconds; the metric misses the target before `reached_at` and meets it from then on.
    `reached_at` is itself an evaluation time."""
    target = suite.workload(workload).target
    miss = target.value - 0.1 if target.higher_is_better else target.value + 0.1
    times = sorted({float(n + 1) for n in range(evaluations)} | ({float(reached_at)} if reached_at else set()))
    rows = [
        {TIME: time, STEP: 10 * (n + 1), target.metric: target.value if reached_at and time >= reached_at else miss}
        for n, time in enumerate(times)
    ]
    return write_trial_log(rows)


def contender_files(
    suite: SuiteRules, folder: str, crossing: Crossing, *, workloads=None, studies=None, trials=None
) -> dict[str, bytes]:
    files = {}
    for workload in workloads or suite.base_workloads:
        for study in range(suite.studies if studies is None else studies):
            for trial in range(suite.trials if trials is None else trials):
                where = f"{folder}/study_{study}/{workload}/trial_{trial}"
                files[f"{where}/eval_measurements.csv"] = trial_log(suite, workload, crossing(workload, study, trial))
                files[f"{where}/hyperparameters.json"] = json.dumps({"learning_rate": 0.001 * (trial + 1)}).encode()
    return files


def bundle(
    suite: SuiteRules,
    algorithm: Crossing,
    reference: Crossing,
    *,
    name: str = "my_adam",
    reference_name: str = "adamw",
    ruleset: str = "external",
    **shape,
) -> dict[str, bytes]:
    """A whole bundle, as `run_algorithm` writes it, with `results.json` claiming figures the site must ignore."""
    document = {"suite": suite.name, "ruleset": ruleset, "algorithm": name, "reference": reference_name, "score": 1.0}
    files = {"results.json": json.dumps(document).encode()}
    files |= contender_files(suite, name, algorithm, **shape)
    files |= contender_files(suite, f"reference-{reference_name}", reference, **shape)
    return files


def constant(seconds: Mapping[str, float | None]) -> Crossing:
    """Every trial of a workload reaches its target at the same time."""
    return lambda workload, study, trial: seconds.get(workload)
