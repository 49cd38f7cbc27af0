"""Judging a stored submission: the ingest's verdict, recorded; an accepted one stored as an Entry.

Idempotent, so a message delivered twice (a worker lost, a sweep) changes nothing the second time. The files
of an accepted entry (its fields as published, its log's bytes) are refused (`duplicate_submission`), and so
is a training log already on the board under another submitter's entry, as sent or rewritten
(`log_already_submitted`); a submitter's own log sent again with corrected metadata replaces their entry.
Database constraints back both checks when two copies are judged at once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from functools import cached_property

import structlog
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from dawnboard.errors import ErrorCode, Issue, WarningCode, shown
from dawnboard.formats.dawnbench.entry import published_entry_sha256
from dawnboard.ingest import validate_dawnbench_files, validate_mllog_files
from dawnboard.results import Results
from dawnboard.rules import Track
from dawnboard.run_records import machine_loads, with_machine_load
from dawnboard.scoring import shortest_decimal, throughput_cost_of_single_stream_cost
from dawnboard.scoring.runs import Spread
from dawnboard.scoring.sensitivity import entry_shifts, entry_single_crossing
from dawnboard.validation import IngestRejection, IngestResult, RunResult, RunStatus, log_field
from dawnboard.verification import verification_level
from leaderboard.models import CurvePoint, Entry, Run, Submission, SubmittedFile, Submitter, TaskVersion
from leaderboard.selectors import LATENCY_PERCENTILES, task_catalog
from leaderboard.services.hardware import hardware_match_entry
from leaderboard.services.verification import RCP_KIND, entry_evidence, entry_trust_refresh

logger = structlog.get_logger(__name__)


@dataclass(frozen=True)
class Upload:
    """A file as received: its name and its bytes."""

    name: str
    content: bytes

    @cached_property  # asked for by the files digest, the log's fingerprint and the stored file alike
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()

    @cached_property
    def published_sha256(self) -> str:
        """Of an entry JSON: its digest as published, a function of no private field."""
        return published_entry_sha256(self.content)


@dataclass(frozen=True)
class SubmissionOutcome:
    """What the submitter is told. `submission_id` is None when nothing was stored."""

    status: str
    submission_id: int | None = None
    entry_id: int | None = None
    errors: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)
    results: dict | None = None
    dry_run: bool = False
    replayed: bool = False  # the answer to a retried request (same Idempotency-Key): its first submission

    def summary(self) -> dict:
        """The verdict in brief, as a job that submitted reports it (pending, when a worker judges it)."""
        return {
            "status": self.status,
            "submission_id": self.submission_id,
            "entry_id": self.entry_id,
            "errors": self.errors,
        }


def submission_judge(*, submission_id: int, source_name: str = "") -> str:
    """Validate a stored submission and record the verdict; an accepted one becomes an Entry. Idempotent.

    An accepted verdict is stored unless the board has it already (`_store_unless_on_board`): the same run is
    ranked once, even when two copies are judged at the same moment by two workers.
    """
    with transaction.atomic():
        submission = Submission.objects.select_for_update().get(id=submission_id)
        if submission.status != Submission.Status.PENDING:
            return submission.status
        verdict, logs = stored_verdict(submission)
        submission.decided_at = timezone.now()
        if verdict.accepted:
            errors, warnings = _store_unless_on_board(
                submission=submission, verdict=verdict, logs=logs, source_name=source_name
            )
        else:
            errors, warnings = [issue.as_dict() for issue in verdict.errors], verdict.warnings
        if errors:
            submission.errors = errors
            submission.warnings = [issue.as_dict() for issue in warnings]
            submission.status = Submission.Status.REJECTED
            submission.save(update_fields=["status", "errors", "warnings", "decided_at"])
        return submission.status


def stored_verdict(submission: Submission) -> tuple[IngestResult | IngestRejection, list[Upload]]:
    """The verdict on a stored submission's files, read again, and its logs."""
    entry, logs = stored_files(submission)
    verdict = files_verdict(
        task_slug=submission.task_slug,
        track=submission.track,
        entry=entry,
        logs=logs,
        version=submission.version,
        run_record=submission.run_record,
    )
    return verdict, logs


