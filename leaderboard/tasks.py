"""Celery tasks: each takes an ID and calls one service."""

from celery import shared_task

from leaderboard.services import submission_judge


@shared_task(name="leaderboard.submission_judge", acks_late=True, max_retries=3, default_retry_delay=10)
def submission_judge_task(submission_id: int, source_name: str = "") -> str:
    return submission_judge(submission_id=submission_id, source_name=source_name)
