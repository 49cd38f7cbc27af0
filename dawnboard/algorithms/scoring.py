"""AlgoPerf's scoring rules as arithmetic, and the machine-independent figures Dawnboard adds to them.

- A trial reaches its workload's target at its first evaluation whose metric is at or above the target (at or
  below, for a metric to minimise): its time to target is that evaluation's accumulated submission time
  (`Target.reached` is the one comparison, which the runner uses to stop and the scorer to score).
- A study's time is the fastest of its trials' times (the minimum over times, not the time of a trial picked by
  its label); a study where no trial reached the target takes infinity.
- A workload's time is the median of its studies' times, infinities counted (AlgoPerf's published scoring once
  took the time-to-best of the best trial over all studies instead; its rules say this).
- The performance profile: for each workload, r = time / the fastest submission's time, infinite where it is more
  than `MAX_TAU` (4) times the fastest or never reached; rho(tau) is the share of the fixed set of workloads with
  r <= tau (a workload a submission has no result for counts as never reached). The benchmark score is the area
  under rho over `PROFILE_POINTS` (100) evenly spaced tau in [1, 4] by the trapezoid rule, divided by 3: 1 for a
  submission fastest everywhere, 0 for one within 4x of the fastest nowhere.
- Held-out variants (AlgoPerf v0.5): a base workload's time counts only where the same trials also reached the
  target of its sampled variant (another activation, normalisation or width, never tuned on); else it is infinite.
  In a profile, in the order of AlgoPerf v0.5's scoring (mlcommons/submissions_algorithms@12c8e4e,
  scoring/performance_profile.py), which reproduces its published scores: a variant is infinite where its base is;
  the 4x cut applies to every workload, variants included (each against the fastest time on that variant); then a
  base is infinite where its variant is; the variants themselves are not profiled.
- Because a profile scores submissions only against each other, Dawnboard also reports each workload's speedup
  over a named reference run on the same machine (reference time / time) and their geometric mean, which sit on
  one board whatever machine each pair ran on.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dawnboard.algorithms.trial_log import TrialLog

MAX_TAU = 4.0
PROFILE_POINTS = 100


@dataclass(frozen=True)
class Target:
    """A workload's validation target: its metric column, the value, and the metric's direction."""

    metric: str  # a trial log column, e.g. "validation/accuracy"
    value: float
    higher_is_better: bool = True

    def reached(self, value: float) -> bool:
        """Whether a metric value meets the target (>= or <=); NaN never does."""
        if math.isnan(value):
            return False
        return value >= self.value if self.higher_is_better else value <= self.value


def time_to_target(log: TrialLog, target: Target, budget_s: float = math.inf) -> float | None:
    """The accumulated submission time of the trial's first evaluation that reaches the target, or None; one past
    `budget_s` counts as never reached (AlgoPerf's rules; its scoring code never checks, and its v0.5 runner could
    evaluate once after the budget ran out)."""
    for time, value in zip(log.times, log.metric(target.metric), strict=True):
        if target.reached(float(value)):
            return float(time) if within_budget(float(time), budget_s) else None
    return None


def within_budget(seconds: float, budget_s: float) -> bool:
    """The runner's and the scorer's one rule of the clock's end: a result at or before the budget counts."""
    return seconds <= budget_s


def study_time(trial_times: Sequence[float | None]) -> float:
    """The fastest trial's time to target; infinity when no trial reached it."""
    return min((time for time in trial_times if time is not None), default=math.inf)


def workload_time(study_times: Sequence[float]) -> float:
    """The median over studies, a study that never reached the target counted as infinitely slow."""
    if not study_times:
        return math.inf
    return float(statistics.median(study_times))


def held_out_gated(times: Mapping[str, float], variants: Mapping[str, str]) -> dict[str, float]:
    """AlgoPerf v0.5's held-out rule: the base workloads' times, each infinite where its sampled held-out variant
    (`variants`: variant -> base) was never reached; the variants themselves left out (they are not scored)."""
    gated = {name: time for name, time in times.items() if name not in variants}
    for variant, base in variants.items():
        if base in gated and not math.isfinite(times.get(variant, math.inf)):
            gated[base] = math.inf
    return gated


