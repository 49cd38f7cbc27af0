"""Reads for the charts page: the four boards' figures as numbers alone (one query), reduced to what the charts
draw (`leaderboard.charts`, `leaderboard.analysis`), then the names of only the entries drawn (one query).

At 100,000 entries a task, reading every entry's whole row four times over (once a board) took seconds and
filled the page with points no reader could tell apart; the names of a few thousand drawn points cost a few
milliseconds.
"""

from __future__ import annotations

import datetime
import functools
import operator
from dataclasses import dataclass

import numpy as np
import pandas as pd
from django.db import connections
from django.db.models import FloatField
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast

from dawnboard.metrics import (
    INFERENCE_LATENCY,
    LEADERBOARD_METRICS,
    TRAINING_TIME,
    LeaderboardMetric,
)
from leaderboard.analysis import record_setters
from leaderboard.charts import LATENCY_AGAINST_COST, TIME_AGAINST_COST, Tradeoff, plotly_text, with_drawn_points
from leaderboard.models import Entry
from leaderboard.selectors.boards import leaderboard_entries

# Each tradeoff chart sets one board's figure against the other's of the same track.
TRADEOFF_TRACKS = ((TRAINING_TIME.track, TIME_AGAINST_COST), (INFERENCE_LATENCY.track, LATENCY_AGAINST_COST))
NAME_COLUMNS = ("model", "author", "hardware")
TRACKS = tuple(sorted({metric.track for metric in LEADERBOARD_METRICS.values()}))
UNNAMED = ("", "", "", "")  # an entry deleted between the two reads
UNIX_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()  # numpy's day 0


@dataclass(frozen=True)
class TradeoffPoints:
    """A tradeoff chart's entries: every entry with both figures, marked `on_front` and `drawn`
    (`charts.with_drawn_points`); the drawn rows also carry `model`, `author`, `hardware` and `label`."""

    tradeoff: Tradeoff
    entries: pd.DataFrame

    @property
    def front(self) -> pd.DataFrame:
        """The Pareto front in x order, for its table."""
        front = self.entries[self.entries["on_front"].to_numpy(dtype=bool)]
        return front.sort_values(self.tradeoff.x, kind="stable")

    @property
    def drawn_count(self) -> int:
        return int(self.entries["drawn"].sum())


@dataclass(frozen=True)
class RecordPoints:
    """A board's record progression as its chart draws it (`analysis.record_steps`): the entries that set a
    record (`is_record`) and the board's latest entry, each with `date`, `value`, `best` and its names."""

    metric: LeaderboardMetric
    steps: pd.DataFrame

    @property
    def records(self) -> pd.DataFrame:
        return self.steps[self.steps["is_record"].to_numpy(dtype=bool)]


@dataclass(frozen=True)
class BoardCharts:
    """What the charts page draws: the tradeoffs and record progressions of the boards that have entries."""

    tradeoffs: list[TradeoffPoints]
    records: list[RecordPoints]


def board_charts(*, task_slug: str, as_of: datetime.date | None = None) -> BoardCharts:
    """The task's boards as the charts page draws them, as they stood on `as_of` when given.

    A fixed number of queries whatever the boards' size: the task's current version (once a board, by
    `leaderboard_entries`), one read of the numbers of all four boards, one of the names of the entries drawn.
    """
    figures = _board_figures(task_slug=task_slug, as_of=as_of)
    tracks = figures["track"].to_numpy()
    on_track = {track: tracks == track for track in {metric.track for metric in LEADERBOARD_METRICS.values()}}
    tradeoffs = []
    for track, tradeoff in TRADEOFF_TRACKS:
        both = figures[on_track[track]].dropna(subset=[tradeoff.x, tradeoff.y])
        if not both.empty:
            tradeoffs.append(TradeoffPoints(tradeoff=tradeoff, entries=with_drawn_points(both, tradeoff)))
    steps_by_metric = {}
    for slug, metric in LEADERBOARD_METRICS.items():
        values = figures[metric.field].to_numpy()
        on_board = on_track[metric.track] & ~np.isnan(values)
        if on_board.any():
            ids, dates = figures["id"].to_numpy()[on_board], figures["date"].to_numpy()[on_board]
            steps_by_metric[slug] = _record_steps(ids=ids, dates=dates, values=values[on_board])
    drawn_ids = [points.entries["id"].to_numpy()[points.entries["drawn"].to_numpy()] for points in tradeoffs]
    record_ids = [steps["id"].to_numpy() for steps in steps_by_metric.values()]
    names = _names(np.concatenate([np.empty(0, dtype=np.int64), *drawn_ids, *record_ids]))
    return BoardCharts(
        tradeoffs=[
            TradeoffPoints(
                tradeoff=points.tradeoff,
                entries=_with_names(points.entries, names, rows=points.entries["drawn"].to_numpy()),
            )
            for points in tradeoffs
        ],
        records=[
            RecordPoints(metric=LEADERBOARD_METRICS[slug], steps=_with_names(steps, names))
            for slug, steps in steps_by_metric.items()
        ],
    )


