"""Issue a submitter a new API token; the old ones are revoked at once (a leaked, lost or expired token)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from leaderboard.management.commands.create_submitter import token_document, token_notice
from leaderboard.models import Submitter
from leaderboard.services import submitter_token_rotate


class Command(BaseCommand):
    help = "Give submitter NAME a new API token and revoke its old ones (leaked, lost or expired)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument(
            "--json", action="store_true", help='Print {"name": ..., "token": ..., "expires_at": ...} and nothing else.'
        )

    def handle(self, *args, name: str, json: bool = False, **options):
        try:
            token = submitter_token_rotate(name=name)
        except Submitter.DoesNotExist:
            raise CommandError(
                f"No submitter named '{name}'. Create one with: "
                f".venv/bin/python manage.py create_submitter {name} --email EMAIL"
            ) from None
        if json:
            self.stdout.write(token_document(name, token))
        else:
            self.stdout.write(f"New API token for '{name}': {token} (the old token no longer works)")
            self.stdout.write(token_notice(name, token))
