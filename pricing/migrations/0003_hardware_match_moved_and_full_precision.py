"""The hardware match now lives in the leaderboard (copied there by its 0004), and prices and grid
intensities keep every decimal the catalog gives: a reload of an unchanged file then compares equal.

The bundled rows that the narrower columns had rounded are restored from pricing/data/.
"""

from decimal import Decimal

from django.db import migrations, models

from pricing.domain.catalog import BUNDLED_CATALOG_DIR, parse_grid, parse_prices

OLD_PRICE_PLACES = 6
OLD_GRID_PLACES = 1


def rounded_by_the_old_column(stored: Decimal, exact: Decimal, places: int) -> bool:
    """Whether `stored` is `exact` rounded to `places` (by any rule: SQLite and PostgreSQL round halves apart)."""
    return stored != exact and abs(stored - exact) <= Decimal(1).scaleb(-places) / 2


def restore_precision(apps, schema_editor):
    PriceQuote = apps.get_model("pricing", "PriceQuote")
    GridRegion = apps.get_model("pricing", "GridRegion")
    for row in parse_prices((BUNDLED_CATALOG_DIR / "prices.csv").read_text(encoding="utf-8")):
        quote = PriceQuote.objects.filter(
            instance__provider__slug=row.provider,
            instance__name=row.instance,
            region=row.region,
            pricing_model=row.pricing_model,
            valid_from=row.valid_from,
        ).first()
        if quote and rounded_by_the_old_column(quote.usd_per_hour, row.usd_per_hour, OLD_PRICE_PLACES):
            PriceQuote.objects.filter(pk=quote.pk).update(usd_per_hour=row.usd_per_hour)
    for row in parse_grid((BUNDLED_CATALOG_DIR / "grid.csv").read_text(encoding="utf-8")):
        region = GridRegion.objects.filter(provider__slug=row.provider, region=row.region).first()
        if region and rounded_by_the_old_column(region.grams_co2e_per_kwh, row.grams_co2e_per_kwh, OLD_GRID_PLACES):
            GridRegion.objects.filter(pk=region.pk).update(grams_co2e_per_kwh=row.grams_co2e_per_kwh)


class Migration(migrations.Migration):
    dependencies = [
        ("pricing", "0002_bundled_catalog"),
        ("leaderboard", "0004_task_documentation_and_hardware_match"),
    ]

    operations = [
        migrations.DeleteModel(name="HardwareMatch"),
        migrations.AlterField(
            model_name="pricequote",
            name="usd_per_hour",
            field=models.DecimalField(decimal_places=10, max_digits=20),
        ),
        migrations.AlterField(
            model_name="gridregion",
            name="grams_co2e_per_kwh",
            field=models.DecimalField(decimal_places=2, max_digits=10),
        ),
        migrations.RunPython(restore_precision, migrations.RunPython.noop),
    ]
