"""manage.py restore_site PATH [--json]: a backup_site file into this site's database, which must be empty (a new
database), in one transaction. Run `manage.py migrate` after it when the code is newer than the backup. Prints the
site's summary: the same as backup_site printed means every entry and file came back."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.management.commands.backup_site import print_summary
from leaderboard.services.backups import BackupError, site_restore, site_summary


class Command(BaseCommand):
    help = "Restore a backup_site file into this (empty) database, and print the site's summary."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="the backup file backup_site wrote")
        parser.add_argument("--json", action="store_true", help="print the summary as JSON")

    def handle(self, *args, **options):
        try:
            site_restore(path=options["path"])
        except BackupError as error:
            raise CommandError(str(error)) from error
        print_summary(self, site_summary(), as_json=options["json"], done=f"restored from {options['path']}")
