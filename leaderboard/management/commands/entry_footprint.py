"""Print the estimated training energy and carbon of an entry, every factor with its source."""

import json as json_module

from django.core.management.base import BaseCommand, CommandError

from leaderboard.models import Entry
from leaderboard.selectors import entry_accounting, entry_priced_run
from pricing.selectors import footprint_unavailable


class Command(BaseCommand):
    help = "Estimate the training energy (kWh) and carbon (kg CO2e) of entry ID."
    requires_system_checks = []  # a read, like `leaderboard`: the checks import every view for nothing

    def add_arguments(self, parser):
        parser.add_argument("entry_id", type=int)
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, entry_id: int, **options):
        entry = Entry.objects.select_related("hardware_match__instance__provider").filter(id=entry_id).first()
        if entry is None:
            raise CommandError(f"No entry {entry_id}. The API lists entries: GET /api/v1/entries/.")
        footprint = entry_accounting(entry).footprint
        if footprint is None:
            why = footprint_unavailable(entry_priced_run(entry))
            hint = (
                " `.venv/bin/python manage.py resolve_hardware` shows how each entry's hardware matches the catalog; "
                "staff can set the match in the admin."
                if entry.is_training
                else ""
            )
            raise CommandError(f"Entry {entry_id} has no footprint estimate: {why}.{hint}")
        if options["json"]:
            self.stdout.write(json_module.dumps(footprint, indent=2))
            return
        for key, value in footprint.items():
            self.stdout.write(f"{key}: {value}")
