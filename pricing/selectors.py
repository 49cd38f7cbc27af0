"""Reads: quotes on a date, an entry's cost under each policy, its footprint."""

from __future__ import annotations

import datetime
from decimal import Decimal

from django.utils import timezone

from pricing.domain.cost import (
    AS_SUBMITTED,
    CATALOG_AT_SUBMISSION,
    CATALOG_TODAY,
    SPOT_TODAY,
    PolicyCost,
    claimed_price_differs,
    inference_arithmetic,
    inference_cost_per_10k,
    training_arithmetic,
    training_cost,
)
from pricing.domain.footprint import Footprint, training_footprint
from pricing.domain.resolver import KnownInstance
from pricing.models import Accelerator, GridRegion, HardwareMatch, InstanceType, PriceQuote

POLICY_QUOTES = {
    CATALOG_AT_SUBMISSION: (PriceQuote.PricingModel.ON_DEMAND, "entry date"),
    CATALOG_TODAY: (PriceQuote.PricingModel.ON_DEMAND, "today"),
    SPOT_TODAY: (PriceQuote.PricingModel.SPOT, "today"),
}


def known_instances() -> list[KnownInstance]:
    return [
        KnownInstance(
            provider=i.provider.slug, name=i.name, accelerator=i.accelerator, accelerator_count=i.accelerator_count
        )
        for i in InstanceType.objects.select_related("provider")
    ]


class QuoteBook:
    """The quotes of some instances, loaded in one query, looked up by day in Python."""

    def __init__(self, instance_ids):
        self.quotes: dict[tuple[int, str], list[PriceQuote]] = {}
        for quote in PriceQuote.objects.filter(instance_id__in=set(instance_ids)).order_by("region", "-valid_from"):
            self.quotes.setdefault((quote.instance_id, quote.pricing_model), []).append(quote)

    def on(
        self, *, instance_id: int, day: datetime.date, pricing_model: str, region: str | None = None
    ) -> PriceQuote | None:
        """The quote valid on `day`; without a region, that of the first region (alphabetically) having one."""
        for quote in self.quotes.get((instance_id, pricing_model), []):
            if (region is None or quote.region == region) and quote.valid_from <= day:
                if quote.valid_to is None or quote.valid_to > day:
                    return quote
        return None


def quote_on(
    *, instance: InstanceType, day: datetime.date, pricing_model: str, region: str | None = None
) -> PriceQuote | None:
    return QuoteBook([instance.id]).on(instance_id=instance.id, day=day, pricing_model=pricing_model, region=region)


def entry_match(entry) -> HardwareMatch | None:
    try:
        return entry.hardware_match
    except HardwareMatch.DoesNotExist:
        return None


def entry_costs(entry, *, today: datetime.date | None = None, book: QuoteBook | None = None) -> list[PolicyCost]:
    """The entry's training cost (or inference cost per 10,000 items) under every policy, with the arithmetic."""
    today = today or timezone.localdate()
    costs = [_as_submitted(entry)]
    match = entry_match(entry)
    if match is not None and match.instance is not None and book is None:
        book = QuoteBook([match.instance_id])
    for policy, (pricing_model, when) in POLICY_QUOTES.items():
        if match is None or match.instance is None:
            reason = match.reason if match else "the hardware has not been matched to the catalog"
            costs.append(PolicyCost(policy, None, f"no catalog price: {reason}"))
            continue
        day = entry.date if when == "entry date" else today
        quote = book.on(instance_id=match.instance_id, day=day, pricing_model=pricing_model)
        if quote is None:
            costs.append(PolicyCost(policy, None, f"no {pricing_model} price for {match.instance} on {day}"))
            continue
        source = f"{pricing_model} {match.instance} {quote.region} on {day}"
        costs.append(_priced(entry, policy, quote, match.instance_count, source))
    return costs


def costs_under(entries, policy: str, *, today: datetime.date | None = None) -> dict[int, Decimal | None]:
    """Each entry's cost under one policy, with the quotes of all their instances read in one query."""
    entries = list(entries)
    book = QuoteBook(match.instance_id for entry in entries if (match := entry_match(entry)) and match.instance_id)
    return {
        entry.id: next(cost.usd for cost in entry_costs(entry, today=today, book=book) if cost.policy == policy)
        for entry in entries
    }


