"""Celery tasks: each takes an ID and calls one service; retries and time limits live here.

The services queue these by name (`SUBMISSION_JUDGE_TASK`, `SUBMISSIONS_SWEEP_TASK`), so this module imports
the services and never the other way round.
"""

import structlog
from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError

from leaderboard.services import (
    POLICY_COSTS_EXPIRE_TASK,
    SUBMISSION_JUDGE_TASK,
    SUBMISSIONS_SWEEP_TASK,
    SubmissionNotVisible,
    entry_policy_costs_expire,
    submission_judge_queued,
    submission_judging_fail,
    submissions_sweep,
)

logger = structlog.get_logger(__name__)


@shared_task(
    name=SUBMISSION_JUDGE_TASK,
    acks_late=True,  # acknowledged once judged: a worker lost mid-judging leaves the message to another
    reject_on_worker_lost=True,  # a child killed mid-judging hands its message back at once
    # The database went away (judging again is safe), or the message came before its row committed.
    autoretry_for=(OperationalError, InterfaceError, SubmissionNotVisible),
    retry_backoff=True,
    max_retries=4,
    soft_time_limit=settings.SUBMISSION_JUDGE_SOFT_TIME_LIMIT_SECONDS,
    time_limit=settings.SUBMISSION_JUDGE_TIME_LIMIT_SECONDS,
)
def submission_judge_task(submission_id: int, files_digest: str = "", source_name: str = "") -> str:
    structlog.contextvars.bind_contextvars(submission_id=submission_id)  # on every line of this judging
    try:
        status = submission_judge_queued(
            submission_id=submission_id, files_digest=files_digest, source_name=source_name
        )
    except SoftTimeLimitExceeded:  # the same files would run out of time again: say so rather than retry
        status = submission_judging_fail(
            submission_id=submission_id,
            reason=f"Judging took longer than {settings.SUBMISSION_JUDGE_SOFT_TIME_LIMIT_SECONDS} s.",
        )
    logger.info("submission_judged", status=status)
    return status


@shared_task(name=SUBMISSIONS_SWEEP_TASK, acks_late=False, ignore_result=True)
def submissions_sweep_task() -> dict:
    summary = submissions_sweep()
    return {"requeued": summary.requeued, "failed": summary.failed, "keys_forgotten": summary.keys_forgotten}


@shared_task(name=POLICY_COSTS_EXPIRE_TASK, acks_late=False, ignore_result=True)
def policy_costs_expire_task() -> int:
    """Celery beat runs it every hour: entries whose catalog price "today" moved are priced again."""
    return entry_policy_costs_expire()
