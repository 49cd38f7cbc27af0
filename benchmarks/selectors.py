"""Reads for reference runs."""

from __future__ import annotations

from celery import current_app
from celery.result import AsyncResult
from django.db.models import Count

from benchmarks.models import ReferenceRun, Study


def reference_run_task_state(run: ReferenceRun) -> dict | None:
    """The Celery task's own state (PENDING, PROGRESS with epoch, step and quality, SUCCESS, FAILURE), where a
    result backend keeps task states; None for a run that never went to a worker or without a backend."""
    if not run.task_id or not current_app.conf.result_backend:
        return None
    result = AsyncResult(run.task_id, app=current_app)
    info = result.info if isinstance(result.info, dict) else None
    return {"state": result.state, "meta": info}


def studies_recent(*, limit: int = 100) -> list[Study]:
    """The latest studies, newest first."""
    return list(Study.objects.order_by("-created_at", "-id")[:limit])


def study_page(*, study_id: int) -> Study:
    """The study of this id; Study.DoesNotExist when there is none."""
    return Study.objects.get(pk=study_id)


def reference_run_state_counts() -> dict[str, int]:
    """Reference runs by state, every state named (0 where none)."""
    counts = dict(ReferenceRun.objects.values_list("state").annotate(count=Count("id")).order_by())
    return {state: counts.get(state, 0) for state in ReferenceRun.State.values}
