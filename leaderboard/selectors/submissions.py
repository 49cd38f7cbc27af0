"""Reads of submissions: a submitter's own, one at a time or all."""

from __future__ import annotations

from leaderboard.models import Submission
from leaderboard.selectors.entries import BIG_ENTRY_COLUMNS


def submission_for(*, submission_id: int, user) -> Submission:
    """A submission its owner (or staff) may read; others get DoesNotExist, as if it did not exist."""
    submissions = Submission.objects.select_related("entry").defer(*(f"entry__{c}" for c in BIG_ENTRY_COLUMNS))
    if not user.is_staff:
        submissions = submissions.filter(submitter__user=user)
    return submissions.get(id=submission_id)


def submissions_of(*, user, status: str | None = None):
    """A submitter's own submissions, newest first, without the files or the run records they carry."""
    submissions = (
        Submission.objects.filter(submitter__user=user)
        .select_related("entry")
        .only(
            "id",
            "status",
            "task_slug",
            "track",
            "source",
            "created_at",
            "decided_at",
            "errors",
            "warnings",
            "entry__id",
        )
        .order_by("-created_at", "-id")
    )
    return submissions if status is None else submissions.filter(status=status)
