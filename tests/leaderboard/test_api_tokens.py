"""API tokens: stored only as a hash, shown once when issued, expiring, and carried over hashed from plaintext."""

from __future__ import annotations

import importlib
import runpy
from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from leaderboard.services import submitter_create
from tests.factories import SubmitterFactory
from tests.leaderboard.api.helpers import submit

SETTINGS_FILE = Path(__file__).resolve().parents[2] / "config" / "settings" / "base.py"
SUBMISSIONS_URL = "/api/v1/submissions/"
LEGACY_KEY = "0123456789abcdef0123456789abcdef01234567"  # 40 hex characters, as DRF's authtoken made them
LEGACY_CREATED = datetime(2024, 3, 1, 12, 30, tzinfo=UTC)


def client_with(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def codes(response) -> list[str]:
    return [error["code"] for error in response.json()["errors"]]


def every_stored_value() -> list[str]:
    """Every cell of every table, as text."""
    values = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            values += [str(cell) for row in cursor.fetchall() for cell in row]
    return values


@pytest.mark.django_db
def test_the_token_is_stored_nowhere_only_its_hash_and_prefix():
    submitter = SubmitterFactory()

    stored = AuthToken.objects.get(user=submitter.user)
    assert stored.token_key == submitter.token[:15]
    assert len(stored.digest) == 128  # SHA-512, hex
    assert not [value for value in every_stored_value() if submitter.token in value]


@pytest.mark.django_db
def test_a_new_token_carries_the_dawn_prefix_and_authenticates():
    submitter = SubmitterFactory()

    response = client_with(submitter.token).get(SUBMISSIONS_URL)

    assert submitter.token.startswith("dawn_") and len(submitter.token) == len("dawn_") + 64
    assert response.status_code == 200


@pytest.mark.django_db
def test_an_expired_token_is_refused_with_token_expired_and_how_to_get_a_new_one():
    submitter = SubmitterFactory()
    AuthToken.objects.filter(user=submitter.user).update(expiry=datetime(2025, 1, 2, 3, 4, tzinfo=UTC))

    response = client_with(submitter.token).get(SUBMISSIONS_URL)

    assert response.status_code == 401
    assert response.json()["status"] == "rejected"
    assert codes(response) == ["token_expired"]
    message = response.json()["errors"][0]["message"]
    assert "2025-01-02" in message and f"rotate_token {submitter.name}" in message


@pytest.mark.django_db
def test_token_ttl_days_from_the_environment_sets_when_a_new_token_expires(monkeypatch):
    monkeypatch.setenv("TOKEN_TTL_DAYS", "3")
    base = runpy.run_path(str(SETTINGS_FILE))  # the settings file read afresh, as at a start

    with override_settings(REST_KNOX=base["REST_KNOX"]):  # knox reloads its settings on setting_changed
        _, token = submitter_create(name="short-lived", email="short@example.org")

    assert base["TOKEN_TTL_DAYS"] == 3
    assert timedelta(days=3) - timedelta(minutes=1) < token.expires_at - timezone.now() <= timedelta(days=3)
    assert AuthToken.objects.get(user__username="short-lived").expiry == token.expires_at


@pytest.mark.django_db
def test_rotate_token_prints_the_new_token_once_with_its_expiry_and_the_old_one_stops_working():
    submitter = SubmitterFactory()
    out = StringIO()

    call_command("rotate_token", submitter.name, stdout=out)

    new = AuthToken.objects.get(user=submitter.user)
    printed = out.getvalue()
    [token] = [word for word in printed.split() if word.startswith("dawn_")]
    assert printed.count(token) == 1
    assert f"expires on {new.expiry:%Y-%m-%d}" in printed and "cannot be shown again" in printed
    assert client_with(submitter.token).get(SUBMISSIONS_URL).status_code == 401
    assert client_with(token).get(SUBMISSIONS_URL).status_code == 200


@pytest.mark.django_db
def test_create_submitter_prints_the_token_once_with_its_expiry():
    out = StringIO()

    call_command("create_submitter", "fast-team", "--email", "fast@example.org", stdout=out)

    stored = AuthToken.objects.get(user__username="fast-team")
    printed = out.getvalue()
    [token] = [word for word in printed.split() if word.startswith("dawn_")]
    assert printed.count(token) == 1
    assert f"expires on {stored.expiry:%Y-%m-%d}" in printed and "cannot be shown again" in printed


@pytest.mark.django_db
def test_the_admin_lists_tokens_by_their_prefix_and_never_shows_one(client):
    submitter = SubmitterFactory()
    client.force_login(get_user_model().objects.create_superuser("staff", "staff@example.org", "x"))
    stored = AuthToken.objects.get(user=submitter.user)

    listing = client.get("/admin/knox/authtoken/")
    page = client.get(f"/admin/knox/authtoken/{stored.pk}/change/")

    assert listing.status_code == page.status_code == 200
    assert stored.token_key in listing.text and submitter.name in listing.text
    assert submitter.token not in listing.text and submitter.token not in page.text
    assert client.get("/admin/knox/authtoken/add/").status_code == 403  # tokens come from the commands, shown once


@pytest.fixture
def legacy_token_table():
    """DRF authtoken's table as it stood, holding plaintext keys; dropped by the migration (or here, if not)."""
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE {quote('authtoken_token')} ({quote('key')} varchar(40) NOT NULL PRIMARY KEY, "
            f"{quote('created')} {connection.data_types['DateTimeField']} NOT NULL, "
            f"{quote('user_id')} integer NOT NULL UNIQUE REFERENCES {quote('auth_user')} ({quote('id')}))"
        )
    yield
    if "authtoken_token" in connection.introspection.table_names():
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE {quote('authtoken_token')}")


# Out of a transaction, where SQLite's schema editor works; serialized_rollback: the flush between such tests would
# otherwise drop the tasks the migrations load.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_migration_hashes_legacy_tokens_which_keep_working_and_drops_the_plaintext(legacy_token_table):
    submitter = SubmitterFactory()
    submission_id = submit(client_with(submitter.token)).json()["id"]
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, %s, %s)",
            [LEGACY_KEY, connection.ops.adapt_datetimefield_value(LEGACY_CREATED), submitter.user_id],
        )
    migration = importlib.import_module("leaderboard.migrations.0013_hashed_api_tokens")

    with connection.schema_editor() as schema_editor:
        migration.hash_legacy_tokens(apps, schema_editor)

    response = client_with(LEGACY_KEY).get(SUBMISSIONS_URL)
    assert response.status_code == 200
    assert [row["id"] for row in response.json()["results"]] == [submission_id]
    assert "authtoken_token" not in connection.introspection.table_names()
    assert not [value for value in every_stored_value() if LEGACY_KEY in value]
    migrated = AuthToken.objects.get(token_key=LEGACY_KEY[:15])
    assert migrated.created == LEGACY_CREATED
    expected_expiry = timezone.now() + timedelta(days=settings.TOKEN_TTL_DAYS)
    assert abs(migrated.expiry - expected_expiry) < timedelta(minutes=1)
