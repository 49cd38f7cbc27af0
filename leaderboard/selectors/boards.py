"""Reads of the leaderboards: a task's board by one metric, as the API document, the front page's top rows,
the site's filtered and sorted view."""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace

from django.db import connection
from django.db.models import Exists, F, OuterRef, QuerySet, Window
from django.db.models.functions import RowNumber

from dawnboard.metrics import (
    INFERENCE_COST,
    INFERENCE_LATENCY,
    LEADERBOARD_METRICS,
    TRAINING_TIME,
    LeaderboardMetric,
)
from dawnboard.recipes import FillCommand, fill_commands
from dawnboard.rules import rules_catalog, task_named
from dawnboard.scoring.runs import tied_with_above
from dawnboard.verification import verification_levels_asked
from leaderboard.models import Entry, EntryCatalogCost, Task, TaskVersion
from leaderboard.selectors.catalog import current_task_versions
from pricing.domain.cost import AS_SUBMITTED, CATALOG_AT_SUBMISSION, CATALOG_TODAY, COST_POLICIES, SPOT_TODAY


class UnknownLeaderboard(LookupError):
    def __init__(self, code: str, message: str, *, field: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field  # the parameter at fault, when one is


@dataclass(frozen=True)
class RankedFigure:
    """A figure one board can rank by instead of its default: the word that asks for it (`?latency_stat=p90`,
    `?cost_at=throughput`), the Entry field holding it, and its label."""

    slug: str
    field: str
    label: str


def _by_slug(*figures: RankedFigure) -> dict[str, RankedFigure]:
    return {figure.slug: figure for figure in figures}


LatencyStat = RankedFigure  # the inference-latency board's, `?latency_stat=`, in ms
CostAt = RankedFigure  # the inference-cost board's, `?cost_at=`, in USD per 10,000 items

MEAN_LATENCY = LatencyStat("mean", INFERENCE_LATENCY.field, "mean")
# Only measured entries (`measure_inference --submit`, or LoadGen's single-stream logs) have percentiles; the others
# rank only by the mean.
LATENCY_STATS = _by_slug(
    MEAN_LATENCY,
    LatencyStat("p90", "latency_p90_ms", "90th percentile"),
    LatencyStat("p99", "latency_p99_ms", "99th percentile"),
)

SINGLE_STREAM_COST = CostAt("single-stream", INFERENCE_COST.field, "one item at a time")
# Only entries measured offline through LoadGen (`measure_inference --scenario offline --submit`, or LoadGen's offline
# logs) have a throughput; the others rank only at single stream, DAWNBench's cost and the board's default.
COST_AT = _by_slug(
    SINGLE_STREAM_COST, CostAt("throughput", "inference_cost_usd_per_10k_at_throughput", "at throughput")
)


def board_value_field(
    metric: LeaderboardMetric, latency_stat: str = MEAN_LATENCY.slug, cost_at: str = SINGLE_STREAM_COST.slug
) -> str:
    """The Entry field a board ranks by: the metric's own, on the latency board the chosen statistic's, on the
    inference-cost board the chosen cost's."""
    if metric == INFERENCE_LATENCY:
        return LATENCY_STATS[latency_stat].field
    return COST_AT[cost_at].field if metric == INFERENCE_COST else metric.field


def board_order(value_field: str) -> tuple[str, str, str]:
    """Every board's order, lowest first: its value, then the earlier date, then the earlier entry.

    The boards, the ranks of a filtered view, the policy boards and an entry's own rank all sort by this one
    tuple, so an entry's rank is the board's by construction.
    """
    return (value_field, "date", "id")


def leaderboard_entries(
    *,
    task_slug: str,
    metric_slug: str,
    as_of: datetime.date | None = None,
    latency_stat: str = MEAN_LATENCY.slug,
    version: str | None = None,
    cost_at: str = SINGLE_STREAM_COST.slug,
    verification: tuple[str, ...] = (),
) -> QuerySet[Entry]:
    """Accepted entries of the task's current version (or `version`) that meet its target, best first, earlier date
    on ties; of these verification levels only, when any are given (the board of those entries).

    `as_of` keeps only entries dated on or before that day: the board as it stood then. `latency_stat`
    (a `LATENCY_STATS` key) ranks the inference-latency board by that statistic, leaving out entries without it;
    `cost_at` (a `COST_AT` key) the inference-cost board by that cost, likewise.
    """
    task_version = board_version(task_slug, metric_slug=metric_slug, version=version)
    return _board(
        version=task_version,
        metric_slug=metric_slug,
        as_of=as_of,
        latency_stat=latency_stat,
        cost_at=cost_at,
        verification=verification,
    )


def board_version(task_slug: str, *, metric_slug: str, version: str | None = None) -> TaskVersion:
    """The task version whose board by `metric_slug` is asked for: `version` (e.g. "mlperf-v4.0"), by default the
    current one; UnknownLeaderboard for an unknown metric, task or version."""
    if metric_slug not in LEADERBOARD_METRICS:
        known = ", ".join(LEADERBOARD_METRICS)
        raise UnknownLeaderboard("unknown_metric", f"Unknown metric '{metric_slug}'; use one of: {known}.")
    # PostgreSQL's text holds no NUL: a name with one names nothing, and is never sent to the database.
    if "\x00" in task_slug:
        raise UnknownLeaderboard("unknown_task", "Unknown task: a task's name holds no NUL character.")
    if version is not None and "\x00" in version:
        raise UnknownLeaderboard(
            "unknown_version", "Unknown version: a version holds no NUL character.", field="version"
        )
    versions = TaskVersion.objects.filter(task__slug=task_slug).select_related("task")
    found = versions.filter(is_current=True) if version is None else versions.filter(version=version)
    found = found.first()
    if found is None and version is not None and versions.exists():
        known = ", ".join(versions.values_list("version", flat=True))
        message = f"The task {task_slug} has no version '{version[:50]}'; its versions: {known}."
        raise UnknownLeaderboard("unknown_version", message, field="version")
    if found is None:
        known = ", ".join(sorted(TaskVersion.objects.filter(is_current=True).values_list("task__slug", flat=True)))
        raise UnknownLeaderboard("unknown_task", f"Unknown task '{task_slug}'; known tasks: {known}.")
    return found


def meets_target(version: TaskVersion, *, through: str = "") -> dict:
    """The filter keeping entries whose quality meets the version's target: at least it, or at most it where lower
    is better (an MLPerf loss or perplexity; the judge checked every target, this the one stored)."""
    rules = rules_catalog().get(version.task.slug, {}).get(version.version)
    bound = "lte" if rules is not None and not rules.higher_is_better else "gte"
    return {f"{through}accuracy__{bound}": version.threshold}


def _board(
    *,
    version: TaskVersion,
    metric_slug: str,
    as_of: datetime.date | None = None,
    latency_stat: str = MEAN_LATENCY.slug,
    cost_at: str = SINGLE_STREAM_COST.slug,
    verification: tuple[str, ...] = (),
) -> QuerySet[Entry]:
    metric = LEADERBOARD_METRICS[metric_slug]
    value_field = board_value_field(metric, latency_stat, cost_at)
    entries = (
        Entry.objects.accepted()
        .filter(task_version=version, track=metric.track, **meets_target(version), **of_levels(verification))
        .exclude(**{f"{value_field}__isnull": True})
        .order_by(*board_order(value_field))
    )
    return entries if as_of is None else entries.filter(date__lte=as_of)


def of_levels(verification: tuple[str, ...], *, through: str = "") -> dict:
    """The filter keeping entries of these verification levels (every entry when none are given): read off the
    boards' indexes, which hold the level."""
    return {f"{through}verification__in": verification} if verification else {}


def verification_filter(value: str | None) -> tuple[str, ...]:
    """The levels a `verification` parameter asks for (none: every level); UnknownLeaderboard for a bad one."""
    if value is None:
        return ()
    try:
        return verification_levels_asked(value)
    except ValueError as error:
        raise UnknownLeaderboard("invalid_verification", str(error), field="verification") from None


def leaderboard(
    *,
    task_slug: str,
    metric_slug: str,
    limit: int | None = None,
    offset: int = 0,
    cost_basis: str | None = None,
    latency_stat: str | None = None,
    version: str | None = None,
    cost_at: str | None = None,
    verification: str | None = None,
) -> dict:
    """The leaderboard document shared by the `leaderboard` command and the API: `limit` rows from `offset`, of the
    task's `version` (by default its current one; the document names it).

    `count` is the board's size, so a reader can page through it. `cost_basis` ranks the cost boards by a
    pricing policy (see pricing.domain.cost); by default, and always for time and latency, the entries' own
    figures rank them. The document then names it. `latency_stat` (a `LATENCY_STATS` key, default the mean)
    ranks the inference-latency board; the document names it there, and other boards ignore it. `cost_at` (a
    `COST_AT` key, default single stream) does the same for the inference-cost board, at the entries' own prices.
    `verification` (levels, comma-separated) makes the board of the entries of those levels; the document names them.
    """
    levels = verification_filter(verification)
    if cost_basis is not None and cost_basis not in COST_POLICIES:
        known = ", ".join(COST_POLICIES)
        raise UnknownLeaderboard("unknown_cost_basis", f"Unknown cost basis '{cost_basis}'; use one of: {known}.")
    if latency_stat is not None and latency_stat not in LATENCY_STATS:
        known = ", ".join(LATENCY_STATS)
        message = f"Unknown latency statistic '{latency_stat}'; use one of: {known}."
        raise UnknownLeaderboard("invalid_latency_stat", message, field="latency_stat")
    if cost_at is not None and cost_at not in COST_AT:
        known = ", ".join(COST_AT)
        raise UnknownLeaderboard(
            "invalid_cost_at", f"Unknown cost_at '{cost_at}'; use one of: {known}.", field="cost_at"
        )
    stat = MEAN_LATENCY.slug if latency_stat is None else latency_stat
    task_version = board_version(task_slug, metric_slug=metric_slug, version=version)
    metric = LEADERBOARD_METRICS[metric_slug]
    cost = SINGLE_STREAM_COST.slug if cost_at is None or metric != INFERENCE_COST else cost_at
    if cost != SINGLE_STREAM_COST.slug and cost_basis not in (None, AS_SUBMITTED):
        message = "cost_at=throughput ranks at the entries' own prices only: drop cost_basis, or cost_at."
        raise UnknownLeaderboard("unsupported_cost_at", message, field="cost_at")
    entries = _board(
        version=task_version, metric_slug=metric_slug, latency_stat=stat, cost_at=cost, verification=levels
    )
    end = None if limit is None else offset + limit
    value_field, keys, key = board_value_field(metric, stat, cost), entries, "id"
    if cost_basis not in (None, AS_SUBMITTED) and metric.is_cost:  # counted and windowed along the policy's index
        keys, key = (
            policy_costs(version=task_version, metric=metric, cost_basis=cost_basis, verification=levels),
            "entry_id",
        )
        entries = policy_board(version=task_version, metric=metric, cost_basis=cost_basis, verification=levels)
        value_field = policy_value_field(cost_basis)
    count = keys.count()
    if limit is None:  # the whole board from `offset` (the command): streamed in the board's order
        rows = board_rows_from_values(entries[offset:], value_field=value_field, first_rank=offset + 1)
    else:
        ids = window_ids(keys.values_list(key, flat=True), start=offset, end=end)
        rows = board_window_rows(entries, ids, value_field=value_field, first_rank=offset + 1)
    document = {
        "task": task_slug,
        "version": task_version.version,
        "metric": metric_slug,
        "unit": metric.unit,
        "count": count,
        "offset": offset,
        "limit": limit,
        "results": [row.as_api_dict() for row in rows],
    }
    if cost_basis is not None:
        document["cost_basis"] = cost_basis
    if latency_stat is not None and metric == INFERENCE_LATENCY:
        document["latency_stat"] = latency_stat
    if cost_at is not None and metric == INFERENCE_COST:
        document["cost_at"] = cost_at
    if levels:
        document["verification"] = list(levels)
    return document


# Each catalog policy's column of EntryCatalogCost, where its costs are stored (as-submitted is the entries' own).
POLICY_COST_FIELDS = {
    CATALOG_AT_SUBMISSION: "catalog_at_submission_usd",
    CATALOG_TODAY: "catalog_today_usd",
    SPOT_TODAY: "spot_today_usd",
}


def policy_costs(
    *, version: TaskVersion, metric: LeaderboardMetric, cost_basis: str, verification: tuple[str, ...] = ()
) -> QuerySet[EntryCatalogCost]:
    """The stored costs of a board by a catalog price (`cost_basis`, not as-submitted) in the board's order: the
    track's entries of the version that meet its threshold and that the policy prices, cheapest first, then the
    earlier date, then the earlier entry (`board_order`). Read along the policy's index alone (a count, the ids of a
    window, a rank); the costs were priced when the entries, their matches or the catalog changed
    (leaderboard.services.policy_costs), never here.

    An entry without a figure of its own can still be priced from the catalog: the board is every such entry of
    the track's time board, not of the as-submitted cost board.
    """
    costs = EntryCatalogCost.objects.filter(**_on_policy_board(version, metric, cost_basis), **of_levels(verification))
    return costs.order_by(*policy_board_order(cost_basis))


def policy_board_order(cost_basis: str) -> tuple[str, str, str]:
    """`board_order` of a board by a catalog price, in EntryCatalogCost's terms (the entry's id is `entry_id`)."""
    value, date, _ = board_order(POLICY_COST_FIELDS[cost_basis])
    return value, date, "entry_id"


def policy_value_field(cost_basis: str) -> str:
    """The entry's cost under a catalog policy, as an Entry lookup (the value of its row on that board)."""
    return f"catalog_cost__{POLICY_COST_FIELDS[cost_basis]}"


def policy_board(
    *, version: TaskVersion, metric: LeaderboardMetric, cost_basis: str, verification: tuple[str, ...] = ()
) -> QuerySet[Entry]:
    """The entries of `policy_costs`, in its order, for their rows (`board_window_rows`, `board_rows_from_values`)."""
    entries = Entry.objects.filter(
        **_on_policy_board(version, metric, cost_basis, through="catalog_cost__"),
        **of_levels(verification, through="catalog_cost__"),
    )
    return entries.order_by(policy_value_field(cost_basis), "catalog_cost__date", "id")


def _on_policy_board(version: TaskVersion, metric: LeaderboardMetric, cost_basis: str, *, through: str = "") -> dict:
    """The filter of a board by a catalog price, on EntryCatalogCost's columns (from Entry: `through` its row)."""
    field = POLICY_COST_FIELDS[cost_basis]
    return {
        f"{through}task_version": version,
        f"{through}track": metric.track,
        **meets_target(version, through=through),
        f"{through}{field}__isnull": False,
    }


def policy_board_rows(*, task_slug: str, metric: LeaderboardMetric, cost_basis: str) -> list[BoardRow]:
    """Every entry of the metric's track that the policy can price, cheapest first, earlier date on ties."""
    version = board_version(task_slug, metric_slug=metric.slug)
    entries = policy_board(version=version, metric=metric, cost_basis=cost_basis)
    return list(board_rows_from_values(entries, value_field=policy_value_field(cost_basis)))


ROW_FIELDS = (  # _row_of_values
    "id", "source_name", "model", "author", "hardware", "framework", "date", "code_url", "verification",
    "run_count", "time_to_accuracy_seconds", "time_interval_low_seconds", "time_interval_high_seconds",
)  # fmt: skip
SUBMITTER_NAME = "submission__submitter__name"
ROWS_READ_AT_ONCE = 2000  # rows fetched per round trip when a whole board is read


@dataclass(frozen=True)
class BoardRow:
    """One entry's line on a board: its rank on the whole board, its value in the board's unit, and who ran what."""

    rank: int | None
    entry_id: int
    value: float
    source_name: str
    model: str
    team: str
    hardware: str
    framework: str
    date: datetime.date
    code_url: str
    submitter: str | None  # the account that submitted it; None for an entry imported from DAWNBench
    verification: str = ""  # its level (dawnboard.verification)
    # Several runs: how many, and the 95 % interval of their median in the board's unit (high None: unbounded);
    # `tied_with_above`: the interval reaches the one of the entry ranked just above (None: not in rank order).
    runs: int = 0
    interval_low: float | None = None
    interval_high: float | None = None
    tied_with_above: bool | None = None

    def as_api_dict(self) -> dict:
        """The row of the leaderboard document (`manage.py leaderboard --json`, the API)."""
        return {
            "rank": self.rank,
            "tied_with_above": self.tied_with_above,
            "entry_id": self.entry_id,
            "source_name": self.source_name,
            "value": self.value,
            "runs": self.runs,
            "interval_95": None if self.interval_low is None else [self.interval_low, self.interval_high],
            "model": self.model,
            "team": self.team,
            "submitter": self.submitter,
            "hardware": self.hardware,
            "framework": self.framework,
            "date": self.date.isoformat(),
            "verification": self.verification,
        }


def board_row(entry: Entry, *, rank: int | None, value: float, submitter: str | None) -> BoardRow:
    runs, low, high = _interval_in_board_unit(
        entry.run_count,
        entry.time_to_accuracy_seconds,
        entry.time_interval_low_seconds,
        entry.time_interval_high_seconds,
        value=value,
    )
    return BoardRow(
        runs=runs,
        interval_low=low,
        interval_high=high,
        rank=rank,
        entry_id=entry.id,
        value=value,
        source_name=entry.source_name,
        model=entry.model,
        team=entry.author,
        hardware=entry.hardware,
        framework=entry.framework,
        date=entry.date,
        code_url=entry.code_url,
        submitter=submitter,
        verification=entry.verification,
    )


def submitter_names(entry_ids: list[int]) -> dict[int, str]:
    """The name of the account that submitted each entry, by entry id; imported entries have none.

    Read by id, apart from the board's own scan, which stays along its index.
    """
    if not entry_ids:
        return {}
    named = Entry.objects.filter(id__in=entry_ids, submission__submitter__isnull=False)
    return dict(named.values_list("id", SUBMITTER_NAME))


def board_rows_from_values(entries: QuerySet[Entry], *, value_field: str, first_rank: int = 1) -> Iterator[BoardRow]:
    """Rows of a board's entries in their order, read as plain values (no model instance per row), ranked from
    `first_rank`; an iterator, so that an export of a whole board streams rather than sits in memory."""
    columns = (*ROW_FIELDS, value_field)
    values = entries.values_list(*columns).iterator(chunk_size=ROWS_READ_AT_ONCE)
    ranks = itertools.count(first_rank)
    above = None
    for batch in _batches(values):
        batch_rows = _rows_of_values(batch, ranks=[next(ranks) for _ in batch])
        rows = rows_with_ties(batch_rows, above=above, first_rank=first_rank if above is None else 1)
        above = rows[-1]
        yield from rows


def entries_in_order(entries: QuerySet[Entry], entry_ids: list[int], *, value_field: str) -> list[tuple]:
    """The board row values (`ROW_FIELDS`, the board's value and the submitter's name) of `entry_ids`, in that order.

    A window deep into a board is cheapest found in two steps: its ids, which the board's index holds in
    order (an index-only scan, however many rows it skips), then those few rows themselves by id (with their
    submitters, joined). One query that read whole rows would read every skipped row too.
    """
    columns = (*ROW_FIELDS, value_field, SUBMITTER_NAME)
    by_id = {values[0]: values for values in entries.order_by().filter(id__in=entry_ids).values_list(*columns)}
    return [by_id[entry_id] for entry_id in entry_ids if entry_id in by_id]


def window_ids(ids: QuerySet, *, start: int, end: int | None) -> list[int]:
    """The ids of a window of a board from `start` (0-based) to `end`, with the id ranked just before it first when
    there is one: read in the same query, so that the window's first row can be told tied or not."""
    return list(ids[max(start - 1, 0) : end])


def board_page_rows(rows: BoardRows, entry_ids: list[int], *, first_rank: int) -> list[BoardRow]:
    """The rows of a page of the view (`entry_ids` from `window_ids`, in the view's order: the id before the page
    first, past the first page), each with its rank on the whole board; on the board itself, in rank order, a
    row's place is its rank, counted from `first_rank`, and ties with the row above are marked."""
    above = entry_ids[:1] if first_rank > 1 else []
    page_ids = entry_ids[len(above) :]
    ranks = rows.ranks_of(page_ids)
    window = entries_in_order(rows.entries, above + page_ids, value_field=rows.value_field)
    places = range(first_rank - len(above), first_rank + len(page_ids))
    page = [
        _row_of_values(values[:-1], rank=place if ranks is None else ranks.get(values[0]), submitter=values[-1])
        for place, values in zip(places, window, strict=True)
    ]
    if ranks is not None:  # not in rank order: no row is next to the one ranked above it
        return page[len(above) :]
    return rows_with_ties(page)[len(above) :]


def board_window_rows(
    entries: QuerySet[Entry], entry_ids: list[int], *, value_field: str, first_rank: int
) -> list[BoardRow]:
    """The rows of a window of the board `entries` in its order, ranked from `first_rank`: `entry_ids` from
    `window_ids` (past rank 1, the id ranked just before the window first, to mark the first row's tie)."""
    window = entries_in_order(entries, entry_ids, value_field=value_field)
    start = first_rank - 1 if first_rank > 1 else first_rank
    rows = [
        _row_of_values(values[:-1], rank=rank, submitter=values[-1]) for rank, values in enumerate(window, start=start)
    ]
    return rows_with_ties(rows)[1 if first_rank > 1 else 0 :]


def board_rows_ranked(rows: BoardRows) -> Iterator[BoardRow]:
    """Every row of a filtered, sorted board with its rank on the whole board, as plain values, streamed."""
    ranks = rows.all_ranks()
    if ranks is None:
        yield from board_rows_from_values(rows.entries, value_field=rows.value_field)
        return
    columns = (*ROW_FIELDS, rows.value_field)
    values = rows.entries.values_list(*columns).iterator(chunk_size=ROWS_READ_AT_ONCE)
    for batch in _batches(values):
        yield from _rows_of_values(batch, ranks=[ranks.get(row[0]) for row in batch])


def _batches(values: Iterator[tuple]) -> Iterator[list[tuple]]:
    """`values` a list of ROWS_READ_AT_ONCE at a time (itertools.batched is Python 3.12's)."""
    while batch := list(itertools.islice(values, ROWS_READ_AT_ONCE)):
        yield batch


def _rows_of_values(batch: list[tuple], *, ranks: list[int | None]) -> list[BoardRow]:
    """Board rows of `ROW_FIELDS` values and the board's value, with their ranks, and their submitters read by id
    (one query for the batch: the batch itself is read along the board's index)."""
    submitters = submitter_names([values[0] for values in batch])
    return [
        _row_of_values(values, rank=rank, submitter=submitters.get(values[0]))
        for values, rank in zip(batch, ranks, strict=True)
    ]


def _row_of_values(values: tuple, *, rank: int | None, submitter: str | None) -> BoardRow:
    entry_id, source_name, model, author, hardware, framework, date, code_url, verification, *spread, value = values
    runs, low, high = _interval_in_board_unit(*spread, value=value)
    return BoardRow(
        runs=runs,
        interval_low=low,
        interval_high=high,
        rank=rank,
        entry_id=entry_id,
        value=float(value),
        source_name=source_name,
        model=model,
        team=author,
        hardware=hardware,
        framework=framework,
        date=date,
        code_url=code_url,
        submitter=submitter,
        verification=verification,
    )


def _interval_in_board_unit(
    runs: int, seconds: float | None, low: float | None, high: float | None, *, value
) -> tuple[int, float | None, float | None]:
    """An entry's interval of its runs' median in the board's unit: its time's, or scaled by the entry's cost per
    second of its score on a cost board (a cost is the time times a price). None for an inference entry."""
    if low is None or not seconds or value is None:
        return runs, None, None
    per_second = float(value) / seconds
    return runs, low * per_second, None if high is None else high * per_second


def rows_with_ties(rows: list[BoardRow], *, above: BoardRow | None = None, first_rank: int = 1) -> list[BoardRow]:
    """Board rows in rank order, each marked tied with the row before it when its interval reaches that row's. The
    first row is compared with `above` (the row ranked just before it); a window starting past rank 1 without it
    leaves its first row's tie unknown (None) rather than read one more row."""
    marked = []
    previous = above
    for row in rows:
        if previous is None and first_rank > 1 and not marked:
            marked.append(replace(row, tied_with_above=None))
            previous = row
            continue
        tied = previous is not None and tied_with_above(
            above_high=previous.interval_high if previous.interval_low is not None else previous.value,
            low=row.interval_low,
        )
        marked.append(replace(row, tied_with_above=tied))
        previous = row
    return marked


def home_boards(*, rows_per_board: int) -> list[dict]:
    """For the front page: every task with its current threshold and its four top-N boards, the tasks with
    entries first; a task without any has, instead, the commands that would fill it (`fill_commands`)."""
    tasks = []
    # One probe of the index of each task's newest accepted entries (not DISTINCT over the whole table).
    newest = Entry.objects.accepted().filter(task_id=OuterRef("id"))
    with_entries = set(Task.objects.filter(Exists(newest)).values_list("id", flat=True))
    for version in current_task_versions():
        if not task_named(version.task.slug).dawnbench_folder and version.task_id not in with_entries:
            continue  # an MLPerf benchmark's task is on the front page once it has entries
        tops = {
            metric: list(_board(version=version, metric_slug=slug).only(*ROW_FIELDS, metric.field)[:rows_per_board])
            for slug, metric in LEADERBOARD_METRICS.items()
        }
        tasks.append({"task": version.task, "version": version, "tops": tops})
    submitters = submitter_names([entry.id for item in tasks for top in item["tops"].values() for entry in top])
    for item in tasks:
        tops = item.pop("tops")
        item["boards"] = [
            {"metric": metric, "unit": metric.unit, "results": _rows_of_entries(top, metric.field, submitters)}
            for metric, top in tops.items()
        ]
        item["has_entries"] = any(board["results"] for board in item["boards"])
        item["fill_commands"] = [] if item["has_entries"] else _fill_commands(item["task"].slug)
    return sorted(tasks, key=lambda item: not item["has_entries"])  # stable: in slug order within each group


def _rows_of_entries(entries: list[Entry], value_field: str, submitters: dict[int, str]) -> list[BoardRow]:
    return rows_with_ties(
        [
            board_row(entry, rank=rank, value=float(getattr(entry, value_field)), submitter=submitters.get(entry.id))
            for rank, entry in enumerate(entries, start=1)
        ]
    )


def task_fill_commands(*, task_slug: str) -> list[FillCommand]:
    """For a task's page: the commands that would fill it when it has no accepted entry yet, else none."""
    if Entry.objects.accepted().filter(task__slug=task_slug).exists():
        return []
    return _fill_commands(task_slug)


def _fill_commands(task_slug: str) -> list[FillCommand]:
    try:
        task = task_named(task_slug)
    except KeyError:  # a task the database has and the rules do not: nothing to suggest
        return []
    return fill_commands(task)


SORTABLE_COLUMNS = {"rank": None, "value": None, "date": "date", "model": "model", "team": "author"}


SORTABLE_COLUMNS |= {"hardware": "hardware", "framework": "framework"}


@dataclass(frozen=True)
class BoardView:
    """What a reader asked to see of one leaderboard: filters, sort, and the day it stood on."""

    metric: str = TRAINING_TIME.slug
    framework: str = ""
    hardware: str = ""
    date_from: datetime.date | None = None
    date_to: datetime.date | None = None
    as_of: datetime.date | None = None
    sort: str = "rank"
    descending: bool = False
    latency_stat: str = MEAN_LATENCY.slug
    version: str = ""  # the task version whose board: "" for the current one
    cost_at: str = SINGLE_STREAM_COST.slug
    verification: tuple[str, ...] = ()  # the levels whose board (none: every entry's)
    evaluated: str = ""  # what the entries say was evaluated (dawnboard.verification.Evaluated; "": any)

    @property
    def value_field(self) -> str:
        return board_value_field(LEADERBOARD_METRICS[self.metric], self.latency_stat, self.cost_at)

    @property
    def ranked_latency_stat(self) -> LatencyStat | None:
        """The latency statistic ranking this board: only the inference-latency board has one."""
        return LATENCY_STATS[self.latency_stat] if self.metric == INFERENCE_LATENCY.slug else None

    @property
    def ranked_cost_at(self) -> CostAt | None:
        """The cost ranking this board: only the inference-cost board has one."""
        return COST_AT[self.cost_at] if self.metric == INFERENCE_COST.slug else None


@dataclass(frozen=True)
class BoardRows:
    """The entries of a filtered, sorted board, and the whole board their ranks are read from."""

    entries: QuerySet[Entry]
    board: QuerySet[Entry]  # the unfiltered board, in rank order
    value_field: str
    reordered: bool  # filtered or sorted otherwise than by rank: an entry's place is not its rank

    def ranks_of(self, entry_ids: list[int]) -> dict[int, int] | None:
        """Each entry's rank on the whole board (None: the rows are the board itself, in rank order).

        One query, which numbers the board's rows in the database and returns only the asked-for ones,
        rather than every id of the board to number here.
        """
        if not self.reordered:
            return None
        if not entry_ids:
            return {}
        order = [F(field).asc() for field in board_order(self.value_field)]
        numbered = self.board.order_by().annotate(board_rank=Window(RowNumber(), order_by=order))
        sql, parameters = numbered.values("id", "board_rank").query.sql_with_params()
        placeholders = ", ".join(["%s"] * len(entry_ids))
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT id, board_rank FROM ({sql}) numbered WHERE id IN ({placeholders})", [*parameters, *entry_ids]
            )
            return dict(cursor.fetchall())

    def all_ranks(self) -> dict[int, int] | None:
        """Every entry's rank on the whole board, for an export of the whole view (None: not reordered)."""
        if not self.reordered:
            return None
        return {entry_id: rank for rank, entry_id in enumerate(self.board.values_list("id", flat=True), start=1)}


