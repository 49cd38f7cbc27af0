"""Staff pages: every leaderboard model's admin lists and opens, and an entry can be withdrawn there."""

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Entry
from tests.factories import entry_bytes, training_log

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    client.force_login(get_user_model().objects.create_superuser("staff", "staff@example.org", "x"))
    return client


@pytest.fixture
def entry(api_client) -> Entry:
    files = {"entry": SimpleUploadedFile("e.json", entry_bytes()), "log": SimpleUploadedFile("l.tsv", training_log())}
    response = api_client.post("/api/v1/submissions/", {"task": "cifar10", "track": "train", **files})
    return Entry.objects.get(submission_id=response.json()["id"])


@pytest.mark.parametrize("model", ["task", "submitter", "submission", "entry"])
def test_admin_lists_each_model(staff_client, entry, model):
    assert staff_client.get(f"/admin/leaderboard/{model}/").status_code == 200


def test_admin_opens_an_entry(staff_client, entry):
    assert staff_client.get(f"/admin/leaderboard/entry/{entry.id}/change/").status_code == 200


def test_withdrawing_an_entry_in_the_admin_takes_it_off_the_board(staff_client, entry):
    staff_client.post(
        "/admin/leaderboard/entry/",
        {
            "form-TOTAL_FORMS": "1",
            "form-INITIAL_FORMS": "1",
            "form-0-id": str(entry.id),
            "form-0-status": "withdrawn",
            "_save": "Save",
        },
    )

    entry.refresh_from_db()
    assert entry.status == Entry.Status.WITHDRAWN
    assert staff_client.get("/api/v1/leaderboards/cifar10/training-time/").json()["results"] == []
