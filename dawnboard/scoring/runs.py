"""Several runs, one score: the median (DAWNBench here), MLPerf Training's olympic mean, and the spread shown
beside either (min, max, coefficient of variation, a seeded 95 % bootstrap interval of the median).

A failed run has no time; it counts as slower than every run that succeeded. So a median that falls on a failed
run gives no score, and the olympic mean drops failed runs first from its slow end, as MLCommons' result
summarizer does (`mlperf_logging/result_summarizer/result_summarizer.py`, `_compute_olympic_average`, in
mlperf-logging 4.1.68).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dawnboard.rules import Aggregate, RunsRule

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20180501  # fixed, so the interval printed on a page is the same every time it is computed
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Spread:
    """How an entry's runs spread around its score. Times in the unit they were given in.

    `interval_low`/`interval_high` bound a 95 % bootstrap interval of the median (None where it is unbounded: a
    failed run among the resamples' medians); `coefficient_of_variation` is the sample standard deviation over
    the mean of the successful runs (None under two).
    """

    runs: int
    successful: int
    minimum: float | None
    maximum: float | None
    coefficient_of_variation: float | None
    interval_low: float | None
    interval_high: float | None

    def as_dict(self) -> dict:
        return {
            "runs": self.runs,
            "successful_runs": self.successful,
            "min": self.minimum,
            "max": self.maximum,
            "coefficient_of_variation": self.coefficient_of_variation,
            "interval_95_low": self.interval_low,
            "interval_95_high": self.interval_high,
        }


def median_of_runs(times: Sequence[float], *, failed: int) -> float | None:
    """The median of all runs, a failed run counting as slower than any success; None when it falls on one."""
    ordered = sorted(times) + [math.inf] * failed
    if not ordered:
        return None
    middle = len(ordered) // 2
    value = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return None if math.isinf(value) else value


def olympic_mean(times: Sequence[float], *, failed: int, dropped_each_side: int) -> float | None:
    """MLPerf Training's score: sort the successful times, drop the `dropped_each_side` fastest and as many
    slowest less the failed runs (already dropped), average the rest. More failed runs than `dropped_each_side`,
    or nothing left to average, gives None."""
    if failed > dropped_each_side:
        return None
    ordered = sorted(times)
    kept = ordered[dropped_each_side : len(ordered) - (dropped_each_side - failed)]
    if not kept:
        return None
    return sum(kept) / len(kept)


def score_of_runs(rule: RunsRule, times: Sequence[float], *, failed: int) -> float | None:
    """The entry's score under its task version's rule, or None when its runs leave it without one."""
    if rule.aggregate == Aggregate.OLYMPIC_MEAN:
        return olympic_mean(times, failed=failed, dropped_each_side=rule.dropped_each_side)
    return median_of_runs(times, failed=failed)


def spread_of_runs(times: Sequence[float], *, failed: int) -> Spread:
    """The spread of runs with these successful `times` and `failed` runs beside them."""
    successful = len(times)
    cv = None
    if successful >= 2:
        mean = statistics.fmean(times)
        cv = statistics.stdev(times) / mean if mean > 0 else None
    low, high = bootstrap_median_interval(times, failed=failed)
    return Spread(
        runs=successful + failed,
        successful=successful,
        minimum=min(times) if times else None,
        maximum=max(times) if times else None,
        coefficient_of_variation=cv,
        interval_low=low,
        interval_high=high,
    )


def bootstrap_median_interval(
    times: Sequence[float], *, failed: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> tuple[float | None, float | None]:
    """A percentile bootstrap 95 % interval of the median of all runs (a failed run as +inf), seeded.

    One run gives that run's time as both bounds; a bound that falls on a failed run is None (unbounded).
    """
    values = np.array([*times, *([math.inf] * failed)], dtype=float)
    if values.size == 0:
        return None, None
    if values.size == 1:
        only = float(values[0])
        return (None, None) if math.isinf(only) else (only, only)
    rng = np.random.default_rng(seed)
    samples = rng.choice(values, size=(resamples, values.size), replace=True)
    medians = np.median(samples, axis=1)  # a median between a time and +inf is +inf
    tail = (1 - CONFIDENCE) / 2
    low = float(np.quantile(medians, tail, method="lower"))
    high = float(np.quantile(medians, 1 - tail, method="higher"))
    return _finite(low), _finite(high)


def tied_with_above(*, above_high: float | None, low: float | None) -> bool:
    """Whether an entry cannot be told apart from the one ranked just above it: its interval starts at or before
    the other's ends (`above_high`; None: unbounded, a failed run among the medians). An entry with no interval
    (`low` None) is never marked tied."""
    if low is None:
        return False
    return above_high is None or low <= above_high


def _finite(value: float) -> float | None:
    return None if math.isinf(value) or math.isnan(value) else value
