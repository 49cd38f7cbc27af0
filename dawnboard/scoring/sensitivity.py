"""Threshold sensitivity: how a training board's order would move if the threshold moved by a point or half a point.

Exact, from each run's log as read (never from a thinned curve): a run's time at a shifted threshold is the time of
its first evaluation reaching it, in seconds exactly as validation computes the official time
(`dawnboard.scoring.logged_seconds`); an entry's time there is its runs' score under the task version's
rule, the runs never reaching it counted as failed.

A board ranks entries by seconds, then date, then id, all ascending: a strict order (ids are unique), so ranks are
the positions 1..n and never tie. The official ranks are over every entry given; a shifted board's ranks are over
the entries reaching its threshold, by their seconds there, then date, then id.

Per shift, the Kendall tau between the official order and the shifted one is taken over the entries in both:
(concordant - discordant) / (n (n - 1) / 2) over their pairs (no ties, so tau-a and tau-b agree), None under two
entries. A rank move is an entry's place in the official order less its place in the shifted one, both counted
among those same entries: a change of order, never the gap an entry leaves when it does not reach a stricter
threshold (`ShiftSensitivity.dropped` counts those).

A run whose official crossing is followed by an evaluation below the threshold reached it in a single evaluation
(an evaluation's noise rather than a trained model, perhaps); its entry is flagged.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

from dawnboard.rules import RunsRule, Scale
from dawnboard.scoring import first_crossing, logged_seconds
from dawnboard.scoring.runs import score_of_runs

THRESHOLD_SHIFTS = (-1.0, -0.5, 0.5, 1.0)  # points of the task's scale


def point_of(scale: Scale) -> Decimal:
    """One point of a scale: 1 for PERCENT (one percentage point) and VALUE, 0.01 for FRACTION."""
    return Decimal("0.01") if Scale(scale) is Scale.FRACTION else Decimal(1)


def shift_key(delta: float) -> str:
    """The JSON key of a shift, signed, with its tenths: "-1.0", "-0.5", "+0.5", "+1.0" (never a whole number, which
    a database's JSON path would read as an array index)."""
    return f"{delta:+.1f}"


def shifted_thresholds(
    threshold: Decimal, scale: Scale, *, higher_is_better: bool = True
) -> list[tuple[float, Decimal]]:
    """Each shift of THRESHOLD_SHIFTS, in order, with its threshold as an exact Decimal.

    A positive shift is a stricter target: threshold + delta points for a metric where higher is better (an
    accuracy), threshold - delta points where lower is better (a loss).
    """
    point = point_of(scale) if higher_is_better else -point_of(scale)
    return [(delta, threshold + Decimal(f"{delta:g}") * point) for delta in THRESHOLD_SHIFTS]


@dataclass(frozen=True)
class RunShifts:
    """One run's seconds to reach each shifted threshold (None: never), by shift_key, and whether its official
    crossing is a single evaluation above the threshold (the next evaluation falls below it)."""

    seconds: dict[str, float | None]
    single_crossing: bool


def run_shifts(
    hours: np.ndarray, metric: np.ndarray, threshold: Decimal, scale: Scale, *, higher_is_better: bool = True
) -> RunShifts:
    """A DAWNBench run's times at the shifted thresholds, from its log's `hours` and `metric` columns.

    Args:
        hours: wall-clock hours of each evaluation, in log order.
        metric: the task's metric at each evaluation.
        threshold: the task version's official threshold.
        scale: the metric's scale, whose point a shift is counted in.
        higher_is_better: True for an accuracy (reaching is metric >= threshold, +delta raises the threshold);
            False for a loss (reaching is metric <= threshold, +delta lowers it). Either way +delta is stricter.
    """
    metric = np.asarray(metric, dtype=float)
    rows = len(hours)
    if len(metric) != rows:
        raise ValueError(f"A log has {rows} times but {len(metric)} metric values.")
    if rows == 0:
        return RunShifts(seconds={shift_key(delta): None for delta in THRESHOLD_SHIFTS}, single_crossing=False)
    # Negating is exact, so `-metric >= -t` is exactly `metric <= t`: first_crossing serves both directions.
    signed = metric if higher_is_better else -metric
    sign = 1 if higher_is_better else -1
    seconds: dict[str, float | None] = {}
    for delta, shifted in shifted_thresholds(threshold, scale, higher_is_better=higher_is_better):
        crossing = first_crossing(signed, sign * float(shifted))
        seconds[shift_key(delta)] = None if crossing is None else logged_seconds(hours[crossing])
    official = first_crossing(signed, sign * float(threshold))
    single = official is not None and official + 1 < rows and signed[official + 1] < sign * float(threshold)
    return RunShifts(seconds=seconds, single_crossing=bool(single))


def entry_shifts(runs: Sequence[RunShifts], rule: RunsRule) -> dict[str, float | None]:
    """The entry's score at each shifted threshold, by shift_key: `score_of_runs` over the runs reaching it, the
    others counted as failed (None where the rule then gives no score)."""
    scores: dict[str, float | None] = {}
    for delta in THRESHOLD_SHIFTS:
        key = shift_key(delta)
        times = [run.seconds.get(key) for run in runs]
        reached = [time for time in times if time is not None]
        scores[key] = score_of_runs(rule, reached, failed=len(times) - len(reached))
    return scores


def entry_single_crossing(runs: Sequence[RunShifts]) -> bool:
    """Whether any of the entry's runs reached the official threshold in a single evaluation."""
    return any(run.single_crossing for run in runs)


@dataclass(frozen=True)
class RankedEntry:
    """An entry on a board: its seconds at the official threshold and at each shifted one (by shift_key; None or
    absent: never reached), and whether it is flagged as a single crossing."""

    id: int
    date: datetime.date
    seconds: float
    shifted_seconds: Mapping[str, float | None]
    single_crossing: bool = False


@dataclass(frozen=True)
class RankMove:
    """An entry's rank among the entries ranked at both thresholds, in the official order and in the shifted one;
    `move` = official - shifted (positive: up). Counted among those entries alone, a move is a change of order,
    never the gap left by entries that do not reach the shifted threshold (`ShiftSensitivity.dropped` counts them)."""

    entry: int
    official_rank: int
    shifted_rank: int
    move: int

    def as_dict(self) -> dict[str, int]:
        return {
            "entry": self.entry,
            "official_rank": self.official_rank,
            "shifted_rank": self.shifted_rank,
            "move": self.move,
        }


@dataclass(frozen=True)
class ShiftSensitivity:
    """A board at one shifted threshold.

    Attributes:
        delta: the shift, in points of the task's scale.
        threshold: the shifted threshold.
        kendall_tau: between the official order and this one over the entries in both; None under two.
        entries_ranked: how many entries reach the shifted threshold.
        largest_moves: the entries whose rank moves most (|move| descending, then official rank), no zero move.
        dropped: entries ranked officially but never reaching the shifted threshold.
    """

    delta: float
    threshold: Decimal
    kendall_tau: float | None
    entries_ranked: int
    largest_moves: tuple[RankMove, ...]
    dropped: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "delta": self.delta,
            "threshold": float(self.threshold),
            "kendall_tau": self.kendall_tau,
            "entries_ranked": self.entries_ranked,
            "largest_moves": [move.as_dict() for move in self.largest_moves],
            "dropped": self.dropped,
        }


