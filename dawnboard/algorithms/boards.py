"""An algorithm board: the results of one suite under one ruleset scored together by AlgoPerf's performance profile.

A profile scores results against each other, so it needs times that compare:
- AlgoPerf's own results ran on one reference system by its rules: their times are compared as they are;
- results bundles ran on their submitters' machines, each beside a reference baseline run on the same machine in the
  same call: each workload's time is compared as a multiple of its own reference's time (where the reference never
  reached the target, of the workload's budget), which does not depend on the machine. The board's score of a bundle
  is therefore its profile against the others' reference-normalised times; the bundle's own score against its
  reference, and its geometric-mean speedup over it, are shown beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dawnboard.algorithms.scoring import performance_profiles
from dawnboard.algorithms.suites import SuiteRules


@dataclass(frozen=True)
class ScoredResult:
    """One result as a board reads it: `times` per workload in seconds (None: never reached), its reference's where
    it ran beside one, and the held-out variants it ran (variant -> base)."""

    key: str
    times: Mapping[str, float | None]
    reference_times: Mapping[str, float | None] | None = None
    held_out: Mapping[str, str] | None = None


@dataclass(frozen=True)
class Board:
    """The board's scores (key -> benchmark score), the profiles drawn (tau and each key's rho), each key's ratio r
    per base workload, and whether times were compared as multiples of their references."""

    workloads: list[str]
    scores: dict[str, float]
    taus: np.ndarray
    rho: dict[str, np.ndarray]
    ratios: dict[str, dict[str, float]]
    normalised: bool

    def order(self) -> list[str]:
        """Keys from the best score down (ties in the order given)."""
        return sorted(self.scores, key=lambda key: -self.scores[key])


def score_board(results: Sequence[ScoredResult], suite: SuiteRules, ruleset: str) -> Board | None:
    """The board of `results` (None when there are none)."""
    if not results:
        return None
    normalised = all(result.reference_times is not None for result in results)
    times = {
        result.key: _normalised(result, suite, ruleset) if normalised else _seconds(result.times) for result in results
    }
    variants = {variant: base for result in results for variant, base in (result.held_out or {}).items()}
    if suite.scored_variants:
        variants |= {variant: base for variant, base in suite.variants.items() if _ran_by_any(variant, times)}
    profiles = performance_profiles(times, suite.base_workloads, variants=variants)
    return Board(
        workloads=suite.base_workloads, scores=profiles.scores(), taus=profiles.taus, rho=profiles.rho,
        ratios=profiles.ratios, normalised=normalised,
    )  # fmt: skip


def _ran_by_any(variant: str, times: Mapping[str, Mapping[str, float]]) -> bool:
    return any(variant in by_workload for by_workload in times.values())


def _seconds(times: Mapping[str, float | None]) -> dict[str, float]:
    return {workload: math.inf if time is None else float(time) for workload, time in times.items()}


def _normalised(result: ScoredResult, suite: SuiteRules, ruleset: str) -> dict[str, float]:
    """Each workload's time as a multiple of its reference's (of the budget where the reference never reached it)."""
    reference = _seconds(result.reference_times or {})
    normalised = {}
    for workload, time in _seconds(result.times).items():
        scale = reference.get(workload, math.inf)
        if not (math.isfinite(scale) and scale > 0):
            scale = _budget(suite, workload, ruleset)
        normalised[workload] = time / scale
    return normalised


def _budget(suite: SuiteRules, workload: str, ruleset: str) -> float:
    try:
        return suite.budget_s(workload, ruleset)
    except KeyError:
        return math.inf
