"""Writes: loading the catalog files (idempotent, all or nothing) and matching entries to instances."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from leaderboard.page_cache import board_generation_bump
from pricing.domain.catalog import parse_accelerators, parse_grid, parse_prices
from pricing.domain.resolver import resolve_hardware
from pricing.models import Accelerator, GridRegion, HardwareMatch, InstanceType, PriceQuote, Provider
from pricing.selectors import known_instances

DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class LoadSummary:
    created: int
    updated: int
    unchanged: int


def prices_load(*, text: str) -> LoadSummary:
    """Load a price catalog CSV. A new quote closes the previous one of its instance, region and model.

    Raises:
        CatalogError: naming every bad line; nothing is written then.
    """
    rows = parse_prices(text)
    created = updated = unchanged = 0
    with transaction.atomic():
        groups = set()
        for row in rows:
            provider, _ = Provider.objects.get_or_create(slug=row.provider)
            instance, _ = InstanceType.objects.update_or_create(
                provider=provider,
                name=row.instance,
                defaults={
                    "accelerator": row.accelerator,
                    "accelerator_count": row.accelerator_count,
                    "vcpus": row.vcpus,
                    "memory_gib": row.memory_gib,
                },
            )
            values = {"usd_per_hour": row.usd_per_hour, "source_url": row.source_url, "note": row.note}
            quote, was_created = PriceQuote.objects.get_or_create(
                instance=instance,
                region=row.region,
                pricing_model=row.pricing_model,
                valid_from=row.valid_from,
                defaults=values,
            )
            if was_created:
                created += 1
            elif any(getattr(quote, name) != value for name, value in values.items()):
                PriceQuote.objects.filter(pk=quote.pk).update(**values)
                updated += 1
            else:
                unchanged += 1
            groups.add((instance.pk, row.region, row.pricing_model))
        for instance_id, region, pricing_model in groups:
            _close_quotes(instance_id=instance_id, region=region, pricing_model=pricing_model)
        board_generation_bump()
    return LoadSummary(created=created, updated=updated, unchanged=unchanged)


def reference_data_load(*, accelerators_text: str, grid_text: str) -> None:
    """Board powers and grid intensities, for the footprint estimates."""
    accelerators, grid = parse_accelerators(accelerators_text), parse_grid(grid_text)
    with transaction.atomic():
        for row in accelerators:
            Accelerator.objects.update_or_create(
                name=row.accelerator,
                defaults={"board_power_watts": row.board_power_watts, "source_url": row.source_url, "note": row.note},
            )
        for row in grid:
            provider, _ = Provider.objects.get_or_create(slug=row.provider)
            GridRegion.objects.update_or_create(
                provider=provider,
                region=row.region,
                defaults={
                    "grams_co2e_per_kwh": row.grams_co2e_per_kwh,
                    "pue": row.pue,
                    "source_url": row.source_url,
                    "note": row.note,
                },
            )


def catalog_load_bundled() -> LoadSummary:
    """The catalog shipped in pricing/data/, then every entry matched against it."""
    summary = prices_load(text=(DATA_DIR / "prices.csv").read_text(encoding="utf-8"))
    reference_data_load(
        accelerators_text=(DATA_DIR / "accelerators.csv").read_text(encoding="utf-8"),
        grid_text=(DATA_DIR / "grid.csv").read_text(encoding="utf-8"),
    )
    hardware_match_all()
    return summary


def hardware_match_entry(*, entry, known=None) -> HardwareMatch:
    """Resolve an entry's hardware text, unless staff set its match by hand."""
    existing = HardwareMatch.objects.filter(entry=entry).first()
    if existing is not None and existing.set_by_staff:
        return existing
    resolution = resolve_hardware(entry.hardware, known if known is not None else known_instances())
    instance = None
    if resolution.resolved:
        instance = InstanceType.objects.get(provider__slug=resolution.provider, name=resolution.instance)
    match, _ = HardwareMatch.objects.update_or_create(
        entry=entry,
        defaults={"instance": instance, "instance_count": max(resolution.count, 1), "reason": resolution.reason[:300]},
    )
    return match


def hardware_match_all() -> int:
    from leaderboard.models import Entry

    known = known_instances()
    entries = Entry.objects.all()
    for entry in entries:
        hardware_match_entry(entry=entry, known=known)
    return entries.count()


def _close_quotes(*, instance_id: int, region: str, pricing_model: str) -> None:
    quotes = list(
        PriceQuote.objects.filter(instance_id=instance_id, region=region, pricing_model=pricing_model).order_by(
            "valid_from"
        )
    )
    for quote, following in zip(quotes, [*quotes[1:], None], strict=True):
        valid_to = following.valid_from if following else None
        if quote.valid_to != valid_to:
            PriceQuote.objects.filter(pk=quote.pk).update(valid_to=valid_to)
