"""Create a submitter and print its API token."""

from __future__ import annotations

import json as json_module

from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError

from leaderboard.services import submitter_create


class Command(BaseCommand):
    help = "Create a submitter NAME with --email EMAIL and print its API token."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--email", required=True)
        parser.add_argument("--json", action="store_true", help='Print {"token": ...} and nothing else.')

    def handle(self, *args, name: str, email: str, json: bool = False, **options):
        try:
            submitter, token = submitter_create(name=name, email=email)
        except IntegrityError:
            raise CommandError(f"A submitter or user named '{name}' already exists.") from None
        if json:
            self.stdout.write(json_module.dumps({"token": token}))
        else:
            self.stdout.write(f"Submitter '{submitter.name}' created. API token: {token}")
