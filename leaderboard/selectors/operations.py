"""Reads for operators: what `/metrics` and `/health/` report of the submissions and the work queues.

Every figure is read from the database or the broker when asked, not counted in a process: the web processes
and the workers (on this machine or others) all see the same numbers, and a restart loses none.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import connection
from django.db.models import Count, DurationField, ExpressionWrapper, F, Q, Sum

from leaderboard.models import Submission

# Upper bounds (seconds) of the judging-latency histogram's buckets: from a quick verdict to the judge's hard limit.
JUDGING_SECONDS_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 150.0, 300.0, 600.0)


def submission_status_counts() -> dict[str, int]:
    """Submissions by status, every status named (0 where none)."""
    counts = dict(Submission.objects.values_list("status").annotate(count=Count("id")).order_by())
    return {status: counts.get(status, 0) for status in Submission.Status.values}


def submission_error_code_counts() -> dict[str, int]:
    """Rejected and failed submissions' errors by code (a submission refused for two reasons counts in both)."""
    table = Submission._meta.db_table
    each_error = (
        f"jsonb_array_elements({table}.errors)" if connection.vendor == "postgresql" else f"json_each({table}.errors)"
    )
    code = "error.value ->> 'code'" if connection.vendor == "postgresql" else "json_extract(error.value, '$.code')"
    sql = f"SELECT {code}, COUNT(*) FROM {table}, {each_error} AS error WHERE {table}.status IN (%s, %s) GROUP BY 1"
    with connection.cursor() as cursor:
        cursor.execute(sql, [Submission.Status.REJECTED, Submission.Status.FAILED])
        return {str(code): count for code, count in cursor.fetchall() if code is not None}


@dataclass(frozen=True)
class JudgingLatency:
    """The decided submissions' time from arrival to verdict, as a cumulative histogram."""

    buckets: tuple[tuple[float, int], ...]  # (upper bound in seconds, submissions decided within it)
    count: int
    sum_seconds: float


def judging_latency() -> JudgingLatency:
    """One query over the decided submissions: how many took at most each bucket's seconds, how many, how long."""
    took = ExpressionWrapper(F("decided_at") - F("created_at"), output_field=DurationField())
    decided = Submission.objects.filter(decided_at__isnull=False).annotate(took=took)
    within = {
        f"within_{index}": Count("id", filter=Q(took__lte=timedelta(seconds=bound)))
        for index, bound in enumerate(JUDGING_SECONDS_BUCKETS)
    }
    figures = decided.aggregate(count=Count("id"), total=Sum("took"), **within)
    total = figures["total"] or timedelta(0)
    return JudgingLatency(
        buckets=tuple((bound, figures[f"within_{index}"] or 0) for index, bound in enumerate(JUDGING_SECONDS_BUCKETS)),
        count=figures["count"] or 0,
        sum_seconds=total.total_seconds(),
    )


def work_queues() -> dict[str, str]:
    """The Celery queues the site feeds, by role: judging (the default queue) and reference runs."""
    return {"judging": settings.CELERY_TASK_DEFAULT_QUEUE, "reference": settings.CELERY_REFERENCE_QUEUE}


def queue_depths(*, timeout: float = 2.0) -> dict[str, int]:
    """Messages waiting in each work queue (by role), read from the broker; {} where tasks run in-process.

    Raises the broker's connection error where it cannot be reached within `timeout` seconds. A refused connection
    is tried once more after a quarter of a second (a broker restarting), not after kombu's default of 2 s: a load
    balancer's health check and a process's start-up check answer at once."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {}
    depths = {}
    with current_app.connection_for_read() as broker:
        broker.ensure_connection(max_retries=1, interval_start=0.25, timeout=timeout)
        channel = broker.default_channel
        for role, queue in work_queues().items():
            depths[role] = _queue_depth(channel, queue)
    return depths


def _queue_depth(channel, queue: str) -> int:
    size = getattr(channel, "_size", None)  # Redis: the queue's lists, every priority's, summed
    if size is not None:
        return int(size(queue))
    try:
        return int(channel.queue_declare(queue=queue, passive=True).message_count)
    except Exception:  # AMQP: a queue no one declared yet holds nothing (the failed declare closes the channel)
        return 0
