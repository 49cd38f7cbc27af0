"""Latency statistics of a one-item-at-a-time pass: DAWNBench's mean, MLPerf SingleStream's 90th percentile,
and the rest of the distribution.

Percentiles are nearest-rank (`inverted_cdf`): p90 is the smallest measured latency with at least 90 % of
the items at or below it, a latency some item really had, as MLPerf's LoadGen reports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

NS_PER_MS = 1_000_000
HISTOGRAM_BINS = 40


@dataclass(frozen=True)
class LatencySummary:
    items: int
    mean_ms: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    histogram_edges_ms: tuple[float, ...]
    histogram_counts: tuple[int, ...]

    @classmethod
    def of(cls, latencies_ns: Sequence[int], bins: int = HISTOGRAM_BINS) -> LatencySummary:
        """The summary of per-item latencies in nanoseconds. Raises ValueError for none."""
        if len(latencies_ns) == 0:
            raise ValueError("No item was timed.")
        ms = np.asarray(latencies_ns, dtype=np.float64) / NS_PER_MS
        p50, p90, p99 = np.percentile(ms, [50, 90, 99], method="inverted_cdf")
        low, high = float(ms.min()), float(ms.max())
        # Every item as fast as every other: one narrow range, not numpy's default of +-0.5 ms around it.
        counts, edges = np.histogram(ms, bins=bins, range=(low, high) if high > low else (low, low * 1.001 + 1e-9))
        return cls(
            items=len(ms),
            mean_ms=float(ms.mean()),
            p50_ms=float(p50),
            p90_ms=float(p90),
            p99_ms=float(p99),
            max_ms=float(ms.max()),
            histogram_edges_ms=tuple(float(edge) for edge in edges),
            histogram_counts=tuple(int(count) for count in counts),
        )

    def percentiles(self) -> dict[str, float]:
        """The figures as the run record and `--json` give them."""
        return {"mean": self.mean_ms, "p50": self.p50_ms, "p90": self.p90_ms, "p99": self.p99_ms, "max": self.max_ms}

    def histogram(self) -> dict[str, list]:
        return {"edges_ms": list(self.histogram_edges_ms), "counts": list(self.histogram_counts)}
