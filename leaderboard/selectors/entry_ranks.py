"""Where one entry stands on its task's boards, for its page: read off the boards' own ranking, never a second one."""

from __future__ import annotations

from dataclasses import dataclass

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

    The rank is the entry's place in the board's own ordered ids (as `board_rows` ranks a filtered view), so
    a tie is broken exactly as the board breaks it; one query per board.
    """
    ranks = []
    for metric in LEADERBOARD_METRICS.values():
        if metric.track != entry.track:
            continue
        ids = []
        if entry.status == Entry.Status.ACCEPTED and entry.task_version.is_current:
            ids = list(
                leaderboard_entries(task_slug=entry.task.slug, metric_slug=metric.slug).values_list("id", flat=True)
            )
        if entry.id in ids:
            ranks.append(EntryRank(metric, ids.index(entry.id) + 1, len(ids)))
        else:
            ranks.append(EntryRank(metric, None, None, _why_not_ranked(entry, metric)))
    return ranks


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
