"""Validate a submission and recompute its results: the benchmark's rules applied to parsed documents.

`validate_submission` sees an entry document and a training log as rows, through the readers of
their format (`dawnboard.formats`), never their bytes; it applies a task version's rules and
recomputes every result. It returns an `IngestResult` with warnings, or an `IngestRejection` with the errors
found (at most `MAX_ISSUES_PER_CODE` of each code, then how many more); either lists the warnings that
question a figure first.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

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
from dawnboard.rules import TRACKS, RulesCatalog, Scale, TaskRules, Track
from dawnboard.scoring import (
    first_crossing,
    inference_cost_usd_per_10k,
    seconds_of,
    shortest_decimal,
    training_cost_usd,
)
from dawnboard.validation.entry import EntryDocument, check_entry
from dawnboard.validation.log import check_training_log


@dataclass(frozen=True)
class CurvePoint:
    epoch: float
    hours: float
    metric: float
    line: int


@dataclass(frozen=True)
class IngestResult:
    """An accepted submission: the checked entry, the rules it met, the recomputed results, its curve."""

    rules: TaskRules
    track: Track
    entry: EntryDocument
    results: Results
    curve: list[CurvePoint] = field(default_factory=list)
    log_row_count: int = 0
    # What identifies the run behind a training log however it is written (TrainingLog.rows_sha256).
    log_rows_sha256: str = ""
    warnings: list[Issue] = field(default_factory=list)
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
    log: LogSource | None,
    catalog: RulesCatalog,
) -> IngestResult | IngestRejection:
    """Check a submission against the task catalog and recompute its results.

    Args:
        task_slug: the task the submitter names, e.g. "cifar10".
        track: "train" or "inference", as the submitter wrote it.
        entry: reads the entry document (None: no entry file was sent).
        log: reads the training log against the rules of the entry's version (None: no log was sent);
            for inference a log is not read, with a warning.
        catalog: task slug -> entry `version` -> the rules of that task version.
    """
    errors = check_request(
        task_slug=task_slug, track=track, has_entry=entry is not None, has_log=log is not None, catalog=catalog
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
        if log is not None:
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

    if rules is None:  # the log can only be read against a known task version
        return IngestRejection(errors=errors, warnings=warnings)
    try:
        reading = log(rules)
        training_log, curve_warnings = check_training_log(reading.log, rules)
    except RejectedInput as rejected:
        return IngestRejection(errors=errors + [_in_file(issue, "log") for issue in rejected.issues], warnings=warnings)
    warnings += reading.warnings + curve_warnings
    crossing = first_crossing(training_log.metric, float(rules.threshold))
    if crossing is None:
        best = float(training_log.metric.max())
        hint = ""
        if rules.scale == Scale.PERCENT and best <= 1.0:
            hint = f" Every value is at most 1: if they are fractions, write {rules.log_column} in percent (0 to 100)."
        errors.append(
            Issue(
                ErrorCode.THRESHOLD_NOT_REACHED,
                f"The log never reaches the {rules.task_slug} {rules.version} threshold, {rules.log_column} of "
                f"{display.threshold(rules.threshold, rules.scale)} (best: {display.number(best)}).{hint}",
                field=rules.log_column,
            )
        )
    if errors:
        return IngestRejection(errors=errors, warnings=warnings)
    return IngestResult(
        rules=rules,
        track=track,
        entry=checked,
        results=_training_results(checked, training_log, crossing),
        curve=_curve(training_log, crossing),
        log_row_count=len(training_log),
        log_rows_sha256=training_log.rows_sha256(through=crossing),
        warnings=warnings,
    )


def check_request(*, task_slug: str, track: str, has_entry: bool, has_log: bool, catalog: RulesCatalog) -> list[Issue]:
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
    if track == Track.TRAIN and not has_log:
        errors.append(
            Issue(ErrorCode.MISSING_LOG, "A training entry needs its TSV log (epoch, hours, metric).", field="log")
        )
    return errors


def _training_results(entry: EntryDocument, log: TrainingLog, crossing: int) -> Results:
    hours = shortest_decimal(log.hours[crossing])
    cost = None
    if entry.cost_per_hour_usd is not None:
        cost = training_cost_usd(hours=hours, usd_per_hour=entry.cost_per_hour_usd)
    return Results(
        accuracy=float(log.metric[crossing]),
        time_to_accuracy_seconds=float(seconds_of(hours)),
        time_to_accuracy_epoch=float(log.epochs[crossing]),
        time_to_accuracy_line=int(log.line_numbers[crossing]),
        training_cost_usd=cost,
    )


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