@dataclass(frozen=True)
class BoardSensitivity:
    """A board's sensitivity to its threshold: one ShiftSensitivity per shift, in THRESHOLD_SHIFTS order, the ids
    of its single-crossing entries in official order, and how many entries it ranks officially."""

    threshold: Decimal
    shifts: tuple[ShiftSensitivity, ...]
    single_crossings: tuple[int, ...]
    entries: int

    def as_dict(self) -> dict[str, Any]:
        """The API's fields but the task and version, which the caller adds."""
        return {
            "threshold": float(self.threshold),
            "shifts": [shift.as_dict() for shift in self.shifts],
            "single_crossings": list(self.single_crossings),
        }


@dataclass(frozen=True)
class BoardColumns:
    """A board as columns, an entry a row: ids, dates (as ordinals), seconds at the official threshold, seconds at
    each shifted one by shift_key (NaN: never reached) and single-crossing flags. What a database read fills
    directly, without an object per entry."""

    ids: np.ndarray
    days: np.ndarray
    seconds: np.ndarray
    shifted_seconds: Mapping[str, np.ndarray]
    single_crossing: np.ndarray

    @classmethod
    def of_entries(cls, entries: Sequence[RankedEntry]) -> BoardColumns:
        count = len(entries)
        return cls(
            ids=np.fromiter((entry.id for entry in entries), dtype=np.int64, count=count),
            days=np.fromiter((entry.date.toordinal() for entry in entries), dtype=np.int64, count=count),
            seconds=np.fromiter((entry.seconds for entry in entries), dtype=float, count=count),
            shifted_seconds={shift_key(delta): _seconds_at(entries, shift_key(delta)) for delta in THRESHOLD_SHIFTS},
            single_crossing=np.fromiter((entry.single_crossing for entry in entries), dtype=bool, count=count),
        )


