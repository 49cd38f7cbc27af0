"""Submit an entry (and the log of each of its runs) from the command line, through the same pipeline as the API."""

from __future__ import annotations

import json as json_module
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from dawnboard.rules import Track
from leaderboard.models import Submission, Submitter
from leaderboard.services import (
    QueueUnavailable,
    SubmissionOutcome,
    SubmissionRejected,
    Upload,
    submission_create,
    submission_version,
)
from leaderboard.services.submissions import LOG_FORMATS

FAILED = ("rejected", "failed")


class Command(BaseCommand):
    help = (
        "Submit ENTRY.json [LOG.tsv ...] for --task TASK on --track train|inference: one log per run; with "
        "--format mllog, the MLPerf result files of one set (ENTRY: its system JSON) for --round."
    )

    def add_arguments(self, parser):
        parser.add_argument("entry", type=Path)
        parser.add_argument("logs", type=Path, nargs="*", metavar="LOG", help="One log per run, in order.")
        parser.add_argument("--task", required=True)
        parser.add_argument("--track", required=True, choices=[track.value for track in Track])
        parser.add_argument("--format", choices=LOG_FORMATS, default="dawnbench", help="The logs' format.")
        parser.add_argument("--round", default="", help="--format mllog: the MLPerf Training round, e.g. v4.0.")
        parser.add_argument("--submitter", help="Name of the submitter to record (default: none, a local submission).")
        parser.add_argument("--dry-run", action="store_true", help="Validate only; store nothing.")
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, entry: Path, logs: list[Path], task: str, track: str, **options):
        submitter = None
        if options["submitter"]:
            submitter = Submitter.objects.filter(name=options["submitter"]).first()
            if submitter is None:
                raise CommandError(f"No submitter named '{options['submitter']}'.")
        try:
            version = submission_version(log_format=options["format"], round_name=options["round"])
        except SubmissionRejected as rejected:
            raise CommandError(f"The submission was rejected: {rejected}") from None
        try:
            outcome = submission_create(
                task_slug=task,
                track=track,
                entry=_read(entry),
                logs=[_read(log) for log in logs],
                version=version,
                source=Submission.Source.COMMAND,
                submitter=submitter,
                dry_run=options["dry_run"],
            )
        except QueueUnavailable:
            raise CommandError(
                "The submission queue (the Celery broker) is unreachable; nothing was stored. Start the broker, "
                "or unset CELERY_BROKER_URL to judge submissions in-process, and submit again."
            ) from None
        if options["json"]:
            document = {
                "id": outcome.submission_id,
                "status": outcome.status,
                "entry_id": outcome.entry_id,
                "warnings": outcome.warnings,
                "errors": outcome.errors,
                "results": outcome.results,
            }
            self.stdout.write(json_module.dumps(document, indent=2))
        else:
            for line in describe(outcome, submitter=submitter):
                self.stdout.write(line)
        if outcome.status in FAILED:
            raise CommandError(f"The submission was {outcome.status}: {_codes(outcome.errors)}.")


def describe(outcome: SubmissionOutcome, *, submitter: Submitter | None) -> list[str]:
    """The verdict as lines: what happened, each error and warning, and what to do next."""
    if outcome.status == "accepted":
        entry = outcome.entry_id
        lines = [f"accepted: submission {outcome.submission_id}, entry {entry} (its page: /entries/{entry}/)"]
    elif outcome.status == "valid":
        lines = ["valid: the files pass every check (dry run: nothing stored)"]
    elif outcome.status == "pending":
        where = f"/admin/leaderboard/submission/{outcome.submission_id}/change/"
        if submitter is not None:
            where = f"GET /api/v1/submissions/{outcome.submission_id}/ with {submitter.name}'s token, or {where}"
        lines = [f"pending: submission {outcome.submission_id} is queued; a worker judges it. Its verdict: {where}"]
    else:
        stored = "nothing stored" if outcome.submission_id is None else f"submission {outcome.submission_id} kept"
        lines = [f"{outcome.status}: {_count(outcome.errors, 'error')} ({stored})"]
    lines += [f"  error {_issue(issue)}" for issue in outcome.errors]
    lines += [f"  warning {_issue(issue)}" for issue in outcome.warnings]
    if outcome.results:
        lines.append("  results: " + json_module.dumps(outcome.results))
    return lines


def _issue(issue: dict) -> str:
    where = f" (field {issue['field']})" if issue.get("field") else ""
    where += f" (line {issue['line']})" if issue.get("line") is not None else ""
    return f"{issue['code']}{where}: {issue['message']}"


def _count(issues: list[dict], noun: str) -> str:
    return f"{len(issues)} {noun}{'' if len(issues) == 1 else 's'}"


def _codes(issues: list[dict]) -> str:
    return ", ".join(issue["code"] for issue in issues) or "no reason given"


def _read(path: Path) -> Upload:
    if not path.is_file():
        raise CommandError(f"{path} does not exist.")
    return Upload(name=path.name, content=path.read_bytes())
