"""Author e-mail addresses: never on a public page, export or API answer; staff and the submitter still read them."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from dawnboard.metrics import LEADERBOARD_METRICS
from leaderboard.models import Entry
from tests.factories import SubmitterFactory, entry_bytes, inference_document, training_log
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
        assert response.status_code == 200, address
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
    """Anyone else downloads it as published: the same document without the address."""
    address = f"/entries/{entries[0].id}/files/entry/"
    public = client.get(address)
    assert public.status_code == 200 and TRAINING_EMAIL.encode() not in public.content
    uploaded = json.loads(entry_bytes(author=AUTHOR, authorEmail=TRAINING_EMAIL))
    assert json.loads(public.content) == {name: value for name, value in uploaded.items() if name != "authorEmail"}
    client.force_login(entries[0].submission.submitter.user)
    owned = client.get(address)
    assert owned.status_code == 200 and owned.content == bytes(entries[0].submission.files.get(role="entry").content)


# The probe: the public digest and size of an upload confirm a guessed address offline. Rebuild the file with each
# guess, hash it, compare; with the file as published there is nothing to compare against.
def _digest_of_a_rebuilt_upload(email: str) -> tuple[str, int]:
    rebuilt = entry_bytes(author=AUTHOR, authorEmail=email)
    return hashlib.sha256(rebuilt).hexdigest(), len(rebuilt)


def test_no_public_digest_or_size_confirms_a_guessed_address(client, entries):
    detail = client.get(f"/api/v1/entries/{entries[0].id}/").json()
    page = client.get(f"/entries/{entries[0].id}/").content.decode()
    [entry_file] = [file for file in detail["files"] if file["role"] == "entry"]
    digest, size = _digest_of_a_rebuilt_upload(TRAINING_EMAIL)  # the right guess

    assert entry_file["as_published"] is True
    assert digest not in page and digest not in json.dumps(detail)
    assert (entry_file["sha256"], entry_file["size_bytes"]) != (digest, size)
    # Nor does the size tell the address's length: another address gives the same published file.
    other = SubmitterFactory()
    other_client = APIClient()
    other_client.credentials(HTTP_AUTHORIZATION=f"Token {other.token}")
    assert (
        submit(other_client, entry=entry_bytes(author=AUTHOR, authorEmail="x@y.z"), log=training_log()).status_code
        == 201
    )
    twin = Entry.objects.latest("id")
    [twin_file] = [
        file for file in client.get(f"/api/v1/entries/{twin.id}/").json()["files"] if file["role"] == "entry"
    ]
    assert (twin_file["sha256"], twin_file["size_bytes"]) == (entry_file["sha256"], entry_file["size_bytes"])


def test_the_published_digest_is_the_digest_of_the_published_download(client, entries):
    [entry_file] = [
        file for file in client.get(f"/api/v1/entries/{entries[0].id}/").json()["files"] if file["role"] == "entry"
    ]

    downloaded = client.get(entry_file["url"])

    assert downloaded.status_code == 200
    assert (hashlib.sha256(downloaded.content).hexdigest(), len(downloaded.content)) == (
        entry_file["sha256"],
        entry_file["size_bytes"],
    )


def test_the_submitter_and_staff_are_given_the_upload_and_its_digest_in_the_api(api_client, entries):
    uploaded = bytes(entries[0].submission.files.get(role="entry").content)
    [entry_file] = [
        file for file in api_client.get(f"/api/v1/entries/{entries[0].id}/").json()["files"] if file["role"] == "entry"
    ]

    assert entry_file["as_published"] is False
    assert entry_file["sha256"] == hashlib.sha256(uploaded).hexdigest()
    assert api_client.get(entry_file["url"]).content == uploaded  # with the token, not the site's session


def test_another_submitters_token_downloads_the_published_file_only(entries):
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {SubmitterFactory().token}")

    response = other.get(f"/api/v1/entries/{entries[0].id}/files/entry/")

    assert response.status_code == 200 and TRAINING_EMAIL.encode() not in response.content


def test_the_file_endpoint_answers_an_unknown_file_in_the_envelope(client, entries):
    for address in (f"/api/v1/entries/{entries[1].id}/files/log/", "/api/v1/entries/999999/files/entry/"):
        response = client.get(address, HTTP_ACCEPT="application/octet-stream")
        assert response.status_code == 404, address
        assert response.json()["errors"][0]["code"] == "not_found"


def test_no_verdict_tells_another_submitter_whether_a_guessed_address_is_right(entries):
    """The probe, online: send the entries rebuilt with a guessed address (and the public log): the right guess
    and a wrong one get the same answer, as a dry run and as a real submission (both refused as copies)."""
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {SubmitterFactory().token}")
    public_log = bytes(entries[0].submission.files.get(role="log").content)

    def answers(training_email: str, inference_email: str) -> list[tuple[int, list[str]]]:
        sent = []
        for query in ("?dry_run=1", ""):
            training = entry_bytes(author=AUTHOR, authorEmail=training_email)
            inference = json_bytes(inference_document(author=AUTHOR, authorEmail=inference_email))
            for response in (
                submit(other, entry=training, log=public_log, query=query),
                submit(other, track="inference", entry=inference, log=None, query=query),
            ):
                sent.append((response.status_code, sorted(error["code"] for error in response.json()["errors"])))
        return sent

    right = answers(TRAINING_EMAIL, INFERENCE_EMAIL)
    wrong = answers("wrong-guess@example.org", "another-wrong-guess@example.org")

    assert right == wrong
    assert {codes[0] for _, codes in right} <= {"log_already_submitted", "duplicate_submission"}
