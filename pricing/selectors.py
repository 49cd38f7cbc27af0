"""Reads: quotes on a date, a run's cost under each policy, its footprint.

A run is described in plain values (`PricedRun`), never as a leaderboard entry: pricing knows nothing
of entries, and the leaderboard builds a `PricedRun` from each of its own.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.utils import timezone

from dawnboard import display
from dawnboard.rules import Track
from dawnboard.scoring import HourlyPrice
from pricing.domain.cost import (
    AS_SUBMITTED,
    CATALOG_AT_SUBMISSION,
    CATALOG_TODAY,
    SPOT_TODAY,
    SUSTAINED_USE,
    SUSTAINED_USE_FULL_MONTH,
    SUSTAINED_USE_PROVIDERS,
    ModelPrice,
    PolicyCost,
    catalog_price,
    claimed_price_differs,
    inference_policy_cost,
    reproduces,
    sustained_use_price,
    training_policy_cost,
    usd_amount,
    usd_per_hour_text,
)
from pricing.domain.footprint import HOST_SOURCE, WATTS_PER_GIB, WATTS_PER_VCPU, Footprint, training_footprint
from pricing.domain.resolver import KnownInstance
from pricing.models import Accelerator, GridRegion, InstanceType, PriceQuote

POLICY_QUOTES = {
    CATALOG_AT_SUBMISSION: (PriceQuote.PricingModel.ON_DEMAND, "entry date"),
    CATALOG_TODAY: (PriceQuote.PricingModel.ON_DEMAND, "today"),
    SPOT_TODAY: (PriceQuote.PricingModel.SPOT, "today"),
}


def known_instances() -> list[KnownInstance]:
    """Every catalog instance as the resolver reads it; read as plain values (each entry stored reads them all)."""
    columns = ("provider__slug", "name", "accelerator", "accelerator_count", "vcpus", "memory_gib")
    return [KnownInstance(*values) for values in InstanceType.objects.values_list(*columns)]


class QuoteBook:
    """The quotes of some instances, loaded in one query, looked up by day in Python."""

    def __init__(self, instance_ids):
        self.quotes: dict[tuple[int, str], list[PriceQuote]] = {}
        quotes = PriceQuote.objects.filter(instance_id__in=set(instance_ids)).select_related("instance__provider")
        for quote in quotes.order_by("region", "-valid_from"):
            self.quotes.setdefault((quote.instance_id, quote.pricing_model), []).append(quote)

    def list_price_on(self, *, instance_id: int, day: datetime.date, pricing_model: str) -> PriceQuote | None:
        """`on`, where an on-demand price is asked for a machine its provider sells only by the month: then the
        monthly price (over 720 hours) is its list price."""
        quote = self.on(instance_id=instance_id, day=day, pricing_model=pricing_model)
        if quote is None and pricing_model == PriceQuote.PricingModel.ON_DEMAND:
            quote = self.on(instance_id=instance_id, day=day, pricing_model=PriceQuote.PricingModel.MONTHLY)
        return quote

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


@dataclass(frozen=True)
class PricedRun:
    """What the cost policies need to know of a training run or an inference measurement.

    Attributes:
        track: training (priced by its time) or inference (priced by its latency, per 10,000 items).
        date: the day the run was made, for the price valid then.
        seconds: time to accuracy (training).
        latency_ms: mean time per item (inference).
        claimed_usd_per_hour: the price the run states for its hardware, if any.
        claimed_usd_per_item: the inference cost per item the run states, if any.
        as_submitted_usd: the cost from the run's own figures (training cost, or cost per 10,000 items).
        instance: the catalog instance it ran on, or None.
        instance_count: how many of them.
        unpriced_reason: why there is no instance, when there is none.
    """

    track: Track
    date: datetime.date
    seconds: Decimal | None
    latency_ms: Decimal | None
    claimed_usd_per_hour: Decimal | None
    claimed_usd_per_item: float | None
    as_submitted_usd: Decimal | None
    instance: InstanceType | None = None
    instance_count: int = 1
    unpriced_reason: str = "the hardware has not been matched to the catalog"
    parts: tuple[tuple[int, int], ...] = ()  # a machine priced by its parts: (catalog instance id, count) each

    @property
    def priced(self) -> bool:
        return self.instance is not None or bool(self.parts)

    @property
    def machine_parts(self) -> list[tuple[int, int]]:
        """(catalog instance id, count) of everything the machine is priced from: its instance, or its parts."""
        return [(self.instance.id, self.instance_count)] if self.instance is not None else list(self.parts)

    @property
    def instance_ids(self) -> list[int]:
        return [instance_id for instance_id, _ in self.machine_parts]


@dataclass(frozen=True)
class MachinePrice:
    """What the catalog asks per hour for a run's machine on a day: the price, where it comes from, and the
    first quote (for its region and source)."""

    usd_per_hour: Decimal
    count: int
    source: str
    quote: PriceQuote


def machine_price(run: PricedRun, *, book: QuoteBook, day: datetime.date, pricing_model: str) -> MachinePrice | str:
    """The run's machine priced on `day`: its instance's quote, or the sum of its parts' (each part a quote valid
    that day, the arithmetic in `source`); else why not, in words."""
    if run.instance is not None:
        quote = book.list_price_on(instance_id=run.instance.id, day=day, pricing_model=pricing_model)
        if quote is None:
            return f"no {pricing_model} price for {run.instance} on {day}"
        quoted = f": {quote.quote_text}" if quote.quote_text else ""
        source = f"{quote.pricing_model} {run.instance} {quote.region} on {day}{quoted}"
        return MachinePrice(catalog_price(quote.usd_per_hour), run.instance_count, source, quote)
    quotes = [(book.list_price_on(instance_id=part, day=day, pricing_model=pricing_model), n) for part, n in run.parts]
    if any(quote is None for quote, _ in quotes):
        return f"no {pricing_model} price on {day} for every part of the machine ({run.unpriced_reason})"
    total = _total(quotes)
    source = f"{pricing_model} parts on {day}: {_terms(quotes)} = {usd_per_hour_text(total)} USD/h"
    return MachinePrice(total, 1, source, quotes[0][0])


PRICE_MODELS = (
    PriceQuote.PricingModel.ON_DEMAND,
    SUSTAINED_USE,
    PriceQuote.PricingModel.MONTHLY,
    PriceQuote.PricingModel.SPOT,
)


def model_prices(run: PricedRun, *, book: QuoteBook | None = None) -> list[ModelPrice]:
    """The run's machine priced on its own date under each pricing model, and which of them is the price the
    entry states (`costPerHour`), if one is: on-demand, Google's sustained use (the VM's price x 0.7, its GPUs at
    theirs), a monthly subscription over 720 hours, spot."""
    if not run.priced:
        return []
    return model_prices_on(run, book=book or QuoteBook(run.instance_ids), day=run.date)


def model_prices_on(run: PricedRun, *, book: QuoteBook, day: datetime.date) -> list[ModelPrice]:
    """`model_prices` with the catalog's prices of `day` rather than the run's date."""
    prices = []
    for model in PRICE_MODELS:
        quoted = model if model != SUSTAINED_USE else PriceQuote.PricingModel.ON_DEMAND
        quotes = [(book.on(instance_id=part, day=day, pricing_model=quoted), n) for part, n in run.machine_parts]
        if any(quote is None for quote, _ in quotes):
            prices.append(ModelPrice(model, None, f"no {quoted} price for the machine on {day}"))
            continue
        if model == SUSTAINED_USE and quotes[0][0].instance.provider.slug not in SUSTAINED_USE_PROVIDERS:
            prices.append(ModelPrice(model, None, "only Google Cloud gives a sustained-use discount"))
            continue
        vm = [(quote, count) for quote, count in quotes if not quote.instance.accelerator]
        gpus = [(quote, count) for quote, count in quotes if quote.instance.accelerator]
        if model == SUSTAINED_USE and any(quote.instance.vcpus for quote, _ in gpus):
            prices.append(ModelPrice(model, None, "the machine's GPUs and VM are priced together: no VM share"))
            continue
        vm_usd, gpu_usd = _total(vm), _total(gpus)
        if model == SUSTAINED_USE:
            usd = catalog_price(sustained_use_price(vm_usd_per_hour=vm_usd, gpu_usd_per_hour=gpu_usd))
            arithmetic = (
                f"{usd_per_hour_text(vm_usd)} (VM) x {SUSTAINED_USE_FULL_MONTH} + {usd_per_hour_text(gpu_usd)} "
                f"(accelerators) = {usd_per_hour_text(usd)} USD/h on {day}"
            )
        else:
            usd = vm_usd + gpu_usd
            quoted_as = "; ".join(quote.quote_text for quote, _ in quotes if quote.quote_text)
            arithmetic = f"{_terms(quotes)} = {usd_per_hour_text(usd)} USD/h on {day}" + (
                f" ({quoted_as})" if quoted_as else ""
            )
        prices.append(ModelPrice(model, usd, arithmetic, reproduces(run.claimed_usd_per_hour, usd)))
    return prices


EARLIER_PRICE_WINDOW = datetime.timedelta(days=365)  # how far before its date an entry's price is looked for


@dataclass(frozen=True)
class EarlierPrice:
    """A pricing model that gives the entry's own price with the catalog's prices of a period before the entry's
    date, though none gives it on that date: the entry was priced, or first published, before a price change."""

    price: ModelPrice
    first_day: datetime.date
    last_day: datetime.date  # the day before the catalog's next price change for the machine


def earlier_price_reproducing(run: PricedRun, *, book: QuoteBook | None = None) -> EarlierPrice | None:
    """The latest price period before the run's date in which a pricing model reproduces its stated price, when no
    model does on the date itself; None otherwise. The catalog's quotes for the machine's parts cut time into
    periods (a day on which any of them changes starts the next); the one found is widened to every day on which
    that model's price for the machine was the same."""
    if not run.priced or run.claimed_usd_per_hour is None:
        return None
    book = book or QuoteBook(run.instance_ids)
    if any(price.reproduces for price in model_prices_on(run, book=book, day=run.date)):
        return None
    quotes = [quote for (part, _), quoted in book.quotes.items() if part in run.instance_ids for quote in quoted]
    changes = {quote.valid_from for quote in quotes} | {quote.valid_to for quote in quotes if quote.valid_to}
    changes = sorted(day for day in changes if day <= run.date)  # the last starts the period of the run's date
    last_days = [next_change - datetime.timedelta(days=1) for next_change in changes[1:]]  # of each earlier period

    def price_on(day: datetime.date, model: str) -> ModelPrice:
        return next(price for price in model_prices_on(run, book=book, day=day) if price.model == model)

    for found in reversed(range(len(last_days))):
        if run.date - last_days[found] > EARLIER_PRICE_WINDOW:
            return None
        price = next((p for p in model_prices_on(run, book=book, day=last_days[found]) if p.reproduces), None)
        if price is not None:
            break
    else:
        return None
    first, last = found, found
    while first > 0 and price_on(last_days[first - 1], price.model).usd_per_hour == price.usd_per_hour:
        first -= 1
    while last + 1 < len(last_days) and price_on(last_days[last + 1], price.model).usd_per_hour == price.usd_per_hour:
        last += 1
    return EarlierPrice(price_on(last_days[last], price.model), changes[first], last_days[last])


