"""Judging on a worker: queueing a stored submission, the worker's checks, the sweep that leaves none pending.

A submission is queued inside the transaction that stores it: a broker that refuses the message rolls the
row back (`QueueUnavailable`, 503), so no row is ever left that no message names. The message carries the
files' digest, so a worker judges exactly what was stored. A worker takes a lease on the submission before it
judges: a second copy of the message (redelivered after a lost worker, or queued again by the sweep) leaves
it alone while the lease runs, and starts are counted exactly, so a file that kills its worker ends `failed`.
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


class SubmissionNotVisible(Exception):
    """The message names no stored submission: its row may not be committed yet (the task retries shortly)."""


class QueueUnavailable(Exception):
    """The broker did not take the judging: the submission was removed again, so nothing is left unjudged."""

    retry_after_seconds = QUEUE_RETRY_AFTER_SECONDS


def submission_judge_queued(*, submission_id: int, files_digest: str, source_name: str = "") -> str:
    """Judge a submission as a worker received it from the queue.

    The message must name the files stored under its id (a worker pointed at another deployment's database
    refuses it). The worker then takes the submission's lease, counting the start in its own transaction.

    Returns the submission's status ("pending" when another delivery holds the lease), or "refused".

    Raises:
        SubmissionNotVisible: no submission has this id (yet).
    """
    stored_digest = Submission.objects.filter(id=submission_id).values_list("files_digest", flat=True).first()
    if stored_digest is None:
        raise SubmissionNotVisible(f"No submission {submission_id} is stored (yet).")
    if stored_digest != files_digest:
        logger.error("Refusing to judge submission %s: the message names other files", submission_id)
        return "refused"
    now = timezone.now()
    started = (
        Submission.objects.filter(id=submission_id, status=Submission.Status.PENDING)
        .filter(Q(judging_lease_until__isnull=True) | Q(judging_lease_until__lt=now))
        .update(
            judging_starts=F("judging_starts") + 1,
            judging_lease_until=now + timedelta(seconds=settings.SUBMISSION_JUDGE_TIME_LIMIT_SECONDS),
        )
    )
    submission = Submission.objects.only("status", "judging_starts").get(id=submission_id)
    if not started:
        return submission.status  # judged already, or being judged under another delivery's lease
    if submission.judging_starts > settings.SUBMISSION_JUDGE_MAX_TRIES:
        return submission_judging_fail(
            submission_id=submission_id,
            reason=f"Judging started {submission.judging_starts - 1} times and never finished (the worker was "
            "lost each time).",
        )
    return submission_judge(submission_id=submission_id, source_name=source_name)


def submission_judging_fail(*, submission_id: int, reason: str) -> str:
    """Record that a pending submission could not be judged (`failed`, `judging_failed`), so it never hangs.

    Its Idempotency-Key is released: sending the same files again with it makes a new try, not this failure.
    """
    message = f"{reason} Nothing was stored on the board; submit the files again, or report it if it repeats."
    Submission.objects.filter(id=submission_id, status=Submission.Status.PENDING).update(
        status=Submission.Status.FAILED,
        errors=[Issue(ErrorCode.JUDGING_FAILED, message).as_dict()],
        decided_at=timezone.now(),
        idempotency_key="",
    )
    return Submission.objects.values_list("status", flat=True).get(id=submission_id)


def idempotency_keys_kept_since(now):
    """The oldest moment a submission's Idempotency-Key still counts from (IDEMPOTENCY_KEY_HOURS before now)."""
    return now - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)


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
            .filter(Q(judging_lease_until__isnull=True) | Q(judging_lease_until__lt=now))
            .only("id", "files_digest", "times_queued", "judging_starts")
            .order_by("id")[:500]
        )
        for submission in stale:
            # Only starts that never finished count against a submission: one merely waiting behind a backlog
            # is queued again, never failed.
            if submission.judging_starts >= tries:
                failed.append(submission.id)
            else:
                submission.times_queued += 1
                submission.queued_at = now
                submission.save(update_fields=["times_queued", "queued_at"])
                requeued.append(submission)
    for submission_id in failed:
        submission_judging_fail(
            submission_id=submission_id,
            reason=f"Judging started {tries} times and never finished (the worker was lost each time).",
        )
    for submission in requeued:
        try:
            _judging_queue(submission)
        except QueueUnavailable:  # the broker is still down: the next sweep tries again
            logger.warning("Could not queue submission %s again; the next sweep will", submission.id)
    keys_forgotten = (
        Submission.objects.exclude(idempotency_key="")
        .filter(created_at__lt=idempotency_keys_kept_since(now))
        .update(idempotency_key="")
    )
    if requeued or failed:
        logger.warning("Sweep: queued again %s, failed %s", [s.id for s in requeued], failed)
    return SweepSummary(requeued=[s.id for s in requeued], failed=failed, keys_forgotten=keys_forgotten)


def submission_queue(*, source_name: str = "", **store) -> SubmissionOutcome:
    """Store a submission and queue its judging in one transaction; if the broker refuses, nothing is stored.

    The message may reach a worker before the row commits: the worker then retries for a few seconds
    (`SubmissionNotVisible`). A message sent for a row whose commit then fails names nothing, and is dropped.
    """
    with transaction.atomic():  # QueueUnavailable rolls the row back
        submission = submission_store(**store, times_queued=1, queued_at=timezone.now())
        _judging_queue(submission, source_name=source_name)
    return SubmissionOutcome(status=Submission.Status.PENDING, submission_id=submission.id)


def _judging_queue(submission: Submission, *, source_name: str = "") -> None:
    """The message names the submission and its files, so a worker judges exactly what was stored.

    Raises:
        QueueUnavailable: the broker did not take the message.
    """
    try:
        current_app.send_task(
            SUBMISSION_JUDGE_TASK,
            args=[submission.id],
            kwargs={"files_digest": submission.files_digest, "source_name": source_name},
            # No result is read; asking for one would make Celery wait on the result backend (the same Redis)
            # for many seconds when it is down, holding the web worker.
            ignore_result=True,
        )
    except Exception as error:  # kombu's OperationalError, or anything else that kept the message off the queue
        logger.warning("The broker did not take submission %s: %s", submission.id, error)
        raise QueueUnavailable(
            "The judging queue is unreachable; nothing was stored. Send the same request again later."
        ) from error
