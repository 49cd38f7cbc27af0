"""Validate a submission and recompute its results: the benchmark's rules applied to parsed documents.

`validate_submission` sees an entry document and a training log as rows, through the readers of
their format (`dawnboard.formats`), never their bytes; it applies a task version's rules and
recomputes every result. It returns an `IngestResult` with warnings, or an `IngestRejection` with the errors
found (at most `MAX_ISSUES_PER_CODE` of each code, then how many more); either lists the warnings that
question a figure first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from enum import StrEnum
from typing import Any

from dawnboard import display
from dawnboard.curve import curve_point_indices
from dawnboard.documents import EntrySource, LogSource, TrainingLog
from dawnboard.errors import (
    ErrorCode,
    Issue,
    RejectedInput,
    WarningCode,
    capped_per_code,
    most_important_first,
)
from dawnboard.results import Results
from dawnboard.rules import MLPERF_VERSION_PREFIX, TRACKS, LogFormat, RulesCatalog, Scale, TaskRules, Track
from dawnboard.scoring import (
    first_crossing,
    hours_of,
    inference_cost_usd_per_10k,
    logged_seconds,
    shortest_decimal,
    training_cost_usd,
)
from dawnboard.scoring.runs import Spread, score_of_runs, spread_of_runs
from dawnboard.scoring.sensitivity import RunShifts, run_shifts
from dawnboard.validation.entry import EntryDocument, check_entry
from dawnboard.validation.log import check_training_log


@dataclass(frozen=True)
class CurvePoint:
    epoch: float
    hours: float
    metric: float
    line: int


class RunStatus(StrEnum):
    """What became of one run: it reached the threshold, it did not (or stopped), or its log was refused."""

    SUCCESS = "success"
    FAILED = "failed"
    REJECTED = "rejected"


@dataclass(frozen=True)
class RunResult:
    """One run of an entry, judged alone: its log read against the version's rules, its own figures and curve.

    `results` holds the run's time to accuracy, epochs, accuracy and deciding line (None for a failed run);
    `errors` say why it failed. `log_rows_sha256` identifies the run however its log is written
    (TrainingLog.rows_sha256); `log_row_count` is its log's rows.
    """

    position: int
    status: RunStatus
    results: Results | None = None
    curve: list[CurvePoint] = field(default_factory=list)
    log_row_count: int = 0
    log_rows_sha256: str = ""
    errors: list[Issue] = field(default_factory=list)
    hours: Decimal | None = None  # the time to accuracy exactly as the log wrote it, for exact costs
    # Its times at the shifted thresholds, from every row of its log (None: its log was refused).
    shifts: RunShifts | None = None

    @property
    def time_to_accuracy_seconds(self) -> float | None:
        return self.results.time_to_accuracy_seconds if self.results else None


@dataclass(frozen=True)
class IngestResult:
    """An accepted submission: the checked entry, the rules it met, its runs, and the score they make
    (`results`: the runs' score under the version's rule, the figures of the run nearest it) with its `spread`."""

    rules: TaskRules
    track: Track
    entry: EntryDocument
    results: Results
    runs: list[RunResult] = field(default_factory=list)
    spread: Spread | None = None
    warnings: list[Issue] = field(default_factory=list)
    # An inference entry's MLPerf LoadGen test, read from its logs by `dawnboard.ingest` (a
    # `dawnboard.formats.loadgen.LoadGenTest`: the formats sit beside validation, which never imports them).
    loadgen: Any = None
    # An MLPerf set's checks by MLCommons' own tools (`dawnboard.validation.convergence`): its compliance checker's
    # verdict and its reference convergence points' (RCP). None for other entries.
    compliance: Any = None
    convergence: Any = None
    accepted = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "warnings", _listed_warnings(self.warnings))


@dataclass(frozen=True)
class IngestRejection:
    """A refused submission. Every checker's errors pass through here, so the per-code cap covers them all."""

    errors: list[Issue]
    warnings: list[Issue] = field(default_factory=list)
    accepted = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "errors", capped_per_code(self.errors))
        object.__setattr__(self, "warnings", _listed_warnings(self.warnings))


def _listed_warnings(warnings: list[Issue]) -> list[Issue]:
    return most_important_first(capped_per_code(warnings, kind="warnings"))


