"""Author e-mail addresses: never on a public page, export or API answer; staff and the submitter still read them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from dawnboard.metrics import LEADERBOARD_METRICS
from leaderboard.models import Entry
from tests.factories import SubmitterFactory, entry_bytes, inference_document
from tests.leaderboard.api.helpers import json_bytes, submit

pytestmark = pytest.mark.django_db

TRAINING_EMAIL = "private-trainer@example.org"
INFERENCE_EMAIL = "private-inferer@example.org"
AUTHOR = "Named Team"


@pytest.fixture
def entries(api_client) -> list[Entry]:
    """A training and an inference entry of the fixture's submitter, each with its own author e-mail."""
    assert submit(api_client, entry=entry_bytes(author=AUTHOR, authorEmail=TRAINING_EMAIL)).status_code == 201
    inference = inference_document(author=AUTHOR, authorEmail=INFERENCE_EMAIL)
    assert submit(api_client, track="inference", entry=json_bytes(inference), log=None).status_code == 201
    return list(Entry.objects.order_by("id"))


def public_addresses(entries: list[Entry]) -> list[str]:
    ids = [entry.id for entry in entries]
    pages = ["/", "/submit/", "/tasks/cifar10/charts/", f"/compare/?ids={ids[0]}&ids={ids[1]}"]
    pages += [f"/compare/?entries={ids[0]},{ids[1]}"]
    for metric in LEADERBOARD_METRICS:
        pages += [f"/tasks/cifar10/?metric={metric}", f"/tasks/cifar10/export.csv?metric={metric}"]
        pages += [f"/tasks/cifar10/export.json?metric={metric}", f"/api/v1/leaderboards/cifar10/{metric}/"]
    pages += ["/api/v1/entries/", "/api/v1/entries/?task=cifar10", "/api/v1/tasks/"]
    for entry_id in ids:
        pages += [f"/entries/{entry_id}/", f"/api/v1/entries/{entry_id}/", f"/entries/{entry_id}/files/entry/"]
    return pages


def test_no_public_page_export_or_api_answer_shows_an_author_email(client, entries):
    for address in public_addresses(entries):
        response = client.get(address)
        assert response.status_code == (403 if "/files/entry/" in address else 200), address
        body = response.getvalue().decode()  # getvalue(): exports are streamed
        assert TRAINING_EMAIL not in body and INFERENCE_EMAIL not in body, address


def test_the_entry_page_and_the_api_still_name_the_author(client, entries):
    for entry in entries:
        assert AUTHOR in client.get(f"/entries/{entry.id}/").content.decode()
        assert client.get(f"/api/v1/entries/{entry.id}/").json()["author"] == AUTHOR


def test_a_public_api_detail_has_no_author_email_field_and_no_authorEmail_in_the_claimed_document(client, entries):
    detail = client.get(f"/api/v1/entries/{entries[0].id}/").json()

    assert "author_email" not in detail
    assert "authorEmail" not in detail["claimed"] and detail["claimed"]["author"] == AUTHOR


def test_the_submitter_reads_the_author_email_of_their_own_entries(api_client, entries):
    for entry, email in zip(entries, (TRAINING_EMAIL, INFERENCE_EMAIL), strict=True):
        detail = api_client.get(f"/api/v1/entries/{entry.id}/").json()
        assert (detail["author_email"], detail["claimed"]["authorEmail"]) == (email, email)


def test_another_submitter_does_not_read_it(entries):
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {SubmitterFactory().token}")

    detail = other.get(f"/api/v1/entries/{entries[0].id}/").json()

    assert "author_email" not in detail and TRAINING_EMAIL not in str(detail)


def test_staff_read_it_in_the_api_and_in_the_admin(client, entries):
    client.force_login(get_user_model().objects.create_user("staff", "staff@example.org", "x", is_staff=True))

    detail = client.get(f"/api/v1/entries/{entries[0].id}/").json()
    admin = get_user_model().objects.create_superuser("admin", "admin@example.org", "x")
    admin_client = client.__class__()
    admin_client.force_login(admin)
    change_page = admin_client.get(f"/admin/leaderboard/entry/{entries[0].id}/change/").content.decode()

    assert detail["author_email"] == TRAINING_EMAIL
    assert TRAINING_EMAIL in change_page


def test_the_public_entry_page_stays_without_it_after_staff_have_looked(client, entries):
    """The page is cached for everyone: what staff are shown must never be what the cache keeps."""
    staff = client.__class__()
    staff.force_login(get_user_model().objects.create_superuser("admin", "admin@example.org", "x"))
    staff.get(f"/entries/{entries[0].id}/")

    assert TRAINING_EMAIL not in client.get(f"/entries/{entries[0].id}/").content.decode()


def test_the_entry_file_as_submitted_is_downloaded_by_staff_and_its_submitter_only(client, entries):
    """It holds the e-mail and must keep its bytes (its sha256 is shown), so it is not served to the public."""
    address = f"/entries/{entries[0].id}/files/entry/"
    assert client.get(address).status_code == 403
    client.force_login(entries[0].submission.submitter.user)
    owned = client.get(address)
    assert owned.status_code == 200 and TRAINING_EMAIL.encode() in owned.content
