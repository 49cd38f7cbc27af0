"""A task's threshold sensitivity: how its training board's order moves when the threshold moves by -1, -0.5, +0.5
and +1 point of the task's scale (`dawnboard.scoring.sensitivity`), from each entry's scores at the shifted
thresholds, which judging computed from every row of its logs as read (never from the thinned curve)."""

from __future__ import annotations

from dataclasses import dataclass

from dawnboard.metrics import TRAINING_TIME
from dawnboard.scoring.sensitivity import BoardSensitivity, RankedEntry, board_sensitivity
from leaderboard.models import TaskVersion
from leaderboard.selectors.boards import board_version, leaderboard_entries
from leaderboard.selectors.catalog import rules_of

MOVES_SHOWN = 5


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
            "shifts": shown["shifts"],
            "single_crossings": shown["single_crossings"],
        }


def task_sensitivity(*, task_slug: str, version: str | None = None) -> TaskSensitivity:
    """The sensitivity of the task's training board (its current version, or `version`): every accepted entry that
    meets the threshold, in the board's order. Raises UnknownLeaderboard for an unknown task or version."""
    task_version = board_version(task_slug, metric_slug=TRAINING_TIME.slug, version=version)
    rules = rules_of(task_version)
    board = leaderboard_entries(task_slug=task_slug, metric_slug=TRAINING_TIME.slug, version=task_version.version)
    rows = board.filter(threshold_shift_seconds__isnull=False).values_list(
        "id", "date", "time_to_accuracy_seconds", "threshold_shift_seconds", "single_crossing"
    )
    entries = [
        RankedEntry(id=entry_id, date=date, seconds=seconds, shifted_seconds=shifted, single_crossing=single)
        for entry_id, date, seconds, shifted, single in rows
    ]
    sensitivity = board_sensitivity(
        entries, rules.threshold, rules.scale, higher_is_better=rules.higher_is_better, moves_shown=MOVES_SHOWN
    )
    named = {move.entry for shift in sensitivity.shifts for move in shift.largest_moves}
    named.update(sensitivity.single_crossings)
    return TaskSensitivity(
        version=task_version,
        sensitivity=sensitivity,
        without_shifts=board.filter(threshold_shift_seconds__isnull=True).count(),
        models=dict(board.filter(id__in=named).values_list("id", "model")) if named else {},
    )
