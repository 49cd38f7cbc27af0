"""Match every entry's hardware text to the catalog again and report what resolved and why not."""

import json as json_module

from django.core.management.base import BaseCommand

from leaderboard.models import HardwareMatch
from leaderboard.services import hardware_match_all


class Command(BaseCommand):
    help = "Resolve every entry's hardware against the price catalog and print the outcome of each."

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, **options):
        hardware_match_all()
        matches = HardwareMatch.objects.select_related("entry", "instance__provider").order_by("entry_id")
        rows = [
            {
                "entry_id": match.entry_id,
                "hardware": match.entry.hardware,
                "resolved": match.instance is not None or bool(match.parts),
                "instance": str(match.instance) if match.instance else None,
                "count": match.instance_count if match.instance else None,
                "parts": [{"instance_id": instance_id, "count": count} for instance_id, count in match.parts],
                "reason": match.reason,
                "set_by_staff": match.set_by_staff,
            }
            for match in matches
        ]
        summary = {"entries": len(rows), "resolved": sum(row["resolved"] for row in rows)}
        if options["json"]:
            self.stdout.write(json_module.dumps({"entries": rows, "summary": summary}, indent=2))
            return
        for row in rows:
            if row["instance"]:
                outcome = f"-> {row['instance']} x {row['count']}"
            else:
                outcome = f"-> {row['reason']}" if row["resolved"] else f"refused: {row['reason']}"
            self.stdout.write(f"{row['entry_id']:>6}  {row['hardware'][:70]:<70}  {outcome}")
        self.stdout.write(
            f"{summary['resolved']} of {summary['entries']} entries resolve to a catalog instance or its parts."
        )
