"""Load the catalog shipped in pricing/data/ (prices, accelerator powers, grid intensities) and match
every existing entry against it. Re-load later with `python manage.py load_prices FILE`."""

from django.db import migrations


def load(apps, schema_editor):
    from pricing.services import catalog_load_bundled

    catalog_load_bundled()


class Migration(migrations.Migration):
    dependencies = [("pricing", "0001_initial"), ("leaderboard", "0003_board_generation")]
    operations = [migrations.RunPython(load, migrations.RunPython.noop)]
