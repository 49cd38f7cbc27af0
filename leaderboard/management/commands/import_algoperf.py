"""Import AlgoPerf's published results: `manage.py import_algoperf DIR --ruleset external|self --version 0.5|0.6
[--json]`."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from dawnboard.algorithms.algoperf_versions import ALGOPERF_VERSIONS
from leaderboard.services.algorithms import algoperf_results_import


class Command(BaseCommand):
    help = (
        "Import AlgoPerf's published results, DIR/<submission>/study_<k>/<workload>_<framework>/trial_<j>/"
        "eval_measurements.csv, scored with the workloads, targets, budgets and studies of the AlgoPerf version named."
    )

    def create_parser(self, prog_name, subcommand, **kwargs):
        # --version names AlgoPerf's version here (the interface), not Django's: ours replaces Django's flag.
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="The ruleset's folder: one folder per submission in it.")
        parser.add_argument("--ruleset", required=True, choices=["external", "self"])
        parser.add_argument("--version", required=True, choices=sorted(ALGOPERF_VERSIONS), dest="algoperf_version")
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, path: Path, **options):
        if not path.is_dir():
            raise CommandError(f"{path} is not a folder.")
        ruleset, version = options["ruleset"], options["algoperf_version"]
        imports = algoperf_results_import(root=path, version=version, ruleset=ruleset)
        if options["json"]:
            document = {"ruleset": ruleset, "version": version, "submissions": [item.as_dict() for item in imports]}
            self.stdout.write(json.dumps(document, indent=2, allow_nan=False))
            return
        for item in imports:
            if item.status == "accepted":
                gaps = f", {len(item.warnings)} gap(s) warned of" if item.warnings else ""
                self.stdout.write(f"accepted {item.name}: score {item.score:.4f}{gaps}")
            else:
                self.stdout.write(f"rejected {item.name}: {', '.join(error['code'] for error in item.errors)}")
        accepted = sum(item.status == "accepted" for item in imports)
        self.stdout.write(
            f"{accepted} of {len(imports)} submissions accepted (AlgoPerf {version}, {ruleset} tuning); "
            f"the board: /algorithms/algoperf-{version}/{ruleset}/"
        )
