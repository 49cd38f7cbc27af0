"""Two sides timed against each other on a shared, noisy machine: in pairs, the side that goes first alternating."""

from __future__ import annotations

from collections.abc import Callable


def alternating_pairs(
    first: Callable[[], float], second: Callable[[], float], *, rounds: int
) -> list[tuple[float, float]]:
    """`rounds` pairs (first's figure, second's): `first` runs first in even rounds, `second` in odd ones, so that a
    drift in the machine's load falls on both sides alike."""
    pairs = []
    for round_number in range(rounds):
        if round_number % 2:
            second_figure = second()
            pairs.append((first(), second_figure))
        else:
            first_figure = first()
            pairs.append((first_figure, second()))
    return pairs
