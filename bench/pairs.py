"""Two sides timed against each other on a shared, noisy machine: in pairs, the side that goes first alternating.
How many pairs, and what they say about a goal, is `bench.goals`'s rule."""

from __future__ import annotations

from collections.abc import Callable


def one_pair(first: Callable[[], float], second: Callable[[], float], round_number: int) -> tuple[float, float]:
    """(first's figure, second's) of round `round_number`: `first` runs first in even rounds, `second` in odd ones,
    so that a drift in the machine's load falls on both sides alike."""
    if round_number % 2:
        second_figure = second()
        return first(), second_figure
    first_figure = first()
    return first_figure, second()


def alternating_pairs(
    first: Callable[[], float], second: Callable[[], float], *, rounds: int
) -> list[tuple[float, float]]:
    """`rounds` pairs (first's figure, second's), the order alternating as in `one_pair`."""
    return [one_pair(first, second, round_number) for round_number in range(rounds)]
