"""manage.py backup_site PATH [--json]: the whole site (the database, every submitted file in it) into one file:
pg_dump's custom format on PostgreSQL, SQLite's backup API on SQLite. Prints the site's summary, which
`restore_site` prints again after a restore. The summary is read after the copy: on a site taking submissions
meanwhile, the two can differ by those."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.backups import BackupError, site_backup, site_summary


class Command(BaseCommand):
    help = "Back the whole site up into one file (pg_dump -Fc on PostgreSQL), and print its summary."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="the backup file to write (never over an existing one)")
        parser.add_argument("--json", action="store_true", help="print the summary as JSON")

    def handle(self, *args, **options):
        try:
            site_backup(path=options["path"])
        except BackupError as error:
            raise CommandError(str(error)) from error
        summary = site_summary()
        done = f"backed up to {options['path']}"
        self.stdout.write(json.dumps(summary.as_dict(), sort_keys=True) if options["json"] else summary.described(done))
