"""Derive every entry's verification level and the verdicts behind it again: its reproductions' verdict and its
convergence against Dawnboard's reference runs; with --logs, first read each entry's stored files again (its scores
at shifted thresholds, a single crossing, what it says was evaluated, an MLPerf set's compliance and RCP verdicts),
as an entry judged before those were kept needs."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from leaderboard.models import Entry
from leaderboard.page_cache import task_boards_changed
from leaderboard.services.judging import entry_files_reread
from leaderboard.services.verification import entries_trust_refresh


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--task", help="Only this task's entries (default: every task's).")
        parser.add_argument("--logs", action="store_true", help="Read each entry's stored files again first.")

    def handle(self, *args, task: str | None = None, logs: bool = False, **options):
        entries = Entry.objects.select_related("submission", "task", "reproduces").order_by("id")
        if task:
            entries = entries.filter(task__slug=task)
        entries = list(entries)
        unread = [entry.id for entry in entries if logs and not entry_files_reread(entry=entry)]
        moved = entries_trust_refresh(entries=entries)
        for task_id in {entry.task_id for entry in entries}:
            task_boards_changed(task_id)
        self.stdout.write(f"{len(entries)} entries verified; {moved} moved level.")
        if unread:
            self.stdout.write(f"{len(unread)} entries' files no longer pass, left as they were: {unread[:20]}")
