"""A submission's trial logs, found by their paths in AlgoPerf's layout, checked for gaps, and turned into times.

The layout, as AlgoPerf writes and publishes it and as `run_algorithm` writes its bundles:

    <submission>/study_<k>/<workload>[_jax|_pytorch]/trial_<j>/eval_measurements.csv

(`<workload>_<framework>` in AlgoPerf's own runs: the framework suffix is dropped, so a workload keeps one name).
Every log is read by `trial_log.read_trial_log`; a broken one is refused with its code, its path in the message.

Gaps: a trial folder without its log (a trial that crashed before writing one), a study with fewer trials than
the ruleset's, a study missing, and a workload with no logs at all. Under `strict` (a bundle sent to the site, which
`run_algorithm` writes whole) each is an error with its code; otherwise (AlgoPerf's published results, which the
official scoring accepts with such gaps) each is a warning with the same code naming the gap, and what is missing
counts as never reaching the target.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from dawnboard.algorithms.scoring import Target, study_time, time_to_target, workload_time
from dawnboard.algorithms.trial_log import TrialLog, read_trial_log
from dawnboard.errors import ErrorCode, Issue, RejectedInput

LOG_NAME = "eval_measurements.csv"
FRAMEWORK_SUFFIX = re.compile(r"_(?:jax|pytorch)$")
TRIAL_PATH = re.compile(
    r"^(?P<submission>[^/]+)/study_(?P<study>\d+)/(?P<workload>[^/]+)/trial_(?P<trial>\d+)(?:/(?P<file>[^/]+))?$"
)


@dataclass(frozen=True)
class SubmissionLogs:
    """One submission's trials: workload -> study -> trial -> its log (None: the trial left no log)."""

    name: str
    trials: dict[str, dict[int, dict[int, TrialLog | None]]] = field(default_factory=dict)

    def times(
        self, targets: Mapping[str, Target], studies: int, budgets_s: Mapping[str, float] | None = None
    ) -> dict[str, float]:
        """Each workload's time to target: the median over `studies` studies (a missing study counts as never
        reaching it) of the fastest trial's time, a time past the workload's budget (`budgets_s`) never reaching
        it; a workload of `targets` without logs: infinity."""
        return {
            workload: workload_time(
                [
                    study_time(
                        [self.trial_time(workload, k, trial, target, budgets_s) for trial in self.trials[workload][k]]
                    )
                    if k in self.trials.get(workload, {})
                    else math.inf
                    for k in range(studies)
                ]
            )
            for workload, target in targets.items()
        }

    def trial_time(
        self, workload: str, study: int, trial: int, target: Target, budgets_s: Mapping[str, float] | None = None
    ) -> float | None:
        """One trial's time to target (None: never reached, or the trial left no log)."""
        log = self.trials[workload][study][trial]
        budget = (budgets_s or {}).get(workload, math.inf)
        return time_to_target(log, target, budget) if log is not None else None


@dataclass(frozen=True)
class ReadResults:
    submissions: dict[str, SubmissionLogs]
    warnings: list[Issue]


def read_results(
    files: Mapping[str, bytes],
    *,
    workloads: Sequence[str],
    studies: int,
    trials: int | None,
    strict: bool,
) -> ReadResults:
    """The submissions among `files` (relative path -> bytes; other files are ignored), each checked for gaps against
    the ruleset: `workloads` expected, `studies` studies of `trials` trials (None: any number, self-tuning's one).

    Raises:
        RejectedInput: a broken log (its code, the path), or under `strict` any gap.
    """
    found: dict[str, dict[str, dict[int, dict[int, TrialLog | None]]]] = {}
    errors: list[Issue] = []
    for path in sorted(files):
        match = TRIAL_PATH.match(path.replace("\\", "/").strip("/"))
        if match is None:
            continue
        workload = FRAMEWORK_SUFFIX.sub("", match["workload"])
        study_trials = (
            found.setdefault(match["submission"], {}).setdefault(workload, {}).setdefault(int(match["study"]), {})
        )
        trial = int(match["trial"])
        if match["file"] != LOG_NAME:
            study_trials.setdefault(trial, None)  # a trial folder (or another of its files), its log perhaps missing
            continue
        try:
            study_trials[trial] = read_trial_log(files[path], file_name=path)
        except RejectedInput as rejection:
            errors += rejection.issues
    if errors:
        raise RejectedInput(*errors)
    gaps = [gap for name, by_workload in found.items() for gap in _gaps(name, by_workload, workloads, studies, trials)]
    if strict and gaps:
        raise RejectedInput(*gaps)
    submissions = {
        name: SubmissionLogs(
            name, {workload: by_workload[workload] for workload in by_workload if workload in workloads}
        )
        for name, by_workload in found.items()
    }
    return ReadResults(submissions, gaps)


def _gaps(name, by_workload, workloads, studies, trials) -> list[Issue]:
    gaps = []
    for workload in workloads:
        if workload not in by_workload:
            gaps.append(
                Issue(ErrorCode.MISSING_WORKLOAD, f"{name}: no logs of {workload} (it counts as never reached).")
            )
            continue
        for study in range(studies):
            held = by_workload[workload].get(study)
            where = f"{name}/study_{study}/{workload}"
            if held is None:
                gaps.append(
                    Issue(ErrorCode.MISSING_STUDY, f"{where}: the study is missing (it counts as never reached).")
                )
                continue
            if trials is not None and len(held) < trials:
                gaps.append(Issue(ErrorCode.MISSING_TRIAL, f"{where}: {len(held)} trials of the ruleset's {trials}."))
            gaps += [
                Issue(
                    ErrorCode.MISSING_TRIAL_LOG, f"{where}/trial_{trial}: no {LOG_NAME} (it counts as never reached)."
                )
                for trial, log in sorted(held.items())
                if log is None
            ]
    return gaps
