"""Cost policies: what a training run or 10,000 inferences cost under a given price. Money is Decimal.

Policies: `as-submitted` (the entry's own costPerHour / cost, DAWNBench's rule), `catalog-at-submission`
(the on-demand catalog price valid on the entry's date), `catalog-today` (the same hardware at today's
on-demand price), `spot-today` (today's spot price; shown, never ranked by default).

The arithmetic itself is the benchmark's (`dawnboard.scoring`); this module adds the policies and the
sentence that shows each figure's working.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from dawnboard import display
from dawnboard.scoring import (
    ITEMS_PER_INFERENCE_COST,
    MS_PER_SECOND,
    SECONDS_PER_HOUR,
    hours_of,
    inference_cost_usd_per_10k,
    inference_cost_usd_per_item,
    training_cost_usd,
)

AS_SUBMITTED = "as-submitted"
CATALOG_AT_SUBMISSION = "catalog-at-submission"
CATALOG_TODAY = "catalog-today"
SPOT_TODAY = "spot-today"
COST_POLICIES = (AS_SUBMITTED, CATALOG_AT_SUBMISSION, CATALOG_TODAY, SPOT_TODAY)
COST_POLICY_MEANINGS = {  # what a cost under each policy means, in the words a board's heading uses
    AS_SUBMITTED: "the entry's own costPerHour (training) or cost per item (inference), DAWNBench's rule",
    CATALOG_AT_SUBMISSION: "the catalog's on-demand price for the hardware on the entry's date",
    CATALOG_TODAY: "the catalog's on-demand price for the same hardware today",
    SPOT_TODAY: "the catalog's spot price for the same hardware today",
}
CLAIM_TOLERANCE = Decimal("0.10")
# Money keeps the places an entry's stored cost has (leaderboard.models.Entry, decimal_places=20): the rest of a
# division's 28-digit tail, and the zeros the database pads with, are digits nobody measured.
USD_PLACES = 20
PRICE_SHOWN_PLACES = 6  # prices are shown with at least these decimal places, and with every one the catalog has


# Google's sustained-use discount, by the tiers of its price list (v1.10, 2016-11-30, and v1.75, key
# sustained_use_tiers): each quarter of a month's use at 1.0, 0.8, 0.6 and 0.4 of the price, so a machine used
# the whole month pays 0.7 of its vCPU and memory price; GPUs get no such discount.
SUSTAINED_USE = "sustained-use"  # a pricing model worked out from on-demand quotes, never quoted itself
SUSTAINED_USE_FULL_MONTH = Decimal("0.7")
SUSTAINED_USE_PROVIDERS = ("gcp",)
REPRODUCES_WITHIN = Decimal("0.001")  # a tenth of a cent per hour: an entry's own price "is" a model's price


@dataclass(frozen=True)
class ModelPrice:
    """A machine's price per hour under one pricing model on a day, its arithmetic, and whether it is the price
    the entry states (within REPRODUCES_WITHIN), or why there is none."""

    model: str
    usd_per_hour: Decimal | None
    arithmetic: str
    reproduces: bool = False


def reproduces(claimed_usd_per_hour: Decimal | None, usd_per_hour: Decimal) -> bool:
    return claimed_usd_per_hour is not None and abs(claimed_usd_per_hour - usd_per_hour) <= REPRODUCES_WITHIN


def sustained_use_price(*, vm_usd_per_hour: Decimal, gpu_usd_per_hour: Decimal) -> Decimal:
    """A full month's sustained-use price: the VM's vCPUs and memory at 0.7 of their price, the GPUs at theirs."""
    return vm_usd_per_hour * SUSTAINED_USE_FULL_MONTH + gpu_usd_per_hour


@dataclass(frozen=True)
class PolicyCost:
    """One policy's figure and the arithmetic behind it, or why there is none."""

    policy: str
    usd: Decimal | None
    arithmetic: str


def catalog_price(usd_per_hour: Decimal) -> Decimal:
    """A price at the precision the catalog shows it: 6 decimal places (3.060000), more where it gives more
    (5.06879789). The database keeps 10; prices enter the arithmetic at this precision, so every figure keeps
    the digits it always had."""
    places = max(PRICE_SHOWN_PLACES, -usd_per_hour.normalize().as_tuple().exponent)
    return usd_per_hour.quantize(Decimal(1).scaleb(-places))


def usd_amount(usd: Decimal) -> Decimal:
    """A cost at the precision an entry stores, without trailing zeros (0.042438765, not 0.04243876500000000000)."""
    return usd.quantize(Decimal(1).scaleb(-USD_PLACES)).normalize()


def usd_text(usd: Decimal) -> str:
    """A cost as text, in plain notation: "0.042438765", "20" (never "2E+1"), "0.0000002078" (never "2.078E-7")."""
    return f"{usd_amount(usd):f}"


def usd_per_hour_text(usd_per_hour: Decimal) -> str:
    """A price as shown everywhere (the price command, the pricing API, every arithmetic line)."""
    return f"{catalog_price(usd_per_hour):f}"


def training_policy_cost(
    policy: str, *, seconds: Decimal, usd_per_hour: Decimal, count: int, source: str
) -> PolicyCost:
    """A run of `seconds` on `count` machines at `usd_per_hour` each, with its working."""
    usd = usd_amount(training_cost_usd(hours=hours_of(seconds), usd_per_hour=usd_per_hour, machines=count))
    machines = f" x {count} instances" if count > 1 else ""
    price = usd_per_hour_text(usd_per_hour)
    hours = display.number(float(hours_of(seconds)))
    return PolicyCost(policy, usd, f"{hours} h x {price} USD/h ({source}){machines} = {display.number(float(usd))} USD")


def inference_policy_cost(
    policy: str, *, latency_ms: Decimal, usd_per_hour: Decimal, count: int, source: str
) -> PolicyCost:
    """10,000 items answered in `latency_ms` each on `count` machines at `usd_per_hour` each, with its working."""
    per_item = inference_cost_usd_per_item(latency_ms=latency_ms, usd_per_hour=usd_per_hour, machines=count)
    usd = usd_amount(inference_cost_usd_per_10k(cost_usd_per_item=per_item))
    machines = f" x {count} instances" if count > 1 else ""
    return PolicyCost(
        policy,
        usd,
        f"{display.number(float(latency_ms))} ms x {ITEMS_PER_INFERENCE_COST:,} items x "
        f"{usd_per_hour_text(usd_per_hour)} USD/h ({source}){machines} / {MS_PER_SECOND * SECONDS_PER_HOUR:,} ms/h"
        f" = {display.number(float(usd))} USD per 10,000 items",
    )


def claimed_price_differs(*, claimed_usd_per_hour: Decimal, catalog_usd_per_hour: Decimal) -> bool:
    """DAWNBench took costPerHour on trust; flag a claim more than 10 % away from the catalog."""
    return abs(claimed_usd_per_hour - catalog_usd_per_hour) > CLAIM_TOLERANCE * catalog_usd_per_hour
