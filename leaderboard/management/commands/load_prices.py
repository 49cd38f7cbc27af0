"""Load (or reload) a price catalog CSV and match every entry against it again.

Idempotent: an unchanged file changes nothing and says so; a bad row is reported with its line and nothing changes.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services import catalog_reload
from pricing.domain.catalog import CatalogError


class Command(BaseCommand):
    help = "Load the price catalog FILE (CSV, the columns of pricing/data/prices.csv)."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options):
        if not file.is_file():
            raise CommandError(f"{file} does not exist.")
        try:
            reload = catalog_reload(text=file.read_text(encoding="utf-8"))
        except CatalogError as error:
            problems = "\n".join(map(str, error.problems))
            raise CommandError(f"The catalog was not loaded; nothing changed:\n{problems}") from None
        prices, matches = reload.prices, reload.matches
        if not reload.changed:
            self.stdout.write(
                f"Nothing changed: all {prices.unchanged} quotes were already loaded as they are, "
                f"and {matches.entries} entries match as before."
            )
            return
        self.stdout.write(
            f"{prices.created} quotes added, {prices.updated} updated, {prices.unchanged} unchanged; "
            f"{matches.entries} entries matched again ({matches.changed} differently)."
        )