def _total(quotes: list[tuple[PriceQuote, int]]) -> Decimal:
    """What the parts cost together per hour, each at the precision the catalog shows it."""
    return sum((catalog_price(quote.usd_per_hour) * count for quote, count in quotes), Decimal(0))


def _terms(quotes: list[tuple[PriceQuote, int]]) -> str:
    """A machine's parts as the sum they make: '1 x 0.400000 (n1-standard-8) + 1 x 0.450000 (gpu-nvidia-tesla-k80)'."""
    return " + ".join(
        f"{count} x {usd_per_hour_text(catalog_price(quote.usd_per_hour))} ({quote.instance.name})"
        for quote, count in quotes
    )


def run_costs(run: PricedRun, *, today: datetime.date | None = None, book: QuoteBook | None = None) -> list[PolicyCost]:
    """The run's training cost (or inference cost per 10,000 items) under every policy, with the arithmetic."""
    today = today or timezone.localdate()
    costs = [_as_submitted(run)]
    if run.priced and book is None:
        book = QuoteBook(run.instance_ids)
    for policy, (pricing_model, when) in POLICY_QUOTES.items():
        if not run.priced:
            costs.append(PolicyCost(policy, None, f"no catalog price: {run.unpriced_reason}"))
            continue
        day = run.date if when == "entry date" else today
        price = machine_price(run, book=book, day=day, pricing_model=pricing_model)
        if isinstance(price, str):
            costs.append(PolicyCost(policy, None, price))
            continue
        costs.append(_priced(run, policy, price))
    return costs