def stored_files(submission: Submission) -> tuple[Upload | None, list[Upload]]:
    """A stored submission's entry file and its logs, in the order of their runs."""
    entry, logs = None, []
    for file in submission.files.order_by("role", "position"):
        if file.role == SubmittedFile.Role.ENTRY:
            entry = _as_upload(file)
        else:
            logs.append(_as_upload(file))
    return entry, logs


def _store_unless_on_board(
    *, submission: Submission, verdict: IngestResult, logs: list[Upload], source_name: str
) -> tuple[list[dict], list[Issue]]:
    """Store an accepted verdict's entry unless the board has its files (`duplicate_submission`) or another's
    entry has one of its logs (`log_already_submitted`); the submitter's own entries with those logs are
    withdrawn in the same transaction. Returns the errors (none when stored) and the warnings to record.
    """
    log_sha256s = [log.sha256 for log in logs]
    claim = log_claim(
        task_slug=submission.task_slug, submitter_id=submission.submitter_id, verdict=verdict, log_sha256s=log_sha256s
    )
    reproduces, unknown = _entry_reproduced(submission, verdict)
    errors = _duplicate_of_accepted(submission) or claim.errors or unknown
    if errors:
        return errors, verdict.warnings
    stored = replace(verdict, warnings=verdict.warnings + claim.warnings)
    try:
        with transaction.atomic():  # a savepoint: the constraints may find a copy accepted meanwhile
            for replaced in claim.replaces:
                entry_withdraw(entry=replaced)
            submission.status = Submission.Status.ACCEPTED
            submission.warnings = [issue.as_dict() for issue in stored.warnings]
            submission.save(update_fields=["status", "warnings", "decided_at"])
            entry = _entry_store(
                submission=submission, verdict=stored, source_name=source_name, logs=logs, reproduces=reproduces
            )
            entry_trust_refresh(entry=entry)
    except IntegrityError:  # rolled back, the withdrawal with it: the verdict says nothing of replacing
        taken = log_claim(
            task_slug=submission.task_slug,
            submitter_id=submission.submitter_id,
            verdict=verdict,
            log_sha256s=log_sha256s,
            may_replace=False,
        )
        errors = _duplicate_of_accepted(submission) or taken.errors
        if not errors:
            raise
    return errors, verdict.warnings


def submission_outcome(*, submission: Submission) -> SubmissionOutcome:
    """The verdict of a stored submission, as its submitter sees it."""
    entry = getattr(submission, "entry", None) if submission.status == Submission.Status.ACCEPTED else None
    return SubmissionOutcome(
        status=submission.status,
        submission_id=submission.id,
        entry_id=entry.id if entry else None,
        errors=submission.errors,
        warnings=submission.warnings,
        results=entry_results(entry) if entry else None,
    )


def entry_results(entry: Entry) -> dict:
    """An entry's recomputed results, in the one shape verdicts, commands and the API share."""
    return results_document(Results.of(entry), entry.spread)


def results_document(results: Results, spread: Spread | None) -> dict:
    """Results as JSON, with the spread of the runs behind them (training entries; None for inference)."""
    return {**results.as_dict(), "spread": spread.as_dict() if spread else None}


def _task_version_for(*, task_slug: str, version: str) -> TaskVersion:
    return TaskVersion.objects.select_related("task").get(task__slug=task_slug, version=version)


def entry_withdraw(*, entry: Entry) -> None:
    """Take an entry off the boards, its runs' logs with it (leaderboard.signals: free to be submitted again), and the
    entries it bore on (a seed it reproduced, its recipe's seeds) judged again without it (leaderboard.signals)."""
    entry.status = Entry.Status.WITHDRAWN
    entry.save(update_fields=["status"])


def files_digest_of(*, task_slug: str, track: str, entry: Upload | None, logs: list[Upload], version: str = "") -> str:
    """The submission's files digest: its entry as published (an MLPerf set's system JSON: its bytes), its logs."""
    if entry is None:
        entry_sha256 = "-"
    elif version:  # a system JSON holds nothing private: its bytes
        entry_sha256 = entry.sha256
    else:
        entry_sha256 = entry.published_sha256
    return Submission.digest_of(
        task_slug=task_slug,
        track=track,
        entry_sha256=f"{version}:{entry_sha256}" if version else entry_sha256,
        log_sha256s=[log.sha256 for log in logs],
    )