def _board_figures(*, task_slug: str, as_of: datetime.date | None) -> pd.DataFrame:
    """Every entry on any of the task's four boards, by id: `id`, `date`, `track` and each board's figure as a
    float, named by its metric's field.

    One query, one pass over the task's rows: the boards differ only in their track and the figure they rank
    by, so an entry is on a board when it is of the board's track and has its figure (NaN otherwise).
    """
    metrics = list(LEADERBOARD_METRICS.values())
    boards = [leaderboard_entries(task_slug=task_slug, metric_slug=metric.slug, as_of=as_of) for metric in metrics]
    # No ORDER BY: sorted here instead, where it costs less than the database's sort, which spilled to disk.
    on_any_board = functools.reduce(operator.or_, boards).order_by()
    figures = {f"figure_{index}": Cast(metric.field, output_field=FloatField()) for index, metric in enumerate(metrics)}
    rows = on_any_board.annotate(**figures).values_list("id", "date", "track", *figures)
    database = connections[on_any_board.db]
    read = _columns_packed if database.vendor == "postgresql" else _columns_fetched
    figure_tracks = [metric.track for metric in metrics]
    entry_ids, days, tracks, values = read(database, *rows.query.sql_with_params(), figure_tracks=figure_tracks)
    frame = pd.DataFrame(
        {
            "id": entry_ids,
            "date": days,
            "track": tracks,
            **{metric.field: column for metric, column in zip(metrics, values, strict=True)},
        }
    )
    return frame.sort_values("id", kind="stable", ignore_index=True)


FigureColumns = tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]  # ids, days, tracks, figures


def _columns_fetched(database, sql: str, params: tuple, *, figure_tracks: list[str]) -> FigureColumns:
    """The rows of `sql` (id, date, track, figures) as columns, read from the cursor as they come: Django's
    converters cost more than the query at 100,000 rows."""
    with database.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    # Column by column: zip(*rows) makes 100,000 iterators at once, and the garbage collector's passes over
    # them took ten times as long as the copying.
    columns = [[row[index] for row in rows] for index in range(3 + len(figure_tracks))]
    figures = [np.array(column, dtype=float) for column in columns[3:]]  # None (not on that board) becomes NaN
    return np.array(columns[0], dtype=np.int64), _days(columns[1]), np.array(columns[2], dtype=object), figures


def _columns_packed(database, sql: str, params: tuple, *, figure_tracks: list[str]) -> FigureColumns:
    """`_columns_fetched` for PostgreSQL, 100,000 rows in a few milliseconds of Python: the database packs every
    row into fixed-width binary (each value big-endian) and sends them as one value, which numpy reads as a
    whole. Read as rows, whether by the cursor or by a binary COPY (a message a row), the Python per row cost
    more than the query.

    Each value packed costs the database about 15 ms over 100,000 rows, so a row packs only what it can hold:
    a date as its day number, a track as its place in TRACKS, and the figures of its own track (an entry has no
    figure of another track's board), in slots; a missing figure is NaN.
    """
    slots = [[index for index, track in enumerate(figure_tracks) if track == code] for code in TRACKS]
    track_cases = " ".join(f"WHEN %s THEN {code}" for code in range(len(TRACKS)))
    packed_slots, slot_params = [], []
    for slot in range(max(map(len, slots))):
        filled = [(track, figures[slot]) for track, figures in zip(TRACKS, slots, strict=True) if slot < len(figures)]
        cases = " ".join(f"WHEN %s THEN figure_{figure}" for _, figure in filled)
        packed_slots.append(f"float8send(COALESCE(CASE track {cases} END, 'NaN'))")
        slot_params += [track for track, _ in filled]
    packed = (
        f"SELECT count(*), string_agg(int8send(id::int8) || int4send((date - DATE '1970-01-01')::int4) "
        f"|| int2send((CASE track {track_cases} END)::int2) || {' || '.join(packed_slots)}, ''::bytea) "
        f"FROM ({sql}) AS board"
    )
    with database.cursor() as cursor:
        cursor.execute(packed, (*TRACKS, *slot_params, *params))
        count, data = cursor.fetchone()
    row = np.dtype(
        [("id", ">i8"), ("day", ">i4"), ("track", ">i2"), *((f"slot_{i}", ">f8") for i in range(len(packed_slots)))]
    )
    data = bytes(data or b"")
    if len(data) != count * row.itemsize:  # a NULL would have dropped its row from the bytes
        raise ValueError(f"{count} rows packed into {len(data)} bytes, not {row.itemsize} bytes a row")
    rows = np.frombuffer(data, dtype=row)
    codes = rows["track"]
    figures = [np.full(len(rows), np.nan) for _ in figure_tracks]
    for code, track_figures in enumerate(slots):
        for slot, figure in enumerate(track_figures):
            figures[figure] = np.where(codes == code, rows[f"slot_{slot}"], figures[figure])
    tracks = np.array(TRACKS, dtype=object)[codes]
    return rows["id"].astype(np.int64), rows["day"].astype("datetime64[D]"), tracks, figures