def costs_by_policy(
    runs: Mapping[int, PricedRun], *, today: datetime.date | None = None, book: QuoteBook | None = None
) -> dict:
    """Each run's cost under every policy ({key: {policy: USD or None}}), keyed as given, with the quotes of all
    their instances read in one query (or looked up in `book`, which holds them)."""
    if book is None:
        book = QuoteBook(instance_id for run in runs.values() for instance_id in run.instance_ids)
    return {
        key: {cost.policy: cost.usd for cost in run_costs(run, today=today, book=book)} for key, run in runs.items()
    }


def prices_hold_until(run: PricedRun, *, book: QuoteBook, day: datetime.date) -> datetime.date | None:
    """The first day after `day` on which a quote of the run's machine starts or ends (any region, any pricing
    model): until the day before, the catalog prices the machine as on `day`. None: no change is known.

    A cost priced "today" holds until then, so a store of such costs is priced again on that day, not every day.
    """
    parts = set(run.instance_ids)
    changes = (
        change
        for (instance_id, _), quotes in book.quotes.items()
        if instance_id in parts
        for quote in quotes
        for change in (quote.valid_from, quote.valid_to)
        if change is not None and change > day
    )
    return min(changes, default=None)


def price_warning(run: PricedRun, *, book: QuoteBook | None = None) -> str | None:
    """A warning when the claimed price per hour is more than 10 % from the catalog price on the run's date."""
    claimed = run.claimed_usd_per_hour
    if claimed is None or not run.priced:
        return None
    book = book or QuoteBook(run.instance_ids)
    price = machine_price(run, book=book, day=run.date, pricing_model=PriceQuote.PricingModel.ON_DEMAND)
    if isinstance(price, str):
        return None
    catalog = price.usd_per_hour * price.count
    if claimed_price_differs(claimed_usd_per_hour=claimed, catalog_usd_per_hour=catalog):
        machine = run.instance if run.instance is not None else "the machine's parts"
        return (
            f"costPerHour {usd_per_hour_text(claimed)} USD/h differs by more than 10 % from the catalog's on-demand "
            f"price of {usd_per_hour_text(catalog)} USD/h for {machine} on {run.date} ({price.quote.source_url})."
        )
    return None