def board_rows(*, task_slug: str, view: BoardView) -> BoardRows:
    """A task's board as the reader filtered and sorted it; ranks stay those of the unfiltered board.

    A bounded number of queries whatever the board's size: the rows (counted and sliced by the
    paginator) and, only for a filtered or re-sorted view, the ranks of the rows shown (`ranks_of`).
    """
    board = leaderboard_entries(
        task_slug=task_slug,
        metric_slug=view.metric,
        as_of=view.as_of,
        latency_stat=view.latency_stat,
        version=view.version or None,
        cost_at=view.cost_at,
        verification=view.verification,
    )
    value_field = view.value_field
    filtered = view.framework or view.hardware or view.date_from or view.date_to or view.evaluated
    entries = board
    if view.evaluated:
        entries = entries.filter(evaluated=view.evaluated)
    if view.framework:
        entries = entries.filter(framework__icontains=view.framework)
    if view.hardware:
        entries = entries.filter(hardware__icontains=view.hardware)
    if view.date_from:
        entries = entries.filter(date__gte=view.date_from)
    if view.date_to:
        entries = entries.filter(date__lte=view.date_to)
    column = SORTABLE_COLUMNS.get(view.sort)
    if column is not None:
        entries = entries.order_by(F(column).desc() if view.descending else F(column).asc(), F(value_field).asc(), "id")
    elif view.descending:
        entries = entries.reverse()
    return BoardRows(
        entries=entries.only(*ROW_FIELDS, value_field),
        board=board,
        value_field=value_field,
        reordered=bool(filtered or view.sort != "rank" or view.descending),
    )


FRAMEWORK_SUGGESTIONS = 200


def task_frameworks(*, task_slug: str) -> list[str]:
    """The frameworks of a task's accepted entries, for the filter's suggestions, in alphabetical order.

    Read by skipping along the (task, status, framework) index from one framework to the next: one probe per
    distinct framework, where `SELECT DISTINCT` would read every entry of the task.
    """
    entries, tasks = Entry._meta.db_table, Task._meta.db_table
    next_after = f"SELECT MIN(framework) FROM {entries} WHERE task_id = t.id AND status = %s"
    sql = f"""
        WITH RECURSIVE frameworks(name) AS (
            SELECT ({next_after}) FROM {tasks} t WHERE t.slug = %s
            UNION ALL
            SELECT ({next_after} AND framework > frameworks.name)
            FROM frameworks, {tasks} t WHERE t.slug = %s AND frameworks.name IS NOT NULL
        )
        SELECT name FROM frameworks WHERE name IS NOT NULL LIMIT %s
    """
    accepted = Entry.Status.ACCEPTED
    with connection.cursor() as cursor:
        cursor.execute(sql, [accepted, task_slug, accepted, task_slug, FRAMEWORK_SUGGESTIONS])
        return [name for (name,) in cursor.fetchall()]
