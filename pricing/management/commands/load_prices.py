"""Load (or reload) a price catalog CSV: idempotent; a bad row is reported with its line and nothing changes."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from pricing.domain.catalog import CatalogError
from pricing.services import hardware_match_all, prices_load


class Command(BaseCommand):
    help = "Load the price catalog FILE (CSV, the columns of pricing/data/prices.csv)."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options):
        if not file.is_file():
            raise CommandError(f"{file} does not exist.")
        try:
            summary = prices_load(text=file.read_text(encoding="utf-8"))
        except CatalogError as error:
            problems = "\n".join(map(str, error.problems))
            raise CommandError(f"The catalog was not loaded; nothing changed:\n{problems}") from None
        matched = hardware_match_all()
        self.stdout.write(
            f"{summary.created} quotes added, {summary.updated} updated, {summary.unchanged} unchanged; "
            f"{matched} entries matched again."
        )