def _duplicate_of_accepted(submission: Submission) -> list[dict]:
    """The `duplicate_submission` error when an accepted entry of the same task and track has these files."""
    return duplicate_of_accepted(
        task_slug=submission.task_slug,
        track=submission.track,
        files_digest=submission.files_digest,
        other_than=submission.id,
    )


def duplicate_of_accepted(
    *, task_slug: str, track: str, files_digest: str, other_than: int | None = None
) -> list[dict]:
    """The `duplicate_submission` error when an accepted entry of the task and track (other than submission
    `other_than`'s) has files of this digest; a dry run asks it too, so that it answers as the real one would."""
    if not files_digest:
        return []
    first = (
        Entry.objects.filter(
            submission__task_slug=task_slug,
            submission__track=track,
            submission__files_digest=files_digest,
            submission__status=Submission.Status.ACCEPTED,
        )
        .exclude(submission_id=other_than)
        .only("id")
        .first()
    )
    if first is None:
        return []
    issue = Issue(
        ErrorCode.DUPLICATE_SUBMISSION,
        f"These files are those of entry {first.id}, accepted before (see /entries/{first.id}/): the same entry "
        "fields (the author's address aside) and the same log; a run is ranked once.",
        field="entry",
    )
    return [{**issue.as_dict(), "entry_id": first.id}]


@dataclass(frozen=True)
class LogClaim:
    """What the board says of an entry's logs: free (nothing), another's entry (`errors`), or the same
    submitter's entries, which the new one replaces (`replaces`, withdrawn when the new one is stored)."""

    errors: list[dict] = field(default_factory=list)
    replaces: list[Entry] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)


def log_claim(
    *,
    task_slug: str,
    submitter_id: int | None,
    verdict: IngestResult,
    log_sha256s: list[str],
    may_replace: bool = True,
) -> LogClaim:
    """Whether the runs behind an accepted verdict's logs are already on the task's board, and whose they are.

    A log counts as on the board when a run of an accepted entry of the task holds its bytes or its rows as
    read (`RunResult.log_rows_sha256`: the same run rewritten with other spacing, line ends, column order or
    number formatting). The submitter's own entry is replaced (unless `may_replace` is off: it was stored
    while this one was judged); anyone else's (an import's, a reference run's, another submitter's) refuses
    the log with `log_already_submitted`, naming that entry.
    """
    claim = LogClaim()
    several = len(verdict.runs) > 1
    for run in verdict.runs:
        if not run.log_rows_sha256:
            continue
        log_sha256 = log_sha256s[run.position]
        holder = (
            Run.objects.filter(task__slug=task_slug, on_board=True)
            .filter(Q(log_sha256=log_sha256) | Q(log_rows_sha256=run.log_rows_sha256))
            .select_related("entry__submission")
            .order_by("entry_id", "position")
            .first()
        )
        if holder is None:
            continue
        claim = _claim_joined(claim, _run_claim(run, holder, task_slug, submitter_id, log_sha256, several, may_replace))
    return claim


def _run_claim(
    run: RunResult, holder: Run, task_slug: str, submitter_id: int | None, log_sha256: str, several: bool, may_replace
) -> LogClaim:
    entry = holder.entry
    file_field = log_field(run.position, several)
    own = submitter_id is not None and entry.submission.submitter_id == submitter_id
    if own and may_replace:
        note = Issue(
            WarningCode.REPLACES_ENTRY,
            f"Your entry {entry.id} has the same log (see /entries/{entry.id}/): it is withdrawn and this entry "
            "replaces it on the board.",
            field=file_field,
        )
        return LogClaim(replaces=[entry], warnings=[note])
    how = "is byte-identical to" if holder.log_sha256 == log_sha256 else "holds the same rows as"
    whose = "your entry stored while this one was judged" if own else "not yours"
    issue = Issue(
        ErrorCode.LOG_ALREADY_SUBMITTED,
        f"This log {how} the log of entry {entry.id}, already on the {task_slug} board (see "
        f"/entries/{entry.id}/) and {whose}: a run is ranked once, under the entry that submitted it.",
        field=file_field,
    )
    return LogClaim(errors=[{**issue.as_dict(), "entry_id": entry.id}])


