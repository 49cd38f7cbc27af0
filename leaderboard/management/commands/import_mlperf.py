"""Import MLPerf Training results: `manage.py import_mlperf DIR --round vX.Y [--json]`, or the round's public results
repository downloaded from GitHub: `manage.py import_mlperf --from-github vX.Y [--ref REF] [--sha256 HEX] [--json]`
(docs/submitting/public-archives.md)."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from dawnboard.archives import mlperf_archive
from dawnboard.errors import RejectedInput
from dawnboard.rounds import TRAINING_ROUNDS, round_named
from leaderboard.management.public_archives import SHA256_HELP, described, from_github_options, unpacked_for_import
from leaderboard.services.mlperf import mlperf_results_import

ROUNDS = [training_round.round for training_round in TRAINING_ROUNDS]


class Command(BaseCommand):
    help = (
        "Import an MLPerf Training results tree, DIR/<submitter>/results/<system>/<benchmark>/result_N.txt (with "
        "DIR/<submitter>/systems/<system>.json where present): each set one entry of its runs, scored by the round's "
        "rules as MLCommons' result summarizer scores it. With --from-github ROUND, the round's public results "
        "repository (github.com/mlcommons/training_results_ROUND) is downloaded and imported."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, nargs="?", help="A results tree (a clone of training_results_vX.Y).")
        parser.add_argument(
            "--round", choices=ROUNDS, help="The round the results were submitted to (logs do not say); with DIR."
        )
        parser.add_argument(
            "--from-github",
            choices=ROUNDS,
            metavar="ROUND",
            help="Download github.com/mlcommons/training_results_ROUND into the archive cache and import it as ROUND.",
        )
        parser.add_argument(
            "--ref", help="With --from-github: the branch, tag or commit to download (default: the default branch)."
        )
        parser.add_argument("--sha256", metavar="HEX", help=SHA256_HELP)
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, path: Path | None, json: bool = False, **options):
        from_github, sha256, ref = options.get("from_github"), options.get("sha256"), options.get("ref")
        from_github_options(path=path, from_github=from_github, sha256=sha256, local="DIR")
        if from_github is None:
            if options.get("round") is None:
                raise CommandError("--round is required with DIR: the round the results were submitted to.")
            if ref is not None:
                raise CommandError("--ref names what to download: give it with --from-github.")
            self._import_tree(path, round_name=options["round"], json=json)
            return
        if options.get("round") not in (None, from_github):
            raise CommandError(f"--round {options['round']} and --from-github {from_github} name different rounds.")
        try:
            archive = mlperf_archive(from_github, ref)
        except ValueError as error:
            raise CommandError(str(error)) from None
        with unpacked_for_import(archive=archive, expected_sha256=sha256) as unpacked:
            if not json:
                self.stdout.write(described(unpacked))
            self._import_tree(unpacked.tree.root, round_name=from_github, json=json, archive=unpacked.archive.as_dict())

    def _import_tree(self, path: Path, *, round_name: str, json: bool, archive: dict | None = None) -> None:
        if not path.is_dir():
            raise CommandError(f"{path} is not a folder.")
        try:
            sets = mlperf_results_import(root=path, training_round=round_named(round_name))
        except RejectedInput as rejected:
            raise CommandError("; ".join(f"{issue.code}: {issue.message}" for issue in rejected.issues)) from None
        if json:
            document = {"round": round_name, "sets": [imported.as_dict() for imported in sets]}
            self.stdout.write(_dumps({**({"archive": archive} if archive else {}), **document}))
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
