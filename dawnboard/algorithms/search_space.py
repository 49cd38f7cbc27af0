"""A search space in AlgoPerf's JSON, and the trials drawn from it for external tuning.

Two forms, as AlgoPerf reads them:

- an object of hyperparameters, each a range `{"min", "max", "scaling": "linear" | "log"}` or a set of
  `{"feasible_points": [...]}`: trials are quasi-random points of it, a Halton sequence (the k-th point's i-th
  coordinate is k's radical inverse in the i-th prime base), rotated by a uniform shift drawn from the study's seed
  (Cranley-Patterson rotation) so that each study draws its own trials while every study keeps the sequence's even
  cover; a coordinate picks a feasible point by its share of the unit interval;
- a list of fixed points (objects of hyperparameter values): the trials are its first N points, in order.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71)


class SearchSpaceError(ValueError):
    """A search space that cannot be read; the message names the hyperparameter."""


@dataclass(frozen=True)
class Dimension:
    name: str
    low: float | None = None
    high: float | None = None
    scaling: str = "linear"
    feasible_points: tuple[Any, ...] = ()

    def at(self, unit: float) -> Any:
        """The value at `unit` in [0, 1)."""
        if self.feasible_points:
            return self.feasible_points[min(int(unit * len(self.feasible_points)), len(self.feasible_points) - 1)]
        if self.scaling == "log":
            return math.exp(math.log(self.low) + unit * (math.log(self.high) - math.log(self.low)))
        return self.low + unit * (self.high - self.low)


@dataclass(frozen=True)
class SearchSpace:
    dimensions: tuple[Dimension, ...] = ()
    fixed_points: tuple[dict[str, Any], ...] = ()

    def trials(self, count: int, *, seed: int) -> list[dict[str, Any]]:
        """`count` points: the fixed ones in order (as many as there are), or Halton points shifted by `seed`."""
        if self.fixed_points:
            return [dict(point) for point in self.fixed_points[:count]]
        shift = random.Random(seed)
        shifts = [shift.random() for _ in self.dimensions]
        return [
            {
                dimension.name: dimension.at((radical_inverse(index, PRIMES[axis]) + shifts[axis]) % 1.0)
                for axis, dimension in enumerate(self.dimensions)
            }
            for index in range(1, count + 1)
        ]


def radical_inverse(index: int, base: int) -> float:
    """`index`'s digits in `base` mirrored about the point: 1 -> 1/2, 2 -> 1/4, 3 -> 3/4 in base 2."""
    value, scale = 0.0, 1.0 / base
    while index:
        index, digit = divmod(index, base)
        value += digit * scale
        scale /= base
    return value


def search_space(document: Any) -> SearchSpace:
    """Read a search space document (parsed JSON). Raises SearchSpaceError naming what is wrong."""
    if isinstance(document, list):
        if not document or not all(isinstance(point, Mapping) and point for point in document):
            raise SearchSpaceError("A list search space holds fixed points: objects of hyperparameter values.")
        return SearchSpace(fixed_points=tuple(dict(point) for point in document))
    if not isinstance(document, Mapping) or not document:
        raise SearchSpaceError("A search space is an object of hyperparameters or a list of fixed points.")
    if len(document) > len(PRIMES):
        raise SearchSpaceError(f"At most {len(PRIMES)} hyperparameters are searched; this space has {len(document)}.")
    return SearchSpace(dimensions=tuple(_dimension(name, spec) for name, spec in document.items()))


def _dimension(name: str, spec: Any) -> Dimension:
    if not isinstance(spec, Mapping):
        raise SearchSpaceError(f"{name}: a range {{min, max, scaling}} or {{feasible_points}} is expected.")
    if "feasible_points" in spec:
        points = spec["feasible_points"]
        if not isinstance(points, list) or not points:
            raise SearchSpaceError(f"{name}: feasible_points is a non-empty list.")
        return Dimension(name, feasible_points=tuple(points))
    low, high, scaling = spec.get("min"), spec.get("max"), spec.get("scaling", "linear")
    numbers = all(isinstance(value, int | float) and not isinstance(value, bool) for value in (low, high))
    if not numbers or not low <= high:
        raise SearchSpaceError(f"{name}: min and max are numbers, min <= max.")
    if scaling not in ("linear", "log"):
        raise SearchSpaceError(f"{name}: scaling is linear or log, not {scaling!r}.")
    if scaling == "log" and low <= 0:
        raise SearchSpaceError(f"{name}: a log range needs min > 0.")
    return Dimension(name, float(low), float(high), scaling)