def _claim_joined(first: LogClaim, second: LogClaim) -> LogClaim:
    """Two runs' claims as one: every error; each replaced entry once, with its warning once."""
    new = [
        (entry, note)
        for entry, note in zip(second.replaces, second.warnings, strict=True)
        if entry not in first.replaces
    ]
    return LogClaim(
        errors=first.errors + second.errors,
        replaces=first.replaces + [entry for entry, _ in new],
        warnings=first.warnings + [note for _, note in new],
    )


def files_verdict(
    *,
    task_slug: str,
    track: str,
    entry: Upload | None,
    logs: list[Upload],
    version: str = "",
    run_record: dict | None = None,
) -> IngestResult | IngestRejection:
    """The verdict on a submission's files: DAWNBench's entry and TSV logs, or (`version` naming an MLPerf round)
    a system JSON and MLLOG result files; a reference run's record adds what the machine was doing."""
    catalog = task_catalog(task_slug)
    if version:
        verdict = validate_mllog_files(
            task_slug=task_slug,
            version=version,
            system_json=entry.content if entry else None,
            logs=[(log_field(position, len(logs) > 1), log.content) for position, log in enumerate(logs)],
            catalog=catalog,
            scaling_factor=(run_record or {}).get("scaling_factor"),
        )
    else:
        verdict = validate_dawnbench_files(
            task_slug=task_slug,
            track=track,
            entry_bytes=entry.content if entry else None,
            logs=[log.content for log in logs],
            catalog=catalog,
        )
    return with_machine_load(verdict, run_record)


def submission_store(
    *,
    task_slug: str,
    track: str,
    entry: Upload | None,
    logs: list[Upload],
    source: str,
    submitter: Submitter | None,
    version: str = "",
    run_record: dict | None = None,
    idempotency_key: str = "",
    times_queued: int = 0,
    queued_at=None,
) -> Submission:
    submission = Submission.objects.create(
        submitter=submitter,
        source=source,
        task_slug=task_slug,
        track=track,
        version=version,
        run_record=run_record,
        files_digest=files_digest_of(task_slug=task_slug, track=track, entry=entry, logs=logs, version=version),
        idempotency_key=idempotency_key,
        times_queued=times_queued,
        queued_at=queued_at,
    )
    files = [(SubmittedFile.Role.ENTRY, 0, entry)] if entry is not None else []
    files += [(SubmittedFile.Role.LOG, position, log) for position, log in enumerate(logs)]
    SubmittedFile.objects.bulk_create(
        SubmittedFile(
            submission=submission,
            role=role,
            position=position,
            name=upload.name[:255],
            sha256=upload.sha256,
            size_bytes=len(upload.content),
            content=upload.content,
        )
        for role, position, upload in files
    )
    # Every later line of this request (or command) carries the id; the worker binds it again (leaderboard.tasks).
    structlog.contextvars.bind_contextvars(submission_id=submission.id)
    logger.info("submission_stored", source=source, task=task_slug, track=track, files=len(files))
    return submission


def _entry_store(
    *, submission: Submission, verdict: IngestResult, source_name: str, logs: list[Upload], reproduces: Entry | None
) -> Entry:
    document, results, spread = verdict.entry, verdict.results, verdict.spread
    version = _task_version_for(task_slug=verdict.rules.task_slug, version=verdict.rules.version)
    entry = Entry(
        submission=submission,
        task=version.task,
        task_version=version,
        track=verdict.track,
        source_name=source_name,
        reproduces=reproduces,
        version=document.version,
        author=document.author,
        author_email=document.author_email,
        framework=document.framework,
        model=document.model,
        hardware=document.hardware,
        date=document.date,
        code_url=document.code_url,
        commit_hash=document.commit_hash,
        log_filename=document.log_filename,
        cost_per_hour_usd=document.cost_per_hour_usd,
        misc=document.misc,
        extra_fields=document.extra_fields,
        claimed=document.claimed,
        warnings=[issue.as_dict() for issue in verdict.warnings],
        accuracy=results.accuracy,
        time_to_accuracy_seconds=results.time_to_accuracy_seconds,
        time_to_accuracy_epoch=results.time_to_accuracy_epoch,
        time_to_accuracy_line=results.time_to_accuracy_line,
        training_cost_usd=results.training_cost_usd,
        latency_ms=results.latency_ms,
        inference_cost_usd_per_10k=results.inference_cost_usd_per_10k,
        **_loadgen_columns(verdict.loadgen, results),
        **_measured_latency_percentiles(submission, verdict.loadgen),
        **Entry.spread_columns(spread),
        **_trust_columns(verdict),
    )
    entry.verification = verification_level(entry_evidence(entry)).value
    entry.save(force_insert=True)
    _runs_store(entry=entry, verdict=verdict, logs=logs)
    hardware_match_entry(entry=entry)
    return entry