@dataclass(frozen=True)
class Profiles:
    """Performance profiles of several submissions over a fixed set of workloads.

    Attributes:
        taus: the PROFILE_POINTS values of tau, from 1 to MAX_TAU.
        ratios: each submission's r per workload (time / the fastest time; infinite past MAX_TAU or never reached).
        rho: each submission's share of workloads with r <= tau, at each tau.
    """

    taus: np.ndarray
    ratios: dict[str, dict[str, float]]
    rho: dict[str, np.ndarray]

    def score(self, submission: str) -> float:
        """The benchmark score: the trapezoid area under rho over [1, MAX_TAU], divided by MAX_TAU - 1."""
        return float(np.trapezoid(self.rho[submission], self.taus) / (self.taus[-1] - self.taus[0]))

    def scores(self) -> dict[str, float]:
        return {submission: self.score(submission) for submission in self.rho}


def performance_profiles(
    times: Mapping[str, Mapping[str, float]],
    workloads: Sequence[str],
    *,
    variants: Mapping[str, str] | None = None,
    max_tau: float = MAX_TAU,
    points: int = PROFILE_POINTS,
) -> Profiles:
    """The profiles of `times` (submission -> workload -> time to target, infinity where never reached) over the
    fixed list of `workloads`; a workload missing from a submission's times counts as never reached. `variants`
    (held-out variant -> its base, among `times`' columns) gate their bases in AlgoPerf's order."""
    if not workloads:
        raise ValueError("A performance profile needs at least one workload.")
    if variants:
        times = _variants_gated(times, variants, max_tau)
    fastest = {
        workload: min((float(times[name].get(workload, math.inf)) for name in times), default=math.inf)
        for workload in workloads
    }
    ratios = {
        name: {
            workload: _ratio(float(times[name].get(workload, math.inf)), fastest[workload], max_tau)
            for workload in workloads
        }
        for name in times
    }
    taus = np.linspace(1.0, max_tau, points)
    rho = {
        name: np.array([sum(r <= tau for r in ratios[name].values()) / len(workloads) for tau in taus])
        for name in times
    }
    return Profiles(taus=taus, ratios=ratios, rho=rho)


def _variants_gated(
    times: Mapping[str, Mapping[str, float]], variants: Mapping[str, str], max_tau: float
) -> dict[str, dict[str, float]]:
    gated = {name: {w: float(t) for w, t in by_workload.items()} for name, by_workload in times.items()}
    for by_workload in gated.values():
        for variant, base in variants.items():
            if not math.isfinite(by_workload.get(base, math.inf)):
                by_workload[variant] = math.inf
    for workload in {workload for by_workload in gated.values() for workload in by_workload}:
        fastest = min(by_workload.get(workload, math.inf) for by_workload in gated.values())
        for by_workload in gated.values():
            if workload in by_workload and not math.isfinite(_ratio(by_workload[workload], fastest, max_tau)):
                by_workload[workload] = math.inf
    for by_workload in gated.values():
        for variant, base in variants.items():
            if variant in by_workload and not math.isfinite(by_workload[variant]):
                by_workload[base] = math.inf
    return gated


def _ratio(time: float, fastest: float, max_tau: float) -> float:
    if not math.isfinite(time) or not math.isfinite(fastest):
        return math.inf
    ratio = time / fastest if fastest > 0 else (1.0 if time == 0 else math.inf)
    return ratio if ratio <= max_tau else math.inf


@dataclass(frozen=True)
class Speedups:
    """Each workload's speedup over the reference (reference time / time; None where either never reached it), and
    their geometric mean over the workloads the reference reached, or None when the algorithm missed one of those
    (a speedup of zero has no geometric mean worth printing)."""

    per_workload: dict[str, float | None]
    geometric_mean: float | None


def speedups(times: Mapping[str, float], reference: Mapping[str, float], workloads: Sequence[str]) -> Speedups:
    per_workload: dict[str, float | None] = {}
    for workload in workloads:
        time, base = times.get(workload, math.inf), reference.get(workload, math.inf)
        per_workload[workload] = base / time if math.isfinite(time) and math.isfinite(base) and time > 0 else None
    counted = [workload for workload in workloads if math.isfinite(reference.get(workload, math.inf))]
    values = [per_workload[workload] for workload in counted]
    if not counted or any(value is None for value in values):
        return Speedups(per_workload, None)
    return Speedups(per_workload, float(math.exp(sum(math.log(value) for value in values) / len(values))))
