"""Leaderboard analysis in plain pandas: Pareto fronts and record progressions (no Django)."""

from __future__ import annotations

import pandas as pd


def pareto_front(frame: pd.DataFrame, *, x: str, y: str) -> pd.Series:
    """Which rows no other row beats on both `x` and `y` (lower is better on both).

    Returns a boolean Series aligned with `frame`. Of rows with identical (x, y), only the first in
    the frame's order is marked, so the front is drawn once.
    """
    if frame.empty:
        return pd.Series(dtype=bool, index=frame.index)
    order = frame.sort_values([x, y], kind="stable")
    best_so_far = order[y].astype(float).cummin().shift(fill_value=float("inf"))
    on_front = order[y] < best_so_far
    return on_front.reindex(frame.index)


def record_progression(frame: pd.DataFrame, *, value: str, date: str) -> pd.DataFrame:
    """The best value as it stood on each date, and which entries set a new record.

    Args:
        frame: one row per entry, with at least `value` and `date` columns.

    Returns:
        The rows sorted by date (stable, so earlier rows win ties), with `best` (the record on that
        date, counting that row) and `is_record` (the row beat every earlier one).
    """
    ordered = frame.sort_values(date, kind="stable").copy()
    previous_best = ordered[value].astype(float).cummin().shift(fill_value=float("inf"))
    ordered["best"] = ordered[value].cummin()
    ordered["is_record"] = ordered[value] < previous_best
    return ordered