def entry_price_warning(entry) -> str | None:
    """A warning when the claimed costPerHour is more than 10 % from the catalog price on the entry's date."""
    claimed = entry.cost_per_hour_usd
    match = entry_match(entry)
    if claimed is None or match is None or match.instance is None:
        return None
    quote = quote_on(instance=match.instance, day=entry.date, pricing_model=PriceQuote.PricingModel.ON_DEMAND)
    if quote is None:
        return None
    catalog = quote.usd_per_hour * match.instance_count
    if claimed_price_differs(claimed_usd_per_hour=claimed, catalog_usd_per_hour=catalog):
        return (
            f"costPerHour {claimed} USD/h differs by more than 10 % from the catalog's on-demand price of "
            f"{catalog} USD/h for {match.instance} on {entry.date} ({quote.source_url})."
        )
    return None


def entry_footprint(entry) -> dict | None:
    """Energy and carbon of a training entry, with every factor and its source; None when it cannot be estimated."""
    match = entry_match(entry)
    if entry.track != "train" or match is None or match.instance is None:
        return None
    instance = match.instance
    accelerator = Accelerator.objects.filter(name=instance.accelerator).first() if instance.accelerator else None
    grid = GridRegion.objects.filter(provider=instance.provider).order_by("region")
    quote = quote_on(instance=instance, day=entry.date, pricing_model=PriceQuote.PricingModel.ON_DEMAND)
    region = grid.filter(region=quote.region).first() if quote else None
    region = region or grid.first()
    if instance.accelerator and accelerator is None:
        return None
    footprint: Footprint = training_footprint(
        seconds=Decimal(repr(entry.time_to_accuracy_seconds)),
        board_power_watts=accelerator.board_power_watts if accelerator else Decimal(0),
        accelerator_count=instance.accelerator_count,
        vcpus=instance.vcpus,
        memory_gib=instance.memory_gib,
        instance_count=match.instance_count,
        pue=region.pue if region and region.pue else Decimal(1),
        grams_co2e_per_kwh=region.grams_co2e_per_kwh if region else None,
    )
    return {
        "entry_id": entry.id,
        "instance": f"{instance.provider.slug} {instance.name}",
        "instance_count": match.instance_count,
        "hours": float(footprint.hours),
        "accelerator": instance.accelerator,
        "accelerator_count": instance.accelerator_count,
        "board_power_watts": float(accelerator.board_power_watts) if accelerator else 0.0,
        "board_power_source": accelerator.source_url if accelerator else None,
        "accelerator_watts": float(footprint.accelerator_watts),
        "host_watts": float(footprint.host_watts),
        "host_source": "https://www.cloudcarbonfootprint.org/docs/methodology/ (3.5 W per vCPU, 0.392 W per GiB)",
        "pue": float(footprint.pue),
        "pue_source": region.source_url if region and region.pue else "none published here: 1.0 assumed",
        "energy_kwh": float(footprint.energy_kwh),
        "region": region.region if region else None,
        "grams_co2e_per_kwh": float(footprint.grams_co2e_per_kwh) if footprint.grams_co2e_per_kwh is not None else None,
        "grid_source": region.source_url if region else None,
        "carbon_kg_co2e": float(footprint.carbon_kg) if footprint.carbon_kg is not None else None,
    }


def _as_submitted(entry) -> PolicyCost:
    if entry.track == "train":
        if entry.training_cost_usd is None:
            return PolicyCost(AS_SUBMITTED, None, "the entry gives no costPerHour")
        seconds = Decimal(repr(entry.time_to_accuracy_seconds))
        arithmetic = training_arithmetic(
            seconds=seconds, usd_per_hour=entry.cost_per_hour_usd, count=1, source="the entry's costPerHour"
        )
        return PolicyCost(AS_SUBMITTED, entry.training_cost_usd, arithmetic)
    if entry.inference_cost_usd_per_10k is None:
        return PolicyCost(AS_SUBMITTED, None, "the entry gives no cost")
    claimed = entry.claimed.get("cost")
    return PolicyCost(
        AS_SUBMITTED, entry.inference_cost_usd_per_10k, f"{claimed} USD per item (the entry's cost) x 10,000"
    )


def _priced(entry, policy: str, quote: PriceQuote, count: int, source: str) -> PolicyCost:
    if entry.track == "train":
        seconds = Decimal(repr(entry.time_to_accuracy_seconds))
        usd = training_cost(seconds=seconds, usd_per_hour=quote.usd_per_hour, count=count)
        arithmetic = training_arithmetic(seconds=seconds, usd_per_hour=quote.usd_per_hour, count=count, source=source)
    else:
        if entry.latency_ms is None:
            return PolicyCost(policy, None, "the entry gives no latency")
        latency = Decimal(repr(entry.latency_ms))
        usd = inference_cost_per_10k(latency_ms=latency, usd_per_hour=quote.usd_per_hour, count=count)
        arithmetic = inference_arithmetic(
            latency_ms=latency, usd_per_hour=quote.usd_per_hour, count=count, source=source
        )
    return PolicyCost(policy, usd, arithmetic)
