"""Where one entry stands on its task's boards, for its page: read off the boards' own ranking, never a second one."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q

from dawnboard.metrics import LEADERBOARD_METRICS, LeaderboardMetric
from leaderboard.models import Entry
from leaderboard.selectors.boards import leaderboard_entries


@dataclass(frozen=True)
class EntryRank:
    """The entry's place on one board of its track: `rank` of `board_size`, or None and why not."""

    metric: LeaderboardMetric
    rank: int | None
    board_size: int | None
    not_ranked_because: str = ""


def entry_board_ranks(entry: Entry) -> list[EntryRank]:
    """The entry's rank on each board of its track (the current task version's, by the mean latency).

    The rank counts the board's entries ahead of it in the board's own order (value, then date, then id), so
    a tie is broken exactly as the board breaks it; one query per board, which counts along the board's index
    rather than reading its ids.
    """
    ranks = []
    for metric in LEADERBOARD_METRICS.values():
        if metric.track != entry.track:
            continue
        counted = {"on_board": 0}
        if entry.status == Entry.Status.ACCEPTED and entry.task_version.is_current:
            board = leaderboard_entries(task_slug=entry.task.slug, metric_slug=metric.slug)
            counted = board.aggregate(
                size=Count("id"),
                ahead=Count("id", filter=_ahead_of(entry, metric.field)),
                on_board=Count("id", filter=Q(id=entry.id)),
            )
        if counted["on_board"]:
            ranks.append(EntryRank(metric, counted["ahead"] + 1, counted["size"]))
        else:
            ranks.append(EntryRank(metric, None, None, _why_not_ranked(entry, metric)))
    return ranks


def _ahead_of(entry: Entry, value_field: str) -> Q:
    """Entries before `entry` in a board ordered by (value, date, id)."""
    value = getattr(entry, value_field)
    if value is None:
        return Q(pk__in=[])
    return (
        Q(**{f"{value_field}__lt": value})
        | Q(**{value_field: value, "date__lt": entry.date})
        | Q(**{value_field: value, "date": entry.date, "id__lt": entry.id})
    )


def _why_not_ranked(entry: Entry, metric: LeaderboardMetric) -> str:
    """Words for a reader; whether the entry is on the board is the board's query alone."""
    version = entry.task_version
    if entry.status != Entry.Status.ACCEPTED:
        return "withdrawn"
    if not version.is_current:
        return f"judged by {version.version}, an earlier version of the task's rules"
    if entry.accuracy < version.threshold:
        return "it did not reach the threshold"
    if getattr(entry, metric.field) is None:
        return f"it has no {metric.label.lower()} figure"
    return "not on this board"
