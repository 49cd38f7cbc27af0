"""Cost policies: what a training run or 10,000 inferences cost under a given price. Money is Decimal.

Policies: `as-submitted` (the entry's own costPerHour / cost, DAWNBench's rule), `catalog-at-submission`
(the on-demand catalog price valid on the entry's date), `catalog-today` (the same hardware at today's
on-demand price), `spot-today` (today's spot price; shown, never ranked by default).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

AS_SUBMITTED = "as-submitted"
CATALOG_AT_SUBMISSION = "catalog-at-submission"
CATALOG_TODAY = "catalog-today"
SPOT_TODAY = "spot-today"
COST_POLICIES = (AS_SUBMITTED, CATALOG_AT_SUBMISSION, CATALOG_TODAY, SPOT_TODAY)
SECONDS_PER_HOUR = Decimal(3600)
ITEMS = 10_000
CLAIM_TOLERANCE = Decimal("0.10")


@dataclass(frozen=True)
class PolicyCost:
    """One policy's figure and the arithmetic behind it, or why there is none."""

    policy: str
    usd: Decimal | None
    arithmetic: str


def training_cost(*, seconds: Decimal, usd_per_hour: Decimal, count: int = 1) -> Decimal:
    return seconds / SECONDS_PER_HOUR * usd_per_hour * count


def inference_cost_per_10k(*, latency_ms: Decimal, usd_per_hour: Decimal, count: int = 1) -> Decimal:
    """Latency x 10,000 items x the price per second of the machine(s)."""
    return latency_ms / 1000 * ITEMS * usd_per_hour * count / SECONDS_PER_HOUR


def training_arithmetic(*, seconds: Decimal, usd_per_hour: Decimal, count: int, source: str) -> str:
    cost = training_cost(seconds=seconds, usd_per_hour=usd_per_hour, count=count)
    machines = f" x {count} instances" if count > 1 else ""
    return f"{seconds / SECONDS_PER_HOUR:.6g} h x {usd_per_hour} USD/h ({source}){machines} = {cost:.6g} USD"


def inference_arithmetic(*, latency_ms: Decimal, usd_per_hour: Decimal, count: int, source: str) -> str:
    cost = inference_cost_per_10k(latency_ms=latency_ms, usd_per_hour=usd_per_hour, count=count)
    machines = f" x {count} instances" if count > 1 else ""
    return (
        f"{latency_ms} ms x 10,000 items x {usd_per_hour} USD/h ({source}){machines} / 3,600,000 ms/h"
        f" = {cost:.6g} USD per 10,000 items"
    )


def claimed_price_differs(*, claimed_usd_per_hour: Decimal, catalog_usd_per_hour: Decimal) -> bool:
    """DAWNBench took costPerHour on trust; flag a claim more than 10 % away from the catalog."""
    return abs(claimed_usd_per_hour - catalog_usd_per_hour) > CLAIM_TOLERANCE * catalog_usd_per_hour
