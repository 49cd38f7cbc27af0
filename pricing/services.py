"""Writes: loading a price catalog file (idempotent, all or nothing).

Matching entries to instances is the leaderboard's (it owns the entries); it calls these and then matches. A load
that changes quotes says which instances' (`pricing.signals.prices_changed`), for the boards priced by them.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from pricing.domain.catalog import parse_prices
from pricing.models import InstanceType, PriceQuote, Provider
from pricing.signals import prices_changed


@dataclass(frozen=True)
class LoadSummary:
    created: int
    updated: int
    unchanged: int

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated)


def prices_load(*, text: str) -> LoadSummary:
    """Load a price catalog CSV. A new quote closes the previous one of its instance, region and model.

    Raises:
        CatalogError: naming every bad line; nothing is written then.
    """
    rows = parse_prices(text)
    created = updated = unchanged = 0
    with transaction.atomic():
        groups, changed_instance_ids = set(), set()
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
            quote = row.quote
            values = {
                "usd_per_hour": row.usd_per_hour,
                "source_url": row.source_url,
                "note": row.note,
                "currency": quote.currency if quote else "USD",
                "quoted_price": quote.amount if quote else None,
                "quoted_per": quote.per if quote else "",
                "currency_per_usd": quote.currency_per_usd if quote else None,
                "usd_per_currency": quote.usd_per_currency if quote else None,
                "exchange_rate_source": quote.exchange_rate_source if quote else "",
            }
            quote, was_created = PriceQuote.objects.get_or_create(
                instance=instance,
                region=row.region,
                pricing_model=row.pricing_model,
                valid_from=row.valid_from,
                defaults=values,
            )
            if was_created:
                created += 1
                changed_instance_ids.add(instance.pk)
            elif any(getattr(quote, name) != value for name, value in values.items()):
                PriceQuote.objects.filter(pk=quote.pk).update(**values)
                updated += 1
                changed_instance_ids.add(instance.pk)
            else:
                unchanged += 1
            groups.add((instance.pk, row.region, row.pricing_model))
        for instance_id, region, pricing_model in groups:
            if _close_quotes(instance_id=instance_id, region=region, pricing_model=pricing_model):
                changed_instance_ids.add(instance_id)
        if changed_instance_ids:
            prices_changed.send(sender=PriceQuote, instance_ids=changed_instance_ids)
    return LoadSummary(created=created, updated=updated, unchanged=unchanged)


def _close_quotes(*, instance_id: int, region: str, pricing_model: str) -> bool:
    """End each quote where the next of its instance, region and model starts; returns whether any end moved."""
    quotes = list(
        PriceQuote.objects.filter(instance_id=instance_id, region=region, pricing_model=pricing_model).order_by(
            "valid_from"
        )
    )
    moved = False
    for quote, following in zip(quotes, [*quotes[1:], None], strict=True):
        valid_to = following.valid_from if following else None
        if quote.valid_to != valid_to:
            PriceQuote.objects.filter(pk=quote.pk).update(valid_to=valid_to)
            moved = True
    return moved
