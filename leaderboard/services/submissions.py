"""Receiving a submission: now (no broker, in the receiving transaction) or stored and queued for a worker.

With no Celery broker the judging runs in-process inside the receiving transaction, so a rejected submission
rolls back and stores nothing. With a broker the upload is stored as `pending` and a worker judges it; a
rejection then records only the verdict. An Idempotency-Key makes a retried request answer its first one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from dawnboard.errors import ErrorCode, Issue
from dawnboard.formats.dawnbench.entry import entry_size_issue
from dawnboard.rounds import TRAINING_ROUNDS
from dawnboard.rules import mlperf_version
from dawnboard.validation import check_request
from leaderboard.models import Entry, Submission, Submitter
from leaderboard.selectors import task_catalog
from leaderboard.services.judging import (
    SubmissionOutcome,
    Upload,
    duplicate_of_accepted,
    files_digest_of,
    files_verdict,
    log_claim,
    submission_judge,
    submission_outcome,
    submission_store,
    verdict_outcome,
)
from leaderboard.services.queueing import idempotency_keys_kept_since, submission_queue


class SubmissionRejected(Exception):
    """Raised before anything is stored, e.g. for an upload over the size limit."""

    def __init__(self, *issues: Issue):
        super().__init__("; ".join(issue.message for issue in issues))
        self.issues = list(issues)


class IdempotencyKeyReused(Exception):
    """The Idempotency-Key already names a submission of other files."""

    def __init__(self, submission_id: int):
        super().__init__(f"This Idempotency-Key was used for submission {submission_id}, with other files.")
        self.submission_id = submission_id


LOG_FORMATS = ("dawnbench", "mllog")


def submission_version(*, log_format: str, round_name: str) -> str:
    """The task version a submission's files are judged by when they do not name it: "" for DAWNBench files (the
    entry names its version), an MLPerf round's (e.g. "mlperf-v4.0") for `format=mllog`.

    Raises:
        SubmissionRejected: an unknown format, or MLLOG files without a known round.
    """
    if log_format in ("", "dawnbench"):
        return ""
    if log_format != "mllog":
        known = ", ".join(LOG_FORMATS)
        raise SubmissionRejected(
            Issue(ErrorCode.UNKNOWN_FORMAT, f"Unknown format '{log_format[:50]}'; use one of: {known}.", field="format")
        )
    rounds = [training_round.round for training_round in TRAINING_ROUNDS]
    if round_name not in rounds:
        problem = f"Unknown round '{round_name[:50]}'" if round_name else "MLLOG files need their round"
        raise SubmissionRejected(
            Issue(
                ErrorCode.UNKNOWN_ROUND,
                f"{problem}: name the MLPerf Training round they ran under, one of {', '.join(rounds)}.",
                field="round",
            )
        )
    return mlperf_version(round_name)


def upload_read(file, *, field_name: str) -> Upload:
    """Read an uploaded file, refusing one over the limit before its bytes are loaded (or stored, or queued)."""
    if field_name == "entry" and (too_large := entry_size_issue(file.size)):
        raise SubmissionRejected(replace(too_large, field=field_name))
    limit = settings.SUBMISSION_MAX_FILE_BYTES
    if file.size > limit:
        raise SubmissionRejected(
            Issue(
                ErrorCode.FILE_TOO_LARGE,
                f"The {field_name} file is {file.size:,} bytes; the limit is {limit:,}.",
                field=field_name,
            )
        )
    name = (getattr(file, "name", "") or field_name).replace("\x00", "")
    return Upload(name=name, content=file.read())


def submission_create(
    *,
    task_slug: str,
    track: str,
    entry: Upload | None,
    logs: list[Upload],
    source: str,
    submitter: Submitter | None = None,
    source_name: str = "",
    dry_run: bool = False,
    run_record: dict | None = None,
    idempotency_key: str = "",
    version: str = "",
) -> SubmissionOutcome:
    """Receive a submission and judge it (now, or on a worker when a broker is configured).

    `logs` are the entry's runs, one log each, in order. `version` names the task version the files are judged
    by where no entry names it (an MLPerf round's, for MLLOG result files; the entry is then the system JSON).
    `run_record` is a reference run's record (its run.json; `{"runs": [...]}` for several); it is kept with the
    submission, and an accepted entry is linked to the seed entry the record says the run reproduces. A request
    that repeats a submitter's `idempotency_key` with the same files gets its first submission back (`replayed`).

    Raises:
        IdempotencyKeyReused: the key names a submission of other files.
        QueueUnavailable: the broker is down; nothing was stored.
    """
    if dry_run:
        verdict = files_verdict(
            task_slug=task_slug, track=track, entry=entry, logs=logs, version=version, run_record=run_record
        )
        outcome = verdict_outcome(verdict, status="valid" if verdict.accepted else "rejected", dry_run=True)
        if not verdict.accepted:
            return outcome
        digest = files_digest_of(task_slug=task_slug, track=track, entry=entry, logs=logs, version=version)
        claim = log_claim(
            task_slug=task_slug,
            submitter_id=submitter.id if submitter else None,
            verdict=verdict,
            log_sha256s=[log.sha256 for log in logs],
        )
        refused = duplicate_of_accepted(task_slug=task_slug, track=track, files_digest=digest) or claim.errors
        if refused:
            return replace(outcome, status="rejected", errors=refused, results=None)
        return replace(outcome, warnings=outcome.warnings + [issue.as_dict() for issue in claim.warnings])

    problems = check_request(
        task_slug=task_slug,
        track=track,
        has_entry=entry is not None or bool(version),  # an MLPerf set's system JSON is optional
        log_count=len(logs),
        catalog=task_catalog(),
    )
    if problems:  # refused before anything is stored or queued
        return SubmissionOutcome(status="rejected", errors=[issue.as_dict() for issue in problems])
    store = {
        "task_slug": task_slug,
        "track": track,
        "entry": entry,
        "logs": logs,
        "version": version,
        "source": source,
        "submitter": submitter,
        "run_record": run_record,
        "idempotency_key": idempotency_key if submitter is not None else "",
    }
    files_digest = files_digest_of(task_slug=task_slug, track=track, entry=entry, logs=logs, version=version)
    if store["idempotency_key"]:
        replay = _idempotent_replay(submitter=submitter, key=idempotency_key, files_digest=files_digest)
        if replay is not None:
            return replay
    try:
        if settings.CELERY_TASK_ALWAYS_EAGER:
            return _submission_create_now(source_name=source_name, **store)
        return submission_queue(source_name=source_name, **store)
    except IntegrityError:
        # A concurrent request with the same key stored its submission first: answer with that one.
        replay = store["idempotency_key"] and _idempotent_replay(
            submitter=submitter, key=idempotency_key, files_digest=files_digest
        )
        if not replay:
            raise
        return replay


@dataclass(frozen=True)
class ImportOutcome:
    status: str  # imported, skipped, rejected
    entry_id: int | None = None
    errors: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)


def entry_import(
    *,
    task_slug: str,
    track: str,
    source_name: str,
    entry: Upload | None,
    logs: list[Upload],
    version: str = "",
    run_record: dict | None = None,
) -> ImportOutcome:
    """Import one DAWNBench file (pair), or one MLPerf result set (`version`: its round's; `run_record` its
    scaling factor), through the same judging as the API; an already imported one is skipped."""
    if Entry.objects.filter(task__slug=task_slug, track=track, source_name=source_name).exists():
        return ImportOutcome(status="skipped")
    try:
        outcome = _submission_create_now(
            task_slug=task_slug,
            track=track,
            entry=entry,
            logs=logs,
            version=version,
            run_record=run_record,
            source=Submission.Source.IMPORT,
            submitter=None,
            source_name=source_name,
        )
    except IntegrityError:  # imported concurrently by another process
        return ImportOutcome(status="skipped")
    if outcome.status != Submission.Status.ACCEPTED:
        return ImportOutcome(status="rejected", errors=outcome.errors, warnings=outcome.warnings)
    return ImportOutcome(status="imported", entry_id=outcome.entry_id, warnings=outcome.warnings)


def _submission_create_now(*, source_name: str = "", **store) -> SubmissionOutcome:
    """Store and judge in one transaction, in this process; a rejection rolls back and leaves nothing."""
    with transaction.atomic():
        submission = submission_store(**store)
        submission_judge(submission_id=submission.id, source_name=source_name)
        submission.refresh_from_db()
        outcome = submission_outcome(submission=submission)
        if submission.status == Submission.Status.REJECTED:
            transaction.set_rollback(True)
            return SubmissionOutcome(status="rejected", errors=outcome.errors, warnings=outcome.warnings)
        return outcome


def _idempotent_replay(*, submitter: Submitter, key: str, files_digest: str) -> SubmissionOutcome | None:
    """The submission a repeated Idempotency-Key names, as its first request's answer; None when none does.

    A key older than IDEMPOTENCY_KEY_HOURS is forgotten (and free for a new submission).
    """
    first = Submission.objects.filter(submitter=submitter, idempotency_key=key).select_related("entry").first()
    if first is None:
        return None
    if first.created_at < idempotency_keys_kept_since(timezone.now()):
        Submission.objects.filter(id=first.id).update(idempotency_key="")
        return None
    if first.files_digest != files_digest:
        raise IdempotencyKeyReused(first.id)
    return replace(submission_outcome(submission=first), replayed=True)
