"""Writes: receiving a submission, judging it, storing an accepted entry, importing DAWNBench trees, submitters,
and matching entries to the price catalog.

Every write runs in one transaction. With no Celery broker the judging runs in-process inside the
receiving transaction, so a rejected submission rolls back and stores nothing. With a broker the
upload is stored as `pending` and a worker judges it; a rejection then records only the verdict.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field

from celery import current_app
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from dawnboard.errors import ErrorCode, Issue
from dawnboard.ingest import validate_dawnbench_files
from dawnboard.results import Results
from dawnboard.validation import IngestRejection, IngestResult, check_request
from leaderboard.models import CurvePoint, Entry, HardwareMatch, Submission, SubmittedFile, Submitter, TaskVersion
from leaderboard.page_cache import board_generation_bump
from leaderboard.selectors import LATENCY_PERCENTILES, entry_match, task_catalog
from pricing.domain.resolver import KnownInstance, resolve_hardware
from pricing.models import InstanceType
from pricing.selectors import known_instances
from pricing.services import LoadSummary, prices_load

# The Celery task that judges a stored submission (leaderboard/tasks.py), queued by name so this module,
# which the task calls, never imports it back.
SUBMISSION_JUDGE_TASK = "leaderboard.submission_judge"


@dataclass(frozen=True)
class Upload:
    """A file as received: its name and its bytes."""

    name: str
    content: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


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

    def summary(self) -> dict:
        """The verdict in brief, as a job that submitted reports it (pending, when a worker judges it)."""
        return {
            "status": self.status,
            "submission_id": self.submission_id,
            "entry_id": self.entry_id,
            "errors": self.errors,
        }


class SubmissionRejected(Exception):
    """Raised before anything is stored, e.g. for an upload over the size limit."""

    def __init__(self, *issues: Issue):
        super().__init__("; ".join(issue.message for issue in issues))
        self.issues = list(issues)


def upload_read(file, *, field_name: str) -> Upload:
    """Read an uploaded file, refusing one over the limit before its bytes are loaded."""
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
    log: Upload | None,
    source: str,
    submitter: Submitter | None = None,
    source_name: str = "",
    dry_run: bool = False,
    run_record: dict | None = None,
) -> SubmissionOutcome:
    """Receive a submission and judge it (now, or on a worker when a broker is configured).

    `run_record` is a reference run's record (its run.json); it is kept with the submission, and an accepted
    entry is linked to the seed entry the record says the run reproduces.
    """
    if dry_run:
        verdict = _judge(task_slug=task_slug, track=track, entry=entry, log=log)
        return _outcome(verdict, status="valid" if verdict.accepted else "rejected", dry_run=True)

    problems = check_request(
        task_slug=task_slug, track=track, has_entry=entry is not None, has_log=log is not None, catalog=task_catalog()
    )
    if problems:  # refused before anything is stored or queued
        return SubmissionOutcome(status="rejected", errors=[issue.as_dict() for issue in problems])
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return _submission_create_now(
            task_slug=task_slug,
            track=track,
            entry=entry,
            log=log,
            source=source,
            submitter=submitter,
            source_name=source_name,
            run_record=run_record,
        )
    with transaction.atomic():
        submission = _submission_store(
            task_slug=task_slug,
            track=track,
            entry=entry,
            log=log,
            source=source,
            submitter=submitter,
            run_record=run_record,
        )
        transaction.on_commit(
            lambda: current_app.send_task(
                SUBMISSION_JUDGE_TASK, args=[submission.id], kwargs={"source_name": source_name}
            )
        )
    return SubmissionOutcome(status=Submission.Status.PENDING, submission_id=submission.id)


def submission_judge(*, submission_id: int, source_name: str = "") -> str:
    """Validate a stored submission and record the verdict; an accepted one becomes an Entry. Idempotent."""
    with transaction.atomic():
        submission = Submission.objects.select_for_update().get(id=submission_id)
        if submission.status != Submission.Status.PENDING:
            return submission.status
        files = {file.role: file for file in submission.files.all()}
        verdict = _judge(
            task_slug=submission.task_slug,
            track=submission.track,
            entry=_as_upload(files.get(SubmittedFile.Role.ENTRY)),
            log=_as_upload(files.get(SubmittedFile.Role.LOG)),
        )
        submission.warnings = [issue.as_dict() for issue in verdict.warnings]
        submission.decided_at = timezone.now()
        if verdict.accepted:
            _entry_store(submission=submission, verdict=verdict, source_name=source_name)
            submission.status = Submission.Status.ACCEPTED
        else:
            submission.errors = [issue.as_dict() for issue in verdict.errors]
            submission.status = Submission.Status.REJECTED
        submission.save(update_fields=["status", "errors", "warnings", "decided_at"])
        return submission.status


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
    return Results.of(entry).as_dict()


@dataclass(frozen=True)
class ImportOutcome:
    status: str  # imported, skipped, rejected
    entry_id: int | None = None
    errors: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)


def entry_import(*, task_slug: str, track: str, source_name: str, entry: Upload, log: Upload | None) -> ImportOutcome:
    """Import one DAWNBench file (pair) through the same judging as the API; an already imported one is skipped."""
    if Entry.objects.filter(task__slug=task_slug, track=track, source_name=source_name).exists():
        return ImportOutcome(status="skipped")
    try:
        outcome = _submission_create_now(
            task_slug=task_slug,
            track=track,
            entry=entry,
            log=log,
            source=Submission.Source.IMPORT,
            submitter=None,
            source_name=source_name,
        )
    except IntegrityError:  # imported concurrently by another process
        return ImportOutcome(status="skipped")
    if outcome.status != Submission.Status.ACCEPTED:
        return ImportOutcome(status="rejected", errors=outcome.errors, warnings=outcome.warnings)
    return ImportOutcome(status="imported", entry_id=outcome.entry_id, warnings=outcome.warnings)


def submitter_create(*, name: str, email: str) -> tuple[Submitter, str]:
    """Create a submitter with a fresh API token; returns (submitter, token key)."""
    with transaction.atomic():
        user = get_user_model().objects.create_user(username=name, email=email, password=secrets.token_urlsafe(32))
        submitter = Submitter.objects.create(user=user, name=name, email=email)
        token = Token.objects.create(user=user)
    return submitter, token.key


def _task_version_for(*, task_slug: str, version: str) -> TaskVersion:
    return TaskVersion.objects.select_related("task").get(task__slug=task_slug, version=version)


def _submission_create_now(*, source_name: str = "", **store) -> SubmissionOutcome:
    """Store and judge in one transaction, in this process; a rejection rolls back and leaves nothing."""
    with transaction.atomic():
        submission = _submission_store(**store)
        submission_judge(submission_id=submission.id, source_name=source_name)
        submission.refresh_from_db()
        outcome = submission_outcome(submission=submission)
        if submission.status == Submission.Status.REJECTED:
            transaction.set_rollback(True)
            return SubmissionOutcome(status="rejected", errors=outcome.errors, warnings=outcome.warnings)
        return outcome


def _judge(*, task_slug: str, track: str, entry: Upload | None, log: Upload | None) -> IngestResult | IngestRejection:
    return validate_dawnbench_files(
        task_slug=task_slug,
        track=track,
        entry_bytes=entry.content if entry else None,
        log_bytes=log.content if log else None,
        catalog=task_catalog(),
    )


def _submission_store(
    *,
    task_slug: str,
    track: str,
    entry: Upload | None,
    log: Upload | None,
    source: str,
    submitter: Submitter | None,
    run_record: dict | None = None,
) -> Submission:
    submission = Submission.objects.create(
        submitter=submitter, source=source, task_slug=task_slug, track=track, run_record=run_record
    )
    for role, upload in ((SubmittedFile.Role.ENTRY, entry), (SubmittedFile.Role.LOG, log)):
        if upload is not None:
            SubmittedFile.objects.create(
                submission=submission,
                role=role,
                name=upload.name[:255],
                sha256=upload.sha256,
                size_bytes=len(upload.content),
                content=upload.content,
            )
    return submission


def _entry_store(*, submission: Submission, verdict: IngestResult, source_name: str) -> Entry:
    document, results = verdict.entry, verdict.results
    version = _task_version_for(task_slug=verdict.rules.task_slug, version=verdict.rules.version)
    entry = Entry.objects.create(
        submission=submission,
        task=version.task,
        task_version=version,
        track=verdict.track,
        source_name=source_name,
        reproduces=_seed_entry_reproduced(submission),
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
        **_measured_latency_percentiles(submission),
        inference_cost_usd_per_10k=results.inference_cost_usd_per_10k,
        log_row_count=verdict.log_row_count,
    )
    CurvePoint.objects.bulk_create(
        [
            CurvePoint(
                entry=entry,
                position=position,
                line=point.line,
                epoch=point.epoch,
                hours=point.hours,
                metric=point.metric,
            )
            for position, point in enumerate(verdict.curve)
        ],
        batch_size=500,
    )
    hardware_match_entry(entry=entry)
    return entry


def _measured_latency_percentiles(submission: Submission) -> dict[str, float]:
    """The latency percentiles the inference harness measured (its run record), for a `measured` submission."""
    if submission.source != Submission.Source.MEASURED or not submission.run_record:
        return {}
    latency = submission.run_record.get("latency_ms") or {}
    return {f"latency_{name}_ms": float(latency[name]) for name in LATENCY_PERCENTILES if name in latency}


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


def _outcome(verdict: IngestResult | IngestRejection, *, status: str, dry_run: bool = False) -> SubmissionOutcome:
    return SubmissionOutcome(
        status=status,
        errors=[issue.as_dict() for issue in getattr(verdict, "errors", [])],
        warnings=[issue.as_dict() for issue in verdict.warnings],
        results=verdict.results.as_dict() if verdict.accepted else None,
        dry_run=dry_run,
    )


# --- matching entries to the price catalog ----------------------------------------------------------------


def hardware_match_entry(*, entry: Entry, known: list[KnownInstance] | None = None) -> bool:
    """Resolve an entry's hardware text against the catalog, unless staff set its match by hand.

    Returns whether the stored match changed; an unchanged one is not written again.
    """
    existing = entry_match(entry)
    if existing is not None and existing.set_by_staff:
        return False
    resolution = resolve_hardware(entry.hardware, known if known is not None else known_instances())
    instance_id = None
    if resolution.resolved:
        instance_id = InstanceType.objects.get(provider__slug=resolution.provider, name=resolution.instance).id
    values = {"instance_id": instance_id, "instance_count": max(resolution.count, 1), "reason": resolution.reason[:300]}
    if existing is not None and all(getattr(existing, name) == value for name, value in values.items()):
        return False
    HardwareMatch.objects.update_or_create(entry=entry, defaults=values)
    return True


@dataclass(frozen=True)
class MatchSummary:
    entries: int  # matched again
    changed: int  # of which the match is now another


def hardware_match_all() -> MatchSummary:
    """Match every entry again (after the catalog changed)."""
    known = known_instances()
    entries = list(Entry.objects.select_related("hardware_match").only("id", "hardware", "hardware_match"))
    with transaction.atomic():
        changed = sum(hardware_match_entry(entry=entry, known=known) for entry in entries)
    return MatchSummary(entries=len(entries), changed=changed)


@dataclass(frozen=True)
class CatalogReload:
    prices: LoadSummary
    matches: MatchSummary

    @property
    def changed(self) -> bool:
        return self.prices.changed or bool(self.matches.changed)


def catalog_reload(*, text: str) -> CatalogReload:
    """Load a price catalog CSV, then match every entry against it again, all in one transaction.

    Raises:
        CatalogError: naming every bad line; nothing is written then.
    """
    with transaction.atomic():
        summary = prices_load(text=text)
        matches = hardware_match_all()
        if summary.changed:
            board_generation_bump()  # quotes are written in bulk, past the signals: costs on cached pages move
    return CatalogReload(prices=summary, matches=matches)
