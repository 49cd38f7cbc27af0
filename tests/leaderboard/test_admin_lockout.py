"""Admin logins (django-axes): wrong passwords lock a username out from that address, and staff can unlock."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db

LOGIN_URL = "/admin/login/"
PASSWORD = "the-right-password"


@pytest.fixture
def admin_user():
    return get_user_model().objects.create_superuser("admin", "admin@example.org", PASSWORD)


def log_in(client: Client, password: str):
    return client.post(LOGIN_URL, {"username": "admin", "password": password, "next": "/admin/"})


def fail_until_locked(client: Client) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "wrong")


def test_the_right_password_is_refused_after_the_failure_limit(admin_user):
    attacker = Client(REMOTE_ADDR="192.0.2.10")
    fail_until_locked(attacker)

    response = log_in(attacker, PASSWORD)

    assert response.status_code == 429
    assert "_auth_user_id" not in attacker.session


def test_a_locked_pair_does_not_lock_the_same_username_elsewhere(admin_user):
    fail_until_locked(Client(REMOTE_ADDR="192.0.2.10"))

    response = log_in(Client(REMOTE_ADDR="192.0.2.20"), PASSWORD)

    assert (response.status_code, response["Location"]) == (302, "/admin/")


def test_one_wrong_password_locks_nothing(admin_user):
    client = Client(REMOTE_ADDR="192.0.2.10")
    log_in(client, "wrong")

    assert log_in(client, PASSWORD).status_code == 302


def test_axes_reset_unlocks(admin_user):
    client = Client(REMOTE_ADDR="192.0.2.10")
    fail_until_locked(client)

    call_command("axes_reset", verbosity=0)

    assert log_in(client, PASSWORD).status_code == 302
