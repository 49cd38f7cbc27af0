"""Import MLPerf Training results: `manage.py import_mlperf DIR --round vX.Y [--json]`."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from dawnboard.errors import RejectedInput
from dawnboard.rounds import TRAINING_ROUNDS, round_named
from leaderboard.services.mlperf import mlperf_results_import

ROUNDS = [training_round.round for training_round in TRAINING_ROUNDS]


class Command(BaseCommand):
    help = (
        "Import an MLPerf Training results tree, DIR/<submitter>/results/<system>/<benchmark>/result_N.txt (with "
        "DIR/<submitter>/systems/<system>.json where present): each set one entry of its runs, scored by the round's "
        "rules as MLCommons' result summarizer scores it."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)
        parser.add_argument(
            "--round", required=True, choices=ROUNDS, help="The round the results were submitted to (logs do not say)."
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, path: Path, json: bool = False, **options):
        round_name = options["round"]
        if not path.is_dir():
            raise CommandError(f"{path} is not a folder.")
        try:
            sets = mlperf_results_import(root=path, training_round=round_named(round_name))
        except RejectedInput as rejected:
            raise CommandError("; ".join(f"{issue.code}: {issue.message}" for issue in rejected.issues)) from None
        if json:
            self.stdout.write(_dumps({"round": round_name, "sets": [imported.as_dict() for imported in sets]}))
        else:
            for imported in sets:
                self.stdout.write(_describe(imported))
            accepted = sum(imported.status == "accepted" for imported in sets)
            self.stdout.write(f"{accepted} of {len(sets)} sets accepted (round {round_name}).")


def _describe(imported) -> str:
    where = f"{imported.submitter}/{imported.system}/{imported.benchmark}"
    if imported.status == "accepted":
        again = ", imported before" if imported.already_imported else ""
        return f"accepted {where}: {imported.score_minutes:.4f} minutes, entry {imported.entry_id}{again}"
    codes = ", ".join(error["code"] for error in imported.errors) or "no reason given"
    return f"rejected {where}: {codes}"


def _dumps(document: dict) -> str:
    return json.dumps(document, indent=2, allow_nan=False)
