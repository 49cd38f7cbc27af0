"""Writes of the algorithm track: a results bundle judged and stored, and AlgoPerf's published results imported.

The server never runs submitted code: a bundle is logs, every time and score recomputed from them by the rules
package (`dawnboard.algorithms`). A bundle refused stores nothing.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from django.db import transaction

from dawnboard.algorithms.algoperf_versions import ALGOPERF_VERSIONS
from dawnboard.algorithms.bundles import bundle_files, judge_bundle, trial_curves
from dawnboard.algorithms.results import LOG_NAME, SubmissionLogs, read_results
from dawnboard.algorithms.scoring import performance_profiles
from dawnboard.algorithms.suites import SUITES
from dawnboard.errors import Issue, RejectedInput
from leaderboard.models import AlgorithmResult, Submitter
from leaderboard.services.judging import Upload


class BundleRejected(Exception):
    def __init__(self, issues: list[Issue]):
        super().__init__("; ".join(issue.message for issue in issues))
        self.issues = issues


def algorithm_bundle_submit(*, bundle: Upload, submitter: Submitter | None, dry_run: bool = False) -> AlgorithmResult:
    """Judge a results bundle and store it (unless `dry_run`) as one result on its suite's board.

    Raises:
        BundleRejected: its issues, each with its code; nothing is stored.
    """
    try:
        judged = judge_bundle(bundle_files(bundle.content), SUITES)
    except RejectedInput as rejection:
        raise BundleRejected(rejection.issues) from None
    result = AlgorithmResult(
        suite=judged.suite, ruleset=judged.ruleset, name=judged.algorithm, source=AlgorithmResult.Source.BUNDLE,
        submitter=submitter, reference=judged.reference, times=_json_times(judged.times),
        reference_times=_json_times(judged.reference_times), held_out=judged.held_out,
        score_vs_reference=judged.score, geomean_speedup=judged.geomean_speedup, speedups=judged.speedups,
        curves=[asdict(curve) for curve in judged.curves], warnings=[issue.as_dict() for issue in judged.warnings],
        bundle_name=bundle.name[:255], bundle_sha256=hashlib.sha256(bundle.content).hexdigest(),
        bundle_content=bundle.content,
    )  # fmt: skip
    if not dry_run:
        with transaction.atomic():
            result.save()
    return result


@dataclass(frozen=True)
class AlgoperfImport:
    """One submission of AlgoPerf's published results, in the shape `import_algoperf --json` prints."""

    name: str
    status: str  # accepted, rejected
    score: float | None
    times: dict[str, float | None]
    errors: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def algoperf_results_import(*, root: Path, version: str, ruleset: str) -> list[AlgoperfImport]:
    """Every submission under `root` (`<submission>/study_<k>/<workload>_<framework>/trial_<j>/eval_measurements.csv`)
    scored with the AlgoPerf version's workloads, targets, budgets and studies; gaps warned of (they count as never
    reached, as the official scoring counts them), a broken log rejecting its submission; the accepted ones scored
    together and stored on the version's board (replacing an earlier import of the same name)."""
    rules = ALGOPERF_VERSIONS[version]
    workloads = [workload.name for workload in rules.workloads]
    targets = rules.targets()
    budgets = rules.budgets_s(ruleset)
    outcomes, accepted = [], {}
    for name, files in sorted(_submission_trees(root).items()):
        try:
            read = read_results(
                files, workloads=workloads, studies=rules.studies, trials=rules.trials_per_study(ruleset), strict=False
            )
        except RejectedInput as rejection:
            outcomes.append(AlgoperfImport(name, "rejected", None, {}, errors=_code_and_message(rejection.issues)))
            continue
        logs = read.submissions.get(name, SubmissionLogs(name))
        accepted[name] = (logs, read.warnings, logs.times(targets, rules.studies, budgets), files)
    profiles = (
        performance_profiles(
            {name: times for name, (_, _, times, _) in accepted.items()}, rules.base_workloads, variants=rules.variants
        )
        if accepted
        else None
    )
    with transaction.atomic():
        AlgorithmResult.objects.filter(
            suite=rules.name, ruleset=ruleset, source=AlgorithmResult.Source.ALGOPERF
        ).exclude(name__in=list(accepted)).delete()
        for name, (logs, warnings, times, files) in accepted.items():
            curves = trial_curves("algorithm", logs, files, name, targets, budgets)
            AlgorithmResult.objects.update_or_create(
                suite=rules.name, ruleset=ruleset, name=name, source=AlgorithmResult.Source.ALGOPERF,
                defaults={
                    "times": _json_times(times), "curves": [asdict(curve) for curve in curves],
                    "warnings": [issue.as_dict() for issue in warnings], "score_vs_reference": None,
                },
            )  # fmt: skip
            outcomes.append(
                AlgoperfImport(
                    name, "accepted", profiles.score(name), _json_times(times), warnings=_code_and_message(warnings),
                )
            )  # fmt: skip
    return sorted(outcomes, key=lambda outcome: outcome.name)


def _submission_trees(root: Path) -> dict[str, dict[str, bytes]]:
    """Each submission folder's trial logs and trial folders (a folder without its log is a gap the reader names),
    by their paths relative to `root`."""
    trees: dict[str, dict[str, bytes]] = {}
    for submission in sorted(path for path in root.iterdir() if path.is_dir()):
        trees[submission.name] = _files_of(root, submission.name)
    return trees


def _files_of(root: Path, submission: str) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for trial in sorted((root / submission).glob("study_*/*/trial_*")):
        if not trial.is_dir():
            continue
        relative = trial.relative_to(root).as_posix()
        files[relative] = b""
        for name in (LOG_NAME, "hparams.json", "hyperparameters.json"):
            if (trial / name).is_file():
                files[f"{relative}/{name}"] = (trial / name).read_bytes()
    return files


def _code_and_message(issues: list[Issue]) -> list[dict]:
    """Issues as `import_algoperf --json` lists them: exactly a code and a message (the message names the file)."""
    return [{"code": str(issue.code), "message": issue.message} for issue in issues]


def _json_times(times: Mapping[str, float]) -> dict[str, float | None]:
    return {workload: time if math.isfinite(time) else None for workload, time in times.items()}