def validate_submission(
    *,
    task_slug: str,
    track: str,
    entry: EntrySource | None,
    logs: Sequence[LogSource],
    catalog: RulesCatalog,
) -> IngestResult | IngestRejection:
    """Check a submission against the task catalog and recompute its results.

    Args:
        task_slug: the task the submitter names, e.g. "cifar10".
        track: "train" or "inference", as the submitter wrote it.
        entry: reads the entry document (None: no entry file was sent).
        logs: one reader per run's training log, each against the rules of the entry's version; for
            inference they are not read, with a warning.
        catalog: task slug -> entry `version` -> the rules of that task version.
    """
    errors = check_request(
        task_slug=task_slug, track=track, has_entry=entry is not None, log_count=len(logs), catalog=catalog
    )
    if errors:
        return IngestRejection(errors=errors)

    try:
        document = entry()
    except RejectedInput as rejected:
        return IngestRejection(errors=[_in_file(issue, "entry") for issue in rejected.issues])
    track = Track(track)
    checked, rules, errors, warnings = check_entry(document, track=track, rules_by_version=catalog[task_slug])
    if track == Track.INFERENCE:
        if logs:
            warnings.append(
                Issue(
                    WarningCode.LOG_IGNORED, "Inference entries need no log; the file sent was not read.", field="log"
                )
            )
        if errors:
            return IngestRejection(errors=errors, warnings=warnings)
        return IngestResult(
            rules=rules,
            track=track,
            entry=checked,
            results=_inference_results(checked),
            warnings=warnings,
        )

    if rules is None:  # the logs can only be read against a known task version
        return IngestRejection(errors=errors, warnings=warnings)
    if rules.log_format != LogFormat.DAWNBENCH:
        message = (
            f"{rules.task_slug} {rules.version} is an MLPerf Training round: its runs are MLLOG result files, sent "
            f"with format=mllog and round={rules.version.removeprefix(MLPERF_VERSION_PREFIX)}."
        )
        errors.append(Issue(ErrorCode.UNKNOWN_FORMAT, message, field="version"))
        return IngestRejection(errors=errors, warnings=warnings)
    if count_error := rules.runs.run_count_error(len(logs)):
        errors.append(
            Issue(ErrorCode.WRONG_RUN_COUNT, f"{rules.task_slug} {rules.version}: {count_error}.", field="log")
        )
        return IngestRejection(errors=errors, warnings=warnings)
    runs = []
    for position, log in enumerate(logs):
        run, run_warnings = _judge_run(log, rules, position=position, several=len(logs) > 1)
        runs.append(run)
        warnings += run_warnings
    if len(runs) == 1 and runs[0].status != RunStatus.SUCCESS:  # one run: its errors are the entry's
        return IngestRejection(errors=errors + runs[0].errors, warnings=warnings)
    errors += [issue for run in runs if run.status == RunStatus.REJECTED for issue in run.errors]
    warnings += [
        Issue(WarningCode.RUN_FAILED, issue.message, field=issue.field, line=issue.line)
        for run in runs
        if run.status == RunStatus.FAILED
        for issue in run.errors
    ]
    if errors:
        return IngestRejection(errors=errors, warnings=warnings)
    score = score_runs(runs, rules)
    if score is None:
        failed = sum(run.status == RunStatus.FAILED for run in runs)
        errors.append(
            Issue(
                ErrorCode.TOO_MANY_FAILED_RUNS,
                f"{failed} of {len(runs)} runs did not reach the threshold: their {rules.runs.aggregate.value} "
                "falls on a failed run, so the entry has no time to accuracy.",
                field="log",
            )
        )
        return IngestRejection(errors=errors, warnings=warnings)
    results, spread, hours = score
    return IngestResult(
        rules=rules,
        track=track,
        entry=checked,
        results=_with_training_cost(results, checked, hours=hours),
        runs=runs,
        spread=spread,
        warnings=warnings,
    )


def score_runs(runs: Sequence[RunResult], rules: TaskRules) -> tuple[Results, Spread, Decimal] | None:
    """The entry's figures from its runs: the time is the runs' score under the version's rule (the median, the
    olympic mean), the accuracy, epochs and line those of the successful run nearest that score; with the runs'
    spread and the score in hours. None when the rule gives no score (too many failed runs)."""
    times = [run.time_to_accuracy_seconds for run in runs if run.status == RunStatus.SUCCESS]
    failed = len(runs) - len(times)
    score = score_of_runs(rules.runs, times, failed=failed)
    if score is None:
        return None
    nearest = min(
        (run for run in runs if run.status == RunStatus.SUCCESS),
        key=lambda run: (abs(run.time_to_accuracy_seconds - score), run.time_to_accuracy_seconds),
    )
    results = replace(nearest.results, time_to_accuracy_seconds=score)
    return results, spread_of_runs(times, failed=failed), _hours_of_score(score, nearest)


def log_field(position: int, several: bool) -> str:
    """The form field that names run `position`'s log in a verdict: `log` for one run, `log[0]`, `log[1]`... for
    several (the API's `log` parts, in order)."""
    return f"log[{position}]" if several else "log"


def _judge_run(log: LogSource, rules: TaskRules, *, position: int, several: bool) -> tuple[RunResult, list[Issue]]:
    """One run's log read and checked alone; its warnings (named by the run when there are several) apart."""
    file_field = log_field(position, several)
    try:
        reading = log(rules)
        training_log, curve_warnings = check_training_log(reading.log, rules)
    except RejectedInput as rejected:
        issues = [_in_file(issue, file_field) for issue in rejected.issues]
        return RunResult(position=position, status=RunStatus.REJECTED, errors=issues), []
    warnings = [_in_file(issue, file_field) for issue in reading.warnings + curve_warnings]
    shifts = run_shifts(
        training_log.hours, training_log.metric, rules.threshold, rules.scale, higher_is_better=rules.higher_is_better
    )
    crossing = first_crossing(training_log.metric, float(rules.threshold))
    if crossing is None:
        failure = _in_file(_threshold_not_reached(training_log, rules), file_field)
        if several:
            failure = replace(failure, message=f"Run {position + 1}: {failure.message}", field=file_field)
        return RunResult(
            position=position,
            status=RunStatus.FAILED,
            curve=_curve(training_log, len(training_log) - 1),
            log_row_count=len(training_log),
            errors=[failure],
            shifts=shifts,
        ), warnings
    return RunResult(
        position=position,
        status=RunStatus.SUCCESS,
        results=_run_results(training_log, crossing),
        curve=_curve(training_log, crossing),
        log_row_count=len(training_log),
        log_rows_sha256=training_log.rows_sha256(through=crossing),
        hours=shortest_decimal(training_log.hours[crossing]),
        shifts=shifts,
    ), warnings


