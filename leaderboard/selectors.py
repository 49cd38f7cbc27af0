"""Reads: the task catalog the ingest judges by, leaderboards, entries, submissions."""

from __future__ import annotations

from django.db.models import F, Prefetch, QuerySet

from leaderboard.ingest import TaskRules
from leaderboard.metrics import LEADERBOARD_METRICS
from leaderboard.models import Entry, Submission, SubmittedFile, TaskVersion


class UnknownLeaderboard(LookupError):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def task_catalog() -> dict[str, dict[str, TaskRules]]:
    """Every task version's rules, keyed by task slug then by the `version` an entry names."""
    catalog: dict[str, dict[str, TaskRules]] = {}
    for version in TaskVersion.objects.select_related("task"):
        catalog.setdefault(version.task.slug, {})[version.version] = TaskRules(
            task_slug=version.task.slug,
            version=version.version,
            metric_label=version.metric_label,
            log_column=version.log_column,
            inference_fields=tuple(version.inference_fields),
            threshold=version.threshold,
            scale=version.scale,
        )
    return catalog


def leaderboard_entries(*, task_slug: str, metric_slug: str) -> QuerySet[Entry]:
    """Accepted entries of the task's current version that meet its threshold, best first, earlier date on ties."""
    metric = LEADERBOARD_METRICS.get(metric_slug)
    if metric is None:
        known = ", ".join(LEADERBOARD_METRICS)
        raise UnknownLeaderboard("unknown_metric", f"Unknown metric '{metric_slug}'; use one of: {known}.")
    version = TaskVersion.objects.filter(task__slug=task_slug, is_current=True).first()
    if version is None:
        raise UnknownLeaderboard("unknown_task", f"Unknown task '{task_slug}'.")
    return (
        Entry.objects.accepted()
        .filter(task_version=version, track=metric.track, accuracy__gte=version.threshold)
        .exclude(**{f"{metric.field}__isnull": True})
        .order_by(F(metric.field).asc(), "date", "id")
    )


def leaderboard(*, task_slug: str, metric_slug: str, limit: int | None = None) -> dict:
    """The leaderboard document shared by the `leaderboard` command and the API."""
    entries = leaderboard_entries(task_slug=task_slug, metric_slug=metric_slug)
    metric = LEADERBOARD_METRICS[metric_slug]
    if limit is not None:
        entries = entries[:limit]
    rows = entries.only("id", "source_name", "model", "author", "hardware", "framework", "date", metric.field)
    return {
        "task": task_slug,
        "metric": metric_slug,
        "unit": metric.unit,
        "results": [
            {
                "rank": rank,
                "entry_id": entry.id,
                "source_name": entry.source_name,
                "value": float(getattr(entry, metric.field)),
                "model": entry.model,
                "team": entry.author,
                "hardware": entry.hardware,
                "framework": entry.framework,
                "date": entry.date.isoformat(),
            }
            for rank, entry in enumerate(rows, start=1)
        ],
    }


def entries_list() -> QuerySet[Entry]:
    return Entry.objects.accepted().select_related("task", "task_version").order_by("-date", "-id")


def entry_detail(*, entry_id: int) -> Entry:
    return (
        Entry.objects.select_related("task", "task_version", "submission")
        .prefetch_related("curve", Prefetch("submission__files", queryset=SubmittedFile.objects.defer("content")))
        .get(id=entry_id)
    )


def submission_for(*, submission_id: int, user) -> Submission:
    """A submission its owner (or staff) may read; others get DoesNotExist, as if it did not exist."""
    submissions = Submission.objects.select_related("entry")
    if not user.is_staff:
        submissions = submissions.filter(submitter__user=user)
    return submissions.get(id=submission_id)


def home_boards(*, rows_per_board: int) -> list[dict]:
    """For the front page: every task with its current threshold and its four top-N boards."""
    boards = []
    for version in TaskVersion.objects.filter(is_current=True).select_related("task").order_by("task__slug"):
        boards.append(
            {
                "task": version.task,
                "version": version,
                "boards": [
                    {
                        "metric": metric,
                        **leaderboard(task_slug=version.task.slug, metric_slug=slug, limit=rows_per_board),
                    }
                    for slug, metric in LEADERBOARD_METRICS.items()
                ],
            }
        )
    return boards
