"""Submitters and their API tokens.

A token is shown once, when it is issued: the database keeps only its SHA-512 digest, its first characters
(by which staff recognise it) and when it expires (django-rest-knox; REST_KNOX and TOKEN_TTL_DAYS in settings).
"""

from __future__ import annotations

import secrets
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from knox.models import AuthToken

from leaderboard.models import Submitter


class SubmitterExists(Exception):
    """The name is taken by a submitter or a user: a second one would share or shadow its token."""

    def __init__(self, name: str):
        super().__init__(f"A submitter or user named '{name}' already exists.")
        self.name = name


class IssuedToken(str):
    """A new API token: the string itself, to show once (it is not stored), and when it stops working."""

    expires_at: datetime | None

    def __new__(cls, token: str, *, expires_at: datetime | None) -> IssuedToken:
        issued = super().__new__(cls, token)
        issued.expires_at = expires_at
        return issued


def submitter_create(*, name: str, email: str) -> tuple[Submitter, IssuedToken]:
    """Create a submitter with a fresh API token; returns (submitter, token). Raises SubmitterExists."""
    if Submitter.objects.filter(name=name).exists() or get_user_model().objects.filter(username=name).exists():
        raise SubmitterExists(name)
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=name, email=email, password=secrets.token_urlsafe(32))
            submitter = Submitter.objects.create(user=user, name=name, email=email)
            token = _token_issue(user=user)
    except IntegrityError:  # created concurrently by another process
        raise SubmitterExists(name) from None
    return submitter, token


def submitter_token_rotate(*, name: str) -> IssuedToken:
    """Replace all of submitter `name`'s API tokens with a fresh one; the old ones stop working at once.

    Returns the new token. Raises Submitter.DoesNotExist for an unknown name.
    """
    with transaction.atomic():
        submitter = Submitter.objects.select_related("user").get(name=name)
        AuthToken.objects.filter(user=submitter.user).delete()
        return _token_issue(user=submitter.user)


def _token_issue(*, user) -> IssuedToken:
    """A new token for `user`, expiring REST_KNOX's TOKEN_TTL (TOKEN_TTL_DAYS) from now."""
    stored, token = AuthToken.objects.create(user=user)
    return IssuedToken(token, expires_at=stored.expiry)
