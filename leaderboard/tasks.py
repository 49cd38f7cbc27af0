"""Celery tasks: each takes an ID and calls one service; retries and time limits live here.

The services queue these by name (`SUBMISSION_JUDGE_TASK`), so this module imports the services and never
the other way round.
"""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from leaderboard.services import SUBMISSION_JUDGE_TASK, submission_judge


@shared_task(
    name=SUBMISSION_JUDGE_TASK,
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),  # the database went away: judging again is safe
    retry_backoff=True,
    max_retries=3,
    soft_time_limit=9 * 60,
    time_limit=10 * 60,
)
def submission_judge_task(submission_id: int, source_name: str = "") -> str:
    return submission_judge(submission_id=submission_id, source_name=source_name)
