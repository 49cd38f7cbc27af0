"""Where one entry stands on its task's boards, for its page: read off the boards' own ranking, never a second one.

A board sorts by `board_order` (its value, the date, the id). An entry's rank counts the board's entries before
it in that order, comparing each of them with the entry's own stored values inside the database: the figure
is never read into Python and compared back, which on SQLite (a decimal stored as a float and read back to 15
digits) once ranked an entry behind itself. A board by a catalog price is counted the same way, along its
policy's index of stored costs (`policy_costs`).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet, Subquery

from dawnboard.metrics import INFERENCE_LATENCY, LEADERBOARD_METRICS, LeaderboardMetric
from leaderboard.models import Entry
from leaderboard.selectors.boards import (
    LATENCY_STATS,
    MEAN_LATENCY,
    POLICY_COST_FIELDS,
    LatencyStat,
    board_order,
    board_value_field,
    leaderboard_entries,
    policy_board_order,
    policy_costs,
)
from pricing.domain.cost import AS_SUBMITTED


@dataclass(frozen=True)
class EntryRank:
    """The entry's place on one board of its track: `rank` of `board_size`, or None and why not.

    `latency_stat` is the statistic ranking the inference-latency board (the mean elsewhere); `cost_basis` the
    price policy ranking a cost board (as-submitted elsewhere).
    """

    metric: LeaderboardMetric
    rank: int | None
    board_size: int | None
    not_ranked_because: str = ""
    latency_stat: LatencyStat = MEAN_LATENCY
    cost_basis: str = AS_SUBMITTED


def entry_board_ranks(entry: Entry) -> list[EntryRank]:
    """The entry's rank on each board of its track, as-submitted; on the latency board also by the 90th and
    99th percentiles when the entry has them (a measured entry).

    One query per board, which counts along the board's index rather than reading its ids.
    """
    ranks = []
    for metric in LEADERBOARD_METRICS.values():
        if metric.track != entry.track:
            continue
        ranks.append(entry_rank(entry, metric=metric))
        if metric == INFERENCE_LATENCY:
            ranks += [
                entry_rank(entry, metric=metric, latency_stat=stat.slug)
                for stat in LATENCY_STATS.values()
                if stat != MEAN_LATENCY and getattr(entry, stat.field) is not None
            ]
    return ranks


def entry_policy_ranks(entry: Entry, *, board_ranks: list[EntryRank] | None = None) -> dict[str, EntryRank]:
    """The entry's rank on its track's cost board under each price policy, by policy, each counted along its index:
    as-submitted the entries' own, the catalog policies their stored costs'. None for an entry on no board.

    `board_ranks`, the entry's `entry_board_ranks` where the caller has them, already hold the as-submitted
    cost board's rank: it is taken from them rather than counted a second time (a count of the whole board)."""
    metric = next(metric for metric in LEADERBOARD_METRICS.values() if metric.is_cost and metric.track == entry.track)
    counted = next((place for place in board_ranks or [] if place.metric == metric), None)
    ranks = {AS_SUBMITTED: counted or entry_rank(entry, metric=metric)}
    if not _on_current_boards(entry):
        return ranks
    return ranks | {policy: _policy_rank(entry, metric, policy) for policy in POLICY_COST_FIELDS}


def entry_rank(
    entry: Entry,
    *,
    metric: LeaderboardMetric,
    cost_basis: str = AS_SUBMITTED,
    latency_stat: str = MEAN_LATENCY.slug,
) -> EntryRank:
    """The entry's rank on the board `leaderboard(metric, cost_basis, latency_stat)` gives, or why it has none."""
    stat = LATENCY_STATS[latency_stat] if metric == INFERENCE_LATENCY else MEAN_LATENCY
    if metric.is_cost and cost_basis != AS_SUBMITTED:
        return _policy_rank(entry, metric, cost_basis)
    place = {"metric": metric, "latency_stat": stat}
    if _on_current_boards(entry):
        board = leaderboard_entries(task_slug=entry.task.slug, metric_slug=metric.slug, latency_stat=stat.slug)
        order = board_order(board_value_field(metric, stat.slug))
        counted = _counted(board, order, entry_id=entry.id)
        if counted["on_board"]:
            return EntryRank(rank=counted["ahead"] + 1, board_size=counted["size"], **place)
    why = _why_not_ranked(entry, metric, stat, AS_SUBMITTED)
    return EntryRank(rank=None, board_size=None, not_ranked_because=why, **place)


def _on_current_boards(entry: Entry) -> bool:
    """Whether the entry can be on any board: accepted, and judged by its task's current version."""
    return entry.status == Entry.Status.ACCEPTED and entry.task_version.is_current


def _policy_rank(entry: Entry, metric: LeaderboardMetric, policy: str) -> EntryRank:
    """The entry's place on the board by a catalog price, counted along the policy's index of stored costs (the
    board holds only accepted entries of the current version)."""
    if _on_current_boards(entry):
        board = policy_costs(version=entry.task_version, metric=metric, cost_basis=policy)
        counted = _counted(board, policy_board_order(policy), entry_id=entry.id)
        if counted["on_board"]:
            return EntryRank(metric=metric, rank=counted["ahead"] + 1, board_size=counted["size"], cost_basis=policy)
    why = _why_not_ranked(entry, metric, MEAN_LATENCY, policy)
    return EntryRank(metric=metric, rank=None, board_size=None, not_ranked_because=why, cost_basis=policy)


def _counted(board: QuerySet, order: tuple[str, ...], *, entry_id: int) -> dict[str, int]:
    """The board's size, how many of its rows come before the entry's and whether the entry is on it: one count
    along the board's index. `order` ends with the entry's id, under the board's table's name for it."""
    key = order[-1]
    own = board.model.objects.filter(**{key: entry_id})
    return board.aggregate(
        size=Count(key),
        ahead=Count(key, filter=_ahead_of(own, order)),
        on_board=Count(key, filter=Q(**{key: entry_id})),
    )


def _ahead_of(own: QuerySet, order: tuple[str, ...]) -> Q:
    """Rows before `own` in a board sorted by `order`: lexicographically less, each field compared with the row's
    own stored value by the database (a scalar subquery, evaluated once)."""
    ahead, equal_so_far = Q(pk__in=[]), Q()
    for field in order:
        own_value = Subquery(own.values(field)[:1])
        ahead |= equal_so_far & Q(**{f"{field}__lt": own_value})
        equal_so_far &= Q(**{field: own_value})
    return ahead


def _why_not_ranked(entry: Entry, metric: LeaderboardMetric, stat: LatencyStat, cost_basis: str) -> str:
    """Words for a reader; whether the entry is on the board is the board's query alone."""
    version = entry.task_version
    if entry.status != Entry.Status.ACCEPTED:
        return "withdrawn"
    if not version.is_current:
        return f"judged by {version.version}, an earlier version of the task's rules"
    if entry.accuracy < version.threshold:
        return "it did not reach the threshold"
    if metric.is_cost and cost_basis != AS_SUBMITTED:
        return f"the catalog gives no {cost_basis} price for its hardware"
    field = board_value_field(metric, stat.slug)
    if getattr(entry, field) is None:
        figure = metric.label.lower() if stat == MEAN_LATENCY else f"{stat.label} latency"
        return f"it has no {figure} figure"
    return "not on this board"
