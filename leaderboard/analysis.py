"""Leaderboard analysis in plain pandas and numpy: Pareto fronts, record progressions, and the thinning of a
scatter to the points a reader can tell apart (no Django)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def pareto_front(frame: pd.DataFrame, *, x: str, y: str) -> pd.Series:
    """Which rows no other row beats on both `x` and `y` (lower is better on both).

    Returns a boolean Series aligned with `frame`. Of rows with identical (x, y), only the first in
    the frame's order is marked, so the front is drawn once.
    """
    on_front = pareto_mask(frame[x].to_numpy(dtype=float), frame[y].to_numpy(dtype=float))
    return pd.Series(on_front, index=frame.index, dtype=bool)


def pareto_mask(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`pareto_front` over two arrays: a boolean mask of the points no other point beats on both (lower is
    better); of identical points only the first. A point missing either value (NaN) is never on the front."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.lexsort((np.arange(len(x)), y, x))  # by x, then y, then position (lexsort's last key leads)
    ordered_y = y[order]
    # A point is on the front when it beats the best y of every point before it (NaN x sorts last).
    best_before = np.concatenate(([np.inf], np.minimum.accumulate(np.nan_to_num(ordered_y, nan=np.inf))[:-1]))
    on_front = np.zeros(len(x), dtype=bool)
    on_front[order] = (ordered_y < best_before) & ~np.isnan(x[order])
    return on_front


def record_progression(frame: pd.DataFrame, *, value: str, date: str) -> pd.DataFrame:
    """The best value as it stood on each date, and which entries set a new record.

    Args:
        frame: one row per entry, with at least `value` and `date` columns.

    Returns:
        The rows sorted by date (stable, so earlier rows win ties), with `best` (the record on that
        date, counting that row) and `is_record` (the row beat every earlier one).
    """
    ordered = frame.take(np.argsort(frame[date].to_numpy(), kind="stable"))
    values = ordered[value].to_numpy(dtype=float)
    best = np.fmin.accumulate(values)
    previous_best = np.concatenate(([np.inf], best[:-1]))
    return ordered.assign(best=best, is_record=values < previous_best)


def record_steps(progression: pd.DataFrame) -> pd.DataFrame:
    """What a record chart needs of a progression: the rows that set a record, and the last row, which carries
    the step line to the latest date. On a board of 60,000 entries that is a few dozen rows."""
    is_last = np.arange(len(progression)) == len(progression) - 1
    return progression[progression["is_record"].to_numpy(dtype=bool) | is_last]


def record_setters(days: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The positions of the rows that set a record (`record_progression`'s `is_record`), in date order, without
    sorting the values: of the rows of one day the lowest value sets it, the earliest in the input on a tie.

    A board of 60,000 entries sets a few dozen records; sorting it by date alone and taking each day's minimum
    costs a third of a sort by date and value.

    Args:
        days: each row's date as a number (numpy days); values: each row's figure, lower is better.
    """
    if not len(values):
        return np.empty(0, dtype=np.int64)
    order = np.argsort(np.asarray(days).astype(np.int64), kind="stable")
    ordered_days, ordered_values = np.asarray(days)[order], np.asarray(values, dtype=float)[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered_days[1:] != ordered_days[:-1])))
    day_best = np.fmin.reduceat(ordered_values, starts)
    best_before = np.concatenate(([np.inf], np.fmin.accumulate(day_best)[:-1]))
    ends = np.append(starts[1:], len(ordered_values))
    new_record = day_best < best_before
    setters = [
        order[start + int(np.argmax(ordered_values[start:stop] == best))]  # the day's first row at its best
        for start, stop, best in zip(starts[new_record], ends[new_record], day_best[new_record], strict=True)
    ]
    return np.array(setters, dtype=np.int64)


def grid_cells(
    x: np.ndarray,
    y: np.ndarray,
    *,
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    cells: tuple[int, int],
) -> np.ndarray:
    """Each point's cell in a grid of `cells` (columns, rows) laid over the ranges, as one integer.

    Points outside the ranges (or at infinity) count in the edge cells, so every point has a cell.
    """
    columns, rows = cells
    return _cell_of(_in_cells(x, x_range, columns), _in_cells(y, y_range, rows), cells)


def _cell_of(across: np.ndarray, up: np.ndarray, cells: tuple[int, int]) -> np.ndarray:
    columns, rows = cells
    column = np.clip(np.floor(across), 0, columns - 1).astype(np.int64)
    return column * rows + np.clip(np.floor(up), 0, rows - 1).astype(np.int64)


def _in_cells(values: np.ndarray, value_range: tuple[float, float], count: int) -> np.ndarray:
    """Positions along one axis in cell widths from the range's low end; NaN counts as the low end."""
    low, high = value_range
    positions = (np.asarray(values, dtype=float) - low) / ((high - low) or 1.0) * count
    return np.nan_to_num(positions, nan=0.0, posinf=float(count), neginf=0.0)


def one_point_per_cell(
    x: np.ndarray,
    y: np.ndarray,
    *,
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    cells: tuple[int, int],
    keep: np.ndarray | None = None,
) -> np.ndarray:
    """Which points to draw so that no two drawn points share a grid cell, besides those in `keep`.

    Two points drawn within a few pixels of each other look like one and cannot be hovered apart, so a cell
    of a few pixels needs only one. The `keep` points (a Pareto front) are always drawn, and a cell that
    holds one draws no other. Elsewhere each occupied cell draws its point nearest the cell's centre (the
    earlier in the input order on a tie, so the same points always give the same drawing): a dense region
    then draws as an even lattice at the cell spacing, which markers wider than a cell fill in solid, as the
    full data did.

    Args:
        x, y: the points in the plot's coordinates (log10 of the values on a log axis).
        x_range, y_range: the axes' shown ranges in those coordinates.
        cells: the grid's columns and rows.
        keep: a boolean mask of points to draw whatever their cell.

    Returns:
        A boolean mask over the points.
    """
    count = len(x)
    keep = np.zeros(count, dtype=bool) if keep is None else np.asarray(keep, dtype=bool)
    if count == 0:
        return keep.copy()
    columns, rows = cells
    across = _in_cells(x, x_range, columns)
    up = _in_cells(y, y_range, rows)
    cell = _cell_of(across, up, cells)
    off_centre = (across % 1 - 0.5) ** 2 + (up % 1 - 0.5) ** 2  # at most 0.5
    # One sort on one key: by cell, then kept points first, then nearest the centre; a stable sort leaves ties
    # in the input order. (np.lexsort on the four keys took twice as long.)
    order = np.argsort(cell * 4.0 + np.where(keep, 0.0, 2.0) + off_centre, kind="stable")
    sorted_cells = cell[order]
    first_in_cell = np.ones(count, dtype=bool)
    first_in_cell[1:] = sorted_cells[1:] != sorted_cells[:-1]
    drawn = keep.copy()
    drawn[order[first_in_cell]] = True
    return drawn
