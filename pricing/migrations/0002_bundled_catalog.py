"""Load the catalog shipped in pricing/data/ (prices, accelerator powers, grid intensities).

Written against the models as they stood at this migration (`apps.get_model`), so a later field on a
pricing model cannot break a fresh `migrate`. Reload prices later with `python manage.py load_prices FILE`.
"""

from django.db import migrations

from pricing.domain.catalog import BUNDLED_CATALOG_DIR, parse_accelerators, parse_grid, parse_prices


def load(apps, schema_editor):
    Provider = apps.get_model("pricing", "Provider")
    InstanceType = apps.get_model("pricing", "InstanceType")
    PriceQuote = apps.get_model("pricing", "PriceQuote")
    Accelerator = apps.get_model("pricing", "Accelerator")
    GridRegion = apps.get_model("pricing", "GridRegion")

    def provider(slug):
        return Provider.objects.get_or_create(slug=slug)[0]

    rows = parse_prices((BUNDLED_CATALOG_DIR / "prices.csv").read_text(encoding="utf-8"))
    # A quote is valid until the next one of its instance, region and pricing model.
    next_start = {}
    for row in sorted(rows, key=lambda row: row.quote_key, reverse=True):
        group = row.quote_key[:4]
        next_start[row.quote_key] = next_start.get(group)
        next_start[group] = row.valid_from
    for row in rows:
        instance, _ = InstanceType.objects.update_or_create(
            provider=provider(row.provider),
            name=row.instance,
            defaults={
                "accelerator": row.accelerator,
                "accelerator_count": row.accelerator_count,
                "vcpus": row.vcpus,
                "memory_gib": row.memory_gib,
            },
        )
        PriceQuote.objects.update_or_create(
            instance=instance,
            region=row.region,
            pricing_model=row.pricing_model,
            valid_from=row.valid_from,
            defaults={
                "usd_per_hour": row.usd_per_hour,
                "valid_to": next_start[row.quote_key],
                "source_url": row.source_url,
                "note": row.note,
            },
        )

    for row in parse_accelerators((BUNDLED_CATALOG_DIR / "accelerators.csv").read_text(encoding="utf-8")):
        Accelerator.objects.update_or_create(
            name=row.accelerator,
            defaults={"board_power_watts": row.board_power_watts, "source_url": row.source_url, "note": row.note},
        )
    for row in parse_grid((BUNDLED_CATALOG_DIR / "grid.csv").read_text(encoding="utf-8")):
        GridRegion.objects.update_or_create(
            provider=provider(row.provider),
            region=row.region,
            defaults={
                "grams_co2e_per_kwh": row.grams_co2e_per_kwh,
                "pue": row.pue,
                "source_url": row.source_url,
                "note": row.note,
            },
        )


class Migration(migrations.Migration):
    dependencies = [("pricing", "0001_initial"), ("leaderboard", "0003_board_generation")]
    operations = [migrations.RunPython(load, migrations.RunPython.noop)]