def _threshold_not_reached(training_log: TrainingLog, rules: TaskRules) -> Issue:
    best = float(training_log.metric.max())
    hint = ""
    if rules.scale == Scale.PERCENT and best <= 1.0:
        hint = f" Every value is at most 1: if they are fractions, write {rules.log_column} in percent (0 to 100)."
    return Issue(
        ErrorCode.THRESHOLD_NOT_REACHED,
        f"The log never reaches the {rules.task_slug} {rules.version} threshold, {rules.log_column} of "
        f"{display.threshold(rules.threshold, rules.scale)} (best: {display.number(best)}).{hint}",
        field=rules.log_column,
    )


def check_request(*, task_slug: str, track: str, has_entry: bool, log_count: int, catalog: RulesCatalog) -> list[Issue]:
    """The checks that need no file contents: a known task and track, and the files the track needs.

    Cheap enough to run before an upload is queued, so a worker never receives a hopeless one.
    """
    errors: list[Issue] = []
    if not task_slug:
        errors.append(Issue(ErrorCode.MISSING_FIELD, "Name the task, e.g. task=cifar10.", field="task"))
    elif task_slug not in catalog:
        known = ", ".join(sorted(catalog))
        errors.append(
            Issue(ErrorCode.UNKNOWN_TASK, f"Unknown task '{task_slug[:50]}'; known tasks: {known}.", field="task")
        )
    if not track:
        errors.append(Issue(ErrorCode.MISSING_FIELD, "Name the track: 'train' or 'inference'.", field="track"))
    elif track not in TRACKS:
        errors.append(
            Issue(ErrorCode.UNKNOWN_TRACK, f"Unknown track '{track[:50]}'; use 'train' or 'inference'.", field="track")
        )
    if not has_entry:
        errors.append(Issue(ErrorCode.MISSING_FILE, "The entry JSON file is missing.", field="entry"))
    if track == Track.TRAIN and not log_count:
        errors.append(
            Issue(ErrorCode.MISSING_LOG, "A training entry needs its TSV log (epoch, hours, metric).", field="log")
        )
    return errors


def _run_results(log: TrainingLog, crossing: int) -> Results:
    return Results(
        accuracy=float(log.metric[crossing]),
        time_to_accuracy_seconds=logged_seconds(log.hours[crossing]),
        time_to_accuracy_epoch=float(log.epochs[crossing]),
        time_to_accuracy_line=int(log.line_numbers[crossing]),
    )


def _hours_of_score(score_seconds: float, nearest: RunResult) -> Decimal:
    """The score in hours: a run's own `hours` when the score is that run's time (one run, an odd median), so its
    cost is exactly what its log says; else the score as written."""
    if nearest.hours is not None and score_seconds == nearest.time_to_accuracy_seconds:
        return nearest.hours
    return hours_of(shortest_decimal(score_seconds))


def _with_training_cost(results: Results, entry: EntryDocument, *, hours: Decimal) -> Results:
    """The score's cost at the entry's own price per hour (none when it names none)."""
    if entry.cost_per_hour_usd is None:
        return results
    return replace(results, training_cost_usd=training_cost_usd(hours=hours, usd_per_hour=entry.cost_per_hour_usd))


def _inference_results(entry: EntryDocument) -> Results:
    cost = None
    if entry.cost_usd_per_item is not None:
        cost = inference_cost_usd_per_10k(cost_usd_per_item=entry.cost_usd_per_item)
    return Results(
        accuracy=float(entry.accuracy),
        latency_ms=float(entry.latency_ms) if entry.latency_ms is not None else None,
        inference_cost_usd_per_10k=cost,
    )


def _curve(log: TrainingLog, crossing: int) -> list[CurvePoint]:
    kept = curve_point_indices(log.metric, keep=crossing)
    return [
        CurvePoint(epoch=epoch, hours=hours, metric=metric, line=line)
        for epoch, hours, metric, line in zip(
            log.epochs[kept].tolist(),
            log.hours[kept].tolist(),
            log.metric[kept].tolist(),
            log.line_numbers[kept].tolist(),
            strict=True,
        )
    ]


def _in_file(issue: Issue, file_field: str) -> Issue:
    """Errors about a file's contents name the upload field when they name nothing more precise."""
    return replace(issue, field=file_field) if issue.field is None else issue
