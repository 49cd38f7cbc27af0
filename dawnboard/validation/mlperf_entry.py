"""An MLPerf Training set's verdict as Dawnboard's entry of several runs: the set's runs, its score and spread, and
the entry fields its system description and logs give (who, on what, when).

A run's time is MLPerf's: `run_stop` less `run_start` (the result summarizer's minutes, in seconds here); the
entry's is the set's score, the olympic mean times any scaling factor. The quality, progress and line of a run are
those of its first evaluation reaching the target.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Sequence

from dawnboard.errors import RejectedInput
from dawnboard.mllog_records import MllogLog
from dawnboard.results import Results
from dawnboard.rules import TaskRules, Track
from dawnboard.scoring import SECONDS_PER_HOUR
from dawnboard.scoring.runs import spread_of_runs
from dawnboard.validation import CurvePoint, IngestRejection, IngestResult, RunResult, RunStatus
from dawnboard.validation.entry import EntryDocument
from dawnboard.validation.mlperf import FAILED, SUCCESS, RunVerdict, SetVerdict

SECONDS_PER_MINUTE = 60
TEXT_LIMIT = 500  # the entry's text columns


def mlperf_ingest_result(
    verdict: SetVerdict, *, rules: TaskRules, system: dict, logs: Sequence[MllogLog | RejectedInput]
) -> IngestResult | IngestRejection:
    """The set's verdict as an accepted entry of its runs, or its rejection."""
    warnings = list(verdict.warnings)
    if not verdict.accepted:
        return IngestRejection(errors=list(verdict.errors), warnings=warnings)
    runs = [_run_result(position, run, log) for position, (run, log) in enumerate(zip(verdict.runs, logs, strict=True))]
    times = [run.time_to_accuracy_seconds for run in runs if run.status == RunStatus.SUCCESS]
    score_seconds = verdict.score_minutes * SECONDS_PER_MINUTE
    nearest = min(
        (run for run in runs if run.status == RunStatus.SUCCESS),
        key=lambda run: (abs(run.time_to_accuracy_seconds - score_seconds), run.position),
    )
    results = Results(
        accuracy=nearest.results.accuracy,
        time_to_accuracy_seconds=score_seconds,
        time_to_accuracy_epoch=nearest.results.time_to_accuracy_epoch,
        time_to_accuracy_line=nearest.results.time_to_accuracy_line,
    )
    return IngestResult(
        rules=rules,
        track=Track.TRAIN,
        entry=_entry_document(rules, system, verdict.runs),
        results=results,
        runs=runs,
        spread=spread_of_runs(times, failed=len(runs) - len(times)),
        warnings=warnings,
    )


def _run_result(position: int, run: RunVerdict, log: MllogLog | RejectedInput) -> RunResult:
    curve = [
        CurvePoint(
            epoch=point.progress if point.progress is not None else 0.0,
            hours=max(point.seconds_since_run_start, 0.0) / SECONDS_PER_HOUR,
            metric=point.quality,
            line=point.line,
        )
        for point in run.curve
        if point.quality is not None
    ]
    if run.status != SUCCESS:
        status = RunStatus.FAILED if run.status == FAILED else RunStatus.REJECTED
        return RunResult(position=position, status=status, curve=curve, errors=list(run.errors))
    target_line = next(
        (point.line for point in run.curve if point.seconds_since_run_start == run.time_to_target_seconds), None
    )
    return RunResult(
        position=position,
        status=RunStatus.SUCCESS,
        results=Results(
            accuracy=(run.quality_at_target or (None,))[0],
            time_to_accuracy_seconds=run.minutes * SECONDS_PER_MINUTE,
            time_to_accuracy_epoch=run.progress_at_target,
            time_to_accuracy_line=target_line,
        ),
        curve=curve,
        log_row_count=len(log.records) if isinstance(log, MllogLog) else 0,
        log_rows_sha256=records_sha256(log) if isinstance(log, MllogLog) else "",
    )


def records_sha256(log: MllogLog) -> str:
    """What identifies a run however its log is printed: its records (key, value, time, metadata) in order, not the
    other output around them nor their spacing."""
    digest = hashlib.sha256()
    for record in log.records:
        row = [record.key, record.value, record.time_ms, record.metadata]
        digest.update(json.dumps(row, sort_keys=True, separators=(",", ":"), default=str).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def _entry_document(rules: TaskRules, system: dict, runs: Sequence[RunVerdict]) -> EntryDocument:
    """Who ran the set, on what and when: the logs' submission_org and the system description's hardware; the date
    the first run started (UTC)."""
    metadata = next((run.metadata for run in runs if run.metadata), {})
    organisation = _text(system.get("submitter")) or _text(metadata.get("submission_org")) or "unknown"
    started = [run.run_start_time_ms for run in runs if run.run_start_time_ms is not None]
    date = datetime.datetime.fromtimestamp(min(started) / 1000, tz=datetime.UTC).date() if started else None
    return EntryDocument(
        version=rules.version,
        author=organisation,
        author_email="",
        framework=_text(system.get("framework")) or _text(metadata.get("submission_platform")),
        model=f"MLPerf {rules.benchmark} ({_text(metadata.get('submission_division')) or 'division not given'})",
        hardware=_hardware(system) or _text(metadata.get("submission_platform")) or "not described",
        date=date or datetime.date(1970, 1, 1),
        claimed=system,
    )


def _hardware(system: dict) -> str:
    """ "8 x NVIDIA H100-SXM5-80GB (dgxh100, 1 node)" from the system description's fields, where it has them."""
    accelerator = _text(system.get("accelerator_model_name"))
    name = _text(system.get("system_name"))
    nodes, per_node = _count(system.get("number_of_nodes")), _count(system.get("accelerators_per_node"))
    if not accelerator:
        return name
    count = nodes * per_node if nodes and per_node else per_node
    where = ", ".join(part for part in (name, f"{nodes} node{'s' if nodes != 1 else ''}" if nodes else "") if part)
    text = f"{count} x {accelerator}" if count else accelerator
    return f"{text} ({where})" if where else text


def _text(value) -> str:
    return str(value).strip()[:TEXT_LIMIT] if isinstance(value, str | int | float) and str(value).strip() else ""


def _count(value) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        return 0
    return number if 0 < number < 1_000_000 else 0
