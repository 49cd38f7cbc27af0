"""Issue a submitter a new API token; the old one is revoked at once (a leaked or lost token)."""

from __future__ import annotations

import json as json_module

from django.core.management.base import BaseCommand, CommandError

from leaderboard.models import Submitter
from leaderboard.services import submitter_token_rotate


class Command(BaseCommand):
    help = "Give submitter NAME a new API token and revoke its old one."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--json", action="store_true", help='Print {"name": ..., "token": ...} and nothing else.')

    def handle(self, *args, name: str, json: bool = False, **options):
        try:
            token = submitter_token_rotate(name=name)
        except Submitter.DoesNotExist:
            raise CommandError(
                f"No submitter named '{name}'. Create one with: "
                f".venv/bin/python manage.py create_submitter {name} --email EMAIL"
            ) from None
        if json:
            self.stdout.write(json_module.dumps({"name": name, "token": token}))
        else:
            self.stdout.write(f"New API token for '{name}': {token} (the old token no longer works)")