@dataclass(frozen=True)
class MachineShape:
    """What a footprint needs of a run's machine, whether one catalog instance or a sum of parts."""

    label: str
    accelerator: str
    accelerator_count: int
    vcpus: int
    memory_gib: Decimal
    instance_count: int
    provider_id: int
    first_part_id: int


def run_footprint(run: PricedRun, *, book: QuoteBook | None = None) -> dict | None:
    """Energy and carbon of a training run, with every factor and its source; None when it cannot be estimated."""
    unavailable, shape, accelerator = _footprint_inputs(run)
    if unavailable is not None:
        return None
    grid = GridRegion.objects.filter(provider_id=shape.provider_id).order_by("region")
    book = book or QuoteBook(run.instance_ids)
    quote = book.on(instance_id=shape.first_part_id, day=run.date, pricing_model=PriceQuote.PricingModel.ON_DEMAND)
    region = (grid.filter(region=quote.region).first() if quote else None) or grid.first()
    footprint: Footprint = training_footprint(
        seconds=run.seconds,
        board_power_watts=accelerator.board_power_watts if accelerator else Decimal(0),
        accelerator_count=shape.accelerator_count,
        vcpus=shape.vcpus,
        memory_gib=shape.memory_gib,
        instance_count=shape.instance_count,
        pue=region.pue if region and region.pue else Decimal(1),
        grams_co2e_per_kwh=region.grams_co2e_per_kwh if region else None,
    )
    return {
        "instance": shape.label,
        "instance_count": shape.instance_count,
        "hours": float(footprint.hours),
        "accelerator": shape.accelerator,
        "accelerator_count": shape.accelerator_count,
        "board_power_watts": float(accelerator.board_power_watts) if accelerator else 0.0,
        "board_power_source": accelerator.source_url if accelerator else None,
        "accelerator_watts": float(footprint.accelerator_watts),
        "host_watts": float(footprint.host_watts),
        "host_source": f"{HOST_SOURCE} ({WATTS_PER_VCPU} W per vCPU, {WATTS_PER_GIB} W per GiB)",
        "pue": float(footprint.pue),
        "pue_source": region.source_url if region and region.pue else "none published here: 1.0 assumed",
        "energy_kwh": float(footprint.energy_kwh),
        "region": region.region if region else None,
        "grams_co2e_per_kwh": float(footprint.grams_co2e_per_kwh) if footprint.grams_co2e_per_kwh is not None else None,
        "grid_source": region.source_url if region else None,
        "carbon_kg_co2e": float(footprint.carbon_kg) if footprint.carbon_kg is not None else None,
    }


