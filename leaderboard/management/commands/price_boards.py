"""Price every entry under each catalog policy again, for the boards by a catalog price (`?cost_basis=`)."""

from django.core.management.base import BaseCommand

from leaderboard.services import entry_policy_costs_expire, entry_policy_costs_refresh


class Command(BaseCommand):
    help = (
        "Price every accepted entry matched to the catalog under each catalog policy and store the costs the boards"
        " by a catalog price are read from. --expired: only the entries whose price today moved (what Celery beat"
        " runs every hour; from cron where there is no broker)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--expired", action="store_true", help="Only entries whose price today moved.")

    def handle(self, *args, expired: bool = False, **options):
        priced = entry_policy_costs_expire() if expired else entry_policy_costs_refresh()
        self.stdout.write(f"{priced} {'entry' if priced == 1 else 'entries'} priced under the catalog policies.")
