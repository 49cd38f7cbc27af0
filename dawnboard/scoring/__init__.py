"""The DAWNBench rules as arithmetic: units, time to accuracy, and every cost formula. Money is Decimal.

- time to accuracy: the `hours` of the first evaluation, in log order, at or above the threshold
  (DAWNBench's rule; validation time is excluded by the submitter's clock);
- training cost: hours x USD per hour (x machines);
- inference cost per item: latency x the price of one second of the machine(s);
- inference cost per 10,000 items: cost per item x 10,000 (DAWNBench's board unit); at single stream (DAWNBench's,
  one item at a time) the item's cost is its mean latency's, at throughput (items served in batches, MLPerf's
  Offline) the machine's time per item is 1 / samples per second.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

SECONDS_PER_HOUR = 3600
MS_PER_SECOND = 1000
ITEMS_PER_INFERENCE_COST = 10_000


@dataclass(frozen=True)
class HourlyPrice:
    """An hourly price a cost is reckoned at, where it comes from, and the catalog instance it is the on-demand
    price of ("aws/c5.large"; None for a price given as it is): what `measure_inference` and `run_reference`
    price a run at."""

    usd_per_hour: Decimal
    source: str
    instance: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"usd_per_hour": float(self.usd_per_hour), "source": self.source, "instance": self.instance}


def first_crossing(metric: np.ndarray, threshold: float) -> int | None:
    """Index of the first row, in file order, whose metric reaches the threshold (DAWNBench's TTA row)."""
    reached = metric >= threshold
    index = int(np.argmax(reached))
    return index if reached[index] else None


def shortest_decimal(value: float) -> Decimal:
    """The shortest decimal that reads back as this float: what a log or an entry said, for exact arithmetic."""
    return Decimal(repr(float(value)))


def seconds_of(hours: Decimal) -> Decimal:
    return hours * SECONDS_PER_HOUR


def logged_seconds(hours: float) -> float:
    """A log's `hours` as the board's seconds: the hours as written (`shortest_decimal`), times 3,600, exactly."""
    return float(seconds_of(shortest_decimal(hours)))


def hours_of(seconds):
    """Seconds to hours; a Decimal stays a Decimal, a float (or a pandas column) stays one."""
    return seconds / SECONDS_PER_HOUR


def training_cost_usd(*, hours: Decimal, usd_per_hour: Decimal, machines: int = 1) -> Decimal:
    """What a run of `hours` costs on `machines` billed at `usd_per_hour` each."""
    return hours * usd_per_hour * machines


def inference_cost_usd_per_item(*, latency_ms: Decimal, usd_per_hour: Decimal, machines: int = 1) -> Decimal:
    """What one item costs when the machine(s) are billed per hour and answer it in `latency_ms`."""
    return latency_ms / MS_PER_SECOND * usd_per_hour * machines / SECONDS_PER_HOUR


def inference_cost_usd_per_10k(*, cost_usd_per_item: Decimal) -> Decimal:
    return cost_usd_per_item * ITEMS_PER_INFERENCE_COST


def throughput_cost_of_single_stream_cost(
    *, cost_usd_per_10k: Decimal, latency_ms: Decimal, samples_per_second: Decimal
) -> Decimal:
    """The cost at throughput at the hourly price a single-stream cost was reckoned at: 10,000 items hold the
    machine 10,000 / samples per second instead of 10,000 x the mean latency, so the cost scales by the ratio of
    the two times (the price, whichever it was, cancels out)."""
    if samples_per_second <= 0 or latency_ms <= 0:
        raise ValueError("A throughput and a latency must be above 0.")
    return cost_usd_per_10k * MS_PER_SECOND / (latency_ms * samples_per_second)


def inference_cost_usd_per_10k_at_throughput(
    *, samples_per_second: Decimal, usd_per_hour: Decimal, machines: int = 1
) -> Decimal:
    """What 10,000 items cost when the machine(s) answer `samples_per_second` of them, in batches: the hours
    10,000 items hold the machine(s) x their price."""
    if samples_per_second <= 0:
        raise ValueError(f"A throughput must be above 0 samples per second, not {samples_per_second}.")
    return ITEMS_PER_INFERENCE_COST / samples_per_second * usd_per_hour * machines / SECONDS_PER_HOUR