def _runs_store(*, entry: Entry, verdict: IngestResult, logs: list[Upload]) -> None:
    """The entry's runs, each with its log's fingerprints, its figures and its curve."""
    loads = machine_loads(entry.submission.run_record)
    runs = Run.objects.bulk_create(
        Run(
            entry=entry,
            task_id=entry.task_id,
            position=run.position,
            status=Run.Status.SUCCESS if run.status == RunStatus.SUCCESS else Run.Status.FAILED,
            errors=[issue.as_dict() for issue in run.errors],
            log_name=logs[run.position].name[:255],
            log_sha256=logs[run.position].sha256 if run.log_rows_sha256 else "",
            log_rows_sha256=run.log_rows_sha256,
            log_row_count=run.log_row_count,
            accuracy=run.results.accuracy if run.results else None,
            time_to_accuracy_seconds=run.time_to_accuracy_seconds,
            time_to_accuracy_epoch=run.results.time_to_accuracy_epoch if run.results else None,
            time_to_accuracy_line=run.results.time_to_accuracy_line if run.results else None,
            machine_load=loads[run.position] if run.position < len(loads) else None,
            measured_while_busy=bool(run.position < len(loads) and (loads[run.position] or {}).get("busy")),
        )
        for run in verdict.runs
    )
    CurvePoint.objects.bulk_create(
        [
            CurvePoint(
                run=stored,
                position=position,
                line=point.line,
                epoch=point.epoch,
                hours=point.hours,
                metric=point.metric,
            )
            for stored, run in zip(runs, verdict.runs, strict=True)
            for position, point in enumerate(run.curve)
        ],
        batch_size=500,
    )


def _measured_latency_percentiles(submission: Submission, loadgen) -> dict[str, float]:
    """The latency percentiles of a measured entry: the inference harness's, over the whole test set one item at a
    time (its run record), for a `measured` submission; else LoadGen's, from a single-stream log sent with it."""
    if submission.source == Submission.Source.MEASURED and submission.run_record:
        latency = submission.run_record.get("latency_ms") or {}
        return {f"latency_{name}_ms": float(latency[name]) for name in LATENCY_PERCENTILES if name in latency}
    if loadgen is None or loadgen.scenario != "single-stream":
        return {}
    figures = loadgen.latencies_ms()
    return {f"latency_{name}_ms": figures[name] for name in LATENCY_PERCENTILES if figures.get(name) is not None}


def _loadgen_columns(loadgen, results: Results) -> dict:
    """What the entry keeps of its LoadGen test (`IngestResult.loadgen`, VALID: an INVALID one was refused): its
    scenario; offline, the samples per second with 10,000 items' cost at that rate (at the price of the entry's own
    cost); server, the rate held (LoadGen's scheduled queries per second)."""
    if loadgen is None:
        return {}
    columns = {"loadgen_scenario": loadgen.scenario}
    throughput = loadgen.samples_per_second
    if throughput:
        columns["samples_per_second"] = float(throughput)
        if results.inference_cost_usd_per_10k is not None and results.latency_ms:
            columns["inference_cost_usd_per_10k_at_throughput"] = throughput_cost_of_single_stream_cost(
                cost_usd_per_10k=results.inference_cost_usd_per_10k,
                latency_ms=shortest_decimal(results.latency_ms),
                samples_per_second=shortest_decimal(throughput),
            )
    if loadgen.scheduled_queries_per_second:
        columns["queries_per_second"] = float(loadgen.scheduled_queries_per_second)
    return columns


