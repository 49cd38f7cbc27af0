"""Submit an entry (and its log) from the command line, through the same pipeline as the API."""

from __future__ import annotations

import json as json_module
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from dawnboard.rules import Track
from leaderboard.models import Submission, Submitter
from leaderboard.services import Upload, submission_create


class Command(BaseCommand):
    help = "Submit ENTRY.json [LOG.tsv] for --task TASK on --track train|inference."

    def add_arguments(self, parser):
        parser.add_argument("entry", type=Path)
        parser.add_argument("log", type=Path, nargs="?")
        parser.add_argument("--task", required=True)
        parser.add_argument("--track", required=True, choices=[track.value for track in Track])
        parser.add_argument("--submitter", help="Name of the submitter to record (default: none, a local submission).")
        parser.add_argument("--dry-run", action="store_true", help="Validate only; store nothing.")
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, entry: Path, log: Path | None, task: str, track: str, **options):
        submitter = None
        if options["submitter"]:
            submitter = Submitter.objects.filter(name=options["submitter"]).first()
            if submitter is None:
                raise CommandError(f"No submitter named '{options['submitter']}'.")
        outcome = submission_create(
            task_slug=task,
            track=track,
            entry=_read(entry),
            log=_read(log) if log else None,
            source=Submission.Source.COMMAND,
            submitter=submitter,
            dry_run=options["dry_run"],
        )
        document = {
            "id": outcome.submission_id,
            "status": outcome.status,
            "entry_id": outcome.entry_id,
            "warnings": outcome.warnings,
            "errors": outcome.errors,
            "results": outcome.results,
        }
        if options["json"]:
            self.stdout.write(json_module.dumps(document, indent=2))
        else:
            self.stdout.write(f"{outcome.status}: submission {outcome.submission_id}, entry {outcome.entry_id}")
            for issue in outcome.errors + outcome.warnings:
                where = f" (field {issue['field']})" if "field" in issue else ""
                where += f" (line {issue['line']})" if "line" in issue else ""
                self.stdout.write(f"  {issue['code']}{where}: {issue['message']}")
            if outcome.results:
                self.stdout.write("  " + json_module.dumps(outcome.results))
        if outcome.status == "rejected":
            raise CommandError("The submission was rejected.")


def _read(path: Path) -> Upload:
    if not path.is_file():
        raise CommandError(f"{path} does not exist.")
    return Upload(name=path.name, content=path.read_bytes())