def footprint_unavailable(run: PricedRun) -> str | None:
    """Why `run_footprint` has no estimate for the run, in a sentence; None when it has one."""
    return _footprint_inputs(run)[0]


def machine_shape(run: PricedRun) -> MachineShape | str:
    """The run's machine as a footprint counts it: its instance, or its parts added up (the GPUs of its GPU parts,
    the vCPUs and memory of its VM part); else why not, in words."""
    if run.instance is not None:
        instance = run.instance
        return MachineShape(
            label=f"{instance.provider.slug} {instance.name}",
            accelerator=instance.accelerator,
            accelerator_count=instance.accelerator_count,
            vcpus=instance.vcpus,
            memory_gib=instance.memory_gib,
            instance_count=run.instance_count,
            provider_id=instance.provider_id,
            first_part_id=instance.id,
        )
    if not run.parts:
        return f"its hardware resolves to no catalog instance: {run.unpriced_reason}"
    instances = InstanceType.objects.select_related("provider").in_bulk([part for part, _ in run.parts])
    parts = [(instances[part], count) for part, count in run.parts]
    accelerators = sorted({part.accelerator for part, _ in parts if part.accelerator})
    if len(accelerators) > 1:
        return f"its parts hold more than one kind of accelerator ({', '.join(accelerators)})"
    return MachineShape(
        label=f"{parts[0][0].provider.slug} " + " + ".join(f"{count} x {part.name}" for part, count in parts),
        accelerator=accelerators[0] if accelerators else "",
        accelerator_count=sum(part.accelerator_count * count for part, count in parts),
        vcpus=sum(part.vcpus * count for part, count in parts),
        memory_gib=sum((part.memory_gib * count for part, count in parts), Decimal(0)),
        instance_count=1,
        provider_id=parts[0][0].provider_id,
        first_part_id=parts[0][0].id,
    )


def _footprint_inputs(run: PricedRun) -> tuple[str | None, MachineShape | None, Accelerator | None]:
    """(why there is no footprint estimate or None, the machine's shape, the accelerator whose board power it uses)."""
    if run.track != Track.TRAIN:
        return "only a training run has one (this is an inference entry)", None, None
    if run.seconds is None:
        return "the run has no time to accuracy", None, None
    shape = machine_shape(run)
    if isinstance(shape, str):
        return shape, None, None
    accelerator = Accelerator.objects.filter(name=shape.accelerator).first() if shape.accelerator else None
    if shape.accelerator and accelerator is None:
        return f"the catalog has no board power for the accelerator '{shape.accelerator}' ({shape.label})", None, None
    return None, shape, accelerator


