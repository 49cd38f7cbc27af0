"""Submitters and their API tokens."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from leaderboard.models import Submitter


class SubmitterExists(Exception):
    """The name is taken by a submitter or a user: a second one would share or shadow its token."""

    def __init__(self, name: str):
        super().__init__(f"A submitter or user named '{name}' already exists.")
        self.name = name


def submitter_create(*, name: str, email: str) -> tuple[Submitter, str]:
    """Create a submitter with a fresh API token; returns (submitter, token key). Raises SubmitterExists."""
    if Submitter.objects.filter(name=name).exists() or get_user_model().objects.filter(username=name).exists():
        raise SubmitterExists(name)
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=name, email=email, password=secrets.token_urlsafe(32))
            submitter = Submitter.objects.create(user=user, name=name, email=email)
            token = Token.objects.create(user=user)
    except IntegrityError:  # created concurrently by another process
        raise SubmitterExists(name) from None
    return submitter, token.key


def submitter_token_rotate(*, name: str) -> str:
    """Replace submitter `name`'s API token with a fresh one; the old one stops working at once.

    Returns the new token key. Raises Submitter.DoesNotExist for an unknown name.
    """
    with transaction.atomic():
        submitter = Submitter.objects.select_related("user").get(name=name)
        Token.objects.filter(user=submitter.user).delete()
        token = Token.objects.create(user=submitter.user)
    return token.key
