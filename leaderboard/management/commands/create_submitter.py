"""Create a submitter and print its API token."""

from __future__ import annotations

import json as json_module

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services import SubmitterExists, submitter_create


class Command(BaseCommand):
    help = "Create a submitter NAME with --email EMAIL and print its API token."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--email", required=True)
        parser.add_argument("--json", action="store_true", help='Print {"name": ..., "token": ...} and nothing else.')

    def handle(self, *args, name: str, email: str, json: bool = False, **options):
        try:
            submitter, token = submitter_create(name=name, email=email)
        except SubmitterExists as exists:
            raise CommandError(
                f"{exists} To issue it a new token (the old one stops working): "
                f".venv/bin/python manage.py rotate_token {name}"
            ) from None
        if json:
            self.stdout.write(json_module.dumps({"name": submitter.name, "token": token}))
        else:
            self.stdout.write(f"Submitter '{submitter.name}' created. API token: {token}")