def entry_files_reread(*, entry: Entry) -> bool:
    """Read an entry's stored files again through their format readers and store what the verdict says of how far
    to trust it (`_trust_columns`: its scores at shifted thresholds, a single crossing, what it says was evaluated,
    an MLPerf set's compliance and RCP verdicts); its figures stay. False, changing nothing, when they are no longer
    accepted (rules changed since)."""
    verdict, _ = stored_verdict(entry.submission)
    if not verdict.accepted:
        return False
    Entry.objects.filter(id=entry.id).update(**_trust_columns(verdict))
    entry.refresh_from_db()
    return True


def _trust_columns(verdict: IngestResult) -> dict:
    """What the verdict says of how far to trust the entry: what it says was evaluated, its score at each shifted
    threshold (from its logs as read; none for an MLPerf set), and an MLPerf set's compliance and RCP verdicts."""
    evaluation = verdict.entry.evaluation
    columns = {
        "evaluation_split": evaluation.split,
        "evaluation_exclusions": evaluation.exclusions,
        "evaluated": evaluation.evaluated.value,
    }
    shifts = [run.shifts for run in verdict.runs]
    if shifts and all(shift is not None for shift in shifts):
        columns |= Entry.shift_columns(entry_shifts(shifts, verdict.rules.runs))
        columns["single_crossing"] = entry_single_crossing(shifts)
    if verdict.compliance is not None:
        columns["compliance"] = verdict.compliance.as_dict()
    if verdict.convergence is not None:
        columns["convergence"] = {"kind": RCP_KIND, **verdict.convergence.as_dict()}
    return columns


def _entry_reproduced(submission: Submission, verdict: IngestResult) -> tuple[Entry | None, list[dict]]:
    """The entry a new entry reproduces: the one its `reproduces` field names (an accepted training entry of its task,
    by id or DAWNBench file stem; else `unknown_reproduced_entry`), or the seed a reference run's record names."""
    named = verdict.entry.reproduces
    if named is None:
        return _seed_entry_reproduced(submission), []
    candidates = Entry.objects.accepted().filter(task__slug=submission.task_slug, track=Track.TRAIN)
    found = candidates.filter(**{"id" if isinstance(named, int) else "source_name": named}).first()
    if found is not None and verdict.track == Track.TRAIN:
        return found, []
    why = "only a training entry reproduces another" if found is not None else "no accepted training entry has it"
    issue = Issue(
        ErrorCode.UNKNOWN_REPRODUCED_ENTRY,
        f"'reproduces' names {shown(str(named))} on the {submission.task_slug} board: {why}. Name an accepted "
        "training entry by its id (/entries/<id>/) or by its DAWNBench file stem.",
        field="reproduces",
    )
    return None, [issue.as_dict()]


def _seed_entry_reproduced(submission: Submission) -> Entry | None:
    """The accepted seed entry a reference run reproduces: the first its record names that is on the board."""
    record = submission.run_record or {}
    names = [name for name in [record.get("reproduces"), *record.get("reproduces_any_of", [])] if name]
    if not names:
        return None
    seeds = {
        seed.source_name: seed
        for seed in Entry.objects.accepted().filter(
            task__slug=submission.task_slug, track=submission.track, source_name__in=names
        )
    }
    return next((seeds[name] for name in names if name in seeds), None)


def _as_upload(file: SubmittedFile | None) -> Upload | None:
    return None if file is None else Upload(name=file.name, content=bytes(file.content))


def verdict_outcome(
    verdict: IngestResult | IngestRejection, *, status: str, dry_run: bool = False
) -> SubmissionOutcome:
    return SubmissionOutcome(
        status=status,
        errors=[issue.as_dict() for issue in getattr(verdict, "errors", [])],
        warnings=[issue.as_dict() for issue in verdict.warnings],
        results=results_document(verdict.results, verdict.spread) if verdict.accepted else None,
        dry_run=dry_run,
    )
