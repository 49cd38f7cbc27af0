"""The DAWNBench rules, as arithmetic: time to accuracy and the two costs."""

from __future__ import annotations

from decimal import Decimal

import numpy as np

SECONDS_PER_HOUR = 3600
ITEMS_PER_INFERENCE_COST = 10_000


def first_crossing(metric: np.ndarray, threshold: float) -> int | None:
    """Index of the first row, in file order, whose metric reaches the threshold (DAWNBench's TTA row)."""
    reached = metric >= threshold
    index = int(np.argmax(reached))
    return index if reached[index] else None


def hours_to_decimal(hours: float) -> Decimal:
    """The shortest decimal that reads back as this float: what the log file said."""
    return Decimal(repr(float(hours)))


def training_cost_usd(*, time_to_accuracy_hours: Decimal, cost_per_hour_usd: Decimal) -> Decimal:
    return time_to_accuracy_hours * cost_per_hour_usd


def inference_cost_usd_per_10k(*, cost_usd_per_item: Decimal) -> Decimal:
    return cost_usd_per_item * ITEMS_PER_INFERENCE_COST


def inference_cost_usd_per_item(*, cost_per_hour_usd: Decimal, latency_ms: Decimal) -> Decimal:
    """What one item costs when the machine is billed per hour and answers it in `latency_ms`."""
    return cost_per_hour_usd * latency_ms / 1000 / SECONDS_PER_HOUR