def _as_submitted(run: PricedRun) -> PolicyCost:
    if run.track == Track.TRAIN:
        if run.as_submitted_usd is None:
            return PolicyCost(AS_SUBMITTED, None, "the entry gives no costPerHour")
        working = training_policy_cost(
            AS_SUBMITTED,
            seconds=run.seconds,
            usd_per_hour=run.claimed_usd_per_hour,
            count=1,
            source="the entry's costPerHour",
        )
        # the figure recomputed at ingest
        return PolicyCost(AS_SUBMITTED, usd_amount(run.as_submitted_usd), working.arithmetic)
    if run.as_submitted_usd is None:
        return PolicyCost(AS_SUBMITTED, None, "the entry gives no cost")
    return PolicyCost(
        AS_SUBMITTED,
        usd_amount(run.as_submitted_usd),
        f"{display.number(run.claimed_usd_per_item)} USD per item (the entry's cost) x 10,000",
    )


def _priced(run: PricedRun, policy: str, machine: MachinePrice) -> PolicyCost:
    price, count, source = machine.usd_per_hour, machine.count, machine.source
    if run.track == Track.TRAIN:
        return training_policy_cost(policy, seconds=run.seconds, usd_per_hour=price, count=count, source=source)
    if run.latency_ms is None:
        return PolicyCost(policy, None, "the entry gives no latency")
    return inference_policy_cost(policy, latency_ms=run.latency_ms, usd_per_hour=price, count=count, source=source)


class PriceLookupError(LookupError):
    """No such instance in the catalog (`unknown_instance`), or no on-demand price of it that day (`no_price`)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


# `--instance auto`: the catalog's CPU instance of the machine's vCPU count, of this family (compute-optimised,
# 2 GiB a vCPU), the one a CPU-only run is priced as.
AUTO_INSTANCE = "auto"
AUTO_FAMILY = {"aws": "c5."}


def on_demand_price(
    *, instance: str, provider: str | None, day: datetime.date, vcpus: int | None = None
) -> HourlyPrice:
    """The catalog's on-demand price of `provider`/`instance` on `day`. `instance` "auto" names the provider's
    CPU-only instance (of `AUTO_FAMILY`) with `vcpus` vCPUs.

    Raises:
        PriceLookupError: `unknown_instance`, or `no_price` when the catalog has none that day.
    """
    instances = InstanceType.objects.select_related("provider").filter(provider__slug=provider)
    if instance == AUTO_INSTANCE:
        family = AUTO_FAMILY.get(provider or "")
        candidates = instances.filter(name__startswith=family or "", vcpus=vcpus or 0, accelerator_count=0)
        found = candidates.order_by("memory_gib", "name").first() if family else None
        if found is None:
            known = ", ".join(f"{name} ({families}*)" for name, families in AUTO_FAMILY.items())
            raise PriceLookupError(
                "unknown_instance",
                f"The price catalog has no CPU instance of {vcpus} vCPUs of provider {provider!r} for --instance auto "
                f"(it knows the families {known}).",
            )
    else:
        found = instances.filter(name=instance).first()
        if found is None:
            raise PriceLookupError(
                "unknown_instance",
                f"The price catalog has no instance {instance!r} of provider {provider!r} "
                "(the catalog's instances: GET /api/v1/pricing/instances/).",
            )
    quote = quote_on(instance=found, day=day, pricing_model=PriceQuote.PricingModel.ON_DEMAND)
    name = f"{found.provider.slug}/{found.name}"
    if quote is None:
        raise PriceLookupError("no_price", f"The catalog has no on-demand price of {name} on {day}.")
    return HourlyPrice(
        usd_per_hour=catalog_price(quote.usd_per_hour),
        instance=name,
        source=f"catalog: {name} on-demand in {quote.region}, valid from {quote.valid_from} ({quote.source_url})",
    )
