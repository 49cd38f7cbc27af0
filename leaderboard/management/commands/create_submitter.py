"""Create a submitter and print its API token, once: it is not stored."""

from __future__ import annotations

import json as json_module
from datetime import UTC

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services import SubmitterExists, submitter_create
from leaderboard.services.submitters import IssuedToken


def token_document(name: str, token: IssuedToken) -> str:
    """The --json output of create_submitter and rotate_token."""
    expires_at = token.expires_at.isoformat() if token.expires_at else None
    return json_module.dumps({"name": name, "token": token, "expires_at": expires_at})


def token_notice(name: str, token: IssuedToken) -> str:
    """When the token stops working, and that this is the only time it is shown."""
    expires = f"It expires on {token.expires_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC. " if token.expires_at else ""
    return (
        f"{expires}Only a hash of it is stored, so it cannot be shown again: keep it now. A lost or expired "
        f"token is replaced with: .venv/bin/python manage.py rotate_token {name}"
    )


class Command(BaseCommand):
    help = "Create a submitter NAME with --email EMAIL and print its API token."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--email", required=True)
        parser.add_argument(
            "--json", action="store_true", help='Print {"name": ..., "token": ..., "expires_at": ...} and nothing else.'
        )

    def handle(self, *args, name: str, email: str, json: bool = False, **options):
        try:
            submitter, token = submitter_create(name=name, email=email)
        except SubmitterExists as exists:
            raise CommandError(
                f"{exists} To issue it a new token (the old one stops working): "
                f".venv/bin/python manage.py rotate_token {name}"
            ) from None
        if json:
            self.stdout.write(token_document(submitter.name, token))
        else:
            self.stdout.write(f"Submitter '{submitter.name}' created. API token: {token}")
            self.stdout.write(token_notice(submitter.name, token))
