"""manage.py restore_site PATH [--json]: a backup_site file into this site's database, which must be empty (a new
database), in one transaction. A backup of older code is migrated to this code's schema after it. Prints the
site's summary: the same as backup_site printed means every entry and file came back (after a migration, compare
the rows and the files: the entries' digest covers the columns the migration added)."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.backups import BackupError, site_restore, site_summary


class Command(BaseCommand):
    help = "Restore a backup_site file into this (empty) database, and print the site's summary."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="the backup file backup_site wrote")
        parser.add_argument("--json", action="store_true", help="print the summary as JSON")

    def handle(self, *args, **options):
        try:
            migrated = site_restore(path=options["path"])
        except BackupError as error:
            raise CommandError(str(error)) from error
        done = f"restored from {options['path']}" + (", then migrated to this code's schema" if migrated else "")
        summary = site_summary()
        self.stdout.write(json.dumps(summary.as_dict(), sort_keys=True) if options["json"] else summary.described(done))
