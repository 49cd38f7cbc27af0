"""A task's threshold sensitivity: how its training board's order moves when the threshold moves by -1, -0.5, +0.5
and +1 point of the task's scale (`dawnboard.scoring.sensitivity`), from each entry's scores at the shifted
thresholds, which judging computed from every row of its logs as read (never from the thinned curve)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.db.models import QuerySet

from dawnboard.metrics import TRAINING_TIME
from dawnboard.scoring.sensitivity import BoardColumns, BoardSensitivity, board_sensitivity
from leaderboard.models import SHIFT_COLUMNS, Entry, TaskVersion
from leaderboard.selectors.boards import board_version, leaderboard_entries
from leaderboard.selectors.catalog import rules_of

MOVES_SHOWN = 5
SHIFT_KEYS = ("delta", "threshold", "kendall_tau", "entries_ranked", "largest_moves")  # a shift in the API, exactly


@dataclass(frozen=True)
class TaskSensitivity:
    """The sensitivity of a task version's training board, and how many of its entries it could not include (an
    MLPerf set, or an entry stored before Dawnboard kept its scores at shifted thresholds)."""

    version: TaskVersion
    sensitivity: BoardSensitivity
    without_shifts: int
    models: dict[int, str]  # the model of each entry named (moved most, or a single crossing), for the page

    def document(self) -> dict:
        """The API's document: exactly {"task", "version", "threshold", "shifts", "single_crossings"}."""
        shown = self.sensitivity.as_dict()
        return {
            "task": self.version.task.slug,
            "version": self.version.version,
            "threshold": shown["threshold"],
            "shifts": [{key: shift[key] for key in SHIFT_KEYS} for shift in shown["shifts"]],
            "single_crossings": shown["single_crossings"],
        }


def task_sensitivity(*, task_slug: str, version: str | None = None) -> TaskSensitivity:
    """The sensitivity of the task's training board (its current version, or `version`): every accepted entry that
    meets the threshold, in the board's order. Raises UnknownLeaderboard for an unknown task or version."""
    task_version = board_version(task_slug, metric_slug=TRAINING_TIME.slug, version=version)
    rules = rules_of(task_version)
    board = leaderboard_entries(task_slug=task_slug, metric_slug=TRAINING_TIME.slug, version=task_version.version)
    columns, without_shifts = _board_columns(board)
    sensitivity = board_sensitivity(
        columns, rules.threshold, rules.scale, higher_is_better=rules.higher_is_better, moves_shown=MOVES_SHOWN
    )
    named = {move.entry for shift in sensitivity.shifts for move in shift.largest_moves}
    named.update(sensitivity.single_crossings)
    return TaskSensitivity(
        version=task_version,
        sensitivity=sensitivity,
        without_shifts=without_shifts,
        models=dict(board.filter(id__in=named).values_list("id", "model")) if named else {},
    )


# Each column of a board's read as one array, by the database: per vendor, its aggregate and a day number that
# orders dates as Python's ordinals do (PostgreSQL's date difference; SQLite's Julian day less that of day 0).
AGGREGATES = {"postgresql": "array_agg({})", "sqlite": "json_group_array({})"}
DAY_NUMBERS = {"postgresql": "{} - DATE '0001-01-01' + 1", "sqlite": "CAST(julianday({}) - 1721424.5 AS INTEGER)"}


def _board_columns(board: QuerySet[Entry]) -> tuple[BoardColumns, int]:
    """The board's entries with scores at the shifted thresholds as columns (`BoardColumns`), and how many have
    none. One query, whose one row holds each column as an array: at 100,000 entries a row per entry, a Python
    tuple each, cost more than the whole computation (PostgreSQL: 0.25 s for the rows of 60,000 training entries)."""
    names = ("id", "date", "time_to_accuracy_seconds", "single_crossing", *SHIFT_COLUMNS.values())
    sql, parameters = board.order_by().values_list(*names).query.sql_with_params()
    vendor = connection.vendor
    aggregate = AGGREGATES[vendor]
    selected = [
        aggregate.format(DAY_NUMBERS[vendor].format(f'board."{name}"') if name == "date" else f'board."{name}"')
        for name in names
    ]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(selected)} FROM ({sql}) board", parameters)
        arrays = [json.loads(value) if isinstance(value, str) else (value or []) for value in cursor.fetchone()]
    ids, days, seconds, single, *shifted = arrays
    shifted = [np.array(values, dtype=float) for values in shifted]  # None (never reached) reads as NaN
    computed = ~np.isnan(shifted[0])  # every entry reaches -1 point: NaN there is "not computed"
    columns = BoardColumns(
        ids=np.array(ids, dtype=np.int64)[computed],
        days=np.array(days, dtype=np.int64)[computed],
        seconds=np.array(seconds, dtype=float)[computed],
        shifted_seconds={key: values[computed] for key, values in zip(SHIFT_COLUMNS, shifted, strict=True)},
        single_crossing=np.array(single, dtype=bool)[computed],
    )
    return columns, int(len(ids) - computed.sum())
