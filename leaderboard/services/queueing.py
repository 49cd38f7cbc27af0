"""Judging on a worker: queueing a stored submission, the worker's checks, the sweep that leaves none pending.

A submission is queued after its row commits; a broker that refuses it removes the row again
(`QueueUnavailable`, 503). The message carries the files' digest, so a worker judges exactly what was stored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from dawnboard.errors import ErrorCode, Issue
from leaderboard.models import Submission
from leaderboard.services.judging import SubmissionOutcome, submission_judge, submission_store

logger = logging.getLogger(__name__)


# The Celery tasks that judge a stored submission and sweep up the ones left pending (leaderboard/tasks.py),
# queued by name so this module, which the tasks call, never imports them back.
SUBMISSION_JUDGE_TASK = "leaderboard.submission_judge"


SUBMISSIONS_SWEEP_TASK = "leaderboard.submissions_sweep"


# What a client is told to wait before trying again when the queue is down.
QUEUE_RETRY_AFTER_SECONDS = 30


class QueueUnavailable(Exception):
    """The broker did not take the judging: the submission was removed again, so nothing is left unjudged."""

    retry_after_seconds = QUEUE_RETRY_AFTER_SECONDS


def submission_judge_queued(*, submission_id: int, files_digest: str, source_name: str = "") -> str:
    """Judge a submission as a worker received it from the queue.

    The message must name the files stored under its id (a worker pointed at another deployment's database
    refuses it). Each start is counted first, in its own transaction, so a file that kills its worker every
    time ends `failed` after SUBMISSION_JUDGE_MAX_TRIES starts instead of being handed out forever.

    Returns the submission's status, or "refused" for a message that names no submission of these files.
    """
    stored_digest = Submission.objects.filter(id=submission_id).values_list("files_digest", flat=True).first()
    if stored_digest is None or stored_digest != files_digest:
        logger.error(
            "Refusing to judge submission %s: %s",
            submission_id,
            "no such submission" if stored_digest is None else "the message names other files",
        )
        return "refused"
    started = Submission.objects.filter(id=submission_id, status=Submission.Status.PENDING).update(
        judging_starts=F("judging_starts") + 1
    )
    submission = Submission.objects.only("status", "judging_starts").get(id=submission_id)
    if not started:
        return submission.status  # judged already: a message delivered twice
    if submission.judging_starts > settings.SUBMISSION_JUDGE_MAX_TRIES:
        return submission_judging_fail(
            submission_id=submission_id,
            reason=f"Judging started {submission.judging_starts - 1} times and never finished (the worker was "
            "lost each time).",
        )
    return submission_judge(submission_id=submission_id, source_name=source_name)


def submission_judging_fail(*, submission_id: int, reason: str) -> str:
    """Record that a pending submission could not be judged (`failed`, `judging_failed`), so it never hangs."""
    message = f"{reason} Nothing was stored on the board; submit the files again, or report it if it repeats."
    Submission.objects.filter(id=submission_id, status=Submission.Status.PENDING).update(
        status=Submission.Status.FAILED,
        errors=[Issue(ErrorCode.JUDGING_FAILED, message).as_dict()],
        decided_at=timezone.now(),
    )
    return Submission.objects.values_list("status", flat=True).get(id=submission_id)


@dataclass(frozen=True)
class SweepSummary:
    requeued: list[int]
    failed: list[int]
    keys_forgotten: int


def submissions_sweep(*, now=None) -> SweepSummary:
    """Queue again every submission pending past the judging deadline; fail those out of tries.

    The backstop for a message lost with its worker or its broker, and for a process that died between
    storing a submission and queueing it. Also forgets Idempotency-Keys older than IDEMPOTENCY_KEY_HOURS.
    """
    now = now or timezone.now()
    deadline = now - timedelta(seconds=settings.SUBMISSION_JUDGE_DEADLINE_SECONDS)
    tries = settings.SUBMISSION_JUDGE_MAX_TRIES
    requeued: list[Submission] = []
    failed: list[int] = []
    with transaction.atomic():
        stale = (
            Submission.objects.select_for_update(skip_locked=True)  # one being judged right now is left alone
            .filter(status=Submission.Status.PENDING)
            .filter(Q(queued_at__lt=deadline) | Q(queued_at__isnull=True, created_at__lt=deadline))
            .only("id", "files_digest", "times_queued", "judging_starts")
            .order_by("id")[:500]
        )
        for submission in stale:
            if submission.times_queued >= tries or submission.judging_starts >= tries:
                failed.append(submission.id)
            else:
                submission.times_queued += 1
                submission.queued_at = now
                submission.save(update_fields=["times_queued", "queued_at"])
                requeued.append(submission)
    for submission_id in failed:
        submission_judging_fail(
            submission_id=submission_id,
            reason=f"No verdict after {tries} tries of {settings.SUBMISSION_JUDGE_DEADLINE_SECONDS} s each.",
        )
    for submission in requeued:
        try:
            _judging_queue(submission)
        except Exception:  # the broker is still down: the next sweep tries again
            logger.warning("Could not queue submission %s again; the next sweep will", submission.id)
    keys_forgotten = (
        Submission.objects.exclude(idempotency_key="")
        .filter(created_at__lt=now - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS))
        .update(idempotency_key="")
    )
    if requeued or failed:
        logger.warning("Sweep: queued again %s, failed %s", [s.id for s in requeued], failed)
    return SweepSummary(requeued=[s.id for s in requeued], failed=failed, keys_forgotten=keys_forgotten)


def submission_queue(*, source_name: str = "", **store) -> SubmissionOutcome:
    """Store a submission, then queue its judging; if the broker refuses, remove it again and raise.

    Queued after the commit, so a worker always finds the row. A process that dies in between leaves a
    pending row the sweep queues later.
    """
    with transaction.atomic():
        submission = submission_store(**store, times_queued=1, queued_at=timezone.now())
    try:
        _judging_queue(submission, source_name=source_name)
    except Exception as error:
        logger.warning("The broker did not take submission %s (%s); it was removed", submission.id, error)
        Submission.objects.filter(id=submission.id, status=Submission.Status.PENDING).delete()
        raise QueueUnavailable(
            "The judging queue is unreachable; nothing was stored. Send the same request again later."
        ) from error
    return SubmissionOutcome(status=Submission.Status.PENDING, submission_id=submission.id)


def _judging_queue(submission: Submission, *, source_name: str = "") -> None:
    """The message names the submission and its files, so a worker judges exactly what was stored."""
    current_app.send_task(
        SUBMISSION_JUDGE_TASK,
        args=[submission.id],
        kwargs={"files_digest": submission.files_digest, "source_name": source_name},
    )
