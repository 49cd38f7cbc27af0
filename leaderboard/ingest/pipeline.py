"""Validate a submission and recompute its results from its own files."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from leaderboard.ingest.curve import curve_point_indices
from leaderboard.ingest.entry import EntryDocument, check_entry, parse_entry_document
from leaderboard.ingest.errors import ErrorCode, Issue, RejectedInput, WarningCode
from leaderboard.ingest.log import TrainingLog, parse_training_log
from leaderboard.ingest.rules import KNOWN_TRACKS, TaskRules
from leaderboard.ingest.scoring import (
    SECONDS_PER_HOUR,
    first_crossing,
    hours_to_decimal,
    inference_cost_usd_per_10k,
    training_cost_usd,
)


@dataclass(frozen=True)
class CurvePoint:
    epoch: float
    hours: float
    metric: float
    line: int


@dataclass(frozen=True)
class Results:
    """What Dawnboard recomputed. Units are in the names; money is Decimal."""

    accuracy: float | None = None
    time_to_accuracy_seconds: float | None = None
    time_to_accuracy_epoch: float | None = None
    time_to_accuracy_line: int | None = None
    training_cost_usd: Decimal | None = None
    latency_ms: float | None = None
    inference_cost_usd_per_10k: Decimal | None = None

    def as_dict(self) -> dict:
        return {
            "accuracy": self.accuracy,
            "time_to_accuracy_seconds": self.time_to_accuracy_seconds,
            "time_to_accuracy_epoch": self.time_to_accuracy_epoch,
            "training_cost_usd": _number_or_none(self.training_cost_usd),
            "latency_ms": self.latency_ms,
            "inference_cost_usd_per_10k": _number_or_none(self.inference_cost_usd_per_10k),
        }


@dataclass(frozen=True)
class IngestResult:
    """An accepted submission: the checked entry, the rules it met, the recomputed results, its curve."""

    rules: TaskRules
    track: str
    entry: EntryDocument
    results: Results
    curve: list[CurvePoint] = field(default_factory=list)
    log_row_count: int = 0
    warnings: list[Issue] = field(default_factory=list)
    accepted = True


@dataclass(frozen=True)
class IngestRejection:
    errors: list[Issue]
    warnings: list[Issue] = field(default_factory=list)
    accepted = False


def validate_submission(
    *,
    task_slug: str,
    track: str,
    entry_bytes: bytes | None,
    log_bytes: bytes | None,
    catalog: Mapping[str, Mapping[str, TaskRules]],
) -> IngestResult | IngestRejection:
    """Check a submission against the task catalog and recompute its results.

    Args:
        task_slug: the task the submitter names, e.g. "cifar10".
        track: "train" or "inference".
        entry_bytes: the entry JSON file, as uploaded.
        log_bytes: the TSV log (training), as uploaded; ignored with a warning for inference.
        catalog: task slug -> entry `version` -> the rules of that task version.
    """
    errors = check_request(
        task_slug=task_slug,
        track=track,
        has_entry=entry_bytes is not None,
        has_log=log_bytes is not None,
        catalog=catalog,
    )
    if errors:
        return IngestRejection(errors=errors)

    try:
        document = parse_entry_document(entry_bytes)
    except RejectedInput as rejected:
        return IngestRejection(errors=[_in_file(issue, "entry") for issue in rejected.issues])
    entry, rules, errors, warnings = check_entry(document, track=track, rules_by_version=catalog[task_slug])
    if track == "inference":
        if log_bytes is not None:
            warnings.append(
                Issue(
                    WarningCode.LOG_IGNORED, "Inference entries need no log; the file sent was not read.", field="log"
                )
            )
        if errors:
            return IngestRejection(errors=errors, warnings=warnings)
        return IngestResult(rules=rules, track=track, entry=entry, results=_inference_results(entry), warnings=warnings)

    if rules is None:  # the log can only be read against a known task version
        return IngestRejection(errors=errors, warnings=warnings)
    try:
        log, log_warnings = parse_training_log(log_bytes, rules)
    except RejectedInput as rejected:
        return IngestRejection(errors=errors + [_in_file(issue, "log") for issue in rejected.issues], warnings=warnings)
    warnings += log_warnings
    crossing = first_crossing(log.metric, float(rules.threshold))
    if crossing is None:
        errors.append(
            Issue(
                ErrorCode.THRESHOLD_NOT_REACHED,
                f"The log never reaches the {rules.task_slug} {rules.version} threshold of {rules.threshold} "
                f"{rules.log_column} (best: {float(log.metric.max()):g}).",
                field=rules.log_column,
            )
        )
    if errors:
        return IngestRejection(errors=errors, warnings=warnings)
    return IngestResult(
        rules=rules,
        track=track,
        entry=entry,
        results=_training_results(entry, log, crossing),
        curve=_curve(log, crossing),
        log_row_count=len(log),
        warnings=warnings,
    )


def check_request(
    *, task_slug: str, track: str, has_entry: bool, has_log: bool, catalog: Mapping[str, Mapping[str, TaskRules]]
) -> list[Issue]:
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
    elif track not in KNOWN_TRACKS:
        errors.append(
            Issue(ErrorCode.UNKNOWN_TRACK, f"Unknown track '{track[:50]}'; use 'train' or 'inference'.", field="track")
        )
    if not has_entry:
        errors.append(Issue(ErrorCode.MISSING_FILE, "The entry JSON file is missing.", field="entry"))
    if track == "train" and not has_log:
        errors.append(
            Issue(ErrorCode.MISSING_LOG, "A training entry needs its TSV log (epoch, hours, metric).", field="log")
        )
    return errors


def _training_results(entry: EntryDocument, log: TrainingLog, crossing: int) -> Results:
    hours = hours_to_decimal(log.hours[crossing])
    cost = None
    if entry.cost_per_hour_usd is not None:
        cost = training_cost_usd(time_to_accuracy_hours=hours, cost_per_hour_usd=entry.cost_per_hour_usd)
    return Results(
        accuracy=float(log.metric[crossing]),
        time_to_accuracy_seconds=float(hours * SECONDS_PER_HOUR),
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
    if issue.field is None:
        return Issue(code=issue.code, message=issue.message, field=file_field, line=issue.line)
    return issue


def _number_or_none(value: Decimal | None) -> float | None:
    return None if value is None else float(value)