def _record_steps(*, ids: np.ndarray, dates: np.ndarray, values: np.ndarray) -> pd.DataFrame:
    """What `analysis.record_steps` keeps of a board's progression: the entries that set a record
    (`analysis.record_setters`: of two on one day the board's first, by value then id, the rows being in id
    order), and an entry of the latest date, unless a record was set on it, to carry the step line there."""
    rows = record_setters(dates, values)
    is_record = np.ones(len(rows), dtype=bool)
    if len(rows) and dates[rows[-1]] != dates.max():
        rows, is_record = np.append(rows, np.argmax(dates)), np.append(is_record, False)
    best = np.where(is_record, values[rows], values[rows[is_record]].min() if len(rows) else np.nan)
    return pd.DataFrame(
        {"id": ids[rows], "date": dates[rows], "value": values[rows], "best": best, "is_record": is_record}
    )


def _days(dates: list) -> np.ndarray:
    """Dates as numpy days. PostgreSQL's driver hands over date objects, read by way of their ordinals (numpy
    reads 60,000 date objects 20 times slower); SQLite's hands over ISO text, which numpy reads as it is."""
    if dates and isinstance(dates[0], str):
        return np.array(dates, dtype="datetime64[D]")
    ordinals = np.fromiter((date.toordinal() for date in dates), dtype=np.int64, count=len(dates))
    return (ordinals - UNIX_EPOCH_ORDINAL).astype("datetime64[D]")


def _names(entry_ids: np.ndarray) -> dict[int, tuple[str, ...]]:
    """By id, the given entries' model, team and hardware, and the label their hover text starts with."""
    ids = np.unique(entry_ids).tolist()
    entries = Entry.objects.order_by()
    if connections[entries.db].vendor == "postgresql":
        # One array parameter: the driver took 80 ms to place 5,000 parameters of an IN list into the query.
        entries = entries.filter(id__in=RawSQL("SELECT unnest(%s::bigint[])", (ids,)))
    else:
        entries = entries.filter(id__in=ids)
    rows = entries.values_list("id", *NAME_COLUMNS) if ids else []
    return {
        entry_id: (model, author, hardware, f"{plotly_text(model)} ({plotly_text(author)}, {plotly_text(hardware)})")
        for entry_id, model, author, hardware in rows
    }


def _with_names(frame: pd.DataFrame, names: dict, *, rows: np.ndarray | None = None) -> pd.DataFrame:
    """The frame with the names of its entries (`NAME_COLUMNS` and `label`); only on `rows` (a mask) when
    given, the other rows get None."""
    rows = np.ones(len(frame), dtype=bool) if rows is None else rows
    found = [names.get(entry_id, UNNAMED) for entry_id in frame["id"].to_numpy()[rows].tolist()]
    columns = {}
    for index, column in enumerate((*NAME_COLUMNS, "label")):
        values = np.full(len(frame), None, dtype=object)
        values[rows] = [entry[index] for entry in found]
        columns[column] = pd.Series(values, index=frame.index, dtype=object)  # pandas' guessing of text took longer
    return frame.assign(**columns)