def board_sensitivity(
    entries: Sequence[RankedEntry] | BoardColumns,
    threshold: Decimal,
    scale: Scale,
    *,
    moves_shown: int = 5,
    higher_is_better: bool = True,
) -> BoardSensitivity:
    """The sensitivity of a board of `entries` (each reaching the official `threshold`) to its threshold.

    Vectorised (a sort per board and scipy's O(n log n) Kendall tau; no loop over pairs), for boards of 100,000s.

    Args:
        entries: the board's entries, in any order, ids unique: as objects, or as columns (`BoardColumns`).
        threshold: the official threshold.
        scale: the metric's scale, whose point a shift is counted in.
        moves_shown: how many of the largest rank moves each shift keeps.
        higher_is_better: the metric's direction, for the shifted thresholds reported (see `shifted_thresholds`).
    """
    board = entries if isinstance(entries, BoardColumns) else BoardColumns.of_entries(entries)
    ids, days, seconds = board.ids, board.days, board.seconds
    official_rank = _ranks(seconds, days, ids)
    shifts = tuple(
        _shift_sensitivity(
            delta,
            shifted,
            board.shifted_seconds[shift_key(delta)],
            ids=ids,
            days=days,
            official_rank=official_rank,
            moves_shown=moves_shown,
        )
        for delta, shifted in shifted_thresholds(threshold, scale, higher_is_better=higher_is_better)
    )
    flagged = board.single_crossing
    single = ids[flagged][np.argsort(official_rank[flagged])]
    return BoardSensitivity(
        threshold=threshold, shifts=shifts, single_crossings=tuple(single.tolist()), entries=len(ids)
    )


def _seconds_at(entries: Sequence[RankedEntry], key: str) -> np.ndarray:
    """Each entry's seconds at one shift, NaN where it never reaches it."""
    values = (entry.shifted_seconds.get(key) for entry in entries)
    return np.fromiter((math.nan if value is None else value for value in values), dtype=float, count=len(entries))


def _positions(ranks: np.ndarray) -> np.ndarray:
    """Distinct ranks renumbered 1..n in their order."""
    order = np.argsort(ranks)
    positions = np.empty(len(order), dtype=np.int64)
    positions[order] = np.arange(1, len(order) + 1)
    return positions


def _ranks(seconds: np.ndarray, days: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Each entry's position 1..n on the board ordered by seconds, then date, then id."""
    order = np.lexsort((ids, days, seconds))
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(1, len(order) + 1)
    return ranks


def _shift_sensitivity(
    delta: float,
    threshold: Decimal,
    shifted_seconds: np.ndarray,
    *,
    ids: np.ndarray,
    days: np.ndarray,
    official_rank: np.ndarray,
    moves_shown: int,
) -> ShiftSensitivity:
    reaching = ~np.isnan(shifted_seconds)
    official = _positions(official_rank[reaching])  # the board's order restricted to them: one sort of integers
    shifted = _ranks(shifted_seconds[reaching], days[reaching], ids[reaching])
    tau = None
    if len(shifted) >= 2:
        from scipy.stats import kendalltau  # ~0.5 s to import: only when a board is read

        tau = float(kendalltau(official, shifted).statistic)
    moves = official - shifted
    moved = np.flatnonzero(moves)
    shown = moved[np.lexsort((official[moved], -np.abs(moves[moved])))][: max(moves_shown, 0)]
    reaching_ids = ids[reaching]
    largest = tuple(
        RankMove(
            entry=int(reaching_ids[index]),
            official_rank=int(official[index]),
            shifted_rank=int(shifted[index]),
            move=int(moves[index]),
        )
        for index in shown
    )
    return ShiftSensitivity(
        delta=delta,
        threshold=threshold,
        kendall_tau=tau,
        entries_ranked=len(shifted),
        largest_moves=largest,
        dropped=len(ids) - len(shifted),
    )
